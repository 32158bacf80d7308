//! The two push retry strategies of an event stream (docs/event-streams.md, derived schedule
//! in section 6.1), as engine retry policies:
//!
//! - `BACKOFF_RETRY`: at most 3 retries, each after a random wait of 10 to 20 s (uniform, whole
//!   milliseconds, both ends included) from the seeded generator; 15 s each with `--jitter off`.
//! - `EXPONENTIAL_DECAY_RETRY`: at most 176 retries, retry `n` after `min(2^(n-1), 512)` s (1, 2,
//!   4, ..., 256, then 512 s for the last 167), no jitter: 86,015 s of waiting in all. No retry is
//!   made later than one day after the first attempt (a second cap that only bites when attempts
//!   themselves take time).
//!
//! Every failure is retried, except those retrying cannot fix ([`non_retryable`]): they end the
//! delivery at once, and the stream goes to `START_FAILED`.
//! Pure: it depends on the engine only.

use crate::engine::delivery::{Draw, Failure, Outcome, Retry, RetryPolicy, Verdict};
use crate::engine::rng::Rng;
use crate::engine::time::Millis;

pub const BACKOFF_RETRIES: u32 = 3;
pub const BACKOFF_MIN_MS: Millis = 10_000;
pub const BACKOFF_MAX_MS: Millis = 20_000;
pub const DECAY_RETRIES: u32 = 176;
pub const DECAY_CAP_MS: Millis = 512_000;
pub const DECAY_MAX_AGE_MS: Millis = 86_400_000;

/// Why retries ended, for the log and the state reason.
pub use crate::engine::delivery::{BY_AGE, BY_ATTEMPTS};
pub const NON_RETRYABLE: &str = "NonRetryable";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Strategy {
    Backoff,
    ExponentialDecay,
}

impl Strategy {
    pub fn parse(text: &str) -> Option<Strategy> {
        match text {
            "BACKOFF_RETRY" => Some(Strategy::Backoff),
            "EXPONENTIAL_DECAY_RETRY" => Some(Strategy::ExponentialDecay),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Backoff => "BACKOFF_RETRY",
            Strategy::ExponentialDecay => "EXPONENTIAL_DECAY_RETRY",
        }
    }

    pub fn max_retries(self) -> u32 {
        match self {
            Strategy::Backoff => BACKOFF_RETRIES,
            Strategy::ExponentialDecay => DECAY_RETRIES,
        }
    }

    /// The wait before retry `n` (1 = the first retry).
    pub fn delay_ms(self, n: u32, draw: &mut Draw) -> Millis {
        match self {
            Strategy::Backoff => match draw.random() {
                Some(rng) => {
                    let span = (BACKOFF_MAX_MS - BACKOFF_MIN_MS + 1) as u64;
                    BACKOFF_MIN_MS + (rng.next_u64() % span) as Millis
                }
                None => (BACKOFF_MIN_MS + BACKOFF_MAX_MS) / 2,
            },
            // Classic EventBridge's target backoff without its jitter: 1 s doubling to 512 s.
            Strategy::ExponentialDecay => crate::engine::delivery::Backoff {
                base_ms: 1000,
                cap_ms: DECAY_CAP_MS,
            }
            .nominal_ms(n),
        }
    }
}

/// Failures that no retry can fix: the target (or what it forwards to) does not exist or
/// refuses access, the event loops, or the configured input cannot be built from the event.
pub fn non_retryable(outcome: &Outcome) -> bool {
    outcome.failure().is_some_and(|f| {
        matches!(
            f.meaning(),
            Failure::NotFound(_)
                | Failure::AccessDenied(_)
                | Failure::Loop(_)
                | Failure::InputTransformation
        )
    })
}

/// A stream's retry policy.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StreamRetry(pub Strategy);

impl RetryPolicy for StreamRetry {
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry> {
        let retries = attempts.saturating_sub(1);
        (retries < self.0.max_retries()).then(|| Retry {
            delay_ms: self.0.delay_ms(retries + 1, &mut Draw { rng, jitter }),
            phase: "retry",
        })
    }

