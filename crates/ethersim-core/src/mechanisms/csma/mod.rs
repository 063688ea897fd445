//! Classic half-duplex Ethernet on a shared coaxial segment (IEEE 802.3 clause 4,
//! CSMA/CD; `segments`): stations at positions on one cable, real propagation between
//! every pair, carrier sense, collisions, jam and truncated binary exponential backoff.
//! Its files are named after the layer each belongs to: `phy` (the medium and each
//! station's MAC), `sim` (the MAC's meeting with its port and its timers, and the
//! stations' results), `scenario` (its keys and builder).

pub mod phy;
pub mod scenario;
pub mod sim;
