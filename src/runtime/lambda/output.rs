//! What an environment's process writes, as lines of the invocations' logs. Its stdout and
//! stderr are the two ends of one pipe, so their lines keep the order they were written in.
//! A task reads the pipe as data arrives; the invocation side reads what is left at the moments
//! that decide which log a line belongs to (the event handed out, the answer received), under
//! the same lock, so no line is read twice or out of order.
//!
//! Lines written before an invocation's event is handed out (at init, or between invocations)
//! go to that invocation's log before its START line, as AWS's log stream shows a cold start's
//! init output; the lines written while it runs go between START and END. A runtime answers
//! only after its handler's writes (switchyard's loops flush first; a pipe write is done when it
//! returns), so the handler's lines are in the pipe when the answer comes.

use std::io::{self, ErrorKind};
use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::net::unix::pipe;

/// How much one read takes from the pipe.
const CHUNK: usize = 16 * 1024;

/// A line longer than this is cut there (a runtime writing without newlines fills no memory).
const LONGEST_LINE: usize = 256 * 1024;

/// The read end of an environment's output pipe and the lines read from it so far.
pub(super) struct Output {
    pipe: pipe::Receiver,
    lines: Mutex<Lines>,
}

#[derive(Default)]
struct Lines {
    /// Whole lines not yet taken, each ending with `\n`.
    done: String,
    /// The bytes after the last newline.
    partial: Vec<u8>,
    /// The write end is closed everywhere: the process (and its children) are gone.
    closed: bool,
}

impl Output {
    /// The output of the pipe whose read end is `fd`; [`Output::read_all`] runs until it closes.
    pub(super) fn new(fd: OwnedFd) -> io::Result<Arc<Output>> {
        Ok(Arc::new(Output {
            pipe: pipe::Receiver::from_owned_fd(fd)?,
            lines: Mutex::new(Lines::default()),
        }))
    }

    /// Reads the pipe as data arrives, until every writer has closed it.
    pub(super) async fn read_all(self: Arc<Output>) {
        loop {
            if self.pipe.readable().await.is_err() || self.drain() {
                return;
            }
        }
    }

    /// Reads what the pipe holds now, without waiting. True once the pipe is closed.
    pub(super) fn drain(&self) -> bool {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        let mut chunk = vec![0u8; CHUNK];
        while !lines.closed {
            match self.pipe.try_read(&mut chunk) {
                Ok(0) => lines.closed = true,
                Ok(n) => lines.push(chunk.get(..n).unwrap_or_default()),
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => lines.closed = true,
            }
        }
        if lines.closed {
            lines.end_partial();
        }
        lines.closed
    }

    /// The whole lines read so far (after reading what the pipe holds now), taken: the part of
    /// the log up to this moment. With `all`, a last line without its newline too.
    pub(super) fn take(&self, all: bool) -> String {
        self.drain();
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if all {
            lines.end_partial();
        }
        std::mem::take(&mut lines.done)
    }
}

impl Lines {
    fn push(&mut self, mut bytes: &[u8]) {
        while let Some(at) = bytes.iter().position(|b| *b == b'\n') {
            let (line, rest) = bytes.split_at(at);
            self.partial.extend_from_slice(line);
            self.end_partial();
            bytes = rest.get(1..).unwrap_or_default();
        }
        self.partial.extend_from_slice(bytes);
        while self.partial.len() >= LONGEST_LINE {
            let rest = self.partial.split_off(LONGEST_LINE);
            self.end_partial();
            self.partial = rest;
        }
    }

    /// Ends the partial line (if any) as a line of its own.
    fn end_partial(&mut self) {
        if self.partial.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.partial);
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        self.done.push_str(&String::from_utf8_lossy(line));
        self.done.push('\n');
    }
}

/// The peak resident memory of process `pid` in MB (`VmHWM` of `/proc/<pid>/status`, Linux), 0
/// when it cannot be read. AWS's "Max Memory Used" is the environment's peak too.
pub(super) fn max_memory_mb(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    let kb = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .unwrap_or(0);
    kb.div_ceil(1024)
}

/// What an invocation's REPORT line says.
pub(super) struct Report<'a> {
    pub request_id: &'a str,
    pub duration: Duration,
    pub memory_mb: u32,
    pub max_memory_mb: u64,
    /// The environment's init, on a cold start.
    pub init: Option<Duration>,
    /// `timeout` or `error` (with the error's type) when the invocation did not end by answering.
    pub status: Option<&'a str>,
}

impl Report<'_> {
    /// AWS's line: `REPORT RequestId: <id>\tDuration: 12.34 ms\tBilled Duration: 13 ms\t
    /// Memory Size: 128 MB\tMax Memory Used: 40 MB`, then `\tInit Duration: 123.45 ms` on a cold
    /// start and `\tStatus: timeout` (or `error`) when it failed so. Billed duration is the
    /// duration in whole milliseconds, rounded up.
    pub(super) fn line(&self) -> String {
        let mut line = format!(
            "REPORT RequestId: {}\tDuration: {:.2} ms\tBilled Duration: {} ms\tMemory Size: {} MB\tMax Memory Used: {} MB",
            self.request_id,
            millis(self.duration),
            billed_ms(self.duration),
            self.memory_mb,
            self.max_memory_mb,
        );
        if let Some(init) = self.init {
            line.push_str(&format!("\tInit Duration: {:.2} ms", millis(init)));
        }
        if let Some(status) = self.status {
            line.push_str(&format!("\tStatus: {status}"));
        }
        line
    }
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Whole milliseconds, rounded up (at least 1).
pub(super) fn billed_ms(d: Duration) -> u128 {
    d.as_nanos().div_ceil(1_000_000).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_at_newlines_and_cut_when_too_long() {
        let mut lines = Lines::default();
        lines.push(b"one\ntw");
        lines.push(b"o\r\nthree");
        assert_eq!(lines.done, "one\ntwo\n");
        lines.end_partial();
        assert_eq!(lines.done, "one\ntwo\nthree\n");
        let mut long = Lines::default();
        long.push(&vec![b'x'; LONGEST_LINE + 3]);
        assert_eq!(long.done.len(), LONGEST_LINE + 1);
        assert_eq!(long.partial.len(), 3);
    }

    #[test]
    fn the_report_line_is_aws_s() {
        let report = Report {
            request_id: "id",
            duration: Duration::from_micros(12_341),
            memory_mb: 128,
            max_memory_mb: 40,
            init: Some(Duration::from_micros(123_451)),
            status: None,
        };
        assert_eq!(
            report.line(),
            "REPORT RequestId: id\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 40 MB\tInit Duration: 123.45 ms"
        );
        assert_eq!(billed_ms(Duration::from_millis(3)), 3);
        assert_eq!(billed_ms(Duration::ZERO), 1);
    }

    #[test]
    fn peak_memory_is_read_from_proc() {
        if cfg!(target_os = "linux") {
            assert!(max_memory_mb(std::process::id()) > 0);
        }
        assert_eq!(max_memory_mb(u32::MAX), 0);
    }
}
