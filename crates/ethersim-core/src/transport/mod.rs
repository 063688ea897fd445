//! Transport protocols. UDP keeps no transport state: a datagram goes from the sending
//! endpoint to the receiving one as it is (the UDP sink is in [`crate::app::sink`]).
//! TCP NewReno joins here as a state machine driven by `on_event(now, input) -> actions`.
