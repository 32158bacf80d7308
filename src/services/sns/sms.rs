//! SMS account settings: the SMS attributes, the opt-out list, the SMS sandbox (destination
//! numbers verified with a one-time password sent to the outbox) and origination numbers.
//! Depends on the engine, the store, the shared pager and the SNS error type only (and the empty
//! output of `platform.rs`); never on the wire or the topic operations.

use super::errors::{SnsError, attributes_null, invalid};
use super::paging::{TOKENS, page};
use super::platform::Empty;
use super::store::{SandboxNumber, SmsAccount, SmsStore};
use crate::arn::Arn;
use crate::engine::delivery::{Delivery, NoRetries, Target};
use crate::services::Context;
use crate::services::page::{Pager, Sizes, size_rule};
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

type Attributes = BTreeMap<String, String>;

/// At most this many numbers in the SMS sandbox of an account (AWS's documented quota).
const SANDBOX_LIMIT: usize = 10;

const LANGUAGE_CODES: [&str; 13] = [
    "en-US", "en-GB", "es-419", "es-ES", "de-DE", "fr-CA", "fr-FR", "it-IT", "ja-JP", "pt-BR",
    "kr-KR", "zh-CN", "zh-TW",
];

// The store's SMS settings (`store.rs`) as the SMS operations reach them.
impl SmsStore {
    fn of(&mut self, cx: &Context) -> &mut SmsAccount {
        self.accounts
            .entry((cx.account.clone(), cx.region.clone()))
            .or_default()
    }
}

