//! The cross-module tests, in one binary (one link instead of one per file): each
//! module checks one part of the simulator against closed forms, invariants or the
//! standard's rules.

mod applications;
mod buffer;
mod capacity_scaling;
mod captures;
mod common;
mod csma;
mod cubic;
mod delay_percentiles;
mod delivery;
mod determinism;
mod eee;
mod event_list;
mod fuzz;
mod host_timing;
mod lazy_ends;
mod link_timing;
mod mpi;
mod outages;
mod pause;
mod pause_headroom;
mod ping;
mod queueing;
mod rate_switching;
mod routing;
mod saturating;
mod seams;
mod shaper;
mod steady_state;
mod switch_drops;
mod tcp;
mod voip;
mod web;
