//! The future event list, ordered by (time, rank, insertion sequence).
//!
//! Equal times pop in the order they were pushed, so ties are deterministic and do not
//! depend on the internal layout. One exception, by rank: events of the first rank
//! ([`EventQueue::push_first`], in the order of the sequences reserved for them) pop
//! before the other events at their instant (the network's transmission ends: the wire
//! is free before anything else happens at the instant it frees). Storage is reused: once it has grown to the largest
//! number of pending events, pushing and popping allocate nothing.
//!
//! A network keeps few events pending (one per link direction, host processor and
//! armed timer), so while at most [`SMALL`] are pending they sit in an unsorted array:
//! a push appends, a pop scans for the smallest key. Past that the same storage becomes
//! a binary heap (an O(n) heapify, done rarely), and it goes back to an array at three
//! quarters of that ([`ARRAY_AGAIN`]). Measured with the criterion hold model: at 4
//! pending events a pop and push take a fraction of what a binary heap's do. Measured
//! with `ethersim bench`: at 10 or more pending the scan costs more than the heap (its
//! branch on each entry mispredicts each time a later entry holds a smaller key). With
//! 10 as the bound in place of 16, the MPI alltoall scenarios (15-16 pending) take 0.94
//! and 0.70 of their time and the capacity-scaling one (8-12 pending) 0.90; with 8,
//! TCP transfers that keep 7-9 pending take 1.05-1.06 (README, Performance).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

/// One scheduled event: its ordering key and its payload.
///
/// The key packs the instant (high 64 bits) and the insertion sequence (low 64 bits)
/// into one `u128`, so ordering by key is ordering by (time, sequence) in a single
/// comparison.
#[derive(Debug)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn at(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// What [`EventQueue::pop_until`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Next<E> {
    /// The earliest event, removed: it is at or before the bound.
    Event(SimTime, E),
    /// The earliest event is later than the bound, at this instant; nothing was removed.
    Later(SimTime),
    /// No event is pending.
    Empty,
}

/// The bit of a key's sequence that ranks events queued with [`EventQueue::push`] after
/// those of the first rank at the same instant (sequences stay below it: 2^63 pushes).
pub const LATER_RANK: u64 = 1 << 63;

/// Most pending events kept as an unsorted array before the queue becomes a heap.
pub const SMALL: usize = 10;

/// Pending events at or below which a heap becomes an array again. Above half of
/// [`SMALL`]: a run that passed the bound once (a burst) and then keeps 6-8 pending (a
/// TCP transfer through a PAUSE-capable switch) returns to the array it is faster with.
pub const ARRAY_AGAIN: usize = SMALL * 3 / 4;

/// Where the entries are.
#[derive(Debug)]
enum Store<E> {
    /// Unsorted; at most [`SMALL`] entries.
    Array(Vec<Entry<E>>),
    /// A binary heap.
    Heap(BinaryHeap<Entry<E>>),
}

