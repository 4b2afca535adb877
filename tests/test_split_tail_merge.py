"""The split-tail persistent forward's merge (kernels/forward.py ``split_tail_combine_kernel``, run by the interpreter
here): the Gluon kernel cannot run on the CPU, so each piece of a split tile is computed by the reference over the
piece's keys and written where the kernel writes it (slot s of ``launchers.split_tail_partials``' buffer: the tile's
rows of O_j, divided by the piece's own softmax sum, then their LSE_j). The merge must turn those pieces into the
whole attention's O and LSE for the cut tiles' rows, and touch no other row. Float32 throughout: the merge is a few
exponentials and a weighted sum, so its error against the reference is float32 rounding (tolerance 1e-5 on values of
order 1)."""

import torch

from flashio import attention_reference, launchers, schedules
from flashio.configs import TileConfig

# 4 query blocks of 64 rows (200 queries: the last block partial) x 6 head-batches = 24 tiles on 9 programs: 2 whole
# rounds, then 6 tiles of 5 key blocks of 32 keys (150 keys: the last block partial), each cut in two (4 + 1 blocks,
# then 1 + 4: runs of 4 blocks in one tile and of 1 + 1 across two).
BATCH, HEADS, SEQLEN_Q, SEQLEN_K, HEAD_DIM = 2, 3, 200, 150, 64
CONFIG = TileConfig(64, 32, 4, 3, "gluon", pipelined=True, persistent=True, split_tail=True)
PROGRAMS = 9


def _problem_and_inputs(seed: int):
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(BATCH, HEADS, SEQLEN_Q, HEAD_DIM, generator=generator)
    k = torch.randn(BATCH, HEADS, SEQLEN_K, HEAD_DIM, generator=generator)
    v = torch.randn(BATCH, HEADS, SEQLEN_K, HEAD_DIM, generator=generator)
    return launchers.describe(q, k, "bhnd", None), q, k, v


