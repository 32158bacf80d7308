//! A subscriber's RetryPolicy (docs/custom-bus.md, "Retry schedule"): every failure is retried until
//! MaxRetryAttempts retries were made or the event is MaxEventAgeInSeconds old, whichever comes
//! first; the attempt limit is checked first. Failures inside the emulator are retried without
//! limit on the same schedule.
//!
//! AWS does not publish the intervals. switchyard waits `min(10 · 2^(n-1), 300)` seconds before
//! retry `n`: 10, 20, 40, 80, 160, 300, 300, ... times a random factor in [0.9, 1.1) when jitter is
//! on. With the defaults (5 retries, 300 s) and no jitter a failing target is tried at 0, 10, 30,
//! 70 and 150 s; the fifth retry would come at 310 s, past the age limit, so the record says
//! `MaximumEventAgeInSeconds` after 4 retries, like the spec's example record.
//! Pure: it imports no operation and no state, only the engine's values and its own service's data.

use crate::engine::delivery::{Backoff, BackoffRetry, BackoffSchedule};
use crate::engine::time::Millis;

pub const DEFAULT_MAX_RETRIES: u32 = 5;
pub const DEFAULT_MAX_AGE_SECONDS: i64 = 300;
/// The first nominal wait, and the longest.
pub const BASE_MS: Millis = 10_000;
pub const CAP_MS: Millis = 300_000;

pub use crate::engine::delivery::{BY_AGE, BY_ATTEMPTS};

/// A subscriber's retry policy: [`BackoffRetry`] with the custom bus's constants.
pub type SubscriberRetry = BackoffRetry<Subscriber>;

/// The constants of custom-bus subscribers: every failure is retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Subscriber;

impl BackoffSchedule for Subscriber {
    const BACKOFF: Backoff = Backoff {
        base_ms: BASE_MS,
        cap_ms: CAP_MS,
    };
    const MAX_RETRIES: u32 = DEFAULT_MAX_RETRIES;
    const MAX_AGE_MS: Millis = DEFAULT_MAX_AGE_SECONDS * 1000;
    const RETRIES_EVERY_FAILURE: bool = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::delivery::schedule;
    use crate::engine::delivery::{Failure, Outcome, RetryPolicy};
    use crate::engine::rng::Rng;

    fn failed() -> Outcome {
        Outcome::Permanent(Failure::Status(400))
    }

    /// Every attempt's time (ms after the event) until the policy stops, and why it stopped.
    fn run(policy: SubscriberRetry, jitter: bool) -> (Vec<Millis>, Option<&'static str>) {
        schedule(&policy, &failed(), jitter)
    }

    #[test]
    fn waits_double_from_ten_seconds_up_to_five_minutes() {
        let nominal: Vec<Millis> = (1..=8).map(SubscriberRetry::nominal_ms).collect();
        assert_eq!(
            nominal,
            [
                10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000
            ]
        );
        assert_eq!(SubscriberRetry::nominal_ms(185), CAP_MS);
    }

    #[test]
    fn the_defaults_end_by_age_after_four_retries() {
        let (times, why) = run(SubscriberRetry::default(), false);
        assert_eq!(times, [0, 10_000, 30_000, 70_000, 150_000]);
        assert_eq!(why, Some(BY_AGE));
    }

    #[test]
    fn the_attempt_limit_is_checked_first_and_zero_means_one_attempt() {
        let table = [
            (0, 300, vec![0], BY_ATTEMPTS),
            (2, 300, vec![0, 10_000, 30_000], BY_ATTEMPTS),
            (
                5,
                3600,
                vec![0, 10_000, 30_000, 70_000, 150_000, 310_000],
                BY_ATTEMPTS,
            ),
            (185, 60, vec![0, 10_000, 30_000], BY_AGE),
        ];
        for (max_retries, age_s, want, limit) in table {
            let policy = SubscriberRetry {
                max_retries,
                max_age_ms: age_s * 1000,
                ..SubscriberRetry::default()
            };
            assert_eq!(
                run(policy, false),
                (want, Some(limit)),
                "{max_retries}/{age_s}"
            );
        }
    }

    #[test]
    fn jitter_stays_within_ten_percent_and_inside_the_age_limit() {
        for _ in 0..10 {
            let (times, _) = run(SubscriberRetry::default(), true);
            assert!(times.iter().all(|&t| t <= 300_000), "{times:?}");
        }
        let mut rng = Rng::new(3);
        for n in 1..20 {
            let nominal = SubscriberRetry::nominal_ms(n) as f64;
            let d = SubscriberRetry::delay_ms(n, &mut rng, true) as f64;
            assert!(
                d >= nominal * 0.9 - 1.0 && d <= nominal * 1.1 + 1.0,
                "{n}: {d}"
            );
        }
    }

    #[test]
    fn every_failure_is_retried() {
        assert!(SubscriberRetry::default().retries_permanent());
    }
}
