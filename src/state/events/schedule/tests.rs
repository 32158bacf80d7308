use super::*;
use crate::engine::time::{format_rfc3339, parse_rfc3339};

fn at(text: &str) -> Millis {
    parse_rfc3339(text).unwrap()
}

/// The next `n` firings after `from` (a rate counts from `from` too), as minute-precision text.
fn firings(expression: &str, from: &str, n: usize) -> Vec<String> {
    let schedule = Schedule::parse(expression).unwrap();
    let created = at(from);
    let mut t = created;
    let mut out = Vec::new();
    while out.len() < n {
        let Some(next) = schedule.next_after(t, created) else {
            break;
        };
        assert!(next > t, "{expression}: {next} <= {t}");
        out.push(format_rfc3339(next)[..16].to_string());
        t = next;
    }
    out
}

/// Checks rows of "expression | from | the next firings (minute precision)".
fn assert_firings(cases: &[&str]) {
    for case in cases {
        let [expression, from, expected] = *case.split(" | ").collect::<Vec<_>>() else {
            panic!("{case}")
        };
        let expected: Vec<&str> = expected.split_whitespace().collect();
        let got = firings(expression, from, expected.len().max(1));
        assert_eq!(got, expected, "{expression} after {from}");
    }
}

#[test]
fn accepts_documented_forms() {
    for good in [
        "rate(1 minute)",
        "rate(5 minutes)",
        "rate(1 hour)",
        "rate(12 hours)",
        "rate(1 day)",
        "rate(7 days)",
        "cron(0 10 * * ? *)",
        "cron(15 12 * * ? *)",
        "cron(0 18 ? * MON-FRI *)",
        "cron(0 8 1 * ? *)",
        "cron(0/15 * * * ? *)",
        "cron(0/10 * ? * MON-FRI *)",
        "cron(0/5 8-17 ? * MON-FRI *)",
        "cron(0 9 ? * 2#1 *)",
        "cron(15 10 ? * 6L 2019-2022)",
        "cron(5,35 14 * * ? *)",
        "cron(0 0 L * ? *)",
        "cron(0 0 LW * ? *)",
        "cron(0 0 15W * ? *)",
        "cron(0 0 1 jan,Feb ? *)",
        "cron(0 0 ? * sun-sat *)",
        "cron(0 0 ? * L *)",
        "cron(0 0 1/5 * ? *)",
        "cron(0 0 1 */3 ? 2020/2)",
        "cron(0 0 ? * * *)",
        "cron(59 23 31 DEC ? 2199)",
    ] {
        assert!(Schedule::parse(good).is_ok(), "{good}");
    }
    assert_eq!(
        Schedule::parse("rate(5 minutes)"),
        Ok(Schedule::Rate { every_ms: 300_000 })
    );
    assert_eq!(
        Schedule::parse("rate(2 days)"),
        Ok(Schedule::Rate {
            every_ms: 2 * DAY_MS
        })
    );
    assert_eq!(
        Schedule::parse("cron(0 0 1 JAN ? *)"),
        Schedule::parse("cron(0 0 1 1 ? *)")
    );
}

