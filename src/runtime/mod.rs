//! The runtime: the running emulator's [`State`] behind its one lock (std's, never held across an
//! `.await`), the clock driver that fires timers as virtual time reaches them, and the async side
//! that carries out what the state hands out: HTTP deliveries ([`Effect`]), wake-ups of long polls,
//! and the operations that wait or need I/O ([`calls`]). It must not depend on the protocols or
//! the server.

mod advance;
mod calls;
pub use advance::AdvanceError;
pub mod code;
pub mod durable;
mod effects;
mod http;
pub mod init_status;
mod invoke;
pub mod lambda;
mod lock;

pub use calls::call;
pub use http::load_https_ca;

use crate::clock::{Clock, ClockMode, Stopwatch};
use crate::config::Config;
use crate::dispatch::Dispatch;
use crate::dispatch::commands::{Applied, Command, HttpResult};
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use crate::engine::{Effect, Settings};
use crate::state::State;
use crate::state::snapshot::SnapshotError;
use bytes::Bytes;
use http::{build_request, delivery_client, is_tls_error};
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use lock::{Held, StateLock};
use rustls::pki_types::CertificateDer;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;
use tokio::sync::Notify;

/// How long an HTTP endpoint has to answer a delivery (SNS: 15 s).
const HTTP_TIMEOUT: Duration = Duration::from_secs(15);

pub struct Runtime {
    pub config: Config,
    pub clock: Clock,
    /// LocalStack's lifecycle stages and init scripts (`/_localstack/init`).
    pub init: init_status::InitStatus,
    /// This run's id (`/_localstack/info`): from the seed, apart from the state's generator.
    pub session_id: String,
    /// Wall time since the start (`/_localstack/info`'s uptime).
    started: Stopwatch,
    state: StateLock<State>,
    /// Long polls waiting on a key (a queue's ARN), woken when the state says so.
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
    /// How many keys have waiters (read without the lock: most requests wake nobody).
    waiting: AtomicUsize,
    /// Wakes the timer task (real and fast clocks) when an earlier timer appears.
    pub(crate) ticker: Notify,
    /// One clock advance at a time.
    advancing: tokio::sync::Mutex<()>,
    request_ids: Mutex<Rng>,
    closing: tokio::sync::watch::Sender<bool>,
    /// Counts the states put in place of the running one ([`Runtime::install`]): an HTTP
    /// delivery of an earlier state does not complete into a later one.
    generation: AtomicU64,
    /// Effects running on the async side, and a wake-up for when none are left.
    in_flight: AtomicUsize,
    idle: Notify,
    /// http:// and https:// deliveries.
    /// Built on the first delivery: loading the system's root certificates costs milliseconds
    /// that startup should not pay.
    http: std::sync::OnceLock<Client<HttpsConnector<HttpConnector>, Full<Bytes>>>,
    /// The CA certificates of `--https-ca`, read and checked when the runtime was made.
    https_ca: Vec<CertificateDer<'static>>,
    /// `--state-dir`: the journal every change is committed to before it is answered.
    journal: Option<durable::Journal>,
    /// A checkpoint is being taken.
    checkpointing: std::sync::atomic::AtomicBool,
    /// Lambda's execution environments, made on the first invocation.
    lambda: std::sync::OnceLock<Arc<lambda::Environments>>,
    this: Weak<Runtime>,
}

/// Where [`Runtime::advance`] moves virtual time: forward by an amount, or to a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Advance {
    /// Milliseconds from now (not negative).
    By(Millis),
    /// Milliseconds since the Unix epoch.
    Until(Millis),
}

/// What an advance did: the virtual time it reached and how many timers fired on the way
/// (`{"now", "fired"}` of `POST /_switchyard/clock/advance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Advanced {
    /// Virtual time after the advance, in milliseconds since the Unix epoch.
    pub now: Millis,
    pub fired: usize,
}

/// The last instant RFC 3339 can write, 9999-12-31T23:59:59.999Z: virtual time goes no further,
/// so every time the emulator answers with has a written form.
pub const LATEST: Millis = 253_402_300_799_999;

