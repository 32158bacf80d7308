//! The log's line format: logfmt, one `key=value` line per event. `ts` (wall time), `level`,
//! `module` (the event's target, which `RUST_LOG` filters on) and `msg` come first, then the
//! event's own fields in the order they were written. A value is quoted when it is empty or
//! holds a space, a `=`, a quote, a backslash or a control character; inside quotes `"` and `\`
//! are escaped, and newlines, tabs and other control characters are written as `\n`, `\t`,
//! `\u{..}`, so every event is one line.
//!
//! The binary writes lines with [`LogfmtLayer`]: each line is formatted in one pass into a
//! buffer the thread keeps. A runtime worker keeps its lines until it runs out of work
//! ([`flush_thread`], the runtime's park hook) and any other thread hands each line on at once,
//! to a [`LineSink`] that writes at once when nothing else is being written and otherwise adds
//! the lines to the batch being written (docs/decisions.md, "Logs"). [`Logfmt`] is the same
//! format for `tracing-subscriber`'s `fmt` layer.
//! Why not a crate: docs/decisions.md, "Logs".
//! A leaf: it uses the clock and the time format, nothing of the emulator.

use crate::clock::Clock;
use crate::engine::time::format_rfc3339;
use std::cell::RefCell;
use std::fmt::{self, Write};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;
#[cfg(feature = "cli")]
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::{Event, Level};
#[cfg(feature = "cli")]
use tracing_subscriber::{
    fmt::format::Writer,
    fmt::{FmtContext, FormatEvent, FormatFields},
    layer::{Context, Layer},
    registry::LookupSpan,
};

/// The event formatter for `tracing-subscriber`'s `fmt` layer:
/// `tracing_subscriber::fmt().event_format(Logfmt)`. Writes what [`LogfmtLayer`] writes.
/// With the `cli` feature (tracing-subscriber), as [`LogfmtLayer`].
#[cfg(feature = "cli")]
pub struct Logfmt;

#[cfg(feature = "cli")]
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
        let mut line = String::new();
        write_line(&mut line, event);
        writer.write_str(&line)
    }
}

/// The layer that writes every event it is given as one logfmt line to its [`LineSink`]:
/// `tracing_subscriber::registry().with(filter).with(layer)`.
#[cfg(feature = "cli")]
pub struct LogfmtLayer<W> {
    sink: Arc<LineSink<W>>,
}

#[cfg(feature = "cli")]
impl<W: std::io::Write + Send + 'static> LogfmtLayer<W> {
    /// A layer writing to `out` (the binary's: stderr).
    pub fn new(out: W) -> Self {
        LogfmtLayer {
            sink: Arc::new(LineSink::new(out)),
        }
    }

    /// Where the lines go: [`LineSink::flush`] at shutdown.
    pub fn sink(&self) -> Arc<LineSink<W>> {
        self.sink.clone()
    }
}

#[cfg(feature = "cli")]
thread_local! {
    /// The line being formatted, kept from one event to the next so that a line allocates
    /// nothing once the buffer has grown.
    static LINE: RefCell<String> = const { RefCell::new(String::new()) };
}

#[cfg(feature = "cli")]
impl<S: Subscriber, W: std::io::Write + Send + 'static> Layer<S> for LogfmtLayer<W> {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let write = |line: &mut String| {
            line.clear();
            write_line(line, event);
            let batched = BATCH.with(|batch| match batch.try_borrow_mut() {
                Ok(mut batch) if batch.parks => {
                    batch.add(&self.sink, line);
                    true
                }
                _ => false,
            });
            if !batched {
                self.sink.write(line);
            }
        };
        // An event logged while one is formatted (a field's `Debug` that logs) gets a buffer
        // of its own.
        LINE.with(|line| match line.try_borrow_mut() {
            Ok(mut line) => write(&mut line),
            Err(_) => write(&mut String::new()),
        });
    }
}

/// How many bytes of lines a runtime worker keeps before it writes them without waiting to
/// park: about 50 request lines, a millisecond or two of a worker's requests under load.
#[cfg(feature = "cli")]
const BATCH_LIMIT: usize = 8 * 1024;

/// Where a [`LineSink`]'s lines can be handed, whatever it writes to.
trait Lines: Send + Sync {
    fn write_lines(&self, lines: &str);
}

impl<W: std::io::Write + Send> Lines for LineSink<W> {
    fn write_lines(&self, lines: &str) {
        self.write(lines);
    }
}

