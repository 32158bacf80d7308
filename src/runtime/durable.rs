//! `--state-dir`: the state kept in an embedded transactional store (redb; docs/decisions.md,
//! "Durable state"), as a journal of the [`Command`]s that changed it.
//!
//! Every command is appended under the state's lock (so the journal's order is the order the
//! commands were applied in) and committed by one writer thread, which takes whatever has been
//! appended since its last commit into one transaction (group commit). A request is answered
//! only once its entry is committed: what switchyard acknowledged survives a `kill -9`. A
//! restart applies the journal again to a fresh state made with the stored settings; the state
//! being deterministic, it ends where the old process was (docs/state.md).

use crate::clock::ClockMode;
use crate::dispatch::Dispatch;
use crate::dispatch::commands::Command;
use crate::engine::Effect;
use crate::engine::Settings;
use crate::engine::time::Millis;
use crate::state::State;
use redb::{Database, DatabaseError, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use tokio::sync::watch;

/// The version of what a state directory holds; a directory of another version is refused.
pub const VERSION: u64 = 1;

/// The store's file inside the state directory.
pub const FILE: &str = "switchyard.redb";

/// What the directory is, its version, and the settings its state was made with.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// The journal, a row a commit: the sequence number of the row's first entry → its entries, each
/// a line of JSON (compact JSON holds no newline), numbered on from the row's key.
const JOURNAL: TableDefinition<u64, &[u8]> = TableDefinition::new("journal");
/// The last checkpoint: a state snapshot file (docs/control-api.md, "State snapshots") in
/// chunks, chunk number → bytes; the journal holds only what came after it.
const CHECKPOINT: TableDefinition<u64, &[u8]> = TableDefinition::new("checkpoint");
/// The size of a checkpoint's chunks.
const CHUNK: usize = 16 << 20;
/// Journal bytes after which a checkpoint is taken (or more: as many as the last checkpoint
/// had, so that a restart reads at most about twice its state).
const CHECKPOINT_AFTER: u64 = 64 << 20;

/// Where a checkpoint stands: the journal's entries from `next` on come after it; `at` and
/// `wall` are the virtual and wall-clock times it was taken at.
#[derive(Debug, Serialize, Deserialize)]
struct Mark {
    next: u64,
    at: Millis,
    wall: Millis,
}

/// The settings a state was made with, kept so that a restart makes the same one.
#[derive(Debug, Serialize, Deserialize)]
struct Genesis {
    format: String,
    version: u64,
    #[serde(flatten)]
    settings: Settings,
}

const FORMAT: &str = "switchyard-state-dir";

/// A journal entry: the command, the virtual time it was applied at, and the wall-clock time
/// (epoch milliseconds) it was appended at, so that a `fast` clock resumes where it would be.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    at: Millis,
    wall: Millis,
    command: Command,
}

/// Why a state directory cannot be used. Each names the path and the cause.
#[derive(Debug)]
pub struct StateDirError(pub String);

impl std::fmt::Display for StateDirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateDirError {}

/// A state restored from its directory, and what the runtime resumes from it.
pub struct Recovered {
    /// The clock mode to run with: the directory's own unless `--clock` was given.
    pub clock: ClockMode,
    pub state: State,
    pub journal: Journal,
    /// The virtual time of the last change, and the wall-clock time it was made at.
    pub last: Option<(Millis, Millis)>,
    /// HTTP deliveries that were under way when the old process stopped: attempted again.
    pub in_flight: Vec<Effect>,
    /// How many journal entries were applied.
    pub replayed: u64,
}

