"""The report's figures (matplotlib, Agg backend): each function writes one PNG and returns nothing.

Conventions: sequence length on a log₂ axis with ticks 128, 256, …, 16k; every axis names its quantity
and unit; GPUs whose figures were not re-checked against a datasheet are drawn dashed and carry a dagger
in the legend; one colour per GPU across all figures.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator  # noqa: E402

from flashio.model.gpus import GPUS  # noqa: E402
from flashio.report.explanation import FACTOR_LABELS, FACTORS  # noqa: E402
from flashio.report.predictions import KERNEL_LABELS, Setup, SpeedupRow, gpu_label, select  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from flashio.model.explain import Explanation
    from flashio.report.explanation import SweepCurve
    from flashio.report.io_experiments import AccessesVsN, BlockSizeRow
    from flashio.report.measured import ComparedPoint

DPI = 110
# tab10, then black and two dark colours: thirteen GPUs that stay apart; the H200 (calibration GPU) is black.
_PALETTE = (*plt.get_cmap("tab10").colors, "#000000", "#b8860b", "#4b0082")
_GPU_COLORS = {"h200": "#000000", "b200": "#b8860b", "mi300x": "#4b0082"}
_GPU_ORDER = list(GPUS)
_MARKERS = "osD^v<>phX*P8"
CALIBRATION_GPU = "h200"
FACTOR_UNITS = {"bandwidth": "HBM bandwidth (GB/s)", "sram": "shared memory per SM (KiB)",
                "tensor_flops": "dense FP16 tensor rate (TFLOP/s)"}
SYSTEM_COLORS = {"flashio": "#d62728", "flashio_det": "#ff9896", "standard": "#7f7f7f", "sdpa_flash": "#1f77b4",
                 "sdpa_efficient": "#17becf", "sdpa_cudnn": "#2ca02c", "sdpa_math": "#bcbd22",
                 "flex": "#9467bd", "flash_attn": "#8c564b"}


def gpu_color(slug: str):
    """A stable colour per GPU: database order through tab10, then dark extras."""
    if slug in _GPU_COLORS:
        return _GPU_COLORS[slug]
    others = [g for g in _GPU_ORDER if g not in _GPU_COLORS]
    index = others.index(slug) if slug in others else len(others)
    return _PALETTE[index % len(_PALETTE)]


def gpu_marker(slug: str) -> str:
    index = _GPU_ORDER.index(slug) if slug in _GPU_ORDER else 0
    return _MARKERS[index % len(_MARKERS)]


def _gpu_style(slug: str) -> dict:
    spec = GPUS.get(slug)
    return {"color": gpu_color(slug), "marker": gpu_marker(slug), "markersize": 4,
            "linewidth": 2.4 if slug == CALIBRATION_GPU else 1.5,
            "linestyle": "-" if spec is None or spec.checked else "--"}


def _seqlen_axis(ax, seqlens) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(seqlens)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(v) // 1024}k" if v >= 1024 else f"{int(v)}"))
    ax.set_xlabel("sequence length N (tokens)")


def _plain_log_axis(ax, axis: str = "x") -> None:
    """Log scale labelled 1, 2, 5, 10, 20, … instead of powers of ten."""
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_minor_locator(NullLocator())
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _finish(fig, path: Path) -> None:
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


# ----------------------------------------------------------------------------------------------------
# Predicted speedups
# ----------------------------------------------------------------------------------------------------


def speedup_vs_seqlen(rows: list[SpeedupRow], panels: list[tuple[str, Setup, str]], path: Path,
                      suptitle: str, ncols: int = 2) -> None:
    """One panel per (kernel, setup): predicted fwd+bwd speedup versus N, one line per GPU."""
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.2 * ncols, 4.8 * nrows), squeeze=False, sharey=True)
    handles = {}
    for ax, (kernel, setup, title) in zip(axes.flat, panels):
        table = select(rows, kernel, setup)
        for slug, by_n in table.items():
            seqlens = sorted(by_n)
            (line,) = ax.plot(seqlens, [by_n[n] for n in seqlens], label=gpu_label(GPUS[slug]), **_gpu_style(slug))
            handles.setdefault(slug, line)
        _seqlen_axis(ax, sorted({n for by_n in table.values() for n in by_n}))
        ax.set_title(title, fontsize=10)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.grid(True, alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel("speedup over standard attention (×)")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    axes[0, 0].set_ylim(bottom=0)
    fig.legend(list(handles.values()), [h.get_label() for h in handles.values()], loc="center left",
               bbox_to_anchor=(1.0, 0.5), fontsize=9, title_fontsize=9, frameon=False,
               title="GPU († figures unchecked: dashed;\nH200 = calibration GPU: bold black)")
    fig.suptitle(suptitle, fontsize=12)
    fig.tight_layout()
    _finish(fig, path)


# ----------------------------------------------------------------------------------------------------
# Explanation
# ----------------------------------------------------------------------------------------------------


def elasticity_bars(explained: list["Explanation"], path: Path) -> None:
    """Grouped bars: ε of the speedup for bandwidth, SRAM and tensor FLOP/s per GPU, one panel per kernel."""
    kernels = list(dict.fromkeys(e.kernel for e in explained))
    fig, axes = plt.subplots(len(kernels), 1, figsize=(12, 3.3 * len(kernels)), squeeze=False, sharey=True)
    colors = {"bandwidth": "#1f77b4", "sram": "#ff7f0e", "tensor_flops": "#2ca02c"}
    width = 0.26
    for ax, kernel in zip(axes[:, 0], kernels):
        rows = [e for e in explained if e.kernel == kernel]
        xs = range(len(rows))
        for offset, factor in zip((-width, 0.0, width), FACTORS):
            ax.bar([x + offset for x in xs], [e.elasticities[factor] for e in rows], width,
                   color=colors[factor], label=FACTOR_LABELS[factor])
        ax.set_xticks(list(xs))
        ax.set_xticklabels([e.gpu + ("" if GPUS[e.gpu].checked else " †") for e in rows], fontsize=9,
                           rotation=25, ha="right")
        ax.axhline(0.0, color="black", linewidth=0.8)
        for level in (-0.3, 0.3):
            ax.axhline(level, color="grey", linewidth=0.6, linestyle=":")
        ax.set_ylabel("elasticity ε of the speedup")
        ax.set_title(f"{KERNEL_LABELS.get(kernel, kernel)}: ε = d ln(speedup) / d ln(figure), over ±25%",
                     fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9, frameon=False)
    fig.suptitle("Which GPU figure moves the predicted speedup (fwd+bwd, batch 8 × 12 heads, N=1k, d=64, fp16)\n"
                 "ε = −1: speedup ∝ 1/figure; ε = +1: ∝ figure; |ε| < 0.3 between the dotted lines: minor",
                 fontsize=11)
    fig.tight_layout()
    _finish(fig, path)


def speedup_vs_gpu_figures(explained: list["Explanation"], path: Path) -> None:
    """Scatter across GPUs: speedup versus each figure and versus tensor rate ÷ bandwidth."""
    fig, axes = plt.subplots(1, 4, figsize=(17, 4.2), sharey=True)
    xs_of = {
        "bandwidth": lambda s: s.hbm_bandwidth_gbs,
        "sram": lambda s: s.smem_per_sm_kib,
        "tensor_flops": lambda s: s.tensor_tflops,
        "ratio": lambda s: s.tensor_tflops * 1e12 / (s.hbm_bandwidth_gbs * 1e9),
    }
    labels = dict(FACTOR_UNITS, ratio="tensor rate ÷ bandwidth (FLOP/byte)")
    for ax, key in zip(axes, ("bandwidth", "sram", "tensor_flops", "ratio")):
        for e in explained:
            spec = GPUS[e.gpu]
            x = xs_of[key](spec)
            ax.scatter([x], [e.speedup], color=gpu_color(e.gpu), marker=gpu_marker(e.gpu), s=36,
                       edgecolors="black" if spec.checked else "none", linewidths=0.6, zorder=3)
            ax.annotate(e.gpu + ("" if spec.checked else "†"), (x, e.speedup), textcoords="offset points",
                        xytext=(4, 3), fontsize=7.5)
        _plain_log_axis(ax, "x")
        ax.set_xlabel(labels[key])
        ax.grid(True, alpha=0.3, which="both")
    axes[0].set_ylabel("predicted speedup (×)")
    axes[0].set_ylim(bottom=0)
    fig.suptitle("Predicted speedup (flashio kernels, fwd+bwd, batch 8 × 12 heads, N=1k, d=64) against each GPU "
                 "figure — the last panel, compute per byte, is what lines the GPUs up", fontsize=11)
    fig.tight_layout()
    _finish(fig, path)


def factor_sweeps(curves: list["SweepCurve"], path: Path) -> None:
    """Speedup when one figure of a GPU is scaled ¼× … 4×: one panel per factor, one line per GPU × kernel."""
    fig, axes = plt.subplots(1, len(FACTORS), figsize=(16, 4.3), sharey=True)
    for ax, factor in zip(axes, FACTORS):
        for curve in (c for c in curves if c.factor == factor):
            style = "-" if curve.kernel == "flashio" else ":"
            ax.plot(curve.values, curve.speedups, linestyle=style, color=gpu_color(curve.gpu),
                    marker=gpu_marker(curve.gpu), markersize=3.5, linewidth=1.6,
                    label=f"{curve.gpu} ({'flashio' if curve.kernel == 'flashio' else 'FA1'})")
            middle = len(curve.values) // 2
            ax.scatter([curve.values[middle]], [curve.speedups[middle]], color=gpu_color(curve.gpu),
                       s=60, edgecolors="black", zorder=4)
        _plain_log_axis(ax, "x")
        _plain_log_axis(ax, "y")
        ax.set_xlabel(FACTOR_UNITS[factor])
        ax.set_title(f"vary {FACTOR_LABELS[factor]} only", fontsize=10)
        ax.grid(True, alpha=0.3, which="both")
    axes[0].set_ylabel("predicted speedup (×, log scale)")
    axes[-1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8.5, frameon=False,
                    title="GPU (kernel)\nsolid flashio, dotted FA1", title_fontsize=8.5)
    fig.suptitle("Sweeping one GPU figure from ¼× to 4× with the others fixed (big dots: the real GPU; "
                 "fwd+bwd, N=1k, d=64)", fontsize=11)
    fig.tight_layout()
    _finish(fig, path)


def time_shares(explained: list["Explanation"], path: Path) -> None:
    """Stacked bars: where the time of standard attention and of the flash kernel goes, per GPU."""
    parts = (("memory", "DRAM traffic", "#1f77b4"), ("tensor", "tensor-core matmuls", "#2ca02c"),
             ("non-matmul", "exp / FP32", "#ff7f0e"), ("overhead", "launch / scheduling", "#c7c7c7"))
    fig, axes = plt.subplots(1, 2, figsize=(13, 0.34 * len(explained) + 1.8), sharey=True)
    names = [e.gpu + ("" if GPUS[e.gpu].checked else " †") for e in explained]
    for ax, attr, title in zip(axes, ("standard_shares", "flash_shares"),
                               ("standard attention", "flash kernel (flashio)")):
        left = [0.0] * len(explained)
        for key, label, color in parts:
            widths = [100 * getattr(e, attr)[key] for e in explained]
            ax.barh(names, widths, left=left, color=color, label=label, height=0.7)
            left = [a + b for a, b in zip(left, widths)]
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of the pass's time (%)")
        ax.set_title(title, fontsize=10)
        ax.invert_yaxis()
    axes[1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=9, frameon=False)
    fig.suptitle("Time shares, fwd+bwd, batch 8 × 12 heads, N=1k, d=64, fp16 (model)", fontsize=11)
    fig.tight_layout()
    _finish(fig, path)


# ----------------------------------------------------------------------------------------------------
# IO experiments
# ----------------------------------------------------------------------------------------------------


def block_size(rows: list["BlockSizeRow"], path: Path) -> None:
    """Figure 2 (middle) in kind: HBM accesses and runtime versus block size at GPT-2 medium."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2))
    blocks = [r.block_cols for r in rows]
    left.plot(blocks, [r.analytic_gb for r in rows], "o-", color="#1f77b4", label="analytic count")
    left.plot(blocks, [r.simulated_gb for r in rows], "x", color="black", markersize=9,
              label="SRAM simulator (1 head × 1024)")
    ideal = [rows[0].analytic_gb * blocks[0] / b for b in blocks]
    left.plot(blocks, ideal, ":", color="grey", label="∝ 1/B_c")
    left.set_ylabel("HBM accesses past the SRAM (GB)")
    left.set_title("accesses fall as the block grows", fontsize=10)
    gpus = list(rows[0].runtime_ms)
    for slug in gpus:
        right.plot(blocks, [r.runtime_ms[slug] for r in rows], marker=gpu_marker(slug), color=gpu_color(slug),
                   label=gpu_label(GPUS[slug]))
    right.set_ylabel("predicted forward runtime (ms)")
    _plain_log_axis(right, "y")
    right.set_title("runtime follows until compute-bound (L2 absorbs re-reads on big GPUs)", fontsize=10)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(blocks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(v)}"))
        ax.set_xlabel("block size B_c (keys per block; B_r = 64)")
        ax.grid(True, alpha=0.3, which="both")
        ax.legend(fontsize=8.5)
    fig.suptitle("Block size at GPT-2 medium (batch 64, 16 heads, N=1024, d=64, fp16), FA1 forward — the "
                 "paper's Figure 2 (middle)", fontsize=11)
    fig.tight_layout()
    _finish(fig, path)


