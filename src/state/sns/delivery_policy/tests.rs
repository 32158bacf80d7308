use super::*;
use crate::engine::delivery::Failure;

fn backoff_delays(lo: u32, hi: u32, b: u32, f: Backoff) -> Vec<f64> {
    let s = Schedule {
        min_delay_s: lo,
        max_delay_s: hi,
        num_retries: b,
        num_no_delay_retries: 0,
        num_min_delay_retries: 0,
        num_max_delay_retries: 0,
        backoff: f,
    };
    (1..=b)
        .map(|k| s.retry(k).unwrap().1 as f64 / 1000.0)
        .collect()
}

#[test]
fn backoff_functions_match_the_documented_vectors() {
    // docs/sns-retries.md: the documented vectors (lo 5, hi 260, B 10).
    let cases: [(Backoff, [f64; 10]); 4] = [
        (
            Backoff::Linear,
            [
                5.0, 33.333, 61.667, 90.0, 118.333, 146.667, 175.0, 203.333, 231.667, 260.0,
            ],
        ),
        (
            Backoff::Arithmetic,
            [
                5.0, 58.519, 105.741, 146.667, 181.296, 209.630, 231.667, 247.407, 256.852, 260.0,
            ],
        ),
        (
            Backoff::Geometric,
            [
                5.0, 80.905, 140.021, 184.444, 216.276, 237.613, 250.556, 257.202, 259.650, 260.0,
            ],
        ),
        (
            Backoff::Exponential,
            [
                5.0, 142.085, 205.547, 234.925, 248.526, 254.822, 257.737, 259.086, 259.711, 260.0,
            ],
        ),
    ];
    for (f, want) in cases {
        let got = backoff_delays(5, 260, 10, f);
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 0.001, "{f:?}: {got:?}");
        }
    }
    // AWS's one published example: linear, 3 backoff retries from 20 s to 40 s.
    assert_eq!(
        backoff_delays(20, 40, 3, Backoff::Linear),
        [20.0, 30.0, 40.0]
    );
    assert_eq!(
        backoff_delays(20, 40, 3, Backoff::Exponential),
        [20.0, 39.394, 40.0]
    );
    assert_eq!(
        backoff_delays(7, 9, 1, Backoff::Geometric),
        [7.0],
        "a single backoff retry waits the minimum"
    );
}

#[test]
fn phases_follow_the_counts() {
    let s = Schedule {
        min_delay_s: 1,
        max_delay_s: 60,
        num_retries: 50,
        num_no_delay_retries: 3,
        num_min_delay_retries: 2,
        num_max_delay_retries: 35,
        backoff: Backoff::Exponential,
    };
    assert_eq!(s.backoff_retries(), 10);
    let phases: Vec<_> = (1..=50).map(|k| s.retry(k).unwrap().0).collect();
    assert_eq!(&phases[..3], [Phase::Immediate; 3]);
    assert_eq!(&phases[3..5], [Phase::PreBackoff; 2]);
    assert_eq!(&phases[5..15], [Phase::Backoff; 10]);
    assert_eq!(&phases[15..], [Phase::PostBackoff; 35]);
    assert_eq!(s.retry(4), Some((Phase::PreBackoff, 1000)));
    assert_eq!(s.retry(6), Some((Phase::Backoff, 1000)));
    assert_eq!(s.retry(15), Some((Phase::Backoff, 60_000)));
    assert_eq!(s.retry(50), Some((Phase::PostBackoff, 60_000)));
    assert_eq!(s.retry(51), None);
    // 3·0 + 2·1 + 490.662 + 35·60 (docs/sns-retries.md, "The example policy of AWS's page").
    assert_eq!(s.total_ms(), 2_592_662);
}

#[test]
fn fixed_policies_have_aws_totals() {
    let sqs = Schedule::fixed_for("sqs").unwrap();
    assert_eq!((sqs.num_retries, sqs.backoff_retries()), (100_015, 10));
    let days = sqs.total_ms() as f64 / 86_400_000.0;
    assert!((23.0..23.2).contains(&days), "{days}");
    let email = Schedule::fixed_for("email").unwrap();
    let hours = email.total_ms() as f64 / 3_600_000.0;
    assert_eq!(email.num_retries, 50);
    assert!((6.0..8.0).contains(&hours), "{hours}");
    assert_eq!(Schedule::fixed_for("https"), None);
}

#[test]
fn firehose_throttling_follows_the_customer_managed_schedule() {
    let mut rng = Rng::new(1);
    let throttled = Outcome::Retryable(Failure::Status(429));
    let failed = Outcome::Retryable(Failure::Status(500));
    // The first retry: customer managed waits 10 s (pre-backoff), AWS managed none.
    assert_eq!(
        Firehose
            .next_after(1, &throttled, &mut rng, false)
            .unwrap()
            .delay_ms,
        10_000
    );
    assert_eq!(
        Firehose
            .next_after(1, &failed, &mut rng, false)
            .unwrap()
            .delay_ms,
        0
    );
    assert_eq!(Firehose.next_after(51, &throttled, &mut rng, false), None);
}

