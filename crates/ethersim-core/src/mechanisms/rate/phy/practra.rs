//! practRA: the practical rate-adaptation policy of Nedevschi, Popa, Iannaccone,
//! Ratnasamy and Wetherall ("Reducing Network Energy Consumption via Sleeping and
//! Rate-Adaptation", NSDI 2008, section 5), on the [`RatePolicy`] trait.
//!
//! It scales one output port among rates r_0 < r_1 < … (bit/s). It predicts the arrival
//! rate r̂ at the port by an exponentially weighted moving average of the rate measured
//! over fixed sampling intervals, and with the queue q (bits waiting) at rate r_i:
//!
//! * goes up to r_{i+1} if q / r_i > d, or (δ·r̂ + q) / r_{i+1} > d − δ: the queue
//!   already breaks the delay bound d, or would after the δ the change keeps the port
//!   dark;
//! * goes down to r_{i−1} if q = 0 and r̂ < r_{i−1}.
//!
//! The mechanism ([`RateSwitching`](crate::mechanisms::rate::phy::switching::RateSwitching)) keeps two changes at least the minimum
//! rate-change interval apart and consults no policy while a change is under way; the
//! policy is asked again at its next sampling instant or queue moment.

use crate::time::{BitRate, Duration, SimTime};

use crate::mechanisms::rate::phy::policy::{LinkView, RatePolicy};

/// The settings of practRA.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PractRaSettings {
    /// The delay bound d.
    pub delay_bound: Duration,
    /// The time a change keeps the port dark, δ (the link's switching time).
    pub dark: Duration,
    /// The weight of the newest sample in the moving average, in (0, 1].
    pub weight: f64,
    /// The interval over which each arrival-rate sample is measured.
    pub sample: Duration,
    /// The end of the link whose output port is scaled (0 or 1).
    pub end: usize,
}

/// practRA's state: its settings, the port's rates and the arrival-rate prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct PractRa {
    settings: PractRaSettings,
    rates_bps: Vec<f64>,
    estimate_bps: f64,
    last_sample_at: SimTime,
    last_offered: u64,
    next_sample: SimTime,
}

impl PractRa {
    /// practRA over `rates` (slowest first), predicting from zero.
    pub fn new(settings: PractRaSettings, rates: &[BitRate]) -> Self {
        debug_assert!(settings.sample > Duration::ZERO && settings.weight > 0.0 && settings.weight <= 1.0);
        PractRa {
            settings,
            rates_bps: rates.iter().map(|r| r.as_bps() as f64).collect(),
            estimate_bps: 0.0,
            last_sample_at: SimTime::ZERO,
            last_offered: 0,
            next_sample: SimTime::ZERO + settings.sample,
        }
    }

    /// The predicted arrival rate r̂, bit/s.
    pub fn estimate_bps(&self) -> f64 {
        self.estimate_bps
    }

    /// Folds the arrivals since the last sample into the prediction.
    fn sample(&mut self, now: SimTime, offered: u64) {
        let span = now.saturating_since(self.last_sample_at).as_secs_f64();
        if span > 0.0 {
            let measured = (offered - self.last_offered) as f64 * 8.0 / span;
            let w = self.settings.weight;
            self.estimate_bps = w * measured + (1.0 - w) * self.estimate_bps;
        }
        self.last_sample_at = now;
        self.last_offered = offered;
        while self.next_sample <= now {
            self.next_sample += self.settings.sample;
        }
    }

    /// The decision at rate `view.rate_index` with the watched queue, by the inequalities
    /// of the module's documentation.
    pub fn decide(&self, view: LinkView) -> Option<usize> {
        let i = view.rate_index;
        let q_bits = view.queues[self.settings.end].bytes as f64 * 8.0;
        let d = self.settings.delay_bound.as_secs_f64();
        let delta = self.settings.dark.as_secs_f64();
        let r = &self.rates_bps;
        if i + 1 < r.len()
            && (q_bits / r[i] > d || (delta * self.estimate_bps + q_bits) / r[i + 1] > d - delta)
        {
            return Some(i + 1);
        }
        if i > 0 && q_bits == 0.0 && self.estimate_bps < r[i - 1] {
            return Some(i - 1);
        }
        None
    }
}

impl RatePolicy for PractRa {
    fn on_queue(&mut self, _now: SimTime, link: LinkView) -> Option<usize> {
        self.decide(link)
    }

    fn on_timer(&mut self, now: SimTime, link: LinkView) -> Option<usize> {
        if now >= self.next_sample {
            self.sample(now, link.offered[self.settings.end]);
        }
        self.decide(link)
    }

