//! Virtual instants: milliseconds since the Unix epoch, and their textual forms.
//! Pure functions only; reading the wall clock is `crate::clock`'s job. The calendar (which dates
//! exist, the day number of each) is the `time` crate's; its clock (`now_utc`) is never read.
//! Part of the engine: it depends on nothing above it.

use ::time::{Date, Month, UtcDateTime};
use std::fmt::Write as _;
use std::ops::Range;

/// A virtual instant in milliseconds since 1970-01-01T00:00:00Z.
pub type Millis = i64;

const DAY_MS: Millis = 86_400_000;
/// The Gregorian calendar repeats every 400 years, which are exactly this many days.
const DAYS_PER_400_YEARS: i64 = 146_097;
/// 1970-01-01, day 0 of [`Millis`], as a Julian day number (the crate's count of days).
const EPOCH_JULIAN_DAY: i64 = UtcDateTime::UNIX_EPOCH.to_julian_day() as i64;

/// `2026-11-30T07:00:00.000Z`, the form the control API and AWS timestamps use. Every `Millis`
/// has one: a year past 9999 takes more digits, a year before 0000 a `-` (`-001`).
pub fn format_rfc3339(ms: Millis) -> String {
    let (days, rem) = (ms.div_euclid(DAY_MS), ms.rem_euclid(DAY_MS));
    let (y, m, d) = calendar_date(days);
    let (h, min, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    // Sized once, digits pushed directly: the formatter costs several times more (every event
    // and delivery writes a time).
    let mut text = String::with_capacity(24);
    if (0..=9999).contains(&y) {
        push_digits(&mut text, y, 4);
    } else {
        let _ = write!(text, "{y:04}");
    }
    for (sep, value, width) in [
        ('-', i64::from(m), 2),
        ('-', i64::from(d), 2),
        ('T', h, 2),
        (':', min, 2),
        (':', s, 2),
        ('.', milli, 3),
    ] {
        text.push(sep);
        push_digits(&mut text, value, width);
    }
    text.push('Z');
    text
}

/// `value` (0 ≤ value < 10^width) in `width` decimal digits, zero-padded.
fn push_digits(text: &mut String, value: i64, width: u32) {
    for place in (0..width).rev() {
        let digit = (value / 10_i64.pow(place) % 10) as u8;
        text.push(char::from(b'0' + digit));
    }
}

/// Year, month and day of the day `days` days after 1970-01-01, for any `days`. The crate's
/// dates span years -9999..=9999, so the day moves by whole 400-year cycles into 1970..=2369,
/// where the calendar is the same, and the year moves back by as many 400 years.
fn calendar_date(days: i64) -> (i64, u8, u8) {
    let cycles = days.div_euclid(DAYS_PER_400_YEARS);
    let julian_day = EPOCH_JULIAN_DAY + days.rem_euclid(DAYS_PER_400_YEARS);
    let date = i32::try_from(julian_day)
        .ok()
        .and_then(|day| Date::from_julian_day(day).ok())
        .expect("1970-2369 is within the crate's dates");
    let (year, month, day) = date.to_calendar_date();
    (i64::from(year) + 400 * cycles, month as u8, day)
}

/// Parses RFC 3339 / ISO 8601 date-times such as `2026-11-30T07:00:00Z`,
/// `2026-11-30T07:00:00.5+01:00`. Returns `None` for anything else.
///
/// Accepted: `T`, `t` or a space between date and time; any number of fraction digits, cut to
/// milliseconds; `Z`, `z` or `±hh:mm` (each half read as an integer, unbounded); second 60 in
/// any minute, read as the next minute's second 0. The crate's `Rfc3339` parser differs on the
/// separator, the offsets and second 60 (docs/decisions.md), so the text is read here and the
/// crate says which dates exist and numbers their days.
pub fn parse_rfc3339(s: &str) -> Option<Millis> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let month = Month::try_from(digits::<u8>(s, 5..7)?).ok()?;
    let date = Date::from_calendar_date(digits(s, 0..4)?, month, digits(s, 8..10)?).ok()?;
    let (h, mi, sec): (i64, i64, i64) =
        (digits(s, 11..13)?, digits(s, 14..16)?, digits(s, 17..19)?);
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut millis = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<3}", &frac[..digits.min(3)]);
        millis = padded.parse::<i64>().ok()?;
        rest = &frac[digits..];
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && rest.as_bytes()[3] == b':' => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let oh: i64 = rest[1..3].parse().ok()?;
            let om: i64 = rest[4..6].parse().ok()?;
            sign * (oh * 60 + om)
        }
        _ => return None,
    };
    let days = i64::from(date.to_julian_day()) - EPOCH_JULIAN_DAY;
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
    Some(secs * 1000 + millis)
}