#[test]
fn jitter_stays_within_half_and_whole() {
    let mut rng = Rng::new(9);
    for k in 1..=3 {
        let r = Schedule::HTTP_DEFAULT.next(k, &mut rng, true).unwrap();
        assert!((10_000..=20_000).contains(&r.delay_ms), "{r:?}");
        assert_eq!(
            Schedule::HTTP_DEFAULT
                .next(k, &mut rng, false)
                .unwrap()
                .delay_ms,
            20_000
        );
    }
    assert_eq!(Schedule::HTTP_DEFAULT.next(4, &mut rng, true), None);
}

#[test]
fn validation_messages() {
    let sub = |p: &str| parse(p, Level::Subscription);
    let cases = [
        (
            r#"{"healthyRetryPolicy":{"maxDelayTarget":20,"numRetries":3}}"#,
            "healthyRetryPolicy.minDelayTarget must be specified",
        ),
        (
            r#"{"healthyRetryPolicy":{"minDelayTarget":0,"maxDelayTarget":20,"numRetries":3}}"#,
            "healthyRetryPolicy.minDelayTarget must be greater than or equal to 1",
        ),
        (
            r#"{"healthyRetryPolicy":{"minDelayTarget":30,"maxDelayTarget":20,"numRetries":3}}"#,
            "healthyRetryPolicy.maxDelayTarget must be greater than or equal to minDelayTarget",
        ),
        (
            r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":20,"numRetries":101}}"#,
            "healthyRetryPolicy.numRetries must be less than or equal to 100",
        ),
        (
            r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":3600,"numRetries":2,"numMaxDelayRetries":2}}"#,
            "healthyRetryPolicy: total retry time must be less than or equal to 3600 seconds",
        ),
        (
            r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":20,"numRetries":3,"numNoDelayRetries":4}}"#,
            "healthyRetryPolicy.numRetries must be greater than or equal to the sum of numNoDelayRetries, numMinDelayRetries and numMaxDelayRetries",
        ),
        (
            r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":20,"numRetries":3,"backoffFunction":"cubic"}}"#,
            "healthyRetryPolicy.backoffFunction must be one of linear, arithmetic, geometric, exponential",
        ),
        (
            r#"{"throttlePolicy":{"maxReceivesPerSecond":0}}"#,
            "throttlePolicy.maxReceivesPerSecond must be greater than or equal to 1",
        ),
    ];
    for (policy, message) in cases {
        assert_eq!(sub(policy).unwrap_err(), message, "{policy}");
    }
    assert!(
        sub("{not json")
            .unwrap_err()
            .starts_with("failed to parse JSON.")
    );
    let topic = parse(
        r#"{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":20,"numRetries":101}}}"#,
        Level::Topic,
    );
    assert_eq!(
        topic.unwrap_err(),
        "http.defaultHealthyRetryPolicy.numRetries must be less than or equal to 100"
    );
    let ok = sub(r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":60,"numRetries":50,"numNoDelayRetries":3,"numMinDelayRetries":2,"numMaxDelayRetries":35,"backoffFunction":"EXPONENTIAL"},"throttlePolicy":{"maxReceivesPerSecond":10},"requestPolicy":{"headerContentType":"application/json"},"sicklyRetryPolicy":null,"guaranteed":false}"#).unwrap();
    assert_eq!(ok.healthy.unwrap().backoff, Backoff::Exponential);
    assert_eq!(ok.throttle, Some(10));
}

#[test]
fn subscription_policy_overrides_the_topic_per_sub_policy() {
    let topic = parse(r#"{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":6,"numRetries":1},"defaultRequestPolicy":{"headerContentType":"application/json"}}}"#, Level::Topic).unwrap();
    let sub = parse(
        r#"{"throttlePolicy":{"maxReceivesPerSecond":3}}"#,
        Level::Subscription,
    )
    .unwrap();
    let e = effective(&topic, &sub);
    assert_eq!(
        (e.healthy.min_delay_s, e.healthy.num_retries, e.throttle),
        (5, 1, Some(3))
    );
    assert_eq!(e.content_type, "application/json");
    let own = parse(
        r#"{"healthyRetryPolicy":{"minDelayTarget":2,"maxDelayTarget":2,"numRetries":2}}"#,
        Level::Subscription,
    )
    .unwrap();
    assert_eq!(effective(&topic, &own).healthy.min_delay_s, 2);
    let mut locked = topic.clone();
    locked.disable_subscription_overrides = true;
    assert_eq!(effective(&locked, &own).healthy.min_delay_s, 5);
    let none = effective(&Policy::default(), &Policy::default());
    assert_eq!(none.healthy, Schedule::HTTP_DEFAULT);
    assert!(
        none.subscription_json()
            .contains(r#""headerContentType":"text/plain; charset=UTF-8""#)
    );
}