    fn next_timer(&self) -> Option<SimTime> {
        Some(self.next_sample)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::QueueView;

    fn rates() -> Vec<BitRate> {
        (1..=10).map(BitRate::mbps).collect()
    }

    fn policy(d_ms: u64, dark_ms: u64, weight: f64) -> PractRa {
        let settings = PractRaSettings {
            delay_bound: Duration::from_ms(d_ms),
            dark: Duration::from_ms(dark_ms),
            weight,
            sample: Duration::from_ms(10),
            end: 0,
        };
        PractRa::new(settings, &rates())
    }

    fn view(rate_index: usize, queue_bytes: u64, offered: u64) -> LinkView {
        LinkView {
            rate_index,
            rates: 10,
            queues: [QueueView { frames: 0, bytes: queue_bytes }, QueueView { frames: 0, bytes: 0 }],
            offered: [offered, 0],
        }
    }

    #[test]
    fn the_prediction_is_an_ewma_of_the_rates_measured_each_interval() {
        let mut p = policy(50, 1, 0.25);
        // 10 ms at 4 Mb/s: 5000 bytes.
        p.on_timer(SimTime::ZERO + Duration::from_ms(10), view(9, 0, 5_000));
        assert!((p.estimate_bps() - 0.25 * 4e6).abs() < 1e-6);
        p.on_timer(SimTime::ZERO + Duration::from_ms(20), view(9, 0, 10_000));
        assert!((p.estimate_bps() - (0.25 * 4e6 + 0.75 * 0.25 * 4e6)).abs() < 1e-6);
        assert_eq!(p.next_timer(), Some(SimTime::ZERO + Duration::from_ms(30)));
        // A sample taken late measures over the time that really passed.
        p.on_timer(SimTime::ZERO + Duration::from_ms(45), view(9, 0, 10_000 + 12_500));
        let expected = 0.25 * 4e6 + 0.75 * (0.25 * 4e6 + 0.75 * 0.25 * 4e6);
        assert!((p.estimate_bps() - expected).abs() < 1e-6, "{}", p.estimate_bps());
        assert_eq!(p.next_timer(), Some(SimTime::ZERO + Duration::from_ms(50)), "the sampling grid is kept");
    }

    #[test]
    fn it_goes_up_when_the_queue_breaks_the_delay_bound() {
        let p = policy(20, 1, 1.0);
        // At 2 Mb/s, d = 20 ms: 5000 B waiting is exactly 20 ms (no change), 5001 B is over.
        // The second condition with r̂ = 0: q / 3 Mb/s > 19 ms needs q > 7125 B, so it is
        // not what decides here.
        assert_eq!(p.decide(view(1, 5_000, 0)), None);
        assert_eq!(p.decide(view(1, 5_001, 0)), Some(2));
        assert_eq!(p.decide(view(9, 1_000_000, 0)), None, "no rate above the fastest");
    }

    #[test]
    fn it_goes_up_when_the_dark_time_would_break_the_bound() {
        // r̂ = 8 Mb/s at 5 Mb/s, δ = 5 ms, d = 20 ms: (δ·r̂ + q)/6 Mb/s > 15 ms needs
        // δ·r̂ + q > 90000 bits, i.e. q > 50000 bits = 6250 B; and q/5 Mb/s > 20 ms needs
        // q > 12500 B. So 6250 B keeps, 6251 B goes up by the second condition alone.
        let mut p = policy(20, 5, 1.0);
        p.on_timer(SimTime::ZERO + Duration::from_ms(10), view(4, 0, 10_000)); // 8 Mb/s over 10 ms
        assert!((p.estimate_bps() - 8e6).abs() < 1e-6);
        assert_eq!(p.decide(view(4, 6_250, 10_000)), None);
        assert_eq!(p.decide(view(4, 6_251, 10_000)), Some(5));
    }

    #[test]
    fn it_goes_down_only_with_an_empty_queue_and_a_prediction_below_the_next_rate_down() {
        let mut p = policy(50, 1, 1.0);
        p.on_timer(SimTime::ZERO + Duration::from_ms(10), view(9, 0, 3_000)); // 2.4 Mb/s
        assert_eq!(p.decide(view(9, 0, 3_000)), Some(8));
        assert_eq!(p.decide(view(9, 1, 3_000)), None, "a queue keeps the rate");
        assert_eq!(p.decide(view(3, 0, 3_000)), Some(2), "3 Mb/s > 2.4 Mb/s");
        assert_eq!(p.decide(view(2, 0, 3_000)), None, "2 Mb/s is below r̂: keep 3 Mb/s");
        assert_eq!(p.decide(view(0, 0, 3_000)), None, "no rate below the slowest");
    }
}