def _write_pieces_as_the_kernel_would(partials: torch.Tensor, schedule, q, k, v) -> set:
    """Each piece's O_j and LSE_j from the reference over its key blocks, into its slot; returns the cut tiles."""
    query_blocks = -(-SEQLEN_Q // CONFIG.block_m)
    cut = set()
    for tile, (first, end, slot) in zip(schedule.tiles, schedule.pieces):
        if slot < 0:
            continue
        cut.add(tile)
        block, head_batch = tile % query_blocks, tile // query_blocks
        head, batch = head_batch % HEADS, head_batch // HEADS
        rows = slice(block * CONFIG.block_m, min((block + 1) * CONFIG.block_m, SEQLEN_Q))
        keys = slice(first * CONFIG.block_n, min(end * CONFIG.block_n, SEQLEN_K))
        out, lse = attention_reference(q[batch:batch + 1, head:head + 1, rows], k[batch:batch + 1, head:head + 1, keys],
                                       v[batch:batch + 1, head:head + 1, keys], return_lse=True)
        count = out.shape[2]
        piece = partials[slot]
        piece[:CONFIG.block_m * HEAD_DIM].view(CONFIG.block_m, HEAD_DIM)[:count] = out[0, 0]
        piece[CONFIG.block_m * HEAD_DIM:][:count] = lse[0, 0]
        # Rows past the last query: the kernel writes whatever its zero-filled Q rows give; the merge must skip them.
        piece[:CONFIG.block_m * HEAD_DIM].view(CONFIG.block_m, HEAD_DIM)[count:] = 7.0
        piece[CONFIG.block_m * HEAD_DIM:][count:] = 3.0
    return cut


def test_the_merge_turns_each_cut_tiles_pieces_into_the_whole_attention_of_its_rows():
    problem, q, k, v = _problem_and_inputs(seed=0)
    schedule = schedules.split_tail_forward_schedule(4, BATCH * HEADS, PROGRAMS, 5)
    partials, combines = launchers.split_tail_partials(CONFIG, problem, PROGRAMS, torch.device("cpu"))
    cut = _write_pieces_as_the_kernel_would(partials, schedule, q, k, v)
    assert cut == set(range(18, 24)) and combines.numel() == 3 * 6
    out = torch.full((BATCH, HEADS, SEQLEN_Q, HEAD_DIM), float("nan"))
    lse = torch.full((BATCH, HEADS, SEQLEN_Q), float("nan"))
    launchers.combine_split_tail(partials, combines, out, lse, out.stride(), lse.stride(), problem, CONFIG.block_m)
    expected_out, expected_lse = attention_reference(q, k, v, return_lse=True)
    for tile in range(4 * BATCH * HEADS):
        block, head_batch = tile % 4, tile // 4
        head, batch = head_batch % HEADS, head_batch // HEADS
        rows = slice(block * 64, min(block * 64 + 64, SEQLEN_Q))
        if tile in cut:
            torch.testing.assert_close(out[batch, head, rows], expected_out[batch, head, rows], atol=1e-5, rtol=1e-5)
            torch.testing.assert_close(lse[batch, head, rows], expected_lse[batch, head, rows], atol=1e-5, rtol=1e-5)
        else:  # stored by the kernel itself: the merge leaves these rows alone
            assert out[batch, head, rows].isnan().all() and lse[batch, head, rows].isnan().all()


def test_the_merge_gives_rows_that_no_piece_saw_a_key_a_zero_output_and_minus_infinite_lse():
    # One cut tile of two pieces; rows 0-31 saw keys in both pieces, rows 32-63 in neither (LSE_j = -inf, O_j = 0,
    # as the kernel leaves them); with the one-pass merge's rescaling, -inf must not turn into NaN.
    problem = launchers.describe(torch.empty(1, 1, 64, 16), torch.empty(1, 1, 64, 16), "bhnd", None)
    generator = torch.Generator().manual_seed(1)
    partials = torch.zeros(2, 64 * 17)
    outputs = torch.randn(2, 64, 16, generator=generator)
    lses = torch.randn(2, 64, generator=generator)
    lses[:, 32:] = float("-inf")
    outputs[:, 32:] = 0.0
    for slot in range(2):
        partials[slot, :64 * 16] = outputs[slot].flatten()
        partials[slot, 64 * 16:] = lses[slot]
    combines = torch.tensor([0, 0, 2], dtype=torch.int32)  # tile 0, slots 0-1
    out, lse = torch.empty(1, 1, 64, 16), torch.empty(1, 1, 64)
    launchers.combine_split_tail(partials, combines, out, lse, out.stride(), lse.stride(), problem, 64)
    expected_lse = torch.logaddexp(lses[0, :32], lses[1, :32])
    weights = torch.exp(lses[:, :32] - expected_lse)
    torch.testing.assert_close(lse[0, 0, :32], expected_lse, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(out[0, 0, :32], weights[0, :, None] * outputs[0, :32] + weights[1, :, None] *
                               outputs[1, :32], atol=1e-6, rtol=1e-6)
    assert (out[0, 0, 32:] == 0).all() and (lse[0, 0, 32:] == float("-inf")).all()


def test_the_merge_writes_the_outputs_precision():
    # A bfloat16 output gets the merged float32 rows converted once, as the kernel's own tiles are: within one
    # bfloat16 step (2^-7 relative; the CPU interpreter's conversion truncates where the GPU's rounds to nearest).
    problem, q, k, v = _problem_and_inputs(seed=2)
    schedule = schedules.split_tail_forward_schedule(4, BATCH * HEADS, PROGRAMS, 5)
    partials, combines = launchers.split_tail_partials(CONFIG, problem, PROGRAMS, torch.device("cpu"))
    cut = _write_pieces_as_the_kernel_would(partials, schedule, q, k, v)
    out32 = torch.zeros(BATCH, HEADS, SEQLEN_Q, HEAD_DIM)
    out16 = torch.zeros(BATCH, HEADS, SEQLEN_Q, HEAD_DIM, dtype=torch.bfloat16)
    lse = torch.zeros(BATCH, HEADS, SEQLEN_Q)
    for out in (out32, out16):
        launchers.combine_split_tail(partials, combines, out, lse, out.stride(), lse.stride(), problem,
                                     CONFIG.block_m)
    assert cut and out16.dtype == torch.bfloat16
    torch.testing.assert_close(out16.float(), out32, rtol=2 ** -7, atol=1e-6)


def test_a_tail_that_cuts_no_tile_gets_one_unwritten_slot_and_no_merge():
    # One key block per tile (64 keys, 64-key blocks): 7 tiles on 4 programs leave 3 in the tail, each a run of its
    # own, so none is cut; the kernel still takes a buffer (one slot, never written), and the merge launches nothing.
    config = TileConfig(64, 64, 4, 3, "gluon", pipelined=True, persistent=True, split_tail=True)
    problem = launchers.describe(torch.empty(1, 7, 64, 16), torch.empty(1, 7, 64, 16), "bhnd", None)
    partials, combines = launchers.split_tail_partials(config, problem, 4, torch.device("cpu"))
    assert partials.shape == (1, 64 * 17) and combines.numel() == 0
    out, lse = torch.full((1, 7, 64, 16), 5.0), torch.full((1, 7, 64), 5.0)
    launchers.combine_split_tail(partials, combines, out, lse, out.stride(), lse.stride(), problem, 64)
    assert (out == 5.0).all() and (lse == 5.0).all()


def test_the_merge_cost_probe_plans_the_slots_the_launcher_allocates():
    # benchmarks/experiments/forward_short/merge_cost.py times the merge on the grid's shapes; its plan must be the
    # launcher's: the grid's d=128 1k (16 x 16 heads) on 132 programs, 68 cut tiles in 170 slots.
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "experiments" / "forward_short" / "merge_cost.py"
    spec = importlib.util.spec_from_file_location("merge_cost", path)
    merge_cost = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(merge_cost)
    shape = merge_cost.plan(128, 1024, 132)
    problem = launchers.describe(torch.empty(16, 16, 1024, 128), torch.empty(16, 16, 1024, 128), "bhnd", None)
    partials, combines = launchers.split_tail_partials(merge_cost.tuned_split_form(128), problem, 132,
                                                       torch.device("cpu"))
    assert (shape["cut_tiles"], shape["pieces"]) == (combines.numel() // 3, partials.shape[0]) == (68, 170)
