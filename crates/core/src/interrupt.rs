//! Stopping this process's writes at a safe point, for a front end that was asked to end
//! (a signal) while a request may be writing.
//!
//! Every change to the tree happens while a [`Writing`] is held: the commit step holds one for
//! its run, and a writer that records its changes in the history afterwards holds one from
//! before its first write until the history has them, so that "no write in flight" means the
//! tree and the history agree. [`request_stop`] makes every running request stop at its next
//! safe point (between two files: what is staged but not in place is removed, an atomic run is
//! rolled back, a plain one keeps and records what it wrote) and refuses any new write; the
//! front end then waits with [`wait_for_writes`] and ends the process.
//!
//! The engine knows nothing of signals: this is a flag and a count, which the front ends
//! set and read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

/// Writes in flight, and whether new ones are refused.
struct State {
    in_flight: usize,
    stopping: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    in_flight: 0,
    stopping: false,
});
static IDLE: Condvar = Condvar::new();
/// [`State::stopping`], read without the lock between two files of a request.
static STOP: AtomicBool = AtomicBool::new(false);

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A write in flight: while one is held, [`wait_for_writes`] waits.
#[must_use]
pub struct Writing(());

impl Writing {
    /// Begins a write, unless this process was asked to stop (`None`: write nothing).
    pub(crate) fn begin() -> Option<Writing> {
        let mut s = state();
        if s.stopping {
            return None;
        }
        s.in_flight += 1;
        Some(Writing(()))
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        let mut s = state();
        s.in_flight -= 1;
        if s.in_flight == 0 {
            IDLE.notify_all();
        }
    }
}

/// Asks every request of this process to stop writing at its next safe point, and refuses
/// every write from now on. Returns whether a write was in flight (when none was, the process
/// can end at once: nothing is half done).
pub fn request_stop() -> bool {
    let mut s = state();
    s.stopping = true;
    STOP.store(true, Ordering::SeqCst);
    s.in_flight > 0
}

/// Whether [`request_stop`] was called: requests stop planning and writing.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Waits until no write is in flight. After [`request_stop`] none begins again, so the
/// process can then end with the tree, the history and the journals in agreement.
pub fn wait_for_writes() {
    let mut s = state();
    while s.in_flight > 0 {
        s = IDLE.wait(s).unwrap_or_else(|e| e.into_inner());
    }
}
