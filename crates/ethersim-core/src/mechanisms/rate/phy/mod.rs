//! Link-rate switching's physical layer: the link that changes rate at a policy's
//! request and the built-in policies (`switching`), what a policy is (`policy`),
//! practRA's policy (`practra`), and what it reports (`records`).

pub mod policy;
pub mod practra;
pub mod records;
pub mod switching;
