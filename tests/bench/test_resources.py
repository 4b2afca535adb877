"""What the compiler makes of the Hopper kernels, checked without a GPU (flashio.bench.resources): the
kernels are compiled by Triton for sm_90a on the CPU and their cubins read back. These are the properties
the v0.5 speed work rests on (benchmarks/PERFORMANCE.md, item 6): a change that makes the shipped tiles
spill or fall off the warpgroup MMA shows up here, before anyone times it on an H200.

The compiler runs in a subprocess because this suite runs under TRITON_INTERPRET=1, where ``@triton.jit``
functions are interpreted and cannot be compiled."""

import json

import pytest

from flashio import configs

from .hopper_compiler import requires_nvidia_tools, run_without_interpreter

pytestmark = requires_nvidia_tools


def _measure(match: str) -> list[dict]:
    # Two compiling processes (v0.52): the Gluon forward's ~150 rows took ~17 minutes in one, beside the suite's other
    # worker, on the 2-core sandbox; once that worker is done, the second core compiles too.
    done = run_without_interpreter(["-m", "flashio.bench.resources", "--match", match, "--json", "--processes", "2"])
    rows = json.loads(done.stdout)
    assert rows, f"no configuration matched {match!r}"
    return rows


def assert_one_12_warp_program_on_warpgroup_mmas(row: dict, warps: int = 12) -> None:
    """A Hopper kernel of three warpgroups (MMA or consumer warpgroups plus loader/worker warps, padded;
    ``warps`` = 16 for four): compiled, that many warps, one program per multiprocessor, warpgroup MMAs only,
    within the 227 KB of shared memory a program may take."""
    assert "error" not in row, row
    assert row["num_warps"] == warps and row["programs_per_sm"] == 1, row
    assert row["HGMMA"] > 0 and row.get("HMMA", 0) == 0 and row["shared_kb"] <= 227, row


@pytest.fixture(scope="module")
def forward_d128():
    return _measure("forward tma d=128")


@pytest.fixture(scope="module")
def two_pass_d256():
    return _measure("pass d=256")


def test_tensor_descriptor_forward_at_d128_uses_warpgroup_mma_without_spills(forward_d128):
    for row in forward_d128:
        assert "error" not in row, row
        assert row["HGMMA"] > 0 and row.get("HMMA", 0) == 0, row
        assert row["stack"] == 0, row


def test_descriptor_forward_64x64_tile_keeps_its_warpgroup_mmas_pipelined_where_the_portable_one_does_not():
    # v0.20: the portable kernel's 64x64 tile at d=64 (the tuner's choice at d=64 causal 1k, 0.91x cuDNN) has
    # every warpgroup MMA closing its own group: ptxas warning C7515 ("non wgmma instructions defining
    # accumulator registers ... between start and end of the pipeline stage"), with 2-3 software pipeline
    # stages of its loads. The descriptor kernel's tile of the same shape issues each product's k-steps back
    # to back and fits three programs per multiprocessor (58 KB).
    rows = {row["label"]: row for row in _measure("64x64 causal d=64")}
    portable, descriptor = rows["forward pointer 64x64 causal d=64"], rows["forward tma 64x64 causal d=64"]
    assert "error" not in portable and portable["HGMMA"] == portable["HGMMA_groups"], portable
    assert "error" not in descriptor and descriptor["HGMMA"] >= 4 * descriptor["HGMMA_groups"], descriptor
    assert descriptor["stack"] == 0 and descriptor["programs_per_sm"] >= 3, descriptor


def test_register_capped_forward_tile_fits_two_programs_per_multiprocessor(forward_d128):
    capped = [row for row in forward_d128 if row["max_registers"] == 128]
    assert capped
    for row in capped:
        assert row["registers"] <= 128 and row["programs_per_sm"] >= 2, row


def test_two_pass_dkdv_tiles_at_d256_use_warpgroup_mma_and_barely_spill(two_pass_d256):
    # A few dozen bytes of stack are register-allocation slack, not a spilling loop; the one-pass 64x64
    # tile these replace spilled 704 bytes per thread.
    for row in two_pass_d256:
        assert "error" not in row, row
        assert row["HGMMA"] > 0 and row.get("HMMA", 0) == 0, row
        assert row["stack"] <= 64, row


@pytest.fixture(scope="module")
def fused_backward():
    return _measure("backward fused gluon")


def test_fused_backward_tiles_at_d64_fit_without_spills_two_programs_per_multiprocessor(fused_backward):
    # The two-programs-per-SM overlap is what made the 64x64 tiles the fastest on the H200 (configs.py).
    tuned = [row for row in fused_backward if row["label"] == "backward fused gluon d=64" and row["num_warps"] == 4]
    assert len(tuned) == 2
    for row in tuned:
        assert "error" not in row, row
        assert row["HGMMA"] > 0 and row.get("HMMA", 0) == 0, row
        assert row["stack"] == 0 and row["programs_per_sm"] == 2, row


def test_fused_backward_forced_tile_at_d128_compiles_to_warpgroup_mma(fused_backward):
    # The non-specialised d=128 tile (forced only: "other tiles" in flashio.check) spills a little (64 B per
    # thread, v0.8).
    rows = [row for row in fused_backward if row["label"] == "backward fused gluon d=128"]
    assert rows
    for row in rows:
        assert "error" not in row, row
        assert row["HGMMA"] > 0 and row.get("HMMA", 0) == 0 and row["shared_kb"] <= 227, row


def test_warp_specialised_fused_backward_runs_a_loader_and_a_dq_warp_beside_the_mma_warps(fused_backward):
    # 8 MMA warps + the two one-warp workers, padded to a warpgroup: 12 warps, one program per SM. The MMA
    # warps get 240 registers (setmaxnreg); 88 B of stack per thread at d=128 (v0.9: address registers of
    # the LSE/D loads, reloaded once per query block), none at d=64.
    rows = [row for row in fused_backward if row["label"].startswith("backward fused gluon ws d=")]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] <= (96 if row["label"].endswith("d=128") else 0), row