/// Opens (or makes) the state directory `dir`: checks it, takes it for this process, and
/// rebuilds the state it holds, made with `settings` if it is new.
pub fn open(
    dir: &Path,
    settings: Settings,
    lambda_endpoints: HashMap<String, String>,
    (clock, clock_from_dir): (ClockMode, bool),
) -> Result<Recovered, StateDirError> {
    let fail = |cause: String| StateDirError(format!("state directory {}: {cause}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create it: {e}")))?;
    if !dir.is_dir() {
        return Err(fail("not a directory".into()));
    }
    let path = dir.join(FILE);
    let db = Database::builder()
        .set_cache_size(16 << 20)
        .set_check_integrity_on_open(true)
        .create_with_backend(Filled::open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                fail(format!("{} is not writable: {e}", path.display()))
            }
            _ => fail(format!("{} cannot be opened: {e}", path.display())),
        })?)
        .map_err(|e| match e {
            DatabaseError::DatabaseAlreadyOpen => fail(format!(
                "{} is in use by another switchyard process (one process per state directory)",
                path.display()
            )),
            DatabaseError::Storage(redb::StorageError::Io(e))
                if e.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                fail(format!("{} is not writable: {e}", path.display()))
            }
            e => fail(format!("{} cannot be opened: {e}", path.display())),
        })?;
    let store_error = |e: redb::Error| fail(format!("{}: {e}", path.display()));
    let stored_clock = read_meta(&db, "clock")
        .map_err(store_error)?
        .and_then(|mode| String::from_utf8(mode).ok()?.parse::<ClockMode>().ok());
    let clock = match stored_clock {
        Some(stored) if clock_from_dir => stored,
        _ => clock,
    };
    let genesis = read_genesis(&db).map_err(store_error)?;
    let genesis = match genesis {
        Some(Ok(g)) if g.format == FORMAT && g.version == VERSION => g,
        Some(Ok(g)) if g.format == FORMAT => {
            return Err(fail(format!(
                "{} holds state of version {}, and this switchyard reads version {VERSION}; \
                 start it with another --state-dir, or remove the directory",
                path.display(),
                g.version
            )));
        }
        Some(_) => {
            return Err(fail(format!(
                "{} is not a switchyard state (its description is unreadable)",
                path.display()
            )));
        }
        None => {
            let g = Genesis {
                format: FORMAT.into(),
                version: VERSION,
                settings,
            };
            write_genesis(&db, &g).map_err(store_error)?;
            g
        }
    };
    let settings = genesis.settings;
    let mark: Option<Mark> = read_meta(&db, "checkpoint")
        .map_err(store_error)?
        .map(|m| serde_json::from_slice(&m))
        .transpose()
        .map_err(|e| {
            fail(format!(
                "{}: its checkpoint mark is unreadable ({e})",
                path.display()
            ))
        })?;
    let mut state = match &mark {
        None => crate::dispatch::new_state(settings, lambda_endpoints),
        Some(_) => {
            let bytes = read_checkpoint(&db).map_err(store_error)?;
            crate::dispatch::read_snapshot(&bytes, lambda_endpoints, false).map_err(|e| {
                fail(format!(
                    "{}: its checkpoint is unreadable ({e}); the file is damaged",
                    path.display()
                ))
            })?
        }
    };
    let start = mark.as_ref().map(|m| (m.next, (m.at, m.wall)));
    let (last, next, replayed, in_flight) =
        replay(&db, &mut state, start).map_err(|e| match e {
            Replay::Store(e) => store_error(e),
            Replay::Entry(seq, e) => fail(format!(
                "{}: journal entry {seq} is unreadable ({e}); the file is damaged",
                path.display()
            )),
            Replay::Panicked(seq, message) => fail(format!(
                "{}: journal entry {seq} panicked when applied again ({message}), as its request \
                 did when it was first applied: the state after it is not whole. Start with \
                 another --state-dir, or remove this one; please report the panic",
                path.display()
            )),
        })?;
    write_meta(&db, "clock", clock.arg().as_bytes()).map_err(store_error)?;
    Ok(Recovered {
        clock,
        state,
        journal: Journal::start(db, next),
        last,
        in_flight,
        replayed,
    })
}

fn read_genesis(db: &Database) -> Result<Option<Result<Genesis, serde_json::Error>>, redb::Error> {
    Ok(read_meta(db, "genesis")?.map(|g| serde_json::from_slice(&g)))
}

/// The last checkpoint's bytes, its chunks put together.
fn read_checkpoint(db: &Database) -> Result<Vec<u8>, redb::Error> {
    let read = db.begin_read()?;
    let chunks = read.open_table(CHECKPOINT)?;
    let mut bytes = Vec::new();
    for chunk in chunks.iter()? {
        bytes.extend_from_slice(chunk?.1.value());
    }
    Ok(bytes)
}

