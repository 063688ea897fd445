//! The future event list across its change of storage: pending counts that cross the
//! array's bound (`SMALL`) and the heap's way back (`ARRAY_AGAIN`) again and again
//! still pop in the list's order (time, then the first rank, then sequence), checked
//! against an ordered map of those keys.

use std::collections::BTreeMap;

use ethersim_core::engine::queue::{ARRAY_AGAIN, SMALL};
use ethersim_core::engine::EventQueue;
use ethersim_core::time::SimTime;

/// A small deterministic generator (Knuth's MMIX LCG): the test needs varied instants
/// with ties, not statistical quality.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

// The heap's way back is below the array's bound: otherwise a count at the bound would
// change storage at every push and pop. Checked when the tests compile.
const _: () = assert!(ARRAY_AGAIN < SMALL, "ARRAY_AGAIN must be below SMALL");

#[test]
fn counts_crossing_both_bounds_pop_in_order() {
    let mut q = EventQueue::default();
    // Key: (instant, 0 for the first rank or 1 for the later, sequence).
    let mut reference: BTreeMap<(u64, u8, u64), u64> = BTreeMap::new();
    let mut seq = 0u64; // mirrors the list's sequences: one per push or reservation
    let mut now = 0u64;
    let mut state = 7;
    let mut push = |q: &mut EventQueue<u64>, reference: &mut BTreeMap<_, _>, now: u64, state: &mut u64| {
        // Instants from now to three picoseconds on: many ties.
        let at = now + next(state) % 4;
        if next(state) % 3 == 0 {
            let s = q.reserve();
            q.push_first(SimTime(at), s, s);
            reference.insert((at, 0, s), s);
        } else {
            q.push(SimTime(at), seq);
            reference.insert((at, 1, seq), seq);
        }
        seq += 1;
    };
    for cycle in 0..300 {
        // Up past the bound (into the heap) ...
        while q.len() <= SMALL + cycle % 3 {
            push(&mut q, &mut reference, now, &mut state);
        }
        // ... then down to the way back or below it (into the array again).
        while q.len() > ARRAY_AGAIN - cycle % 2 {
            let ((at, _, _), expected) = reference.pop_first().expect("as many entries as the list");
            assert_eq!(q.pop(), Some((SimTime(at), expected)), "cycle {cycle}");
            now = at;
        }
        assert_eq!(q.len(), reference.len());
        assert_eq!(q.peek_time(), reference.keys().next().map(|&(t, _, _)| SimTime(t)));
    }
    while let Some(((at, _, _), expected)) = reference.pop_first() {
        assert_eq!(q.pop(), Some((SimTime(at), expected)));
    }
    assert!(q.is_empty());
}