#[test]
fn rejects_invalid_expressions() {
    for bad in [
        "",
        "garbage",
        "rate(0 minutes)",
        "rate(1 hours)",
        "rate( 10 minutes )",
        "rate(10  minutes)",
        "rate(5 hour)",
        "rate(-1 minutes)",
        "rate(+5 minutes)",
        "rate(1.5 hours)",
        "rate(1 week)",
        "rate(2 weeks)",
        "rate(30 seconds)",
        "rate(5minutes)",
        "rate(5 minutes",
        "rate 5 minutes",
        "rate()",
        "rate(minutes)",
        "rate(5 minutes 2)",
        "rate(99999999999999999999 days)",
        "cron()",
        "cron(0 12 * * ?)",
        "cron(0 0 12 * * ? *)",
        "cron 0 12 * * ? *",
        "cron(0 12 * * ? *",
        "cron(0 12 * * MON *)",
        "cron(0 12 1 * 2 *)",
        "cron(0 12 * * * *)",
        "cron(0 12 ? * ? *)",
        "cron(60 * * * ? *)",
        "cron(0 24 * * ? *)",
        "cron(0 0 0 * ? *)",
        "cron(0 0 32 * ? *)",
        "cron(0 0 1 0 ? *)",
        "cron(0 0 1 13 ? *)",
        "cron(0 0 ? * 0 *)",
        "cron(0 0 ? * 8 *)",
        "cron(0 0 1 * ? 1969)",
        "cron(0 0 1 * ? 2200)",
        "cron(0 0 1 * ? 2030-2020)",
        "cron(0 0 1 FOO ? *)",
        "cron(0 0 ? * FUN *)",
        "cron(0 0 ? * JAN *)",
        "cron(0 0 1 MON ? *)",
        "cron(0 0 ? * 3#1,6#3 *)",
        "cron(0 0 ? * 3#1#2 *)",
        "cron(0 0 ? * 3#0 *)",
        "cron(0 0 ? * 3#6 *)",
        "cron(0 0 ? * 8#1 *)",
        "cron(0 0 ? * 8L *)",
        "cron(0 0 ? * 2/2 *)",
        "cron(0 0 L,15 * ? *)",
        "cron(0 0 1-5W * ? *)",
        "cron(0 0 0W * ? *)",
        "cron(0 0 32W * ? *)",
        "cron(0 0 W * ? *)",
        "cron(0 0 L-3 * ? *)",
        "cron(0 L * * ? *)",
        "cron(0/0 * * * ? *)",
        "cron(*/61 * * * ? *)",
        "cron(1,,2 * * * ? *)",
        "cron(1- * * * ? *)",
        "cron(-1 * * * ? *)",
        "cron(a b c d e f)",
        "cron(? 0 1 * ? *)",
    ] {
        assert_eq!(Schedule::parse(bad), Err(InvalidSchedule), "{bad}");
    }
    assert_eq!(
        InvalidSchedule.to_string(),
        "Parameter ScheduleExpression is not valid."
    );
}

