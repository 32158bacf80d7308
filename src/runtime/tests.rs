use super::*;
use crate::services::{Context, ServiceId};
use serde_json::json;

fn cx() -> Context {
    Context::for_tests()
}

async fn list_queues(rt: &Runtime) -> Result<serde_json::Value, crate::error::AwsError> {
    call(rt, &cx(), ServiceId::Sqs, "ListQueues", json!({})).await
}

async fn create_queue(
    rt: &Runtime,
    name: &str,
) -> Result<serde_json::Value, crate::error::AwsError> {
    let input = json!({ "QueueName": name });
    call(rt, &cx(), ServiceId::Sqs, "CreateQueue", input).await
}

/// Panics while holding the state, as a bug in an operation would, after changing it.
fn panic_under_the_lock(rt: &Runtime) {
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut state = rt.state();
        let input = json!({"QueueName": "half-changed"});
        state
            .call(&cx(), ServiceId::Sqs, "CreateQueue", input)
            .unwrap();
        panic!("a bug in an operation");
    }));
    assert!(panicked.is_err());
}

#[tokio::test]
async fn a_panic_under_the_lock_answers_500_until_a_reset() {
    let rt = Runtime::new(Config::for_tests());
    create_queue(&rt, "q").await.unwrap();
    panic_under_the_lock(&rt);
    assert!(rt.is_broken());
    let refused = list_queues(&rt).await.unwrap_err();
    assert_eq!((refused.status, refused.code), (500, "InternalFailure"));
    assert!(
        refused.message.contains("POST /_switchyard/reset"),
        "{refused:?}"
    );
    // Every request that takes the state, not only the first.
    let refused = create_queue(&rt, "p").await.unwrap_err();
    assert_eq!(refused.status, 500);
    // Nothing fires in it meanwhile, and the clock does not move.
    assert!(rt.state().is_broken());
    let before = rt.state().now();
    let advanced = rt.advance_to(before + 60_000).await.unwrap_err();
    assert_eq!(
        (advanced.code(), rt.state().now()),
        ("InternalFailure", before)
    );
    rt.reset().await.unwrap();
    assert!(!rt.is_broken());
    let listed = list_queues(&rt).await.unwrap();
    assert_eq!(listed.get("QueueUrls"), None, "{listed}");
}

#[tokio::test]
async fn a_state_load_puts_a_whole_state_in_place_of_a_broken_one() {
    let rt = Runtime::new(Config::for_tests());
    create_queue(&rt, "kept").await.unwrap();
    let snapshot = rt.snapshot();
    panic_under_the_lock(&rt);
    assert_eq!(list_queues(&rt).await.unwrap_err().status, 500);
    rt.load_snapshot(&snapshot).await.unwrap();
    let listed = list_queues(&rt).await.unwrap();
    assert!(
        listed["QueueUrls"][0].as_str().unwrap().ends_with("/kept"),
        "{listed}"
    );
}

#[tokio::test]
async fn with_a_state_dir_a_broken_state_is_not_kept() {
    let dir = std::env::temp_dir().join(format!("switchyard-broken-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = Config {
        state_dir: Some(dir.clone()),
        ..Config::for_tests()
    };
    let rt = Runtime::open(config.clone()).unwrap();
    create_queue(&rt, "kept").await.unwrap();
    panic_under_the_lock(&rt);
    assert_eq!(list_queues(&rt).await.unwrap_err().status, 500);
    // Shutdown writes no checkpoint of it: the next start replays what was committed.
    rt.close_journal();
    drop(rt);
    let rt = Runtime::open(config.clone()).unwrap();
    assert!(!rt.is_broken());
    let listed = list_queues(&rt).await.unwrap();
    let urls = listed["QueueUrls"].as_array().unwrap();
    assert_eq!(urls.len(), 1, "{listed}");
    assert!(urls[0].as_str().unwrap().ends_with("/kept"), "{listed}");
    // A reset mends it here too, and is kept.
    panic_under_the_lock(&rt);
    rt.reset().await.unwrap();
    assert_eq!(list_queues(&rt).await.unwrap().get("QueueUrls"), None);
    rt.close_journal();
    drop(rt);
    let rt = Runtime::open(config).unwrap();
    assert_eq!(list_queues(&rt).await.unwrap().get("QueueUrls"), None);
    rt.close_journal();
    drop(rt);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_https_ca_file_is_an_error_not_a_panic() {
    let config = Config {
        https_ca: Some(PathBuf::from("/nonexistent/ca.pem")),
        ..Config::for_tests()
    };
    let Err(e) = Runtime::open(config) else {
        panic!("opened with a CA file that does not exist");
    };
    assert!(matches!(e, OpenError::HttpsCa { .. }), "{e:?}");
    assert!(
        e.to_string().starts_with("--https-ca /nonexistent/ca.pem"),
        "{e}"
    );
}

#[test]
fn a_restored_clock_resumes_as_its_mode_says() {
    let wall = Clock::wall_millis();
    // manual: at the state's time.
    let manual = Clock::new(ClockMode::Manual);
    resume_clock(&manual, Some((1_000_000, wall - 10_000)), 1_000_000);
    assert_eq!(manual.now(), 1_000_000);
    // fast: the wall time since the last change, times the factor, has passed.
    let fast = Clock::new(ClockMode::Fast(60.0));
    resume_clock(&fast, Some((1_000_000, wall - 10_000)), 1_000_000);
    let now = fast.now();
    assert!(
        (1_000_000 + 600_000..1_000_000 + 700_000).contains(&now),
        "{now}"
    );
    // Never before the state's own time.
    let fast = Clock::new(ClockMode::Fast(60.0));
    resume_clock(&fast, Some((1_000_000, wall + 60_000)), 2_000_000);
    assert!(fast.now() >= 2_000_000);
    // real: wall time, whatever the state says.
    let real = Clock::new(ClockMode::Real);
    resume_clock(&real, Some((1_000_000, wall - 10_000)), 1_000_000);
    assert!(real.now() >= wall);
}
