"""benchmarks/torch_ops.py's verdicts pair the two paths of a ratio or a
difference round by round: the device machine's host drifts between rounds
by more than some of the gaps issue 27's targets ask about, and within a
round both paths see the same host."""

import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import torch_ops  # noqa: E402

NAN = math.nan


def rows(rounds: dict) -> "torch_ops.Timings":
    out = torch_ops.Timings(
        (k, (sorted(v)[len(v) // 2], NAN)) for k, v in rounds.items()
    )
    out.rounds = rounds
    return out


def test_a_ratio_is_the_median_of_the_rounds_ratios():
    # a host that slowed in the third round: each round says 1.2, the
    # medians of the paths alone (15 / 10) would say 1.5
    timed = rows({"kdsl op": [12.0, 24.0, 15.0], "torch": [10.0, 20.0, 10.0]})
    assert timed["kdsl op"][0] / timed["torch"][0] == 1.5
    assert torch_ops.paired(timed, "kdsl op", "torch", torch_ops._ratio) == 1.2
    (line,) = torch_ops.verdicts({("gelu", "small", "forward+backward"): timed})
    assert "forward+backward / torch" in line and "1.20 (<= 1.5) met" in line


def test_a_difference_pairs_its_rounds_and_medians_stand_in_without_them():
    timed = rows(
        {"kdsl compiled": [50.0, 90.0, 60.0], "empty compiled": [46.0, 86.0, 40.0]}
    )
    assert (
        torch_ops.paired(timed, "kdsl compiled", "empty compiled", torch_ops._less)
        == 4.0
    )
    lines = torch_ops.verdicts({("gelu", "small", "forward"): timed})
    assert any("compiled overhead" in v and "4.0 us (<= 5) met" in v for v in lines)
    plain = {"kdsl op": (15.0, NAN), "torch": (10.0, NAN)}  # no rounds kept
    assert torch_ops.paired(plain, "kdsl op", "torch", torch_ops._ratio) == 1.5
