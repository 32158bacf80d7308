//! Schedule expressions: `at(yyyy-mm-ddThh:mm:ss)` for one-time schedules, and EventBridge's
//! `rate(...)` and six-field `cron(...)` (parsed by `events::schedule`, shared with rules), each
//! in the schedule's ScheduleExpressionTimezone (UTC by default) from jiff's bundled tz
//! database.

use crate::engine::time::Millis;
use crate::services::events::schedule::Schedule;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;

#[derive(Debug, Clone)]
pub enum Expression {
    At(DateTime),
    Recurring(Schedule),
}

impl Expression {
    /// Parses an expression; `None` for one AWS refuses.
    pub fn parse(text: &str) -> Option<Expression> {
        if let Some(inner) = text.strip_prefix("at(").and_then(|t| t.strip_suffix(')')) {
            // Exactly yyyy-mm-ddThh:mm:ss, no offset or fraction.
            let shaped = inner.len() == 19 && inner.as_bytes()[10] == b'T';
            return shaped
                .then(|| inner.parse::<DateTime>().ok())
                .flatten()
                .map(Expression::At);
        }
        Schedule::parse(text).ok().map(Expression::Recurring)
    }

    pub fn is_one_time(&self) -> bool {
        matches!(self, Expression::At(_))
    }

    /// The first run strictly after `after`: an at() time once; a rate counted from `anchor`
    /// (StartDate, else the creation) and running at `anchor` itself first; a cron in `zone`.
    pub fn next_after(&self, after: Millis, anchor: Millis, zone: &TimeZone) -> Option<Millis> {
        match self {
            Expression::At(dt) => {
                let at = zone.to_ambiguous_timestamp(*dt).compatible().ok()?;
                Some(at.as_millisecond()).filter(|&ms| ms > after)
            }
            Expression::Recurring(Schedule::Rate { .. }) if after < anchor => Some(anchor),
            Expression::Recurring(schedule) => schedule.next_after_in(after, anchor, zone),
        }
    }
}

/// The zone an IANA name names, from the bundled database.
pub fn zone(name: Option<&str>) -> Option<TimeZone> {
    match name {
        None => Some(TimeZone::UTC),
        Some(name) => jiff::tz::db().get(name).ok(),
    }
}
