//! Web browsing as a user feels it: page-load times. A client ([`WebClient`]) loads
//! pages from a server ([`WebServer`]) over TCP: a main object, then its embedded
//! objects over several connections, persistent or one per object, with a reading time
//! between pages. What pages are made of comes from a published model or is given
//! ([`pages`]). Both ends of one application share its flow; its connections are told
//! apart by their number ([`crate::wire::TcpHeader::port`]), as TCP tells them apart by
//! port. See docs/web.md.

mod client;
mod conn;
pub mod pages;
mod server;

pub use client::{LoadTimes, WebClient, WebSettings};
pub use pages::{CountLaw, Pages, SizeLaw};
pub use server::{WebServer, TIME_WAIT_KEPT};
