//! EventBridge `ScheduleExpression`s: `rate(value unit)` and the six-field `cron(...)`.
//!
//! Parsing follows the EventBridge user guide ("Cron expressions reference" and "Rate
//! expressions reference"): minutes, hours, day-of-month, month (1-12 or JAN-DEC), day-of-week
//! (1-7 or SUN-SAT, 1 = Sunday) and year (1970-2199); wildcards `, - * /` everywhere but
//! day-of-week (no `/`), `?` `L` `W` in day-of-month and `?` `L` `#` in day-of-week; exactly one
//! of the two day fields is `?`. Anything else is [`InvalidSchedule`], which the API answers
//! as `ValidationException` "Parameter ScheduleExpression is not valid.".
//!
//! Rules run in UTC. A cron schedule fires at second 0 of each matching minute; a rate
//! schedule fires every `every_ms` counted from the rule's creation. EventBridge Scheduler reads
//! the same cron fields as local time in a zone ([`Schedule::next_after_in`]).
//! Pure: it imports no operation and no state, only the engine's values and its own service's data.

use crate::engine::time::Millis;
use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};
use time::{Date, Month, UtcDateTime};

const MINUTE_MS: Millis = 60_000;
const HOUR_MS: Millis = 3_600_000;
const DAY_MS: Millis = 86_400_000;

/// The expression is not a schedule AWS accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidSchedule;

impl InvalidSchedule {
    /// AWS's wording (`ValidationException`).
    pub const MESSAGE: &'static str = "Parameter ScheduleExpression is not valid.";
}

impl std::fmt::Display for InvalidSchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(Self::MESSAGE)
    }
}

impl std::error::Error for InvalidSchedule {}

/// A parsed `ScheduleExpression`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Schedule {
    Rate { every_ms: Millis },
    Cron(Cron),
}

/// A parsed `cron(...)` expression.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cron {
    minutes: Set,
    hours: Set,
    months: Set,
    years: Set,
    days: DayRule,
}

/// Which days of a month match, from whichever day field is not `?`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
enum DayRule {
    /// Day-of-month values (`*`, lists, ranges, steps).
    MonthDays(Set),
    /// `L`: the last day of the month.
    LastDay,
    /// `LW`: the last weekday (Monday-Friday) of the month.
    LastWeekday,
    /// `nW`: the weekday nearest to day n, within the month.
    NearestWeekday(i64),
    /// Day-of-week values, 1 = Sunday.
    WeekDays(Set),
    /// `nL`: the last day-of-week n of the month.
    LastOfWeekday(i64),
    /// `n#k`: the k-th day-of-week n of the month.
    NthWeekday(i64, i64),
}

/// A set of values in `lo..=lo + 255`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Set {
    lo: i64,
    bits: [u64; 4],
}

impl Set {
    fn new(lo: i64) -> Set {
        Set { lo, bits: [0; 4] }
    }

    /// Adds `v`, which is in the set's range (every field's range is narrower than 256).
    fn insert(&mut self, v: i64) {
        let Ok(i) = usize::try_from(v - self.lo) else {
            return;
        };
        if let Some(word) = self.bits.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }

    fn contains(&self, v: i64) -> bool {
        self.next_at_or_after(v) == Some(v)
    }

    /// The least member `>= v`.
    fn next_at_or_after(&self, v: i64) -> Option<i64> {
        let i = v.max(self.lo) - self.lo;
        if i >= 256 {
            return None;
        }
        let mut word = (i / 64) as usize;
        let mut w = self.bits.get(word)? & (u64::MAX << (i % 64));
        loop {
            if w != 0 {
                return Some(self.lo + word as i64 * 64 + i64::from(w.trailing_zeros()));
            }
            word += 1;
            w = *self.bits.get(word)?;
        }
    }
}

/// The range and names of one cron field.
struct Field {
    lo: i64,
    hi: i64,
    names: &'static [&'static str],
    steps: bool,
    /// Whether `a-b` with `a > b` wraps past the end (`22-2` in hours).
    wraps: bool,
}

const fn numeric(lo: i64, hi: i64, wraps: bool) -> Field {
    Field {
        lo,
        hi,
        names: &[],
        steps: true,
        wraps,
    }
}