def test_fused_backward_tiles_with_k_and_v_in_registers_fit_at_d64_without_spills(fused_backward):
    # The option costs 16-32 registers per thread (v0.9: 222 instead of 208 for the 64x64 tile); the 64x64
    # tile must keep its two programs per multiprocessor, or the option loses what made that tile fastest.
    rows = [row for row in fused_backward if "kv-regs" in row["label"] and "persistent" not in row["label"]
            and "stats-smem" not in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert "error" not in row, row
        assert row["HGMMA"] > 0 and row["stack"] == 0, row
        assert row["programs_per_sm"] == (2 if row["num_warps"] == 4 else 1), row


def test_persistent_fused_backward_keeps_the_specialised_kernels_resources(fused_backward):
    # The persistent form adds one barrier and the loop over work units to the specialised kernel: the
    # same 12 warps and shared memory (one program per SM is what its grid assumes); its stack grows a
    # little (v0.12: 120 B at d=128 against 88, 32 B at d=64 against none; reloads once per key block).
    rows = [row for row in fused_backward if " ws persistent" in row["label"] and "stats-smem" not in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] <= (128 if row["label"].endswith("d=128") else 32), row


def test_specialised_fused_backward_with_lse_and_d_in_shared_memory_does_not_spill(fused_backward):
    # The option exists to take the LSE/D rows out of the MMA warps' registers across the score products:
    # at d=128 the register form spills 88 B per thread (the rows of the next block, reloaded from local
    # memory in the loop: ncu counted 118 M local-memory requests at N=16k, v0.12); with the rows in shared
    # memory nothing spills, at 1 KB more shared memory per program.
    rows = [row for row in fused_backward if "stats-smem" in row["label"] and "persistent" not in row["label"]
            and "slots" not in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] == 0, row


def test_persistent_fused_backward_with_lse_and_d_in_shared_memory_keeps_its_block_loop_off_the_stack(
        fused_backward):
    # The persistent form's loop state over work units (and the one-warp loader's) still takes a few stack
    # slots, per tile rather than per block: SASS read in v0.12 found 48-72 B per thread and no local-memory
    # access inside the block loop, against 120 B for its register form. v0.18: the causal compile taking its
    # key blocks from a balanced tile list (LISTED) keeps 24 B (the round-robin causal compile: 48 B).
    rows = [row for row in fused_backward if "ws persistent stats-smem" in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] <= 72, row


def test_tuned_d64_fused_backward_with_two_ds_tiles_and_three_or_four_slots_does_not_spill(fused_backward):
    # The tuned d=64 forms (v0.19, v0.20): a second dS^T tile (8 KB at d=64) and a third (and fourth) Q/dO slot
    # (16 KB each) on the persistent listed kernel; 147 / 163 KB of shared memory, and the loop state stays in
    # registers (0 B of stack).
    rows = [row for row in fused_backward if " ds2 " in row["label"]]
    assert sorted(row["num_stages"] for row in rows) == [3, 4]
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] == 0, row


def test_tuned_d128_persistent_fused_backward_with_three_slots_and_one_dq_tile_fits(fused_backward):
    # v0.20's tuned d=128 persistent form: the third Q/dO slot (32 KB) paid for by one dQ tile instead of two;
    # 211 KB of shared memory. Its stack is the persistent loops' state as in the two-slot form (CPU compile at
    # v0.20: 64 B non-causal, 24 B causal listed), not the block loop's.
    rows = [row for row in fused_backward if "3 slots one dQ tile" in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["num_stages"] == 3 and row["stack"] <= 72, row


def test_row_split_fused_backward_gives_its_two_mma_partitions_240_registers_without_block_loop_spills(
        fused_backward):
    # kernels/backward_gluon_rows.py (v0.19, prepared): two 4-warp MMA partitions (240 registers per thread by
    # setmaxnreg, against 168 for the 8-warp partition), a loader and a reducer warp: 12 warps, one program per
    # SM, 227 KB at most. Its stack (80-112 B) is the persistent loops' state in the 24-register loader and the
    # per-tile code; the SASS read at v0.19 found no local-memory access between the block loop's warpgroup
    # MMAs non-causal and one reload causal. Run in v0.20: correct, 0-3% slower than the tuned d=128 form (ncu at
    # causal 1k: 339 k local-memory requests against 11 k), so a measured form, not a candidate.
    rows = [row for row in fused_backward if "rows on two partitions" in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] <= 112 and row["MUFU.EX2"] > 0, row


def test_a_late_key_gradient_wait_leaves_the_tensor_cores_busy_across_the_block_boundary(fused_backward):
    # v0.22 (prepared): the tuned d=64 tile drains its MMAs (a wait for every group in flight) right before its
    # loop's back edge; with late_key_gradient_wait that wait moves after the loop, and nothing else changes:
    # registers, stack and shared memory as the tuned forms (three or four slots).
    late = [row for row in fused_backward if "late dK/dV wait" in row["label"]]
    tuned = {row["label"].replace("ws persistent ds2", ""): row for row in fused_backward
             if "ws persistent ds2" in row["label"]}
    assert len(late) == 4 and len(tuned) == 2
    for row in late:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row.get("MMA_drains_at_back_edges", 0) == 0, row
        assert row["registers"] == 168 and row["stack"] <= 64, row
    for row in tuned.values():  # the measure itself: the tuned causal forms do drain there
        assert row["MMA_drains_at_back_edges"] == 1, row
    for row in late:
        if "causal" in row["label"]:
            match = next(t for t in tuned.values() if t["num_stages"] == row["num_stages"])
            assert (row["registers"], row["stack"], row["shared_kb"]) == \
                (match["registers"], match["stack"], match["shared_kb"]), (row, match)


def test_no_fused_backward_form_has_its_warpgroup_mmas_serialised(fused_backward):
    # Each product of the fused backwards takes 4-8 k-steps of 16; issued back to back they close one group
    # (gsb0) per product. When ptxas lacks registers for the pipeline it closes a group at every k-step and
    # waits for it (warning C7512): v0.20's alternating kernel at d=128 with dQ in one 64 x 128 product did.
    for row in fused_backward:
        assert "error" not in row, row
        assert row["HGMMA"] >= 4 * row["HGMMA_groups"], row


def test_role_split_fused_backward_at_d256_fits_one_program_per_multiprocessor_without_spills(fused_backward):
    # Two MMA warpgroups (one float32 accumulator of 64 x 256 each), a loader warp and two dQ warps, padded to
    # 12 warps; 216 KB of shared memory at the tuned tile (configs.BACKWARD_FUSED_CANDIDATES[256]).
    # The tuned tile (one Q slot) keeps no stack. The two-slot tile (32-column dQ chunks; not a candidate since v0.33)
    # spills one 8-byte word (one store, one load) since v0.34, which holds each block's LSE/D rows a block ahead.
    rows = {row["num_stages"]: row for row in fused_backward if row["label"] == "backward fused gluon split d=256"}
    assert sorted(rows) == [1, 2]
    for row in rows.values():
        assert_one_12_warp_program_on_warpgroup_mmas(row)
    assert rows[1]["stack"] == 0 and "STL" not in rows[1], rows[1]
    assert (rows[2]["stack"], rows[2].get("STL"), rows[2].get("LDL")) == (8, 1, 1), rows[2]


@pytest.fixture(scope="module")
def gluon_forward():
    return _measure("forward gluon")


def test_gluon_forward_tiles_fit_one_program_per_multiprocessor_without_spills(gluon_forward):
    # Two consumer warpgroups and a loader warp (12 warps): the tuned tiles (configs.FORWARD_GLUON_CANDIDATES,
    # plain, pipelined, separate K/V slots, ping-pong; 161-225 KB) and those of flashio.check's forced paths
    # (since v0.15 one storing its output from registers; v0.18 the half diagonal block with ping-pong at
    # d=64 and separate K/V slots at d=128; v0.32 the pipelined d=128 tile storing from registers 16 bytes at a
    # time), except the register-capped ones (below).
    rows = [row for row in gluon_forward if "persistent" not in row["label"] and " r80" not in row["label"]]
    assert len(rows) == 15
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] == 0, row