/// The ASCII digits at `range` of `s` as a number (no sign, no spaces).
fn digits<T: std::str::FromStr>(s: &str, range: Range<usize>) -> Option<T> {
    let part = s.get(range)?;
    part.bytes()
        .all(|c| c.is_ascii_digit())
        .then(|| part.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_round_trip() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_796_022_000_000, "2026-11-30T07:00:00.000Z"),
            (951_782_400_123, "2000-02-29T00:00:00.123Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
        ];
        for (ms, text) in cases {
            assert_eq!(format_rfc3339(ms), text);
            assert_eq!(parse_rfc3339(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn parses_offsets_and_fractions() {
        let base = parse_rfc3339("2026-11-30T07:00:00Z").unwrap();
        assert_eq!(parse_rfc3339("2026-11-30T08:00:00+01:00"), Some(base));
        assert_eq!(parse_rfc3339("2026-11-30T07:00:00.5Z"), Some(base + 500));
        assert_eq!(
            parse_rfc3339("2026-11-30T07:00:00.123456Z"),
            Some(base + 123)
        );
    }

    /// Pins what `format_rfc3339` writes over the whole `Millis` range: three fraction digits
    /// and `Z` always; the year at least four digits, `-` before a year before 0000.
    #[test]
    fn formats_every_instant() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1, "1970-01-01T00:00:00.001Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (-86_400_000, "1969-12-31T00:00:00.000Z"),
            (1_796_022_000_000, "2026-11-30T07:00:00.000Z"),
            (1_796_022_000_120, "2026-11-30T07:00:00.120Z"),
            (951_782_400_123, "2000-02-29T00:00:00.123Z"),
            (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
            (-62_167_219_200_001, "-001-12-31T23:59:59.999Z"),
            (-62_198_755_200_000, "-001-01-01T00:00:00.000Z"),
            (Millis::MAX, "292278994-08-17T07:12:55.807Z"),
            (Millis::MIN, "-292275055-05-16T16:47:04.192Z"),
        ];
        for (ms, text) in cases {
            assert_eq!(format_rfc3339(ms), text, "{ms}");
        }
    }

    /// Pins every edge `parse_rfc3339` accepts: `T`/`t`/space, any number of fraction digits
    /// (truncated to milliseconds), `Z`/`z` or a `±hh:mm` offset whose two-character halves are
    /// read as integers (so `+99:99` and `+-1:00` pass), second 60 in any minute (the next
    /// minute's second 0), years 0000-9999.
    #[test]
    fn parses_every_accepted_form() {
        let cases = [
            ("2026-11-30T07:00:00Z", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30t07:00:00z", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30 07:00:00Z", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30T07:00:00.5Z", "2026-11-30T07:00:00.500Z"),
            ("2026-11-30T07:00:00.12Z", "2026-11-30T07:00:00.120Z"),
            ("2026-11-30T07:00:00.9999Z", "2026-11-30T07:00:00.999Z"),
            (
                "2026-11-30T07:00:00.123456789012Z",
                "2026-11-30T07:00:00.123Z",
            ),
            (
                "2026-11-30T07:00:00.0000000000000000000000000001Z",
                "2026-11-30T07:00:00.000Z",
            ),
            ("2026-11-30T08:00:00+01:00", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30T02:30:00-04:30", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30T07:00:00+00:00", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30T07:00:00-00:00", "2026-11-30T07:00:00.000Z"),
            ("2026-11-30T07:00:00.25+01:00", "2026-11-30T06:00:00.250Z"),
            ("2026-11-30T00:30:00+01:00", "2026-11-29T23:30:00.000Z"),
            ("2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z"),
            ("2026-11-30T07:00:00+24:00", "2026-11-29T07:00:00.000Z"),
            ("2026-11-30T07:00:00+99:99", "2026-11-26T02:21:00.000Z"),
            ("2026-11-30T07:00:00++1:00", "2026-11-30T06:00:00.000Z"),
            ("2026-11-30T07:00:00+-1:00", "2026-11-30T08:00:00.000Z"),
            ("2026-11-30T07:00:00-+1:+1", "2026-11-30T08:01:00.000Z"),
            ("2026-11-30T07:15:60Z", "2026-11-30T07:16:00.000Z"),
            ("2026-11-30T07:15:60.5Z", "2026-11-30T07:16:00.500Z"),
            ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00.000Z"),
            ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"),
            ("2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"),
            ("2026-04-30T23:59:59.999Z", "2026-04-30T23:59:59.999Z"),
            ("0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"),
            ("0000-02-29T00:00:00Z", "0000-02-29T00:00:00.000Z"),
            ("0000-01-01T00:00:00+01:00", "-001-12-31T23:00:00.000Z"),
            ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
            ("9999-12-31T23:59:60Z", "10000-01-01T00:00:00.000Z"),
            ("9999-12-31T23:59:59-01:00", "10000-01-01T00:59:59.000Z"),
        ];
        for (text, expected) in cases {
            let parsed = parse_rfc3339(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(format_rfc3339(parsed), expected, "{text}");
        }
    }

    #[test]
    fn rejects_malformed_times() {
        for bad in [
            "",
            "2026-11-30",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-11-30T07:00:00",
            "2026-11-30T07:00:00.Z",
            "x026-11-30T07:00:00Z",
            "2026-11-30T07:00:00+0100",
            // Length, separators, digits.
            "2026-11-30T07:00Z",
            "2026-11-30X07:00:00Z",
            "2026-11-30_07:00:00Z",
            "2026-11-30T07-00:00Z",
            "2026-11-30T07:00-00Z",
            "2026/11/30T07:00:00Z",
            "+026-11-30T07:00:00Z",
            "-026-11-30T07:00:00Z",
            " 026-11-30T07:00:00Z",
            "10000-01-01T00:00:00Z",
            "2026-1-30T07:00:00Z",
            "2026-+1-30T07:00:00Z",
            "2026-11-+3T07:00:00Z",
            "2026-11-30T+7:00:00Z",
            "2026-11-30T07:00:+0Z",
            "2026-11-30T07:00:0\u{e9}Z",
            "\u{ff12}026-11-30T07:00:00Z",
            // Ranges and the calendar.
            "2026-00-01T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-32T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T23:60:00Z",
            "2026-11-30T23:59:61Z",
            "2026-11-30T23:59:99Z",
            // Fractions.
            "2026-11-30T07:00:00.5",
            "2026-11-30T07:00:00,5Z",
            "2026-11-30T07:00:00..5Z",
            "2026-11-30T07:00:00.5.5Z",
            "2026-11-30T07:00:00.\u{663}Z",
            "2026-11-30T07:00:00.5\u{e9}",
            // Zones.
            "2026-11-30T07:00:00ZZ",
            "2026-11-30T07:00:00Z ",
            "2026-11-30T07:00:00 Z",
            "2026-11-30T07:00:00UTC",
            "2026-11-30T07:00:00+01",
            "2026-11-30T07:00:00+01:0",
            "2026-11-30T07:00:00+1:00",
            "2026-11-30T07:00:00 +01:00",
            "2026-11-30T07:00:00+01:00:00",
            "2026-11-30T07:00:00*01:00",
            "2026-11-30T07:00:00+ 1:00",
            "2026-11-30T07:00:00+1a:00",
            "2026-11-30T07:00:00+01:-a",
            "2026-11-30T07:00:00+01;00",
            "2026-11-30T07:00:00+\u{e9}:00",
            "2026-11-30T07:00:00+--:00",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
