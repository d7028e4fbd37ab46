//! A mutex that the thread running a task holds for the whole run, so that
//! its stops pay no atomic read-modify-write at all.
//!
//! Task 0's shard is written by one thread, the one running task 0, at
//! every slow stop (a call, a return, an allocation): millions of times a
//! second in a call-heavy run. An uncontended lock is cheap as locks go,
//! but its two locked instructions each wait for the processor's store
//! buffer to drain, and measured under `perf` on `fib` they were two
//! thirds of a slow stop. Nobody else wants the shard while the run goes
//! on (a report is made after it), so the first slow stop of a run takes
//! the lock and keeps it: a *lease*, noted by the holder's thread token,
//! and every later stop on that thread checks one relaxed load against its
//! token and goes straight in. The lease ends when the task ends
//! ([`Debugger::ended`](cove_runtime::vm::debug::Debugger::ended)), or when
//! the holder itself asks for the value the ordinary way, which it can only
//! do between runs.
//!
//! Why not a lock-free shard: the shard is a calling-context tree, a stack
//! and tables of call sites, and making each of those concurrent would
//! cost the writer more than the lock did. Why not a thread-local: a report
//! is made on whatever thread holds the profiler, after the run.
//!
//! The price: a thread other than the holder that asks for the value while
//! the run goes on waits until the task ends. Nothing in Cove does that;
//! the progress line reads a counter the holder publishes instead. And a
//! debugger that wraps a profiler without passing `ended` on would leave
//! the lease held after the run; the runtime runs each task on a thread of
//! its own, so the lease is also given back when the holder's thread exits
//! (a thread-local's destructor), and such a wrapper costs nothing worse
//! than a reader waiting for the task's thread to finish.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::{Mutex, MutexGuard};

/// A value behind a mutex that one thread may hold across many stops.
#[derive(Debug, Default)]
pub(crate) struct Leased<T> {
    lock: Mutex<T>,
    /// The token of the thread holding the lease, 0 when none does. Only
    /// the thread holding the lock writes it, so a thread that reads its
    /// own token here holds the lock.
    holder: AtomicUsize,
}

/// This thread's token: the address of a thread-local, unique among the
/// threads alive and never 0.
#[inline(always)]
fn token() -> usize {
    thread_local! {
        static TOKEN: u8 = const { 0 };
    }
    TOKEN.with(|t| t as *const u8 as usize)
}

/// Something a thread may hold a lease on.
trait Lease: Send + Sync {
    fn release_for(&self, token: usize);
}

/// The leases this thread took, given back if it exits holding them.
struct Held(RefCell<Vec<Weak<dyn Lease>>>);

impl Drop for Held {
    fn drop(&mut self) {
        let me = token();
        for lease in self.0.borrow().iter() {
            if let Some(lease) = lease.upgrade() {
                lease.release_for(me);
            }
        }
    }
}

thread_local! {
    static HELD: Held = const { Held(RefCell::new(Vec::new())) };
}

impl<T: Send + 'static> Lease for Leased<T> {
    fn release_for(&self, token: usize) {
        if self.holder.load(Ordering::Relaxed) == token {
            self.holder.store(0, Ordering::Relaxed);
            // SAFETY: `token` is the calling thread's and it holds the
            // lease, so it holds the lock `take_lease` locked.
            unsafe { self.lock.force_unlock() };
        }
    }
}

impl<T: Send + 'static> Leased<T> {
    /// The value, for the thread that runs the task, taking the lease at
    /// the first call of a run.
    ///
    /// # Safety
    ///
    /// The `&mut` must be gone before this thread calls any method of this
    /// `Leased` again: the lease makes the value this thread's alone, but
    /// not one borrow's alone.
    #[inline(always)]
    // The `&mut` from `&self` is the point: the lease, not the borrow,
    // makes it exclusive (see the safety section).
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn leased(self: &Arc<Self>) -> &mut T {
        let me = token();
        if self.holder.load(Ordering::Relaxed) != me {
            self.take_lease(me);
        }
        // SAFETY: this thread holds the lock: either it took the lease just
        // now or it wrote its token when it did, and only the lock's holder
        // writes `holder`. The caller promises no other borrow of this
        // thread's is alive.
        unsafe { &mut *self.lock.data_ptr() }
    }

    #[cold]
    #[inline(never)]
    fn take_lease(self: &Arc<Self>, me: usize) {
        // Held until `release`: the guard's unlock is done by hand there.
        std::mem::forget(self.lock.lock());
        self.holder.store(me, Ordering::Relaxed);
        let this: Arc<dyn Lease> = Arc::clone(self) as Arc<dyn Lease>;
        let weak = Arc::downgrade(&this);
        drop(this);
        // If the thread is already tearing its thread-locals down there is
        // nowhere to note the lease, and nothing later on it to release it
        // for: the task's end does.
        let _ = HELD.try_with(|held| {
            let mut held = held.0.borrow_mut();
            held.retain(|lease| lease.strong_count() > 0);
            if !held.iter().any(|lease| Weak::ptr_eq(lease, &weak)) {
                held.push(weak);
            }
        });
    }

    /// Ends this thread's lease, if it holds one.
    pub(crate) fn release(&self) {
        self.release_for(token());
    }

    /// The value, locked the ordinary way; the lease, if this thread holds
    /// one, ends first (a run on this thread is over if it is asking).
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.release();
        self.lock.lock()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_ends_holding_a_lease_gives_it_back() {
        let leased = Arc::new(Leased::<u32>::default());
        let holder = Arc::clone(&leased);
        std::thread::spawn(move || {
            // SAFETY: the borrow ends at the end of the statement.
            unsafe { *holder.leased() = 5 };
        })
        .join()
        .expect("the holder ran");
        assert_eq!(*leased.lock(), 5);
    }

    #[test]
    fn a_lease_is_taken_once_and_held_until_released() {
        let leased = Arc::new(Leased::<u32>::default());
        // SAFETY: each borrow ends at the end of its statement.
        unsafe { *leased.leased() += 1 };
        unsafe { *leased.leased() += 1 };
        assert!(leased.lock.is_locked(), "the lease holds the lock");
        leased.release();
        assert!(!leased.lock.is_locked());
        assert_eq!(*leased.lock(), 2);
    }

    #[test]
    fn another_thread_waits_for_the_lease_to_end() {
        let leased = Arc::new(Leased::<u32>::default());
        // SAFETY: the borrow ends at the end of the statement.
        unsafe { *leased.leased() = 7 };
        let other = Arc::clone(&leased);
        let reader = std::thread::spawn(move || *other.lock());
        // The reader cannot get in while the lease holds; once it ends, it
        // sees what the holder wrote.
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(!reader.is_finished());
        unsafe { *leased.leased() = 8 };
        leased.release();
        assert_eq!(reader.join().expect("the reader ran"), 8);
    }

    #[test]
    fn the_holder_asking_the_ordinary_way_ends_its_own_lease() {
        let leased = Arc::new(Leased::<u32>::default());
        // SAFETY: the borrow ends at the end of the statement.
        unsafe { *leased.leased() = 3 };
        // Without the lease ending first this would deadlock.
        assert_eq!(*leased.lock(), 3);
    }
}