/// The lines a runtime worker thread has logged and not yet handed to its sink.
#[derive(Default)]
struct Batch {
    lines: String,
    sink: Option<Arc<dyn Lines>>,
    /// Whether this thread is a worker whose runtime calls [`flush_thread`] before it parks;
    /// other threads write each line at once.
    parks: bool,
}

impl Batch {
    #[cfg(feature = "cli")]
    fn add<W: std::io::Write + Send + 'static>(&mut self, sink: &Arc<LineSink<W>>, line: &str) {
        let same = |kept: &Arc<dyn Lines>| std::ptr::addr_eq(Arc::as_ptr(kept), Arc::as_ptr(sink));
        if !self.sink.as_ref().is_some_and(same) {
            self.flush();
            self.sink = Some(sink.clone());
        }
        self.lines.push_str(line);
        if self.lines.len() >= BATCH_LIMIT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if let Some(sink) = self.sink.as_ref().filter(|_| !self.lines.is_empty()) {
            sink.write_lines(&self.lines);
        }
        self.lines.clear();
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.flush();
    }
}

thread_local! {
    static BATCH: RefCell<Batch> = RefCell::new(Batch::default());
}

/// Writes the lines this thread has kept, and from now on keeps the lines it logs until it
/// calls this again (or has [`BATCH_LIMIT`] bytes of them, or ends). The binary's runtime calls
/// it on each worker before the worker parks (`on_thread_park`), so a worker's lines go out in
/// one write when it runs out of work instead of one write each (docs/decisions.md, "Logs").
pub fn flush_thread() {
    hand_over(true);
}

/// Writes the lines this thread has kept, and from now on writes each line at once: for a
/// worker that stops (`on_thread_stop`).
pub fn end_thread() {
    hand_over(false);
}

/// Writes this thread's kept lines; `parks` says whether it keeps the next ones.
fn hand_over(parks: bool) {
    let _ = BATCH.try_with(|batch| {
        if let Ok(mut batch) = batch.try_borrow_mut() {
            batch.parks = parks;
            batch.flush();
        }
    });
}

/// Appends `event` to `line` as one logfmt line, newline included.
pub fn write_line(line: &mut String, event: &Event<'_>) {
    let meta = event.metadata();
    line.push_str("ts=");
    push_time(line, Clock::wall_millis());
    line.push_str(" level=");
    line.push_str(level_name(meta.level()));
    line.push_str(" module=");
    line.push_str(meta.target());
    let header = line.len();
    let mut fields = Fields {
        line,
        message_end: header,
    };
    event.record(&mut fields);
    line.push('\n');
}

thread_local! {
    /// The second last written by this thread and its text up to the milliseconds
    /// (`2026-12-01T00:00:00.`): most lines fall in the same second as the one before.
    static SECOND: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
}

/// `now` as [`format_rfc3339`] writes it, the date and time of day made once a second.
fn push_time(line: &mut String, now: i64) {
    let (second, milli) = (now.div_euclid(1000), now.rem_euclid(1000));
    SECOND.with(|cached| {
        let mut cached = cached.borrow_mut();
        if cached.0 != second {
            let text = format_rfc3339(now);
            // Everything but the milliseconds and the `Z`.
            cached.1.clear();
            cached.1.push_str(&text[..text.len() - 4]);
            cached.0 = second;
        }
        line.push_str(&cached.1);
    });
    let digits = [milli / 100, milli / 10 % 10, milli % 10];
    for d in digits {
        line.push(char::from(b'0' + d as u8));
    }
    line.push('Z');
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

/// Writes each field as ` key=value` in one pass; `message` is written as `msg`, before the
/// other fields wherever the event put it (tracing's macros put it first).
struct Fields<'l> {
    line: &'l mut String,
    /// Where the messages written so far end: a message recorded after another field goes here.
    message_end: usize,
}

