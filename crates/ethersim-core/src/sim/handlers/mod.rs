//! The handlers of the network's events, one file per layer. A new mechanism adds its
//! handler in its own file here, reached through a seam (an endpoint's `on_packet`, a
//! port's gate or policy, a link's channel), rather than by editing another's.

mod capture;
mod endpoint;
mod host;
mod link;
mod port;
