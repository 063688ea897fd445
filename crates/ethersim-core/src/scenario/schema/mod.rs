//! The scenario file's schema: the one definition of what a scenario may say.
//!
//! These serde types are the single source of truth: defaults and documentation live
//! here, the JSON Schema is generated from them (`ethersim schema`), and unknown keys
//! are errors everywhere.

mod apps;
mod captures;
pub(crate) mod common;
mod links;
mod mpi;
mod nodes;
mod scenario;
mod tcp;
mod voip;
mod web;

pub use self::apps::{
    AppSpec, FrameMixSpec, OnOffSpec, PingSpec, ReplayAlign, ReplaySpec, SaturatingSpec, SourceSpec,
    UdpFileSpec, WeightedFrameSpec,
};

pub use self::captures::{CaptureDirectionSpec, CaptureFormatSpec, CaptureSpec, ResolutionSpec};
pub use self::common::EmptySpec;
pub use self::links::{CapacitySpec, DropSpec, FlowDirection, LinkSpec, LossSpec, OutageSpec, PhyType};
pub use self::mpi::{CollectiveSpec, MpiJobSpec, MpiOverheadSpec, MpiSyntheticSpec};
pub use self::nodes::{BufferSpec, QuantileSpec, TimingVariabilitySpec, VariabilityKind, VariabilitySpec};

pub use self::scenario::{HostSpec, MeasureSpec, Scenario, SeriesSpec, SwitchSpec};
pub use self::tcp::{CongestionControlName, TcpBulkSpec, TcpFileSpec, TcpProfileName, TcpSpec};
pub use self::voip::{CodecName, JitterBufferSpec, TalkSpurtSpec, VoipSpec};
pub use self::web::{PageSpec, WebSpec};
