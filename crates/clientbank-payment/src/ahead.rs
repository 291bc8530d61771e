//! Chunks of work made by several threads and taken in order by one
//! ([`Findings::made_ahead`](crate::batch::Findings::made_ahead)): a maker claims the next
//! chunk whenever it is free, so a maker that gets less of a core (the taker shares one with
//! it) makes fewer chunks instead of holding the other up, and no maker runs more than a
//! window of chunks ahead of the taker (what waits in memory stays bounded).

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// The chunks of one run, shared by its makers and its taker.
pub(crate) struct Ordered<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
    /// How many chunks may be claimed past the next one to take.
    window: usize,
}

struct State<T> {
    /// The next chunk to claim.
    claimed: usize,
    /// The next chunk to take.
    taken: usize,
    /// Chunks made and not yet taken, by number.
    made: BTreeMap<usize, T>,
    /// The first chunk found to hold nothing: there is none from it on.
    end: usize,
    /// Makers still at work (one that panics stops being one).
    makers: usize,
    /// The taker has gone, or a maker failed: nothing more is made or taken.
    stopped: bool,
}

impl<T> Ordered<T> {
    /// The chunks of `makers` makers, at most `window` (at least one) claimed ahead of the
    /// taker.
    pub(crate) fn new(makers: usize, window: usize) -> Ordered<T> {
        Ordered {
            state: Mutex::new(State {
                claimed: 0,
                taken: 0,
                made: BTreeMap::new(),
                end: usize::MAX,
                makers,
                stopped: false,
            }),
            changed: Condvar::new(),
            window: window.max(1),
        }
    }

    fn state(&self) -> MutexGuard<'_, State<T>> {
        // Nothing is left half-changed under the lock: a panic elsewhere does not spoil it.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'g>(&self, guard: MutexGuard<'g, State<T>>) -> MutexGuard<'g, State<T>> {
        self.changed
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The number of the next chunk for a maker to make, once it is within the window; `None`
    /// when there is nothing more to make (the end is known, or the taker has gone).
    pub(crate) fn claim(&self) -> Option<usize> {
        let mut state = self.state();
        loop {
            if state.stopped || state.claimed >= state.end {
                return None;
            }
            if state.claimed < state.taken + self.window {
                state.claimed += 1;
                return Some(state.claimed - 1);
            }
            state = self.wait(state);
        }
    }

    /// Chunk `number`, made.
    pub(crate) fn deliver(&self, number: usize, chunk: T) {
        let mut state = self.state();
        if !state.stopped {
            state.made.insert(number, chunk);
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Chunk `number` holds nothing: the chunks end before it.
    pub(crate) fn end_at(&self, number: usize) {
        let mut state = self.state();
        state.end = state.end.min(number);
        drop(state);
        self.changed.notify_all();
    }

    /// The next chunk in order, once it is made; `None` after the last, or when no maker is
    /// left to make it (one failed, or all ended before it).
    pub(crate) fn take(&self) -> Option<T> {
        let mut state = self.state();
        loop {
            if state.stopped {
                return None;
            }
            let next = state.taken;
            if let Some(chunk) = state.made.remove(&next) {
                state.taken += 1;
                drop(state);
                self.changed.notify_all();
                return Some(chunk);
            }
            if next >= state.end || state.makers == 0 {
                return None;
            }
            state = self.wait(state);
        }
    }

    /// The taker wants no more: makers stop at their next claim, and what they make is
    /// dropped.
    pub(crate) fn stop(&self) {
        let mut state = self.state();
        state.stopped = true;
        state.made.clear();
        drop(state);
        self.changed.notify_all();
    }

    /// A maker's presence: while it lives the taker may wait for the maker's chunks. Dropped at
    /// the end of its work, it is one maker fewer; dropped as a panic unwinds, the run stops
    /// (the chunk it claimed will never come): the taker gets `None`, the other makers end.
    pub(crate) fn maker(&self) -> MakerGuard<'_, T> {
        MakerGuard(self)
    }
}

/// See [`Ordered::maker`].
pub(crate) struct MakerGuard<'a, T>(&'a Ordered<T>);

impl<T> Drop for MakerGuard<'_, T> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.makers = state.makers.saturating_sub(1);
        if std::thread::panicking() {
            state.stopped = true;
        }
        drop(state);
        self.0.changed.notify_all();
    }
}

/// Where chunk `number` starts and how many it holds, when the first holds `first` and each
/// holds twice the one before, up to `last`.
pub(crate) fn chunk_bounds(number: usize, first: usize, last: usize) -> (usize, usize) {
    let (mut start, mut size) = (0, first);
    let mut at = 0;
    while at < number && size < last {
        start += size;
        size = (size * 2).min(last);
        at += 1;
    }
    (start + (number - at) * size, size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks made by three threads at uneven speeds come out in order, each once, with the
    /// window never exceeded.
    #[test]
    fn chunks_come_in_order_from_uneven_makers() {
        let ordered = Ordered::new(3, 4);
        let seen = std::thread::scope(|scope| {
            for maker in 0..3u64 {
                let ordered = &ordered;
                scope.spawn(move || {
                    let _present = ordered.maker();
                    while let Some(number) = ordered.claim() {
                        if number >= 100 {
                            ordered.end_at(number);
                            continue;
                        }
                        std::thread::sleep(std::time::Duration::from_micros(maker * 300));
                        ordered.deliver(number, number);
                    }
                });
            }
            let mut seen = Vec::new();
            while let Some(number) = ordered.take() {
                let state = ordered.state();
                assert!(state.claimed <= state.taken + 4, "within the window");
                drop(state);
                seen.push(number);
            }
            seen
        });
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
    }

    /// A taker that stops early lets every maker end; a maker that panics does not leave the
    /// taker waiting for its chunk.
    #[test]
    fn a_stopped_taker_or_a_failed_maker_ends_the_run() {
        let ordered = Ordered::new(2, 2);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                let ordered = &ordered;
                scope.spawn(move || {
                    let _present = ordered.maker();
                    while let Some(number) = ordered.claim() {
                        ordered.deliver(number, vec![0u8; 16]);
                    }
                });
            }
            assert!(ordered.take().is_some());
            ordered.stop();
        });
        // One maker of two fails at its second chunk; the other goes on until the window is
        // full, then ends with the run.
        let ordered: Ordered<usize> = Ordered::new(2, 3);
        let taken = std::thread::scope(|scope| {
            let failing = scope.spawn(|| {
                let _present = ordered.maker();
                let first = ordered.claim().unwrap_or_default();
                ordered.deliver(first, first);
                let second = ordered.claim();
                panic!("maker failed at {second:?}");
            });
            let going = scope.spawn(|| {
                let _present = ordered.maker();
                while let Some(number) = ordered.claim() {
                    ordered.deliver(number, number);
                }
            });
            let mut taken = Vec::new();
            while let Some(number) = ordered.take() {
                taken.push(number);
            }
            assert!(failing.join().is_err());
            assert!(going.join().is_ok());
            taken
        });
        // What came, came in order; the run ended rather than waiting for the lost chunk.
        assert_eq!(taken, (0..taken.len()).collect::<Vec<_>>());
    }

    #[test]
    fn chunk_bounds_double_then_stay() {
        let mut start = 0;
        for (number, size) in [16, 32, 64, 128, 128, 128].into_iter().enumerate() {
            assert_eq!(chunk_bounds(number, 16, 128), (start, size), "{number}");
            start += size;
        }
        assert_eq!(chunk_bounds(1000, 16, 2048), (16 * 127 + 993 * 2048, 2048));
    }
}
