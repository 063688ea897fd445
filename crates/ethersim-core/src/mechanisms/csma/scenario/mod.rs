//! CSMA/CD's scenario keys (`schema`: `segments`) and its builder (`build`).

pub mod build;
pub mod schema;
