//! PAUSE's scenario keys (`schema`: `hosts[i].pause`, `switches[i].pause`,
//! `pause_generators`) and its builder (`build`).

pub mod build;
pub mod schema;