/// Why [`Runtime::open`] cannot make a runtime; the binary prints it and exits non-zero.
#[derive(Debug)]
pub enum OpenError {
    /// The state directory cannot be used (`--state-dir`).
    StateDir(durable::StateDirError),
    /// The `--https-ca` file cannot be read or holds no usable CA certificate.
    HttpsCa { path: PathBuf, cause: String },
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::StateDir(e) => e.fmt(f),
            // The cause names the file already.
            OpenError::HttpsCa { cause, .. } => write!(f, "--https-ca {cause}"),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::StateDir(e) => Some(e),
            OpenError::HttpsCa { .. } => None,
        }
    }
}

impl From<durable::StateDirError> for OpenError {
    fn from(e: durable::StateDirError) -> OpenError {
        OpenError::StateDir(e)
    }
}

/// What a request that takes a broken state answers (a holder of the lock panicked, [`lock`]).
fn broken_state() -> crate::error::AwsError {
    crate::error::AwsError::internal(
        "The emulator's state was left half-changed by an internal error; POST \
         /_switchyard/reset or restart it.",
    )
}

impl Runtime {
    /// A runtime with its state in memory, whatever `config.state_dir` says (`--state-dir` is
    /// [`Runtime::open`]'s).
    ///
    /// # Panics
    /// If `config.https_ca` names a file that cannot be read or holds no usable CA certificate
    /// ([`Runtime::open`] answers that as an error).
    pub fn new(config: Config) -> Arc<Runtime> {
        let https_ca = read_https_ca(&config).unwrap_or_else(|e| panic!("Runtime::new: {e}"));
        Runtime::in_memory(config, https_ca)
    }

    /// A runtime whose state is in memory, or kept in `config.state_dir` (restored from it
    /// when it holds one: time resumes, timers that fell due fire in due order, and the HTTP
    /// deliveries under way when it stopped are attempted again). A state directory that cannot
    /// be used, or an `https_ca` file that is not a CA's, is an error.
    pub fn open(config: Config) -> Result<Arc<Runtime>, OpenError> {
        // A bad CA file is refused now rather than at the first delivery.
        let https_ca = read_https_ca(&config)?;
        let Some(dir) = config.state_dir.clone() else {
            return Ok(Runtime::in_memory(config, https_ca));
        };
        let mut config = config;
        let settings = settings(&config);
        let seed = settings.seed;
        let lambda_endpoints: HashMap<_, _> = config.lambda_endpoints.iter().cloned().collect();
        let clock = (config.clock, config.clock_from_state_dir);
        let recovered = durable::open(&dir, settings, lambda_endpoints, clock)?;
        config.clock = recovered.clock;
        let clock = Clock::new(recovered.clock);
        resume_clock(&clock, recovered.last, recovered.state.now());
        tracing::info!(
            dir = %dir.display(),
            replayed = recovered.replayed,
            "state restored"
        );
        let kept = Kept {
            journal: Some(recovered.journal),
            in_flight: recovered.in_flight,
        };
        Ok(Runtime::build(
            config,
            seed,
            https_ca,
            recovered.state,
            kept,
            clock,
        ))
    }

    /// A runtime with a new state in memory: nothing left that can fail.
    fn in_memory(config: Config, https_ca: Vec<CertificateDer<'static>>) -> Arc<Runtime> {
        let settings = settings(&config);
        let seed = settings.seed;
        let lambda_endpoints: HashMap<_, _> = config.lambda_endpoints.iter().cloned().collect();
        let state = crate::dispatch::new_state(settings, lambda_endpoints);
        let clock = Clock::new(config.clock);
        let config = Config {
            state_dir: None,
            ..config
        };
        let kept = Kept {
            journal: None,
            in_flight: Vec::new(),
        };
        Runtime::build(config, seed, https_ca, state, kept, clock)
    }

    /// The runtime around `state`, once everything that can fail has not.
    fn build(
        config: Config,
        seed: u64,
        https_ca: Vec<CertificateDer<'static>>,
        mut state: State,
        kept: Kept,
        clock: Clock,
    ) -> Arc<Runtime> {
        state.enforce_policies = config.enforce_policies;
        let Kept { journal, in_flight } = kept;
        let session_id = Rng::new(seed.rotate_left(29) ^ 0x5E55_1011).uuid();
        let runtime = Arc::new_cyclic(|this| Runtime {
            config,
            clock,
            init: init_status::InitStatus::default(),
            session_id,
            started: Clock::stopwatch(),
            state: StateLock::new(state),
            waiters: Mutex::new(HashMap::new()),
            waiting: AtomicUsize::new(0),
            ticker: Notify::new(),
            advancing: tokio::sync::Mutex::new(()),
            request_ids: Mutex::new(Rng::new(seed.rotate_left(17) ^ 0x5EED)),
            closing: tokio::sync::watch::Sender::new(false),
            generation: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            idle: Notify::new(),
            http: std::sync::OnceLock::new(),
            https_ca,
            journal,
            checkpointing: Default::default(),
            lambda: std::sync::OnceLock::new(),
            this: this.clone(),
        });
        if !in_flight.is_empty() {
            runtime.start_effects(in_flight);
        }
        runtime
    }

