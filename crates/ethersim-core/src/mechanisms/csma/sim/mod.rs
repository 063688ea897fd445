//! CSMA/CD meets the network: a station's MAC taking frames from its port and its timers
//! (`mac`), and what each station reports (`results`).

pub mod mac;
pub mod results;
