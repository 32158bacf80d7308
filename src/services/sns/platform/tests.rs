//! Tests of the platform operations: pushes to endpoints, credentials and names. `engine` and
//! `cx` are shared with the SMS tests.
//! Tests only.

use super::*;

pub(crate) fn engine() -> State {
    State::for_tests(0)
}

pub(crate) fn cx() -> Context {
    Context::for_tests()
}

fn endpoint(e: &mut State, platform: &str, attributes: &[(&str, &str)]) -> String {
    let mut app_attributes = Attributes::new();
    app_attributes.insert("PlatformCredential".into(), "k".into());
    app_attributes.insert("PlatformPrincipal".into(), "p".into());
    let app = create_platform_application(
        e,
        &cx(),
        CreatePlatformApplicationInput {
            name: "app".into(),
            platform: platform.into(),
            attributes: app_attributes,
        },
    )
    .unwrap()
    .platform_application_arn;
    create_platform_endpoint(
        e,
        &cx(),
        CreatePlatformEndpointInput {
            platform_application_arn: app,
            token: "device-token".into(),
            custom_user_data: None,
            attributes: attributes
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        },
    )
    .unwrap()
    .endpoint_arn
}

#[test]
fn publishing_to_an_endpoint_sends_its_platform_payload_to_the_outbox() {
    let cases: [(&str, Option<Value>, &str); 4] = [
        ("GCM", None, "plain"),
        (
            "GCM",
            Some(json!({"default": "d", "GCM": "{\"data\":1}"})),
            "{\"data\":1}",
        ),
        ("APNS", Some(json!({"default": "d", "GCM": "g"})), "d"),
        // A non-string platform entry is ignored.
        (
            "APNS",
            Some(json!({"default": "d", "APNS": {"aps": 1}})),
            "d",
        ),
    ];
    for (platform, structure, body) in cases {
        let mut e = engine();
        let arn = endpoint(&mut e, platform, &[]);
        let id = publish_to_endpoint(
            &mut e,
            &cx(),
            &arn,
            "plain",
            structure.as_ref().and_then(Value::as_object),
            &BTreeMap::new(),
        )
        .unwrap();
        let sent = e.engine.outbox.last().expect("one push");
        assert_eq!(sent.protocol, "application");
        assert_eq!(sent.target, arn);
        assert_eq!(sent.message_id, id);
        assert_eq!(sent.body, body, "{platform} {structure:?}");
        assert_eq!(sent.attributes["Token"], "device-token");
        assert_eq!(sent.attributes["Platform"], platform);
    }
}

#[test]
fn publishing_to_a_disabled_or_missing_endpoint_fails() {
    let mut e = engine();
    let arn = endpoint(&mut e, "GCM", &[("Enabled", "false")]);
    assert_eq!(
        publish_to_endpoint(&mut e, &cx(), &arn, "m", None, &BTreeMap::new()),
        Err(SnsError::EndpointDisabled("Endpoint is disabled".into()))
    );
    let missing = format!("{arn}x");
    assert_eq!(
        publish_to_endpoint(&mut e, &cx(), &missing, "m", None, &BTreeMap::new()),
        Err(invalid(
            "TargetArn Reason: No endpoint found for the target arn specified"
        ))
    );
    let mut e = engine();
    let arn = endpoint(&mut e, "GCM", &[]);
    let app = e.sns.platform.endpoints[&arn].application_arn.clone();
    e.sns.platform.applications.get_mut(&app).unwrap().enabled = false;
    assert!(matches!(
        publish_to_endpoint(&mut e, &cx(), &arn, "m", None, &BTreeMap::new()),
        Err(SnsError::PlatformApplicationDisabled(_))
    ));
    assert!(e.engine.outbox.is_empty());
}

#[test]
fn credentials_each_platform_needs() {
    let cases = [
        ("GCM", None, Some("key"), true),
        ("GCM", None, None, false),
        ("APNS", Some("cert"), Some("key"), true),
        ("APNS", Some("cert"), None, false),
        ("ADM", None, Some("secret"), false),
        ("WNS", None, None, false),
    ];
    for (platform, principal, credential, ok) in cases {
        assert_eq!(
            check_credentials(platform, principal, credential).is_ok(),
            ok,
            "{platform} {principal:?} {credential:?}"
        );
    }
}

#[test]
fn application_names() {
    for good in ["a", "my-app_1.0", &"x".repeat(256)] {
        assert!(valid_application_name(good).is_ok(), "{good}");
    }
    for bad in ["", "my app", "a/b", &"x".repeat(257)] {
        assert!(valid_application_name(bad).is_err(), "{bad}");
    }
}