const MINUTES: Field = numeric(0, 59, true);
const HOURS: Field = numeric(0, 23, true);
const DAYS_OF_MONTH: Field = numeric(1, 31, true);
const MONTHS: Field = Field {
    lo: 1,
    hi: 12,
    names: &[
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ],
    steps: true,
    wraps: true,
};
const DAYS_OF_WEEK: Field = Field {
    lo: 1,
    hi: 7,
    names: &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
    steps: false,
    wraps: true,
};
const YEARS: Field = numeric(1970, 2199, false);
// The first year begins at instant 0: `Cron::next_after` starts no earlier.
const _: () = assert!(YEARS.lo == 1970);

impl Field {
    /// A number or (case-insensitive) name within the field's range.
    fn value(&self, text: &str) -> Result<i64, InvalidSchedule> {
        if let Some(i) = self.names.iter().position(|n| n.eq_ignore_ascii_case(text)) {
            return Ok(self.lo + i as i64);
        }
        let v = number(text)?;
        if (self.lo..=self.hi).contains(&v) {
            Ok(v)
        } else {
            Err(InvalidSchedule)
        }
    }

    /// A comma-separated list of `*`, `v`, `a-b`, each optionally with `/step`.
    fn parse(&self, text: &str) -> Result<Set, InvalidSchedule> {
        let mut set = Set::new(self.lo);
        for item in text.split(',') {
            let (range, step) = match item.split_once('/') {
                Some((range, step)) if self.steps => (range, Some(number(step)?)),
                Some(_) => return Err(InvalidSchedule),
                None => (item, None),
            };
            let stepped = step.is_some();
            let step = step.unwrap_or(1);
            if step < 1 || step > self.hi - self.lo + 1 {
                return Err(InvalidSchedule);
            }
            let (from, to) = match range.split_once('-') {
                _ if range == "*" => (self.lo, self.hi),
                Some((a, b)) => (self.value(a)?, self.value(b)?),
                // `a/n` runs from a to the end of the field.
                None if stepped => (self.value(range)?, self.hi),
                None => {
                    let v = self.value(range)?;
                    (v, v)
                }
            };
            if from > to && !self.wraps {
                return Err(InvalidSchedule);
            }
            let span = self.hi - self.lo + 1;
            let len = (to - from).rem_euclid(span);
            for offset in (0..=len).step_by(step as usize) {
                set.insert(self.lo + (from - self.lo + offset) % span);
            }
        }
        Ok(set)
    }
}

/// Plain decimal digits, nothing else.
fn number(text: &str) -> Result<i64, InvalidSchedule> {
    if text.is_empty() || text.len() > 12 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(InvalidSchedule);
    }
    text.parse().map_err(|_| InvalidSchedule)
}

impl Schedule {
    /// Parses `rate(...)` or `cron(...)`; `Err` when AWS would answer "Parameter
    /// ScheduleExpression is not valid.".
    pub fn parse(expression: &str) -> Result<Schedule, InvalidSchedule> {
        if let Some(inner) = inside(expression, "rate(") {
            return parse_rate(inner);
        }
        if let Some(inner) = inside(expression, "cron(") {
            return Cron::parse(inner).map(Schedule::Cron);
        }
        Err(InvalidSchedule)
    }

    /// The first firing strictly after `after` (UTC milliseconds). A rate schedule counts from
    /// `created_at`: it fires at `created_at + k * every` for k >= 1. A cron schedule fires at
    /// second 0 of each matching minute. `None` when the cron never fires again (e.g. its
    /// year range is over).
    pub fn next_after(&self, after: Millis, created_at: Millis) -> Option<Millis> {
        match self {
            Schedule::Rate { every_ms } => {
                let elapsed = after.checked_sub(created_at)?;
                let k = if elapsed < 0 {
                    1
                } else {
                    elapsed / every_ms + 1
                };
                created_at.checked_add(k.checked_mul(*every_ms)?)
            }
            Schedule::Cron(cron) => cron.next_after(after),
        }
    }
}