    /// Where Lambda code is unpacked (`code.rs`): inside the state directory when the state is
    /// kept, so that a restart finds it; else a folder of this process's in the system's
    /// temporary folder.
    pub fn code_root(&self) -> std::path::PathBuf {
        match &self.config.state_dir {
            Some(dir) => dir.join("lambda").join("code"),
            None => std::env::temp_dir()
                .join(format!("switchyard-{}", std::process::id()))
                .join("lambda")
                .join("code"),
        }
    }

    /// Applies `command` under the lock, journaling it first when the state is kept
    /// (`--state-dir`); answers what it answered, once it is durable.
    pub async fn run(&self, command: Command) -> Result<Applied, crate::error::AwsError> {
        let encoded = self.encode(&command);
        let (applied, ticket) = {
            let mut state = self.state_async().await?;
            let ticket = self.record(&state, encoded);
            (state.apply(command), ticket)
        };
        self.durable(ticket).await?;
        Ok(applied)
    }

    /// A command encoded for the journal when the state is kept (`--state-dir`): made before
    /// the lock is taken, so that the lock is held no longer for it.
    pub fn encode(&self, command: &impl serde::Serialize) -> Option<durable::Encoded> {
        self.journal.as_ref()?;
        Some(durable::Journal::encode(command))
    }

    /// Journals a command [`Runtime::encode`]d, under the lock `state` holds, before it is
    /// applied; [`Runtime::durable`] waits for it.
    pub fn record(
        &self,
        state: &StateGuard<'_>,
        encoded: Option<durable::Encoded>,
    ) -> Option<durable::Ticket> {
        Some(self.journal.as_ref()?.append(state.now(), encoded?))
    }

    /// Resolves once the change of `ticket` is committed (at once without a state directory).
    pub async fn durable(
        &self,
        ticket: Option<durable::Ticket>,
    ) -> Result<(), crate::error::AwsError> {
        let (Some(journal), Some(ticket)) = (&self.journal, ticket) else {
            return Ok(());
        };
        journal
            .durable(ticket)
            .await
            .map_err(crate::error::AwsError::internal)?;
        // The journal has grown enough: a checkpoint bounds what a restart reads again. One at a
        // time; the request that saw it pays for it.
        if journal.wants_checkpoint() && !self.checkpointing.swap(true, Ordering::SeqCst) {
            let state = self.lock_raw();
            // A broken state is not kept: the journal holds its changes up to the one that
            // broke it, and a reset or a state load puts a whole one in its place.
            if !state.is_broken() {
                self.checkpoint(&state);
            }
            drop(state);
            self.checkpointing.store(false, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Whether changes are kept in a state directory.
    pub fn is_durable(&self) -> bool {
        self.journal.is_some()
    }

    /// Commits what is journaled and lets go of the state directory (shutdown).
    pub fn close_journal(&self) {
        if let Some(journal) = &self.journal {
            // A checkpoint of the final state, so that the next start reads no journal.
            if journal.has_news() {
                let state = self.lock_raw();
                if !state.is_broken() {
                    self.checkpoint(&state);
                }
            }
            journal.close();
        }
    }

    /// Locks the state, first catching it up to the clock's current virtual time. For the
    /// control API and the runtime's own work: a broken state ([`StateGuard::is_broken`]) is
    /// handed out as it is, and does not move on.
    pub fn state(&self) -> StateGuard<'_> {
        self.guard(self.lock_raw())
    }

    /// [`Runtime::state`] for a request's task: while another thread holds the lock, the task
    /// waits as a future and its worker runs other tasks (reading and answering other requests)
    /// where [`Runtime::state`] would put the thread to sleep in the kernel ([`lock`]).
    ///
    /// A state that a panic under the lock left half-changed is not served: the request answers
    /// 500 `InternalFailure` until a reset or a state load puts a whole state in its place.
    pub async fn state_async(&self) -> Result<StateGuard<'_>, crate::error::AwsError> {
        let held = self.state.lock_async().await;
        if held.is_broken() {
            return Err(broken_state());
        }
        Ok(self.guard(held))
    }

    fn guard<'a>(&'a self, mut state: Held<'a, State>) -> StateGuard<'a> {
        // A broken state fires no timer: what it would do is not to be trusted.
        let next_due = match state.is_broken() {
            true => None,
            false => {
                state.run_until(self.clock.now());
                state.engine.next_due()
            }
        };
        StateGuard {
            state: Some(state),
            runtime: self,
            next_due,
        }
    }

    /// Whether a panic under the lock left the state half-changed (a hint, read without the
    /// lock).
    pub fn is_broken(&self) -> bool {
        self.state.is_broken()
    }

    /// Wall-clock time since this runtime was made.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// [`Runtime::state`] under the name it had when the state was the engine's.
    pub fn engine(&self) -> StateGuard<'_> {
        self.state()
    }

