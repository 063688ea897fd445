//! The ITU-T G.107 E-model (06/2015, clause 7): a call's transmission rating factor R
//! from its loudness ratings, noise, echo, delay, codec and packet loss, and the mean
//! opinion score (MOS) and user-satisfaction band R maps to (Annex B).
//!
//! Every parameter of [`EModel`] defaults to the value of G.107 Table 3; with all of
//! them at their defaults R is 93.2 (G.107 clause 7.7), the rating of an ideal narrowband
//! handset connection. A simulated call changes only what the network decides: the
//! delays (`t_ms`, `tr_ms`, `ta_ms`), the codec's equipment impairment `ie` and its
//! packet-loss robustness `bpl` (ITU-T G.113 Appendix I, see [`super::codec`]), and the
//! packet-loss probability `ppl_percent` with its burst ratio `burst_r`.
//!
//! The logarithms, powers and exponentials come from the pure-Rust `libm` (not `f64::powi`,
//! whose precision Rust leaves to the platform), so the same figures give the same R on
//! every machine.

/// The E-model's inputs (G.107 Table 3 names; dB, dBmp, dB(A) and ms as there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EModel {
    /// Send loudness rating, dB.
    pub slr: f64,
    /// Receive loudness rating, dB.
    pub rlr: f64,
    /// Sidetone masking rating, dB.
    pub stmr: f64,
    /// Listener sidetone rating, dB.
    pub lstr: f64,
    /// D-value of the telephone, send side.
    pub ds: f64,
    /// D-value of the telephone, receive side.
    pub dr: f64,
    /// Talker echo loudness rating, dB.
    pub telr: f64,
    /// Weighted echo path loss, dB.
    pub wepl: f64,
    /// Mean one-way delay of the echo path, ms.
    pub t_ms: f64,
    /// Round-trip delay in a 4-wire loop, ms.
    pub tr_ms: f64,
    /// Absolute delay in echo-free connections (mouth to ear), ms.
    pub ta_ms: f64,
    /// Number of quantization distortion units.
    pub qdu: f64,
    /// Equipment impairment factor of the codec.
    pub ie: f64,
    /// Packet-loss robustness factor of the codec.
    pub bpl: f64,
    /// Random packet-loss probability, percent.
    pub ppl_percent: f64,
    /// Burst ratio (1: losses independent; above 1: bursty).
    pub burst_r: f64,
    /// Circuit noise referred to the 0 dBr point, dBm0p.
    pub nc: f64,
    /// Noise floor at the receive side, dBmp.
    pub nfor: f64,
    /// Room noise at the send side, dB(A).
    pub ps: f64,
    /// Room noise at the receive side, dB(A).
    pub pr: f64,
    /// Advantage factor (0 for wired access).
    pub a: f64,
}

impl Default for EModel {
    /// G.107 Table 3's default values.
    fn default() -> Self {
        EModel {
            slr: 8.0,
            rlr: 2.0,
            stmr: 15.0,
            lstr: 18.0,
            ds: 3.0,
            dr: 3.0,
            telr: 65.0,
            wepl: 110.0,
            t_ms: 0.0,
            tr_ms: 0.0,
            ta_ms: 0.0,
            qdu: 1.0,
            ie: 0.0,
            bpl: 1.0,
            ppl_percent: 0.0,
            burst_r: 1.0,
            nc: -70.0,
            nfor: -64.0,
            ps: 35.0,
            pr: 35.0,
            a: 0.0,
        }
    }
}

/// R and the terms it is made of (G.107 equation 7-1: `R = Ro − Is − Id − Ie,eff + A`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The transmission rating factor.
    pub r: f64,
    /// Basic signal-to-noise ratio.
    pub ro: f64,
    /// Simultaneous impairment factor.
    pub is: f64,
    /// Delay impairment factor.
    pub id: f64,
    /// Effective equipment impairment factor (codec and packet loss).
    pub ie_eff: f64,
}

/// `x²`, exactly as IEEE multiplication rounds it.
fn sq(x: f64) -> f64 {
    x * x
}

fn db_sum(levels: &[f64]) -> f64 {
    10.0 * libm::log10(levels.iter().map(|l| libm::pow(10.0, l / 10.0)).sum())
}

