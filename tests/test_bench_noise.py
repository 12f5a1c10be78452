"""bench's trust verdict and plot: the verdict on sweeps as the timing script reports them,
the rerun choice, and the CLI's Trust line, chart, JSON and --plot file."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from legacydoc.bench import noise
from legacydoc.bench.gemm import sweep_from_report
from legacydoc.cli import main


def _size(n: int, best: float, median: float, worst: float, reps: int = 20) -> dict:
    # The timing script's shape (target_bench_script.summarize): GFLOPS and the spread of times.
    return {"n": n, "reps": reps, "gflops": {"median": median, "best": best, "worst": worst},
            "ms": {"median": 1.0, "best": 1.0, "worst": 1.0},
            "spread_pct": round(100.0 * (1 / worst - 1 / best) / (1 / median), 1)}


def _sweep(*sizes: dict, dtype: str = "float32"):
    return sweep_from_report(dtype, {"sizes": list(sizes)})


QUIET = noise.Conditions(load_1m=0.2, mhz=2600.0)


def test_steady_runs_are_trusted_even_with_one_slow_run_among_many() -> None:
    sweeps = [_sweep(_size(512, 200.0, 196.0, 120.0), _size(1024, 210.0, 205.0, 150.0))]
    verdict = noise.judge(sweeps, QUIET, QUIET, cores=8)
    assert verdict.trustworthy and verdict.reasons == []


def test_the_reported_3_7_to_219_gflops_run_is_not_trusted() -> None:
    sweeps = [_sweep(_size(2048, 219.0, 150.0, 3.7))]
    verdict = noise.judge(sweeps, QUIET, QUIET, cores=8)
    assert not verdict.trustworthy
    assert verdict.reasons == ["float32 n=2048: the runs ranged from 3.7 to 219.0 GFLOPS"]
    assert noise.rerun_plan(verdict) == [("float32", 2048)]


def test_a_median_far_below_the_best_is_not_trusted_but_tiny_sizes_are_not_judged() -> None:
    assert not noise.judge([_sweep(_size(512, 200.0, 150.0, 140.0))], QUIET, QUIET, 8).trustworthy
    assert noise.judge([_sweep(_size(64, 200.0, 50.0, 1.0))], QUIET, QUIET, 8).trustworthy


def test_a_busy_machine_and_a_moving_clock_are_named_and_not_rerun() -> None:
    steady = [_sweep(_size(512, 200.0, 196.0, 190.0))]
    busy = noise.judge(steady, noise.Conditions(load_1m=7.5, mhz=2600.0), QUIET, cores=8)
    assert busy.reasons == ["other programs kept the CPU busy: load average 7.5 on 8 logical cores"]
    assert busy.busy and noise.rerun_plan(busy) == []
    throttled = noise.judge(steady, QUIET, noise.Conditions(load_1m=0.2, mhz=1800.0), cores=8)
    assert throttled.reasons == ["the CPU clock moved from 2600 to 1800 MHz during the run (power saving, "
                                 "turbo or heat)"]


def test_unknown_load_and_clock_claim_nothing() -> None:
    verdict = noise.judge([_sweep(_size(512, 200.0, 196.0, 190.0))], noise.Conditions(), noise.Conditions(), None)
    assert verdict.trustworthy and verdict.to_dict()["before"] == {"load_1m": None, "mhz": None}


def _bench(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "--python", sys.executable, *args])
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


def test_the_text_has_a_trust_line_and_a_chart(capsys) -> None:
    code, out, err = _bench(capsys, "--sizes", "64,128", "--seconds", "0.3")
    assert code == 0, err
    assert "\nTrust: " in out
    chart = out.split("GFLOPS by matrix size n", 1)[1]
    assert "n=64" in chart and "n=128" in chart and "#" in chart


def test_json_carries_the_verdict(capsys) -> None:
    code, out, err = _bench(capsys, "--size", "64", "--seconds", "0.2", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert isinstance(doc["noise"]["trustworthy"], bool)
    assert doc["facts"]["bench"]["trustworthy"] == doc["noise"]["trustworthy"]


def test_plot_writes_an_svg(capsys, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")  # the test extra installs it
    target = tmp_path / "sweep.svg"
    code, _out, err = _bench(capsys, "--sizes", "64,128", "--seconds", "0.3", "--plot", str(target))
    assert code == 0, err
    root = ElementTree.fromstring(target.read_bytes())
    assert root.tag.endswith("svg")
    assert "float32" in target.read_text() and "plot written to" in err


@pytest.mark.parametrize("name, message", [("sweep.pdf", "--plot writes .png or .svg"),
                                           ("missing/sweep.png", "sweep.png")])
def test_a_bad_plot_target_is_refused_before_measuring(capsys, tmp_path: Path, name: str, message: str) -> None:
    code, out, err = _bench(capsys, "--size", "64", "--seconds", "0.2", "--plot", str(tmp_path / name))
    assert code == 2 and message in err and out == ""


def test_the_rerun_keeps_the_steadier_measurement() -> None:
    [first] = _sweep(_size(2048, 219.0, 150.0, 3.7)).sizes
    [calm] = _sweep(_size(2048, 210.0, 205.0, 190.0)).sizes
    [wobbly] = _sweep(_size(2048, 210.0, 150.0, 140.0)).sizes
    assert noise.steadier(first, calm) is calm and noise.steadier(calm, first) is calm
    # both uneven: the smaller gap between the median and the best run wins
    assert noise.uneven(first) and noise.uneven(wobbly)
    assert noise.steadier(first, wobbly) is wobbly and noise.steadier(wobbly, first) is wobbly


def test_the_reasons_are_shown_in_chinese_and_stay_english_as_data() -> None:
    from legacydoc import i18n

    verdict = noise.judge([_sweep(_size(2048, 219.0, 150.0, 3.7))], noise.Conditions(load_1m=7.5), QUIET, cores=8)
    english = list(verdict.reasons)
    with i18n.speaking("zh"):
        shown = verdict.shown_reasons()
    assert verdict.reasons == english == verdict.shown_reasons()  # data and English screen alike
    assert len(shown) == 2 and shown != english
    assert "3.7" in shown[0] and "219.0" in shown[0] and "7.5" in shown[1]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in line) for line in shown)
