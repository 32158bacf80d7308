//! The control API under `/_switchyard/`, exactly as docs/control-api.md words it (a public
//! contract), and the manual clock as SQS clients see it.

use crate::harness::{Harness, Reply, no_hang};
use serde_json::{Value, json};
use switchyard::{ClockMode, Config};

/// Waits (yielding, never sleeping) until the emulator holds a timer: a long poll has
/// reached the server and registered its deadline.
async fn until_polling(h: &Harness) {
    no_hang("long poll registration", async {
        while h.emulator.app().engine().pending_timers() == 0 {
            tokio::task::yield_now().await;
        }
    })
    .await
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` → epoch milliseconds; panics on any other form.
fn parse_time(s: &str) -> i64 {
    let b = s.as_bytes();
    let shape_ok = b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        });
    assert!(shape_ok, "not RFC 3339 UTC with milliseconds: {s:?}");
    let n = |r: std::ops::Range<usize>| s[r].parse::<i64>().unwrap();
    let days = days_from_civil(n(0..4), n(5..7), n(8..10));
    ((days * 24 + n(11..13)) * 60 + n(14..16)) * 60_000 + n(17..19) * 1000 + n(20..23)
}

/// Epoch milliseconds → `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn format_time(ms: i64) -> String {
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

// Howard Hinnant's civil calendar algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[test]
fn time_helpers_agree() {
    assert_eq!(parse_time("1970-01-01T00:01:30.000Z"), 90_000);
    assert_eq!(parse_time("2026-11-30T07:00:00.000Z"), 1_796_022_000_000);
    for ms in [0, 951_782_400_123, 1_796_022_000_000, 4_102_444_799_999] {
        assert_eq!(parse_time(&format_time(ms)), ms);
    }
}

async fn clock(h: &Harness) -> Value {
    h.control_get("clock").await
}

async fn epoch_millis(h: &Harness) -> i64 {
    clock(h).await["epochMillis"]
        .as_i64()
        .expect("epochMillis is an integer")
}

async fn delete(h: &Harness, path: &str) -> Reply {
    h.request("DELETE", &format!("/_switchyard/{path}"), &[], "")
        .await
}

/// A control API error: the status, and a `{"error","message"}` JSON body.
fn assert_control_error(r: &Reply, status: u16) -> String {
    assert_eq!(r.status, status, "{}", r.body);
    assert!(
        r.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{:?}",
        r.headers
    );
    let body = r.json();
    assert!(body["message"].is_string(), "{body}");
    body["error"]
        .as_str()
        .expect("error is a string")
        .to_string()
}

#[tokio::test]
async fn health_reports_status_version_services_and_clock() {
    let h = Harness::start().await;
    let health = h.control_get("health").await;
    assert_eq!(health["status"], "ok");
    let version = health["version"].as_str().expect("version");
    let parts: Vec<_> = version.split(['.', '-', '+']).collect();
    assert!(
        parts.len() >= 3 && parts[..3].iter().all(|p| p.parse::<u64>().is_ok()),
        "not semver: {version}"
    );
    let services = health["services"].as_array().expect("services");
    assert!(services.contains(&json!("sqs")), "{services:?}");
    assert_eq!(health["clock"], clock(&h).await, "manual time stands still");
}

#[tokio::test]
async fn manual_clock_reads_and_advances_exactly() {
    let h = Harness::start().await;
    let c = clock(&h).await;
    assert_eq!(c["mode"], "manual");
    assert!(c["factor"].is_number(), "{c}");
    let now = c["now"].as_str().expect("now");
    let t0 = c["epochMillis"]
        .as_i64()
        .expect("epochMillis is an integer");
    assert_eq!(parse_time(now), t0);
    assert_eq!(
        epoch_millis(&h).await,
        t0,
        "manual time moves only when told"
    );

    // By seconds.
    let r = h
        .control_post("clock/advance", json!({"seconds": 90}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let out = r.json();
    assert!(out["fired"].is_u64(), "{out}");
    assert_eq!(parse_time(out["now"].as_str().expect("now")), t0 + 90_000);
    let c = clock(&h).await;
    assert_eq!(c["epochMillis"].as_i64(), Some(t0 + 90_000));
    assert_eq!(c["now"], out["now"]);

    // Fractions of a second.
    h.advance(0.5).await;
    assert_eq!(epoch_millis(&h).await, t0 + 90_500);

    // Zero is a valid amount.
    h.advance(0.0).await;
    assert_eq!(epoch_millis(&h).await, t0 + 90_500);

    // Until an exact instant.
    let until = t0 + 90_500 + 3 * 3_600_000 + 25 * 60_000 + 7_123;
    let r = h
        .control_post("clock/advance", json!({"until": format_time(until)}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["now"], format_time(until));
    assert_eq!(epoch_millis(&h).await, until);

    // Until the current time is not in the past.
    let r = h
        .control_post("clock/advance", json!({"until": format_time(until)}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(epoch_millis(&h).await, until);
}

#[tokio::test]
async fn advance_refuses_bad_requests_and_leaves_time_alone() {
    let h = Harness::start().await;
    let t0 = epoch_millis(&h).await;
    let cases = [
        ("negative seconds", json!({"seconds": -1})),
        ("seconds as a string", json!({"seconds": "10"})),
        (
            "until in the past",
            json!({"until": format_time(t0 - 1_000)}),
        ),
        ("until not a time", json!({"until": "tomorrow"})),
        (
            "both",
            json!({"seconds": 1, "until": format_time(t0 + 5_000)}),
        ),
        ("neither", json!({})),
        ("not an object", json!([1])),
    ];
    for (what, body) in cases {
        let r = h.control_post("clock/advance", body).await;
        assert_control_error(&r, 400);
        assert_eq!(epoch_millis(&h).await, t0, "{what} moved the clock");
    }
    let ct = [("content-type", "application/json")];
    for body in ["seconds=5", "{\"seconds\": 5", ""] {
        let r = h
            .request("POST", "/_switchyard/clock/advance", &ct, body)
            .await;
        assert_control_error(&r, 400);
        assert_eq!(epoch_millis(&h).await, t0, "{body:?} moved the clock");
    }
    h.assert_alive().await;
}

#[tokio::test]
async fn advancing_by_an_absurd_amount_is_refused_not_a_crash() {
    let h = Harness::start().await;
    let t0 = epoch_millis(&h).await;
    for seconds in [1e300, f64::MAX] {
        let r = h
            .control_post("clock/advance", json!({ "seconds": seconds }))
            .await;
        assert_control_error(&r, 400);
        assert_eq!(epoch_millis(&h).await, t0, "{seconds} moved the clock");
        h.assert_alive().await;
    }
}

#[tokio::test]
async fn advancing_past_what_rfc3339_can_write_is_refused() {
    let h = Harness::start().await;
    let t0 = epoch_millis(&h).await;
    // Past 9999-12-31T23:59:59.999Z a time has no RFC 3339 form for `now` to be written in.
    for seconds in [1e15, 300_000_000_000.0] {
        let r = h
            .control_post("clock/advance", json!({ "seconds": seconds }))
            .await;
        assert_control_error(&r, 400);
        assert_eq!(epoch_millis(&h).await, t0, "{seconds} moved the clock");
    }
    let r = h
        .control_post(
            "clock/advance",
            json!({"until": "10000-01-01T00:00:00.000Z"}),
        )
        .await;
    assert_control_error(&r, 400);
    // The last instant that can be written is fine.
    let r = h
        .control_post(
            "clock/advance",
            json!({"until": "9999-12-31T23:59:59.999Z"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    parse_time(clock(&h).await["now"].as_str().unwrap());
}

#[tokio::test]
async fn a_real_clock_cannot_be_advanced() {
    let h = Harness::with(Config {
        clock: ClockMode::Real,
        ..Config::for_tests()
    })
    .await;
    let c = clock(&h).await;
    assert_eq!(c["mode"], "real");
    assert_eq!(c["factor"].as_f64(), Some(1.0));
    parse_time(c["now"].as_str().expect("now"));
    let r = h
        .control_post("clock/advance", json!({"seconds": 10}))
        .await;
    assert_eq!(assert_control_error(&r, 409), "ClockNotAdjustable");
    let until = format_time(c["epochMillis"].as_i64().unwrap() + 3_600_000);
    let r = h
        .control_post("clock/advance", json!({"until": until}))
        .await;
    assert_eq!(assert_control_error(&r, 409), "ClockNotAdjustable");
}

#[tokio::test]
async fn a_fast_clock_runs_fast_and_jumps() {
    let h = Harness::with(Config {
        clock: ClockMode::Fast(3600.0),
        ..Config::for_tests()
    })
    .await;
    let c = clock(&h).await;
    assert_eq!(c["mode"], "fast");
    assert_eq!(c["factor"].as_f64(), Some(3600.0));
    let before = c["epochMillis"].as_i64().expect("epochMillis");
    assert_eq!(parse_time(c["now"].as_str().unwrap()), before);
    let r = h
        .control_post("clock/advance", json!({"seconds": 86_400}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(parse_time(r.json()["now"].as_str().unwrap()) >= before + 86_400_000);
    assert!(epoch_millis(&h).await >= before + 86_400_000);
}

#[tokio::test]
async fn reset_forgets_resources_but_keeps_time() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    sqs.create_queue()
        .queue_name("before-reset")
        .send()
        .await
        .unwrap();
    h.advance(42.0).await;
    let t = epoch_millis(&h).await;
    let r = h.control_post("reset", json!({})).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({}));
    let listed = sqs.list_queues().send().await.unwrap();
    assert!(listed.queue_urls().is_empty(), "{listed:?}");
    let err = sqs
        .get_queue_url()
        .queue_name("before-reset")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_queue_does_not_exist(), "{err:?}");
    assert_eq!(epoch_millis(&h).await, t);
    assert_eq!(clock(&h).await["mode"], "manual");
    // The emulator goes on serving after a reset.
    sqs.create_queue()
        .queue_name("after-reset")
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn deliveries_and_outbox_start_empty_and_take_filters() {
    let h = Harness::start().await;
    assert_eq!(h.control_get("deliveries").await, json!({"records": []}));
    for filters in [
        "source=x&limit=5",
        "target=arn%3Aaws%3Asqs%3Aus-east-1%3A000000000000%3Aq&event=attempt&messageId=m",
        "limit=0",
    ] {
        let v = h.control_get(&format!("deliveries?{filters}")).await;
        assert_eq!(v, json!({"records": []}), "{filters}");
    }
    for bad in ["limit=abc", "limit=-1"] {
        let r = h
            .request("GET", &format!("/_switchyard/deliveries?{bad}"), &[], "")
            .await;
        assert_control_error(&r, 400);
    }
    assert_eq!(delete(&h, "deliveries").await.status, 200);

    assert_eq!(h.control_get("outbox").await, json!({"messages": []}));
    let v = h
        .control_get("outbox?protocol=sms&target=%2B15550100")
        .await;
    assert_eq!(v, json!({"messages": []}));
    assert_eq!(delete(&h, "outbox").await.status, 200);
    h.assert_alive().await;
}

#[tokio::test]
async fn faults_are_added_listed_and_removed() {
    let h = Harness::start().await;
    let target = "arn:aws:sqs:us-east-1:000000000000:x";
    let r = h
        .control_post(
            "faults",
            json!({"target": target, "status": 500, "count": 2}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_str().expect("id").to_string();
    assert!(!id.is_empty());

    let listed = h.control_get("faults").await;
    let faults = listed["faults"].as_array().expect("faults");
    assert_eq!(faults.len(), 1, "{listed}");
    assert_eq!(faults[0]["id"], id.as_str());
    assert_eq!(faults[0]["target"], target);
    assert_eq!(faults[0]["status"], 500);
    assert_eq!(faults[0]["count"], 2);

    let r = delete(&h, &format!("faults/{id}")).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(h.control_get("faults").await["faults"], json!([]));
    let r = delete(&h, &format!("faults/{id}")).await;
    assert_control_error(&r, 404);
    let r = delete(&h, "faults/no-such-fault").await;
    assert_control_error(&r, 404);

    for bad in [
        json!({"target": target, "status": 99}),
        json!({"target": target, "status": 600}),
        json!({"target": target, "status": "x"}),
        json!({"target": target}),
        json!({"status": 500}),
        json!({"target": "", "status": 500}),
        json!({"target": target, "status": 500, "count": 0}),
        json!({"target": target, "status": 500, "count": "two"}),
        json!({"target": target, "status": 500, "errorCode": 7}),
    ] {
        let r = h.control_post("faults", bad.clone()).await;
        assert_control_error(&r, 400);
    }
    let ct = [("content-type", "application/json")];
    let r = h
        .request("POST", "/_switchyard/faults", &ct, "{target")
        .await;
    assert_control_error(&r, 400);
    assert_eq!(h.control_get("faults").await["faults"], json!([]));

    // A fault without a count, with an error code; then all of them go at once.
    for status in [429, 503] {
        let body =
            json!({"target": "https://example.com/hook", "status": status, "errorCode": "Boom"});
        assert_eq!(h.control_post("faults", body).await.status, 201);
    }
    let listed = h.control_get("faults").await;
    assert_eq!(
        listed["faults"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    assert_eq!(listed["faults"][0]["errorCode"], "Boom");
    let r = delete(&h, "faults").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(h.control_get("faults").await["faults"], json!([]));
}

#[tokio::test]
async fn metrics_are_prometheus_text() {
    let h = Harness::start().await;
    let r = h.request("GET", "/_switchyard/metrics", &[], "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let ct = r.header("content-type").unwrap_or_default();
    assert!(ct.starts_with("text/plain; version=0.0.4"), "{ct}");
    assert!(
        r.body
            .lines()
            .any(|l| l == "# TYPE switchyard_deliveries_total counter"),
        "{}",
        r.body
    );
}

#[tokio::test]
async fn unknown_paths_and_wrong_methods_are_json_errors() {
    let h = Harness::start().await;
    for (method, path) in [
        ("GET", "/_switchyard/nope"),
        ("GET", "/_switchyard"),
        ("POST", "/_switchyard/clock/rewind"),
        ("GET", "/_switchyard/faults/a/b"),
    ] {
        let r = h.request(method, path, &[], "").await;
        assert_control_error(&r, 404);
    }
    for (method, path) in [
        ("DELETE", "/_switchyard/health"),
        ("POST", "/_switchyard/health"),
        ("GET", "/_switchyard/reset"),
        ("POST", "/_switchyard/clock"),
        ("GET", "/_switchyard/clock/advance"),
        ("PUT", "/_switchyard/faults"),
        ("GET", "/_switchyard/faults/some-id"),
        ("POST", "/_switchyard/metrics"),
    ] {
        let r = h.request(method, path, &[], "").await;
        assert_control_error(&r, 405);
    }
    h.assert_alive().await;
}

#[tokio::test]
async fn delayed_messages_appear_when_the_manual_clock_reaches_them() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("delayed")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("later")
        .delay_seconds(60)
        .send()
        .await
        .unwrap();
    let receive = || {
        sqs.receive_message()
            .queue_url(&url)
            .wait_time_seconds(0)
            .send()
    };
    assert!(receive().await.unwrap().messages().is_empty());
    h.advance(59.0).await;
    assert!(
        receive().await.unwrap().messages().is_empty(),
        "visible 1 s early"
    );
    h.advance(1.0).await;
    let out = receive().await.unwrap();
    assert_eq!(out.messages().len(), 1);
    assert_eq!(out.messages()[0].body(), Some("later"));
}

#[tokio::test]
async fn a_long_poll_ends_when_virtual_time_passes_its_deadline() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("long-poll")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let t0 = epoch_millis(&h).await;
    let poller = h.sqs();
    let poll_url = url.clone();
    let poll = tokio::spawn(async move {
        poller
            .receive_message()
            .queue_url(poll_url)
            .wait_time_seconds(20)
            .send()
            .await
    });
    until_polling(&h).await;
    h.advance(19.0).await;
    assert!(
        !poll.is_finished(),
        "the long poll ended before its deadline"
    );
    h.advance(1.0).await;
    let out = no_hang("long poll", poll).await.unwrap().unwrap();
    assert!(out.messages().is_empty(), "{out:?}");
    assert_eq!(epoch_millis(&h).await, t0 + 20_000);
}

#[tokio::test]
async fn a_long_poll_is_woken_by_a_send() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("woken")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let poller = h.sqs();
    let poll_url = url.clone();
    let poll = tokio::spawn(async move {
        poller
            .receive_message()
            .queue_url(poll_url)
            .wait_time_seconds(20)
            .send()
            .await
    });
    until_polling(&h).await;
    let t0 = epoch_millis(&h).await;
    h.sqs_as("test", "us-east-1")
        .send_message()
        .queue_url(&url)
        .message_body("wake up")
        .send()
        .await
        .unwrap();
    let out = no_hang("long poll", poll).await.unwrap().unwrap();
    assert_eq!(out.messages().len(), 1, "{out:?}");
    assert_eq!(out.messages()[0].body(), Some("wake up"));
    assert_eq!(epoch_millis(&h).await, t0, "no virtual time needed to pass");
}

#[tokio::test]
async fn a_reset_ends_long_polls() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("reset-while-polling")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let poller = h.sqs();
    let poll = tokio::spawn(async move {
        poller
            .receive_message()
            .queue_url(url)
            .wait_time_seconds(20)
            .send()
            .await
    });
    until_polling(&h).await;
    assert_eq!(h.control_post("reset", json!({})).await.status, 200);
    // The queue is gone: the poll ends at once, empty or with QueueDoesNotExist.
    match no_hang("long poll across a reset", poll).await.unwrap() {
        Ok(out) => assert!(out.messages().is_empty(), "{out:?}"),
        Err(err) => {
            let err = err.into_service_error();
            assert!(err.is_queue_does_not_exist(), "{err:?}");
        }
    }
}