#[test]
fn next_firings() {
    // "expression | from | the next firings (minute precision)"; a rate is created at `from`.
    let cases = [
        // rate: created_at + k * every, k >= 1.
        "rate(5 minutes) | 2026-03-01T10:02:30Z | 2026-03-01T10:07 2026-03-01T10:12 2026-03-01T10:17",
        "rate(1 day) | 2026-02-27T23:59:00Z | 2026-02-28T23:59 2026-03-01T23:59 2026-03-02T23:59",
        "rate(1 day) | 2028-02-28T06:00:00Z | 2028-02-29T06:00 2028-03-01T06:00",
        // cron: second 0 of each matching minute, strictly after.
        "cron(0 12 * * ? *) | 2026-03-01T12:00:00Z | 2026-03-02T12:00 2026-03-03T12:00 2026-03-04T12:00",
        "cron(0 12 * * ? *) | 2026-03-01T11:59:59.999Z | 2026-03-01T12:00 2026-03-02T12:00",
        "cron(5,35 14 * * ? *) | 2026-01-01T14:10:00Z | 2026-01-01T14:35 2026-01-02T14:05 2026-01-02T14:35",
        "cron(0/15 * * * ? *) | 2026-01-01T00:07:00Z | 2026-01-01T00:15 2026-01-01T00:30 2026-01-01T00:45 2026-01-01T01:00",
        "cron(5/15 * * * ? *) | 2026-01-01T00:50:00Z | 2026-01-01T01:05 2026-01-01T01:20 2026-01-01T01:35 2026-01-01T01:50",
        "cron(10-40/10 3 * * ? *) | 2026-01-01T03:35:00Z | 2026-01-01T03:40 2026-01-02T03:10 2026-01-02T03:20",
        "cron(*/20 8-9 ? * MON-FRI *) | 2026-03-06T09:30:00Z | 2026-03-06T09:40 2026-03-09T08:00 2026-03-09T08:20",
        "cron(0 22-1 * * ? *) | 2026-01-01T21:00:00Z | 2026-01-01T22:00 2026-01-01T23:00 2026-01-02T00:00 2026-01-02T01:00 2026-01-02T22:00",
        "cron(0 0 1 jan,JUL ? *) | 2026-01-01T00:00:00Z | 2026-07-01T00:00 2027-01-01T00:00 2027-07-01T00:00",
        "cron(30 6 1/10 * ? *) | 2026-01-25T00:00:00Z | 2026-01-31T06:30 2026-02-01T06:30 2026-02-11T06:30 2026-02-21T06:30 2026-03-01T06:30",
        "cron(0 0 1 */5 ? *) | 2026-01-01T00:00:00Z | 2026-06-01T00:00 2026-11-01T00:00 2027-01-01T00:00",
        // Leap days, including 2100 (not a leap year).
        "cron(0 0 29 2 ? *) | 2026-01-01T00:00:00Z | 2028-02-29T00:00 2032-02-29T00:00 2036-02-29T00:00",
        "cron(0 0 29 FEB ? *) | 2096-03-01T00:00:00Z | 2104-02-29T00:00 2108-02-29T00:00",
        "cron(0 0 31 * ? *) | 2026-01-31T00:00:00Z | 2026-03-31T00:00 2026-05-31T00:00 2026-07-31T00:00 2026-08-31T00:00",
        // L and LW.
        "cron(0 0 L * ? *) | 2024-01-15T00:00:00Z | 2024-01-31T00:00 2024-02-29T00:00 2024-03-31T00:00 2024-04-30T00:00",
        "cron(0 9 LW * ? *) | 2026-01-01T00:00:00Z | 2026-01-30T09:00 2026-02-27T09:00 2026-03-31T09:00 2026-04-30T09:00 2026-05-29T09:00",
        // W: nearest weekday, never leaving the month.
        "cron(0 9 1W * ? *) | 2026-07-15T00:00:00Z | 2026-08-03T09:00 2026-09-01T09:00 2026-10-01T09:00 2026-11-02T09:00",
        "cron(0 9 15W * ? *) | 2026-01-20T00:00:00Z | 2026-02-16T09:00 2026-03-16T09:00 2026-04-15T09:00",
        "cron(0 9 15w AUG ? 2026-2027) | 2026-01-01T00:00:00Z | 2026-08-14T09:00 2027-08-16T09:00",
        "cron(0 9 31W * ? *) | 2026-01-01T00:00:00Z | 2026-01-30T09:00 2026-03-31T09:00 2026-05-29T09:00 2026-07-31T09:00",
        // Day-of-week: names, L, nL, #.
        "cron(0 0 ? * L *) | 2026-01-01T00:00:00Z | 2026-01-03T00:00 2026-01-10T00:00 2026-01-17T00:00",
        "cron(0 0 ? * 7 *) | 2026-01-01T00:00:00Z | 2026-01-03T00:00 2026-01-10T00:00",
        "cron(15 10 ? * 6L 2019-2022) | 2022-10-01T00:00:00Z | 2022-10-28T10:15 2022-11-25T10:15 2022-12-30T10:15",
        "cron(0 0 ? * SUNL *) | 2026-01-01T00:00:00Z | 2026-01-25T00:00 2026-02-22T00:00 2026-03-29T00:00",
        "cron(0 10 ? * 6#3 *) | 2026-01-01T00:00:00Z | 2026-01-16T10:00 2026-02-20T10:00 2026-03-20T10:00 2026-04-17T10:00",
        "cron(0 9 ? * MON#1 *) | 2026-01-01T00:00:00Z | 2026-01-05T09:00 2026-02-02T09:00 2026-03-02T09:00",
        "cron(0 0 ? * 1#5 *) | 2026-01-01T00:00:00Z | 2026-03-29T00:00 2026-05-31T00:00 2026-08-30T00:00 2026-11-29T00:00",
        "cron(0 8 ? * sat,SUN *) | 2026-01-01T00:00:00Z | 2026-01-03T08:00 2026-01-04T08:00 2026-01-10T08:00",
        // Year bounds.
        "cron(0 0 1 1 ? 2199) | 2026-05-05T00:00:00Z | 2199-01-01T00:00",
        "cron(59 23 31 12 ? 2199) | 2199-12-31T23:58:00Z | 2199-12-31T23:59",
        "cron(0 0 1 1 ? 2020/5) | 2021-01-01T00:00:00Z | 2025-01-01T00:00 2030-01-01T00:00 2035-01-01T00:00",
        "cron(0 0 * * ? 1970) | 1960-01-01T00:00:00Z | 1970-01-01T00:00 1970-01-02T00:00",
        "cron(0 0 * * ? 1970) | 2026-01-01T00:00:00Z | ",
        "cron(0 0 29 2 ? 2199) | 1970-01-01T00:00:00Z | ",
        "cron(0 0 31 2 ? *) | 1970-01-01T00:00:00Z | ",
        "cron(0 0 ? * 1#5 2026) | 2026-12-01T00:00:00Z | ",
    ];
    assert_firings(&cases);
}

