//! A store-and-forward, output-queued Ethernet switch.
//!
//! A frame is forwarded once it has been received whole (store-and-forward); it is
//! looked up in the forwarding table by destination and queued on the output port,
//! where a full buffer drops it (drop-tail). Forwarding itself takes no time.

use crate::ids::{NodeId, PortId};

/// A switch: its ports and its forwarding table.
#[derive(Debug)]
pub struct Switch {
    /// The switch's ports, in link order.
    pub ports: Vec<PortId>,
    /// Output port per destination node (`None`: unreachable, or the node itself).
    pub forwarding: Vec<Option<PortId>>,
}

impl Switch {
    /// The output port towards `dst`.
    pub fn route(&self, dst: NodeId) -> Option<PortId> {
        self.forwarding.get(dst.index()).copied().flatten()
    }
}
