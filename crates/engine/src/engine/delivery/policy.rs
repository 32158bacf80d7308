//! Retry schedules: the trait each service's schedule implements (pure, so each is unit-tested
//! on its own), the retry it decides, the policy of no retries, and the one capped exponential
//! backoff the services' schedules share with their own constants.
//! Part of the engine: it depends on nothing above it.

use super::outcome::Outcome;
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use std::marker::PhantomData;

/// The next retry after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    pub delay_ms: Millis,
    /// How the log names the retry (SNS: `immediate`, `pre-backoff`, `backoff`, `post-backoff`).
    pub phase: &'static str,
}

/// The random draws a retry's delay may make: the seeded generator, and whether jitter is on
/// (`--jitter`). Policies draw only through it, so a seeded run makes the same draws every time.
#[derive(Debug)]
pub struct Draw<'a> {
    pub rng: &'a mut Rng,
    pub jitter: bool,
}

impl Draw<'_> {
    /// The generator to draw from when jitter is on; `None` keeps delays at their nominal value.
    pub fn random(&mut self) -> Option<&mut Rng> {
        self.jitter.then_some(&mut *self.rng)
    }
}

/// The retry a policy decides, or why there is none: the name of the limit that ended the
/// retries, where the service reports one (EventBridge: `MaximumRetryAttempts`,
/// `MaximumEventAgeInSeconds`).
pub type Verdict = Result<Retry, Option<&'static str>>;

/// A retry schedule: pure, so each service's schedule is unit-tested on its own.
pub trait RetryPolicy: Send + Debug {
    /// The retry after `attempts` attempts have failed (1 = the first attempt), or `None` when
    /// the policy is exhausted.
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry>;

    /// The retry after a failed attempt that ended with `outcome`; schedules that depend on the
    /// kind of failure (SNS to Firehose: throttling) look at it.
    fn after(&self, attempts: u32, _outcome: &Outcome, draw: &mut Draw) -> Option<Retry> {
        self.next(attempts, draw.rng, draw.jitter)
    }

    /// The retry after a failed attempt when the message is `age_ms` old, or the limit that
    /// ended the retries.
    fn decide(
        &self,
        attempts: u32,
        outcome: &Outcome,
        _age_ms: Millis,
        draw: &mut Draw,
    ) -> Verdict {
        self.after(attempts, outcome, draw).ok_or(None)
    }

    /// Whether failures that are not worth retrying elsewhere (4xx, a missing target, a failed
    /// transformation) are retried under this policy too (the custom bus retries every failure).
    fn retries_permanent(&self) -> bool {
        false
    }

    /// The wait after the `failures`-th failure inside the emulator itself (see
    /// [`Delivery::internal_faults`]): such failures are retried without limit.
    fn internal_delay_ms(&self, _failures: u32, _draw: &mut Draw) -> Millis {
        1000
    }

    /// [`RetryPolicy::after`] with the generator and the flag apart, as the tests hold them.
    #[cfg(any(test, feature = "test-support"))]
    fn next_after(
        &self,
        attempts: u32,
        outcome: &Outcome,
        rng: &mut Rng,
        jitter: bool,
    ) -> Option<Retry> {
        self.after(attempts, outcome, &mut Draw { rng, jitter })
    }

    /// [`RetryPolicy::decide`] with the generator and the flag apart, as the tests hold them.
    #[cfg(any(test, feature = "test-support"))]
    fn retry(
        &self,
        attempts: u32,
        outcome: &Outcome,
        age_ms: Millis,
        rng: &mut Rng,
        jitter: bool,
    ) -> Verdict {
        self.decide(attempts, outcome, age_ms, &mut Draw { rng, jitter })
    }
}

/// One attempt and no retries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NoRetries;

impl RetryPolicy for NoRetries {
    fn next(&self, _: u32, _: &mut Rng, _: bool) -> Option<Retry> {
        None
    }
}

/// A boxed policy is a policy (the engine's own tests use them).
impl RetryPolicy for Box<dyn RetryPolicy> {
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry> {
        (**self).next(attempts, rng, jitter)
    }

    fn after(&self, attempts: u32, outcome: &Outcome, draw: &mut Draw) -> Option<Retry> {
        (**self).after(attempts, outcome, draw)
    }

    fn decide(&self, attempts: u32, outcome: &Outcome, age_ms: Millis, draw: &mut Draw) -> Verdict {
        (**self).decide(attempts, outcome, age_ms, draw)
    }

    fn retries_permanent(&self) -> bool {
        (**self).retries_permanent()
    }

    fn internal_delay_ms(&self, failures: u32, draw: &mut Draw) -> Millis {
        (**self).internal_delay_ms(failures, draw)
    }
}

/// The limits a retry schedule may end by, as EventBridge names them.
pub const BY_ATTEMPTS: &str = "MaximumRetryAttempts";
pub const BY_AGE: &str = "MaximumEventAgeInSeconds";