def test_gluon_forward_forms_issue_their_warpgroup_mma_k_steps_back_to_back(gluon_forward):
    # As for the fused backwards (one closed group per product, 4-10 k-steps each). The exception, read at
    # v0.20: the register-capped pipelined loop (80 registers on entry) has every warpgroup MMA serialised by
    # ptxas, which is why it ran 0-9% behind the capped plain loop in v0.15; it is not a tuning candidate.
    for row in gluon_forward:
        assert "error" not in row, row
        if " r80" in row["label"] and "pipelined" in row["label"]:
            assert row["HGMMA"] == row["HGMMA_groups"], row
        else:
            assert row["HGMMA"] >= 4 * row["HGMMA_groups"], row


def test_register_capped_gluon_forward_fits_two_programs_per_multiprocessor(gluon_forward):
    # d=64 with 64-key blocks at 80 registers per thread on entry (104 per consumer thread after the loader
    # gives its up): two 12-warp programs per multiprocessor (v0.15). The plain loop needs no stack; the
    # pipelined one, holding two blocks' scores, keeps 16 B there (compiled for sm_90a on the CPU); the plain
    # loop storing its output from registers none, 4 or 16 bytes at a time (v0.32).
    rows = [row for row in gluon_forward if " r80" in row["label"]]
    assert len(rows) == 4
    for row in rows:
        assert "error" not in row, row
        assert row["num_warps"] == 12 and row["programs_per_sm"] == 2 and row["registers"] <= 80, row
        assert row["HGMMA"] > 0 and row.get("HMMA", 0) == 0 and 2 * (row["shared_kb"] + 1) <= 228, row
        assert row["stack"] <= (16 if "pipelined" in row["label"] else 0), row


def test_persistent_gluon_forward_fits_one_program_per_multiprocessor_and_barely_spills(gluon_forward):
    # The persistent forms keep the loop-carried tile indices partly on the stack: 32 B in the pipelined
    # d=128 form, 56 B in the d=256 form with separate K/V slots (v0.11 survey; both tuned after the H200
    # probe measured them, 524 and 620 TFLOP/s at N=1k), none in the plain one or at d=64. v0.13's causal
    # work units (a loop over the pairs of query blocks around the loop over tiles) take the d=256 form to
    # 64 B and the d=128 one to 40 B; the v0.13 grid measured both causal forms faster than before (d=256
    # causal 1k 0.92 -> 0.98x cuDNN). With the output stored from registers the stack stays the same; the
    # d=64 form with 64-key blocks (prepared in v0.13) has none non-causal, 8 B causal; the d=128 form with an
    # output buffer of its own fits beside two K/V slots (192 KB). Since v0.14 the d=64 tuned persistent form
    # is the one storing from registers; the one staging through Q stays as a forced form.
    # The 192-row tiles (three consumer warpgroups, v0.14) pad their 13 warps to 16; at 160 registers per
    # consumer thread the causal compile keeps 32 B of stack with the pipelined loop, 8 B with the plain one.
    # Since v0.14 the survey takes every persistent form of flashio.check's forced paths too (ping-pong and
    # separate K/V slots at d=64-256: 8-64 B). v0.15's forms (Q handed back early, two sets of Q buffers, both)
    # keep those bounds; two sets at d=128 take 193 KB beside two K/V slots (the loop across tiles, v0.15-v0.21,
    # was removed in v0.22: slower, and its d=256 form hung on the H200). v0.18's half diagonal block and
    # tile list (LISTED) keep the bounds: 0-32 B at d=64 and d=128, 48 B at d=256; Q in registers (v0.18,
    # prepared) none at d=64, 8 B at d=128 causal. v0.25's tuned forms with ping-pong turns (prepared): none at
    # d=64, 32 B at d=128 causal. v0.31's tuned forms with 16-byte output stores (prepared): the same bounds.
    # v0.36's dynamic tile list (d=128's tuned form, so also the forced paths built on the tuned forms, and the
    # path "dynamic tile list" at d=64): none. v0.37's d=256 form with it (prepared): within the bounds. v0.38's split
    # tail (prepared): the three forms of its path compiled non-causal with the split list, and the same three forms'
    # non-causal round-robin compile (below): within the bounds. v0.39's non-causal claims (d=64's and d=128's tuned
    # forms, so every forced form built on them): those forms' non-causal compiles with the dynamic list, 8 of them.
    # v0.42's path "Q in registers at d=128" (the tuned forms with q_in_registers; d=64's tuned form has it): d=128's,
    # causal and non-causal, no stack. v0.45: d=256's persistent form storing its output from registers 16 bytes at a
    # time (its fourth candidate; causal 56 B, its 4-byte twin 24 B), the same claiming its tiles (causal 24 B,
    # non-causal none), d=128's tuned form with separate K/V slots (225 KB, no stack; d=128's sixth candidate, Q in
    # registers, is v0.42's path form). v0.46: the tuned persistent forms with host-made descriptors (four candidates
    # with Q, K and V through them, both check paths' forms with Q alone and d=256's staged form with all three): 13
    # compiles, within the bounds (below, against their twins). v0.48: d=64's seventh candidate (three consumers, host
    # descriptors, claims), causal and non-causal: 2 compiles. v0.49: the forms with their masked key blocks through the
    # unmasked step's code (two candidates, d=64's and d=128's host-descriptor forms with mask_by_branch, and the forms
    # of its two check paths: d=256's host-descriptor form and d=64's three-consumer form with it), causal and
    # non-causal: 7 compiles (d=64's three-consumer form with it: 40 B of stack causal, against 8 B without); the
    # host-descriptor forms of the path with mask_every_block instead: 5 more. v0.50: the forms of the two overlapped-tile
    # check paths (d=64's two-consumer host form without Q in registers and its three-consumer form, d=128's form 6 and
    # ninth candidate, each with overlap_tiles), causal and non-causal: 8 more. v0.51: the forms of the two
    # published-coordinate check paths (d=64's two-consumer host form and three-consumer form, d=128's form 6 and ninth
    # candidate, each with published_coordinates; the last two the candidates since v0.51 call 1, so that d=64's
    # three-consumer path form with masks by branch has it too, and the survey adds each such candidate's twin without
    # it), causal and non-causal: 10 more. v0.52: d=64's eighth and ninth candidates (four consumer warpgroups, 256-row
    # tiles of 64-key blocks; the ninth with masks by branch: 8 B of stack causal) and their twins without published
    # coordinates, causal and non-causal: 8 more, 17 warps padded to 20. v0.53: the forms of the two row-sum check
    # paths (d=64's three-consumer candidate and its four-consumer mask-by-branch one with row_sum_mma), causal and
    # non-causal: 4 more. v0.54: those paths' d=128 forms with row_sum_mma too (form 6 and the ninth candidate): 4 more;
    # the ninth d=128 candidate without its half diagonal block, whose twin without published coordinates is no longer
    # the host-descriptor branch path's d=128 form: 2 more.
    rows = [row for row in gluon_forward if "persistent" in row["label"]]
    assert len(rows) == 123
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row, {192: 16, 256: 20}.get(row["block_m"], 12))
        assert row["stack"] <= 64, row


