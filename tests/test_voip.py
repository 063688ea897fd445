"""Voice calls end to end: the figures a call reports agree with an E-model written here
from ITU-T G.107 (06/2015) clause 7 independently of the simulator's, the counts agree
with each other, and a call is deterministic."""

from __future__ import annotations

import math
from pathlib import Path

import ethersim
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "voip-call.toml"

#: G.113 Appendix I (Ie, Bpl) of the codecs a scenario may name.
CODECS = {"G.711": (0.0, 25.1), "G.711-noPLC": (0.0, 4.3), "G.729A": (11.0, 19.0)}


def g107_r(ta_ms: float, ie: float, bpl: float, ppl: float, burst_r: float) -> float:
    """G.107 clause 7 with Table 3's defaults and T = Ta = ``ta_ms``, Tr = 2 Ta."""
    slr, rlr, stmr, lstr, ds, telr, wepl, qdu = 8, 2, 15, 18, 3, 65, 110, 1
    nc, nfor, ps, pr = -70, -64, 35, 35
    t, tr = ta_ms, 2 * ta_ms
    olr = slr + rlr
    nos = ps - slr - ds - 100 + 0.004 * (ps - olr - ds - 14) ** 2
    pre = pr + 10 * math.log10(1 + 10 ** ((10 - lstr) / 10))
    nor = rlr - 121 + pre + 0.008 * (pre - 35) ** 2
    nfo = nfor + rlr
    no = 10 * math.log10(sum(10 ** (x / 10) for x in (nc, nos, nor, nfo)))
    ro = 15 - 1.5 * (slr + no)
    xolr = olr + 0.2 * (64 + no - rlr)
    iolr = 20 * ((1 + (xolr / 8) ** 8) ** (1 / 8) - xolr / 8)
    stmro = -10 * math.log10(10 ** (-stmr / 10) + math.exp(-t / 4) * 10 ** (-telr / 10))
    ist = (
        12 * (1 + ((stmro - 13) / 6) ** 8) ** (1 / 8)
        - 28 * (1 + ((stmro + 1) / 19.4) ** 35) ** (1 / 35)
        - 13 * (1 + ((stmro - 3) / 33) ** 13) ** (1 / 13)
        + 29
    )
    q = 37 - 15 * math.log10(qdu)
    g = 1.07 + 0.258 * q + 0.0602 * q**2
    iq = 15 * math.log10(1 + 10 ** ((ro - 100) / 15 + 46 / 8.4 - g / 9) + 10 ** (46 / 30 - g / 40))
    terv = telr - 40 * math.log10((1 + t / 10) / (1 + t / 150)) + 6 * math.exp(-0.3 * t**2)
    roe, re = -1.5 * (no - rlr), 80 + 2.5 * (terv - 14)
    idte = (
        0.0
        if t < 1
        else ((roe - re) / 2 + math.sqrt((roe - re) ** 2 / 4 + 100) - 1) * (1 - math.exp(-t))
    )
    rle = 10.5 * (wepl + 7) * (tr + 1) ** -0.25
    idle = (ro - rle) / 2 + math.sqrt((ro - rle) ** 2 / 4 + 169)
    idd = 0.0
    if ta_ms > 100:
        x = math.log2(ta_ms / 100)
        idd = 25 * ((1 + x**6) ** (1 / 6) - 3 * (1 + (x / 3) ** 6) ** (1 / 6) + 2)
    ie_eff = ie + (95 - ie) * ppl / (ppl / burst_r + bpl)
    return ro - (iolr + ist + iq) - (idte + idle + idd) - ie_eff


def mos(r: float) -> float:
    return 1.0 if r < 0 else 4.5 if r > 100 else 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6


def test_the_independent_e_model_gives_g107s_default_rating() -> None:
    assert g107_r(0.0, 0.0, 1.0, 0.0, 1.0) == pytest.approx(93.2, abs=0.05)


@pytest.mark.parametrize("codec", sorted(CODECS))
@pytest.mark.parametrize("buffer", ['{ kind = "fixed", depth = "5 ms" }', '{ kind = "adaptive" }'])
def test_each_ends_rating_is_g107s_for_what_it_heard(codec: str, buffer: str) -> None:
    # The switch port towards bob PAUSEd for 30 ms every 700 ms: what bob hears comes late.
    pause = '[[pause_generators]]\nport = "bob->switch"\nevery = "700 ms"\npause = "30 ms"\n'
    text = EXAMPLE.read_text() + pause
    overrides = [
        f"apps[0].codec={codec}",
        f"apps[0].jitter_buffer={buffer}",
        "apps[0].duration=20 s",
    ]
    r = ethersim.run_text(text, overrides=overrides)
    (f,) = r.summary["flows"]
    ie, bpl = CODECS[codec]
    assert f["codec"] == codec
    for end, other in (("caller", "callee"), ("callee", "caller")):
        sent, received = f[f"{other}_packets_sent"], f[f"{end}_packets_received"]
        lost, late = f[f"{end}_network_lost"], f[f"{end}_late_lost"]
        assert received + lost <= sent  # a loss after the last received goes unseen
        expected = received + lost
        assert f[f"{end}_loss_percent"] == pytest.approx(100 * (lost + late) / expected)
        ta = f[f"{end}_mouth_to_ear"]["mean_s"] * 1e3
        want = g107_r(ta, ie, bpl, f[f"{end}_loss_percent"], f[f"{end}_burst_ratio"])
        assert f[f"{end}_r_factor"] == pytest.approx(want, abs=1e-9)
        assert f[f"{end}_mos"] == pytest.approx(mos(want), abs=1e-12)
    worse = min(f["caller_r_factor"], f["callee_r_factor"])
    assert f["r_factor"] == worse and f["mos"] == pytest.approx(mos(worse))
    # The switch's port towards bob is held; what the caller sends waits and comes late.
    assert f["callee_late_lost"] > 0 or "adaptive" in buffer


def test_a_call_is_deterministic_and_an_idle_path_loses_nothing() -> None:
    a = ethersim.run(EXAMPLE, overrides={"apps[0].duration": "10 s"}).summary["flows"][0]
    b = ethersim.run(EXAMPLE, overrides={"apps[0].duration": "10 s"}).summary["flows"][0]
    assert a == b
    for end in ("caller", "callee"):
        assert a[f"{end}_network_lost"] == a[f"{end}_late_lost"] == 0
        assert a[f"{end}_jitter_ms"] == 0.0
    assert a["satisfaction"] == "very satisfied"
