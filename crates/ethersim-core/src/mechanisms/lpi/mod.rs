//! Energy Efficient Ethernet (IEEE 802.3az Low Power Idle) on a link's PHYs
//! (`links[i].eee`): each PHY sleeps when its transmitter is idle and wakes for frames,
//! as its policy says. Its files are named after the layer each belongs to: `phy` (the
//! PHYs' state machines, the policies, a port's record), `sim` (its meeting with the
//! link's ports and its timer), `scenario` (its keys and builder).

pub mod phy;
pub mod scenario;
pub mod sim;