/// Firings across month ends, leap years (2028, 2100 not, 2032's Sunday 29 February) and year
/// boundaries, recorded from the hand-written calendar this module used before the `time`
/// crate.
#[test]
fn next_firings_across_month_and_year_ends() {
    let cases = [
        "cron(0 0 L * ? *) | 2099-12-15T00:00:00Z | 2099-12-31T00:00 2100-01-31T00:00 2100-02-28T00:00 2100-03-31T00:00",
        "cron(0 0 L 2 ? *) | 2023-03-01T00:00:00Z | 2024-02-29T00:00 2025-02-28T00:00 2026-02-28T00:00 2027-02-28T00:00 2028-02-29T00:00 2029-02-28T00:00",
        "cron(0 0 L 2 ? *) | 2099-03-01T00:00:00Z | 2100-02-28T00:00 2101-02-28T00:00",
        "cron(30 23 L * ? *) | 2026-12-31T23:30:00Z | 2027-01-31T23:30 2027-02-28T23:30 2027-03-31T23:30",
        "cron(0 0 LW * ? *) | 2026-10-01T00:00:00Z | 2026-10-30T00:00 2026-11-30T00:00 2026-12-31T00:00 2027-01-29T00:00 2027-02-26T00:00 2027-03-31T00:00",
        "cron(59 23 31 12 ? *) | 2026-12-31T23:59:00Z | 2027-12-31T23:59 2028-12-31T23:59 2029-12-31T23:59",
        "cron(0 0 1 1 ? *) | 2026-12-31T23:59:59.999Z | 2027-01-01T00:00 2028-01-01T00:00",
        "cron(0 0 1 1 ? *) | 2027-01-01T00:00:00Z | 2028-01-01T00:00",
        "cron(0 0 29 2 ? 2096-2104) | 2090-01-01T00:00:00Z | 2096-02-29T00:00 2104-02-29T00:00",
        "cron(0 0 29,30,31 * ? *) | 2028-01-30T12:00:00Z | 2028-01-31T00:00 2028-02-29T00:00 2028-03-29T00:00 2028-03-30T00:00 2028-03-31T00:00",
        "cron(0 12 ? * 2#5 *) | 2026-11-01T00:00:00Z | 2026-11-30T12:00 2027-03-29T12:00 2027-05-31T12:00 2027-08-30T12:00",
        "cron(0 12 ? * 1L *) | 2026-12-01T00:00:00Z | 2026-12-27T12:00 2027-01-31T12:00 2027-02-28T12:00 2027-03-28T12:00",
        "cron(0 12 ? * 4L *) | 2027-12-01T00:00:00Z | 2027-12-29T12:00 2028-01-26T12:00 2028-02-23T12:00 2028-03-29T12:00",
        "cron(0 9 30W * ? *) | 2028-01-01T00:00:00Z | 2028-01-31T09:00 2028-03-30T09:00 2028-04-28T09:00 2028-05-30T09:00",
        "cron(0 9 1W * ? *) | 2026-12-31T00:00:00Z | 2027-01-01T09:00 2027-02-01T09:00 2027-03-01T09:00 2027-04-01T09:00 2027-05-03T09:00 2027-06-01T09:00",
        "cron(0 9 29W 2 ? *) | 2026-01-01T00:00:00Z | 2028-02-29T09:00 2032-02-27T09:00 2036-02-29T09:00",
        "cron(0 9 31W 12 ? *) | 2026-01-01T00:00:00Z | 2026-12-31T09:00 2027-12-31T09:00 2028-12-29T09:00 2029-12-31T09:00",
        "cron(15 10 ? * 6L 2026-2027) | 2026-11-01T00:00:00Z | 2026-11-27T10:15 2026-12-25T10:15 2027-01-29T10:15 2027-02-26T10:15",
        "cron(0 0 * * ? 2027) | 2026-12-31T23:00:00Z | 2027-01-01T00:00 2027-01-02T00:00",
        "cron(0 0 31 12 ? 2026) | 2026-12-31T00:00:00Z | ",
        "cron(*/30 23-0 31,1 12,1 ? *) | 2026-12-31T22:00:00Z | 2026-12-31T23:00 2026-12-31T23:30 2027-01-01T00:00 2027-01-01T00:30 2027-01-01T23:00 2027-01-01T23:30",
        "cron(0 6 ? * MON-FRI *) | 2027-12-30T00:00:00Z | 2027-12-30T06:00 2027-12-31T06:00 2028-01-03T06:00",
        "cron(0 0 ? * SAT#1 *) | 2026-12-06T00:00:00Z | 2027-01-02T00:00 2027-02-06T00:00 2027-03-06T00:00",
        "cron(0 0 ? * 7#5 *) | 2027-12-01T00:00:00Z | 2028-01-29T00:00 2028-04-29T00:00 2028-07-29T00:00",
        "cron(0 0 1 1 ? *) | 1969-12-31T23:59:00Z | 1970-01-01T00:00 1971-01-01T00:00",
        "cron(* * * * ? *) | 1969-12-31T23:59:59.999Z | 1970-01-01T00:00 1970-01-01T00:01",
        "cron(0 0 1 1 ? *) | 2199-06-01T00:00:00Z | ",
        "cron(0 0 1 1 ? *) | 9999-06-01T00:00:00Z | ",
        "cron(59 23 L 12 ? 2199) | 2199-12-31T23:58:59.999Z | 2199-12-31T23:59",
        "cron(0 0 L * ? 2199) | 2199-11-30T00:00:00Z | 2199-12-31T00:00",
        "cron(0 0 28-31 2 ? *) | 2100-02-01T00:00:00Z | 2100-02-28T00:00 2101-02-28T00:00 2102-02-28T00:00",
        "cron(0 0 ? 2 5#5 *) | 2026-01-01T00:00:00Z | 2052-02-29T00:00 2080-02-29T00:00 2120-02-29T00:00",
        "rate(1 day) | 2099-02-27T12:00:00Z | 2099-02-28T12:00 2099-03-01T12:00 2099-03-02T12:00",
        "rate(7 days) | 2027-12-20T00:00:00Z | 2027-12-27T00:00 2028-01-03T00:00 2028-01-10T00:00",
    ];
    assert_firings(&cases);
}