impl Schedule {
    /// As [`Schedule::next_after`], with a cron schedule's fields read as the local time of
    /// `zone` (EventBridge Scheduler's ScheduleExpressionTimezone): a local time skipped by a
    /// spring-forward does not fire, one repeated by a fall-back fires once, the first time.
    /// A rate counts fixed durations whatever the zone.
    pub fn next_after_in(
        &self,
        after: Millis,
        created_at: Millis,
        zone: &TimeZone,
    ) -> Option<Millis> {
        let Schedule::Cron(cron) = self else {
            return self.next_after(after, created_at);
        };
        let as_utc_ms = |dt: DateTime| Some(TimeZone::UTC.to_timestamp(dt).ok()?.as_millisecond());
        let local = zone.to_datetime(Timestamp::from_millisecond(after).ok()?);
        let mut probe = as_utc_ms(local)?;
        loop {
            let next = cron.next_after(probe)?;
            probe = next;
            let civil = TimeZone::UTC.to_datetime(Timestamp::from_millisecond(next).ok()?);
            let offset = match zone.to_ambiguous_timestamp(civil).offset() {
                AmbiguousOffset::Unambiguous { offset } => offset,
                AmbiguousOffset::Fold { before, .. } => before,
                AmbiguousOffset::Gap { .. } => continue,
            };
            let at = offset.to_timestamp(civil).ok()?.as_millisecond();
            if at > after {
                return Some(at);
            }
        }
    }
}

fn inside<'a>(expression: &'a str, prefix: &str) -> Option<&'a str> {
    expression.strip_prefix(prefix)?.strip_suffix(')')
}

fn parse_rate(inner: &str) -> Result<Schedule, InvalidSchedule> {
    // Exactly `<value> <unit>`: AWS refuses `rate( 10 minutes )` (recorded).
    let Some((value, unit)) = inner.split_once(' ') else {
        return Err(InvalidSchedule);
    };
    if value.is_empty() || unit.is_empty() || unit.contains(char::is_whitespace) {
        return Err(InvalidSchedule);
    }
    let value = number(value)?;
    let (singular, unit_ms) = match unit {
        "minute" => (true, MINUTE_MS),
        "minutes" => (false, MINUTE_MS),
        "hour" => (true, HOUR_MS),
        "hours" => (false, HOUR_MS),
        "day" => (true, DAY_MS),
        "days" => (false, DAY_MS),
        _ => return Err(InvalidSchedule),
    };
    if value < 1 || singular != (value == 1) {
        return Err(InvalidSchedule);
    }
    let every_ms = value.checked_mul(unit_ms).ok_or(InvalidSchedule)?;
    Ok(Schedule::Rate { every_ms })
}

impl Cron {
    fn parse(inner: &str) -> Result<Cron, InvalidSchedule> {
        let fields: Vec<&str> = inner.split_whitespace().collect();
        let &[minutes, hours, dom, month, dow, year] = fields.as_slice() else {
            return Err(InvalidSchedule);
        };
        let days = match (dom, dow) {
            ("?", "?") => return Err(InvalidSchedule),
            (dom, "?") => parse_day_of_month(dom)?,
            ("?", dow) => parse_day_of_week(dow)?,
            _ => return Err(InvalidSchedule),
        };
        Ok(Cron {
            minutes: MINUTES.parse(minutes)?,
            hours: HOURS.parse(hours)?,
            months: MONTHS.parse(month)?,
            years: YEARS.parse(year)?,
            days,
        })
    }

    /// The first matching minute strictly after `after`, found by skipping whole years,
    /// months, days and hours that cannot match.
    fn next_after(&self, after: Millis) -> Option<Millis> {
        let start = after
            .div_euclid(MINUTE_MS)
            .checked_add(1)?
            .checked_mul(MINUTE_MS)?;
        // Nothing fires before 1970-01-01T00:00Z, instant 0. An instant past the crate's last
        // year (9999) is past the year field's (2199) too.
        let start = UtcDateTime::from_unix_timestamp(start.max(0) / 1000).ok()?;
        let (mut y, mut m, mut d) = (
            i64::from(start.year()),
            i64::from(u8::from(start.month())),
            i64::from(start.day()),
        );
        let (mut h, mut min) = (i64::from(start.hour()), i64::from(start.minute()));
        loop {
            let year = self.years.next_at_or_after(y)?;
            if year != y {
                (y, m, d, h, min) = (year, 1, 1, 0, 0);
            }
            let Some(month) = self.months.next_at_or_after(m) else {
                (y, m, d, h, min) = (y + 1, 1, 1, 0, 0);
                continue;
            };
            if month != m {
                (m, d, h, min) = (month, 1, 0, 0);
            }
            let days = self.day_mask(y, m) & (u64::MAX << d);
            if days == 0 {
                (m, d, h, min) = (m + 1, 1, 0, 0);
                if m > 12 {
                    (y, m) = (y + 1, 1);
                }
                continue;
            }
            let day = i64::from(days.trailing_zeros());
            if day != d {
                (d, h, min) = (day, 0, 0);
            }
            let Some(hour) = self.hours.next_at_or_after(h) else {
                (d, h, min) = (d + 1, 0, 0);
                continue;
            };
            if hour != h {
                (h, min) = (hour, 0);
            }
            let Some(minute) = self.minutes.next_at_or_after(min) else {
                (h, min) = (h + 1, 0);
                continue;
            };
            let midnight = date(y, m, d).midnight().as_utc().unix_timestamp() * 1000;
            return Some(midnight + h * HOUR_MS + minute * MINUTE_MS);
        }
    }

