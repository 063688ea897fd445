//! Energy Efficient Ethernet's scenario keys (`schema`: `links[i].eee`) and its builder
//! (`build`).

pub mod build;
pub mod schema;