def theorem2(rows: list["AccessesVsN"], grid, path: Path) -> None:
    """Theorem 2: accesses versus N for three SRAM sizes, and accesses / (N²d²/M) over M and d."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 4.4))
    sizes = sorted({r.sram_kib for r in rows})
    colors = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
    for color, kib in zip(colors, sizes):
        part = [r for r in rows if r.sram_kib == kib]
        ns = [r.seqlen for r in part]
        left.plot(ns, [r.flash_accesses for r in part], "o-", color=color, markersize=4,
                  label=f"FlashAttention, M = {kib} KiB")
        ratio = part[-1].flash_accesses / part[-1].n2d2_over_m
        left.plot(ns, [ratio * r.n2d2_over_m for r in part], ":", color=color, linewidth=1)
        simulated = [(r.seqlen, r.simulated_accesses) for r in part if r.simulated_accesses is not None]
        if simulated:
            left.plot(*zip(*simulated), "x", color="black", markersize=8)
    standard = [r for r in rows if r.sram_kib == sizes[0]]
    left.plot([r.seqlen for r in standard], [r.standard_accesses for r in standard], "s-", color="#7f7f7f",
              markersize=4, label="standard attention Θ(Nd + N²)")
    left.plot([], [], "x", color="black", label="SRAM simulator (same count)")
    left.plot([], [], ":", color="grey", label="c · N²d²/M")
    _seqlen_axis(left, [r.seqlen for r in standard])
    left.set_yscale("log")
    left.set_ylabel("HBM accesses per head, forward (elements)")
    left.set_title("d = 64: accesses beyond the compulsory 4Nd grow as N²d²/M", fontsize=10)
    left.legend(fontsize=8)
    left.grid(True, alpha=0.3, which="both")
    head_dims = sorted({p.head_dim for p in grid})
    for color, d in zip(colors, head_dims):
        part = sorted((p for p in grid if p.head_dim == d), key=lambda p: p.sram_bytes)
        right.plot([p.sram_bytes / 1024 for p in part], [p.accesses / p.n2d2_over_m for p in part], "o-",
                   color=color, label=f"d = {d}")
    right.set_xscale("log", base=2)
    right.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    right.set_ylim(0, None)
    right.set_xlabel("SRAM size M (KiB)")
    right.set_ylabel("accesses ÷ (N²d²/M)")
    right.set_title("N = 4096: the ratio stays constant over M and d", fontsize=10)
    right.legend(fontsize=8.5)
    right.grid(True, alpha=0.3, which="both")
    fig.suptitle("Theorem 2: FlashAttention makes Θ(N²d²/M) HBM accesses (FA1 forward, analytic counts)",
                 fontsize=11)
    fig.tight_layout()
    _finish(fig, path)


# ----------------------------------------------------------------------------------------------------
# Measured versus predicted (GPU branch)
# ----------------------------------------------------------------------------------------------------


def measured_vs_predicted(points: list["ComparedPoint"], path: Path, metric: str, gpu_title: str) -> None:
    """Measured (solid) and predicted (dashed) speedup or TFLOP/s versus N, one panel per mode × shape."""
    if metric not in ("speedup", "tflops"):
        raise ValueError(f"metric must be speedup or tflops, got {metric!r}")
    modes = [m for m in ("fwd", "bwd", "fwdbwd") if any(p.mode == m for p in points)]
    shapes = sorted({p.shape_key for p in points}, key=lambda k: (k[0], k[1], k[2], k[3]))
    fig, axes = plt.subplots(len(modes), len(shapes), figsize=(4.6 * len(shapes) + 1.5, 3.6 * len(modes)),
                             squeeze=False)
    handles: dict[str, object] = {}
    for i, mode in enumerate(modes):
        for j, shape in enumerate(shapes):
            ax = axes[i, j]
            part = [p for p in points if p.mode == mode and p.shape_key == shape]
            systems = list(dict.fromkeys(p.system for p in part))
            if metric == "speedup":
                systems = [s for s in systems if s != "standard"]
            predicted_series: dict[tuple, list[str]] = {}  # identical predictions drawn once
            for system in systems:
                mine = sorted((p for p in part if p.system == system and p.measured(metric) is not None),
                              key=lambda p: p.seqlen)
                if not mine:
                    continue
                color = SYSTEM_COLORS.get(system, "black")
                (line,) = ax.plot([p.seqlen for p in mine], [p.measured(metric) for p in mine], "o-", color=color,
                                  markersize=4, label=f"{system} measured")
                handles.setdefault(line.get_label(), line)
                series = tuple((p.seqlen, round(p.predicted(metric), 9)) for p in mine if p.predicted(metric) is not None)
                if series:
                    predicted_series.setdefault(series, []).append(system)
            for series, owners in predicted_series.items():
                color = SYSTEM_COLORS.get(owners[0], "black") if len(owners) == 1 else "black"
                (line,) = ax.plot([n for n, _ in series], [v for _, v in series], "--", color=color, linewidth=1.4,
                                  label=" = ".join(owners) + " predicted")
                handles.setdefault(line.get_label(), line)
            seqlens = sorted({p.seqlen for p in part})
            if seqlens:
                _seqlen_axis(ax, seqlens)
            ax.set_title(f"{mode} · {_shape_title(shape)}", fontsize=9.5)
            ax.grid(True, alpha=0.3)
            ax.set_ylim(bottom=0)
            if j == 0:
                ax.set_ylabel("speedup over standard (×)" if metric == "speedup" else "TFLOP/s (convention)")
    fig.legend(list(handles.values()), list(handles), loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=9,
               frameon=False, title="solid: measured, dashed: model", title_fontsize=9)
    what = "Speedup over standard attention" if metric == "speedup" else "Throughput"
    fig.suptitle(f"{what} on {gpu_title}: measured in this run versus the model's prediction", fontsize=12)
    fig.tight_layout()
    _finish(fig, path)


def _shape_title(shape: tuple) -> str:
    head_dim, causal, variant, dtype = shape
    return f"d={head_dim}{', causal' if causal else ''}{', ' + variant if variant != 'plain' else ''}, {dtype}"
