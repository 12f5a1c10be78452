"""GFLOPS against matrix size, for each numpy and dtype: as terminal text, or as a PNG/SVG
file with matplotlib (an optional extra: ``pip install "legacydoc[plot]"``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from legacydoc.bench.gemm import DTYPES
from legacydoc.errors import UsageError
from legacydoc.i18n import N_, tr

BAR_WIDTH = 36
PLOT_SUFFIXES = (".png", ".svg")


def series(report: Any, translated: bool = False) -> list[tuple[str, list[tuple[int, float]]]]:
    """(label, [(n, median GFLOPS)...]) for each numpy and dtype that has sizes; the labels in
    the reader's language when ``translated`` (the plot file stays English: its font may
    have no CJK glyphs)."""
    sides = [(N_("legacydoc's numpy"), report.machine)]
    target = report.target
    if target is not None and target.ok and not target.same_as_machine:
        sides.append((N_("target numpy"), target))
    out = []
    for name, side in sides:
        name = tr(name) if translated else name
        for dtype in DTYPES:
            sweep = side.sweeps.get(dtype)
            points = [(s.n, s.gflops.median) for s in sweep.sizes] if sweep else []
            if points:
                out.append(("%s %s" % (name, dtype), sorted(points)))
    return out


def text_chart(report: Any) -> list[str]:
    """One bar per size and series, scaled to the highest rate; empty with fewer than two
    sizes (one figure is already in the table)."""
    data = series(report, translated=True)
    if not data or max(len(points) for _label, points in data) < 2:
        return []
    top = max(rate for _label, points in data for _n, rate in points) or 1.0
    lines = [tr("GFLOPS by matrix size n (median of the runs; bars to scale, full = %.1f):") % top]
    for label, points in data:
        lines.append("  " + label)
        for n, rate in points:
            filled = int(round(BAR_WIDTH * rate / top))
            lines.append("    n=%-6d %s %.1f" % (n, ("#" * filled).ljust(BAR_WIDTH), rate))
    return lines


def check_plot_target(path: Optional[Path]) -> None:
    """Refuse a bad --plot before anything is measured."""
    if path is None:
        return
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(tr("%s: --plot writes .png or .svg, not %r") % (path, path.suffix or tr("no suffix")))
    from legacydoc.safe_io import check_writable

    check_writable(path, need_read=False)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(tr("--plot needs matplotlib: pip install \"legacydoc[plot]\"")) from None


def write_plot(report: Any, path: Path) -> Path:
    """The sweep as a log-log chart, written through the safe writer."""
    import io

    import matplotlib

    matplotlib.use("Agg")  # no display needed
    from matplotlib import pyplot

    from legacydoc.safe_io import replace_file

    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    for label, points in series(report):
        axes.plot([n for n, _r in points], [r for _n, r in points], marker="o", label=label)
    axes.set_xscale("log", base=2)
    axes.set_xlabel("matrix size n (n x n times n x n)")
    axes.set_ylabel("GFLOPS (median)")
    axes.set_title("legacydoc bench: matrix product rate")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    buffer = io.BytesIO()
    figure.savefig(buffer, format=path.suffix.lower().lstrip("."), bbox_inches="tight")
    pyplot.close(figure)
    replace_file(path, buffer.getvalue())
    return path
