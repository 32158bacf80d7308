//! Looking up the bus a request names (the `default` bus made on first use) and how every
//! classic List operation pages. A leaf over the events store: it must not depend on any
//! operation of `events`.

use super::arns::resolve_bus;
use super::errors::{EventsError, constraint};
use super::store::Bus;
use crate::services::Context;
use crate::services::page::{Pager, Sizes, Tokens, size_rule};
use crate::state::State;

/// No bus of that name.
pub fn not_found(name: &str) -> EventsError {
    EventsError::ResourceNotFound(format!("Event bus {name} does not exist."))
}

/// The bus a request names, made sure to exist.
pub fn existing<'e>(
    e: &'e mut State,
    cx: &Context,
    name_or_arn: Option<&str>,
) -> Result<&'e mut Bus, EventsError> {
    let now = e.now();
    e.events.ensure_default(&cx.region, &cx.account, now);
    let (arn, name) = resolve_bus(cx, name_or_arn);
    e.events.buses.get_mut(&arn).ok_or_else(|| not_found(&name))
}

/// How classic EventBridge's List operations page: `Limit` 1 to 100 (100 when absent), and an
/// opaque `NextToken` (the base64 of the page's last key, not the next item's name, as AWS's
/// tokens are opaque); a token that is not one of these is refused.
const PAGER: Pager<EventsError> = Pager {
    sizes: Sizes::UpTo {
        max: 100,
        refuse: |n, max| constraint(&n.to_string(), "limit", &size_rule(n, max)),
    },
    tokens: Tokens::Base64Key(|| EventsError::Validation("Invalid NextToken".into())),
};

/// One page of `items` (in order) after `token` (the previous page's `NextToken`).
pub fn page<T>(
    items: Vec<(String, T)>,
    token: Option<&str>,
    limit: Option<i64>,
) -> Result<(Vec<T>, Option<String>), EventsError> {
    PAGER.page(items, token, limit)
}
