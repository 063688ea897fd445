//! What Low Power Idle reports for one port: time in each PHY state, sleeps and wakes,
//! and the energy against the same PHY with EEE off.

use serde::Serialize;

use crate::stats::RecordView;
use crate::time::SimTime;

use crate::mechanisms::lpi::phy::machine::LinkEee;

/// The Low Power Idle columns of the `ports` table: all `null` (and `eee` false) for a
/// port whose link has no EEE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LpiPortReport {
    /// Whether the port's PHY has Low Power Idle (802.3az); the `lpi_` and energy fields
    /// are `null` otherwise.
    pub eee: bool,
    /// Time the PHY was Active, s.
    pub lpi_active_s: Option<f64>,
    /// Time going to sleep, s.
    pub lpi_sleep_s: Option<f64>,
    /// Time quiet (asleep between refreshes), s.
    pub lpi_quiet_s: Option<f64>,
    /// Time refreshing while asleep, s.
    pub lpi_refresh_s: Option<f64>,
    /// Time waking, s.
    pub lpi_wake_s: Option<f64>,
    /// Sleeps begun.
    pub lpi_sleeps: Option<u64>,
    /// Wakes begun.
    pub lpi_wakes: Option<u64>,
    /// Energy of this direction's PHY over the run, J.
    pub energy_j: Option<f64>,
    /// Energy the same PHY uses with EEE off (Active power throughout), J.
    pub energy_eee_off_j: Option<f64>,
    /// Energy saved against EEE off, percent.
    pub energy_saved_percent: Option<f64>,
}

impl LpiPortReport {
    /// How the record is shown: ports of links with EEE.
    pub const VIEW: RecordView = RecordView {
        table: "ports",
        title: "eee (802.3az)",
        shown_when: &["eee"],
        columns: &[
            ("lpi_active_s", "active"),
            ("lpi_quiet_s", "quiet"),
            ("lpi_wake_s", "waking"),
            ("lpi_sleeps", "sleeps"),
            ("lpi_wakes", "wakes"),
            ("energy_j", "energy"),
            ("energy_saved_percent", "saved"),
        ],
    };
}

impl LinkEee {
    /// What the PHY transmitting direction `dir` reports over `[0, end]` (in the
    /// symmetric mode, the one PHY of both directions, at `dir`'s power).
    pub fn port_report(&self, dir: usize, end: SimTime) -> LpiPortReport {
        let lpi = &self.units[self.unit_of(dir)].lpi;
        let (active_w, quiet_fraction) = self.power[dir];
        let totals = lpi.totals(end);
        let secs = |k: usize| Some(totals.time[k].as_secs_f64());
        let energy = lpi.energy_with(end, active_w, quiet_fraction);
        let off = active_w * end.as_secs_f64();
        LpiPortReport {
            eee: true,
            lpi_active_s: secs(0),
            lpi_sleep_s: secs(1),
            lpi_quiet_s: secs(2),
            lpi_refresh_s: secs(3),
            lpi_wake_s: secs(4),
            lpi_sleeps: Some(totals.sleeps),
            lpi_wakes: Some(totals.wakes),
            energy_j: Some(energy),
            energy_eee_off_j: Some(off),
            energy_saved_percent: Some(if off > 0.0 { 100.0 * (1.0 - energy / off) } else { 0.0 }),
        }
    }
}
