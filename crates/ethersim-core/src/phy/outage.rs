//! Scheduled link outages: intervals during which a link carries nothing in either
//! direction (a cable pulled, a PHY retraining, a what-if).
//!
//! When an outage starts, a frame whose last bit has not yet left its transmitter is
//! lost: the link partner receives a truncated frame that fails its frame check
//! sequence (802.3 clause 3.2.9) and discards it. Bits already on the cable (a frame in
//! its inter-frame gap, or propagating) arrive. Frames waiting in the ports' queues wait
//! for the outage to end; a queue that overflows meanwhile drops as it always does.

use crate::time::{Duration, SimTime};

/// One outage: the link is dark over `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outage {
    /// The link goes dark.
    pub start: SimTime,
    /// The link carries frames again.
    pub end: SimTime,
}

/// A link's outages, in time order and not overlapping, and which have begun.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutageSchedule {
    outages: Vec<Outage>,
    next: usize,
}

impl OutageSchedule {
    /// A schedule of `outages`, which must be sorted, non-overlapping and non-empty each
    /// (the scenario layer checks this and names the offending entry).
    pub fn new(outages: Vec<Outage>) -> Self {
        debug_assert!(outages.iter().all(|o| o.start < o.end));
        debug_assert!(outages.windows(2).all(|w| w[0].end <= w[1].start));
        OutageSchedule { outages, next: 0 }
    }

    /// When the next outage starts, if one remains.
    pub fn next_start(&self) -> Option<SimTime> {
        self.outages.get(self.next).map(|o| o.start)
    }

    /// The outage starting at `now`, marked begun.
    pub fn begin(&mut self, now: SimTime) -> Option<Outage> {
        let o = *self.outages.get(self.next).filter(|o| o.start == now)?;
        self.next += 1;
        Some(o)
    }

    /// Whether the link is dark at `now`.
    pub fn is_dark(&self, now: SimTime) -> bool {
        self.outages[..self.next].last().is_some_and(|o| o.start <= now && now < o.end)
    }

    /// Outages begun so far.
    pub fn begun(&self) -> u64 {
        self.next as u64
    }

    /// Time spent dark within `[0, end]` by the outages begun so far, in closed form.
    pub fn dark_time(&self, end: SimTime) -> Duration {
        self.outages[..self.next]
            .iter()
            .fold(Duration::ZERO, |acc, o| acc + o.end.min(end).saturating_since(o.start))
    }

    /// The outages.
    pub fn outages(&self) -> &[Outage] {
        &self.outages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sched() -> OutageSchedule {
        OutageSchedule::new(vec![
            Outage { start: SimTime(10), end: SimTime(20) },
            Outage { start: SimTime(50), end: SimTime(80) },
        ])
    }

    #[test]
    fn outages_begin_in_order_at_their_start() {
        let mut s = sched();
        assert_eq!(s.next_start(), Some(SimTime(10)));
        assert_eq!(s.begin(SimTime(9)), None);
        assert_eq!(s.begin(SimTime(10)).map(|o| o.end), Some(SimTime(20)));
        assert!(s.is_dark(SimTime(19)) && !s.is_dark(SimTime(20)));
        assert_eq!(s.next_start(), Some(SimTime(50)));
    }

    #[test]
    fn dark_time_counts_begun_outages_clipped_to_the_end_of_the_run() {
        let mut s = sched();
        assert_eq!((s.begun(), s.dark_time(SimTime(100))), (0, Duration(0)));
        s.begin(SimTime(10));
        assert_eq!(s.dark_time(SimTime(15)), Duration(5));
        s.begin(SimTime(50));
        assert_eq!(s.dark_time(SimTime(100)), Duration(10 + 30));
        assert_eq!(s.dark_time(SimTime(60)), Duration(10 + 10));
        assert_eq!(s.begun(), 2);
    }
}
