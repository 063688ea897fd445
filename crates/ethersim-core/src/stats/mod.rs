//! Statistics that cost O(1) memory however many packets a run simulates.

pub mod delay;
pub mod flow;
pub mod idle;
pub mod log_histogram;
pub mod moments;
pub mod record;
pub mod series;
pub mod time_weighted;

pub use delay::{DelayStats, DelaySummary};
pub use flow::{DirectionCounters, FlowCounters};
pub use idle::{IdleBin, IdleIntervals, IdleSummary};
pub use log_histogram::LogHistogram;
pub use moments::Moments;
pub use record::RecordView;
pub use series::{Series, SeriesLimits};
pub use time_weighted::{TimeWeighted, TimeWeightedPair};
