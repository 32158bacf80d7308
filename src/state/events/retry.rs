//! A rule target's RetryPolicy: retries until MaximumRetryAttempts retries were made or the event
//! is MaximumEventAgeInSeconds old, whichever comes first, with exponential backoff and jitter.
//!
//! AWS does not publish its intervals ("exponential back off and jitter, or randomized delay",
//! eb-rule-retry-policy). switchyard waits `min(2^(n-1), 512)` seconds before retry `n`, each
//! multiplied by a random factor in [0.9, 1.1) when jitter is on: 1, 2, 4, ... 256, 512, 512, ...
//! So the default policy (185 retries, 24 hours) ends by age: without jitter it makes 176
//! retries, the last when the event is 23.9 hours old (docs/eventbridge.md).
//! Pure: it imports no operation and no state, only the engine's values and its own service's data.

use crate::engine::delivery::{Backoff, BackoffRetry, BackoffSchedule};
use crate::engine::time::Millis;

pub const DEFAULT_MAX_RETRIES: u32 = 185;
pub const DEFAULT_MAX_AGE_SECONDS: u32 = 86_400;
/// The longest nominal wait between two attempts.
pub const CAP_MS: Millis = 512_000;

pub use crate::engine::delivery::{BY_AGE, BY_ATTEMPTS};

/// A classic target's retry policy: [`BackoffRetry`] with EventBridge's constants.
pub type TargetRetry = BackoffRetry<Classic>;

/// The constants of classic EventBridge targets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Classic;

impl BackoffSchedule for Classic {
    const BACKOFF: Backoff = Backoff {
        base_ms: 1_000,
        cap_ms: CAP_MS,
    };
    const MAX_RETRIES: u32 = DEFAULT_MAX_RETRIES;
    const MAX_AGE_MS: Millis = DEFAULT_MAX_AGE_SECONDS as Millis * 1000;
    const RETRIES_EVERY_FAILURE: bool = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::delivery::schedule;
    use crate::engine::delivery::{Failure, Outcome};
    use crate::engine::rng::Rng;

    fn failed() -> Outcome {
        Outcome::Retryable(Failure::Status(500))
    }

    /// Every attempt's time (ms after the event) until the policy stops, and why it stopped.
    fn run(policy: TargetRetry, jitter: bool) -> (Vec<Millis>, Option<&'static str>) {
        schedule(&policy, &failed(), jitter)
    }

    #[test]
    fn retries_back_off_exponentially_up_to_the_cap() {
        let nominal: Vec<Millis> = (1..=12).map(TargetRetry::nominal_ms).collect();
        assert_eq!(
            nominal,
            [
                1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000,
                512_000, 512_000
            ]
        );
        assert_eq!(TargetRetry::nominal_ms(185), CAP_MS);
    }

    #[test]
    fn the_attempt_limit_counts_retries() {
        let policy = TargetRetry {
            max_retries: 3,
            ..TargetRetry::default()
        };
        let (times, why) = run(policy, false);
        assert_eq!(times, [0, 1_000, 3_000, 7_000]);
        assert_eq!(why, Some(BY_ATTEMPTS));
        let (times, why) = run(
            TargetRetry {
                max_retries: 0,
                ..policy
            },
            true,
        );
        assert_eq!((times.len(), why), (1, Some(BY_ATTEMPTS)));
    }

    #[test]
    fn the_age_limit_stops_attempts_past_it() {
        let policy = TargetRetry {
            max_retries: 185,
            max_age_ms: 60_000,
            ..TargetRetry::default()
        };
        let (times, why) = run(policy, false);
        assert_eq!(times, [0, 1_000, 3_000, 7_000, 15_000, 31_000]);
        assert_eq!(why, Some(BY_AGE));
        for _ in 0..20 {
            let (times, why) = run(policy, true);
            assert!(times.iter().all(|&t| t <= 60_000), "{times:?}");
            assert_eq!(why, Some(BY_AGE));
        }
    }

    #[test]
    fn the_default_policy_runs_for_a_day_and_ends_by_age() {
        let (times, why) = run(TargetRetry::default(), false);
        assert_eq!(why, Some(BY_AGE));
        let last = *times.last().unwrap();
        assert!(last <= 86_400_000 && last > 86_400_000 - CAP_MS, "{last}");
        // 9 doubling retries (511 s), then 167 of 512 s: 176 retries, the 177th attempt at 23.9 h.
        assert_eq!(times.len(), 1 + 9 + 167);
        let (times, why) = run(TargetRetry::default(), true);
        assert_eq!(why, Some(BY_AGE));
        assert!(*times.last().unwrap() <= 86_400_000);
    }

    #[test]
    fn jitter_stays_within_ten_percent() {
        let mut rng = Rng::new(1);
        for n in 1..30 {
            let nominal = TargetRetry::nominal_ms(n) as f64;
            let d = TargetRetry::delay_ms(n, &mut rng, true) as f64;
            assert!(
                d >= nominal * 0.9 - 1.0 && d <= nominal * 1.1 + 1.0,
                "{n}: {d}"
            );
        }
    }
}
