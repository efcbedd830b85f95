//! The threads tool calls run on: a few kept between calls, each with the stack a call needs
//! (`filekit_dialects::CALL_STACK`), so that a call costs a hand-off to a waiting thread, not
//! a thread started and ended (a 64 MiB mapping made, its guard page set, the thread cloned,
//! joined and unmapped) plus a hop through tokio's blocking pool.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// A job, given the pool so that it can say it is done before its result goes out.
type Job = Box<dyn FnOnce(&Shared) + Send>;

/// How long a thread with nothing to do waits for a call before it ends: a server that is
/// used keeps its threads, one left alone gives back what their stacks touched.
const IDLE: Duration = Duration::from_secs(30);

/// A pool of at most `max` call threads, started when a call finds none free.
pub(crate) struct CallThreads {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    /// Told when the last running job ends with none queued.
    idle: Condvar,
    max: usize,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    threads: usize,
    /// Threads running a job.
    busy: usize,
}

impl CallThreads {
    pub(crate) fn new(max: usize) -> Self {
        CallThreads {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                idle: Condvar::new(),
                max: max.max(1),
            }),
        }
    }

    /// Runs `job` on a call thread; its result comes back through the returned receiver
    /// (closed without a value: the job panicked outside the tool, whose own panic is an
    /// error reply already). Fails only when no thread can be started and none is running.
    pub(crate) fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> std::io::Result<tokio::sync::oneshot::Receiver<T>> {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |shared: &Shared| {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            // Free before the result goes out: the caller's next call finds this thread.
            let mut state = shared.lock();
            state.busy -= 1;
            if state.busy == 0 && state.jobs.is_empty() {
                shared.idle.notify_all();
            }
            drop(state);
            if let Ok(out) = out {
                let _ = sender.send(out);
            }
        });
        let mut state = self.shared.lock();
        state.jobs.push_back(job);
        if state.threads - state.busy >= state.jobs.len() {
            drop(state);
            self.shared.work.notify_one();
            return Ok(receiver);
        }
        if state.threads < self.shared.max {
            let shared = Arc::clone(&self.shared);
            match filekit_dialects::spawn_call_thread("filekit call".into(), move || shared.serve())
            {
                Ok(_) => state.threads += 1,
                Err(e) if state.threads == 0 => {
                    state.jobs.pop_back();
                    return Err(e);
                }
                // The running threads take the job when they are done with theirs.
                Err(_) => {}
            }
        }
        Ok(receiver)
    }
}

impl CallThreads {
    /// Waits until no call runs or waits to run. A server that is ending waits here: a call
    /// cancelled as its client left is still stopping (putting back what an atomic request
    /// wrote, clearing its journal), and the process must not end under it.
    pub(crate) fn wait_until_idle(&self) {
        let mut state = self.shared.lock();
        while state.busy > 0 || !state.jobs.is_empty() {
            state = (self.shared.idle.wait(state)).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A call thread's life: run jobs while there are some, wait for more up to [`IDLE`].
    fn serve(&self) {
        let mut state = self.lock();
        loop {
            if let Some(job) = state.jobs.pop_front() {
                state.busy += 1;
                drop(state);
                job(self);
                state = self.lock();
                continue;
            }
            let (next, timeout) = self
                .work
                .wait_timeout(state, IDLE)
                .unwrap_or_else(PoisonError::into_inner);
            state = next;
            if timeout.timed_out() && state.jobs.is_empty() {
                state.threads -= 1;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait<T>(
        r: tokio::sync::oneshot::Receiver<T>,
    ) -> Result<T, tokio::sync::oneshot::error::RecvError> {
        r.blocking_recv()
    }

    #[test]
    fn calls_one_after_another_reuse_one_thread_with_the_call_stack() {
        let pool = CallThreads::new(4);
        let ids: Vec<_> = (0..20)
            .map(|_| wait(pool.run(|| std::thread::current().id()).unwrap()).unwrap())
            .collect();
        assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
        assert_ne!(ids[0], std::thread::current().id());
        // A walk deeper than a blocking thread's 2 MiB runs there.
        fn down(n: usize) -> usize {
            let frame = std::hint::black_box([n as u8; 4096]);
            if n == 0 {
                0
            } else {
                down(n - 1) + frame[0] as usize % 2
            }
        }
        assert!(wait(pool.run(|| down(4_000)).unwrap()).is_ok());
    }

    #[test]
    fn a_panic_is_reported_and_the_thread_serves_on() {
        let pool = CallThreads::new(1);
        assert!(wait(pool.run(|| -> u8 { panic!("a bug") }).unwrap()).is_err());
        assert_eq!(wait(pool.run(|| 7).unwrap()).unwrap(), 7);
    }

    #[test]
    fn calls_at_once_get_threads_up_to_the_bound_and_the_rest_wait_their_turn() {
        let pool = CallThreads::new(2);
        let gate = Arc::new(std::sync::Barrier::new(2));
        // Two calls that can only end together: each needs a thread of its own.
        let both: Vec<_> = (0..2)
            .map(|_| {
                let gate = Arc::clone(&gate);
                pool.run(move || {
                    gate.wait();
                    std::thread::current().id()
                })
                .unwrap()
            })
            .collect();
        // A third, queued past the bound, runs when one is free.
        let third = pool.run(|| 3).unwrap();
        let ids: Vec<_> = both.into_iter().map(|r| wait(r).unwrap()).collect();
        assert_ne!(ids[0], ids[1]);
        assert_eq!(wait(third).unwrap(), 3);
        assert!(pool.shared.lock().threads <= 2);
    }

    #[test]
    fn an_ending_server_waits_for_the_calls_still_running() {
        let pool = CallThreads::new(2);
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (started, is_started) = std::sync::mpsc::channel();
        let flag = Arc::clone(&done);
        let _ignored = pool.run(move || {
            started.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(50));
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        is_started.recv().unwrap();
        pool.wait_until_idle();
        assert!(done.load(std::sync::atomic::Ordering::SeqCst));
    }
}
