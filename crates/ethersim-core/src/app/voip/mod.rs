//! Voice over IP, as a listener judges it: codec profiles ([`codec`]), a talker's
//! on/off speech ([`talkspurt`]), RFC 3550's interarrival jitter ([`jitter`]), the
//! receiver's playout buffer ([`playout`]), and the ITU-T G.107 E-model that turns a
//! call's delay and losses into a rating R and a mean opinion score ([`emodel`]); and
//! the call that puts them together as an application ([`call`]).

pub mod call;
pub mod codec;
pub mod emodel;
pub mod jitter;
pub mod playout;
pub mod talkspurt;

pub use call::{CallSettings, Heard, VoipCall};
pub use codec::Codec;
pub use emodel::{mos, satisfaction, EModel, Rating};
pub use jitter::InterarrivalJitter;
pub use playout::{Playout, PlayoutBuffer, PlayoutPolicy, RAMJEE_ALPHA};
pub use talkspurt::TalkSpurts;
