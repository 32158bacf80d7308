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

/// The longest a presigned request may be valid, in seconds (AWS: seven days).
pub const MAX_EXPIRES: u64 = 604_800;

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
            .map(|e| presigned_expiry(e))
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

/// `X-Amz-Expires`: whole seconds, at most [`MAX_EXPIRES`], as AWS reads it.
fn presigned_expiry(text: &str) -> Result<u64, AwsError> {
    let seconds = text.parse::<u64>().map_err(|_| incomplete())?;
    if seconds > MAX_EXPIRES {
        return Err(AwsError::client(
            "AuthorizationQueryParametersError",
            format!("X-Amz-Expires must be less than a week (in seconds) that is {MAX_EXPIRES}"),
        ));
    }
    Ok(seconds)
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
            // Checked: a signing time near the end of representable time plus its validity
            // would overflow; such a request has not expired, and is refused as from the future.
            let ends = signed_at.checked_add(Duration::from_secs(expires));
            let future = now
                .checked_add(MAX_SKEW)
                .is_some_and(|limit| signed_at > limit);
            if ends.is_some_and(|ends| now > ends) || future {
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
    // SigV4 always signs the host; a request that doesn't (hand-made, or HTTP/1.0 without a
    // Host header) is refused before the signer, which would take the host from the URI.
    if !signed
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        return Err(AwsError::client(
            "IncompleteSignature",
            "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
        ));
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

/// `20261130T083500Z` → the instant: eight digits, `T`, six digits, `Z`, read byte by byte
/// (a text of sixteen bytes may hold characters of several, which no slice may cut through).
fn parse_amz_date(s: &str) -> Option<SystemTime> {
    let b: &[u8; 16] = s.as_bytes().try_into().ok()?;
    let digits = |range: std::ops::Range<usize>| {
        b.get(range)?.iter().try_fold(0u32, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    if b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let iso = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        digits(0..4)?,
        digits(4..6)?,
        digits(6..8)?,
        digits(9..11)?,
        digits(11..13)?,
        digits(13..15)?
    );
    let ms = crate::engine::time::parse_rfc3339(&iso)?;
    UNIX_EPOCH.checked_add(Duration::from_millis(u64::try_from(ms).ok()?))
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
        // Sixteen bytes with `T` and `Z` in place, but a character of two bytes where a slice
        // of the date would cut it.
        assert_eq!(parse_amz_date("202\u{e9}130T083500Z"), None);
        assert_eq!(parse_amz_date("2026+130T083500Z"), None);
        assert_eq!(parse_amz_date("20261399T083500Z"), None);
    }

    /// A presigned request as a hand-written URL may carry it: every field from `pairs`.
    fn presigned(pairs: &[(&str, &str)]) -> Result<(), AwsError> {
        let query: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let headers = HeaderMap::new();
        let sig = read(&headers, &query)?.expect("signed");
        let uri: Uri = "/?Action=ListQueues".parse().unwrap();
        let now = UNIX_EPOCH + Duration::from_secs(1_796_027_700); // 20261130T083500Z
        verify(&sig, &Method::GET, &uri, &headers, b"", "test", now)
    }

    const CREDENTIAL: (&str, &str) = (
        "X-Amz-Credential",
        "AKID/20261130/us-east-1/sqs/aws4_request",
    );

    #[test]
    fn hand_made_presigned_requests_are_refused_not_panicked_on() {
        let huge = presigned(&[
            CREDENTIAL,
            ("X-Amz-Expires", "18446744073709551615"),
            ("X-Amz-Date", "20261130T083500Z"),
        ]);
        assert_eq!(huge.unwrap_err().code, "AuthorizationQueryParametersError");
        let week_and_a_second = presigned(&[
            CREDENTIAL,
            ("X-Amz-Expires", "604801"),
            ("X-Amz-Date", "20261130T083500Z"),
        ]);
        assert_eq!(week_and_a_second.unwrap_err().status, 400);
        // Up to a week is read; near the end of time the addition is checked.
        let late = presigned(&[
            CREDENTIAL,
            ("X-Amz-Expires", "604800"),
            ("X-Amz-Date", "99991231T235959Z"),
        ]);
        assert_eq!(late.unwrap_err().code, "RequestExpired");
        let cut = presigned(&[CREDENTIAL, ("X-Amz-Date", "202\u{e9}130T083500Z")]);
        assert_eq!(cut.unwrap_err().code, "IncompleteSignature");
        let no_headers = presigned(&[
            CREDENTIAL,
            ("X-Amz-Date", "20261130T083500Z"),
            ("X-Amz-SignedHeaders", ";;;"),
        ]);
        assert_eq!(no_headers.unwrap_err().code, "IncompleteSignature");
        // The host named but not sent.
        let no_host = presigned(&[
            CREDENTIAL,
            ("X-Amz-Date", "20261130T083500Z"),
            ("X-Amz-SignedHeaders", "host"),
        ]);
        assert_eq!(no_host.unwrap_err().code, "IncompleteSignature");
    }
}