fn read_meta(db: &Database, key: &str) -> Result<Option<Vec<u8>>, redb::Error> {
    let read = db.begin_read()?;
    let meta = match read.open_table(META) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(meta.get(key)?.map(|v| v.value().to_vec()))
}

fn write_meta(db: &Database, key: &str, value: &[u8]) -> Result<(), redb::Error> {
    let write = db.begin_write()?;
    write.open_table(META)?.insert(key, value)?;
    write.commit()?;
    Ok(())
}

fn write_genesis(db: &Database, genesis: &Genesis) -> Result<(), redb::Error> {
    let bytes = serde_json::to_vec(genesis).map_err(|e| redb::Error::Corrupted(e.to_string()))?;
    let write = db.begin_write()?;
    {
        let mut meta = write.open_table(META)?;
        meta.insert("genesis", bytes.as_slice())?;
        write.open_table(JOURNAL)?;
    }
    write.commit()?;
    Ok(())
}

enum Replay {
    Store(redb::Error),
    Entry(u64, serde_json::Error),
    /// The entry panicked when applied again, with the panic's message.
    Panicked(u64, String),
}

macro_rules! store_errors {
    ($($e:ty),*) => {$(
        impl From<$e> for Replay {
            fn from(e: $e) -> Self {
                Replay::Store(e.into())
            }
        }
    )*};
}
store_errors!(
    redb::Error,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError
);

type Replayed = (Option<(Millis, Millis)>, u64, u64, Vec<Effect>);

/// Applies every journal entry to `state`, in order, each at its virtual time. Answers the time
/// of the last, the next sequence number, how many were applied, and the HTTP deliveries still
/// waiting for an answer.
fn replay(
    db: &Database,
    state: &mut State,
    checkpoint: Option<(u64, (Millis, Millis))>,
) -> Result<Replayed, Replay> {
    replay_with(db, state, checkpoint, apply_entry)
}

/// Applies one journal entry at its virtual time.
fn apply_entry(state: &mut State, entry: Entry) {
    state.run_until(entry.at);
    // Token requests: their answers are in the journal, or never came.
    let _ = state.apply(entry.command);
}

/// [`replay`], each entry applied by `apply`.
///
/// An entry whose request panicked under the lock is in the journal (it is appended before it
/// is applied), and it panics again here. The running switchyard served nothing from the state
/// it left (a broken state answers 500 until a reset or a state load, which take a checkpoint),
/// so the restart stops at it with the reason instead of panicking.
fn replay_with(
    db: &Database,
    state: &mut State,
    checkpoint: Option<(u64, (Millis, Millis))>,
    mut apply: impl FnMut(&mut State, Entry),
) -> Result<Replayed, Replay> {
    let read = db.begin_read()?;
    let journal = read.open_table(JOURNAL)?;
    let (mut next, mut last) = checkpoint.map_or((0, None), |(next, last)| (next, Some(last)));
    let mut count = 0;
    for row in journal.iter()? {
        let (first, lines) = row?;
        for (n, line) in lines.value().split(|b| *b == b'\n').enumerate() {
            let seq = first.value() + n as u64;
            let entry: Entry = serde_json::from_slice(line).map_err(|e| Replay::Entry(seq, e))?;
            let (at, wall) = (entry.at, entry.wall);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| apply(state, entry)))
                .map_err(|p| Replay::Panicked(seq, crate::panics::message(p.as_ref())))?;
            // What the runtime sent then was sent; whatever is still awaited is asked below.
            state.take_effects();
            state.take_woken();
            last = Some((at, wall));
            next = seq + 1;
            count += 1;
        }
    }
    // The HTTP attempts sent and never answered (the engine marks them), in the order the
    // deliveries started.
    state.engine.resume();
    Ok((last, next, count, state.take_effects()))
}

/// The journal's writer: entries appended under the state's lock, committed in groups by one
/// thread.
pub struct Journal {
    shared: Arc<Shared>,
    committed: watch::Receiver<u64>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    queue: Mutex<Queue>,
    more: Condvar,
    committed: watch::Sender<u64>,
}

