//! What filekit does when it is asked to end (SIGINT, SIGTERM, SIGHUP) and how many files it
//! may keep open.
//!
//! The three signals are blocked in every thread and waited for on a thread of their own, so
//! that no write is cut off in the middle: when one comes, the engine is asked to stop
//! writing at its next safe point ([`filekit_core::interrupt`]: the file being put in place is
//! put in place or removed, an atomic request is rolled back, a plain one records what it
//! wrote). With nothing being written, the process ends at once. A one-shot verb that was
//! writing ends once its request has stopped and its report is printed; a second signal
//! ends it as soon as the writes have stopped. The server ends once its writes have stopped.
//! Either way the process then ends by the signal (its default action), as shells expect,
//! after removing what it registered with [`remove_at_exit`] (the HTTP bearer token).

use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

/// The first signal received, 0 before.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Files to remove before the process ends by a signal, each with the text it must still
/// hold (another process may have replaced it since).
static AT_EXIT: Mutex<Vec<(std::path::PathBuf, String)>> = Mutex::new(Vec::new());

/// How the process ends on a signal while a write is in flight.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// A verb that ends by itself: let it finish its stopped request and print its report.
    AfterTheVerb,
    /// A server: end as soon as the writes have stopped.
    OnceWritesStop,
}

const SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

fn signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set it is given; sigaddset adds valid signals.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in SIGNALS {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Blocks the three signals in this thread, and so in every thread started after it (call
/// it before any other thread starts), and waits for them on a thread of its own. Programs
/// this process starts get an empty signal mask back (the standard library resets it).
pub fn install(ending: Ending) {
    let set = signal_set();
    // SAFETY: pthread_sigmask with a valid set; the old mask is not wanted.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
        return;
    }
    let waiter = std::thread::Builder::new()
        .name("filekit-signals".into())
        .spawn(move || {
            loop {
                let mut signal: libc::c_int = 0;
                // SAFETY: sigwait on a valid set of signals blocked in every thread.
                if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
                    continue;
                }
                received(signal, ending);
            }
        });
    if waiter.is_err() {
        // No thread to wait on: the signals keep their default action.
        // SAFETY: as above, undoing the block.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

fn received(signal: i32, ending: Ending) {
    let first = RECEIVED
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    let writing = filekit_core::interrupt::request_stop();
    if writing && first && ending == Ending::AfterTheVerb {
        eprintln!(
            "\nfilekit: interrupted: stopping before the next file (the one being written is put in place or removed; the report says what was written)"
        );
        return;
    }
    if writing {
        filekit_core::interrupt::wait_for_writes();
    }
    end_by(signal);
}

/// The signal this process received, if it did (the verb then ends by it).
pub fn received_signal() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Removes `path` before the process ends by a signal, if it still holds `text`.
pub fn remove_at_exit(path: std::path::PathBuf, text: String) {
    AT_EXIT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((path, text));
}

/// Takes back a [`remove_at_exit`] (the caller removed the file itself).
pub fn keep_at_exit(path: &std::path::Path) {
    AT_EXIT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(p, _)| p != path);
}

/// Removes what was registered, then ends the process by `signal`'s default action.
pub fn end_by(signal: i32) -> ! {
    for (path, text) in AT_EXIT.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        if std::fs::read_to_string(&path).is_ok_and(|t| t.trim() == text) {
            let _ = std::fs::remove_file(&path);
        }
    }
    // SAFETY: the default action is restored and the signal unblocked in this thread, then
    // raised at it: the process ends as the signal's default action ends it.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
    }
    // Not reached: the default action of the three signals ends the process.
    std::process::exit(128 + signal)
}

/// Raises the soft limit on open files to the hard limit, as other tools do: the soft limit
/// is often 1,024 where the hard one is far higher, and a request over thousands of files
/// (with the history, the walk's threads and a server's sessions) should never meet it.
/// Failure (a system that refuses) leaves the limit as it was.
pub fn raise_open_file_limit() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let limit = getrlimit(Resource::Nofile);
        if limit.current != limit.maximum {
            let _ = setrlimit(
                Resource::Nofile,
                rustix::process::Rlimit {
                    current: limit.maximum,
                    maximum: limit.maximum,
                },
            );
        }
    }
}
