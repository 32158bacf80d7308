//! Retry schedules: the trait each service's schedule implements (pure, so each is unit-tested
//! on its own), the retry it decides, and the policy of no retries.

use super::outcome::Outcome;
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use std::fmt::Debug;

/// The next retry after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    pub delay_ms: Millis,
    /// How the log names the retry (SNS: `immediate`, `pre-backoff`, `backoff`, `post-backoff`).
    pub phase: &'static str,
}

/// A retry schedule: pure, so each service's schedule is unit-tested on its own.
pub trait RetryPolicy: Send + Debug {
    /// The retry after `attempts` attempts have failed (1 = the first attempt), or `None` when
    /// the policy is exhausted.
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry>;

    /// The retry after a failed attempt that ended with `outcome`; schedules that depend on the
    /// kind of failure (SNS to Firehose: throttling) look at it.
    fn next_after(
        &self,
        attempts: u32,
        _outcome: &Outcome,
        rng: &mut Rng,
        jitter: bool,
    ) -> Option<Retry> {
        self.next(attempts, rng, jitter)
    }

    /// The retry after a failed attempt when the message is `age_ms` old, or why there is none:
    /// the name of the limit that ended it, where the service reports one (EventBridge:
    /// `MaximumRetryAttempts`, `MaximumEventAgeInSeconds`).
    fn retry(
        &self,
        attempts: u32,
        outcome: &Outcome,
        _age_ms: Millis,
        rng: &mut Rng,
        jitter: bool,
    ) -> Result<Retry, Option<&'static str>> {
        self.next_after(attempts, outcome, rng, jitter).ok_or(None)
    }

    /// Whether failures that are not worth retrying elsewhere (4xx, a missing target, a failed
    /// transformation) are retried under this policy too (the custom bus retries every failure).
    fn retries_permanent(&self) -> bool {
        false
    }

    /// The wait after the `failures`-th failure inside the emulator itself (see
    /// [`Delivery::internal_faults`]): such failures are retried without limit.
    fn internal_delay_ms(&self, _failures: u32, _rng: &mut Rng, _jitter: bool) -> Millis {
        1000
    }
}

/// One attempt and no retries.
#[derive(Debug, Clone, Copy)]
pub struct NoRetries;

impl RetryPolicy for NoRetries {
    fn next(&self, _: u32, _: &mut Rng, _: bool) -> Option<Retry> {
        None
    }
}