    /// The matching days of month `m` of year `y`, as bits `1 << day`.
    fn day_mask(&self, y: i64, m: i64) -> u64 {
        let first = date(y, m, 1);
        let last = i64::from(first.month().length(first.year()));
        // 1 = Sunday, as in the day-of-week field.
        let first_weekday = i64::from(first.weekday().number_from_sunday());
        let weekday = |d: i64| (first_weekday - 1 + d - 1) % 7 + 1;
        let only = |d: i64| {
            if (1..=last).contains(&d) {
                1u64 << d
            } else {
                0
            }
        };
        let matching = |keep: &dyn Fn(i64) -> bool| {
            (1..=last)
                .filter(|&d| keep(d))
                .fold(0u64, |mask, d| mask | 1 << d)
        };
        match self.days {
            DayRule::MonthDays(set) => matching(&|d| set.contains(d)),
            DayRule::WeekDays(set) => matching(&|d| set.contains(weekday(d))),
            DayRule::LastDay => only(last),
            DayRule::LastWeekday => only(match weekday(last) {
                7 => last - 1,
                1 => last - 2,
                _ => last,
            }),
            // A day the month lacks (31W in April) has no nearest weekday that month.
            DayRule::NearestWeekday(n) if n > last => 0,
            DayRule::NearestWeekday(n) => only(match weekday(n) {
                7 if n == 1 => 3,
                7 => n - 1,
                1 if n == last => n - 2,
                1 => n + 1,
                _ => n,
            }),
            DayRule::LastOfWeekday(w) => only(last - (weekday(last) - w).rem_euclid(7)),
            DayRule::NthWeekday(w, k) => only(1 + (w - first_weekday).rem_euclid(7) + 7 * (k - 1)),
        }
    }
}

/// The date `y-m-d`. The search only asks for real dates: years 1970-2199 (the year field's),
/// months 1-12, days of that month.
fn date(y: i64, m: i64, d: i64) -> Date {
    let parts = (
        i32::try_from(y),
        u8::try_from(m).map(Month::try_from),
        u8::try_from(d),
    );
    match parts {
        (Ok(year), Ok(Ok(month)), Ok(day)) => Date::from_calendar_date(year, month, day).ok(),
        _ => None,
    }
    .unwrap_or_else(|| panic!("the cron search visited {y}-{m}-{d}, not a date"))
}

/// `*`, a list of days, `L`, `LW` or `nW`.
fn parse_day_of_month(text: &str) -> Result<DayRule, InvalidSchedule> {
    let upper = text.to_ascii_uppercase();
    Ok(match upper.as_str() {
        "L" => DayRule::LastDay,
        "LW" => DayRule::LastWeekday,
        _ => match upper.strip_suffix('W') {
            Some(day) => DayRule::NearestWeekday(DAYS_OF_MONTH.value(day)?),
            None => DayRule::MonthDays(DAYS_OF_MONTH.parse(text)?),
        },
    })
}

/// `*`, a list of days of the week, `L` (Saturday), `nL` or `n#k`.
fn parse_day_of_week(text: &str) -> Result<DayRule, InvalidSchedule> {
    let upper = text.to_ascii_uppercase();
    if upper == "L" {
        let mut saturday = Set::new(DAYS_OF_WEEK.lo);
        saturday.insert(7);
        return Ok(DayRule::WeekDays(saturday));
    }
    if let Some(day) = upper.strip_suffix('L') {
        return Ok(DayRule::LastOfWeekday(DAYS_OF_WEEK.value(day)?));
    }
    if let Some((day, nth)) = upper.split_once('#') {
        let nth = number(nth)?;
        if !(1..=5).contains(&nth) {
            return Err(InvalidSchedule);
        }
        return Ok(DayRule::NthWeekday(DAYS_OF_WEEK.value(day)?, nth));
    }
    Ok(DayRule::WeekDays(DAYS_OF_WEEK.parse(text)?))
}

#[cfg(test)]
mod tests;
