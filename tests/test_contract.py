"""The study contract's machinery on small synthetic studies: published-findings files are
checked before anything runs, verdicts follow the tolerances, the ledger names every key
a scenario sets, and a sensitivity point really changes what the simulator runs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ethersim
import pandas as pd
import pytest
from ethersim.batch import recording, run_many
from ethersim.errors import ScenarioError
from ethersim.studies import contract, sensitivity
from ethersim.studies.contract import Findings, Outcome
from scenario_edits import edit

PING = """
name = "contract-ping"
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[links]]
between = ["a", "b"]
rate = "1 Gb/s"
delay = "10 us"
[[apps]]
kind = "ping"
from = "a"
to = "b"
count = 3
interval = "1 ms"
"""


def _rtt_us(rep: Any, where: Mapping[str, Any]) -> Outcome:
    result = rep
    return Outcome(value=float(result.flows.iloc[0].rtt_mean_s) * 1e6)


def _rtt_below(rep: Any, where: Mapping[str, Any]) -> Outcome:
    rtt = float(rep.flows.iloc[0].rtt_mean_s) * 1e6
    return Outcome(holds=rtt < float(where["us"]), text=f"mean RTT {rtt:.2f} us")


def _never(rep: Any, where: Mapping[str, Any]) -> Outcome:
    return Outcome(comparable=False, text="the study does not run this")


EVALUATORS = {"rtt_us": _rtt_us, "rtt_below": _rtt_below, "never": _never}
STUDY: Findings[Any] = Findings("ping", EVALUATORS)

FILE = """
study = "ping"
paper = "A made-up paper."
seed = "none.txt"

[[findings]]
id = "rtt"
claim = "The round trip takes about 21 us."
source = "Table 1"
quote = "21 us"
kind = "quantitative"
quantity = "rtt_us"
published = 21.0
unit = "us"
tolerance_percent = 5
tolerance_reason = "the paper rounds to whole microseconds"
computed_from = "flows: rtt_mean_s"

[[findings]]
id = "rtt-short"
claim = "The round trip stays below 30 us."
source = "§2"
quote = "below 30 us"
kind = "qualitative"
quantity = "rtt_below"
where = { us = 30 }
computed_from = "flows: rtt_mean_s < 30 us"

[[findings]]
id = "elsewhere"
claim = "Something the reproduction does not run."
source = "§3"
quote = "..."
kind = "qualitative"
quantity = "never"
computed_from = "not run by the reproduction"

[[setup]]
parameter = "links[*].delay"
kind = "assumption"
value = "10 us"
source = "the paper gives no cable lengths"
range = ["1 us", "20 us"]
findings = ["rtt", "rtt-short"]