def test_sixteen_byte_output_stores_replace_the_four_byte_ones_without_shared_memory_or_registers(gluon_forward):
    # The tuned d=64 and d=128 persistent forms (wide_stores since v0.32; prepared in v0.31) and, prepared in
    # v0.32, the one-tile-per-program forms storing from registers (d=64 at 80 registers, d=128 pipelined),
    # each against the same form with 4-byte stores. Each consumer thread holds
    # HEAD_DIM / 4 output words of 4 bytes; exchanged between the four lanes of a row (warp shuffles), they go
    # out as HEAD_DIM / 16 stores of 16 bytes. Per kernel (two consumer copies of the code): every 4-byte output
    # store gone, the LSE rows' 4 left, and no more shared memory, registers or warpgroup MMAs than the 4-byte
    # form. Compiled causal (the surveyed forms take the tile list): the d=128 persistent form's stack 8 -> 32 B,
    # reloaded per tile, not in the key loop (read from the SASS on the CPU); the others' stacks stay empty.
    # v0.36: d=128's tuned form and one forced form at d=64 have the dynamic tile list too, compared with the same
    # static form with 4-byte stores; the list adds the claim counters' two resets (4-byte stores) and its entry slots
    # (at most 64 bytes of shared memory with their alignment). v0.39's non-causal claims change only the non-causal
    # compiles: these causal ones are compared as before, whether or not the forms have them. v0.42: d=128's tuned form
    # with Q in registers (a forced path), against v0.18's form with Q in registers and 4-byte stores. v0.45: d=256's
    # persistent form storing from registers (4-byte twin: the form of its path since v0.14); its stack 24 -> 56 B
    # causal. Two v0.45 path forms have no 4-byte twin in the survey (d=256's with claims, d=128's with separate K/V
    # slots): the persistent forms' test bounds them.
    def four_byte_twin(label):
        return label.replace(" nc-claims", "").replace(" wide-out", "").replace(" dynamic", "")

    rows = {row["label"].replace(" nc-claims", ""): row for row in gluon_forward}
    # v0.46's forms with host-made descriptors are compared with their twins without them (below), not here.
    causal_wide = {label: row for label, row in rows.items()
                   if "wide-out" in label and "non-causal" not in label and " host" not in label}
    without_twin = sorted(label for label in causal_wide if four_byte_twin(label) not in rows)
    assert without_twin == ["forward gluon 128x128 w4 s3 persistent pipelined split-kv out-regs half-diag balanced "
                            "wide-out dynamic d=128",
                            "forward gluon 128x64 w4 s2 persistent pipelined split-kv out-regs balanced wide-out "
                            "dynamic d=256"]
    wide = [row for label, row in causal_wide.items() if label not in without_twin]
    assert len(wide) == 7 and sum(" dynamic" in row["label"] for row in wide) == 3
    for row in wide:
        dynamic = " dynamic" in row["label"]
        base = rows[four_byte_twin(row["label"])]
        head_dim = int(row["label"].rsplit("d=", 1)[1])
        counter_resets = 2 if dynamic else 0
        assert row["STG.E.128"] == 2 * head_dim // 16 and base.get("STG.E.128", 0) == 0, (row, base)
        assert base["STG_narrow"] - (row["STG_narrow"] - counter_resets) == 2 * head_dim // 4, (row, base)
        assert row["STG_narrow"] == 4 + counter_resets, (row, base)
        assert (row["registers"], row["HGMMA"]) == (base["registers"], base["HGMMA"]), (row, base)
        assert 0 <= row["shared_kb"] - base["shared_kb"] <= (64 / 1024 if dynamic else 0), (row, base)
        assert row["stack"] <= ((56 if head_dim == 256 else 32) if "persistent" in row["label"] else 0), row



