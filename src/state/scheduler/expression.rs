//! Schedule expressions: `at(yyyy-mm-ddThh:mm:ss)` for one-time schedules, and EventBridge's
//! `rate(...)` and six-field `cron(...)` (parsed by `events::schedule`, shared with rules), each
//! in the schedule's ScheduleExpressionTimezone (UTC by default) from jiff's bundled tz
//! database.
//!
//! A schedule holds both parsed once, when it is made ([`Expression`], [`Zone`]). In state
//! snapshots they are the text they were parsed from, as given, so that a snapshot reads back
//! (and GetSchedule answers) the expression exactly as the client wrote it.
//! Plain data: no operation here.

use crate::engine::time::Millis;
use crate::state::events::schedule::Schedule;
use jiff::civil::DateTime;
use jiff::tz::TimeZone;

/// A parsed ScheduleExpression, with the text it was parsed from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Expression {
    text: String,
    when: When,
}

#[derive(Debug, Clone)]
enum When {
    /// `at(...)`: once, at this civil time in the schedule's zone.
    At(DateTime),
    /// `rate(...)` or `cron(...)`.
    Recurring(Schedule),
}

impl Expression {
    /// Parses an expression; `None` for one AWS refuses.
    pub fn parse(text: &str) -> Option<Expression> {
        let when = if let Some(inner) = text.strip_prefix("at(").and_then(|t| t.strip_suffix(')')) {
            // Exactly yyyy-mm-ddThh:mm:ss, no offset or fraction.
            let shaped = inner.len() == 19 && inner.as_bytes().get(10) == Some(&b'T');
            When::At(shaped.then(|| inner.parse::<DateTime>().ok()).flatten()?)
        } else {
            When::Recurring(Schedule::parse(text).ok()?)
        };
        Some(Expression {
            text: text.to_string(),
            when,
        })
    }

    /// The expression as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_one_time(&self) -> bool {
        matches!(self.when, When::At(_))
    }

    /// The first run strictly after `after`: an at() time once; a rate counted from `anchor`
    /// (StartDate, else the creation) and running at `anchor` itself first; a cron in `zone`.
    pub fn next_after(&self, after: Millis, anchor: Millis, zone: &Zone) -> Option<Millis> {
        let zone = &zone.zone;
        match &self.when {
            When::At(dt) => {
                let at = zone.to_ambiguous_timestamp(*dt).compatible().ok()?;
                Some(at.as_millisecond()).filter(|&ms| ms > after)
            }
            When::Recurring(Schedule::Rate { .. }) if after < anchor => Some(anchor),
            When::Recurring(schedule) => schedule.next_after_in(after, anchor, zone),
        }
    }
}

impl TryFrom<String> for Expression {
    type Error = String;

    fn try_from(text: String) -> Result<Expression, String> {
        Expression::parse(&text).ok_or_else(|| format!("{text:?} is not a schedule expression"))
    }
}

impl From<Expression> for String {
    fn from(expression: Expression) -> String {
        expression.text
    }
}

/// A ScheduleExpressionTimezone: the IANA name given (none means UTC) and the zone it names in
/// the bundled database.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "Option<String>", into = "Option<String>")]
pub struct Zone {
    name: Option<String>,
    zone: TimeZone,
}

impl Zone {
    /// The zone `name` names (UTC when there is none); `None` for a name the database lacks.
    pub fn named(name: Option<&str>) -> Option<Zone> {
        let zone = match name {
            None => TimeZone::UTC,
            Some(name) => jiff::tz::db().get(name).ok()?,
        };
        Some(Zone {
            name: name.map(str::to_string),
            zone,
        })
    }

    /// The name as GetSchedule answers it: as given, `UTC` when none was.
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("UTC")
    }
}

impl TryFrom<Option<String>> for Zone {
    type Error = String;

    fn try_from(name: Option<String>) -> Result<Zone, String> {
        Zone::named(name.as_deref()).ok_or_else(|| format!("{name:?} names no time zone"))
    }
}

impl From<Zone> for Option<String> {
    fn from(zone: Zone) -> Option<String> {
        zone.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn expressions_and_zones_are_their_text_in_snapshots() {
        for text in [
            "at(2027-03-14T13:00:00)",
            "rate(5 minutes)",
            "cron(0 12 * * ? *)",
        ] {
            let expression = Expression::parse(text).unwrap();
            assert_eq!(serde_json::to_value(&expression).unwrap(), json!(text));
            let back: Expression = serde_json::from_value(json!(text)).unwrap();
            assert_eq!(back.text(), text);
        }
        assert!(serde_json::from_value::<Expression>(json!("at(tomorrow)")).is_err());
        for name in [None, Some("America/New_York")] {
            let zone = Zone::named(name).unwrap();
            assert_eq!(serde_json::to_value(&zone).unwrap(), json!(name));
            let back: Zone = serde_json::from_value(json!(name)).unwrap();
            assert_eq!(back.name(), name.unwrap_or("UTC"));
        }
        assert!(serde_json::from_value::<Zone>(json!("Mars/Olympus")).is_err());
    }

    #[test]
    fn an_at_time_is_in_its_zone() {
        let at = Expression::parse("at(2027-03-14T13:00:00)").unwrap();
        let utc = Zone::named(None).unwrap();
        let new_york = Zone::named(Some("America/New_York")).unwrap();
        let in_utc = at.next_after(0, 0, &utc).unwrap();
        // New York is on daylight time (UTC-4) on 14 March 2027.
        assert_eq!(at.next_after(0, 0, &new_york), Some(in_utc + 4 * 3_600_000));
        assert_eq!(at.next_after(in_utc, 0, &utc), None);
        assert!(at.is_one_time());
    }
}
