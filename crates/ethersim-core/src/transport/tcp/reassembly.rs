//! The receive sequence space: what has arrived in order, what is held out of order, and
//! the SACK blocks that describe it (RFC 2018 section 4).

use crate::wire::tcp::MAX_SACK_BLOCKS;
use crate::wire::SackBlock;

/// What one arriving segment did to the receive sequence space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Bytes that became in order (the advance of `rcv_nxt`).
    pub advanced: u64,
    /// The segment lies above `rcv_nxt`: a hole precedes it.
    pub out_of_order: bool,
    /// The segment began at `rcv_nxt` while data above it was held: it (partly) filled a
    /// hole (RFC 5681 section 4.2 asks for an immediate ACK).
    pub filled_hole: bool,
    /// Nothing new: every byte of it had already arrived.
    pub duplicate: bool,
}

/// In-order point and out-of-order ranges of one receive direction.
#[derive(Clone, Debug)]
pub struct Reassembly {
    rcv_nxt: u64,
    /// Disjoint, non-adjacent ranges above `rcv_nxt`, in sequence order.
    held: Vec<SackBlock>,
    held_bytes: u64,
    /// Starts of the blocks most recently reported, most recent first (RFC 2018 section 4).
    recent: [u64; MAX_SACK_BLOCKS],
    recent_len: usize,
}

impl Reassembly {
    /// Nothing received yet; the next byte expected is `rcv_nxt`.
    pub fn new(rcv_nxt: u64) -> Self {
        Reassembly { rcv_nxt, held: Vec::new(), held_bytes: 0, recent: [0; MAX_SACK_BLOCKS], recent_len: 0 }
    }

    /// The next byte expected in order.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Bytes held out of order.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// Whether anything is held out of order.
    pub fn has_holes(&self) -> bool {
        !self.held.is_empty()
    }

    /// Advances past a control flag (SYN or FIN) occupying one sequence number; only
    /// when nothing is held above it.
    pub fn advance_control(&mut self) {
        debug_assert!(self.held.is_empty());
        self.rcv_nxt += 1;
    }

    /// Records the bytes `[start, end)` (already trimmed to the receive window).
    pub fn insert(&mut self, start: u64, end: u64) -> Arrival {
        let start = start.max(self.rcv_nxt);
        if end <= start {
            return Arrival { advanced: 0, out_of_order: false, filled_hole: false, duplicate: true };
        }
        if start == self.rcv_nxt && self.held.is_empty() {
            // The common case: in order, nothing held.
            self.rcv_nxt = end;
            return Arrival {
                advanced: end - start,
                out_of_order: false,
                filled_hole: false,
                duplicate: false,
            };
        }
        let out_of_order = start > self.rcv_nxt;
        let had_holes = !self.held.is_empty();
        let before = self.held_bytes;
        // Merge [start, end) into the held ranges.
        let first = self.held.partition_point(|b| b.end < start);
        let mut last = first;
        let mut merged = SackBlock { start, end };
        while last < self.held.len() && self.held[last].start <= end {
            merged.start = merged.start.min(self.held[last].start);
            merged.end = merged.end.max(self.held[last].end);
            self.held_bytes -= self.held[last].end - self.held[last].start;
            last += 1;
        }
        self.held.splice(first..last, std::iter::once(merged));
        self.held_bytes += merged.end - merged.start;
        let new_bytes = self.held_bytes - before;
        // Whatever now starts at rcv_nxt is in order.
        let mut advanced = 0;
        if self.held[0].start == self.rcv_nxt {
            let b = self.held.remove(0);
            advanced = b.end - b.start;
            self.held_bytes -= advanced;
            self.rcv_nxt = b.end;
        } else {
            self.note_recent(merged.start);
        }
        Arrival {
            advanced,
            out_of_order,
            filled_hole: had_holes && !out_of_order,
            duplicate: new_bytes == 0 && advanced == 0,
        }
    }

    fn note_recent(&mut self, start: u64) {
        let mut list = [start; MAX_SACK_BLOCKS];
        let mut n = 1;
        for &s in &self.recent[..self.recent_len] {
            if n < MAX_SACK_BLOCKS && s != start {
                list[n] = s;
                n += 1;
            }
        }
        self.recent = list;
        self.recent_len = n;
    }

    /// The SACK blocks for the next ACK, at most `max`: the block holding the most
    /// recently received segment first, then the most recently reported others
    /// (RFC 2018 section 4). Returns how many were written.
    pub fn sack_blocks(&self, out: &mut [SackBlock; MAX_SACK_BLOCKS], max: usize) -> u8 {
        let mut n = 0;
        for &s in &self.recent[..self.recent_len] {
            if n >= max {
                break;
            }
            // The block that now contains the reported start (blocks only grow or leave).
            let i = self.held.partition_point(|b| b.end <= s);
            if let Some(b) = self.held.get(i).filter(|b| b.start <= s) {
                if !out[..n].contains(b) {
                    out[n] = *b;
                    n += 1;
                }
            }
        }
        // Then any held block not yet listed, highest first.
        for b in self.held.iter().rev() {
            if n >= max {
                break;
            }
            if !out[..n].contains(b) {
                out[n] = *b;
                n += 1;
            }
        }
        n as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(r: &Reassembly) -> Vec<(u64, u64)> {
        let mut out = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = r.sack_blocks(&mut out, MAX_SACK_BLOCKS);
        out[..usize::from(n)].iter().map(|b| (b.start, b.end)).collect()
    }

    #[test]
    fn in_order_data_advances_and_holes_are_held_until_filled() {
        let mut r = Reassembly::new(1);
        assert_eq!(r.insert(1, 101).advanced, 100);
        let a = r.insert(201, 301);
        assert!(a.out_of_order && a.advanced == 0);
        assert_eq!(r.held_bytes(), 100);
        let fill = r.insert(101, 201);
        assert!(fill.filled_hole);
        assert_eq!((fill.advanced, r.rcv_nxt(), r.held_bytes()), (200, 301, 0));
        assert!(r.insert(50, 150).duplicate, "old data is a duplicate");
    }

    #[test]
    fn sack_blocks_list_the_latest_arrival_first() {
        let mut r = Reassembly::new(0);
        r.insert(100, 200);
        r.insert(300, 400);
        r.insert(500, 600);
        assert_eq!(blocks(&r), vec![(500, 600), (300, 400), (100, 200)]);
        r.insert(200, 300); // joins the first two held blocks
        assert_eq!(blocks(&r), vec![(100, 400), (500, 600)]);
        r.insert(0, 100);
        assert_eq!(blocks(&r), vec![(500, 600)]);
    }
}
