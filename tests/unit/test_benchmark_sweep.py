"""benchmarks/suite.py's sweep without a GPU: every family has a grid with
the shapes issue 28 names, the grid lists without torch, a failing case is a
row of its own, the budget skips what does not fit, and report.py names each
family's worst shape and its median."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import report  # noqa: E402
import suite  # noqa: E402

MODULES = {m.FAMILY: m for m in suite.family_modules()}


def _labels(family):
    return [label for label, _ in suite.sweep_grid(MODULES[family])]


@pytest.mark.parametrize("family", sorted(MODULES))
def test_every_family_has_a_sweep(family):
    labels = _labels(family)
    assert labels and len(set(labels)) == len(labels)
    assert MODULES[family].SWEEP_WEIGHT > 0


def test_the_sweeps_hold_odd_sizes_and_model_dimensions():
    softmax = _labels("softmax")
    for vocab in (32000, 50257, 128256):  # few rows and many
        assert f"f32 7x{vocab}" in softmax or f"f32 1x{vocab}" in softmax
        assert any(
            f"x{vocab}" in s and not s.startswith(("f32 1x", "f32 7x")) for s in softmax
        )
    for norm in ("layer norm", "rms norm"):
        labels = _labels(norm)
        for hidden in (768, 3001, 4104, 12289, 16384):  # model, prime, 8k not 128k
            assert f"bf16 4096x{hidden}" in labels
    transpose = _labels("transpose")
    assert "f32 4097x31" in transpose and "bf16 12289x5003" in transpose
    gemm = _labels("gemm")
    for m in (1, 16, 64, 128):  # decoding
        assert any(s.startswith(f"bf16 {m}x") for s in gemm), m
    assert "bf16 1009x4104x4104" in gemm  # prime M, N and K multiples of 8 only
    attention = _labels("attention")
    assert any("d64" in s for s in attention) and any("d128" in s for s in attention)
    assert any("s1152" in s for s in attention)  # no power of two
    assert any(not s.endswith(("2^16", "2^20")) for s in _labels("elementwise add"))


def test_the_sweep_fits_its_budget_by_its_own_estimate(capsys):
    suite.main(["--sweep", "--list"])
    total = capsys.readouterr().out.strip().splitlines()[-1]
    seconds = float(total.split("~")[1].split()[0])
    assert 150 < seconds < 330  # the default --budget


def test_one_family_lists_alone(capsys):
    suite.main(["--sweep", "--list", "--family", "softmax"])
    out = capsys.readouterr().out
    assert out.startswith("== softmax: 32 cases") and "transpose" not in out


def _case(label, check=None):
    return suite.Case(
        family="f",
        label=label,
        series="s",
        x=1.0,
        unit="TB/s",
        work=1e9,
        runners={"kdsl": lambda: None, "peer": lambda: None},
        check=check,
    )


def test_a_failing_case_is_a_row_and_the_rest_run(monkeypatch):
    monkeypatch.setattr(suite, "time_ms", lambda fn: 2.0)

    def wrong():
        raise AssertionError("max error 1 > 1e-5")

    def broken():
        raise ValueError("gemm_tma needs N and K multiples of 8")

    grid = [
        ("good", lambda: _case("good")),
        ("wrong", lambda: _case("wrong", check=wrong)),
        ("broken", broken),
        ("after", lambda: _case("after")),
    ]
    rows = suite.run_sweep("f", grid, None)
    assert [r.label for r in rows] == ["good", "wrong", "broken", "after"]
    assert rows[0].ratio == 1.0 and rows[3].ratio == 1.0
    assert rows[1].note.startswith("FAILED check: AssertionError")
    assert not rows[1].results  # nothing timed for a wrong result
    assert rows[2].note.startswith("FAILED to build: ValueError")
    assert rows[0].runners["kdsl"] is None  # the tensors freed


def test_past_its_budget_a_family_skips_its_cases(monkeypatch):
    monkeypatch.setattr(suite, "time_ms", lambda fn: 2.0)
    rows = suite.run_sweep("f", [("a", lambda: _case("a"))] * 3, 0.0)
    assert all(r.note.startswith("skipped") for r in rows)
    assert suite.shares({"a": ([1] * 2, 1.0), "b": ([1] * 6, 0.5)}, 100) == {
        "a": 40.0,
        "b": 60.0,
    }


def test_the_report_names_the_worst_shape_and_the_median(tmp_path):
    cases = [
        suite.to_json(c)
        for c in (_case("f32 4096x768"), _case("f32 7x128256"), _case("f32 1x32000"))
    ]
    for c, ratio in zip(cases, (1.1, 0.7, 1.0)):
        c["ratio"] = ratio
        c["rates"] = {"kdsl": ratio, "torch": 1.0}
    failed = suite.to_json(suite.Row("softmax", "bf16 7x50257", "FAILED check: x"))
    data = {"softmax": {"seconds": 12.0, "sweep": True, "cases": cases + [failed]}}
    data = json.loads(json.dumps(data))  # as suite.json holds it (NaN included)
    text = report.summary(data)
    assert (
        "| softmax | 4 | 0.70 | f32 7x128256 | 1.00 | 1 failed, 0 not run | 12 s |"
        in text
    )
    assert "| bf16 7x50257 | – | – | – | FAILED check: x |" in report.tables(data)
    old = {"gemm": cases}  # the layout of earlier runs: a list a family
    assert "| gemm | 3 | 0.70 |" in report.summary(old)