def test_host_made_descriptors_change_only_the_loader_of_the_persistent_gluon_forward(gluon_forward):
    # v0.46: each persistent form with Q (host1), or Q, K and V (host3), through descriptors that the launcher made on
    # the host against the same form without them: the consumers' code is the same (registers, warpgroup MMAs,
    # exponentials, output stores, no more stack), the loader's in-kernel descriptors are gone with their fences (one
    # with Q, three with Q, K and V; a staged form keeps its output's), and its loads through them are
    # four-dimensional: with host3 none is two-dimensional.
    # v0.48: d=64's seventh candidate (192-row tiles) has no twin without them in the survey (the persistent forms' test
    # bounds its two compiles); v0.52: nor have its eighth's (256-row tiles) twin without published coordinates.
    # v0.49: the forms with mask_by_branch or mask_every_block (all host3) are compared with their twins without them
    # (the next test); v0.50's with overlap_tiles, v0.51's with published_coordinates and v0.54's with row_sum_mma
    # likewise (test_overlapped_tiles_..., test_published_coordinates_..., test_row_sums_...).
    rows = {row["label"]: row for row in gluon_forward}
    host_forms = {label: row for label, row in rows.items() if " host" in label and " mask-branch" not in label
                  and " mask-all" not in label and " overlap" not in label and " coords" not in label
                  and " sum-mma" not in label}
    assert len(host_forms) == 17
    without_twin = [label for label in host_forms if label.replace(f" host{label.split(' host', 1)[1][0]}", "")
                    not in rows]
    assert len(without_twin) == 4 and all(label.startswith(("forward gluon 192x128", "forward gluon 256x64"))
                                          for label in without_twin), without_twin
    for label, row in host_forms.items():
        if label in without_twin:
            continue
        count = int(label.split(" host", 1)[1][0])
        twin = rows[label.replace(f" host{count}", "")]
        for field in ("registers", "HGMMA", "MUFU.EX2", "STG.E.128", "STG_narrow"):
            assert row.get(field, 0) == twin.get(field, 0), (field, row, twin)
        assert row["stack"] <= twin["stack"], (row, twin)
        assert twin["descriptor_cache_controls"] - row.get("descriptor_cache_controls", 0) == count, (row, twin)
        assert row["tensor_loads_4D"] > 0 and twin.get("tensor_loads_4D", 0) == 0, (row, twin)
        if count == 3:
            assert row.get("tensor_loads_2D", 0) == 0, row

