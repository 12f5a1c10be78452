"""What a GFLOPS figure means: a convolution layer, an epoch, and the GPU speedup to expect.

The conversion is the seed post's (000_eaf032d8814f52b4.txt): a 3x3 convolution,
64 -> 64 channels on a 32x32 image, costs 2 x 32 x 32 x 64 x 64 x 9 = 7.55e7 FLOP per
image forward; a batch of 100, forward + backward (about 3x forward), is 22.65 GFLOP. A
CPU convolution is roughly a GEMM (im2col), so the GEMM rate is the best case.

GPU: its peak FP32 rate comes from the knowledge table rules/knowledge/gpu_peak.toml.
Reachable fractions: a large float32 GEMM gets about 80% of peak (Theano's check_blas
reference: a GTX 1080, 8.9 TFLOPS peak, does 10 GEMMs of 5000^3 in 0.35 s = 7.1 TFLOPS);
a whole network in Theano, with small layers, transfers and non-GEMM ops, gets far less,
taken here as 25%. The speedup range is those two fractions of the GPU's peak over the
CPU's measured rate. The seed's bar (002_22dcf1982304ec3a.txt) is a GPU 3-5x faster than
the CPU; it measured ~15x (1.8 s vs 0.12 s a batch).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, Optional

from legacydoc.i18n import N_, tr
from legacydoc.structs import struct

# The seed's layer and training run.
CONV_H = CONV_W = 32
CONV_CIN = CONV_COUT = 64
CONV_K = 3
BATCH = 100
TRAIN_FACTOR = 3.0  # forward + backward ~ 3x forward
LAYERS = 12  # "a decent conv net has a dozen such layers"
IMAGES = 50_000
# Fractions of a GPU's peak (see the module docstring for where they come from).
GPU_GEMM_FRACTION = 0.80
GPU_NETWORK_FRACTION = 0.25
SEED_BAR = (3.0, 5.0)
# GpuSpeedup.bar as the text says it (the JSON keeps the English word).
BAR_WORDS = {"plausible": N_("plausible"), "possible": N_("possible"), "unlikely": N_("unlikely")}


def conv_flop_per_image(h: int = CONV_H, w: int = CONV_W, cin: int = CONV_CIN, cout: int = CONV_COUT,
                        k: int = CONV_K) -> float:
    """Forward FLOP of one k x k convolution layer on one image (a multiply-add = 2)."""
    return 2.0 * h * w * cin * cout * k * k


def conv_batch_gflop(batch: int = BATCH, train_factor: float = TRAIN_FACTOR) -> float:
    """GFLOP of one layer for one training batch (forward + backward)."""
    return conv_flop_per_image() * batch * train_factor / 1e9


def conv_layer_seconds(gflops: float, batch: int = BATCH) -> Optional[float]:
    if not gflops or gflops <= 0:
        return None
    return conv_batch_gflop(batch) / gflops


def epoch_seconds(gflops: float, layers: int = LAYERS, images: int = IMAGES, batch: int = BATCH) -> Optional[float]:
    """One pass over ``images`` with ``layers`` such layers, at ``gflops``."""
    layer = conv_layer_seconds(gflops, batch)
    if layer is None:
        return None
    return layer * layers * (images / batch)


@struct(frozen=True)
class GpuSpeedup:
    name: str
    tflops: float  # peak FP32, from the knowledge table
    low: float  # network-level fraction of peak over the CPU rate
    high: float  # GEMM-level fraction of peak over the CPU rate

    @property
    def bar(self) -> str:
        """'plausible' | 'possible' | 'unlikely' for the seed's 3-5x bar."""
        if self.low >= SEED_BAR[0]:
            return "plausible"
        if self.high >= SEED_BAR[0]:
            return "possible"
        return "unlikely"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "peak_tflops": self.tflops, "speedup_low": round(self.low, 1),
                "speedup_high": round(self.high, 1), "seed_bar_3_5x": self.bar}


def gpu_speedups(names: Sequence[str], cpu_gflops: Optional[float],
                 peak_of: Optional[Callable[[str], Optional[float]]] = None) -> list[GpuSpeedup]:
    """Expected speedup of each distinct GPU over ``cpu_gflops``; GPUs missing from the
    knowledge table are left out."""
    if peak_of is None:
        from legacydoc.knowledge import default

        peak_of = default().gpu_peak_tflops
    out: list[GpuSpeedup] = []
    if not cpu_gflops or cpu_gflops <= 0:
        return out
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or name in seen:
            continue
        seen.add(name)
        tflops = peak_of(name)
        if not tflops:
            continue
        gflops = tflops * 1000.0
        out.append(GpuSpeedup(name=name, tflops=tflops, low=gflops * GPU_NETWORK_FRACTION / cpu_gflops,
                              high=gflops * GPU_GEMM_FRACTION / cpu_gflops))
    return out


def describe_seconds(seconds: Optional[float]) -> str:
    """'0.11 s', '4.2 min', '13 h' — the unit a person would use."""
    if seconds is None:
        return "?"
    if seconds < 1.0:
        return "%.2f s" % seconds
    if seconds < 120:
        return "%.1f s" % seconds
    if seconds < 7200:
        return "%.0f min" % (seconds / 60.0)
    if seconds < 72 * 3600:
        return "%.1f h" % (seconds / 3600.0)
    return tr("%.1f days") % (seconds / 86400.0)


def meaning(gflops: Optional[float], gpu_names: Sequence[str] = (),
            peak_of: Optional[Callable[[str], Optional[float]]] = None) -> dict[str, Any]:
    """Everything the report says about ``gflops`` (the CPU float32 rate)."""
    out: dict[str, Any] = {
        "gflops": gflops,
        "conv_layer": {"h": CONV_H, "w": CONV_W, "cin": CONV_CIN, "cout": CONV_COUT, "k": CONV_K, "batch": BATCH,
                       "gflop_per_batch": round(conv_batch_gflop(), 2)},
        "epoch": {"layers": LAYERS, "images": IMAGES, "batch": BATCH},
    }
    if gflops:
        out["conv_layer"]["seconds"] = round(conv_layer_seconds(gflops) or 0.0, 4)
        out["epoch"]["seconds"] = round(epoch_seconds(gflops) or 0.0, 1)
    out["gpus"] = [g.to_dict() for g in gpu_speedups(gpu_names, gflops, peak_of)]
    return out
