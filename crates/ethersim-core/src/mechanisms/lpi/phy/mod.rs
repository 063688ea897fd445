//! Low Power Idle's physical layer: a PHY's states and a link's PHYs (`machine`), the
//! policies that say when to sleep and wake (`policy`), and a port's record (`report`).

pub mod machine;
pub mod policy;
pub mod report;
