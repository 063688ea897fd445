//! PAUSE's state machines and record (`state`) and the headroom a threshold needs
//! (`headroom`).

pub mod headroom;
pub mod state;