impl Shared {
    /// The queue, locked (a panic elsewhere while it was held leaves it as it was).
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What the writer commits, in order.
enum Item {
    Entry(u64, Vec<u8>),
    /// A state snapshot standing for every entry before `seq` (its own number).
    Checkpoint {
        seq: u64,
        at: Millis,
        wall: Millis,
        bytes: Vec<u8>,
    },
}

impl Item {
    fn seq(&self) -> u64 {
        match self {
            Item::Entry(seq, _) | Item::Checkpoint { seq, .. } => *seq,
        }
    }
}

#[derive(Default)]
struct Queue {
    /// The sequence number of the next entry.
    next: u64,
    entries: Vec<Item>,
    /// Journal bytes appended since the last checkpoint, and that checkpoint's size.
    since_checkpoint: u64,
    checkpoint_size: u64,
    /// [`CHECKPOINT_AFTER`], or `SWITCHYARD_CHECKPOINT_BYTES` (tests take checkpoints often).
    checkpoint_after: u64,
    closing: bool,
    /// Whether the writer waits for entries: only then does an append wake it (a wake-up is a
    /// system call, and while the writer commits, appends come many to a commit).
    writer_idle: bool,
    /// Why the last commit failed: every later wait fails with it.
    failed: Option<String>,
}

/// An appended entry, to wait for with [`Journal::durable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(u64);

impl Journal {
    fn start(db: Database, next: u64) -> Journal {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                next,
                checkpoint_after: std::env::var("SWITCHYARD_CHECKPOINT_BYTES")
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(CHECKPOINT_AFTER),
                ..Queue::default()
            }),
            more: Condvar::new(),
            committed: watch::Sender::new(next),
        });
        let committed = shared.committed.subscribe();
        let writer = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("switchyard-journal".into())
                .spawn(move || write_loop(db, &shared))
                .expect("the journal's writer thread starts")
        };
        Journal {
            shared,
            committed,
            writer: Mutex::new(Some(writer)),
        }
    }

    /// A command's encoding, made before the lock is taken.
    pub fn encode(command: &impl Serialize) -> Encoded {
        Encoded(serde_json::to_vec(command).expect("a command is JSON"))
    }

    /// Appends the command `encoded`, applied at virtual time `at`. Call it under the state's
    /// lock, so that the journal's order is the order of the changes.
    pub fn append(&self, at: Millis, encoded: Encoded) -> Ticket {
        let wall = crate::clock::Clock::wall_millis();
        let mut bytes = Vec::with_capacity(encoded.0.len() + 64);
        bytes.extend_from_slice(format!("{{\"at\":{at},\"wall\":{wall},\"command\":").as_bytes());
        bytes.extend_from_slice(&encoded.0);
        bytes.push(b'}');
        let mut queue = self.shared.queue();
        let seq = queue.next;
        queue.next += 1;
        queue.since_checkpoint += bytes.len() as u64;
        queue.entries.push(Item::Entry(seq, bytes));
        let idle = queue.writer_idle;
        drop(queue);
        if idle {
            self.shared.more.notify_one();
        }
        Ticket(seq)
    }

    /// Appends a checkpoint: `snapshot`, the state as it is after every entry appended so far
    /// (so call it under the state's lock), taken at virtual time `at`. Once committed, the
    /// journal before it is gone.
    pub fn checkpoint(&self, at: Millis, snapshot: Vec<u8>) -> Ticket {
        let wall = crate::clock::Clock::wall_millis();
        let mut queue = self.shared.queue();
        let seq = queue.next;
        queue.next += 1;
        queue.since_checkpoint = 0;
        queue.checkpoint_size = snapshot.len() as u64;
        queue.entries.push(Item::Checkpoint {
            seq,
            at,
            wall,
            bytes: snapshot,
        });
        drop(queue);
        self.shared.more.notify_one();
        Ticket(seq)
    }

    /// Whether the journal since the last checkpoint has grown enough for another: past
    /// [`CHECKPOINT_AFTER`] and past the last checkpoint's size.
    pub fn wants_checkpoint(&self) -> bool {
        let queue = self.shared.queue();
        queue.since_checkpoint > queue.checkpoint_after.max(queue.checkpoint_size)
    }

    /// Whether anything was journaled since the last checkpoint.
    pub fn has_news(&self) -> bool {
        let queue = self.shared.queue();
        queue.since_checkpoint > 0
    }

    /// Resolves once the entry of `ticket` is committed; `Err` when the store failed.
    pub async fn durable(&self, ticket: Ticket) -> Result<(), String> {
        let mut committed = self.committed.clone();
        let reached = committed.wait_for(|c| *c > ticket.0).await.is_ok();
        let queue = self.shared.queue();
        match (&queue.failed, reached) {
            (Some(e), _) => Err(e.clone()),
            (None, true) => Ok(()),
            (None, false) => Err("the journal is closed".into()),
        }
    }

    /// Commits what is appended, stops the writer and lets go of the store.
    pub fn close(&self) {
        self.shared.queue().closing = true;
        self.shared.more.notify_one();
        let writer = self
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        // Whatever is appended from now on is never committed: its waiters fail at once.
        let mut queue = self.shared.queue();
        queue
            .failed
            .get_or_insert_with(|| "switchyard is shutting down".into());
        drop(queue);
        self.shared.committed.send_replace(u64::MAX);
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        self.close();
    }
}

