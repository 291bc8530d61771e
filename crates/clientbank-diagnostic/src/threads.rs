//! Threads that may not be had. A system that limits processes (a container, a user at its
//! limit) refuses a new thread, and `CLIENTBANK_THREADS=1` asks for none: the work a second
//! thread would have done is then done by the thread that asked, with the same result, never
//! a panic or a wait for a thread that does not exist.

use std::cell::Cell;
use std::sync::OnceLock;
use std::thread::{Builder, Scope, ScopedJoinHandle};

/// Whether `CLIENTBANK_THREADS=1` asks for one thread (read once).
pub fn one_thread() -> bool {
    static ONE: OnceLock<bool> = OnceLock::new();
    *ONE.get_or_init(|| std::env::var("CLIENTBANK_THREADS").is_ok_and(|n| n.trim() == "1"))
}

thread_local! {
    /// How many of the next threads this thread asks for are refused ([`refuse_next`]).
    static REFUSED: Cell<usize> = const { Cell::new(0) };
}

/// The next `count` threads asked for from this thread are refused, as a system at its limit
/// on processes refuses them: for tests of what the callers do then.
#[doc(hidden)]
pub fn refuse_next(count: usize) {
    REFUSED.set(count);
}

/// Whether the thread asked for now is not to be had.
fn refused() -> bool {
    let refused = REFUSED.get();
    REFUSED.set(refused.saturating_sub(1));
    refused > 0 || one_thread()
}

/// `f` on a new thread of `scope`; `None` when there is none to have (the system refused it,
/// or one thread was asked for), and the caller does the work itself.
pub fn spawn_scoped<'scope, 'env, T: Send + 'scope>(
    scope: &'scope Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Option<ScopedJoinHandle<'scope, T>> {
    if refused() {
        return None;
    }
    Builder::new().spawn_scoped(scope, f).ok()
}

/// `f` on a new thread of its own; `None` as for [`spawn_scoped`].
pub fn spawn<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<std::thread::JoinHandle<T>> {
    if refused() {
        return None;
    }
    Builder::new().spawn(f).ok()
}
