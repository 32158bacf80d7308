//! What the dispatcher does with what the engine hands back: services' steps when due, hand-overs
//! to services of this emulator, dead letters, the ends of followed deliveries, and arrivals
//! (event streams look, long polls wake). Each piece of work runs to the end, and whatever it
//! sets off runs before the next piece: the order a synchronous cascade would have.
//! It must not depend on the runtime, the protocols or the server.

use crate::engine::Fired;
use crate::engine::delivery::{Failure, Outcome, SqsMessage, Target, Work};
use crate::services::target::Hop;
use crate::services::{bus, events, lambda, pipes, scheduler, sns, sqs, streams};
use crate::state::{State, Step};

impl State {
    /// Carries out a fired timer.
    pub(super) fn fired(&mut self, fired: Fired<Step>) {
        match fired {
            Fired::Engine => {}
            Fired::Wake(key) => self.woken.push(key),
            Fired::Service(step) => self.step(step),
        }
        self.run_to_the_end();
    }

    fn step(&mut self, step: Step) {
        match step {
            Step::Events(timer) => events::fire(self, timer),
            Step::Stream(timer) => streams::fire(self, timer),
            Step::Pipe(timer) => pipes::fire(self, timer),
            Step::SqsMoveTask(id) => {
                sqs::moves::step(self, id);
                // Moved messages arrive in queues that event streams and pipes may read.
                streams::wake_all(self);
                pipes::wake_all(self);
                lambda::mappings::wake_all(self);
            }
            Step::StreamDelivered { .. } | Step::PipeDelivered { .. } => {}
            Step::Scheduler(timer) => scheduler::fire(self, timer),
            Step::LambdaMapping(timer) => lambda::mappings::fire(self, timer),
            Step::LambdaEventEnded(_) | Step::LambdaBatchEnded { .. } => {}
        }
    }

    /// Runs the work the engine handed back, and the work that work sets off, to the end.
    ///
    /// Depth first, by a loop over one list rather than by recursion: the work a piece sets off
    /// goes to the front of the list, in the order it was set off, so it runs before the pieces
    /// that were waiting, as a synchronous call chain would run it. There is one loop: a settle
    /// started while one is under way (a service delivering, [`State::deliver`], inside a
    /// hand-over to a topic or a bus) does nothing, and the loop under way takes the work that
    /// delivery set off next, before the pieces that were waiting.
    ///
    /// An operation a target started (Scheduler's universal targets) is not run inside the
    /// settle: it waits in a queue until the work is done, then runs as a request's operation
    /// would, with its own settle, and its delivery completes with how it ended.
    pub(super) fn run_to_the_end(&mut self) {
        if self.settling {
            return;
        }
        self.settling = true;
        loop {
            self.run_work();
            let Some((delivery, target)) = self.calls.pop_front() else {
                break;
            };
            let outcome = Outcome::in_process(self.hand_over(target));
            self.arrivals();
            self.engine.complete(delivery, outcome);
        }
        self.settling = false;
    }

    /// The loop of [`State::run_to_the_end`] over the work the engine handed back.
    fn run_work(&mut self) {
        self.arrivals();
        let mut work = self.engine.take_work();
        while let Some(w) = work.pop_front() {
            self.run(w);
            self.arrivals();
            let mut set_off = self.engine.take_work();
            while let Some(w) = set_off.pop_back() {
                work.push_front(w);
            }
            self.engine.recycle_work(set_off);
        }
        self.engine.recycle_work(work);
    }

    /// Carries out one piece of work; [`State::run_to_the_end`] runs what it sets off.
    fn run(&mut self, work: Work<Step>) {
        match work {
            Work::HandOver { delivery, target } => {
                match (self.refusal(delivery, &target), target) {
                    (Some(failure), Target::SqsBatch { entries, .. }) => {
                        self.engine
                            .complete_batch(delivery, Outcome::Permanent(failure), entries);
                    }
                    (Some(failure), _) => {
                        self.engine.complete(delivery, Outcome::Permanent(failure))
                    }
                    (None, Target::SqsBatch { queue_arn, entries }) => {
                        let (outcome, refused) = sqs::send_batch(self, &queue_arn, entries);
                        self.arrivals();
                        self.engine.complete_batch(delivery, outcome, refused);
                    }
                    (None, target @ Target::Call { .. }) => {
                        self.calls.push_back((delivery, target))
                    }
                    (None, target) => {
                        let outcome = Outcome::in_process(self.hand_over(target));
                        self.arrivals();
                        self.engine.complete(delivery, outcome);
                    }
                }
            }
            Work::DeadLetter {
                delivery,
                letter,
                message,
            } => {
                let written = (letter.bus.is_some()
                    || self.dead_letter_allowed(delivery, &letter.queue_arn))
                    && self.write_dead_letter(&letter.queue_arn, letter.bus, message);
                self.engine.dead_letter_written(delivery, written);
            }
            Work::Ended {
                then,
                ending,
                last,
                answer,
                attempts,
                exhausted,
            } => match then {
                Step::StreamDelivered { stream, token } => {
                    streams::delivered(self, &stream, token, ending, last.as_ref());
                }
                Step::PipeDelivered { pipe, token, stage } => {
                    pipes::delivered(self, &pipe, token, stage, ending, answer);
                }
                Step::LambdaEventEnded(event) => {
                    let last = last.as_ref();
                    let how = (ending, last, answer, attempts, exhausted);
                    lambda::asynchronous::ended(self, &event, how);
                }
                Step::LambdaBatchEnded { uuid, token } => {
                    lambda::mappings::batch_ended(self, &uuid, token, ending, answer);
                }
                _ => {}
            },
        }
    }

