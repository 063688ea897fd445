//! Link-rate changes (`links[i].rate_switching`): Rapid PHY Selection and Adaptive Link
//! Rate, practRA, and capacity scaling of one router port, all one mechanism (a link
//! whose rate a policy changes, dark while its PHYs retrain); and capacity that varies at
//! random (`links[i].capacity`), redrawn by the same room's timer. Its files are named
//! after the layer each belongs to: `phy` (the switching link, its policies, its
//! records), `sim` (its meeting with the link's queues and its timers), `scenario` (its
//! keys and builder).

pub mod phy;
pub mod scenario;
pub mod sim;
