//! A measurement window: counters read at its start and at its end, so that rates leave
//! out a warm-up and a cool-down (a capacity study measures the middle of a run).
//!
//! Two events, one at each edge, whatever the traffic: a port's counter at an edge counts
//! the frames whose transmission (frame and gap) ended by then, a flow's the packets
//! delivered by then. A run that ends before the window does ends it there.

use crate::time::SimTime;

/// The counters the window differences.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Per port: data frames sent and their bytes.
    pub ports: Vec<(u64, u64)>,
    /// Per flow: data packets delivered and their payload bytes.
    pub flows: Vec<(u64, u64)>,
}

/// A measurement window and what was read at its edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeasureWindow {
    /// Its start.
    pub from: SimTime,
    /// Its end.
    pub until: SimTime,
    /// The counters at `from`, once read.
    pub at_start: Option<Counts>,
    /// The counters at `until` (or at the run's end, if that came first), once read.
    pub at_end: Option<(SimTime, Counts)>,
}

impl MeasureWindow {
    /// A window over `[from, until)`.
    pub fn new(from: SimTime, until: SimTime) -> Self {
        MeasureWindow { from, until, at_start: None, at_end: None }
    }
}
