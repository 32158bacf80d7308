//! The dispatcher: above the services, it routes operations to them by name, runs what the
//! engine hands back (services' steps when due, in-process hand-overs, dead letters, the ends of
//! followed deliveries, arrivals) and settles each cascade by a loop over one work list. It
//! applies the runtime's [`commands`] to the state, and is the only way the runtime changes it.
//!
//! The services work on the state below them (`State`) and never see this module: what a
//! request, a clock advance or an HTTP answer starts goes through [`Dispatch`], a trait the
//! runtime imports. The state settles the cascade of a delivery a service starts with
//! [`settle`], the function it is given when it is made ([`new_state`], [`read_snapshot`]).
//! It must not depend on the runtime, the protocols or the server.
// What a client sends reaches this code through the services: no `unwrap`, `expect` or indexing
// that could panic on it (tests may); each one left is allowed in place with the reason it cannot
// fail.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod calls;
pub mod commands;
mod kinds;
mod steps;
#[cfg(test)]
mod tests;

use crate::engine::Settings;
use crate::engine::time::Millis;
use crate::error::{Answer, AwsError};
use crate::services::sqs::messages::Wait;
use crate::services::{Context, ServiceId};
use crate::state::State;
use crate::state::snapshot::SnapshotError;
use crate::state::sqs::shapes::{ReceiveMessageInput, ReceiveMessageOutput};
use commands::{Applied, Command};
use serde_json::Value;
use std::collections::HashMap;

/// What the layers above the services (the runtime, the server's tools, tests) do to the state.
pub trait Dispatch {
    /// Runs `operation` of `service` on its input (the model's JSON form), then whatever it set
    /// off (in-process deliveries, arrivals).
    fn call(&mut self, cx: &Context, service: ServiceId, operation: &str, input: Value) -> Answer;

    /// Runs the work the engine handed back, and the work that work sets off, to the end.
    fn settle(&mut self);

    /// Fires the timers due at the earliest instant at or before `limit`, with `now` set to that
    /// instant, including timers scheduled for the same instant while they fire. Answers how
    /// many fired, or `None` when no timer is due by `limit`.
    fn fire_next(&mut self, limit: Millis) -> Option<usize>;

    /// Fires everything due up to `limit` in due order, then moves `now` to `limit`.
    fn run_until(&mut self, limit: Millis) -> usize;

    /// Applies `command` at the current virtual time: what the runtime does for a live request,
    /// and what a restart does for each journal entry.
    fn apply(&mut self, command: Command) -> Applied;

    /// One look of ReceiveMessage at its queue, under the lock: the messages received, or
    /// `None` when the long poll must wait (`wait` is settled by the first look).
    fn receive_look(
        &mut self,
        cx: &Context,
        input: &ReceiveMessageInput,
        wait: &mut Option<Wait>,
    ) -> Result<Option<ReceiveMessageOutput>, AwsError>;
}

impl Dispatch for State {
    fn call(&mut self, cx: &Context, service: ServiceId, operation: &str, input: Value) -> Answer {
        self.authorize(cx, service, operation, &input)?;
        let output = calls::service_call(service, operation)(self, cx, operation, input);
        self.run_to_the_end();
        output
    }

    fn settle(&mut self) {
        settle(self)
    }

    fn fire_next(&mut self, limit: Millis) -> Option<usize> {
        let first = self.engine.fire_one(limit)?;
        self.fired(first);
        let (now, mut count) = (self.now(), 1);
        while let Some(fired) = self.engine.fire_one(now) {
            count += 1;
            self.fired(fired);
        }
        Some(count)
    }

    fn run_until(&mut self, limit: Millis) -> usize {
        let mut count = 0;
        while let Some(n) = self.fire_next(limit) {
            count += n;
        }
        self.engine.move_to(limit);
        count
    }

    fn apply(&mut self, command: Command) -> Applied {
        self.apply_command(command)
    }

    fn receive_look(
        &mut self,
        cx: &Context,
        input: &ReceiveMessageInput,
        wait: &mut Option<Wait>,
    ) -> Result<Option<ReceiveMessageOutput>, AwsError> {
        self.receive(cx, input, wait)
    }
}

/// The settle a state is given (`state::Settle`): the loop of `steps.rs`.
pub fn settle(state: &mut State) {
    state.run_to_the_end();
}

/// A state at the settings' start with no resources, settling with this dispatcher.
pub fn new_state(settings: Settings, lambda_endpoints: HashMap<String, String>) -> State {
    State::new(settings, lambda_endpoints, settle)
}

/// A state read from a snapshot file (`State::read_snapshot`), settling with this dispatcher.
pub fn read_snapshot(
    bytes: &[u8],
    lambda_endpoints: HashMap<String, String>,
    enforce_policies: bool,
) -> Result<State, SnapshotError> {
    State::read_snapshot(bytes, lambda_endpoints, enforce_policies, settle)
}

impl State {
    /// A state for unit tests: time `start`, seed 1, no jitter, a small delivery log.
    #[cfg(test)]
    pub fn for_tests(start: Millis) -> State {
        let settings = Settings {
            start,
            seed: 1,
            jitter: false,
            delivery_log_size: 100,
        };
        new_state(settings, HashMap::new())
    }
}