[[setup]]
parameter = "links[*].rate"
kind = "stated"
value = "1 Gb/s"
source = "'gigabit' (§1)"
"""


def _published(text: str = FILE) -> contract.Published:
    return contract.load_published("ping", EVALUATORS, text=text)


def test_verdicts_follow_the_tolerance_and_the_claims() -> None:
    result = ethersim.run_text(PING)
    rtt = float(result.flows.iloc[0].rtt_mean_s) * 1e6
    comparison = contract.compare(_published(), STUDY, result)
    assert list(comparison.columns[:7]) == list(contract.COMPARISON_COLUMNS)
    by = comparison.set_index("finding")
    # 2 x (10 us + 84 B + 8 B preamble at 1 Gb/s ...): whatever it is, the verdict is the
    # tolerance's: within 5 % of 21 us or not.
    expected = "reproduced" if abs(rtt - 21.0) <= 0.05 * 21.0 else "differs"
    assert by.loc["rtt", "verdict"] == expected
    assert by.loc["rtt-short", "verdict"] == "reproduced"
    assert by.loc["elsewhere", "verdict"] == "not comparable"
    assert by.loc["elsewhere", "explanation"] == "the study does not run this"
    assert contract.k_of_n(comparison).startswith(
        f"{1 + (expected == 'reproduced')} of 3 published findings reproduced"
    )


def test_a_difference_without_an_explanation_says_so() -> None:
    text = edit(FILE, "published = 21.0", "published = 2100.0")
    comparison = contract.compare(_published(text), STUDY, ethersim.run_text(PING))
    row = comparison.set_index("finding").loc["rtt"]
    assert row.verdict == "differs"
    assert row.explanation == "not yet explained"
    assert row.deviation.startswith("-")


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (('quantity = "rtt_us"', 'quantity = "rtt_ms"'), "findings[0].quantity", "rtt_ms"),
        (('kind = "quantitative"', 'kind = "numeric"'), "findings[0].kind", "numeric"),
        (("tolerance_percent = 5\n", ""), "findings[0].tolerance", "tolerance"),
        (('range = ["1 us", "20 us"]', "range = []"), "setup[0].range", "empty"),
        (
            ('findings = ["rtt", "rtt-short"]', 'findings = ["rtt2"]'),
            "setup[0].findings[0]",
            "rtt2",
        ),
        (('id = "rtt-short"', 'id = "rtt"'), "findings[1].id", "twice"),
        (('kind = "assumption"', 'kind = "guess"'), "setup[0].kind", "guess"),
        (('id = "rtt"\n', 'id = "rtt"\ncause = "slow"\n'), "findings[0].cause", "slow"),
        (('id = "rtt"\n', 'id = "rtt"\ncause = 3\n'), "findings[0].cause", "3"),
        (
            ('id = "rtt"\n', 'id = "rtt"\nmarker = { figure = "rtt", x = "two" }\n'),
            "findings[0].marker.x",
            "two",
        ),
        (
            ('id = "rtt-short"\n', 'id = "rtt-short"\nmarker = { figure = "rtt", x = 1 }\n'),
            "findings[1].marker",
            "quantitative",
        ),
    ],
)
def test_a_malformed_findings_file_names_the_key_path(
    change: tuple[str, str], path: str, words: str
) -> None:
    text = edit(FILE, *change)
    assert text != FILE
    with pytest.raises(ScenarioError) as e:
        _published(text)
    assert e.value.path.endswith(path), e.value.path
    assert words in e.value.message


def test_the_ledger_lists_every_key_and_flags_those_it_lacks() -> None:
    with recording() as ran:
        run_many([PING], jobs=1)
    assert ran == [PING]
    keys = contract.set_keys(STUDY, None, ran)
    missing = contract.uncovered(_published(), keys)
    # name, hosts, between, apps: the file above lists only delay and rate.
    assert "links[0].between" in missing and "apps[0].count" in missing
    assert "links[0].delay" not in missing and "links[0].rate" not in missing
    ledger = contract.ledger(_published(), keys)
    assert list(ledger.columns[:4]) == list(contract.SETUP_COLUMNS)
    delay = ledger.set_index("parameter").loc["links[*].delay"]
    assert delay.value == "10 us" and delay.kind == "assumption"
    assert set(ledger[ledger.kind == "unlisted"].parameter) == set(missing)


def test_key_paths_and_globs() -> None:
    doc = contract.parse_toml(PING)
    flat = contract.flatten(doc)
    assert flat["links[0].between"] == ["a", "b"]
    assert flat["hosts[1].name"] == "b"
    assert contract.matches("hosts[*].name", "hosts[1].name")
    assert not contract.matches("hosts[*].name", "hosts[1].names")
    assert contract.matches("apps[*].*", "apps[0].count")
    # A key left at its default is named all the same, so an override sets it.
    assert sensitivity.override_paths("hosts[*].tx_buffers", doc) == [
        "hosts[0].tx_buffers",
        "hosts[1].tx_buffers",
    ]
    assert sensitivity.override_paths("links[0].delay", doc) == ["links[0].delay"]
    assert sensitivity.override_paths("switches[*].port_buffer", doc) == []


def test_a_sensitivity_point_changes_what_the_simulator_runs(tmp_path: Path) -> None:
    published = _published()

    def reproduce(**changes: Any) -> Any:
        return run_many([PING], jobs=1)[0]

    db = tmp_path / "sens.duckdb"
    table = sensitivity.run(STUDY, published, reproduce, options={"x": 1}, db=db)
    assert list(table.columns[:5]) == list(sensitivity.SENSITIVITY_COLUMNS)
    rtt = table[table.finding == "rtt"].set_index("value").simulated
    # Two more 10 us one-way delays per round trip at 20 us than at 1 us: +38 us.
    short, long = (float(rtt[v].split()[0]) for v in ("1 us", "20 us"))
    assert long - short == pytest.approx(38.0, abs=1e-6)
    # Stored: a second call runs nothing and gives the same table.
    again = sensitivity.run(
        STUDY, published, lambda **c: pytest.fail("ran again"), options={"x": 1}, db=db
    )
    pd.testing.assert_frame_equal(table, again)
    comparison = contract.compare(published, STUDY, ethersim.run_text(PING))
    hinges = sensitivity.robustness(published, comparison, table)
    assert hinges["elsewhere"] == []
    section = sensitivity.summary_section(published, comparison, table)
    assert "Robust" in section


def test_a_shared_cause_follows_the_findings_own_explanation() -> None:
    text = edit(FILE, "published = 21.0", "published = 2100.0")
    text = edit(
        text, 'id = "rtt"\n', 'id = "rtt"\nexplanation = "Ours is shorter."\ncause = "cable"\n'
    )
    text += '\n[causes]\ncable = "The paper\'s cable is longer (run: links[*].delay = 20 us)."\n'
    comparison = contract.compare(_published(text), STUDY, ethersim.run_text(PING))
    row = comparison.set_index("finding").loc["rtt"]
    assert row.verdict == "differs"
    assert row.explanation == (
        "Ours is shorter. The paper's cable is longer (run: links[*].delay = 20 us)."
    )


JOINT = """
[[setup]]
parameter = "links[*].delay2"
kind = "assumption"
value = "10 us"
source = "a second assumption"
range = ["2 us", "30 us"]
"""


@pytest.mark.parametrize(
    ("joint", "path", "words"),
    [
        ('set = { "links[*].delay" = "20 us" }', "joint[0].set", "two or more"),
        (
            'set = { "links[*].delay" = "20 us", "links[*].rate" = "1 Gb/s" }',
            "joint[0].set",
            "no ledger entry with a range",
        ),
        (
            'set = { "links[*].delay" = "5 us", "links[*].delay2" = "2 us" }',
            "joint[0].set.links[*].delay",
            "outside the entry's range",
        ),
    ],
)
def test_a_malformed_joint_point_names_the_key_path(joint: str, path: str, words: str) -> None:
    text = FILE + JOINT + f'\n[[joint]]\n{joint}\nreason = "both"\n'
    with pytest.raises(ScenarioError) as e:
        _published(text)
    assert e.value.path.endswith(path), e.value.path
    assert words in e.value.message


def test_a_joint_point_sets_every_part_at_once(tmp_path: Path) -> None:
    """A joint point runs the study once with every one of its settings in force."""
    text = edit(FILE, 'parameter = "links[*].delay"', 'parameter = "links[0].delay"')
    text += """