    fn lock_raw(&self) -> Held<'_, State> {
        self.state.lock()
    }

    /// The wake-up of the waiters on `key`.
    fn waiter(&self, key: &str) -> Arc<Notify> {
        let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        let notify = waiters.entry(key.to_string()).or_default().clone();
        self.waiting.store(waiters.len(), Ordering::SeqCst);
        notify
    }

    /// Wakes the waiters on each of `keys`.
    fn wake(&self, keys: Vec<String>) {
        if keys.is_empty() || self.waiting.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        for key in keys {
            if let Some(notify) = waiters.get(&key) {
                notify.notify_waiters();
                // Nobody else holds it: no long poll waits on this key any more.
                if Arc::strong_count(notify) == 1 {
                    waiters.remove(&key);
                }
            }
        }
        self.waiting.store(waiters.len(), Ordering::SeqCst);
    }

    /// Wakes every waiter (the state they wait on was replaced).
    fn wake_all(&self) {
        let waiters = self.waiters.lock().unwrap_or_else(PoisonError::into_inner);
        for notify in waiters.values() {
            notify.notify_waiters();
        }
    }

    /// The running state as a snapshot file (`GET /_switchyard/state`; docs/control-api.md,
    /// "State snapshots").
    pub fn snapshot(&self) -> Vec<u8> {
        self.state().snapshot()
    }

    /// Reads a snapshot file with this process's settings (`--lambda-endpoint`,
    /// `--enforce-policies`).
    pub fn read_snapshot(&self, bytes: &[u8]) -> Result<State, SnapshotError> {
        let lambdas = self.config.lambda_endpoints.iter().cloned().collect();
        crate::dispatch::read_snapshot(bytes, lambdas, self.config.enforce_policies)
    }

    /// Replaces the running state with the snapshot in `bytes` (`POST /_switchyard/state`),
    /// between two clock advances; a file that cannot be read leaves the running state as it
    /// was.
    pub async fn load_snapshot(&self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let state = self.read_snapshot(bytes)?;
        let _one_at_a_time = self.advancing.lock().await;
        let ticket = self.install(state);
        if let Err(e) = self.durable(ticket).await {
            return Err(SnapshotError::NotKept(e.message));
        }
        Ok(())
    }

    /// Puts `state` in place of the running state. A manual clock moves to the state's time
    /// (earlier or later); real and fast clocks keep theirs, and what the state has due by then
    /// fires. Long polls look again; HTTP deliveries of the state replaced still under way are
    /// not completed into this one; the state's own HTTP attempts awaiting an answer are sent.
    pub fn install(&self, mut state: State) -> Option<durable::Ticket> {
        if self.clock.mode() == ClockMode::Manual {
            let _ = self.clock.jump_to(state.now());
        } else {
            state.run_until(self.clock.now());
        }
        let mut running = self.lock_raw();
        self.generation.fetch_add(1, Ordering::SeqCst);
        let replaced = std::mem::replace(&mut *running, state);
        // A whole state is in place: one a panic left broken is gone.
        running.mend();
        let effects = running.take_effects();
        let woken = running.take_woken();
        // With a state directory, the state installed is its new checkpoint: what was kept
        // before it is gone.
        let ticket = self.checkpoint(&running);
        drop(running);
        drop(replaced);
        self.wake_all();
        self.wake(woken);
        self.start_effects(effects);
        self.ticker.notify_one();
        ticket
    }

    /// Journals a checkpoint of `state` (the locked state) when the state is kept.
    fn checkpoint(&self, state: &State) -> Option<durable::Ticket> {
        let journal = self.journal.as_ref()?;
        Some(journal.checkpoint(state.now(), state.snapshot()))
    }

    /// `POST /_switchyard/reset`: forgets everything but the time; with a state directory, what
    /// it kept is cleared too (replaced by a checkpoint of the empty state).
    pub async fn reset(&self) -> Result<(), crate::error::AwsError> {
        let ticket = {
            let mut state = self.state();
            state.reset();
            // Emptied, the state is whole again, even if a panic had left it half-changed.
            state.mend();
            self.checkpoint(&state)
        };
        // The timer task stops looking at a broken state; it looks again.
        self.ticker.notify_one();
        // The functions are gone: so are their execution environments.
        if let Some(environments) = self.lambda.get() {
            environments.stop_all().await;
        }
        self.durable(ticket).await
    }

    pub fn request_id(&self) -> String {
        self.request_ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .uuid()
    }

    /// `POST /_switchyard/clock/advance` and `Emulator::advance`: checks the amount or time, moves
    /// virtual time there ([`Runtime::advance_to`]) and answers where it stands and what fired.
    pub async fn advance(&self, how: Advance) -> Result<Advanced, AdvanceError> {
        let target = match how {
            Advance::By(ms) if ms >= 0 => self.state().now().checked_add(ms),
            Advance::By(_) => None,
            Advance::Until(at) => Some(at),
        };
        let target = target
            .filter(|t| *t <= LATEST)
            .ok_or(AdvanceError::OutOfRange)?;
        let fired = self.advance_to(target).await?;
        Ok(Advanced {
            now: self.state().now(),
            fired,
        })
    }

    /// Moves virtual time to `target` (docs/control-api.md, `clock/advance`): timers fire in due order,
    /// each seeing its own due time, and the work they trigger (HTTP deliveries included) has
    /// finished when this returns. Answers how many timers fired.
    pub async fn advance_to(&self, target: Millis) -> Result<usize, AdvanceError> {
        if self.clock.mode() == ClockMode::Real {
            return Err(AdvanceError::NotAdjustable);
        }
        let _one_at_a_time = self.advancing.lock().await;
        let now = self.state().now();
        if target < now {
            return Err(AdvanceError::InPast { now, target });
        }
        let mut count = 0;
        loop {
            // Work already under way finishes first: its outcome may schedule timers in the window.
            self.idle().await;
            let mut state = self.lock_raw();
            if state.is_broken() {
                // Nothing fires in a broken state, and the clock stays where it broke.
                return Err(AdvanceError::Broken);
            }
            let step = state.fire_next(target);
            let effects = state.take_effects();
            let woken = state.take_woken();
            drop(state);
            crate::memory::trim_if_due();
            self.wake(woken);
            self.start_effects(effects);
            match step {
                Some(n) => count += n,
                None if self.in_flight.load(Ordering::SeqCst) == 0 => break,
                None => {}
            }
        }
        self.clock
            .jump_to(target)
            .map_err(|_| AdvanceError::NotAdjustable)?;
        let fired = self.run(Command::Advanced { to: target }).await;
        if let Ok(Applied::Fired(n)) = fired {
            count += n;
        }
        self.idle().await;
        self.ticker.notify_one();
        Ok(count)
    }

    /// Resolves when no effect is running.
    pub async fn idle(&self) {
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.in_flight.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }
}