/// Exponential backoff with a cap: `min(base · 2^(n−1), cap)` before retry `n`, times a random
/// factor in [0.9, 1.1) when jitter is on. Each service has its constants: classic EventBridge
/// targets 1 s and 512 s, custom-bus subscribers 10 s and 300 s, event streams' exponential
/// decay 1 s and 512 s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    pub base_ms: Millis,
    pub cap_ms: Millis,
}

impl Backoff {
    /// The nominal wait before retry `n` (1 = the first retry).
    pub fn nominal_ms(self, n: u32) -> Millis {
        let shift = n.saturating_sub(1).min(20);
        self.base_ms.saturating_mul(1 << shift).min(self.cap_ms)
    }

    /// The wait before retry `n`, times a random factor in [0.9, 1.1) when jitter is on.
    pub fn delay_ms(self, n: u32, draw: &mut Draw) -> Millis {
        let nominal = self.nominal_ms(n);
        match draw.random() {
            Some(rng) => (nominal as f64 * (0.9 + 0.2 * rng.next_f64())).round() as Millis,
            None => nominal,
        }
    }

    /// The retry after `attempts` failed attempts of an event `age_ms` old, under at most
    /// `max_retries` retries and `max_age_ms` of age (checked in that order), or the limit hit.
    pub fn within(
        self,
        (max_retries, max_age_ms): (u32, Millis),
        attempts: u32,
        age_ms: Millis,
        draw: &mut Draw,
    ) -> Verdict {
        let retries = attempts.saturating_sub(1);
        if retries >= max_retries {
            return Err(Some(BY_ATTEMPTS));
        }
        let delay_ms = self.delay_ms(retries + 1, draw);
        // No attempt is made once the event is older than the limit.
        if age_ms + delay_ms > max_age_ms {
            return Err(Some(BY_AGE));
        }
        Ok(Retry {
            delay_ms,
            phase: "retry",
        })
    }
}

/// The constants a service gives the capped-backoff retry policy ([`BackoffRetry`]).
pub trait BackoffSchedule: Debug + Clone + Copy + PartialEq + Send + 'static {
    const BACKOFF: Backoff;
    const MAX_RETRIES: u32;
    const MAX_AGE_MS: Millis;
    /// Every failure is retried, those not worth retrying elsewhere included, and failures inside
    /// the emulator wait as retries do (the custom bus's subscribers).
    const RETRIES_EVERY_FAILURE: bool;
}

/// Retries under `S`'s capped backoff until `max_retries` retries were made or the message is
/// `max_age_ms` old, whichever comes first (the attempt limit is checked first).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct BackoffRetry<S> {
    pub max_retries: u32,
    pub max_age_ms: Millis,
    #[serde(skip)]
    pub schedule: PhantomData<S>,
}

impl<S: BackoffSchedule> Default for BackoffRetry<S> {
    fn default() -> Self {
        BackoffRetry {
            max_retries: S::MAX_RETRIES,
            max_age_ms: S::MAX_AGE_MS,
            schedule: PhantomData,
        }
    }
}

impl<S: BackoffSchedule> BackoffRetry<S> {
    /// The nominal wait before retry `n` (1 = the first retry).
    pub fn nominal_ms(n: u32) -> Millis {
        S::BACKOFF.nominal_ms(n)
    }

    /// The wait before retry `n`, with jitter when it is on.
    pub fn delay_ms(n: u32, rng: &mut Rng, jitter: bool) -> Millis {
        S::BACKOFF.delay_ms(n, &mut Draw { rng, jitter })
    }
}

impl<S: BackoffSchedule> RetryPolicy for BackoffRetry<S> {
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry> {
        let retries = attempts.saturating_sub(1);
        (retries < self.max_retries).then(|| Retry {
            delay_ms: Self::delay_ms(retries + 1, rng, jitter),
            phase: "retry",
        })
    }

    fn decide(&self, attempts: u32, _: &Outcome, age_ms: Millis, draw: &mut Draw) -> Verdict {
        let limits = (self.max_retries, self.max_age_ms);
        S::BACKOFF.within(limits, attempts, age_ms, draw)
    }

    fn retries_permanent(&self) -> bool {
        S::RETRIES_EVERY_FAILURE
    }

    fn internal_delay_ms(&self, failures: u32, draw: &mut Draw) -> Millis {
        match S::RETRIES_EVERY_FAILURE {
            true => S::BACKOFF.delay_ms(failures, draw),
            false => 1000,
        }
    }
}

/// For the services' tests: every attempt's time (ms after the first) when each attempt ends in
/// `outcome`, until `policy` stops, and why it stopped. The random generator is seeded (7).
/// Outside this crate's tests, only with the `test-support` feature (the root crate's tests).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub fn schedule(
    policy: &impl RetryPolicy,
    outcome: &Outcome,
    jitter: bool,
) -> (Vec<Millis>, Option<&'static str>) {
    let mut rng = Rng::new(7);
    let (mut at, mut times) = (0, vec![0]);
    loop {
        match policy.retry(times.len() as u32, outcome, at, &mut rng, jitter) {
            Ok(r) => {
                at += r.delay_ms;
                times.push(at);
            }
            Err(why) => return (times, why),
        }
    }
}
