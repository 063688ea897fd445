//! CSMA/CD's physical layer: the cable's geometry and what each station senses of it
//! (`medium`), and the segment with each station's MAC state machine (`bus`).

pub mod bus;
pub mod medium;
