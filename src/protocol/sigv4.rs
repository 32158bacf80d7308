//! AWS Signature Version 4 as a server reads it: who signed (access key, region, service from the
//! credential scope, in the Authorization header or a presigned query) and, with `--auth verify`,
//! whether the signature is right (computed with `aws-sigv4`, the SDKs' own signer).
//! It must not depend on the runtime, the state or the services.

use crate::error::AwsError;
use crate::text;
use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    SignableBody, SignableRequest, SignatureLocation, SigningSettings, sign,
};
use aws_sigv4::sign::v4;
use axum::http::{HeaderMap, Method, Uri};
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How far a signature's timestamp may be from the server's time (AWS: 15 minutes).
const MAX_SKEW: Duration = Duration::from_secs(15 * 60);

/// A request's signature, borrowed from its headers or query: reading one allocates nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature<'a> {
    pub access_key: &'a str,
    /// The scope's date (`20261130`), region and service.
    pub date: &'a str,
    pub region: &'a str,
    pub service: &'a str,
    /// The signed header names, `;`-separated as sent ([`Signature::signed_headers`]).
    signed_headers: &'a str,
    pub signature: &'a str,
    /// `X-Amz-Date` (`20261130T083500Z`).
    pub amz_date: Option<&'a str>,
    /// `X-Amz-Expires` of a presigned request; `None` when signed in the header.
    pub presigned_expires: Option<u64>,
}

impl<'a> Signature<'a> {
    /// The names of the signed headers.
    pub fn signed_headers(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.signed_headers.split(';').filter(|h| !h.is_empty())
    }
}

/// Reads the signature of a request; `Ok(None)` when it is unsigned.
pub fn read<'a>(
    headers: &'a HeaderMap,
    query: &'a BTreeMap<String, String>,
) -> Result<Option<Signature<'a>>, AwsError> {
    if let Some(auth) = headers.get(axum::http::header::AUTHORIZATION) {
        let auth = super::ascii(auth).ok_or_else(incomplete)?;
        let fields = auth
            .strip_prefix("AWS4-HMAC-SHA256")
            .ok_or_else(incomplete)?;
        // The three fields by name, the last of a repeated one winning; no map for three.
        let (mut credential, mut signed_headers, mut signature) = (None, None, None);
        for (k, v) in text::split(fields, b',').filter_map(|part| text::split_at(part, b'=')) {
            let v = v.trim_ascii();
            match k.trim_ascii() {
                "Credential" => credential = Some(v),
                "SignedHeaders" => signed_headers = Some(v),
                "Signature" => signature = Some(v),
                _ => {}
            }
        }
        let amz_date = headers.get(super::X_AMZ_DATE).and_then(super::ascii);
        return build(credential, signed_headers, signature, amz_date, None).map(Some);
    }
    if let Some(credential) = query.get("X-Amz-Credential") {
        let expires = query
            .get("X-Amz-Expires")
            .map(|e| e.parse::<u64>().map_err(|_| incomplete()))
            .transpose()?
            .unwrap_or(900);
        let get = |k: &str| query.get(k).map(String::as_str);
        return build(
            Some(credential.as_str()),
            get("X-Amz-SignedHeaders"),
            get("X-Amz-Signature"),
            get("X-Amz-Date"),
            Some(expires),
        )
        .map(Some);
    }
    Ok(None)
}

fn build<'a>(
    credential: Option<&'a str>,
    signed_headers: Option<&'a str>,
    signature: Option<&'a str>,
    amz_date: Option<&'a str>,
    presigned_expires: Option<u64>,
) -> Result<Signature<'a>, AwsError> {
    let credential = credential.ok_or_else(incomplete)?;
    // `<key>/<date>/<region>/<service>/aws4_request`: five parts, no more.
    let ([access_key, date, region, service, "aws4_request"], 5) =
        text::first_parts::<5>(credential, b'/')
    else {
        return Err(AwsError::client(
            "IncompleteSignature",
            format!("Credential should be scoped to a valid region, not '{credential}'. "),
        ));
    };
    Ok(Signature {
        access_key,
        date,
        region,
        service,
        signed_headers: signed_headers.unwrap_or_default(),
        signature: signature.unwrap_or_default(),
        amz_date,
        presigned_expires,
    })
}

fn incomplete() -> AwsError {
    AwsError::client(
        "IncompleteSignature",
        "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.",
    )
}

pub fn missing_token() -> AwsError {
    AwsError::new(
        "MissingAuthenticationToken",
        403,
        "Request is missing Authentication Token",
    )
}

pub fn invalid_token() -> AwsError {
    AwsError::new(
        "InvalidClientTokenId",
        403,
        "The security token included in the request is invalid.",
    )
}

fn mismatch() -> AwsError {
    AwsError::new(
        "SignatureDoesNotMatch",
        403,
        "The request signature we calculated does not match the signature you provided. \
         Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
    )
}

/// AWS's refusal of a signature whose credential scope names another service than the one
/// called (`expected` is the one it should name), before the signature itself is checked.
pub fn wrong_service(expected: &str) -> AwsError {
    AwsError::new(
        "SignatureDoesNotMatch",
        403,
        format!("Credential should be scoped to correct service: '{expected}'. "),
    )
}

