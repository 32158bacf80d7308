//! What the delivery kinds of the state ([`Render`], [`Finish`]) do: they make a Scheduler
//! attempt's target again and complete a dead letter with how its delivery ended, by the
//! services' own functions, which the state below the services cannot name.

use crate::engine::delivery::{
    Finish as FinishTrait, GiveUp, Render as RenderTrait, SqsMessage, Target,
};
use crate::services::{bus, events, scheduler};
use crate::state::{Finish, Render};

impl RenderTrait for Render {
    fn render(&self, first: &Target, n: u32) -> Target {
        match self {
            Render::Scheduler => scheduler::per_attempt(first, n),
        }
    }
}

impl FinishTrait for Finish {
    fn finish(&self, message: &mut SqsMessage, how: &GiveUp) {
        match self {
            Finish::Events => events::dead_letter::finish_dead_letter(message, how),
            Finish::Bus => bus::deliver::finish_record(message, how),
            Finish::Scheduler => {
                scheduler::last_attempt(message, how);
                events::dead_letter::finish_dead_letter(message, how)
            }
        }
    }
}