/// A priority queue of events of type `E`, earliest first, ties in insertion order.
#[derive(Debug)]
pub struct EventQueue<E> {
    store: Store<E>,
    next_seq: u64,
    /// The sequence of the event popped last, its rank included (0 before the first).
    popped_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<E> EventQueue<E> {
    /// An empty queue with room for `capacity` pending events before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            store: Store::Array(Vec::with_capacity(capacity.max(SMALL + 1))),
            next_seq: 0,
            popped_seq: 0,
        }
    }

    /// Schedules `event` at `at`. Events at the same instant run in push order, after
    /// those of the first rank ([`EventQueue::push_first`]).
    // Always inlined: the common case (a few pending events, an array append) is a few
    // instructions, and every handler schedules; the rest is out of line. Measured: left
    // to `#[inline]`, the compiler stopped inlining it once the TCP handlers joined, and
    // every bench scenario slowed by 5-10%.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn push(&mut self, at: SimTime, event: E) {
        let seq = self.reserve();
        self.push_key(at, seq | LATER_RANK, event);
    }

    /// Takes the next insertion sequence without queueing anything, for an event of the
    /// first rank that may be queued later with [`EventQueue::push_first`] (or never).
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` at `at` in the first rank: among events at `at` it runs before
    /// every event queued with [`EventQueue::push`], and among those of the first rank in
    /// the order of their sequences, `seq` reserved with [`EventQueue::reserve`] (and
    /// used once). A model queues in the first rank what happens at an instant before
    /// anything else does there.
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub fn push_first(&mut self, at: SimTime, seq: u64, event: E) {
        debug_assert!(seq < self.next_seq, "a sequence never reserved");
        self.push_key(at, seq, event);
    }

    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn push_key(&mut self, at: SimTime, seq: u64, event: E) {
        let entry = Entry { key: (u128::from(at.0) << 64) | u128::from(seq), event };
        match &mut self.store {
            Store::Array(v) => {
                // The array's capacity exceeds SMALL: this push never reallocates.
                v.push(entry);
                if v.len() > SMALL {
                    self.grow_into_heap();
                }
            }
            Store::Heap(h) => h.push(entry),
        }
    }

    /// The array holds more than [`SMALL`] entries: it becomes a heap (in place: the
    /// vector's buffer is reused).
    #[cold]
    #[inline(never)]
    fn grow_into_heap(&mut self) {
        if let Store::Array(v) = &mut self.store {
            self.store = Store::Heap(BinaryHeap::from(std::mem::take(v)));
        }
    }

    /// Index of the earliest entry of a non-empty array.
    #[inline]
    fn earliest(v: &[Entry<E>]) -> usize {
        let mut best = 0;
        let mut best_key = v[0].key;
        for (i, e) in v.iter().enumerate().skip(1) {
            // Keys are unique (the sequence number differs), so the minimum is too.
            let smaller = e.key < best_key;
            best = if smaller { i } else { best };
            best_key = if smaller { e.key } else { best_key };
        }
        best
    }

    /// The instant of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        match &self.store {
            Store::Array(v) if v.is_empty() => None,
            Store::Array(v) => Some(v[Self::earliest(v)].at()),
            Store::Heap(h) => h.peek().map(Entry::at),
        }
    }

    /// Removes and returns the earliest pending event if it is at or before `until`;
    /// otherwise says when it is (one look at the queue instead of a peek and a pop).
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Next<E> {
        let entry = match &mut self.store {
            Store::Array(v) if v.is_empty() => return Next::Empty,
            Store::Array(v) => {
                let i = Self::earliest(v);
                if v[i].at() > until {
                    return Next::Later(v[i].at());
                }
                v.swap_remove(i)
            }
            Store::Heap(h) => match h.peek() {
                None => return Next::Empty,
                Some(e) if e.at() > until => return Next::Later(e.at()),
                Some(_) => return self.pop().map_or(Next::Empty, |(at, e)| Next::Event(at, e)),
            },
        };
        self.popped_seq = entry.key as u64;
        Next::Event(entry.at(), entry.event)
    }

    /// Removes and returns the earliest pending event.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let entry = match &mut self.store {
            Store::Array(v) if v.is_empty() => return None,
            Store::Array(v) => {
                let i = Self::earliest(v);
                v.swap_remove(i)
            }
            Store::Heap(h) => {
                let e = h.pop()?;
                if h.len() <= ARRAY_AGAIN {
                    // Back to an array (any order will do), reusing the buffer.
                    self.store = Store::Array(std::mem::take(h).into_vec());
                }
                e
            }
        };
        self.popped_seq = entry.key as u64;
        Some((entry.at(), entry.event))
    }

    /// The sequence of the event popped last, its rank included (0 before the first):
    /// its place among the events at its instant.
    pub fn popped_seq(&self) -> u64 {
        self.popped_seq
    }

    /// Number of pending events (including stale timer events not yet popped).
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Array(v) => v.len(),
            Store::Heap(h) => h.len(),
        }
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        for i in 0..100 {
            q.push(SimTime(5), i);
        }
        q.push(SimTime(1), 1000);
        assert_eq!(q.pop(), Some((SimTime(1), 1000)));
        for i in 0..100 {
            assert_eq!(q.pop(), Some((SimTime(5), i)));
        }
        assert!(q.pop().is_none());
    }

    #[test]
    fn the_first_rank_pops_first_at_its_instant_in_reserved_order() {
        let mut q = EventQueue::default();
        q.push(SimTime(5), "later, pushed first");
        let (early, late) = (q.reserve(), q.reserve());
        q.push(SimTime(5), "later, pushed second");
        q.push_first(SimTime(5), late, "first rank, reserved second");
        q.push_first(SimTime(5), early, "first rank, reserved first");
        q.push(SimTime(4), "an earlier instant");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            [
                "an earlier instant",
                "first rank, reserved first",
                "first rank, reserved second",
                "later, pushed first",
                "later, pushed second"
            ]
        );
    }

    proptest! {
        /// Whatever the pushes, pops come out sorted by (time, push index): a stable sort.
        /// (Up to 300 entries: the queue passes from array to heap and back.)
        #[test]
        fn pops_equal_a_stable_sort(times in proptest::collection::vec(0u64..20, 0..300)) {
            let mut q = EventQueue::default();
            for (i, &t) in times.iter().enumerate() {
                q.push(SimTime(t), i);
            }
            let mut expected: Vec<(SimTime, usize)> =
                times.iter().enumerate().map(|(i, &t)| (SimTime(t), i)).collect();
            expected.sort_by_key(|&(t, _)| t); // stable: keeps push order among equals
            let got: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
            prop_assert_eq!(got, expected);
        }

        /// Interleaved pushes and pops, through array and heap and back, pop exactly what
        /// an ordered map of (time, push index) would: the earliest, ties in push order.
        #[test]
        fn interleaved_pops_equal_an_ordered_map(
            ops in proptest::collection::vec((0u64..40, 0u8..4), 0..2000),
        ) {
            let mut q = EventQueue::default();
            let mut reference = std::collections::BTreeMap::new();
            let mut now = 0;
            for (i, (dt, op)) in ops.into_iter().enumerate() {
                if op == 0 {
                    let popped = q.pop();
                    let expected = reference.pop_first().map(|((t, _), v)| (SimTime(t), v));
                    prop_assert_eq!(popped, expected);
                    if let Some((t, _)) = expected {
                        now = t.0;
                    }
                } else if op == 1 {
                    // A pop bounded at `now + dt / 4`: the earliest if it is not later.
                    let bound = now + dt / 4;
                    let expected = match reference.first_key_value() {
                        None => Next::Empty,
                        Some((&(t, _), _)) if t > bound => Next::Later(SimTime(t)),
                        Some(_) => {
                            let ((t, _), v) = reference.pop_first().expect("non-empty");
                            now = t;
                            Next::Event(SimTime(t), v)
                        }
                    };
                    prop_assert_eq!(q.pop_until(SimTime(bound)), expected);
                } else {
                    q.push(SimTime(now + dt), i);
                    reference.insert((now + dt, i), i);
                }
                prop_assert_eq!(q.len(), reference.len());
                let first = reference.keys().next().map(|&(t, _)| SimTime(t));
                prop_assert_eq!(q.peek_time(), first);
            }
        }

        /// Interleaved pushes and pops never yield an event earlier than one already popped,
        /// provided pushes are not in the past (the scheduler's rule).
        #[test]
        fn interleaved_pops_are_monotone(ops in proptest::collection::vec((0u64..50, any::<bool>()), 0..300)) {
            let mut q = EventQueue::default();
            let mut now = SimTime(0);
            for (dt, pop) in ops {
                if pop {
                    if let Some((t, ())) = q.pop() {
                        prop_assert!(t >= now);
                        now = t;
                    }
                } else {
                    q.push(SimTime(now.0 + dt), ());
                }
            }
        }
    }
}
