//! Power as a function of service rate, P(r) = Ps + f(r), for ports whose rate is
//! scaled (capacity scaling): energy is the integral of P over the run.
//!
//! * linear f (frequency scaling): f(r) = (Pmax − Ps)·r / rmax;
//! * cubic f (voltage and frequency scaling): f(r) = (Pmax − Ps)·(max(r, rmax/φ) / rmax)³,
//!   where φ is the largest factor by which the supply can be scaled down: below rmax/φ
//!   the voltage cannot fall further and f stays flat at its value there;
//! * a table: the watts at each rate, measured or from a data sheet.

use crate::time::BitRate;

/// How a port's power depends on its rate.
#[derive(Clone, Debug, PartialEq)]
pub enum PowerModel {
    /// Ps + (Pmax − Ps)·r/rmax.
    Linear {
        /// Ps: power at any rate, W.
        static_w: f64,
        /// Pmax: power at the fastest rate, W.
        max_w: f64,
    },
    /// Ps + (Pmax − Ps)·(max(r, rmax/φ)/rmax)³.
    Cubic {
        /// Ps: power at any rate, W.
        static_w: f64,
        /// Pmax: power at the fastest rate, W.
        max_w: f64,
        /// φ ≥ 1: the largest scaling factor.
        max_scaling: f64,
    },
    /// The watts at each of the port's rates, slowest first.
    Table(Vec<f64>),
}

impl PowerModel {
    /// The power at each of `rates` (slowest first), W.
    pub fn watts(&self, rates: &[BitRate]) -> Vec<f64> {
        let rmax = rates.last().map_or(1.0, |r| r.as_bps() as f64);
        rates
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let r = r.as_bps() as f64;
                match self {
                    PowerModel::Linear { static_w, max_w } => static_w + (max_w - static_w) * r / rmax,
                    PowerModel::Cubic { static_w, max_w, max_scaling } => {
                        let s = r.max(rmax / max_scaling) / rmax;
                        static_w + (max_w - static_w) * s * s * s
                    }
                    PowerModel::Table(w) => w[i],
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_and_cubic_power_at_the_ends_and_in_between() {
        let rates: Vec<BitRate> = (1..=10).map(BitRate::mbps).collect();
        let lin = PowerModel::Linear { static_w: 2.0, max_w: 10.0 }.watts(&rates);
        assert!(
            (lin[9] - 10.0).abs() < 1e-12 && (lin[0] - 2.8).abs() < 1e-12 && (lin[4] - 6.0).abs() < 1e-12
        );
        let cub = PowerModel::Cubic { static_w: 2.0, max_w: 10.0, max_scaling: 4.0 }.watts(&rates);
        assert!((cub[9] - 10.0).abs() < 1e-12);
        assert!((cub[4] - (2.0 + 8.0 * 0.125)).abs() < 1e-12, "half the rate: an eighth of f");
        // Below rmax/φ = 2.5 Mb/s f is flat at (1/4)³.
        let flat = 2.0 + 8.0 / 64.0;
        assert!((cub[0] - flat).abs() < 1e-12 && (cub[1] - flat).abs() < 1e-12);
        assert!(cub[2] > flat);
    }
}