    fn decide(&self, attempts: u32, outcome: &Outcome, age_ms: Millis, draw: &mut Draw) -> Verdict {
        if non_retryable(outcome) {
            return Err(Some(NON_RETRYABLE));
        }
        let retry = self
            .next(attempts, draw.rng, draw.jitter)
            .ok_or(Some(BY_ATTEMPTS))?;
        if self.0 == Strategy::ExponentialDecay && age_ms + retry.delay_ms > DECAY_MAX_AGE_MS {
            return Err(Some(BY_AGE));
        }
        Ok(retry)
    }

    fn retries_permanent(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(code: Option<&str>) -> Outcome {
        Outcome::Retryable(Failure::Injected {
            status: 500,
            code: code.map(str::to_string),
        })
    }

    /// The waits before each retry until the policy stops, and why it stopped.
    fn waits(strategy: Strategy, jitter: bool, seed: u64) -> (Vec<Millis>, Option<&'static str>) {
        let policy = StreamRetry(strategy);
        let mut rng = Rng::new(seed);
        let (mut age, mut out) = (0, Vec::new());
        loop {
            let attempts = out.len() as u32 + 1;
            match policy.retry(attempts, &failed(None), age, &mut rng, jitter) {
                Ok(r) => {
                    age += r.delay_ms;
                    out.push(r.delay_ms);
                }
                Err(why) => return (out, why),
            }
        }
    }

    #[test]
    fn backoff_makes_three_retries_ten_to_twenty_seconds_apart() {
        for seed in 0..200 {
            let (w, why) = waits(Strategy::Backoff, true, seed);
            assert_eq!(w.len(), 3);
            assert!(w.iter().all(|d| (10_000..=20_000).contains(d)), "{w:?}");
            assert_eq!(why, Some(BY_ATTEMPTS));
        }
        let (w, _) = waits(Strategy::Backoff, false, 1);
        assert_eq!(w, [15_000, 15_000, 15_000]);
        let spread: std::collections::BTreeSet<Millis> = (0..50)
            .flat_map(|s| waits(Strategy::Backoff, true, s).0)
            .collect();
        assert!(spread.len() > 100, "random, not fixed");
    }

    #[test]
    fn exponential_decay_doubles_to_512_and_fits_in_a_day() {
        for jitter in [true, false] {
            let (w, why) = waits(Strategy::ExponentialDecay, jitter, 3);
            assert_eq!(w.len(), 176);
            let seconds: Vec<Millis> = w.iter().map(|d| d / 1000).collect();
            assert_eq!(seconds[..10], [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
            assert!(seconds[9..].iter().all(|&s| s == 512));
            assert_eq!(seconds[9..].len(), 167);
            assert_eq!(w.iter().sum::<Millis>(), 86_015_000);
            assert_eq!(why, Some(BY_ATTEMPTS));
        }
    }

    #[test]
    fn the_day_caps_decay_when_attempts_take_time() {
        let policy = StreamRetry(Strategy::ExponentialDecay);
        let mut rng = Rng::new(1);
        let late = policy.retry(100, &failed(None), 86_000_000, &mut rng, false);
        assert_eq!(late, Err(Some(BY_AGE)));
    }

    #[test]
    fn resource_errors_are_not_retried() {
        let policy = StreamRetry(Strategy::Backoff);
        let mut rng = Rng::new(1);
        for code in [
            "AWS.SimpleQueueService.NonExistentQueue",
            "RESOURCE_NOT_FOUND",
        ] {
            let r = policy.retry(1, &failed(Some(code)), 0, &mut rng, true);
            assert_eq!(r, Err(Some(NON_RETRYABLE)), "{code}");
        }
        let client_error = Outcome::Permanent(Failure::Status(400));
        assert!(policy.retry(1, &client_error, 0, &mut rng, true).is_ok());
    }
}
