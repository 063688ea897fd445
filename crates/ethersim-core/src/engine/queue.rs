//! The future event list: a binary heap ordered by (time, insertion sequence).
//!
//! Equal times pop in the order they were pushed, so ties are deterministic and do not
//! depend on the heap's internal layout. The heap's storage is reused: once it has grown
//! to the largest number of pending events, pushing and popping allocate nothing.

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

/// A priority queue of events of type `E`, earliest first, ties in insertion order.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<E> EventQueue<E> {
    /// An empty queue with room for `capacity` pending events before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(capacity), next_seq: 0 }
    }

    /// Schedules `event` at `at`. Events at the same instant run in push order.
    pub fn push(&mut self, at: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { key: (u128::from(at.0) << 64) | u128::from(seq), event });
    }

    /// The instant of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(Entry::at)
    }

    /// Removes and returns the earliest pending event.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|e| (e.at(), e.event))
    }

    /// Number of pending events (including stale timer events not yet popped).
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

    proptest! {
        /// Whatever the pushes, pops come out sorted by (time, push index): a stable sort.
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
