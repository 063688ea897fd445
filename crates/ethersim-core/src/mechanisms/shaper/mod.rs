//! A token-bucket shaper (`links[i].shaper`): the first mechanism built as a room of its
//! own, by the recipe in docs/architecture.md. Its files are named after the layer each
//! belongs to: `node` (the bucket, its table by port and its record), `sim` (its meeting
//! with a port's queue), `scenario` (its keys and its builder).

pub mod node;
pub mod scenario;
pub mod sim;