impl Fields<'_> {
    /// Appends ` key=` and then the value `write` appends; a message is moved to its place.
    fn field(&mut self, field: &Field, write: impl FnOnce(&mut String)) {
        let name = field.name();
        let start = self.line.len();
        self.line.push(' ');
        if name == "message" {
            self.line.push_str("msg");
        } else {
            self.line.push_str(name);
        }
        self.line.push('=');
        write(self.line);
        if name == "message" {
            if start != self.message_end {
                let text = self.line.split_off(start);
                self.line.insert_str(self.message_end, &text);
            }
            self.message_end += self.line.len() - start;
        }
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.field(field, |line| {
            let _ = write_value(line, value);
        });
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.field(field, |line| {
            // Written where it goes, then quoted only if it needs it (seldom: a message).
            let start = line.len();
            let _ = write!(line, "{value:?}");
            if needs_quotes(&line[start..]) {
                let text = line.split_off(start);
                let _ = write_value(line, &text);
            }
        });
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.field(field, |line| {
            if value < 0 {
                line.push('-');
            }
            push_u64(line, value.unsigned_abs());
        });
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.field(field, |line| push_u64(line, value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.field(field, |line| {
            let _ = write!(line, "{value}");
        });
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.field(field, |line| {
            line.push_str(if value { "true" } else { "false" })
        });
    }
}

/// `value` in decimal, as `{value}` writes it.
fn push_u64(line: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        line.push(char::from(d));
    }
}

/// Where the lines of a [`LogfmtLayer`] go: one writer at a time, and the lines that come while
/// it writes are its next batch (a "group commit"). A line is written at once when nothing else
/// is being written, so no line waits on a timer and none is held back; under load, lines
/// logged together go out in one write instead of one each.
pub struct LineSink<W> {
    pending: Mutex<Pending>,
    /// Told when the writer has written everything and stopped.
    idle: Condvar,
    /// Told when the writer takes the pending lines.
    taken: Condvar,
    /// How many bytes may wait while a write is under way: past it, a thread that logs waits
    /// for the writer (as it waited for stderr's lock before), so a stuck stderr holds requests
    /// up instead of filling memory.
    limit: usize,
    out: Mutex<W>,
}

/// [`LineSink`]'s limit of bytes waiting for the writer.
const PENDING_LIMIT: usize = 1 << 20;

#[derive(Default)]
struct Pending {
    /// Lines not yet handed to the writer.
    lines: String,
    /// Whether a thread is writing (and will write `lines` before it stops).
    writing: bool,
    /// Threads waiting for the writer to take the lines (past the limit), and for it to stop
    /// (a flush): a condition variable's wake-up is a system call even with nobody waiting,
    /// so the writer wakes only when someone is.
    blocked: usize,
    flushing: usize,
}

impl<W: std::io::Write> LineSink<W> {
    pub fn new(out: W) -> Self {
        Self::with_limit(out, PENDING_LIMIT)
    }

    fn with_limit(out: W, limit: usize) -> Self {
        LineSink {
            pending: Mutex::new(Pending::default()),
            idle: Condvar::new(),
            taken: Condvar::new(),
            limit,
            out: Mutex::new(out),
        }
    }

    /// Writes `line` now, or leaves it to the thread writing, which writes it next.
    pub fn write(&self, line: &str) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        while pending.writing && pending.lines.len() >= self.limit {
            pending.blocked += 1;
            pending = self
                .taken
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
            pending.blocked -= 1;
        }
        pending.lines.push_str(line);
        if pending.writing {
            return;
        }
        pending.writing = true;
        // The batch takes the pending buffer; the buffer goes back when all is written, so
        // neither allocates once grown.
        let mut batch = String::new();
        loop {
            std::mem::swap(&mut batch, &mut pending.lines);
            let blocked = pending.blocked > 0;
            drop(pending);
            if blocked {
                self.taken.notify_all();
            }
            {
                let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
                // A log that cannot be written is no reason to fail a request.
                let _ = out.write_all(batch.as_bytes());
                let _ = out.flush();
            }
            batch.clear();
            pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            if pending.lines.is_empty() {
                std::mem::swap(&mut batch, &mut pending.lines);
                pending.writing = false;
                if pending.flushing > 0 {
                    self.idle.notify_all();
                }
                return;
            }
        }
    }

    /// Waits (up to a second) until every line handed over is written: at shutdown, for lines
    /// another thread is still writing.
    pub fn flush(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        pending.flushing += 1;
        let (mut pending, _) = self
            .idle
            .wait_timeout_while(pending, Duration::from_secs(1), |p| p.writing)
            .unwrap_or_else(PoisonError::into_inner);
        pending.flushing -= 1;
    }
}