#[test]
fn skipping_agrees_with_a_minute_by_minute_walk() {
    let (from, to) = (at("2027-12-20T00:00:00Z"), at("2028-03-10T00:00:00Z"));
    for expression in [
        "cron(*/7 */5 * * ? *)",
        "cron(58-3 23,0 28-2 * ? *)",
        "cron(0,30 12 29-2 * ? 2027-2028)",
        "cron(15 0/9 ? * 1L *)",
        "cron(45 23 ? * 3#4 *)",
        "cron(1 1 LW * ? *)",
        "cron(0 6 1W * ? *)",
    ] {
        let Ok(Schedule::Cron(cron)) = Schedule::parse(expression) else {
            panic!()
        };
        let matches = |t: Millis| {
            let at = UtcDateTime::from_unix_timestamp(t / 1000).unwrap();
            let (y, m) = (i64::from(at.year()), i64::from(u8::from(at.month())));
            cron.minutes.contains(i64::from(at.minute()))
                && cron.hours.contains(i64::from(at.hour()))
                && cron.months.contains(m)
                && cron.years.contains(y)
                && cron.day_mask(y, m) & 1 << at.day() != 0
        };
        let walked: Vec<Millis> = (from / MINUTE_MS + 1..to / MINUTE_MS)
            .map(|minute| minute * MINUTE_MS)
            .filter(|&t| matches(t))
            .collect();
        let mut skipped = Vec::new();
        let mut t = from;
        while let Some(next) = cron.next_after(t).filter(|&n| n < to) {
            skipped.push(next);
            t = next + 7_919; // also start mid-minute
        }
        assert!(!walked.is_empty(), "{expression}");
        assert_eq!(skipped, walked, "{expression}");
    }
}