def test_a_split_tail_forward_keeps_the_round_robins_registers_and_products_and_adds_only_the_piece_stores(
        gluon_forward):
    # v0.38 (prepared): the tuned persistent forms of d=64 and d=128 and d=256's persistent form, compiled non-causal
    # with the split tail's list, against the same forms' non-causal round-robin compile: 12 warps on warpgroup MMAs,
    # the same registers and HGMMAs, at most 16 bytes more shared memory; per consumer d/4 more narrow stores (the
    # piece's float32 output, 8 bytes at a time) and 2 (its LSE rows; d=128: 64 STG.E.64 and 4 more STG.E in all). The list's loop keeps a few values on the stack
    # (8 B at d=128, 32 B at d=256, none at d=64; the round-robin none), reloaded per tile: v0.38 read the SASS, no
    # reload inside the loops holding the key blocks' HGMMAs.
    rows = {row["label"]: row for row in gluon_forward}
    split = [row for label, row in rows.items() if " split-tail" in label]
    assert len(split) == 3 and all(" non-causal" in row["label"] for row in split)
    for row in split:
        round_robin = rows[row["label"].replace(" split-tail", "")]
        head_dim = int(row["label"].rsplit("d=", 1)[1])
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert (row["registers"], row["HGMMA"]) == (round_robin["registers"], round_robin["HGMMA"]), (row, round_robin)
        assert 0 <= row["shared_kb"] - round_robin["shared_kb"] <= 16 / 1024, (row, round_robin)
        assert row["STG_narrow"] - round_robin["STG_narrow"] == 2 * (head_dim // 4 + 2), (row, round_robin)
        assert round_robin["stack"] == 0 and row["stack"] <= 32, (row, round_robin)


def test_a_split_tail_adds_its_pieces_in_float32_and_spills_no_more_than_the_round_robin(fused_backward):
    # v0.23: the tuned persistent forms reading query ranges from their tile list, a tail piece's dK/dV added
    # to a float32 buffer (paired float adds, relaxed): one 12-warp program on warpgroup MMAs with the tuned
    # forms' registers; at d=128 the non-causal round-robin form already keeps values on its stack, and the
    # split one keeps no more there.
    split = {row["label"].split()[-1]: row for row in fused_backward if "ws persistent split tail" in row["label"]}
    assert set(split) == {"d=64", "d=128"}
    for row in split.values():
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["registers"] == 168 and row["float_atomic_adds"] > 0, row
    round_robin_label = "backward fused gluon ws persistent 3 slots one dQ tile stats-smem balanced d=128"
    round_robin = next(row for row in fused_backward if row["label"] == round_robin_label)
    assert split["d=128"]["stack"] <= round_robin["stack"], (split["d=128"], round_robin)
    assert round_robin.get("float_atomic_adds", 0) == 0


def test_sixteen_byte_key_gradient_stores_replace_the_four_byte_ones_in_the_tuned_backwards(fused_backward):
    # v0.32: the tuned persistent forms with wide_stores (probe run 15 on the H200: +3-10% at N <= 2k). The 8 MMA
    # warps hold 128 key rows x HEAD_DIM of dK and of dV, HEAD_DIM / 2 elements per thread each: HEAD_DIM / 2
    # stores of 4 bytes per thread for both, or HEAD_DIM / 8 of 16 bytes. Compiled for sm_90a on the CPU: no 4-byte
    # store left, the same registers, shared memory and warpgroup MMAs as the form without, and the stack no larger
    # except the d=128 split-tail compile's 24 -> 40 B (spill sites per tile, outside the key loop's MMAs).
    rows = {row["label"]: row for row in fused_backward}
    bases = {"16-byte dK/dV, tuned 3 slots stats-smem causal d=64":
             "ws persistent ds2 3 slots stats-smem kv-regs balanced causal d=64",
             "16-byte dK/dV, tuned 4 slots stats-smem causal d=64":
             "ws persistent ds2 4 slots stats-smem kv-regs balanced causal d=64",
             "16-byte dK/dV, tuned 3 slots stats-smem split tail d=64": "ws persistent split tail 3 slots stats-smem d=64",
             "16-byte dK/dV, tuned 3 slots stats-smem causal d=128":
             "ws persistent 3 slots one dQ tile stats-smem balanced causal d=128",
             "16-byte dK/dV, tuned 3 slots stats-smem split tail d=128":
             "ws persistent split tail 3 slots stats-smem d=128"}
    assert len([label for label in rows if "16-byte dK/dV, tuned" in label]) == 6  # and the 4-slot split tail at d=64
    for wide_label, base_label in bases.items():
        wide, base = rows["backward fused gluon " + wide_label], rows["backward fused gluon " + base_label]
        head_dim = 64 if wide_label.endswith("d=64") else 128
        assert_one_12_warp_program_on_warpgroup_mmas(wide)
        assert wide.get("STG_narrow", 0) == 0 and wide["STG.E.128"] == head_dim // 8, wide
        assert base["STG_narrow"] == head_dim // 2 and base.get("STG.E.128", 0) == 0, base
        assert (wide["registers"], wide["shared_kb"], wide["HGMMA"], wide.get("float_atomic_adds", 0)) == \
            (base["registers"], base["shared_kb"], base["HGMMA"], base.get("float_atomic_adds", 0)), (wide, base)
        assert wide["stack"] <= (40 if wide_label.endswith("split tail d=128") else base["stack"]), (wide, base)


def test_sixteen_byte_key_gradient_stores_fit_the_role_split_backward_at_d256(fused_backward):
    # v0.32 (prepared): each of the two MMA warpgroups stores its 64 key rows x 256 columns (dV, dK): 64 stores of
    # 4 bytes per thread each, or 16 of 16 bytes. Compiled for sm_90a on the CPU: no 4-byte store left and the tuned
    # tiles' registers, shared memory, warpgroup MMAs and empty stack.
    bases = [row for row in fused_backward if row["label"] == "backward fused gluon split d=256"]
    wide = sorted((row for row in fused_backward if "16-byte dK/dV, role split" in row["label"]),
                  key=lambda row: row["num_stages"])
    assert len(bases) == len(wide) == 2
    for base, row in zip(sorted(bases, key=lambda row: row["num_stages"]), wide):
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row.get("STG_narrow", 0) == 0 and row["STG.E.128"] == 2 * 16, row
        assert base["STG_narrow"] == 2 * 64 and base.get("STG.E.128", 0) == 0, base
        assert (row["registers"], row["shared_kb"], row["HGMMA"], row["stack"]) == \
            (base["registers"], base["shared_kb"], base["HGMMA"], base["stack"]), (row, base)
    assert wide[0]["stack"] == 0, wide[0]  # the tuned tile (the two-slot tile's 8 bytes: the test above)


def test_host_descriptors_turn_the_role_split_backwards_loads_four_dimensional_without_in_kernel_descriptors(
        fused_backward):
    # v0.44: K and V, or Q, K, V and dO, through descriptors made on the host. Compiled for sm_90a on the CPU: the
    # loader's bulk loads of those tensors (four 64-column boxes a tile) become four-dimensional, and it no longer
    # writes their descriptors: the tuned tile's six descriptor-cache controls (four loader descriptors, one per dQ
    # reducer) drop to four or two. Registers, warpgroup MMAs and shared memory as the tuned tile's; the non-causal
    # kernels keep at most 40 bytes of their prologue's values on the stack (stored and loaded once per program).
    tuned = next(row for row in fused_backward if row["label"] == "backward fused gluon 16-byte dK/dV, role split 1 Q "
                                                                   "slots d=256")
    assert tuned["tensor_loads_2D"] == 16 and tuned["descriptor_cache_controls"] == 6, tuned
    for count in (2, 4):
        host = [row for row in fused_backward if f"gluon {count} host descriptors, role split" in row["label"]]
        assert len(host) == 2
        for row in host:
            assert_one_12_warp_program_on_warpgroup_mmas(row)
            assert row["tensor_loads_4D"] == 4 * count and row.get("tensor_loads_2D", 0) == 16 - 4 * count, row
            assert row["descriptor_cache_controls"] == 6 - count, row
            assert (row["registers"], row["HGMMA"]) == (tuned["registers"], tuned["HGMMA"]), (row, tuned)
            assert row["shared_kb"] <= tuned["shared_kb"], (row, tuned)
            assert row["stack"] <= 40 and row.get("LDL", 0) <= 6, row


def test_the_persistent_role_split_backward_compiles_as_one_program_per_multiprocessor(fused_backward):
    # v0.23, prepared (not yet run on a GPU): the d=256 role-split kernel over a tile list. Same 12 warps and
    # shared memory budget as the one-key-block form; its split tail adds float32 atomics. Unlike that form it
    # keeps values on the stack (the loader's and reducers' 24 registers do not hold the list's bookkeeping:
    # with 32 the spill stores drop from 34 to 22), which the H200 probe will weigh.
    rows = [row for row in fused_backward if "split persistent" in row["label"]]
    assert len(rows) == 2
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row.get("HMMA", 0) == 0 and row["HGMMA"] >= 4 * row["HGMMA_groups"], row
    assert next(row for row in rows if "split tail" in row["label"])["float_atomic_adds"] > 0



def test_a_dynamic_tile_list_costs_the_tuned_backwards_two_atomics_and_under_128_bytes_of_shared_memory(
        fused_backward):
    # v0.37: the tuned persistent forms (d=128's tuned with it, d=64's last candidate forced) claiming their causal key
    # blocks from a counter. Compiled for sm_90a on the CPU against the same forms with the static list: one 12-warp
    # program with the same registers and warpgroup MMAs; the loader's claim and its release are the two integer
    # atomics, the last program's reset of the two counters the two 4-byte global stores; the two id slots and their
    # four barriers add 96 bytes of shared memory; no more stack (d=128: 24 -> 0 B).
    rows = {row["label"].removeprefix("backward fused gluon "): row for row in fused_backward}
    pairs = {"dynamic tile list, tuned causal d=64": "16-byte dK/dV, tuned 4 slots stats-smem causal d=64",
             "dynamic tile list, tuned causal d=128": "spread dQ stores, tuned causal d=128"}
    for dynamic_label, static_label in pairs.items():
        dynamic, static = rows[dynamic_label], rows[static_label]
        assert_one_12_warp_program_on_warpgroup_mmas(dynamic)
        assert (dynamic["registers"], dynamic["HGMMA"], dynamic["STG.E.128"]) == \
            (static["registers"], static["HGMMA"], static["STG.E.128"]), (dynamic, static)
        assert dynamic["integer_atomic_adds"] == 2 and static.get("integer_atomic_adds", 0) == 0, (dynamic, static)
        assert dynamic["STG_narrow"] == 2 and static.get("STG_narrow", 0) == 0, (dynamic, static)
        assert 0 < dynamic["shared_kb"] - static["shared_kb"] < 128 / 1024, (dynamic, static)
        assert dynamic["stack"] <= static["stack"], (dynamic, static)


def test_non_causal_claims_compile_the_tuned_backwards_dynamic_form_non_causal_within_its_causal_resources(
        fused_backward):
    # v0.39 (prepared): the kernel's dynamic list was causal-only (a static assertion) until then. Compiled non-causal
    # for sm_90a on the CPU: one 12-warp program on warpgroup MMAs, the causal dynamic compile's registers, shared
    # memory and atomics (claim, release), and no float atomics: without the split tail no dK/dV goes to a buffer.
    rows = {row["label"].removeprefix("backward fused gluon "): row for row in fused_backward}
    for d in (64, 128):
        claims, causal = rows[f"non-causal claims, tuned d={d}"], rows[f"dynamic tile list, tuned causal d={d}"]
        assert_one_12_warp_program_on_warpgroup_mmas(claims)
        assert (claims["registers"], claims["shared_kb"]) == (causal["registers"], causal["shared_kb"]), (claims,
                                                                                                        causal)
        assert claims["integer_atomic_adds"] == 2 and claims.get("float_atomic_adds", 0) == 0, claims
        assert claims["stack"] <= 64, claims


def test_spread_dq_stores_keep_the_tuned_backwards_stores_registers_and_shared_memory(fused_backward):
    # v0.34 (prepared): the float32 dQ tile stored without bank conflicts is the same 8-byte shared stores, through a
    # view of the tile whose addresses flip column bit 4 on odd rows, plus one select per dQ register. Compiled for
    # sm_90a on the CPU: the same number of STS.64, registers, shared memory and warpgroup MMAs as the tuned form,
    # and no more stack.
    rows = {row["label"].removeprefix("backward fused gluon "): row for row in fused_backward}
    pairs = {f"spread dQ stores, tuned{mask} d={d}": f"16-byte dK/dV, tuned {stages} slots stats-smem{plain_mask} d={d}"
             for d, stages in ((64, configs.BACKWARD_FUSED_CANDIDATES[64][-1].num_stages),
                               (128, configs.BACKWARD_FUSED_CANDIDATES[128][-1].num_stages))
             for mask, plain_mask in ((" causal", " causal"), ("", " split tail"))}
    pairs["spread dQ stores, tuned d=256"] = "16-byte dK/dV, role split 1 Q slots d=256"
    for spread_label, base_label in pairs.items():
        spread, base = rows[spread_label], rows[base_label]
        assert (spread["registers"], spread["shared_kb"], spread["HGMMA"], spread["STS.64"]) == \
            (base["registers"], base["shared_kb"], base["HGMMA"], base["STS.64"]), (spread, base)
        assert spread["stack"] <= base["stack"], (spread, base)


def test_two_kv_slots_at_d64_fit_one_program_without_spills(fused_backward):
    # v0.41: two more 128 x 64 bf16 tiles (32 KB) beside d=64's tuned three- and four-slot forms, causal (the balanced
    # list) and non-causal (the split tail's): 179 and 196 KB measured, no stack, the same registers.
    rows = [row for row in fused_backward if row["label"].startswith("backward fused gluon two K/V slots")]
    assert len(rows) == 4
    for row in rows:
        assert_one_12_warp_program_on_warpgroup_mmas(row)
        assert row["stack"] == 0 and row["registers"] == 168, row


def test_queries_first_at_d128_fits_one_program_beside_the_tuned_forms(fused_backward):
    # v0.42: the loader's new order holds more values across its waits; its 24 registers spill a few (9 / 17 spill
    # stores measured, causal / non-causal), in the one loader warp. The MMA warps' registers, the shared memory and
    # the warpgroup MMAs are those of the tuned forms.
    rows = {row["label"]: row for row in fused_backward}
    pairs = {"backward fused gluon queries first, tuned causal d=128":
             "backward fused gluon dynamic tile list, tuned causal d=128",
             "backward fused gluon queries first, tuned non-causal d=128":
             "backward fused gluon non-causal claims, tuned d=128"}
    for option_label, base_label in pairs.items():
        option, base = rows[option_label], rows[base_label]
        assert_one_12_warp_program_on_warpgroup_mmas(option)
        assert (option["registers"], option["shared_kb"], option["HGMMA"]) == \
            (base["registers"], base["shared_kb"], base["HGMMA"]), (option, base)
        assert option["stack"] <= 48, option


def test_merged_masks_leave_one_copy_of_the_step_without_registers_or_shared_memory(gluon_forward):
    # v0.49: each persistent form with mask_by_branch (the masked key blocks through the unmasked step's code, the mask
    # under a run-time branch) against the same form without it. One copy of the step per consumer where there were
    # two (unmasked, masked) and one softmax in the loop's prologue where there were two: fewer warpgroup MMAs and
    # exponentials in the code, the same registers and shared memory. No more stack (d=256's causal compile: 40 -> 32 B)
    # but for d=64's three-consumer form causal (8 -> 40 B at 128 registers a thread: the mask's branch keeps more
    # values alive). Seven compiles: d=256's form is surveyed causal only.
    # The forms with mask_every_block (the same single step, its mask computed in every block; a check path's d=64,
    # d=128 and d=256 host-descriptor forms) likewise: 5 compiles. v0.52: d=64's ninth candidate (four consumers) as
    # surveyed without published coordinates, against the eighth so: 2 more; causal 8 B of stack, none without.
    # v0.54: d=128's ninth candidate without its half diagonal block, as surveyed without published coordinates: 2 more,
    # with no twin without the branch in the survey (form 6 keeps its half diagonal), so held to the half-diagonal
    # branch form's registers, shared memory and stack, with fewer exponentials in its causal code (one masked softmax
    # fewer) and the same non-causal code's (the half diagonal is a causal option).
    rows = {row["label"]: row for row in gluon_forward}
    for option, compiles in ((" mask-branch", 11), (" mask-all", 5)):
        merged_forms = {label: row for label, row in rows.items() if option in label and " overlap" not in label
                        and " coords" not in label}
        assert len(merged_forms) == compiles, sorted(merged_forms)
        twinless = [label for label in merged_forms if label.replace(option, "") not in rows]
        assert len(twinless) == (2 if option == " mask-branch" else 0), twinless
        for label, row in merged_forms.items():
            if label in twinless:
                assert label.startswith("forward gluon 128x128") and " half-diag" not in label, label
                halved = rows[label.replace(" out-regs balanced", " out-regs half-diag balanced")]
                assert (row["registers"], row["shared_kb"]) == (halved["registers"], halved["shared_kb"]), (row, halved)
                assert row["stack"] <= halved["stack"], (row, halved)
                if " non-causal" in label:
                    assert (row["MUFU.EX2"], row["HGMMA"]) == (halved["MUFU.EX2"], halved["HGMMA"]), (row, halved)
                else:
                    assert row["MUFU.EX2"] < halved["MUFU.EX2"], (row, halved)
                continue
            _assert_one_copy_of_the_step(label, row, rows[label.replace(option, "")])


def test_overlapped_tiles_keep_the_registers_products_and_exponentials_of_their_twins(gluon_forward):
    # v0.50: each form of the overlapped-tile check paths (overlap_tiles: a tile's first score product issued before the
    # previous tile's output is stored) against the same form without it, where the survey has that twin (d=64's
    # two-consumer form of the path, claiming its causal tiles without Q in registers, has none): the same registers,
    # shared memory, warpgroup MMAs (none serialised: as many groups) and exponentials; the output's stores twice in
    # the code (in the tile loop and after it); at most 8 B more stack (a value of the kernel's entry reloaded at each
    # partition's start).
    rows = {row["label"]: row for row in gluon_forward}
    overlapped = {label: row for label, row in rows.items() if " overlap" in label}
    assert len(overlapped) == 8, sorted(overlapped)
    twins = {label: rows[label.replace(" overlap", "")] for label in overlapped if label.replace(" overlap", "") in rows}
    assert len(twins) == 6, sorted(twins)
    for label, twin in twins.items():
        row = overlapped[label]
        for field in ("registers", "shared_kb", "HGMMA", "HGMMA_groups", "MUFU.EX2"):
            assert row.get(field, 0) == twin.get(field, 0), (field, row, twin)
        stores = "STG.E.128" if " wide-out" in label else "STG_narrow"
        assert row.get(stores, 0) > twin.get(stores, 0), (row, twin)
        assert row["stack"] <= twin["stack"] + 8, (row, twin)


def test_published_coordinates_take_the_tile_decode_out_of_each_consumer(gluon_forward):
    # v0.51: each form with published_coordinates (the loader publishes a claimed tile's (block, head, batch) packed in
    # an int64: the two check paths' forms, two of them candidates since call 1, and d=64's three-consumer form with
    # masks by branch) against the same form without it (the survey adds it where no path has it): the same
    # registers, warpgroup MMAs (none serialised: as many groups) and exponentials; its id slots twice as wide (at most
    # 16 bytes more shared memory); where the compile claims its tiles (every one but d=64's two-consumer causal
    # compile, which runs a static list and so is its twin's kernel), two integer divisions fewer in every consumer:
    # two reciprocals each. v0.52: d=64's eighth and ninth candidates (four consumers), causal and non-causal: 4 more.
    # (v0.53's row-sum forms have the option too, and their twins are the forms without row sums: next test.)
    rows = {row["label"]: row for row in gluon_forward}
    published = {label: row for label, row in rows.items() if " coords" in label and " sum-mma" not in label}
    assert len(published) == 14, sorted(published)
    for label, row in published.items():
        twin = rows[label.replace(" coords", "")]
        for field in ("registers", "HGMMA", "HGMMA_groups", "MUFU.EX2"):
            assert row.get(field, 0) == twin.get(field, 0), (field, row, twin)
        assert 0 <= row["shared_kb"] - twin["shared_kb"] <= 16 / 1024, (row, twin)
        assert row["stack"] <= twin["stack"], (row, twin)
        consumers = {"192x128": 3, "256x64": 4}.get(label.split()[2], 2)
        static_list = " nc-claims" in label and " dynamic" not in label and "non-causal" not in label
        assert twin["MUFU.RCP"] - row["MUFU.RCP"] == (0 if static_list else 2 * consumers), (row, twin)


def test_row_sums_on_the_tensor_cores_add_small_products_and_one_block_of_ones_a_program(gluon_forward):
    # v0.53: the row-sum forms (d=64's three-consumer candidate and its tenth, the four-consumer mask-by-branch one with
    # row_sum_mma; v0.54: d=128's form 6 and ninth candidate with it, their half diagonal blocks summed too), causal and
    # non-causal, against the same forms without it: the same launch registers; no more exponentials (the prologue's
    # alpha, used only for l there, goes: 2-4 fewer per consumer); more warpgroup MMAs (each P V product gains 64x8
    # ones over the same keys, in two groups for 128-key P), none serialised (more groups than before, fewer than
    # MMAs); the program's [8, 64] block of ones (1 KB, v0.54: one for all consumers) and nothing else in shared memory,
    # within the allocator's padding; at most 64 B of stack.
    rows = {row["label"]: row for row in gluon_forward}
    summed = {label: row for label, row in rows.items() if " sum-mma" in label}
    assert len(summed) == 8, sorted(summed)
    assert sum(label.endswith("d=128") for label in summed) == 4, sorted(summed)
    for label, row in summed.items():
        twin = rows[label.replace(" sum-mma", "")]
        consumers = {"192x128": 3, "256x64": 4}.get(label.split()[2], 2)
        assert row["registers"] == twin["registers"], (row, twin)
        assert twin["MUFU.EX2"] - 4 * consumers <= row["MUFU.EX2"] <= twin["MUFU.EX2"], (row, twin)
        assert row["HGMMA"] > twin["HGMMA"] and twin["HGMMA_groups"] < row["HGMMA_groups"] < row["HGMMA"], (row, twin)
        assert abs(row["shared_kb"] - twin["shared_kb"] - 1.0) <= 0.5, (row, twin)
        assert row["stack"] <= 64, row


def _assert_one_copy_of_the_step(label, row, twin):
    """A form whose masked key blocks run the unmasked step's code (``label``'s ``row``) against ``twin``, the form
    without that option."""
    assert row["HGMMA"] < twin["HGMMA"] and row["MUFU.EX2"] < twin["MUFU.EX2"], (row, twin)
    assert (row["registers"], row["shared_kb"]) == (twin["registers"], twin["shared_kb"]), (row, twin)
    if label.startswith("forward gluon 192x128"):
        assert row["stack"] <= 40, row
    elif "mask-all" in label or label.startswith("forward gluon 256x64"):
        # mask-all: d=128's causal compile keeps 8 B (none without), d=64's and d=256's none; four consumers (v0.52):
        # 8 B causal, none without.
        assert row["stack"] <= twin["stack"] + 8, (row, twin)
    else:
        assert row["stack"] <= twin["stack"], (row, twin)


def test_rows_compiled_in_two_processes_are_the_serial_rows_in_the_surveys_order():
    # v0.52: ``--processes`` spawns workers that find each configuration again by its index in their own survey.
    serial = json.loads(run_without_interpreter(
        ["-m", "flashio.bench.resources", "--match", "forward pointer", "--json"]).stdout)
    assert len(serial) == 4 and [row["label"] for row in serial] == [
        "forward pointer d=64", "forward pointer d=128", "forward pointer d=128", "forward pointer 64x64 causal d=64"]
    assert _measure("forward pointer") == serial
