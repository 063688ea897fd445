//! Who talks when: a two-state on/off model of one talker's speech. Talk spurts and
//! the silences between them are independent and exponentially distributed, with the
//! means of ITU-T P.59's artificial conversational speech (talk spurt 1.004 s, pause
//! 1.587 s), so about 39 % of the time the talker is speaking. A packet
//! leaves every codec interval during a spurt and none during a silence (voice
//! activity detection), as Brady's on/off model of conversation has it.

use crate::engine::rng::{self, Stream};
use crate::time::{Duration, SimTime};

/// The means of the on/off model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TalkSpurts {
    /// Mean talk-spurt length.
    pub mean_spurt: Duration,
    /// Mean silence length.
    pub mean_silence: Duration,
}

impl Default for TalkSpurts {
    /// ITU-T P.59's means.
    fn default() -> Self {
        TalkSpurts { mean_spurt: Duration::from_ms(1004), mean_silence: Duration::from_ms(1587) }
    }
}

impl TalkSpurts {
    /// The next spurt, starting at `from`: its end (drawn from `rng`).
    pub fn spurt_end(&self, from: SimTime, rng: &mut Stream) -> SimTime {
        from + rng::exponential(rng, self.mean_spurt)
    }

    /// The silence after a spurt that ended at `from`: its end.
    pub fn silence_end(&self, from: SimTime, rng: &mut Stream) -> SimTime {
        from + rng::exponential(rng, self.mean_silence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Kolmogorov–Smirnov statistic of `sample` against the exponential law of
    /// mean `mean` (seconds).
    fn ks_exponential(sample: &mut [f64], mean: f64) -> f64 {
        sample.sort_by(f64::total_cmp);
        let n = sample.len() as f64;
        sample
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = 1.0 - (-x / mean).exp();
                (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn spurts_and_silences_follow_their_exponential_laws() {
        let model = TalkSpurts::default();
        let mut rng = rng::stream(7, "talk-spurts");
        let n = 20_000;
        let root_n = f64::from(n).sqrt();
        let (mut spurts, mut silences) = (Vec::new(), Vec::new());
        let mut t = SimTime::ZERO;
        for _ in 0..n {
            let end = model.spurt_end(t, &mut rng);
            spurts.push(end.saturating_since(t).as_secs_f64());
            let quiet = model.silence_end(end, &mut rng);
            silences.push(quiet.saturating_since(end).as_secs_f64());
            t = quiet;
        }
        for (sample, mean) in [(&mut spurts, 1.004), (&mut silences, 1.587)] {
            let m = sample.iter().sum::<f64>() / f64::from(n);
            // The sample mean within 4 standard errors (an exponential's sd is its mean).
            assert!((m - mean).abs() < 4.0 * mean / root_n, "mean {m} against {mean}");
            // KS at the 1 % level: D < 1.63 / sqrt(n).
            let d = ks_exponential(sample, mean);
            assert!(d < 1.63 / root_n, "KS D = {d}");
        }
        // And a wrong law is rejected: the spurts are not exponential of the silences' mean.
        assert!(ks_exponential(&mut spurts, 1.587) > 1.63 / root_n);
    }
}