// ---- inputs and outputs (the model's JSON form; the SMS operations use lower camel case) ----

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GetSmsAttributesInput {
    #[serde(default)]
    pub attributes: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SetSmsAttributesInput {
    #[serde(default)]
    pub attributes: Attributes,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SmsAttributesOutput {
    pub attributes: Attributes,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PhoneNumberInput {
    pub phone_number: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct OptedOutOutput {
    pub is_opted_out: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ListOptedOutInput {
    pub next_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ListOptedOutOutput {
    pub phone_numbers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SandboxStatusOutput {
    pub is_in_sandbox: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreateSandboxNumberInput {
    pub phone_number: String,
    pub language_code: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SandboxNumberInput {
    pub phone_number: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct VerifySandboxNumberInput {
    pub phone_number: String,
    pub one_time_password: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PagedInput {
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SandboxNumberEntry {
    pub phone_number: String,
    pub status: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListSandboxNumbersOutput {
    pub phone_numbers: Vec<SandboxNumberEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListOriginationNumbersOutput {
    pub phone_numbers: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

/// The one-line answer of AWS's request validation for a model constraint.
fn constraint(value: &str, member: &str, rule: &str) -> SnsError {
    SnsError::ValidationError(format!(
        "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: {rule}"
    ))
}

/// An E.164 number as the opt-out operations take it: `+` and up to 15 digits.
fn check_e164(phone: &str) -> Result<(), SnsError> {
    let digits = phone.strip_prefix('+').unwrap_or(phone);
    if (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(invalid("PhoneNumber Reason: input incorrectly formatted"))
    }
}

/// The model's `PhoneNumberString`: `^(\+[0-9]{8,}|[0-9]{0,9})$`, at most 20 characters.
fn check_sandbox_number(phone: &str) -> Result<(), SnsError> {
    const PATTERN: &str = r"^(\+[0-9]{8,}|[0-9]{0,9})$";
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let ok = match phone.strip_prefix('+') {
        Some(rest) => rest.len() >= 8 && all_digits(rest),
        None => phone.len() <= 9 && all_digits(phone),
    };
    if phone.len() > 20 {
        return Err(constraint(
            phone,
            "phoneNumber",
            "Member must have length less than or equal to 20",
        ));
    }
    if !ok {
        return Err(constraint(
            phone,
            "phoneNumber",
            &format!("Member must satisfy regular expression pattern: {PATTERN}"),
        ));
    }
    Ok(())
}

/// Checks one SMS attribute; every message names the attribute and why.
fn check_sms_attribute(name: &str, value: &str) -> Result<(), SnsError> {
    let bad = |why: &str| invalid(format!("{name} Reason: {why}"));
    match name {
        "MonthlySpendLimit" => {
            if value.parse::<u64>().is_err() {
                return Err(bad("must be a whole number of USD"));
            }
        }
        "DeliveryStatusIAMRole" => {
            let role = Arn::parse(value).is_some_and(|a| {
                a.service == "iam"
                    && a.region.is_empty()
                    && a.account.len() == 12
                    && a.account.bytes().all(|b| b.is_ascii_digit())
                    && a.resource.starts_with("role/")
                    && !a.resource.contains(':')
            });
            if !value.is_empty() && !role {
                return Err(bad("must be the ARN of an IAM role"));
            }
        }
        "DeliveryStatusSuccessSamplingRate" => {
            if !value.parse::<u8>().is_ok_and(|r| r <= 100) {
                return Err(bad("must be an integer from 0 to 100"));
            }
        }
        "DefaultSenderID" => {
            let ok = value.is_empty()
                || ((1..=11).contains(&value.len())
                    && value.bytes().all(|b| b.is_ascii_alphanumeric())
                    && value.bytes().any(|b| b.is_ascii_alphabetic()));
            if !ok {
                return Err(bad(
                    "must be 1 to 11 alphanumeric characters with at least one letter and no spaces",
                ));
            }
        }
        "DefaultSMSType" => {
            if !matches!(value, "Promotional" | "Transactional") {
                return Err(bad("must be Promotional or Transactional"));
            }
        }
        "UsageReportS3Bucket" => {
            let ok = value.is_empty()
                || ((3..=63).contains(&value.len())
                    && value.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-'
                    })
                    && value
                        .as_bytes()
                        .first()
                        .is_some_and(u8::is_ascii_alphanumeric)
                    && value
                        .as_bytes()
                        .last()
                        .is_some_and(u8::is_ascii_alphanumeric));
            if !ok {
                return Err(bad("must be a valid S3 bucket name"));
            }
        }
        // AWS's wording has no "Invalid parameter:" prefix here.
        _ => {
            return Err(SnsError::InvalidParameter(format!(
                "{name} is not a valid attribute"
            )));
        }
    }
    Ok(())
}

/// What a new account reads: the default spend limit of accounts in the sandbox, 1 USD.
fn with_defaults(attributes: &Attributes) -> Attributes {
    let mut out = attributes.clone();
    out.entry("MonthlySpendLimit".into()).or_insert("1".into());
    out
}

pub(super) fn get_sms_attributes(
    e: &mut State,
    cx: &Context,
    input: GetSmsAttributesInput,
) -> Result<SmsAttributesOutput, SnsError> {
    let all = with_defaults(&e.sns.sms.of(cx).attributes);
    let attributes = if input.attributes.is_empty() {
        all
    } else {
        all.into_iter()
            .filter(|(k, _)| input.attributes.contains(k))
            .collect()
    };
    Ok(SmsAttributesOutput { attributes })
}

pub(super) fn set_sms_attributes(
    e: &mut State,
    cx: &Context,
    input: SetSmsAttributesInput,
) -> Result<Empty, SnsError> {
    if input.attributes.is_empty() {
        return Err(attributes_null());
    }
    for (k, v) in &input.attributes {
        check_sms_attribute(k, v)?;
    }
    let account = e.sns.sms.of(cx);
    for (k, v) in input.attributes {
        if v.is_empty() {
            account.attributes.remove(&k);
        } else {
            account.attributes.insert(k, v);
        }
    }
    Ok(Empty {})
}

pub(super) fn check_if_phone_number_is_opted_out(
    e: &mut State,
    cx: &Context,
    input: PhoneNumberInput,
) -> Result<OptedOutOutput, SnsError> {
    check_e164(&input.phone_number)?;
    Ok(OptedOutOutput {
        is_opted_out: e.sns.sms.of(cx).opted_out.contains(&input.phone_number),
    })
}

pub(super) fn list_phone_numbers_opted_out(
    e: &mut State,
    cx: &Context,
    input: ListOptedOutInput,
) -> Result<ListOptedOutOutput, SnsError> {
    let account = e.sns.sms.of(cx);
    let (phone_numbers, next_token) = page(
        account.opted_out.iter().map(|p| (p, p.clone())),
        input.next_token.as_deref(),
    )?;
    Ok(ListOptedOutOutput {
        phone_numbers,
        next_token,
    })
}

pub(super) fn opt_in_phone_number(
    e: &mut State,
    cx: &Context,
    input: PhoneNumberInput,
) -> Result<Empty, SnsError> {
    check_e164(&input.phone_number)?;
    e.sns.sms.of(cx).opted_out.remove(&input.phone_number);
    Ok(Empty {})
}

/// The text of the verification SMS.
fn otp_message(otp: &str) -> String {
    format!("Your Amazon SNS verification code is: {otp}")
}

pub(super) fn create_sms_sandbox_phone_number(
    e: &mut State,
    cx: &Context,
    input: CreateSandboxNumberInput,
) -> Result<Empty, SnsError> {
    let phone = input.phone_number;
    check_sandbox_number(&phone)?;
    let language = input.language_code.unwrap_or_else(|| "en-US".into());
    if !LANGUAGE_CODES.contains(&language.as_str()) {
        return Err(constraint(
            &language,
            "languageCode",
            &format!(
                "Member must satisfy enum value set: [{}]",
                LANGUAGE_CODES.join(", ")
            ),
        ));
    }
    let account = e.sns.sms.of(cx);
    if account.opted_out.contains(&phone) {
        return Err(SnsError::OptedOut(format!(
            "Phone number {phone} is opted out"
        )));
    }
    match account.sandbox.get(&phone) {
        Some(n) if n.verified => {
            return Err(SnsError::UserError(format!(
                "Phone number {phone} is already verified"
            )));
        }
        Some(_) => {}
        None if account.sandbox.len() >= SANDBOX_LIMIT => {
            return Err(SnsError::UserError(format!(
                "You can have at most {SANDBOX_LIMIT} phone numbers in the SMS sandbox"
            )));
        }
        None => {}
    }
    // A new code each time: asking again re-sends, and only the latest code verifies.
    let otp = format!("{:06}", e.engine.rng.next_u64() % 1_000_000);
    e.sns.sms.of(cx).sandbox.insert(
        phone.clone(),
        SandboxNumber {
            verified: false,
            one_time_password: otp.clone(),
        },
    );
    let mut attributes = BTreeMap::new();
    attributes.insert("LanguageCode".to_string(), json!(language));
    let id = e.engine.rng.uuid();
    e.deliver(Delivery::new(
        "sns",
        Arn::new("sns", &cx.region, &cx.account, "sms-sandbox").text(),
        "sms".into(),
        id,
        Target::Outbox {
            address: phone,
            body: otp_message(&otp),
            attributes,
        },
        NoRetries,
        None,
    ));
    Ok(Empty {})
}

fn sandbox_not_found(phone: &str) -> SnsError {
    SnsError::ResourceNotFound(format!(
        "Phone number {phone} does not exist in the SMS sandbox"
    ))
}

pub(super) fn delete_sms_sandbox_phone_number(
    e: &mut State,
    cx: &Context,
    input: SandboxNumberInput,
) -> Result<Empty, SnsError> {
    check_sandbox_number(&input.phone_number)?;
    e.sns
        .sms
        .of(cx)
        .sandbox
        .remove(&input.phone_number)
        .ok_or_else(|| sandbox_not_found(&input.phone_number))?;
    Ok(Empty {})
}

pub(super) fn verify_sms_sandbox_phone_number(
    e: &mut State,
    cx: &Context,
    input: VerifySandboxNumberInput,
) -> Result<Empty, SnsError> {
    check_sandbox_number(&input.phone_number)?;
    let otp = &input.one_time_password;
    if !(5..=8).contains(&otp.len()) || !otp.bytes().all(|b| b.is_ascii_digit()) {
        return Err(constraint(
            otp,
            "oneTimePassword",
            "Member must satisfy regular expression pattern: ^[0-9]+$ and have length between 5 and 8",
        ));
    }
    let number = e
        .sns
        .sms
        .of(cx)
        .sandbox
        .get_mut(&input.phone_number)
        .ok_or_else(|| sandbox_not_found(&input.phone_number))?;
    if number.verified {
        return Ok(Empty {});
    }
    if number.one_time_password != *otp {
        return Err(SnsError::Verification(
            "Invalid one-time password".to_string(),
        ));
    }
    number.verified = true;
    Ok(Empty {})
}

/// ListSMSSandboxPhoneNumbers pages: `MaxResults` 1 to 100 (100 when absent), SNS's tokens.
const SANDBOX: Pager<SnsError> = Pager {
    sizes: Sizes::UpTo {
        max: 100,
        refuse: bad_max_results,
    },
    tokens: TOKENS,
};

/// ListOriginationNumbers pages: `MaxResults` 1 to 30 (it hands out no token).
const ORIGINATION: Pager<SnsError> = Pager {
    sizes: Sizes::UpTo {
        max: 30,
        refuse: bad_max_results,
    },
    tokens: TOKENS,
};

fn bad_max_results(n: i64, max: usize) -> SnsError {
    constraint(&n.to_string(), "maxResults", &size_rule(n, max))
}

/// One page of at most `size` items after the key named by `token` (base64 of the last key).
fn page_of<T>(
    items: impl Iterator<Item = (String, T)>,
    token: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), SnsError> {
    SANDBOX.page_of_size(items, token, size)
}

pub(super) fn list_sms_sandbox_phone_numbers(
    e: &mut State,
    cx: &Context,
    input: PagedInput,
) -> Result<ListSandboxNumbersOutput, SnsError> {
    let size = SANDBOX.size(input.max_results)?;
    let numbers = e.sns.sms.of(cx).sandbox.iter().map(|(phone, n)| {
        (
            phone.clone(),
            SandboxNumberEntry {
                phone_number: phone.clone(),
                status: if n.verified { "Verified" } else { "Pending" },
            },
        )
    });
    let (phone_numbers, next_token) = page_of(numbers, input.next_token.as_deref(), size)?;
    Ok(ListSandboxNumbersOutput {
        phone_numbers,
        next_token,
    })
}

/// An emulated account owns no origination numbers (toll-free numbers, 10DLC, short codes).
pub(super) fn list_origination_numbers(
    input: PagedInput,
) -> Result<ListOriginationNumbersOutput, SnsError> {
    ORIGINATION.size(input.max_results)?;
    if input.next_token.is_some() {
        // No page of ours ever handed out a token.
        return Err(invalid("NextToken"));
    }
    Ok(ListOriginationNumbersOutput {
        phone_numbers: Vec::new(),
        next_token: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sms_attribute_values() {
        let cases = [
            ("DefaultSMSType", "Transactional", true),
            ("DefaultSMSType", "transactional", false),
            ("MonthlySpendLimit", "100", true),
            ("MonthlySpendLimit", "-1", false),
            ("MonthlySpendLimit", "ten", false),
            ("DeliveryStatusSuccessSamplingRate", "100", true),
            ("DeliveryStatusSuccessSamplingRate", "101", false),
            ("DefaultSenderID", "MyCompany", true),
            ("DefaultSenderID", "123", false),
            ("DefaultSenderID", "TooLongSender", false),
            ("DefaultSenderID", "My Company", false),
            (
                "DeliveryStatusIAMRole",
                "arn:aws:iam::123456789012:role/SNSLogs",
                true,
            ),
            ("DeliveryStatusIAMRole", "role", false),
            ("DeliveryStatusIAMRole", "", true),
            (
                "DeliveryStatusIAMRole",
                "arn:aws-cn:iam::123456789012:role/SNSLogs",
                true,
            ),
            (
                "DeliveryStatusIAMRole",
                "arn:aws:iam::123456789012:role/SNS:Logs",
                false,
            ),
            (
                "DeliveryStatusIAMRole",
                "arn:aws:iam:us-east-1:123456789012:role/SNSLogs",
                false,
            ),
            (
                "DeliveryStatusIAMRole",
                "arn:aws:iam::1234:role/SNSLogs",
                false,
            ),
            (
                "DeliveryStatusIAMRole",
                "arn:aws:iam::123456789012:user/SNSLogs",
                false,
            ),
            ("UsageReportS3Bucket", "my-reports.bucket", true),
            ("UsageReportS3Bucket", "My_Bucket", false),
            ("Unknown", "x", false),
        ];
        for (name, value, ok) in cases {
            assert_eq!(
                check_sms_attribute(name, value).is_ok(),
                ok,
                "{name}={value}"
            );
        }
    }

    #[test]
    fn sandbox_number_pattern() {
        for good in ["+12065550100", "+123456789012345678", "12345"] {
            assert!(check_sandbox_number(good).is_ok(), "{good}");
        }
        for bad in [
            "+1234567",
            "2065550100",
            "+1206555x100",
            "+1234567890123456789012",
        ] {
            assert!(check_sandbox_number(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn opted_out_numbers_list_in_pages_of_100() {
        use crate::services::sns::platform::tests::{cx, engine};
        let mut e = engine();
        for i in 0..150 {
            e.sns
                .sms
                .opt_out("000000000000", "us-east-1", &format!("+1206555{i:04}"));
        }
        let first =
            list_phone_numbers_opted_out(&mut e, &cx(), ListOptedOutInput { next_token: None })
                .unwrap();
        assert_eq!(first.phone_numbers.len(), 100);
        let second = list_phone_numbers_opted_out(
            &mut e,
            &cx(),
            ListOptedOutInput {
                next_token: first.next_token,
            },
        )
        .unwrap();
        assert_eq!(second.phone_numbers.len(), 50);
        assert_eq!(second.next_token, None);
        assert_eq!(second.phone_numbers[49], "+12065550149");
        let phone = || PhoneNumberInput {
            phone_number: "+12065550007".into(),
        };
        assert!(
            check_if_phone_number_is_opted_out(&mut e, &cx(), phone())
                .unwrap()
                .is_opted_out
        );
        // An opted-out number cannot join the sandbox.
        let r = create_sms_sandbox_phone_number(
            &mut e,
            &cx(),
            CreateSandboxNumberInput {
                phone_number: "+12065550007".into(),
                language_code: None,
            },
        );
        assert!(matches!(r, Err(SnsError::OptedOut(_))));
        opt_in_phone_number(&mut e, &cx(), phone()).unwrap();
        assert!(
            !check_if_phone_number_is_opted_out(&mut e, &cx(), phone())
                .unwrap()
                .is_opted_out
        );
    }

    #[test]
    fn pages_of_any_size() {
        let items = || (1..=5).map(|i| (format!("k{i}"), i));
        let (first, token) = page_of(items(), None, 2).unwrap();
        assert_eq!(first, [1, 2]);
        let (second, token) = page_of(items(), token.as_deref(), 2).unwrap();
        assert_eq!(second, [3, 4]);
        let (third, token) = page_of(items(), token.as_deref(), 2).unwrap();
        assert_eq!((third, token), (vec![5], None));
        assert!(page_of(items(), Some("%%%"), 2).is_err());
    }
}
