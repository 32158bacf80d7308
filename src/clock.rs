//! The clock driver: the one place that reads the wall clock or waits on it, and maps wall time
//! to virtual time per clock mode (`real`, `fast:<factor>`, `manual`). Everything else asks here.
//! The one place that reads the wall clock; it depends on nothing of the emulator.
#![allow(clippy::disallowed_methods)]

use crate::engine::time::Millis;
use std::future::Future;
use std::str::FromStr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockMode {
    /// Virtual time is wall time.
    Real,
    /// Virtual time runs `factor` times faster than wall time from the start.
    Fast(f64),
    /// Virtual time moves only when told to.
    Manual,
}

impl ClockMode {
    pub fn name(&self) -> &'static str {
        match self {
            ClockMode::Real => "real",
            ClockMode::Fast(_) => "fast",
            ClockMode::Manual => "manual",
        }
    }

    /// The mode as `--clock` takes it (`real`, `manual`, `fast:<factor>`).
    pub fn arg(&self) -> String {
        match self {
            ClockMode::Fast(f) => format!("fast:{f}"),
            other => other.name().to_string(),
        }
    }

    pub fn factor(&self) -> f64 {
        match self {
            ClockMode::Real => 1.0,
            ClockMode::Fast(f) => *f,
            ClockMode::Manual => 0.0,
        }
    }
}

impl FromStr for ClockMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "real" => Ok(ClockMode::Real),
            "manual" => Ok(ClockMode::Manual),
            _ => {
                let factor = s
                    .strip_prefix("fast:")
                    .and_then(|f| f.parse::<f64>().ok())
                    .filter(|f| f.is_finite() && *f > 0.0);
                factor.map(ClockMode::Fast).ok_or_else(|| {
                    format!("invalid clock {s:?}: expected real, manual or fast:<factor> with factor > 0")
                })
            }
        }
    }
}

/// Where virtual time stood at a wall-clock instant.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    virtual_at: Millis,
    wall_at: Instant,
}

#[derive(Debug)]
pub struct Clock {
    mode: ClockMode,
    anchor: Mutex<Anchor>,
}

/// The clock mode cannot be moved by hand (`real`).
#[derive(Debug, PartialEq)]
pub struct NotAdjustable;

impl Clock {
    pub fn new(mode: ClockMode) -> Self {
        let anchor = Anchor {
            virtual_at: epoch_millis(SystemTime::now()),
            wall_at: Instant::now(),
        };
        Clock {
            mode,
            anchor: Mutex::new(anchor),
        }
    }

    pub fn mode(&self) -> ClockMode {
        self.mode
    }

    fn anchor(&self) -> Anchor {
        *self.anchor.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current virtual time.
    pub fn now(&self) -> Millis {
        match self.mode {
            ClockMode::Real => epoch_millis(SystemTime::now()),
            ClockMode::Fast(factor) => {
                let a = self.anchor();
                a.virtual_at + (a.wall_at.elapsed().as_secs_f64() * 1000.0 * factor) as Millis
            }
            ClockMode::Manual => self.anchor().virtual_at,
        }
    }

    /// Moves virtual time to `to` (`fast` keeps running from there).
    pub fn jump_to(&self, to: Millis) -> Result<(), NotAdjustable> {
        if self.mode == ClockMode::Real {
            return Err(NotAdjustable);
        }
        let mut a = self.anchor.lock().unwrap_or_else(PoisonError::into_inner);
        *a = Anchor {
            virtual_at: to,
            wall_at: Instant::now(),
        };
        Ok(())
    }

    /// How long on the wall clock until virtual time reaches `at`; `None` if only an
    /// explicit advance gets it there (`manual`).
    pub fn wall_until(&self, at: Millis) -> Option<Duration> {
        let ahead = (at - self.now()).max(0) as f64 / 1000.0;
        match self.mode {
            ClockMode::Real => Some(Duration::from_secs_f64(ahead)),
            ClockMode::Fast(factor) => Some(Duration::from_secs_f64(ahead / factor)),
            ClockMode::Manual => None,
        }
    }

    /// The wall-clock time, for what the outside world dates: request signatures.
    pub fn wall_time(&self) -> SystemTime {
        SystemTime::now()
    }

    /// Waits `wall` of wall-clock time.
    pub async fn sleep(wall: Duration) {
        tokio::time::sleep(wall).await
    }

    /// Runs `f` for at most `wall` of wall-clock time.
    pub async fn within<F: Future>(wall: Duration, f: F) -> Option<F::Output> {
        tokio::time::timeout(wall, f).await.ok()
    }

    /// A seed for `--seed`'s absence: the wall clock's nanoseconds.
    pub fn wall_nanos_seed(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    }

    /// The wall-clock time in epoch milliseconds, for what the log dates (`ts=` of each line).
    pub fn wall_millis() -> Millis {
        epoch_millis(SystemTime::now())
    }

    /// Starts measuring wall-clock duration (request logs).
    pub fn stopwatch() -> Stopwatch {
        Stopwatch(Instant::now())
    }
}

pub struct Stopwatch(Instant);

impl Stopwatch {
    pub fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}

fn epoch_millis(t: SystemTime) -> Millis {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as Millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modes() {
        assert_eq!("real".parse(), Ok(ClockMode::Real));
        assert_eq!("manual".parse(), Ok(ClockMode::Manual));
        assert_eq!("fast:3600".parse(), Ok(ClockMode::Fast(3600.0)));
        for bad in [
            "fast", "fast:0", "fast:-2", "fast:inf", "fast:x", "slow", "",
        ] {
            assert!(bad.parse::<ClockMode>().is_err(), "{bad}");
        }
    }

    #[test]
    fn manual_time_moves_only_when_told() {
        let clock = Clock::new(ClockMode::Manual);
        let t0 = clock.now();
        assert_eq!(clock.now(), t0);
        clock.jump_to(t0 + 90_000).unwrap();
        assert_eq!(clock.now(), t0 + 90_000);
        assert_eq!(clock.wall_until(t0 + 100_000), None);
    }

    #[test]
    fn real_time_cannot_be_moved() {
        let clock = Clock::new(ClockMode::Real);
        assert_eq!(clock.jump_to(0), Err(NotAdjustable));
    }

    #[test]
    fn fast_mode_scales_wall_time() {
        let clock = Clock::new(ClockMode::Fast(3600.0));
        let t0 = clock.now();
        // One virtual hour ahead is one wall second away (less what has already run).
        let wait = clock.wall_until(t0 + 3_600_000).unwrap();
        assert!(
            wait <= Duration::from_secs(1) && wait > Duration::from_millis(900),
            "{wait:?}"
        );
        // Move the anchor back one wall-second: virtual time shows one hour gone by.
        {
            let mut a = clock.anchor.lock().unwrap();
            a.wall_at -= Duration::from_secs(1);
        }
        let gone = clock.now() - t0;
        assert!((3_600_000..3_700_000).contains(&gone), "{gone}");
        // A jump keeps it running from the new time.
        clock.jump_to(t0 + 86_400_000).unwrap();
        assert!(clock.now() >= t0 + 86_400_000);
    }
}