/// Whether `value` must be quoted: empty, or holding a space, `=`, `"`, `\` or a control
/// character.
fn needs_quotes(value: &str) -> bool {
    // Eight bytes at a time first: request log values (ids, names, ARNs) are plain ASCII.
    let mut words = value.as_bytes().chunks_exact(8);
    let plain = words.all(|w| plain_word(u64::from_le_bytes(w.try_into().expect("8 bytes")))) && {
        // The last bytes, made a word with plain ones.
        let mut last = [b'a'; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        plain_word(u64::from_le_bytes(last))
    };
    if plain && !value.is_empty() {
        return false;
    }
    let special = |c: char| c == ' ' || c == '=' || c == '"' || c == '\\' || c.is_control();
    value.is_empty() || value.chars().any(special)
}

/// Whether the eight bytes of `word` are all ASCII and none is a control character, a space,
/// `=`, `"` or `\`. Each test is exact as a whole (it may not tell which byte, but never misses
/// one).
fn plain_word(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` that is zero.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let equal = |b: u8| zero(word ^ (ONES * u64::from(b)));
    if word & HIGH != 0 {
        return false;
    }
    // Below 0x21: the controls and the space (every byte is ASCII here).
    let below = word.wrapping_sub(ONES * 0x21) & !word & HIGH;
    below | equal(b'=') | equal(b'"') | equal(b'\\') | equal(0x7f) == 0
}

/// `value` as it is when it needs no quotes, else quoted and escaped.
pub fn write_value(out: &mut impl Write, value: &str) -> fmt::Result {
    if !needs_quotes(value) {
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

// Some use tracing-subscriber, which comes with the `cli` feature.
#[cfg(all(test, feature = "cli"))]
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
        assert_eq!(value("del\u{7f}"), r#""del\u{7f}""#);
        assert_eq!(value("café"), "café");
        assert_eq!(value("café\u{85}"), r#""café\u{85}""#);
        assert_eq!(value("café bar"), r#""café bar""#);
    }

    /// The word-at-a-time check says what a check of each character says, for every ASCII
    /// byte at every place of a word and of the remainder.
    #[test]
    fn quoting_is_decided_as_by_each_character() {
        let slow = |v: &str| {
            v.is_empty()
                || v.chars()
                    .any(|c| c == ' ' || c == '=' || c == '"' || c == '\\' || c.is_control())
        };
        for len in 1..=17 {
            for at in 0..len {
                for b in 0u8..=127 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let v = String::from_utf8(bytes).unwrap();
                    assert_eq!(needs_quotes(&v), slow(&v), "{v:?}");
                }
                let mut v: String = "a".repeat(len - 1);
                v.insert(at, '\u{85}');
                assert!(needs_quotes(&v), "{v:?}");
                let mut v: String = "a".repeat(len - 1);
                v.insert(at, 'é');
                assert!(!needs_quotes(&v), "{v:?}");
            }
        }
        assert!(needs_quotes(""));
    }

    /// A whole line through a real subscriber: keys in order, `msg` first, one line.
    #[test]
    fn an_event_is_one_logfmt_line() {
        let text = logged(|| {
            tracing::info!(
                service = "sqs",
                status = 400u16,
                error_code = Some("AWS.SimpleQueueService.NonExistentQueue"),
                absent = None::<&str>,
                detail = %"no such queue",
                "request"
            );
        });
        let (ts, rest) = text.split_once(' ').unwrap();
        assert!(ts.starts_with("ts=") && ts.ends_with('Z'), "{text}");
        assert_eq!(
            rest,
            "level=info module=switchyard::logfmt::tests msg=request service=sqs status=400 \
             error_code=AWS.SimpleQueueService.NonExistentQueue detail=\"no such queue\"\n"
        );
    }

    /// What [`LogfmtLayer`] writes, without the `ts=...` it starts with.
    fn logged(log: impl FnOnce()) -> String {
        use tracing_subscriber::layer::SubscriberExt;
        let buffer = Buffer::default();
        let subscriber = tracing_subscriber::registry().with(LogfmtLayer::new(buffer.clone()));
        tracing::subscriber::with_default(subscriber, log);
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

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

    /// The `fmt` layer's formatter writes the same line.
    #[test]
    fn the_fmt_layer_writes_the_same_line() {
        let buffer = Buffer::default();
        let sink = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .event_format(Logfmt)
            .with_writer(move || sink.clone())
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(count = 3u64, "a b");
        });
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        let (_, rest) = text.split_once(' ').unwrap();
        assert_eq!(
            rest,
            "level=warn module=switchyard::logfmt::tests msg=\"a b\" count=3\n"
        );
    }

    /// Every kind of value, and a message written after the fields: it still comes first.
    #[test]
    fn values_of_every_kind_and_a_late_message() {
        let text = logged(|| {
            tracing::debug!(
                a = -12i64,
                b = 0u64,
                c = u64::MAX,
                d = true,
                e = 1.5f64,
                f = "",
                g = ?vec!["x"],
                h = %"tab\there",
                message = "late",
                i = i64::MIN,
            );
            tracing::error!(x = 1u64, message = "one", message = "two words");
        });
        let lines: Vec<&str> = text.lines().map(|l| l.split_once(' ').unwrap().1).collect();
        assert_eq!(
            lines,
            [
                "level=debug module=switchyard::logfmt::tests msg=late a=-12 b=0 \
                 c=18446744073709551615 d=true e=1.5 f=\"\" g=\"[\\\"x\\\"]\" \
                 h=\"tab\\there\" i=-9223372036854775808",
                "level=error module=switchyard::logfmt::tests msg=one msg=\"two words\" x=1",
            ]
        );
    }

    /// The time is [`format_rfc3339`]'s, whether the second was cached or not.
    #[test]
    fn times_are_written_as_rfc3339_with_milliseconds() {
        for now in [
            0,
            999,
            1_000,
            1_764_547_200_123,
            1_764_547_200_999,
            1_764_547_201_000,
        ] {
            let mut line = String::new();
            push_time(&mut line, now);
            assert_eq!(line, format_rfc3339(now), "{now}");
        }
    }

    /// A runtime worker (a thread that has called [`flush_thread`]) keeps its lines until it
    /// calls it again, has [`BATCH_LIMIT`] bytes of them, stops or ends; any other thread's
    /// lines are written at once.
    #[test]
    fn a_worker_keeps_its_lines_until_it_parks_fills_a_batch_or_ends() {
        use tracing_subscriber::layer::SubscriberExt;
        let buffer = Buffer::default();
        let text = {
            let buffer = buffer.clone();
            move || String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
        };
        let layer = LogfmtLayer::new(buffer.clone());
        let subscriber = Arc::new(tracing_subscriber::registry().with(layer));
        let on_thread = |work: Box<dyn FnOnce() + Send>| {
            let subscriber = subscriber.clone();
            std::thread::spawn(move || tracing::subscriber::with_default(subscriber, work))
                .join()
                .unwrap();
        };
        let read = text.clone();
        on_thread(Box::new(move || {
            tracing::info!("not a worker yet");
            assert!(read().contains("msg=\"not a worker yet\""));
            flush_thread();
            tracing::info!("kept");
            assert!(!read().contains("msg=kept"));
            flush_thread();
            assert!(read().contains("msg=kept"));
            let filler = "x".repeat(200);
            for _ in 0..BATCH_LIMIT / 200 {
                tracing::info!(filler, "filling");
            }
            assert!(
                read().contains("msg=filling"),
                "written once the batch is full"
            );
            tracing::info!("before the stop");
            end_thread();
            assert!(read().contains("msg=\"before the stop\""));
            tracing::info!("after the stop");
            assert!(read().contains("msg=\"after the stop\""));
            flush_thread();
            tracing::info!("kept when the thread ends");
            assert!(!read().contains("msg=\"kept when the thread ends\""));
        }));
        let all = text();
        assert!(all.contains("msg=\"kept when the thread ends\""), "{all}");
        assert_eq!(
            all.lines().filter(|l| l.contains("msg=filling")).count(),
            BATCH_LIMIT / 200
        );
        assert!(all.ends_with('\n'));
    }

    /// Lines logged from many threads at once all arrive whole, each thread's in its order.
    #[test]
    fn lines_from_many_threads_arrive_whole() {
        let buffer = Buffer::default();
        // A small limit, so that threads also wait for the writer.
        let sink = Arc::new(LineSink::with_limit(buffer.clone(), 64));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let sink = sink.clone();
                std::thread::spawn(move || {
                    for i in 0..500 {
                        sink.write(&format!("thread={t} line={i}\n"));
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        sink.flush();
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        for t in 0..4 {
            let mine: Vec<String> = text
                .lines()
                .filter(|l| l.starts_with(&format!("thread={t} ")))
                .map(str::to_string)
                .collect();
            let expected: Vec<String> = (0..500).map(|i| format!("thread={t} line={i}")).collect();
            assert_eq!(mine, expected);
        }
        assert_eq!(text.lines().count(), 2000);
    }
}
