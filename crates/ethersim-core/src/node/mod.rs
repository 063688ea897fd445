//! What a node owns: hosts (finite speed, bounded transmit buffers), switches
//! (store-and-forward, output-queued), and the ports through which both send.

pub mod host;
pub mod port;
pub mod queue;
pub mod switch;

pub use host::{Host, HostConfig, HostStats, RxStep, TxStep};
pub use port::{Port, PortStats};
pub use queue::{DropTailQueue, QueueLimits};
pub use switch::Switch;
