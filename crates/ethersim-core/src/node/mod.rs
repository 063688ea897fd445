//! What a node owns: hosts (finite speed, bounded transmit buffers, the timing
//! variability of their software), switches (store-and-forward, output-queued), the
//! ports through which both send, and the policies that may watch a port's queue.

pub mod attach;
pub mod host;
pub mod policy;
pub mod port;
pub mod queue;
pub mod switch;
pub mod variability;

pub use attach::{Attachments, Moment};
pub use host::{Host, HostConfig, HostStats, RxStep, TxStep};
pub use policy::{PolicyAction, PortPolicy, QueuePolicy, QueueView};
pub use port::{CutOff, InterruptJitter, NextTx, Port, PortStats};
pub use queue::{DropTailQueue, QueueLimits, Queued};
pub use switch::Switch;
pub use variability::{Empirical, EmpiricalError, HostTiming, Variability};