impl EModel {
    /// The defaults with a call's delays set from its mouth-to-ear delay: the echo path
    /// and the absolute delay are that delay and the 4-wire loop twice it (a VoIP call
    /// whose echo, if any, returns over the same path).
    pub fn for_call(mouth_to_ear_ms: f64, ie: f64, bpl: f64, ppl_percent: f64, burst_r: f64) -> Self {
        EModel {
            t_ms: mouth_to_ear_ms,
            tr_ms: 2.0 * mouth_to_ear_ms,
            ta_ms: mouth_to_ear_ms,
            ie,
            bpl,
            ppl_percent,
            burst_r,
            ..EModel::default()
        }
    }

    /// Total noise power at the receive side, `No` (equation 7-3, with 7-4 to 7-7).
    fn no(&self) -> f64 {
        let olr = self.slr + self.rlr;
        let nos = self.ps - self.slr - self.ds - 100.0 + 0.004 * sq(self.ps - olr - self.ds - 14.0);
        let pre = self.pr + 10.0 * libm::log10(1.0 + libm::pow(10.0, (10.0 - self.lstr) / 10.0));
        let nor = self.rlr - 121.0 + pre + 0.008 * sq(pre - 35.0);
        let nfo = self.nfor + self.rlr;
        db_sum(&[self.nc, nos, nor, nfo])
    }

    /// The sidetone impairment `Ist` for a masking rating `stmro` (equation 7-13).
    fn ist(stmro: f64) -> f64 {
        12.0 * libm::pow(1.0 + libm::pow((stmro - 13.0) / 6.0, 8.0), 1.0 / 8.0)
            - 28.0 * libm::pow(1.0 + libm::pow((stmro + 1.0) / 19.4, 35.0), 1.0 / 35.0)
            - 13.0 * libm::pow(1.0 + libm::pow((stmro - 3.0) / 33.0, 13.0), 1.0 / 13.0)
            + 29.0
    }

    /// Rates the connection.
    // The variables carry G.107's own symbols (Q, G, Y, Z, T, X), so that each line
    // reads against its equation.
    #[allow(clippy::many_single_char_names)]
    pub fn rate(&self) -> Rating {
        let no = self.no();
        let olr = self.slr + self.rlr;
        // Basic signal-to-noise ratio (7-2).
        let ro = 15.0 - 1.5 * (self.slr + no);

        // Simultaneous impairments (7-8 to 7-18): loudness, sidetone, quantization.
        let xolr = olr + 0.2 * (64.0 + no - self.rlr);
        let iolr = 20.0 * (libm::pow(1.0 + libm::pow(xolr / 8.0, 8.0), 1.0 / 8.0) - xolr / 8.0);
        let stmro = -10.0
            * libm::log10(
                libm::pow(10.0, -self.stmr / 10.0)
                    + libm::exp(-self.t_ms / 4.0) * libm::pow(10.0, -self.telr / 10.0),
            );
        let ist = Self::ist(stmro);
        let q = 37.0 - 15.0 * libm::log10(self.qdu);
        let g = 1.07 + 0.258 * q + 0.0602 * q * q;
        let y = (ro - 100.0) / 15.0 + 46.0 / 8.4 - g / 9.0;
        let z = 46.0 / 30.0 - g / 40.0;
        let iq = 15.0 * libm::log10(1.0 + libm::pow(10.0, y) + libm::pow(10.0, z));
        let is = iolr + ist + iq;

        // Delay impairments (7-19 to 7-28): talker echo, listener echo, absolute delay.
        let t = self.t_ms;
        let mut terv = self.telr - 40.0 * libm::log10((1.0 + t / 10.0) / (1.0 + t / 150.0))
            + 6.0 * libm::exp(-0.3 * t * t);
        if self.stmr < 9.0 {
            // Clause 7.4: a low sidetone masking rating also masks the echo.
            terv += ist / 2.0;
        }
        let roe = -1.5 * (no - self.rlr);
        let re = 80.0 + 2.5 * (terv - 14.0);
        // Below 1 ms the talker's echo is heard as sidetone (clause 7.4).
        let idte = if t < 1.0 {
            0.0
        } else {
            ((roe - re) / 2.0 + (sq(roe - re) / 4.0 + 100.0).sqrt() - 1.0) * (1.0 - libm::exp(-t))
        };
        let rle = 10.5 * (self.wepl + 7.0) * libm::pow(self.tr_ms + 1.0, -0.25);
        let idle = (ro - rle) / 2.0 + (sq(ro - rle) / 4.0 + 169.0).sqrt();
        let idd = if self.ta_ms <= 100.0 {
            0.0
        } else {
            let x = libm::log10(self.ta_ms / 100.0) / libm::log10(2.0);
            25.0 * (libm::pow(1.0 + libm::pow(x, 6.0), 1.0 / 6.0)
                - 3.0 * libm::pow(1.0 + libm::pow(x / 3.0, 6.0), 1.0 / 6.0)
                + 2.0)
        };
        let id = idte + idle + idd;

        // Codec and packet loss (7-29).
        let ppl = self.ppl_percent;
        let ie_eff = self.ie + (95.0 - self.ie) * ppl / (ppl / self.burst_r + self.bpl);

        Rating { r: ro - is - id - ie_eff + self.a, ro, is, id, ie_eff }
    }
}

