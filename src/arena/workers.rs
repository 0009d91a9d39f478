//! Running independent jobs (games, game pairs) on a rayon pool: one long-lived worker
//! per thread with its own state (searchers and their tables), results handed to the
//! calling thread as they finish.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work(state, job)` for every job on `threads` worker threads (`threads` = 0: one
/// per core), each worker starting from `init()`. Jobs are taken in list order; after
/// `stop` is raised no new job starts. `on_result` runs on the calling thread, in
/// completion order.
pub fn run_workers<S, R>(
    threads: usize,
    jobs: &[u64],
    stop: &AtomicBool,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, u64) -> R + Sync,
    mut on_result: impl FnMut(R),
) -> Result<(), String>
where
    R: Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            pool.broadcast(|_| {
                let mut state = init();
                while !stop.load(Ordering::Relaxed) {
                    let Some(&job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    if send.send(work(&mut state, job)).is_err() {
                        break;
                    }
                }
            });
            drop(send);
        });
        for result in receive {
            on_result(result);
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_and_stop_stops() {
        let jobs: Vec<u64> = (0..100).collect();
        let stop = AtomicBool::new(false);
        let mut seen = Vec::new();
        run_workers(
            2,
            &jobs,
            &stop,
            || 0u64,
            |count, job| {
                *count += 1;
                job * 2
            },
            |r| seen.push(r),
        )
        .unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..100).map(|j| j * 2).collect::<Vec<_>>());

        // Jobs from the eleventh on wait for the flag, which the tenth result raises: the
        // worker takes at most one more job after it, however slow the machine.
        let stop = AtomicBool::new(false);
        let mut taken = 0;
        let wait_for_stop = |_: &mut (), job| {
            while job >= 10 && !stop.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
        };
        run_workers(
            1,
            &jobs,
            &stop,
            || (),
            wait_for_stop,
            |()| {
                taken += 1;
                if taken == 10 {
                    stop.store(true, Ordering::Relaxed);
                }
            },
        )
        .unwrap();
        assert!((10..=11).contains(&taken), "{taken}");
    }
}
