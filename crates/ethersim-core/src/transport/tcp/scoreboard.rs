//! The sender's SACK scoreboard and the RFC 6675 quantities computed from it: which
//! bytes the receiver holds above the cumulative ACK, which are deemed lost, and the
//! pipe (the sender's estimate of the bytes in the network).

use crate::wire::SackBlock;

/// SACKed ranges above the cumulative ACK.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// Disjoint, non-adjacent ranges, in sequence order, all above `snd_una`.
    sacked: Vec<SackBlock>,
}

impl Scoreboard {
    /// Forgets everything (after a retransmission timeout, RFC 6675 section 5.1).
    pub fn clear(&mut self) {
        self.sacked.clear();
    }

    /// Whether any range is recorded.
    pub fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    /// The cumulative ACK moved to `snd_una`: drops what it covers.
    pub fn acknowledge(&mut self, snd_una: u64) {
        let keep = self.sacked.partition_point(|b| b.end <= snd_una);
        self.sacked.drain(..keep);
        if let Some(first) = self.sacked.first_mut() {
            first.start = first.start.max(snd_una);
        }
    }

    /// Records a SACK block (RFC 6675 section 5, "update"); blocks below `snd_una` or
    /// above `snd_max` are ignored as invalid.
    pub fn add(&mut self, b: SackBlock, snd_una: u64, snd_max: u64) {
        let start = b.start.max(snd_una);
        let end = b.end.min(snd_max);
        if end <= start {
            return;
        }
        let first = self.sacked.partition_point(|x| x.end < start);
        let mut last = first;
        let mut merged = SackBlock { start, end };
        while last < self.sacked.len() && self.sacked[last].start <= end {
            merged.start = merged.start.min(self.sacked[last].start);
            merged.end = merged.end.max(self.sacked[last].end);
            last += 1;
        }
        self.sacked.splice(first..last, std::iter::once(merged));
    }

    /// The highest SACKed byte + 1 (RFC 6675's HighACK... beyond the cumulative ACK), if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|b| b.end)
    }

    /// Whether byte `seq` is SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.sacked.partition_point(|b| b.end <= seq);
        self.sacked.get(i).is_some_and(|b| b.start <= seq)
    }

    /// SACKed bytes above `seq`.
    pub fn sacked_above(&self, seq: u64) -> u64 {
        let i = self.sacked.partition_point(|b| b.end <= seq);
        self.sacked[i..].iter().map(|b| b.end - b.start.max(seq + 1).min(b.end)).sum()
    }

    /// RFC 6675 IsLost(seq): more than (DupThresh − 1)·SMSS bytes above it are SACKed.
    pub fn is_lost(&self, seq: u64, dupthresh: u64, smss: u64) -> bool {
        self.sacked_above(seq) > (dupthresh - 1) * smss
    }

    /// The first byte at or after `from` and below `to` that is not SACKed, if any.
    pub fn next_unsacked(&self, from: u64, to: u64) -> Option<u64> {
        let mut seq = from;
        let i = self.sacked.partition_point(|b| b.end <= seq);
        for b in &self.sacked[i..] {
            if b.start > seq {
                break;
            }
            seq = b.end;
        }
        (seq < to).then_some(seq)
    }

    /// The highest byte below `to` and at or above `from` that is not SACKed, if any.
    pub fn last_unsacked(&self, from: u64, to: u64) -> Option<u64> {
        let mut end = to;
        for b in self.sacked.iter().rev() {
            if b.start >= end {
                continue;
            }
            if b.end >= end {
                end = b.start;
            } else {
                break;
            }
        }
        (end > from).then(|| end - 1)
    }

    /// The start of the unSACKed run holding `seq`, at or after `from` (the byte after the
    /// last SACKed block below `seq`, or `from`).
    pub fn unsacked_run_start(&self, from: u64, seq: u64) -> u64 {
        let i = self.sacked.partition_point(|b| b.end <= seq);
        let below = if i > 0 { self.sacked[i - 1].end } else { from };
        below.max(from)
    }

    /// The end of the unSACKed run starting at `seq` (the next SACKed byte, or `to`).
    pub fn unsacked_run_end(&self, seq: u64, to: u64) -> u64 {
        let i = self.sacked.partition_point(|b| b.end <= seq);
        self.sacked.get(i).map_or(to, |b| b.start.max(seq)).min(to)
    }

    /// RFC 6675 SetPipe, with a byte granularity: over `[snd_una, snd_max)`, every
    /// unSACKed byte not deemed lost counts once, and every unSACKed byte retransmitted
    /// (below `high_rxt`) counts once more.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, high_rxt: u64, dupthresh: u64, smss: u64) -> u64 {
        let mut pipe = 0;
        let mut seq = snd_una;
        // Bytes above the highest byte deemed lost are not lost: find the lost boundary,
        // the highest unSACKed byte with enough SACKed data above it.
        let lost_below = self.lost_boundary(snd_una, dupthresh, smss);
        while let Some(start) = self.next_unsacked(seq, snd_max) {
            let end = self.unsacked_run_end(start, snd_max);
            let not_lost_from = start.max(lost_below);
            if end > not_lost_from {
                pipe += end - not_lost_from;
            }
            if high_rxt > start {
                pipe += high_rxt.min(end) - start;
            }
            seq = end;
        }
        pipe
    }

    /// Every unSACKed byte below the returned point is deemed lost by IsLost.
    fn lost_boundary(&self, snd_una: u64, dupthresh: u64, smss: u64) -> u64 {
        let need = (dupthresh - 1) * smss;
        let mut above = 0;
        for b in self.sacked.iter().rev() {
            above += b.end - b.start;
            if above > need {
                // Bytes below this block's start have more than `need` SACKed above them.
                return b.start.max(snd_una);
            }
        }
        snd_una
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sb(start: u64, end: u64) -> SackBlock {
        SackBlock { start, end }
    }

    #[test]
    fn blocks_merge_and_the_cumulative_ack_trims_them() {
        let mut s = Scoreboard::default();
        s.add(sb(300, 400), 100, 1000);
        s.add(sb(400, 500), 100, 1000);
        s.add(sb(700, 800), 100, 1000);
        assert!(s.is_sacked(450) && !s.is_sacked(500) && !s.is_sacked(299));
        assert_eq!(s.sacked_above(100), 300);
        assert_eq!(s.next_unsacked(300, 1000), Some(500));
        s.acknowledge(450);
        assert_eq!(s.sacked_above(0), 150);
        s.add(sb(0, 2000), 450, 1000);
        assert_eq!(s.high_sacked(), Some(1000), "clipped to what was sent");
    }

    #[test]
    fn is_lost_needs_more_than_dupthresh_minus_one_segments_sacked_above() {
        let mut s = Scoreboard::default();
        // One segment of 100 B lost at [0, 100), three SACKed above it.
        s.add(sb(100, 300), 0, 1000);
        assert!(!s.is_lost(0, 3, 100), "exactly 2 segments above");
        s.add(sb(300, 400), 0, 1000);
        assert!(s.is_lost(0, 3, 100));
        // Pipe: [0,100) lost and not retransmitted: 0; [400, 1000) outstanding: 600.
        assert_eq!(s.pipe(0, 1000, 0, 3, 100), 600);
        // After retransmitting [0, 100): it counts once.
        assert_eq!(s.pipe(0, 1000, 100, 3, 100), 700);
    }
}