/// The locked state. On release it starts the effects the state handed out, wakes the waiters
/// it named, and wakes the timer task if an earlier timer was scheduled; then, the lock let go,
/// it gives memory back to the system if much was freed ([`crate::memory::trim_if_due`]).
/// Released in a panic, it does none of that, and the state is marked broken ([`lock`]).
/// Never held across an `.await` (clippy.toml's `await-holding-invalid-types`).
pub struct StateGuard<'a> {
    /// Taken in [`StateGuard`]'s drop, so that the lock is let go before the trim; `Some` until
    /// then.
    state: Option<Held<'a, State>>,
    runtime: &'a Runtime,
    next_due: Option<Millis>,
}

impl Deref for StateGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        self.state.as_deref().expect("held until dropped")
    }
}

impl DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        self.state.as_deref_mut().expect("held until dropped")
    }
}

impl StateGuard<'_> {
    /// The state is whole again (emptied or replaced): forgets a holder's panic.
    pub fn mend(&mut self) {
        if let Some(held) = self.state.as_mut() {
            held.mend();
        }
    }

    /// Whether a panic under the lock left this state half-changed: it fires no timer, and
    /// requests are not served from it ([`Runtime::state_async`]).
    pub fn is_broken(&self) -> bool {
        self.state.as_ref().is_some_and(Held::is_broken)
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // The state is half-changed: nothing it handed out is started. Letting go of the
            // lock marks it broken.
            drop(self.state.take());
            return;
        }
        self.finish();
        drop(self.state.take());
        // Off the lock: a trim walks the allocator's free lists, which other requests need not
        // wait for.
        crate::memory::trim_if_due();
    }
}