    /// Why the target's policy refuses a hand-over by SNS or EventBridge, if it does: the
    /// service acts for the topic or rule of the delivery's source (docs/policies.md).
    fn refusal(
        &self,
        delivery: crate::engine::delivery::DeliveryId,
        target: &Target,
    ) -> Option<Failure> {
        let (principal, source_arn) = self.acting_as(delivery)?;
        let enforce = self.enforce_policies;
        match target {
            Target::Sqs { queue_arn, .. } | Target::SqsBatch { queue_arn, .. } => {
                let allowed =
                    sqs::access::delivery_allowed(self, queue_arn, principal, source_arn, enforce);
                (!allowed).then_some(Failure::AccessDenied("AccessDenied"))
            }
            Target::Sns { topic_arn, .. } => {
                let allowed =
                    sns::access::delivery_allowed(self, topic_arn, principal, source_arn, enforce);
                (!allowed).then_some(Failure::AccessDenied("AuthorizationError"))
            }
            Target::Lambda { function, .. } => {
                let account = crate::arn::Arn::account_of(source_arn);
                let allowed = lambda::access::invoke_allowed(
                    self,
                    function,
                    principal,
                    Some(source_arn),
                    Some(account),
                    enforce,
                );
                (!allowed).then_some(Failure::AccessDenied("AccessDeniedException"))
            }
            _ => None,
        }
    }

    /// The service principal a delivery by SNS or EventBridge acts as, and the topic or rule it
    /// acts for (the policies' `aws:SourceArn`); `None` for the other services' deliveries.
    fn acting_as(
        &self,
        delivery: crate::engine::delivery::DeliveryId,
    ) -> Option<(&'static str, &str)> {
        let (service, source) = self.engine.delivery_source(delivery)?;
        match service {
            // A subscription's ARN is its topic's and one more part.
            "sns" => Some(("sns.amazonaws.com", crate::arn::Arn::parent(source)?)),
            // A rule target's delivery is named `<rule ARN>#<target id>`.
            "events" => Some(("events.amazonaws.com", crate::arn::Arn::unqualified(source))),
            _ => None,
        }
    }

    /// Whether the dead-letter queue's policy lets SNS or EventBridge write the delivery's dead
    /// letter, as the target's must let it deliver (docs/policies.md).
    fn dead_letter_allowed(
        &self,
        delivery: crate::engine::delivery::DeliveryId,
        queue: &str,
    ) -> bool {
        match self.acting_as(delivery) {
            Some((principal, source_arn)) => sqs::access::delivery_allowed(
                self,
                queue,
                principal,
                source_arn,
                self.enforce_policies,
            ),
            None => true,
        }
    }

    /// Hands a message to a service of this emulator: enqueued, published, or put on a bus.
    fn hand_over(&mut self, target: Target) -> Result<(), Failure> {
        match target {
            Target::Sqs { queue_arn, message } => sqs::enqueue(self, &queue_arn, message),
            Target::Sns {
                topic_arn,
                publisher,
                body,
                group_id,
                dedup_id,
                attributes,
            } => sns::deliver_to_topic(
                self,
                &topic_arn,
                &publisher,
                &body,
                (group_id, dedup_id),
                &attributes,
            ),
            Target::Bus {
                bus_arn,
                publisher,
                event,
                trail,
            } => self.forward(Hop {
                bus_arn: &bus_arn,
                publisher: &publisher,
                event: &event,
                trail,
            }),
            Target::Call {
                service,
                operation,
                input,
                publisher,
                region,
                ..
            } => self.call_by_name(&service, &operation, &input, publisher, region),
            Target::Lambda {
                function,
                publisher,
                payload,
            } => lambda::asynchronous::accept(self, &function, &publisher, payload),
            Target::SqsBatch { .. }
            | Target::Http { .. }
            | Target::Invoke { .. }
            | Target::Outbox { .. } => {
                unreachable!("the engine attempts these itself")
            }
        }
    }

    /// Writes a dead letter: to its queue, or put on its event bus as `bus`.
    fn write_dead_letter(
        &mut self,
        arn: &str,
        bus: Option<crate::engine::delivery::Publisher>,
        message: SqsMessage,
    ) -> bool {
        let written = match bus {
            Some(publisher) => self.forward(Hop {
                bus_arn: arn,
                publisher: &publisher,
                event: &message.body.text(),
                trail: Vec::new(),
            }),
            None => sqs::enqueue(self, arn, message),
        };
        written.is_ok()
    }

    /// Puts `hop`'s event on its bus: a custom bus or EventBridge's.
    fn forward(&mut self, hop: Hop) -> Result<(), Failure> {
        if bus::is_bus_arn(hop.bus_arn) {
            bus::forward(self, hop)
        } else {
            events::forward(self, hop)
        }
    }

    /// Passes what arrived in queues and on buses to the event streams reading them and to the
    /// waiters of those keys.
    fn arrivals(&mut self) {
        let mut arrived = self.engine.take_arrivals();
        for key in arrived.drain(..) {
            streams::wake_source(self, &key);
            pipes::wake_source(self, &key);
            lambda::mappings::wake_source(self, &key);
            if !self.woken.contains(&key) {
                self.woken.push(key);
            }
        }
        self.engine.recycle_arrivals(arrived);
    }
}
