//! What link-rate switching reports: a scaled port's columns, a link's.

use serde::Serialize;

use crate::stats::RecordView;

impl RatePortReport {
    /// How the record is shown: ports whose rate is scaled, beside their rate changes.
    pub const VIEW: RecordView = RecordView {
        table: "ports",
        title: "capacity scaling",
        shown_when: &["rate_scaled"],
        columns: &[
            ("rate_changes", "rate changes"),
            ("service_rate_mean_bps", "mean service rate"),
            ("service_rate_reduction_percent", "below fastest"),
            ("service_energy_j", "energy"),
            ("service_energy_saved_percent", "saved"),
        ],
    };
}

/// The rate-switching columns of the `ports` table: `rate_scaled` false and the rest
/// `null` for a port whose rate is not scaled (the energy ones also without a power
/// model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RatePortReport {
    /// Whether the port's rate is scaled by link-rate switching (capacity scaling); the
    /// `service_` fields are `null` otherwise, and the energy ones without a power model.
    pub rate_scaled: bool,
    /// Time-weighted mean service rate over the run, bit/s (a change counts from the end
    /// of its dark time).
    pub service_rate_mean_bps: Option<f64>,
    /// How much lower the mean service rate was than the fastest rate, percent.
    pub service_rate_reduction_percent: Option<f64>,
    /// Energy of the port by its power model over the run, J.
    pub service_energy_j: Option<f64>,
    /// Energy of the same port at its fastest rate throughout, J.
    pub service_energy_fastest_j: Option<f64>,
    /// Energy saved against the fastest rate throughout, percent.
    pub service_energy_saved_percent: Option<f64>,
}

/// What a link with rate switching reports (zero and empty for a link without).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RateLinkReport {
    /// Rate switches begun (links with rate switching).
    pub rate_switches: u64,
    /// Time dark for rate switches, s.
    pub switching_s: f64,
    /// The link's rates, bit/s, slowest first (empty for a link with one rate).
    pub rates_bps: Vec<u64>,
    /// Time carrying frames at each of `rates_bps`, s (switching time excluded).
    pub time_at_rate_s: Vec<f64>,
}