/// A command encoded for the journal ([`Journal::encode`]).
#[derive(Debug)]
pub struct Encoded(Vec<u8>);

/// The writer thread: commits whatever was appended since the last commit, in one transaction.
fn write_loop(db: Database, shared: &Shared) {
    loop {
        let entries = {
            let mut queue = shared.queue();
            while queue.entries.is_empty() && !queue.closing {
                queue.writer_idle = true;
                queue = shared
                    .more
                    .wait(queue)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            queue.writer_idle = false;
            if queue.entries.is_empty() {
                return;
            }
            std::mem::take(&mut queue.entries)
        };
        let last = entries.last().map_or(0, Item::seq);
        match commit(&db, &entries) {
            Ok(()) => {
                shared.committed.send_replace(last + 1);
            }
            Err(e) => {
                let message = format!("the state directory's store failed: {e}");
                tracing::error!(error = %e, "state directory write failed; stopping");
                shared.queue().failed = Some(message);
                // Wake the waiters with the failure; nothing more is committed.
                shared.committed.send_replace(u64::MAX);
                return;
            }
        }
    }
}

fn commit(db: &Database, items: &[Item]) -> Result<(), redb::Error> {
    let write = db.begin_write()?;
    // The entries between checkpoints go in as one row, keyed by the first one's number: one
    // insertion a commit, however many requests share it.
    let mut lines = Vec::new();
    for run in items.split_inclusive(|item| matches!(item, Item::Checkpoint { .. })) {
        lines.clear();
        let mut first = None;
        for item in run {
            if let Item::Entry(seq, bytes) = item {
                if first.is_some() {
                    lines.push(b'\n');
                }
                first.get_or_insert(*seq);
                lines.extend_from_slice(bytes);
            }
        }
        if let Some(first) = first {
            write.open_table(JOURNAL)?.insert(first, lines.as_slice())?;
        }
        let Some(item) = run.last() else {
            continue;
        };
        match item {
            Item::Entry(..) => {}
            Item::Checkpoint {
                seq,
                at,
                wall,
                bytes,
            } => {
                write.open_table(JOURNAL)?.retain_in(..*seq, |_, _| false)?;
                write.delete_table(CHECKPOINT)?;
                let mut chunks = write.open_table(CHECKPOINT)?;
                for (n, chunk) in bytes.chunks(CHUNK).enumerate() {
                    chunks.insert(n as u64, chunk)?;
                }
                drop(chunks);
                let mark = Mark {
                    next: seq + 1,
                    at: *at,
                    wall: *wall,
                };
                let mark =
                    serde_json::to_vec(&mark).map_err(|e| redb::Error::Corrupted(e.to_string()))?;
                write
                    .open_table(META)?
                    .insert("checkpoint", mark.as_slice())?;
            }
        }
    }
    write.commit()?;
    Ok(())
}

/// redb's file backend, with the file's growth written out as zeros instead of left as a hole.
///
/// A commit writes a few pages and calls `fdatasync`. Pages that land in a hole make ext4
/// allocate their blocks, and that `fdatasync` must then write the allocation too; on the
/// project's machine a commit took about 400 µs with holes and 330 µs without (docs/benchmarks.md,
/// "State directory"). The file grows seldom and in large steps, so the zeros cost little.
#[derive(Debug)]
struct Filled(redb::backends::FileBackend);

impl Filled {
    fn open(path: &Path) -> std::io::Result<Filled> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        Ok(Filled(redb::backends::FileBackend::new(file)))
    }
}