impl StateGuard<'_> {
    /// What a release does under the lock: starts the effects (before the lock is let go, so
    /// that a clock advance that takes it next counts them as under way), wakes the waiters,
    /// and the timer task if an earlier timer is due.
    fn finish(&mut self) {
        if self.is_broken() {
            return;
        }
        let effects = self.take_effects();
        self.runtime.start_effects(effects);
        let woken = self.take_woken();
        self.runtime.wake(woken);
        let now_due = self.engine.next_due();
        let earlier = match (now_due, self.next_due) {
            (Some(new), Some(old)) => new < old,
            (Some(_), None) => true,
            _ => false,
        };
        if earlier && self.runtime.clock.mode() != ClockMode::Manual {
            self.runtime.ticker.notify_one();
        }
    }
}

impl Runtime {
    /// Starts shutting down: the server stops accepting and long polls end now.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once [`Runtime::close`] was called.
    pub async fn closed(&self) {
        let mut rx = self.closing.subscribe();
        let _ = rx.wait_for(|closing| *closing).await;
    }
}

/// Fires timers as virtual time reaches them, for the real and fast clocks. Manual clocks move
/// only through [`Runtime::advance_to`].
pub async fn run_timers(app: Arc<Runtime>) {
    if app.clock.mode() == ClockMode::Manual {
        return;
    }
    loop {
        // A broken state fires nothing: the task waits until a reset or a state load.
        let next_due = match app.state() {
            state if state.is_broken() => None,
            state => state.engine.next_due(),
        };
        let wake = app.ticker.notified();
        match next_due.and_then(|due| app.clock.wall_until(due)) {
            Some(wait) => {
                tokio::select! {
                    _ = Clock::sleep(wait) => {}
                    _ = wake => {}
                }
            }
            None => wake.await,
        }
    }
}

/// What a state directory hands the runtime besides the state: its journal, and the HTTP
/// deliveries that were under way when the last process stopped.
struct Kept {
    journal: Option<durable::Journal>,
    in_flight: Vec<Effect>,
}

/// The engine's settings a new state is made with: the start time, and the seed (`--seed`, or
/// one drawn from the clock).
fn settings(config: &Config) -> Settings {
    let seed = config
        .seed
        .unwrap_or_else(|| Clock::new(config.clock).wall_nanos_seed());
    Settings {
        start: Clock::wall_millis(),
        seed,
        jitter: config.jitter,
        delivery_log_size: config.delivery_log_size,
    }
}

/// The CA certificates of `config.https_ca`, read and checked (none without it).
fn read_https_ca(config: &Config) -> Result<Vec<CertificateDer<'static>>, OpenError> {
    let Some(path) = &config.https_ca else {
        return Ok(Vec::new());
    };
    load_https_ca(path).map_err(|cause| OpenError::HttpsCa {
        path: path.clone(),
        cause,
    })
}

/// Sets the clock where a restored state resumes: `manual` at the state's time; `fast` where it
/// would be had it run on while stopped (the wall time since the last change, times the
/// factor); `real` is wall time already. Never before the state's own time.
fn resume_clock(clock: &Clock, last: Option<(Millis, Millis)>, state_now: Millis) {
    let at = match (clock.mode(), last) {
        (ClockMode::Real, _) => return,
        (ClockMode::Manual, _) | (ClockMode::Fast(_), None) => state_now,
        (ClockMode::Fast(factor), Some((at, wall))) => {
            let stopped = (Clock::wall_millis() - wall).max(0) as f64;
            at + (stopped * factor) as Millis
        }
    };
    let _ = clock.jump_to(at.max(state_now));
}

#[cfg(test)]
mod tests;
