//! Mechanisms built as rooms: each a directory that holds all of one mechanism, its files
//! named after the layer of the core each belongs to (`phy` or `node`: its state machine
//! and record; `sim`: its meeting with the network; `scenario`: its keys and builder).
//! Each file keeps the layer rule of its layer (tests/test_architecture.py), and code
//! outside a room names its files (`crate::mechanisms::shaper::node::TokenBucket`), so
//! the layer of every reference shows.

pub mod csma;
pub mod lpi;
pub mod pause;
pub mod rate;
pub mod shaper;
