//! What several parts of the schema share: defaults (serde's `default = "..."` names
//! them) and the table of no settings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::units::{DurationSpec, SizeSpec};
use crate::time::{Bytes, Duration};

/// No settings.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptySpec {}

pub(crate) const fn yes() -> bool {
    true
}

pub(crate) const fn zero_time() -> DurationSpec {
    DurationSpec(Duration::ZERO)
}

pub(super) const fn default_buffers() -> u32 {
    256
}

pub(super) const fn default_mtu() -> SizeSpec {
    SizeSpec(Bytes(1500))
}

pub(super) const fn default_payload() -> SizeSpec {
    SizeSpec(Bytes(1472))
}

pub(super) const fn one_f64() -> f64 {
    1.0
}

pub(super) fn one_second() -> DurationSpec {
    DurationSpec(Duration::from_secs(1))
}

pub(super) const fn one() -> u32 {
    1
}
