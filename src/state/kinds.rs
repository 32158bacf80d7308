//! The retry policies and dead-letter finishes the services' deliveries use, as values of one
//! type each (not trait objects or function pointers) so that a delivery under way is plain data
//! a state snapshot holds: the engine's [`Layer`] for [`Step`].
//! It must not depend on the runtime, the protocols or the server.

use super::Step;
use crate::engine::delivery::{Draw, Layer, NoRetries, Outcome, Retry, RetryPolicy, Verdict};
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use crate::state::bus::retry::SubscriberRetry;
use crate::state::events::retry::TargetRetry;
use crate::state::lambda::retry::AsyncRetry;
use crate::state::sns::delivery_policy::{Firehose, Schedule};
use crate::state::streams::retry::StreamRetry;
use serde::{Deserialize, Serialize};

impl Layer for Step {
    type Policy = Policy;
    type Finish = Finish;
    type Render = Render;
}

/// How a delivery's target is made again for each attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Render {
    /// EventBridge Scheduler: `<aws.scheduler.attempt-number>` filled in.
    Scheduler,
}

macro_rules! policies {
    ($($(#[$doc:meta])* $variant:ident($ty:ty)),* $(,)?) => {
        /// Every retry schedule a delivery of this emulator follows.
        #[derive(Debug, Clone, Copy, Serialize, Deserialize)]
        pub enum Policy {
            $($(#[$doc])* $variant($ty),)*
        }

        $(impl From<$ty> for Policy {
            fn from(policy: $ty) -> Policy {
                Policy::$variant(policy)
            }
        })*

        impl Policy {
            fn get(&self) -> &dyn RetryPolicy {
                match self {
                    $(Policy::$variant(p) => p,)*
                }
            }
        }
    };
}

policies!(
    /// One attempt (SMS, push, pipes).
    NoRetries(NoRetries),
    /// An SNS delivery policy (HTTP/S, and the fixed schedules of the other protocols).
    Sns(Schedule),
    /// SNS to Firehose.
    Firehose(Firehose),
    /// EventBridge rule targets and Scheduler targets.
    Target(TargetRetry),
    /// Custom-bus subscribers.
    Subscriber(SubscriberRetry),
    /// Event streams.
    Stream(StreamRetry),
    /// Lambda's asynchronous invocations.
    LambdaAsync(AsyncRetry),
);

impl RetryPolicy for Policy {
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry> {
        self.get().next(attempts, rng, jitter)
    }

    fn after(&self, attempts: u32, outcome: &Outcome, draw: &mut Draw) -> Option<Retry> {
        self.get().after(attempts, outcome, draw)
    }

    fn decide(&self, attempts: u32, outcome: &Outcome, age_ms: Millis, draw: &mut Draw) -> Verdict {
        self.get().decide(attempts, outcome, age_ms, draw)
    }

    fn retries_permanent(&self) -> bool {
        self.get().retries_permanent()
    }

    fn internal_delay_ms(&self, failures: u32, draw: &mut Draw) -> Millis {
        self.get().internal_delay_ms(failures, draw)
    }
}

/// How a dead letter is completed with how its delivery ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Finish {
    /// EventBridge rule targets: the `ERROR_CODE`, `ERROR_MESSAGE`, `RULE_ARN`, ... attributes.
    Events,
    /// Custom-bus subscribers: the failure record.
    Bus,
    /// EventBridge Scheduler: the body made the last attempt's input, then EventBridge's
    /// attributes (its own `SCHEDULE_ARN`, `EXECUTION_ID`, ... are set when the run starts).
    Scheduler,
}
