//! Transport protocols. UDP keeps no transport state: a datagram goes from the sending
//! endpoint to the receiving one as it is (the UDP sink is in [`crate::app::sink`]).
//! TCP is a state machine per connection end in [`tcp`].

pub mod tcp;
