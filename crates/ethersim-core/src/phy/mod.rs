//! What a link's physical layer does over time. This slice has the plain full-duplex
//! link; rate switching and Low Power Idle states belong here as they arrive.

pub mod link;

pub use link::{LinkDirection, TxTiming};
