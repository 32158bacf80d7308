//! SNS mobile push and SMS (issue 4): platform applications and endpoints, SMS attributes, the
//! opt-out list, the SMS sandbox with its one-time password in the outbox, origination numbers;
//! through aws-sdk-sns, plus raw AWS Query requests for the XML shapes.

use crate::harness::{Harness, xml_text, xml_texts};
use aws_sdk_sns::Client;
use aws_sdk_sns::error::ProvideErrorMetadata;
use aws_sdk_sns::types::{LanguageCodeString, SmsSandboxPhoneNumberVerificationStatus};
use std::collections::HashMap;

const APPS: &str = "arn:aws:sns:us-east-1:000000000000:app";
const ENDPOINTS: &str = "arn:aws:sns:us-east-1:000000000000:endpoint";

/// (code, message) of a failed SDK call.
fn failure<T: std::fmt::Debug, E: ProvideErrorMetadata + std::fmt::Debug>(
    r: Result<T, E>,
) -> (String, String) {
    let e = r.expect_err("the call fails");
    (
        e.code().unwrap_or_default().to_string(),
        e.message().unwrap_or_default().to_string(),
    )
}

fn pair(code: &str, message: &str) -> (String, String) {
    (code.to_string(), message.to_string())
}

async fn gcm_app(sns: &Client, name: &str) -> String {
    sns.create_platform_application()
        .name(name)
        .platform("GCM")
        .attributes("PlatformCredential", "server-key")
        .send()
        .await
        .unwrap()
        .platform_application_arn
        .unwrap()
}

