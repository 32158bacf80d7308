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

use super::{Context, typed};
use crate::error::AwsError;
use crate::state::State;
use serde_json::Value;

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

pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    use archives::replays::*;
    use archives::*;
    use buses::*;
    use connections::destinations::*;
    use connections::*;
    use partners::*;
    use rules::*;
    match operation {
        "CreateEventBus" => typed(input, |i| create_event_bus(e, cx, i)),
        "DescribeEventBus" => typed(input, |i| describe_event_bus(e, cx, i)),
        "UpdateEventBus" => typed(input, |i| update_event_bus(e, cx, i)),
        "DeleteEventBus" => typed(input, |i| delete_event_bus(e, cx, i)),
        "ListEventBuses" => typed(input, |i| list_event_buses(e, cx, i)),
        "PutPermission" => typed(input, |i| put_permission(e, cx, i)),
        "RemovePermission" => typed(input, |i| remove_permission(e, cx, i)),
        "TagResource" => typed(input, |i| tag_resource(e, cx, i)),
        "UntagResource" => typed(input, |i| untag_resource(e, cx, i)),
        "ListTagsForResource" => typed(input, |i| list_tags_for_resource(e, cx, i)),
        "PutRule" => typed(input, |i| put_rule(e, cx, i)),
        "DescribeRule" => typed(input, |i| describe_rule(e, cx, i)),
        "EnableRule" => typed(input, |i| set_rule_state(e, cx, i, "ENABLED")),
        "DisableRule" => typed(input, |i| set_rule_state(e, cx, i, "DISABLED")),
        "DeleteRule" => typed(input, |i| delete_rule(e, cx, i)),
        "ListRules" => typed(input, |i| list_rules(e, cx, i)),
        "ListRuleNamesByTarget" => typed(input, |i| list_rule_names_by_target(e, cx, i)),
        "PutTargets" => typed(input, |i| put_targets(e, cx, i)),
        "RemoveTargets" => typed(input, |i| remove_targets(e, cx, i)),
        "ListTargetsByRule" => typed(input, |i| list_targets_by_rule(e, cx, i)),
        "TestEventPattern" => typed(input, test_event_pattern),
        "PutEvents" => typed(input, |i| put_events::put_events(e, cx, i)),
        "CreateArchive" => typed(input, |i| create_archive(e, cx, i)),
        "DescribeArchive" => typed(input, |i| describe_archive(e, cx, i)),
        "UpdateArchive" => typed(input, |i| update_archive(e, cx, i)),
        "DeleteArchive" => typed(input, |i| delete_archive(e, cx, i)),
        "ListArchives" => typed(input, |i| list_archives(e, cx, i)),
        "StartReplay" => typed(input, |i| start_replay(e, cx, i)),
        "DescribeReplay" => typed(input, |i| describe_replay(e, cx, i)),
        "CancelReplay" => typed(input, |i| cancel_replay(e, cx, i)),
        "ListReplays" => typed(input, |i| list_replays(e, cx, i)),
        "CreateConnection" => typed(input, |i| create_connection(e, cx, i)),
        "UpdateConnection" => typed(input, |i| update_connection(e, cx, i)),
        "DescribeConnection" => typed(input, |i| describe_connection(e, cx, i)),
        "DeleteConnection" => typed(input, |i| delete_connection(e, cx, i)),
        "DeauthorizeConnection" => typed(input, |i| deauthorize_connection(e, cx, i)),
        "ListConnections" => typed(input, |i| list_connections(e, cx, i)),
        "CreateApiDestination" => typed(input, |i| create_api_destination(e, cx, i)),
        "DescribeApiDestination" => typed(input, |i| describe_api_destination(e, cx, i)),
        "UpdateApiDestination" => typed(input, |i| update_api_destination(e, cx, i)),
        "DeleteApiDestination" => typed(input, |i| delete_api_destination(e, cx, i)),
        "ListApiDestinations" => typed(input, |i| list_api_destinations(e, cx, i)),
        "CreatePartnerEventSource" => typed(input, |i| create_partner_event_source(e, cx, i)),
        "DeletePartnerEventSource" => typed(input, |i| delete_partner_event_source(e, cx, i)),
        "DescribePartnerEventSource" => typed(input, |i| describe_partner_event_source(e, cx, i)),
        "ListPartnerEventSources" => typed(input, |i| list_partner_event_sources(e, cx, i)),
        "ListPartnerEventSourceAccounts" => {
            typed(input, |i| list_partner_event_source_accounts(e, cx, i))
        }
        "PutPartnerEvents" => typed(input, |i| put_partner_events(e, cx, i)),
        "DescribeEventSource" => typed(input, |i| describe_event_source(e, cx, i)),
        "ListEventSources" => typed(input, |i| list_event_sources(e, cx, i)),
        "ActivateEventSource" => typed(input, |i| set_event_source_active(e, cx, i, true)),
        "DeactivateEventSource" => typed(input, |i| set_event_source_active(e, cx, i, false)),
        _ => Err(super::not_yet(operation)),
    }
}