/// Whether `key` can be an access key id at all: 1 to 128 letters and digits. Any such key is
/// known to switchyard (its secret defaults to `test`); anything else is an invalid token.
pub fn valid_access_key(key: &str) -> bool {
    (1..=128).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Checks `sig` against the request as received, with `secret` as the key's secret.
pub fn verify(
    sig: &Signature,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
    secret: &str,
    now: SystemTime,
) -> Result<(), AwsError> {
    let amz_date = sig.amz_date.ok_or_else(incomplete)?;
    let signed_at = parse_amz_date(amz_date).ok_or_else(incomplete)?;
    let expired = || {
        AwsError::client(
            "RequestExpired",
            format!("Request has expired. Signed at {amz_date}."),
        )
    };
    match sig.presigned_expires {
        None => {
            let skew = now
                .duration_since(signed_at)
                .or_else(|e| Ok::<_, ()>(e.duration()))
                .unwrap_or_default();
            if skew > MAX_SKEW {
                return Err(expired());
            }
        }
        Some(expires) => {
            if now > signed_at + Duration::from_secs(expires) || signed_at > now + MAX_SKEW {
                return Err(expired());
            }
        }
    }

    let mut settings = SigningSettings::default();
    settings.excluded_headers = Some(Vec::new());
    let mut target = uri.path().to_string();
    if let Some(expires) = sig.presigned_expires {
        settings.signature_location = SignatureLocation::QueryParams;
        settings.expires_in = Some(Duration::from_secs(expires));
        // The signer adds the X-Amz-* parameters itself; hand it the rest of the query.
        let rest: Vec<_> = form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
            .filter(|(k, _)| !k.starts_with("X-Amz-"))
            .collect();
        if !rest.is_empty() {
            target.push('?');
            target.push_str(
                &form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(rest)
                    .finish(),
            );
        }
    } else if let Some(q) = uri.query() {
        target.push('?');
        target.push_str(q);
    }

    let mut signed = Vec::new();
    for name in sig.signed_headers() {
        for value in headers.get_all(name) {
            signed.push((name, value.to_str().map_err(|_| mismatch())?));
        }
    }
    let body = match headers
        .get("x-amz-content-sha256")
        .and_then(|v| v.to_str().ok())
    {
        Some(hash) => SignableBody::Precomputed(hash.to_string()),
        None => SignableBody::Bytes(body),
    };
    let request = SignableRequest::new(method.as_str(), target, signed.into_iter(), body)
        .map_err(|_| mismatch())?;
    let identity = Credentials::new(sig.access_key, secret, None, None, "switchyard").into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(sig.region)
        .name(sig.service)
        .time(signed_at)
        .settings(settings)
        .build()
        .map_err(|_| mismatch())?
        .into();
    let (_, expected) = sign(request, &params).map_err(|_| mismatch())?.into_parts();
    if expected == sig.signature {
        Ok(())
    } else {
        Err(mismatch())
    }
}

/// `20261130T083500Z` → the instant.
fn parse_amz_date(s: &str) -> Option<SystemTime> {
    let b = s.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let iso = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &s[0..4],
        &s[4..6],
        &s[6..8],
        &s[9..11],
        &s[11..13],
        &s[13..15]
    );
    let ms = crate::engine::time::parse_rfc3339(&iso)?;
    Some(UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_credential_scope_from_the_header() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "authorization",
            "AWS4-HMAC-SHA256 Credential=111122223333/20261130/eu-west-1/sqs/aws4_request, \
             SignedHeaders=host;x-amz-date, Signature=abc"
                .parse()
                .unwrap(),
        );
        let no_query = BTreeMap::new();
        let sig = read(&headers, &no_query).unwrap().unwrap();
        assert_eq!(
            (sig.access_key, sig.region, sig.service),
            ("111122223333", "eu-west-1", "sqs")
        );
        assert_eq!(
            sig.signed_headers().collect::<Vec<_>>(),
            ["host", "x-amz-date"]
        );
        assert_eq!(sig.presigned_expires, None);
    }

    #[test]
    fn reads_presigned_queries_and_rejects_broken_scopes() {
        let mut q = BTreeMap::new();
        q.insert(
            "X-Amz-Credential".to_string(),
            "AKIDEXAMPLE/20261130/us-west-2/sns/aws4_request".to_string(),
        );
        q.insert("X-Amz-Expires".to_string(), "60".to_string());
        let no_headers = HeaderMap::new();
        let sig = read(&no_headers, &q).unwrap().unwrap();
        assert_eq!((sig.region, sig.presigned_expires), ("us-west-2", Some(60)));
        q.insert("X-Amz-Credential".to_string(), "AKID/20261130".to_string());
        assert_eq!(
            read(&HeaderMap::new(), &q).unwrap_err().code,
            "IncompleteSignature"
        );
        assert_eq!(read(&HeaderMap::new(), &BTreeMap::new()), Ok(None));
    }

    #[test]
    fn parses_amz_dates() {
        let t = parse_amz_date("19700101T000130Z").unwrap();
        assert_eq!(t, UNIX_EPOCH + Duration::from_secs(90));
        assert_eq!(parse_amz_date("1970-01-01"), None);
    }
}
