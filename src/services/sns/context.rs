//! What SNS operations read off the caller's request: topic ARNs checked against its region, and
//! the URLs clients reached this emulator at (SubscribeURL, UnsubscribeURL, SigningCertURL).
//! Depends on the error type and the signer only; no operation here.

use super::errors::{SnsError, invalid};
use crate::arn::Arn;
use crate::services::Context;
use crate::signature::SIGNER;

/// `arn:<partition>:sns:<region>:<account>:<name>` → (region, account, name), checked against
/// the caller: its region, an account and a name without `:`.
pub(crate) fn parse_topic_arn<'a>(
    cx: &Context,
    arn: &'a str,
    param: &str,
) -> Result<(&'a str, &'a str, &'a str), SnsError> {
    // The message counts the `:`-separated elements, which Arn::parse does not.
    let elements = Arn::element_count(arn);
    if elements < 6 {
        return Err(invalid(format!(
            "{param} Reason: An ARN must have at least 6 elements, not {elements}"
        )));
    }
    match Arn::parse(arn) {
        Some(a)
            if a.service == "sns"
                && a.region == cx.region
                && !a.account.is_empty()
                && !a.resource.is_empty()
                && !a.resource.contains(':') =>
        {
            Ok((a.region, a.account, a.resource))
        }
        _ => Err(invalid(param)),
    }
}

/// The base URL clients reached this emulator at, for SubscribeURL, UnsubscribeURL and the
/// signing certificate.
pub(crate) fn base_url(cx: &Context) -> String {
    format!("http://{}", cx.host)
}

pub(crate) fn signing_cert_url(cx: &Context) -> String {
    format!("{}/{}", base_url(cx), SIGNER.certificate_name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_arns_are_six_elements_in_the_callers_region() {
        let cx = Context {
            request_id: String::new(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            access_key: None,
            host: "localhost:4566".into(),
            trace_header: None,
            queue_url_style: Default::default(),
        };
        let parse = |arn| parse_topic_arn(&cx, arn, "TopicArn");
        assert_eq!(
            parse("arn:aws:sns:us-east-1:111111111111:orders"),
            Ok(("us-east-1", "111111111111", "orders"))
        );
        assert_eq!(
            parse("arn:aws:sns:us-east-1:0"),
            Err(invalid(
                "TopicArn Reason: An ARN must have at least 6 elements, not 5"
            ))
        );
        for bad in [
            "arn:aws:sns:eu-west-1:000000000000:orders",
            "arn:aws:sqs:us-east-1:000000000000:orders",
            "arn:aws:sns:us-east-1::orders",
            "arn:aws:sns:us-east-1:000000000000:",
            "arn:aws:sns:us-east-1:000000000000:orders:1b2c",
            "urn:aws:sns:us-east-1:000000000000:orders",
        ] {
            assert_eq!(parse(bad), Err(invalid("TopicArn")), "{bad}");
        }
    }
}
