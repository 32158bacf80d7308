//! The retries of an asynchronous invocation (the Lambda developer guide, "How Lambda handles
//! errors and retries with asynchronous invocation"):
//!
//! - a function error (the code threw, timed out, or its runtime failed) is retried
//!   `MaximumRetryAttempts` times (0–2, default 2), one minute after the first attempt and two
//!   minutes after the second;
//! - a throttle or a system error returns the event to the function's queue, tried again after
//!   a wait that doubles from one second up to five minutes, for as long as the event is younger
//!   than `MaximumEventAgeInSeconds` (60–21,600, default 21,600: six hours);
//! - any retry that would come after the event's maximum age is not made.
//!
//! switchyard counts every attempt of the event toward `MaximumRetryAttempts`, throttled ones
//! included (AWS counts the function's errors alone); its delays have no jitter.
//! Pure: the engine's values only.

use crate::engine::delivery::{
    BY_AGE, BY_ATTEMPTS, Draw, Failure, Outcome, Retry, RetryPolicy, Verdict,
};
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use serde::{Deserialize, Serialize};

pub(crate) const DEFAULT_MAX_RETRIES: u32 = 2;
pub(crate) const DEFAULT_MAX_AGE_SECONDS: u32 = 21_600;
/// The waits after a function error: before the first retry, and before the second.
const FUNCTION_ERROR_DELAYS_MS: [Millis; 2] = [60_000, 120_000];
/// The wait after a throttle or a system error doubles from this ...
const BACKOFF_BASE_MS: Millis = 1_000;
/// ... up to this.
const BACKOFF_CAP_MS: Millis = 300_000;

/// An asynchronous invocation's retry policy (its function's event invoke configuration).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AsyncRetry {
    pub max_retries: u32,
    pub max_age_ms: Millis,
}

impl Default for AsyncRetry {
    fn default() -> Self {
        AsyncRetry {
            max_retries: DEFAULT_MAX_RETRIES,
            max_age_ms: Millis::from(DEFAULT_MAX_AGE_SECONDS) * 1000,
        }
    }
}

impl AsyncRetry {
    /// The wait after `attempts` attempts ended in throttles or system errors.
    fn backoff_ms(attempts: u32) -> Millis {
        let shift = attempts.saturating_sub(1).min(20);
        BACKOFF_BASE_MS
            .saturating_mul(1 << shift)
            .min(BACKOFF_CAP_MS)
    }
}

impl RetryPolicy for AsyncRetry {
    fn next(&self, attempts: u32, _rng: &mut Rng, _jitter: bool) -> Option<Retry> {
        let retries = attempts.saturating_sub(1);
        (retries < self.max_retries).then(|| Retry {
            delay_ms: FUNCTION_ERROR_DELAYS_MS
                .get(retries as usize)
                .copied()
                .unwrap_or(120_000),
            phase: "retry",
        })
    }

    fn decide(&self, attempts: u32, outcome: &Outcome, age_ms: Millis, draw: &mut Draw) -> Verdict {
        let function_error = outcome
            .failure()
            .is_some_and(|f| f.meaning() == Failure::Function);
        let retry = match function_error {
            true => self
                .next(attempts, draw.rng, draw.jitter)
                .ok_or(Some(BY_ATTEMPTS))?,
            false => Retry {
                delay_ms: Self::backoff_ms(attempts),
                phase: "backoff",
            },
        };
        if age_ms + retry.delay_ms > self.max_age_ms {
            return Err(Some(BY_AGE));
        }
        Ok(retry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::delivery::schedule;

    #[test]
    fn function_errors_are_retried_after_one_minute_then_two() {
        let failed = Outcome::Retryable(Failure::Function);
        let (times, why) = schedule(&AsyncRetry::default(), &failed, false);
        assert_eq!(times, [0, 60_000, 180_000]);
        assert_eq!(why, Some(BY_ATTEMPTS));
        let none = AsyncRetry {
            max_retries: 0,
            ..AsyncRetry::default()
        };
        assert_eq!(
            schedule(&none, &failed, false),
            (vec![0], Some(BY_ATTEMPTS))
        );
        let young = AsyncRetry {
            max_age_ms: 100_000,
            ..AsyncRetry::default()
        };
        assert_eq!(
            schedule(&young, &failed, false),
            (vec![0, 60_000], Some(BY_AGE))
        );
    }

    #[test]
    fn throttles_back_off_up_to_five_minutes_until_the_event_is_too_old() {
        let throttled = Outcome::Retryable(Failure::Status(429));
        let (times, why) = schedule(&AsyncRetry::default(), &throttled, false);
        assert_eq!(why, Some(BY_AGE));
        assert_eq!(&times[..6], [0, 1_000, 3_000, 7_000, 15_000, 31_000]);
        let gaps: Vec<Millis> = times.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.iter().all(|g| *g <= 300_000));
        assert!(*times.last().unwrap() <= 21_600_000);
        assert!(*times.last().unwrap() > 21_600_000 - 300_000);
    }
}
