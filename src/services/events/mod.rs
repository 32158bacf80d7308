//! Amazon EventBridge (the `AWSEvents` JSON 1.1 API of 2015-10-07): event buses and their
//! policies, rules with event patterns or schedules, targets with retry policies and dead-letter
//! queues, archives and replays, connections and API destinations. Deliveries run on the
//! engine's shared delivery path (`crate::engine::delivery`), as SNS's do.
//!
//! Which way the files depend (no cycles): the leaves `errors`, `checks`, `arns`, `times`,
//! `lookup`, `store`, `schedule`, `retry` and `connections::invocation` import no operation;
//! `buses` imports leaves only; `archives` leaves and `buses`; `put_events` those and the target
//! adapter (`crate::services::target`); `rules`, `partners` and `archives::replays` those and
//! `put_events`.
//! Nothing here imports this file's dispatch ([`call`], [`fire`]).

pub mod access;
mod archives;
pub mod arns;
mod buses;
pub mod checks;
pub mod connections;
pub mod dead_letter;
pub mod errors;
pub mod lookup;
mod partners;
pub mod put_events;
pub use crate::state::events::retry;
mod rules;
pub use crate::state::events::schedule;
pub use crate::state::events::store;
pub mod times;

pub use errors::EventsError;
pub use put_events::forward;
pub use rules::{TriggerError, trigger_schedule};
pub(crate) use times::epoch_seconds;

use super::operations;
use crate::state::State;

pub use store::Timer;

pub fn fire(e: &mut State, timer: Timer) {
    match timer {
        Timer::Schedule {
            rule_arn,
            generation,
        } => rules::fire_schedule(e, &rule_arn, generation),
        Timer::Replay { replay_arn } => archives::step_replay(e, &replay_arn),
    }
}

operations! {
    /// Runs an EventBridge operation.
    "CreateEventBus" => buses::create_event_bus,
    "DescribeEventBus" => buses::describe_event_bus,
    "UpdateEventBus" => buses::update_event_bus,
    "DeleteEventBus" => buses::delete_event_bus,
    "ListEventBuses" => buses::list_event_buses,
    "PutPermission" => buses::put_permission,
    "RemovePermission" => buses::remove_permission,
    "TagResource" => buses::tag_resource,
    "UntagResource" => buses::untag_resource,
    "ListTagsForResource" => buses::list_tags_for_resource,
    "PutRule" => rules::put_rule,
    "DescribeRule" => rules::describe_rule,
    "EnableRule" => |e, cx, i| rules::set_rule_state(e, cx, i, "ENABLED"),
    "DisableRule" => |e, cx, i| rules::set_rule_state(e, cx, i, "DISABLED"),
    "DeleteRule" => rules::delete_rule,
    "ListRules" => rules::list_rules,
    "ListRuleNamesByTarget" => rules::list_rule_names_by_target,
    "PutTargets" => rules::put_targets,
    "RemoveTargets" => rules::remove_targets,
    "ListTargetsByRule" => rules::list_targets_by_rule,
    "TestEventPattern" => |_, _, i| rules::test_event_pattern(i),
    "PutEvents" => put_events::put_events,
    "CreateArchive" => archives::create_archive,
    "DescribeArchive" => archives::describe_archive,
    "UpdateArchive" => archives::update_archive,
    "DeleteArchive" => archives::delete_archive,
    "ListArchives" => archives::list_archives,
    "StartReplay" => archives::replays::start_replay,
    "DescribeReplay" => archives::replays::describe_replay,
    "CancelReplay" => archives::replays::cancel_replay,
    "ListReplays" => archives::replays::list_replays,
    "CreateConnection" => connections::create_connection,
    "UpdateConnection" => connections::update_connection,
    "DescribeConnection" => connections::describe_connection,
    "DeleteConnection" => connections::delete_connection,
    "DeauthorizeConnection" => connections::deauthorize_connection,
    "ListConnections" => connections::list_connections,
    "CreateApiDestination" => connections::destinations::create_api_destination,
    "DescribeApiDestination" => connections::destinations::describe_api_destination,
    "UpdateApiDestination" => connections::destinations::update_api_destination,
    "DeleteApiDestination" => connections::destinations::delete_api_destination,
    "ListApiDestinations" => connections::destinations::list_api_destinations,
    "CreatePartnerEventSource" => partners::create_partner_event_source,
    "DeletePartnerEventSource" => partners::delete_partner_event_source,
    "DescribePartnerEventSource" => partners::describe_partner_event_source,
    "ListPartnerEventSources" => partners::list_partner_event_sources,
    "ListPartnerEventSourceAccounts" => partners::list_partner_event_source_accounts,
    "PutPartnerEvents" => partners::put_partner_events,
    "DescribeEventSource" => partners::describe_event_source,
    "ListEventSources" => partners::list_event_sources,
    "ActivateEventSource" => |e, cx, i| partners::set_event_source_active(e, cx, i, true),
    "DeactivateEventSource" => |e, cx, i| partners::set_event_source_active(e, cx, i, false),
}