/// The estimated mean opinion score (conversational quality) for rating `r` (G.107
/// Annex B, equation B-4): 1 below R = 0, 4.5 above R = 100.
pub fn mos(r: f64) -> f64 {
    if r < 0.0 {
        1.0
    } else if r > 100.0 {
        4.5
    } else {
        1.0 + 0.035 * r + r * (r - 60.0) * (100.0 - r) * 7.0e-6
    }
}

/// The user-satisfaction band of rating `r` (G.107 Annex B, Table B.1; G.109).
pub fn satisfaction(r: f64) -> &'static str {
    if r >= 90.0 {
        "very satisfied"
    } else if r >= 80.0 {
        "satisfied"
    } else if r >= 70.0 {
        "some users dissatisfied"
    } else if r >= 60.0 {
        "many users dissatisfied"
    } else if r >= 50.0 {
        "nearly all users dissatisfied"
    } else {
        "not recommended"
    }
}

#[cfg(test)]
// Exact values: the defaults give an exact zero, and MOS is clamped to exact ends.
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_rate_93_2() {
        // G.107 clause 7.7: with every input at its default, R = 93.2; the terms are
        // the ones G.107's own worked defaults give (Ro 94.77, Is 1.41, Id 0.15).
        let r = EModel::default().rate();
        assert!((r.r - 93.2).abs() < 0.05, "{r:?}");
        assert!((r.ro - 94.77).abs() < 0.01, "{r:?}");
        assert!((r.is - 1.41).abs() < 0.01, "{r:?}");
        assert!((r.id - 0.15).abs() < 0.01, "{r:?}");
        assert_eq!(r.ie_eff, 0.0);
    }

    #[test]
    fn mos_at_the_band_edges() {
        // G.107 Annex B / G.109 band edges: R 90, 80, 70, 60, 50 give MOS 4.34, 4.03,
        // 3.60, 3.10 and 2.58; the ends of the scale are 1 and 4.5.
        for (r, m) in [(90.0, 4.339), (80.0, 4.024), (70.0, 3.597), (60.0, 3.1), (50.0, 2.575)] {
            assert!((mos(r) - m).abs() < 1e-9, "R {r}: {}", mos(r));
        }
        assert_eq!(mos(-5.0), 1.0);
        assert_eq!(mos(0.0), 1.0);
        assert!((mos(100.0) - 4.5).abs() < 1e-12);
        assert_eq!(mos(120.0), 4.5);
        assert_eq!(satisfaction(90.0), "very satisfied");
        assert_eq!(satisfaction(89.99), "satisfied");
        assert_eq!(satisfaction(49.9), "not recommended");
    }

    #[test]
    fn loss_and_delay_lower_r_as_g107_says() {
        // Ie,eff by hand (7-29): G.729A (Ie 11, Bpl 19) at 2 % random loss:
        // 11 + 84 · 2 / (2 + 19) = 19.0.
        let r = EModel { ie: 11.0, bpl: 19.0, ppl_percent: 2.0, ..EModel::default() }.rate();
        assert!((r.ie_eff - (11.0 + 84.0 * 2.0 / 21.0)).abs() < 1e-12);
        // Bursty loss of the same rate impairs more.
        let bursty =
            EModel { ie: 11.0, bpl: 19.0, ppl_percent: 2.0, burst_r: 2.0, ..EModel::default() }.rate();
        assert!(bursty.ie_eff > r.ie_eff);
        // Absolute delay: no impairment up to 100 ms, then it grows (Idd; 7-28).
        let at = |ms: f64| EModel { ta_ms: ms, ..EModel::default() }.rate().id;
        assert_eq!(at(100.0), at(0.0));
        assert!(at(150.0) > at(100.0) && at(400.0) > at(150.0));
        // G.114's 150 ms one-way planning limit keeps a G.711 call satisfied or better.
        let call = EModel::for_call(150.0, 0.0, 25.1, 0.0, 1.0).rate();
        assert!(call.r > 80.0 && call.r < 93.2, "{call:?}");
    }
}
