//! IEEE 802.3x flow control (802.3 Annex 31B, PAUSE): the MAC control frame (`wire`),
//! a port's receiver that honours it, a switch output's threshold that sends it and the
//! periodic generators, with the headroom a threshold needs (`node`), their meeting with
//! the network (`sim`), and their keys and builder (`scenario`). Its files are named
//! after the layer each belongs to.

pub mod node;
pub mod scenario;
pub mod sim;
pub mod wire;
