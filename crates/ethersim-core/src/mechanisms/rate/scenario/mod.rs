//! Link-rate switching's scenario keys (`schema`: `links[i].rate_switching`) and its
//! builder (`build`).

pub mod build;
pub mod schema;
