"""Predicted speedups of FlashAttention over standard attention on every GPU of the database.

The setups are the FlashAttention paper's speedup charts (forward + backward, fp16, 12 heads):
batch 8 at d = 64 and batch 16 at d = 128 (its A100 charts), each plain and with dropout (p = 0.1) plus
a key-padding mask, for sequence lengths 128 … 16k (the paper stopped at 2k–4k; the rest extends it).
Two kernels: ``flashio`` (this project's kernels, the FlashAttention-2 design) and ``fa1`` (the paper's
Algorithm 1, whose numbers the seed's comparison quotes; at d = 64 only). Pure model: no GPU, ~10 ms per prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashio.model.gpus import GPUS, GPUSpec
from flashio.model.timing import Prediction, Workload, predict

SEQLENS = (128, 256, 512, 1024, 2048, 4096, 8192, 16384)
PAPER_SEQLENS = (128, 256, 512, 1024, 2048, 4096)  # the range of the paper's speedup charts
HEADS = 12
DTYPE = "fp16"
PASS = "fwdbwd"
KERNEL_LABELS = {"flashio": "flashio kernels (FlashAttention-2 design)", "fa1": "FA1 (paper's Algorithm 1)"}


@dataclass(frozen=True)
class Setup:
    """One chart of the paper: batch × 12 heads × head_dim, plain or with dropout + key padding."""

    batch: int
    head_dim: int
    dropout_p: float = 0.0
    padding_mask: bool = False

    @property
    def variant(self) -> str:
        return "dropout+mask" if self.dropout_p > 0 or self.padding_mask else "plain"

    @property
    def label(self) -> str:
        return f"batch {self.batch} × {HEADS} heads, d={self.head_dim}, {self.variant}"

    def workload(self, seqlen: int, batch: int | None = None) -> Workload:
        return Workload(batch or self.batch, HEADS, seqlen, self.head_dim, causal=False,
                        dropout_p=self.dropout_p, padding_mask=self.padding_mask, dtype=DTYPE)


SETUPS = (
    Setup(8, 64), Setup(16, 128),
    Setup(8, 64, dropout_p=0.1, padding_mask=True), Setup(16, 128, dropout_p=0.1, padding_mask=True),
)
KERNELS = ("flashio", "fa1")
FA1_HEAD_DIM = 64

# The seed's comparison: the paper's charts per GPU (batch at d = 64) and the seed's summary of them.
SEED_COMPARISON = (
    ("a100-40gb", 8, "about 2–4×"),
    ("rtx3090", 12, "up to 4.5×"),
    ("t4", 12, "clearly lower than A100"),
)


@dataclass(frozen=True)
class SpeedupRow:
    """One prediction, flattened for tables and CSV."""

    gpu: str
    gpu_name: str
    checked: bool
    kernel: str
    setup: Setup
    prediction: Prediction

    @property
    def seqlen(self) -> int:
        return self.prediction.workload.seqlen

    @property
    def speedup(self) -> float:
        return self.prediction.speedup

    def to_dict(self) -> dict:
        """The prediction's figures without the per-kernel lists (the CSV/JSON row)."""
        data = {"gpu": self.gpu, "gpu_name": self.gpu_name, "figures_checked": self.checked,
                "setup": self.setup.label, "variant": self.setup.variant}
        for key, value in self.prediction.to_dict().items():
            if key in ("standard_kernels", "flash_kernels", "gpu"):
                continue
            if isinstance(value, dict):
                data.update({f"{key[:-len('_time_shares')]}_share_{k}": v for k, v in value.items()})
            else:
                data[key] = value
        return data


def gpu_label(spec: GPUSpec) -> str:
    """The GPU's full name, with a dagger when its figures were not re-checked against a datasheet."""
    return spec.full_name + ("" if spec.checked else " †")


def speedup_grid(gpus: list[GPUSpec] | None = None, setups=SETUPS, kernels=KERNELS,
                 seqlens=SEQLENS) -> list[SpeedupRow]:
    """Predictions for every GPU × setup × kernel × sequence length (forward + backward); the FA1
    algorithm only at d = 64, the head dimension of the paper's charts that the seed quotes."""
    rows = []
    for spec in gpus if gpus is not None else list(GPUS.values()):
        for setup in setups:
            for kernel in kernels:
                if kernel == "fa1" and setup.head_dim != FA1_HEAD_DIM:
                    continue
                for seqlen in seqlens:
                    prediction = predict(spec, setup.workload(seqlen), PASS, kernel)
                    rows.append(SpeedupRow(spec.name, spec.full_name, spec.checked, kernel, setup, prediction))
    return rows


def select(rows: list[SpeedupRow], kernel: str, setup: Setup) -> dict[str, dict[int, float]]:
    """{gpu slug: {seqlen: speedup}} for one kernel and setup, in database order."""
    table: dict[str, dict[int, float]] = {}
    for row in rows:
        if row.kernel == kernel and row.setup == setup:
            table.setdefault(row.gpu, {})[row.seqlen] = row.speedup
    return table


@dataclass(frozen=True)
class SeedComparisonRow:
    gpu: str
    batch: int
    published: str
    plain_fa1: tuple[float, float]  # (min, max) over PAPER_SEQLENS
    masked_fa1: tuple[float, float]
    plain_flashio: tuple[float, float]


def seed_comparison() -> list[SeedComparisonRow]:
    """The seed's comparison (A100, RTX 3090, T4 at the paper's chart batch, d = 64, N = 128 … 4k)."""
    result = []
    for slug, batch, published in SEED_COMPARISON:
        spec = GPUS[slug]

        def span(kernel: str, setup: Setup) -> tuple[float, float]:
            values = [predict(spec, setup.workload(n, batch), PASS, kernel).speedup for n in PAPER_SEQLENS]
            return min(values), max(values)

        result.append(SeedComparisonRow(slug, batch, published, span("fa1", SETUPS[0]), span("fa1", SETUPS[2]),
                                        span("flashio", SETUPS[0])))
    return result


def seed_verdicts(rows: list[SeedComparisonRow]) -> list[str]:
    """Plain sentences comparing the model's FA1 numbers with the seed's summary."""
    by_gpu = {row.gpu: row for row in rows}
    sentences = []
    a100 = by_gpu.get("a100-40gb")
    if a100:
        low, high = a100.plain_fa1
        where = "inside" if low >= 2.0 and high <= 4.0 else "overlapping" if low <= 4.0 and high >= 2.0 else "outside"
        sentences.append(f"**A100**: the model gives {low:.1f}–{high:.1f}× (FA1, plain), {where} the published "
                         f"2–4× band.")
    rtx = by_gpu.get("rtx3090")
    if rtx:
        peak = max(rtx.plain_fa1[1], rtx.masked_fa1[1])
        relation = "close to" if abs(peak / 4.5 - 1) <= 0.2 else "below" if peak < 4.5 else "above"
        sentences.append(f"**RTX 3090**: at most {peak:.1f}× (FA1, with dropout and masking), {relation} the "
                         f"published \"up to 4.5×\".")
    t4 = by_gpu.get("t4")
    if t4 and a100:
        t4_peak, a100_peak = t4.plain_fa1[1], a100.plain_fa1[1]
        agrees = t4_peak < a100_peak
        sentences.append(f"**T4**: at most {t4_peak:.1f}× (FA1, plain) against the A100's {a100_peak:.1f}×: "
                         + ("lower, as published." if agrees else
                            "not lower — the model disagrees with the published result here (see "
                            "docs/model.md: the T4's power-limited clocks are not in its specifications)."))
    return sentences