async fn app_attributes(sns: &Client, arn: &str) -> HashMap<String, String> {
    sns.get_platform_application_attributes()
        .platform_application_arn(arn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default()
}

async fn endpoint_attributes(sns: &Client, arn: &str) -> HashMap<String, String> {
    sns.get_endpoint_attributes()
        .endpoint_arn(arn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap_or_default()
}

fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn platform_application_lifecycle_keeps_credentials_secret() {
    let h = Harness::start().await;
    let sns = h.sns();
    let arn = gcm_app(&sns, "my-app.v1").await;
    assert_eq!(arn, format!("{APPS}/GCM/my-app.v1"));
    assert_eq!(
        app_attributes(&sns, &arn).await,
        map(&[("Enabled", "true"), ("AuthenticationMethod", "Key")])
    );

    let topic = "arn:aws:sns:us-east-1:000000000000:push-events";
    sns.set_platform_application_attributes()
        .platform_application_arn(&arn)
        .attributes("EventEndpointCreated", topic)
        .attributes("SuccessFeedbackSampleRate", "50")
        .attributes("PlatformCredential", r#"{"type":"service_account"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(
        app_attributes(&sns, &arn).await,
        map(&[
            ("Enabled", "true"),
            ("AuthenticationMethod", "Token"),
            ("EventEndpointCreated", topic),
            ("SuccessFeedbackSampleRate", "50"),
        ])
    );
    // An empty value removes an attribute.
    sns.set_platform_application_attributes()
        .platform_application_arn(&arn)
        .attributes("SuccessFeedbackSampleRate", "")
        .send()
        .await
        .unwrap();
    assert!(
        !app_attributes(&sns, &arn)
            .await
            .contains_key("SuccessFeedbackSampleRate")
    );

    let apns = sns
        .create_platform_application()
        .name("ios")
        .platform("APNS_SANDBOX")
        .attributes("PlatformPrincipal", "-----BEGIN CERTIFICATE-----")
        .attributes("PlatformCredential", "-----BEGIN PRIVATE KEY-----")
        .send()
        .await
        .unwrap()
        .platform_application_arn
        .unwrap();
    assert_eq!(apns, format!("{APPS}/APNS_SANDBOX/ios"));
    assert_eq!(
        app_attributes(&sns, &apns).await["AuthenticationMethod"],
        "Certificate"
    );

    let listed = sns.list_platform_applications().send().await.unwrap();
    assert_eq!(listed.next_token, None);
    let listed: Vec<_> = listed
        .platform_applications
        .unwrap_or_default()
        .into_iter()
        .map(|a| (a.platform_application_arn.unwrap(), a.attributes.unwrap()))
        .collect();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].0, apns);
    assert_eq!(listed[1].0, arn);
    assert!(!listed[1].1.contains_key("PlatformCredential"));
    // Other regions see none of them.
    let west = h.sns_as("test", "us-west-2");
    let none = west.list_platform_applications().send().await.unwrap();
    assert!(none.platform_applications.unwrap_or_default().is_empty());

    sns.delete_platform_application()
        .platform_application_arn(&arn)
        .send()
        .await
        .unwrap();
    let r = sns
        .get_platform_application_attributes()
        .platform_application_arn(&arn)
        .send()
        .await;
    assert_eq!(
        failure(r),
        pair("NotFound", "PlatformApplication does not exist")
    );
    // Deleting is idempotent.
    sns.delete_platform_application()
        .platform_application_arn(&arn)
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn platform_application_validation() {
    let h = Harness::start().await;
    let sns = h.sns();
    let create = |name: &str, platform: &str, attrs: &[(&str, &str)]| {
        let mut req = sns
            .create_platform_application()
            .name(name)
            .platform(platform);
        for (k, v) in attrs {
            req = req.attributes(*k, *v);
        }
        req.send()
    };
    let key = [("PlatformCredential", "k")];
    assert_eq!(
        failure(create("my app", "GCM", &key).await),
        pair(
            "InvalidParameter",
            "Invalid parameter: my app Reason: must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', '_', '-', and '.'"
        )
    );
    assert_eq!(
        failure(create(&"a".repeat(257), "GCM", &key).await).1,
        format!(
            "Invalid parameter: {} Reason: must be at most 256 characters long",
            "a".repeat(257)
        )
    );
    assert_eq!(
        failure(create("app", "FCM", &key).await),
        pair(
            "InvalidParameter",
            "Invalid parameter: Platform Reason: FCM is not supported"
        )
    );
    assert_eq!(
        failure(create("app", "GCM", &[("PlatformPrincipal", "p")]).await),
        pair(
            "InvalidParameter",
            "Invalid parameter: Attributes Reason: Platform credentials are invalid"
        )
    );
    assert_eq!(
        failure(create("app", "APNS", &[("PlatformPrincipal", "cert")]).await).1,
        "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential"
    );
    assert_eq!(
        failure(create("app", "ADM", &[("PlatformCredential", "secret")]).await).1,
        "Invalid parameter: Attributes Reason: PlatformCredential attribute provided without PlatformPrincipal"
    );
    assert_eq!(
        failure(
            create(
                "app",
                "GCM",
                &[("PlatformCredential", "k"), ("Colour", "x")]
            )
            .await
        )
        .1,
        "Invalid parameter: Attributes Reason: Invalid attribute name: Colour"
    );
    assert_eq!(
        failure(
            create(
                "app",
                "GCM",
                &[
                    ("PlatformCredential", "k"),
                    ("SuccessFeedbackSampleRate", "101")
                ]
            )
            .await
        )
        .0,
        "InvalidParameter"
    );

    let arn = gcm_app(&sns, "app").await;
    let r = sns
        .set_platform_application_attributes()
        .platform_application_arn(&arn)
        .attributes("EventDeliveryFailure", "not-a-topic")
        .send()
        .await;
    assert_eq!(failure(r).0, "InvalidParameter");
    let r = sns
        .set_platform_application_attributes()
        .platform_application_arn(format!("{APPS}/GCM/nope"))
        .attributes("Enabled", "false")
        .send()
        .await;
    assert_eq!(
        failure(r),
        pair("NotFound", "PlatformApplication does not exist")
    );
    let r = sns
        .get_platform_application_attributes()
        .platform_application_arn("not-an-arn")
        .send()
        .await;
    assert_eq!(
        failure(r),
        pair(
            "InvalidParameter",
            "Invalid parameter: PlatformApplicationArn Reason: An ARN must have at least 6 elements, not 1"
        )
    );
    let r = sns
        .list_endpoints_by_platform_application()
        .platform_application_arn(format!("{APPS}/GCM/nope"))
        .send()
        .await;
    assert_eq!(
        failure(r),
        pair("NotFound", "PlatformApplication does not exist")
    );
}

#[tokio::test]
async fn endpoints_are_idempotent_per_token_and_attributes() {
    let h = Harness::start().await;
    let sns = h.sns();
    let app = gcm_app(&sns, "droid").await;
    let create = |token: &str, data: Option<&str>, attrs: &[(&str, &str)]| {
        let mut req = sns
            .create_platform_endpoint()
            .platform_application_arn(&app)
            .token(token)
            .set_custom_user_data(data.map(str::to_string));
        for (k, v) in attrs {
            req = req.attributes(*k, *v);
        }
        req.send()
    };
    let first = create("token-1", None, &[])
        .await
        .unwrap()
        .endpoint_arn
        .unwrap();
    assert!(
        first.starts_with(&format!("{ENDPOINTS}/GCM/droid/")),
        "{first}"
    );
    let id = first.rsplit('/').next().unwrap();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    assert_eq!(
        endpoint_attributes(&sns, &first).await,
        map(&[("Enabled", "true"), ("Token", "token-1")])
    );
    // The same token again, also spelling out the default, answers the same endpoint.
    for attrs in [&[][..], &[("Enabled", "true")][..]] {
        let again = create("token-1", None, attrs).await.unwrap();
        assert_eq!(again.endpoint_arn.as_deref(), Some(first.as_str()));
    }
    // The same token with other attributes is an error naming the endpoint.
    let expected = format!(
        "Invalid parameter: Token Reason: Endpoint {first} already exists with the same Token, but different attributes."
    );
    assert_eq!(
        failure(create("token-1", Some("user 7"), &[]).await),
        pair("InvalidParameter", &expected)
    );
    assert_eq!(
        failure(create("token-1", None, &[("Enabled", "false")]).await).1,
        expected
    );

    // CustomUserData as parameter, or as attribute (which wins).
    let second = create("token-2", Some("param"), &[("CustomUserData", "attribute")])
        .await
        .unwrap()
        .endpoint_arn
        .unwrap();
    assert_eq!(
        endpoint_attributes(&sns, &second).await,
        map(&[
            ("CustomUserData", "attribute"),
            ("Enabled", "true"),
            ("Token", "token-2")
        ])
    );
    sns.set_endpoint_attributes()
        .endpoint_arn(&second)
        .attributes("Enabled", "false")
        .attributes("Token", "token-2b")
        .send()
        .await
        .unwrap();
    assert_eq!(
        endpoint_attributes(&sns, &second).await,
        map(&[
            ("CustomUserData", "attribute"),
            ("Enabled", "false"),
            ("Token", "token-2b")
        ])
    );

    // Validation.
    assert_eq!(
        failure(create("token-3", None, &[("Colour", "red")]).await).1,
        "Invalid parameter: Attributes Reason: Invalid attribute name: Colour"
    );
    assert_eq!(
        failure(create("token-3", None, &[("CustomUserData", &"x".repeat(2049))]).await).1,
        "Invalid parameter: Attributes Reason: Invalid value for attribute: CustomUserData: must be at most 2048 bytes long in UTF-8 encoding"
    );
    assert_eq!(
        failure(create("token-3", None, &[("Enabled", "yes")]).await).0,
        "InvalidParameter"
    );
    let r = sns
        .create_platform_endpoint()
        .platform_application_arn(format!("{app}2"))
        .token("t")
        .send()
        .await;
    assert_eq!(
        failure(r),
        pair("NotFound", "PlatformApplication does not exist")
    );
    let r = sns
        .set_endpoint_attributes()
        .endpoint_arn(format!(
            "{ENDPOINTS}/GCM/droid/00000000-0000-0000-0000-000000000000"
        ))
        .attributes("Enabled", "true")
        .send()
        .await;
    assert_eq!(failure(r), pair("NotFound", "Endpoint does not exist"));

    // Delete is idempotent; the endpoint is gone.
    for _ in 0..2 {
        sns.delete_endpoint()
            .endpoint_arn(&first)
            .send()
            .await
            .unwrap();
    }
    let r = sns
        .get_endpoint_attributes()
        .endpoint_arn(&first)
        .send()
        .await;
    assert_eq!(failure(r), pair("NotFound", "Endpoint does not exist"));

    // Deleting the application deletes its endpoints.
    sns.delete_platform_application()
        .platform_application_arn(&app)
        .send()
        .await
        .unwrap();
    let r = sns
        .get_endpoint_attributes()
        .endpoint_arn(&second)
        .send()
        .await;
    assert_eq!(failure(r), pair("NotFound", "Endpoint does not exist"));
}

#[tokio::test]
async fn endpoints_list_in_pages_of_100() {
    let h = Harness::start().await;
    let sns = h.sns();
    let app = gcm_app(&sns, "many").await;
    let other = gcm_app(&sns, "other").await;
    let mut created = Vec::new();
    for i in 0..101 {
        let arn = sns
            .create_platform_endpoint()
            .platform_application_arn(&app)
            .token(format!("device-{i}"))
            .send()
            .await
            .unwrap()
            .endpoint_arn
            .unwrap();
        created.push(arn);
    }
    sns.create_platform_endpoint()
        .platform_application_arn(&other)
        .token("device-0")
        .send()
        .await
        .unwrap();
    let first = sns
        .list_endpoints_by_platform_application()
        .platform_application_arn(&app)
        .send()
        .await
        .unwrap();
    let page1 = first.endpoints.unwrap();
    assert_eq!(page1.len(), 100);
    let token = first.next_token.expect("a second page");
    let second = sns
        .list_endpoints_by_platform_application()
        .platform_application_arn(&app)
        .next_token(token)
        .send()
        .await
        .unwrap();
    assert_eq!(second.next_token, None);
    let page2 = second.endpoints.unwrap();
    assert_eq!(page2.len(), 1);
    let mut listed: Vec<String> = page1
        .iter()
        .chain(&page2)
        .map(|e| e.endpoint_arn.clone().unwrap())
        .collect();
    listed.sort();
    created.sort();
    assert_eq!(listed, created);
    assert!(page1[0].attributes.as_ref().unwrap()["Token"].starts_with("device-"));
    let r = sns
        .list_endpoints_by_platform_application()
        .platform_application_arn(&app)
        .next_token("%%%")
        .send()
        .await;
    assert_eq!(failure(r).0, "InvalidParameter");
}

#[tokio::test]
async fn sms_attributes_default_set_filter_and_validate() {
    let h = Harness::start().await;
    let sns = h.sns();
    let get = |names: &[&str]| {
        let mut req = sns.get_sms_attributes();
        for n in names {
            req = req.attributes(*n);
        }
        req.send()
    };
    assert_eq!(
        get(&[]).await.unwrap().attributes.unwrap(),
        map(&[("MonthlySpendLimit", "1")])
    );
    sns.set_sms_attributes()
        .attributes("DefaultSMSType", "Transactional")
        .attributes("DefaultSenderID", "MyCompany")
        .attributes("MonthlySpendLimit", "5")
        .attributes("DeliveryStatusSuccessSamplingRate", "10")
        .attributes(
            "DeliveryStatusIAMRole",
            "arn:aws:iam::123456789012:role/SNSSuccessFeedback",
        )
        .attributes("UsageReportS3Bucket", "sms-reports")
        .send()
        .await
        .unwrap();
    let all = get(&[]).await.unwrap().attributes.unwrap();
    assert_eq!(all.len(), 6);
    assert_eq!(all["MonthlySpendLimit"], "5");
    assert_eq!(
        get(&["DefaultSMSType", "Nonsense"])
            .await
            .unwrap()
            .attributes
            .unwrap(),
        map(&[("DefaultSMSType", "Transactional")])
    );
    // Another region has its own settings.
    let west = h.sns_as("test", "eu-west-1");
    let theirs = west.get_sms_attributes().send().await.unwrap();
    assert_eq!(
        theirs.attributes.unwrap(),
        map(&[("MonthlySpendLimit", "1")])
    );

    for (name, value) in [
        ("DefaultSMSType", "Urgent"),
        ("DefaultSenderID", "Has Space"),
        ("DefaultSenderID", "ABCDEFGHIJKL"),
        ("MonthlySpendLimit", "lots"),
        ("DeliveryStatusSuccessSamplingRate", "150"),
        ("DeliveryStatusIAMRole", "not-a-role"),
        ("UsageReportS3Bucket", "Bad_Bucket"),
    ] {
        let r = sns
            .set_sms_attributes()
            .attributes(name, value)
            .send()
            .await;
        let (code, message) = failure(r);
        assert_eq!(code, "InvalidParameter", "{name}={value}");
        assert!(
            message.starts_with(&format!("Invalid parameter: {name} Reason: ")),
            "{message}"
        );
    }
    // An unknown key: AWS's wording, without the "Invalid parameter:" prefix.
    let r = sns
        .set_sms_attributes()
        .attributes("Colour", "red")
        .send()
        .await;
    assert_eq!(
        failure(r),
        (
            "InvalidParameter".to_string(),
            "Colour is not a valid attribute".to_string()
        )
    );
    // A rejected request changes nothing.
    assert_eq!(
        get(&["DefaultSMSType"]).await.unwrap().attributes.unwrap()["DefaultSMSType"],
        "Transactional"
    );
}

#[tokio::test]
async fn opt_out_list_check_and_opt_in() {
    let h = Harness::start().await;
    let sns = h.sns();
    let checked = sns
        .check_if_phone_number_is_opted_out()
        .phone_number("+12065550100")
        .send()
        .await
        .unwrap();
    assert!(!checked.is_opted_out);
    let listed = sns.list_phone_numbers_opted_out().send().await.unwrap();
    assert!(listed.phone_numbers.unwrap_or_default().is_empty());
    assert_eq!(listed.next_token, None);
    sns.opt_in_phone_number()
        .phone_number("+12065550100")
        .send()
        .await
        .unwrap();
    for bad in ["12-34", "+1206555010x", "+1234"] {
        let r = sns
            .check_if_phone_number_is_opted_out()
            .phone_number(bad)
            .send()
            .await;
        assert_eq!(
            failure(r),
            pair(
                "InvalidParameter",
                "Invalid parameter: PhoneNumber Reason: input incorrectly formatted"
            ),
            "{bad}"
        );
    }
    let r = sns.opt_in_phone_number().phone_number("nope").send().await;
    assert_eq!(failure(r).0, "InvalidParameter");
}

/// The one-time password of the last verification SMS sent to `phone`.
async fn sent_code(h: &Harness, phone: &str) -> String {
    let target = phone.replace('+', "%2B");
    let outbox = h
        .control_get(&format!("outbox?protocol=sms&target={target}"))
        .await;
    let body = outbox["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["body"].as_str())
        .unwrap_or_else(|| panic!("no SMS to {phone}: {outbox}"))
        .to_string();
    body.chars().filter(char::is_ascii_digit).collect()
}

#[tokio::test]
async fn sandbox_numbers_verify_with_the_code_sent_by_sms() {
    let h = Harness::start().await;
    let sns = h.sns();
    let status = sns.get_sms_sandbox_account_status().send().await.unwrap();
    assert!(status.is_in_sandbox);

    let phone = "+12065550100";
    sns.create_sms_sandbox_phone_number()
        .phone_number(phone)
        .language_code(LanguageCodeString::EnUs)
        .send()
        .await
        .unwrap();
    let outbox = h.control_get("outbox?protocol=sms").await;
    let sms = &outbox["messages"][0];
    assert_eq!(sms["target"], phone);
    assert_eq!(sms["attributes"]["LanguageCode"], "en-US");
    let code = sent_code(&h, phone).await;
    assert_eq!(code.len(), 6, "{sms}");

    let listed = sns.list_sms_sandbox_phone_numbers().send().await.unwrap();
    assert_eq!(listed.phone_numbers.len(), 1);
    assert_eq!(listed.phone_numbers[0].phone_number.as_deref(), Some(phone));
    assert_eq!(
        listed.phone_numbers[0].status,
        Some(SmsSandboxPhoneNumberVerificationStatus::Pending)
    );

    let wrong = if code == "000000" { "111111" } else { "000000" };
    let r = sns
        .verify_sms_sandbox_phone_number()
        .phone_number(phone)
        .one_time_password(wrong)
        .send()
        .await;
    let e = r.expect_err("a wrong code fails");
    assert!(
        e.as_service_error()
            .is_some_and(|e| e.is_verification_exception()),
        "{e:?}"
    );
    sns.verify_sms_sandbox_phone_number()
        .phone_number(phone)
        .one_time_password(&code)
        .send()
        .await
        .unwrap();
    let listed = sns.list_sms_sandbox_phone_numbers().send().await.unwrap();
    assert_eq!(
        listed.phone_numbers[0].status,
        Some(SmsSandboxPhoneNumberVerificationStatus::Verified)
    );
    let r = sns
        .create_sms_sandbox_phone_number()
        .phone_number(phone)
        .send()
        .await;
    assert_eq!(failure(r).0, "UserError");

    sns.delete_sms_sandbox_phone_number()
        .phone_number(phone)
        .send()
        .await
        .unwrap();
    let listed = sns.list_sms_sandbox_phone_numbers().send().await.unwrap();
    assert!(listed.phone_numbers.is_empty());
    let r = sns
        .delete_sms_sandbox_phone_number()
        .phone_number(phone)
        .send()
        .await;
    assert_eq!(failure(r).0, "ResourceNotFound");
    let r = sns
        .verify_sms_sandbox_phone_number()
        .phone_number(phone)
        .one_time_password("123456")
        .send()
        .await;
    let e = r.expect_err("no such number");
    assert!(
        e.as_service_error()
            .is_some_and(|e| e.is_resource_not_found_exception()),
        "{e:?}"
    );

    // Model constraints.
    let r = sns
        .create_sms_sandbox_phone_number()
        .phone_number("2065550100")
        .send()
        .await;
    let (code, message) = failure(r);
    assert_eq!(code, "ValidationError");
    assert!(message.contains("regular expression pattern"), "{message}");
    let r = sns
        .verify_sms_sandbox_phone_number()
        .phone_number(phone)
        .one_time_password("12")
        .send()
        .await;
    assert_eq!(failure(r).0, "ValidationError");
}

#[tokio::test]
async fn sandbox_numbers_resend_codes_page_and_cap_at_ten() {
    let h = Harness::start().await;
    let sns = h.sns();
    let phone = |i: usize| format!("+1206555{i:04}");
    for i in 0..10 {
        sns.create_sms_sandbox_phone_number()
            .phone_number(phone(i))
            .send()
            .await
            .unwrap();
    }
    let r = sns
        .create_sms_sandbox_phone_number()
        .phone_number(phone(10))
        .send()
        .await;
    assert_eq!(failure(r).0, "UserError");

    // Asking again sends a new code; only the latest verifies.
    let old = sent_code(&h, &phone(3)).await;
    sns.create_sms_sandbox_phone_number()
        .phone_number(phone(3))
        .send()
        .await
        .unwrap();
    let new = sent_code(&h, &phone(3)).await;
    if old != new {
        let r = sns
            .verify_sms_sandbox_phone_number()
            .phone_number(phone(3))
            .one_time_password(&old)
            .send()
            .await;
        assert!(r.is_err());
    }
    sns.verify_sms_sandbox_phone_number()
        .phone_number(phone(3))
        .one_time_password(&new)
        .send()
        .await
        .unwrap();

    let mut seen = Vec::new();
    let mut token = None;
    loop {
        let page = sns
            .list_sms_sandbox_phone_numbers()
            .max_results(4)
            .set_next_token(token)
            .send()
            .await
            .unwrap();
        assert!(page.phone_numbers.len() <= 4);
        seen.extend(
            page.phone_numbers
                .into_iter()
                .map(|p| p.phone_number.unwrap()),
        );
        token = page.next_token;
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen, (0..10).map(phone).collect::<Vec<_>>());
    for bad in [0, 101] {
        let r = sns
            .list_sms_sandbox_phone_numbers()
            .max_results(bad)
            .send()
            .await;
        assert_eq!(failure(r).0, "ValidationError", "{bad}");
    }
}

#[tokio::test]
async fn origination_numbers_are_none() {
    let h = Harness::start().await;
    let sns = h.sns();
    let out = sns.list_origination_numbers().send().await.unwrap();
    assert!(out.phone_numbers.unwrap_or_default().is_empty());
    assert_eq!(out.next_token, None);
    let r = sns.list_origination_numbers().max_results(31).send().await;
    assert_eq!(failure(r).0, "ValidationError");
}

async fn query(h: &Harness, params: &[(&str, &str)]) -> crate::harness::Reply {
    let mut all = params.to_vec();
    all.push(("Version", "2010-03-31"));
    h.query(&all).await
}

#[tokio::test]
async fn query_wire_shapes() {
    let h = Harness::start().await;
    let r = query(
        &h,
        &[
            ("Action", "CreatePlatformApplication"),
            ("Name", "wire"),
            ("Platform", "GCM"),
            ("Attributes.entry.1.key", "PlatformCredential"),
            ("Attributes.entry.1.value", "k"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body
            .contains("<CreatePlatformApplicationResult><PlatformApplicationArn>"),
        "{}",
        r.body
    );
    let arn = xml_text(&r.body, "PlatformApplicationArn").unwrap();
    assert_eq!(arn, format!("{APPS}/GCM/wire"));

    let r = query(
        &h,
        &[
            ("Action", "GetPlatformApplicationAttributes"),
            ("PlatformApplicationArn", &arn),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body
            .contains("<GetPlatformApplicationAttributesResult><Attributes><entry><key>"),
        "{}",
        r.body
    );
    assert_eq!(
        xml_texts(&r.body, "key"),
        ["AuthenticationMethod", "Enabled"]
    );

    // The SMS operations use lower camel case members.
    let r = query(
        &h,
        &[
            ("Action", "CheckIfPhoneNumberIsOptedOut"),
            ("phoneNumber", "+12065550100"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(xml_text(&r.body, "isOptedOut").as_deref(), Some("false"));
    let r = query(
        &h,
        &[
            ("Action", "SetSMSAttributes"),
            ("attributes.entry.1.key", "DefaultSMSType"),
            ("attributes.entry.1.value", "Promotional"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<SetSMSAttributesResult"), "{}", r.body);
    let r = query(
        &h,
        &[
            ("Action", "GetSMSAttributes"),
            ("attributes.member.1", "DefaultSMSType"),
        ],
    )
    .await;
    assert!(
        r.body.contains(
            "<attributes><entry><key>DefaultSMSType</key><value>Promotional</value></entry></attributes>"
        ),
        "{}",
        r.body
    );
    let r = query(&h, &[("Action", "GetSMSSandboxAccountStatus")]).await;
    assert_eq!(xml_text(&r.body, "IsInSandbox").as_deref(), Some("true"));

    let r = query(
        &h,
        &[
            ("Action", "GetEndpointAttributes"),
            ("EndpointArn", &format!("{ENDPOINTS}/GCM/wire/x")),
        ],
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(xml_text(&r.body, "Type").as_deref(), Some("Sender"));
    assert_eq!(xml_text(&r.body, "Code").as_deref(), Some("NotFound"));
    assert_eq!(
        xml_text(&r.body, "Message").as_deref(),
        Some("Endpoint does not exist")
    );
}

#[tokio::test]
async fn pushes_to_endpoints_land_in_the_outbox_per_platform() {
    let h = Harness::start().await;
    let sns = h.sns();
    let app = gcm_app(&sns, "push").await;
    let endpoint = sns
        .create_platform_endpoint()
        .platform_application_arn(&app)
        .token("device-token-1")
        .send()
        .await
        .unwrap()
        .endpoint_arn
        .unwrap();
    // Publish straight to the endpoint, with a per-platform message.
    let structured = r#"{"default":"plain","GCM":"{\"notification\":{\"title\":\"hi\"}}"}"#;
    let id = sns
        .publish()
        .target_arn(&endpoint)
        .message(structured)
        .message_structure("json")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    let outbox = h.control_get("outbox?protocol=application").await;
    let messages = outbox["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["target"], endpoint.as_str());
    assert_eq!(messages[0]["messageId"], id.as_str());
    assert_eq!(messages[0]["body"], r#"{"notification":{"title":"hi"}}"#);

    // Through a topic subscription too.
    let topic = sns
        .create_topic()
        .name("alerts")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("application")
        .endpoint(&endpoint)
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("to every device")
        .send()
        .await
        .unwrap();
    let outbox = h.control_get("outbox?protocol=application").await;
    assert_eq!(outbox["messages"][1]["body"], "to every device");

    // An endpoint that does not exist cannot be subscribed.
    let missing = format!(
        "{}/ffffffff-0000-0000-0000-000000000000",
        endpoint.rsplit_once('/').unwrap().0
    );
    let err = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("application")
        .endpoint(&missing)
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidParameter"));
}