[[setup]]
parameter = "apps[0].interval"
kind = "assumption"
value = "1 ms"
source = "the paper gives no interval"
range = ["2 ms"]

[[joint]]
set = { "links[0].delay" = "20 us", "apps[0].interval" = "2 ms" }
reason = "both together"
"""
    published = _published(text)
    joint = sensitivity.points(published)[-1]
    assert joint.parameter == "links[0].delay + apps[0].interval"
    assert joint.value == "20 us + 2 ms"
    seen: list[list[str]] = []

    def reproduce(**changes: Any) -> Any:
        from ethersim.batch import active_overrider

        overrider = active_overrider()
        seen.append(overrider(PING) if overrider is not None else [])
        return run_many([PING], jobs=1)[0]

    table = sensitivity.run(STUDY, published, reproduce, options={}, db=tmp_path / "s.duckdb")
    assert seen[-1] == ["links[0].delay=20 us", "apps[0].interval=2 ms"]
    rtt = table[table.finding == "rtt"].set_index("parameter").simulated
    base = float(rtt["links[0].delay"].iloc[0].split()[0])  # the 1 us point
    joint_rtt = float(rtt["links[0].delay + apps[0].interval"].split()[0])
    # 20 us against 1 us one way: +38 us per round trip; the interval moves no RTT.
    assert joint_rtt - base == pytest.approx(38.0, abs=1e-6)


def test_a_marked_finding_is_drawn_on_its_figure_and_panel_only() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = edit(
        FILE, 'id = "rtt"\n', 'id = "rtt"\nmarker = { figure = "rtt", x = [1, 2], panel = "a" }\n'
    )
    published = _published(text)
    assert published.findings[0].marker == contract.Marker("rtt", (1.0, 2.0), "a")
    fig, (a, b) = plt.subplots(1, 2)
    contract.draw_published(a, published, "rtt", "a")
    contract.draw_published(b, published, "rtt", "b")
    contract.draw_published(b, published, "other", "a")
    marked = [(tuple(line.get_xdata()), tuple(line.get_ydata())) for line in a.get_lines()]
    assert marked == [((1.0,), (21.0,)), ((2.0,), (21.0,))]
    assert b.get_lines() == []
    assert [t.get_text() for t in a.texts] == ["rtt", "rtt"]
    plt.close(fig)