#[test]
fn rate_one_hour_fires_24_times_a_day() {
    let created = at("2026-03-28T10:17:23.456Z");
    let schedule = Schedule::parse("rate(1 hour)").unwrap();
    let mut t = created;
    let mut fired = Vec::new();
    while let Some(next) = schedule
        .next_after(t, created)
        .filter(|&n| n <= created + DAY_MS)
    {
        fired.push(next);
        t = next;
    }
    assert_eq!(fired.len(), 24);
    for (k, &when) in fired.iter().enumerate() {
        assert_eq!(when, created + (k as i64 + 1) * HOUR_MS);
    }
    // From any instant, the answer is the next whole hour counted from creation.
    assert_eq!(
        schedule.next_after(created - 5, created),
        Some(created + HOUR_MS)
    );
    assert_eq!(
        schedule.next_after(created + HOUR_MS, created),
        Some(created + 2 * HOUR_MS)
    );
    assert_eq!(
        schedule.next_after(created + HOUR_MS - 1, created),
        Some(created + HOUR_MS)
    );
    // Jumping the clock a whole day ahead lands on the 25th hour, not on a backlog.
    assert_eq!(
        schedule.next_after(created + DAY_MS, created),
        Some(created + 25 * HOUR_MS)
    );
}

#[test]
fn extreme_instants_do_not_overflow() {
    let cron = Schedule::parse("cron(* * * * ? *)").unwrap();
    assert_eq!(cron.next_after(Millis::MAX, 0), None);
    assert_eq!(cron.next_after(Millis::MIN, 0), Some(0));
    let rate = Schedule::parse("rate(1 minute)").unwrap();
    assert_eq!(rate.next_after(Millis::MAX - 10, 0), None);
}

#[test]
fn cron_in_a_zone_follows_its_daylight_saving_shifts() {
    let zone = jiff::tz::db().get("America/New_York").unwrap();
    let next = |expression: &str, after: &str| {
        let schedule = Schedule::parse(expression).unwrap();
        let at = schedule.next_after_in(at(after), 0, &zone);
        at.map(|ms| format_rfc3339(ms)[..16].to_string())
    };
    #[rustfmt::skip]
    let cases = [
        // 09:00 local is 14:00Z in winter and 13:00Z once clocks go forward (8 March 2026).
        ("cron(0 9 * * ? *)", "2026-03-07T15:00:00Z", "2026-03-08T13:00"),
        ("cron(0 9 * * ? *)", "2026-03-06T15:00:00Z", "2026-03-07T14:00"),
        // 02:30 does not exist on 8 March: that day is skipped.
        ("cron(30 2 * * ? *)", "2026-03-07T08:00:00Z", "2026-03-09T06:30"),
        // 01:30 happens twice on 1 November: it fires once, the first time (EDT).
        ("cron(30 1 * * ? *)", "2026-11-01T04:00:00Z", "2026-11-01T05:30"),
        ("cron(30 1 * * ? *)", "2026-11-01T05:31:00Z", "2026-11-02T06:30"),
    ];
    for (expression, after, want) in cases {
        assert_eq!(
            next(expression, after).unwrap(),
            want,
            "{expression} after {after}"
        );
    }
}
