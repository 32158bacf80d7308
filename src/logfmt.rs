//! The log's line format: logfmt, one `key=value` line per event, for `tracing-subscriber`'s
//! `fmt` layer. `ts` (wall time), `level`, `module` (the event's target, which `RUST_LOG` filters
//! on) and `msg` come first, then the event's own fields in the order they were written. A value
//! is quoted when it is empty or holds a space, a `=`, a quote, a backslash or a control
//! character; inside quotes `"` and `\` are escaped, and newlines, tabs and other control
//! characters are written as `\n`, `\t`, `\u{..}`, so every event is one line.
//! Why not a crate: docs/decisions.md, "Logs".
//! A leaf: it uses the clock and the time format, nothing of the emulator.

use crate::clock::Clock;
use crate::engine::time::format_rfc3339;
use std::fmt::{self, Write};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The event formatter: `tracing_subscriber::fmt().event_format(Logfmt)`.
pub struct Logfmt;

impl<S, N> FormatEvent<S, N> for Logfmt
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        _ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        write!(
            writer,
            "ts={} level={} module={}",
            format_rfc3339(Clock::wall_millis()),
            level_name(meta.level()),
            meta.target()
        )?;
        // The message first, wherever the macro put it, then the other fields in order.
        let mut message = Fields::new(&mut writer, FieldsWanted::Message);
        event.record(&mut message);
        message.result?;
        let mut rest = Fields::new(&mut writer, FieldsWanted::AllButMessage);
        event.record(&mut rest);
        rest.result?;
        writeln!(writer)
    }
}

fn level_name(level: &Level) -> &'static str {
    match *level {
        Level::ERROR => "error",
        Level::WARN => "warn",
        Level::INFO => "info",
        Level::DEBUG => "debug",
        Level::TRACE => "trace",
    }
}

#[derive(PartialEq)]
enum FieldsWanted {
    Message,
    AllButMessage,
}

/// Writes each wanted field as ` key=value`; `message` is written as `msg`.
struct Fields<'w, W: Write> {
    out: &'w mut W,
    wanted: FieldsWanted,
    result: fmt::Result,
}

impl<'w, W: Write> Fields<'w, W> {
    fn new(out: &'w mut W, wanted: FieldsWanted) -> Self {
        Fields {
            out,
            wanted,
            result: Ok(()),
        }
    }

    /// The key to write `field` under, or `None` when this pass skips it.
    fn key(&self, field: &Field) -> Option<&'static str> {
        let is_message = field.name() == "message";
        match (&self.wanted, is_message) {
            (FieldsWanted::Message, true) => Some("msg"),
            (FieldsWanted::AllButMessage, false) => Some(field.name()),
            _ => None,
        }
    }

    /// ` key=`, in plain writes: the formatter's machinery costs more than the line's text.
    fn write_key(&mut self, key: &str) -> fmt::Result {
        self.out.write_char(' ')?;
        self.out.write_str(key)?;
        self.out.write_char('=')
    }

    fn write_raw(&mut self, field: &Field, value: fmt::Arguments<'_>) {
        if let Some(key) = self.key(field)
            && self.result.is_ok()
        {
            self.result = self.write_key(key).and_then(|()| self.out.write_fmt(value));
        }
    }

    fn write_text(&mut self, field: &Field, value: &str) {
        if let Some(key) = self.key(field)
            && self.result.is_ok()
        {
            self.result = self
                .write_key(key)
                .and_then(|()| write_value(self.out, value));
        }
    }
}

impl<W: Write> Visit for Fields<'_, W> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.write_text(field, value);
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.key(field).is_some() {
            self.write_text(field, &format!("{value:?}"));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.write_raw(field, format_args!("{value}"));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.write_raw(field, format_args!("{value}"));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.write_raw(field, format_args!("{value}"));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.write_raw(field, format_args!("{value}"));
    }
}

/// `value` as it is when it needs no quotes, else quoted and escaped.
pub fn write_value(out: &mut impl Write, value: &str) -> fmt::Result {
    let special = |c: char| c == ' ' || c == '=' || c == '"' || c == '\\' || c.is_control();
    // Bytes for ASCII, which request log values are; characters otherwise (C1 controls).
    let plain = !value.is_empty()
        && if value.is_ascii() {
            !value.bytes().any(|b| special(char::from(b)))
        } else {
            !value.chars().any(special)
        };
    if plain {
        return out.write_str(value);
    }
    out.write_char('"')?;
    for c in value.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if c.is_control() => write!(out, "\\u{{{:x}}}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(s: &str) -> String {
        let mut out = String::new();
        write_value(&mut out, s).unwrap();
        out
    }

    #[test]
    fn plain_values_stay_bare_and_others_are_quoted_and_escaped() {
        assert_eq!(value("ReceiveMessage"), "ReceiveMessage");
        assert_eq!(
            value("arn:aws:sqs:us-east-1:000000000000:q"),
            "arn:aws:sqs:us-east-1:000000000000:q"
        );
        assert_eq!(value(""), r#""""#);
        assert_eq!(value("no such queue"), r#""no such queue""#);
        assert_eq!(value("a=b"), r#""a=b""#);
        assert_eq!(value(r#"say "hi""#), r#""say \"hi\"""#);
        assert_eq!(value(r"C:\dir"), r#""C:\\dir""#);
        assert_eq!(value("two\nlines\tand\u{7}"), r#""two\nlines\tand\u{7}""#);
    }

    /// A whole line through a real subscriber: keys in order, `msg` first, one line.
    #[test]
    fn an_event_is_one_logfmt_line() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Buffer(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Buffer {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buffer = Buffer::default();
        let sink = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .event_format(Logfmt)
            .with_writer(move || sink.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(
                service = "sqs",
                status = 400u16,
                error_code = Some("AWS.SimpleQueueService.NonExistentQueue"),
                absent = None::<&str>,
                detail = %"no such queue",
                "request"
            );
        });
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        let (ts, rest) = text.split_once(' ').unwrap();
        assert!(ts.starts_with("ts=") && ts.ends_with('Z'), "{text}");
        assert_eq!(
            rest,
            "level=info module=switchyard::logfmt::tests msg=request service=sqs status=400 \
             error_code=AWS.SimpleQueueService.NonExistentQueue detail=\"no such queue\"\n"
        );
    }
}