/// The zeros [`Filled`] writes at a time.
const ZEROS: u64 = 1 << 20;

type BackendResult<T> = Result<T, redb::BackendError>;
type Bound = std::ops::Bound<u64>;

impl redb::StorageBackend for Filled {
    fn len(&self) -> BackendResult<u64> {
        self.0.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> BackendResult<()> {
        self.0.read(offset, out)
    }
    fn set_len(&self, len: u64) -> BackendResult<()> {
        let mut at = self.0.len()?;
        let zeros = vec![0; ZEROS.min(len.saturating_sub(at)) as usize];
        while at < len {
            let n = (len - at).min(zeros.len() as u64);
            self.0.write(at, &zeros[..n as usize])?;
            at += n;
        }
        self.0.set_len(len)
    }
    fn sync_data(&self) -> BackendResult<()> {
        self.0.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> BackendResult<()> {
        self.0.write(offset, data)
    }
    fn close(&self) -> BackendResult<()> {
        self.0.close()
    }
    fn try_lock_range(&self, start: Bound, end: Bound) -> BackendResult<bool> {
        self.0.try_lock_range(start, end)
    }
    fn try_lock_shared_range(&self, start: Bound, end: Bound) -> BackendResult<bool> {
        self.0.try_lock_shared_range(start, end)
    }
    fn lock_range(&self, start: Bound, end: Bound) -> BackendResult<()> {
        self.0.lock_range(start, end)
    }
    fn lock_shared_range(&self, start: Bound, end: Bound) -> BackendResult<()> {
        self.0.lock_shared_range(start, end)
    }
    fn unlock_range(&self, start: Bound, end: Bound) -> BackendResult<()> {
        self.0.unlock_range(start, end)
    }
    fn query_lock_range(&self, start: Bound, end: Bound) -> BackendResult<bool> {
        self.0.query_lock_range(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn the_store_grows_without_holes() {
        let dir = std::env::temp_dir().join(format!("switchyard-filled-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE);
        let db = Database::builder()
            .create_with_backend(Filled::open(&path).unwrap())
            .unwrap();
        let write = db.begin_write().unwrap();
        {
            let mut journal = write.open_table(JOURNAL).unwrap();
            for n in 0..64u64 {
                journal.insert(n, vec![7u8; 64 << 10].as_slice()).unwrap();
            }
        }
        write.commit().unwrap();
        drop(db);
        let meta = std::fs::metadata(&path).unwrap();
        assert!(meta.len() > 4 << 20, "{}", meta.len());
        // Every byte of the file has its block on disk: no part of it is a hole.
        assert!(meta.blocks() * 512 >= meta.len(), "{meta:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_entry_that_panics_again_stops_the_replay_with_its_number_and_message() {
        let dir = std::env::temp_dir().join(format!("switchyard-panicked-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = Database::create(dir.join(FILE)).unwrap();
        let write = db.begin_write().unwrap();
        {
            let mut journal = write.open_table(JOURNAL).unwrap();
            let entry = |at: Millis| {
                format!(r#"{{"at":{at},"wall":0,"command":{{"kind":"clearFaults"}}}}"#)
            };
            let lines = [entry(1), entry(2), entry(3)].join("\n");
            journal.insert(5, lines.as_bytes()).unwrap();
        }
        write.commit().unwrap();
        let mut state = State::for_tests(0);
        let mut applied = Vec::new();
        let replayed = replay_with(&db, &mut state, None, |_, entry| {
            assert!(entry.at < 2, "a bug in the state");
            applied.push(entry.at);
        });
        let Err(Replay::Panicked(seq, message)) = replayed else {
            panic!("not stopped at the panic");
        };
        assert_eq!(
            (seq, message.as_str(), applied),
            (6, "a bug in the state", vec![1])
        );
        drop(db);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
