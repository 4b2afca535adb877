"""GPU probe for forms of the warp-specialised fused backward (kernels/backward_gluon.py): the persistent one
(``attention_backward_fused_ws_persistent_kernel``) and the one with LSE/D rows in shared memory, against
the tuned form and cuDNN, bf16, in one process on the H200.

Why (benchmarks/PERFORMANCE.md, v0.12): the v0.11 bench fits, at d=128, t(N) = programs/132 x (blocks per
program x 2.7 µs + X) with X ~ 11 µs per program at causal 1k, causal 2k and non-causal 1k alike: at N = 1k
a program spends a third of its time outside its block loop (K/V loads, descriptors, pipeline fill and
drain, dK/dV stores). The persistent form overlaps the next key block's loads with the current block's
stores. Prediction: X -> 3-5 µs, i.e. the d=128 causal 1k backward 260 -> 300-320 TFLOP/s, non-causal 1k
358 -> ~400, within 2% at 16k.

Each row times the whole backward (D, the accumulator's zeroing, the kernel, the conversion) through
``launchers.attention_backward`` with FLASHIO_BACKWARD_PATH=gluon and the fused candidates replaced by one
configuration, and cuDNN's backward (``torch.autograd.grad`` of SDPA's CUDNN_ATTENTION graph) on the same inputs;
max |difference| of each gradient to the deterministic two-kernel backward, which the check script
compares with the float32 reference.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/fused_backward_persistent/probe.py

Run 1 (v0.12, H200; results/2026-11-30_h200_v0.12_probes/probe_persistent.txt): correct at every point, the
prediction not met — d=128 -1% to +4.5% (causal 1k 258 -> 262, causal 4k 402 -> 420), d=64 0 to -8%. The
ncu sections of benchmarks/experiments/backward_limiter/ say why: the per-block issue rate, not the
per-program prologue and epilogue, is what the short sequences lose on.

Run 2 (v0.13, H200; results/2026-11-30_h200_v0.13_probes/probe_stats.txt) adds the specialised kernel with
the LSE/D rows in shared memory (``stats_in_shared``), which compiles without spills at d=64 and d=128 (the
register form: 88 B of stack at d=128 non-causal). Prediction: d=128 non-causal +8-15% (16k 486 -> ~530, 1k
358 -> ~390), causal +2-5% (its stalls are at barriers, not spills), d=64 within 3% (it did not spill).
Outcome: d=128 non-causal +12-20% (1k 358 -> 401, 2k 405 -> 484, 16k 487 -> 556; cuDNN 447 / 524 / 565), causal
+5-11% (1k 257 -> 273, 4k 400 -> 443, 16k 495 -> 519) — above the prediction; d=64 +11-13% non-causal, +6-9%
causal, where the prediction (within 3%) was wrong: the rows' registers, freed, went to the products'
pipelining even where nothing spilled. Correct everywhere (max difference to the deterministic backward as
the register form's; forced check path 10 of 10 PASS). The form replaced the register forms in the tuning.

Run 3 (v0.18, prepared) times the persistent form with its causal key blocks from a balanced tile list
(``balanced_schedule``: flashio.schedules keeps the pairs round-robin but hands the last two rounds' blocks out
one by one, costliest first) against the round-robin pairs, both with LSE/D in shared memory, forms
alternating in each of ``--rounds`` rounds:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 250 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 3 --forms "ws persistent, LSE/D in shared" "ws persistent, LSE/D in shared, balanced"

Prediction: the schedule's model shortens the busiest program by 2-3% at every causal point (1024 pairs of key
blocks on 132 programs at d=128, 7.76 rounds); measured +1-3% causal, non-causal unchanged (no table).
Outcome (v0.18, results/2026-12-01_h200_v0.18_probes/probe_bwd_run3.txt, bf16): causal 1k / 2k / 4k / 16k
270 -> 274, 360 -> 376, 429 -> 447, 503 -> 512 TFLOP/s (+1.5 / +4.4 / +4.2 / +1.8%); non-causal, the same kernel
in both columns, -1% to +3% (the noise of this comparison). The tuned d=128 persistent form takes the list.

Run 4 (v0.19) times two dS^T tiles (``ds_buffers=2``): each query block then needs one barrier over the 8 MMA
warps instead of two (the dS^T store's barrier stays; the block's dQ tile and Q/dO slot are handed on at the
next block's barrier instead of one of their own), so a warpgroup done with its products starts the next
block's score products and exponentials while the other's products still run:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 270 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 3 --forms "ws, LSE/D in shared" "ws, LSE/D in shared, two dS tiles" \
        "ws persistent, LSE/D in shared, balanced" "ws persistent, LSE/D in shared, balanced, two dS tiles" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages, one dQ tile"

and at d=64 the first two forms and "ws, LSE/D in shared, two dS tiles, 3 stages". Prediction: +2-5% at causal
1k-2k (v0.12-v0.13 ncu: a third of the causal kernel's stall samples at its CTA-wide barriers), +1-2% at 16k.
Outcome (probe_bwd_run4_d*.txt; forced check paths 20 of 20 PASS, check_run16.txt): wrong with two Q/dO slots —
the late hand-back leaves the loader no lead: d=128 -2% to -21% (non-causal 16k 546 -> 480; one point +2%, causal
4k on the non-persistent kernel), d=64 -9% to -19%. With three slots at d=64 +2-7% (non-causal 2k 375 -> 397,
causal 4k 361 -> 385). d=128 has no room for a
third slot beside two dQ tiles (226 of 227 KB); with one dQ tile -1% to -6% against the tuned persistent form.

Run 5 (v0.19, d=64): the controls — three slots alone, and the persistent listed form with three slots, with and
without two dS tiles:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 280 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --forms "ws, LSE/D in shared" "ws, LSE/D in shared, 3 stages" \
        "ws, LSE/D in shared, two dS tiles, 3 stages" "ws persistent, LSE/D in shared, balanced, 3 stages" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages"

Outcome (probe_bwd_run5_d64.txt): the third slot alone +1-2%; two dS tiles on top +1.5-3.5%; the persistent
listed form with both +3-10% over the tuned form (non-causal 1k / 2k / 16k 314 -> 328, 375 -> 408, 444 -> 477;
causal 1k / 2k / 4k / 16k 223 -> 240, 300 -> 329, 363 -> 396, 432 -> 446 TFLOP/s; cuDNN 373 / 421 / 448, 252 /
328 / 382 / 435). It becomes the d=64 candidate; forced check 10 of 10 PASS (check_run17.txt).

Run 6 (v0.19, the last device seconds; both commands stopped by their timeouts on a cold machine, the rows
printed before are complete): at d=128 the control of run 4's three-slot form (three slots and one dQ tile, one
dS^T tile); at d=64 a fourth slot:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced" \
        "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages, one dQ tile"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 90 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages"

Prediction: at d=128 two dS tiles +2-4% over the control (as at d=64); a fourth slot at d=64 within ±1%.
Outcome (probe_bwd_run6_d*.txt): wrong at d=128 — the control is the fastest d=128 form measured, +1-3.5% over
the tuned persistent form (non-causal 1k / 2k / 16k 385 -> 396, 461 -> 474, 552 -> 557; causal 1k / 2k 274 ->
278, 372 -> 385; the causal 4k and 16k rows were cut off), and two dS tiles on it -2% to -5%. At d=64 four slots
+0.5-2.5% at N <= 4k, -1% at 16k non-causal. Neither is in the candidate lists yet (no device time was left to
re-run their grids).

Run 7 (v0.19, prepared after the device time was spent, not yet run): the key rows of a block on two MMA
partitions of their own (``split_rows``, kernels/backward_gluon_rows.py): each 4-warp warpgroup hands its Q/dO
slot and its half of the dQ tile back when it is done with them (mbarriers counting two arrivals), so the
one barrier per block of run 4 comes without the late hand-back that starved two slots, and each MMA thread
gets 240 registers (168 in the 8-warp partition). Compiled for sm_90a on the CPU: d=128 226.5 KB, no
local-memory access between the block loop's warpgroup MMAs non-causal, one reload causal (80-112 B of stack in
the loader and the per-tile code); K/V in registers compiles without stack causal at d=64 (72 B non-causal,
outside the block loop), but spills at d=128 (256-288 B), so it is a d=64 form only. First the forced check
path (a hang would be a barrier count error):

    PYTHONPATH=src timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
        --paths "backward: fused five-product (Gluon), key rows on two MMA partitions"

then

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced" \
        "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile" "rows persistent, balanced"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages" \
        "rows persistent, balanced, 3 stages" "rows persistent, balanced, 3 stages, K/V in registers"

Prediction: d=128 +2-5% over the tuned persistent form at every point (the d=64 one-barrier gain of run 5
without its loader starvation), at least level with run 6's three-slot form; d=64 within ±3% of the tuned
two-dS-tile form.
Outcome (v0.20, results/2026-12-01_h200_v0.20_probes/probe_bwd_run7_d*.txt; forced check 20 of 20 PASS on its
first run, check_run18.txt): wrong — correct, but level or slower at every point. d=128 0 to -3% against the
tuned persistent form (non-causal 1k / 2k / 16k 388 -> 378, 451 -> 451, 547 -> 538; causal 2k / 16k 365 -> 359,
506 -> 501 TFLOP/s); d=64 -6% to -8% against the tuned three-slot form, -1% to -6% with K/V in registers
(causal 2k 326 -> 302 / 321).
Nsight Compute (backward_limiter/ncu_profile.py run 7) at d=128 causal 1k: 520 µs against 495 for the three-slot
form, 12% more instructions and 31 times the local-memory requests (339 k against 11 k). Run 6's three-slot form
repeated its lead: +0.4% to +7% over the two-slot persistent form at all seven points (causal 4k 433 -> 464,
16k 506 -> 526); it became the d=128 persistent candidate. At d=64 four Q/dO slots +0.9-2.1% except non-causal
16k (-0.6%): listed beside three.

Run 8 (v0.20, prepared after the device time was spent, not yet run): the query blocks of a 64-key block
alternating between two MMA partitions that meet once per key block (``split_queries``,
kernels/backward_gluon_queries.py; cuDNN's d=128 kernel is named for 64x64 tiles). Nsight Compute run 7 put
flashio's warps 15 cycles apart between issues against cuDNN's 8 with the same warps, registers and shared
memory, and the row split, which removed the 8-warp barrier but kept a per-block dS^T exchange, did not help;
here nothing is exchanged per query block, so one warpgroup's exponentials can run under the other's
products. Compiled for sm_90a on the CPU: 211 KB at d=128 (three slots; 4 slots do not fit), 115 KB at d=64,
no serialised warpgroup MMAs (at d=128 with dQ in two column pieces), a few stack reloads per block in the
first partition at d=128. First the forced check path (a hang would be a barrier error; the protocol model
in experiments/fused_backward_alternating/ passes), then

    PYTHONPATH=src timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases \
        --paths "query blocks alternating between two MMA partitions"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 330 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile" \
        "alternating, 64x64, 2 stages" "alternating, 64x64, 3 stages"

(at d=64 the first column is not the tuned form: compare with run 7's d=64 table, or add "ws persistent, LSE/D
in shared, balanced, two dS tiles, 3 stages"; at d=64 also "alternating, 64x64, 4 stages" and "alternating,
64x64, 4 stages, K/V in registers", which fit there; the latter's check path: "query blocks alternating, K/V in
registers").
Prediction: d=128 +3-8% over the tuned three-slot form at 1k-4k (the issue-latency gap), level to +3% at 16k
(twice the work units and a dK/dV exchange per 64-key block cost at long sequences what the overlap gains);
d=64 within ±5% of its tuned form.
Outcome (v0.21; results/2026-12-01_h200_v0.21_probes/probe_bwd_run8_d*.txt): correct on the check's small cases
but slower than the tuned forms at every point: d=128 three stages 16-22% (non-causal 1k 308 against 395, causal
1k 218 / 278, causal 16k 423 / 525), two stages 26-31%; d=64 three stages 14-24%, four stages with K/V in
registers 12-21%. At d=64 with three stages its gradients were 0.1-0.5 off at the grid's shape (a race the
small cases missed; check run 22 with the grid-shaped case: dQ error 1.51 against a bound of 0.12). Removed
from the library, last in commit 392c891. The prediction was wrong in sign.

Run 9 (v0.21, prepared after the device time was spent, not yet run): a query block's key-gradient products
deferred to the next block (``deferred_kv_products``, ``_fused_ws_mma_tile_deferred``): with 2, S^T_{i+1},
dP^T_{i+1}, dV_i and dK_i are issued together, so that the tensor cores run three products, not one, under the
MMA warps' exponentials and dS^T (FlashAttention-3's intra-warpgroup overlap carried to the backward); with 1,
dV_i alone (dK_i goes beside dQ_i). Compiled for sm_90a on the CPU: at d=64 (1 or 2) 48 HGMMA in 10 groups
(not serialised), the tuned form's 168 registers, 147 / 163 KB with three / four slots and its stack (64 B
non-causal, 0 causal); the SASS issues the products back to back and waits for S^T with the deferred ones
still in flight. At d=128 deferring both serialises every product (64 groups of 64) and spills: refused there;
dV alone keeps whole groups (64 HGMMA in 10), with two dS^T tiles in 227 KB (three slots, one dQ tile) or with
the tuned form's one in 211 KB, two registers spilled and reloaded per block either way. With one dS^T tile a
second barrier ends each block and a slot is held one block longer (not two): three slots keep the loader
ahead. Its barrier protocol passes a CPU model (experiments/fused_backward_deferred/). First the forced check
paths, then

    PYTHONPATH=src timeout 240 python3 -m flashio.check --skip-timing --skip-default-cases \
        --paths "dK/dV products deferred" "dV products deferred"   # three paths
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages, deferred dV" \
        "ws persistent, LSE/D in shared, balanced, 3 stages, deferred dK/dV" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages, deferred dK/dV"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile" \
        "ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile, deferred dV" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages, one dQ tile, deferred dV" \
        "ws, LSE/D in shared" "ws, LSE/D in shared, 3 stages, one dQ tile, deferred dV"

Prediction: d=64 dV and dK deferred, four slots: +4-10% over the tuned forms at N <= 4k (the tensor pipe idle
under the exponentials: ncu run 6 put the d=64 1k backward's issue rate at 1.12-1.21 instructions per cycle
against cuDNN's 1.47-1.72), +0-4% at 16k; one dS^T tile (two barriers a block) 1-3% behind; dV alone between
the tuned form and both. d=128 dV deferred with the tuned form's one dS^T tile: +2-6% at N <= 4k (two products
under the exponentials instead of one, the same barriers and slots), +0-2% at 16k; with two dS^T tiles -2% to
+5% (the loader's latency exposed with three slots held, and the late dQ hand-back that cost the two-dS-tile
form 2-5% in v0.19). The non-persistent kernel with dV deferred (three slots, one dQ tile; the tuned
non-causal d=128 form is that kernel with two slots and two dQ tiles, "ws, LSE/D in shared"): level to -3%
(its compile spills ~10 registers per block inside the loop non-causal, against none in the tuned form).

Outcome (v0.22, results/2026-12-01_h200_v0.22_probes/, probe_bwd_run9_d128.txt and probe_bwd_run9_d64.txt; bf16,
whole backward, median of 3 rounds, TFLOP/s): prediction wrong in sign at every point. The forced check paths
passed first (39 of 39 cases, with the grid-shaped ones). d=128, tuned persistent form -> dV deferred with one /
two dS^T tiles: non-causal 1k 377 -> 374 / 315, 2k 450 -> 434 / 355, 16k 552 -> 509 / 439; causal 1k 275 -> 269 /
243, 2k 372 -> 351 / 313, 4k 453 -> 417 / 368, 16k 526 -> 488 / 428 (-1% to -8% with one tile, -12% to -21% with
two); the non-persistent kernel with dV deferred -6% to -11% against its tuned form (non-causal 1k 400 -> 367,
causal 4k 423 -> 394). d=64, the four-slot two-dS^T form -> dV deferred / dV and dK deferred: non-causal 1k 333
-> 327 / 308, 2k 400 -> 394 / 373, 16k 468 -> 460 / 430; causal 1k 241 -> 239 / 208, 2k 329 -> 322 / 270, 4k 392
-> 375 / 317, 16k 450 -> 439 / 360 (dV -1% to -4%; both -7% to -20%); both with one dS^T tile and three slots
-10% to -17% against the tuned three-slot form. Not profiled. The d=64 forms compile with the tuned form's
registers and no spill and still lose most where causal blocks are short, so the spills seen at d=128 are not
the whole cause; the likelier one is that a block's dQ wait now also waits for the previous block's deferred
products (one wait for all outstanding groups), which puts them back on the path they were meant to leave.
Removed in v0.22 (kernel, option, check paths and forms; the commands above are the record of the run).

Run 10 (v0.22, prepared after the device time was spent, not yet run): no product moves, only a wait. The tuned
d=64 tile (two dS^T tiles) ends each query block waiting for its dV and dK products, although nothing before the
next block's S^T wait needs them: its Q/dO slot is handed back after the next block's barrier, and warpgroup MMA
groups retire in issue order, so that S^T wait covers them. ``late_key_gradient_wait`` drops the end-of-block
wait (the accumulators cross the loop's back edge in flight; they are waited after the loop). Compiled for sm_90a
on the CPU: in the SASS the ``WARPGROUP.DEPBAR.LE gsb0, 0x0`` that preceded the loop's back-edge branch now
follows it (after the loop), causal and non-causal; registers (168), stack (64 B non-causal, none causal), shared
memory (147 / 163 KB) and the five HGMMA groups per block as the tuned forms. At d=128 (two dS^T tiles) ptxas
serialises every product of the form (32 groups of one k-step): refused there. First the check paths, then

    PYTHONPATH=src timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 120 \
        --paths "dV and dK waited at the next block"   # two paths
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --forms "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages, late dK/dV wait" \
        "ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages, late dK/dV wait"

Prediction: +1-3% at d=64 N <= 2k (a warp starts its next block's slot wait, LSE/D reads and score products up to
one dV/dK product time sooner), level at 16k (the loader, not the warps' issue, sets the pace there).
Outcome (v0.23, results/2026-12-01_h200_v0.23_probes/probe_bwd_run10*_d64.txt; check paths 26 of 26 PASS):
level -- with four slots +0.8-1.2% at causal 1k-2k in both runs (245 / 243 against 242 / 240 at 1k), -1% at
non-causal 16k (476 against 482), within 1% elsewhere. Not a candidate (a third d=64 compile for about 1%).

Run 11 (v0.23): the tuned persistent forms with a split tail (``split_tail``; non-causal calls only):

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --rounds 3 --causal no --seqlens 1024 2048 4096 16384 --forms "tuned" "tuned, split tail"

Prediction: the round-robin's last round (d=128: 2048 key blocks on 132 programs, 68 of them in a 16th round;
d=64: 4096, 4 in a 32nd) shrinks to about half a key block (d=128) or one query block (d=64) per program:
modelled -1.9% of d=128's block-times (-3% at d=64), less two small launches (zeroing, conversion; ~5 µs,
0.6% at 1k): +1-2% at N <= 2k, +2-3% at 16k, both head dims.
Outcome (results/2026-12-01_h200_v0.23_probes/probe_bwd_run11.txt): d=64 +2.3-6.7%, d=128 +2.5-6.3%, more
than predicted at N <= 4k; every persistent candidate takes it.

Run 12 (v0.23, prepared, not yet run): d=256's role-split kernel in a persistent grid over a tile list
(``attention_backward_fused_split_persistent_kernel``; causal: the balanced list; non-causal: the split tail),
after its check path:

    PYTHONPATH=src timeout 200 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 150 \
        --paths "persistent role-split at d=256"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 400 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 256 --rounds 3 --forms "tuned" "role split persistent" "role split persistent, split tail"

Prediction: the split tail +2-5% non-causal (2048 key blocks of 64 keys on 132 programs: 68 in a 16th round; long
tiles, as the d=128 backward's, not short ones as the forward's), causal +0-3% (the balanced list against the
hardware's order); the persistent form without it level or slower (its loader and reducers spill at 24
registers, and a key block's loads wait for both warpgroups to hand the previous one back).
Outcome (v0.24, results/2026-12-01_h200_v0.24_probes/probe_bwd_run12_d256.txt, bf16, median of 3 rounds,
TFLOP/s tuned / persistent / persistent with split tail; cuDNN in brackets). The first call stopped on a launcher
error: a causal grid of 128 programs for 64 pairs of key blocks (fixed: at most one program per pair). The
check path then passed 15 of 15. Non-causal 1k 322 / 301 / 313 (307), 2k 377 / 355 / 374 (352), 16k 436 / 399 /
436 (361). Causal 1k 247 / 218 / 218 (256), 2k 313 / 305 / 307 (315), 4k 363 / 370 / 366 (351), 16k 434 / 428 /
425 (385). So the split-tail prediction was wrong: the split tail is level with the one-key-block kernel, not
+2-5%. The causal prediction was wrong too: -12% at 1k, -2% at 16k, +1-2% at 4k only. The persistent form
without the split tail gave wrong dK/dV (max difference 0.96 / 0.44 / 0.12): its launcher passed the split list,
whose pieces the kernel read as whole key blocks. With whole key blocks round-robin
(``schedules.whole_tile_schedule``; run 12b, probe_bwd_run12b_d256.txt) it is correct and 2% slower than the
tuned kernel (1k 316 against 323, 2k 375 against 383). Not a candidate.

Run 13 (v0.29, results/2026-12-01_h200_v0.29_probes/probe_bwd_run13.txt): the tuned d=128 form with its whole
rounds (causal: its bulk of pairs) taken in runs of 2 or 4 consecutive key blocks (pairs) of one head from the
tile list (the option ``head_run``, removed after this run: head_runs.patch), so that a program's next key block
reads the Q/dO it has just read. Check path 17 of 17 PASS first. Prediction: +1-3% at 1k-2k (v0.28: Q and dO in
the L2 +3.0% non-causal, +7.1% causal at 1k), level at 16k. bf16, median of 3 rounds, TFLOP/s tuned / runs of 2 /
runs of 4 (cuDNN): non-causal 1k 393 / 394 / 382 (425), 2k 470 / 478 / 465 (486), 16k 560 / 559 / 559 (533);
causal 1k 277 / 265 / 222 (314), 2k 370 / 372 / 323 (393), 16k 525 / 521 / 481 (522). Wrong: runs of 2 within
-4% to +2% (the noise, and a loss at causal 1k), runs of 4 down to -20%. Spreading the programs at work at once
over more heads costs more than re-reading a head's Q/dO from HBM saves.

Run 14 (prepared in v0.29, run in v0.30; results/2026-12-01_h200_v0.29_probes/call6.sh, output in
results/2026-12-01_h200_v0.30_probes/probe_bwd_run14.txt): the tuned forms with their
causal pairs of key blocks across two heads (``tile_orders.cross_head_pairs``: key block i of head h with key block
n - 1 - i of head h + 1; 8 programs on one head's key blocks at 1k instead of 4, the second tiles' starts
staggered). Built on the CPU: every key block listed once, the modelled makespan equal to the library's list's.
Prediction: +1-3% at causal 1k-2k (v0.28: Q and dO in the L2 +7.1% at d=128 causal 1k), level at 4k. Outcome,
bf16, median of 3 rounds, within / across heads (cuDNN): d=128 1k 277 / 279 (319), 2k 376 / 379 (403), 4k 453 / 454
(455); d=64 1k 241 / 241 (252), 2k 329 / 328 (328), 4k 390 / 394 (379). Wrong: -0.3% to +1%, level. Not kept.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 64 --rounds 3 --causal yes --seqlens 1024 2048 4096 \
        --forms "tuned, split tail" "tuned, split tail, cross-head pairs"

Run 15 (v0.32, prepared): the tuned forms storing dK and dV 16 bytes at a time (``wide_stores``: the words of each
key row exchanged between its four lanes by warp shuffles, ``kernels/gluon_stores.py``), as the forward's output has
been since v0.32 (+2-7% at N <= 2k there). Compiled for sm_90a on the CPU: the 4-byte dK/dV stores 32 -> 0 (d=64)
and 64 -> 0 (d=128) per thread, 8 and 16 of 16 bytes instead; the same registers (168), shared memory and warpgroup
MMAs; stack unchanged except the d=128 split-tail compile, 24 -> 40 bytes (14 spill loads and stores against 11, all
outside the key loop's MMAs). A backward tile stores dK and dV once per 16 query blocks' five products at 1k (the
forward's output: once per 8 key blocks' two), so the store share is about a third of the forward's. Prediction:
+0.5-2% at 1k-2k, level at 16k. Check path first: "backward: fused five-product (Gluon), 16-byte dK/dV stores".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 64 --rounds 3 --seqlens 1024 2048 16384 \
        --forms "tuned, split tail" "tuned, split tail, 16-byte dK/dV stores"

Outcome (v0.32 call 7, results/2026-12-01_h200_v0.32_probes/probe_bwd_run15.txt; the check path 17 of 17 PASS), bf16,
median of 3 rounds, TFLOP/s 4-byte -> 16-byte (cuDNN): d=128 non-causal 1k 395 -> 430 (451), 2k 481 -> 506 (505), 16k
572 -> 580 (550); causal 1k 278 -> 305 (317), 2k 384 -> 413 (407), 16k 539 -> 545 (532). d=64 non-causal 1k 349 ->
365 (370), 2k 417 -> 431 (425), 16k 496 -> 491 (456); causal 1k 240 -> 262 (251), 2k 327 -> 352 (326), 16k 458 -> 473
(439). Wrong in size: +3.4-9.7% at N <= 2k, -1% to +3% at 16k. Tuned since (d=64 three slots, d=128); that check
path is now the d=64 four-slot form's.

Run 16 (v0.32, prepared): d=256's two tuned role-split tiles (one and two Q slots; one key block per program) with
dK and dV stored 16 bytes at a time, against the same with 4-byte stores. Compiled for sm_90a on the CPU: per thread
128 4-byte stores -> 32 of 16 bytes (two partitions of 64 key rows x 256 columns each), no stack, the same registers
and shared memory (217.7 KB). The d=256 backward is 0.96-1.21x cuDNN in the v0.32 grid, 0.96-0.97 at causal 1k. Per
key block at 1k it does the products of d=128's tuned tile (16 query blocks x 2 x 64 x 64 x 256 x 5 = 335 MFLOP
against 16 x 2 x 64 x 128 x 128 x 5), with the same 64 4-byte stores per MMA thread at its end, and one program per
multiprocessor that exits after them (no loader prefetching the next tile meanwhile). Prediction: +3-8% at 1k-2k
(run 15's d=128 gain), +0-2% at 16k. Check path first: "backward: fused five-product (Gluon), role split at d=256,
16-byte dK/dV stores".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 256 --rounds 3 --seqlens 1024 2048 16384 --forms tuned "tuned, 16-byte dK/dV stores" \
        "tuned, two Q slots" "tuned, two Q slots, 16-byte dK/dV stores"

Run 17 (v0.32, prepared): d=64's four-slot form (a tuning candidate beside the three-slot one since v0.20: +0.9-2.1%
with 4-byte stores) with 16-byte dK/dV stores, against it with 4-byte stores and the tuned three-slot form with
16-byte ones. Prediction: the 16-byte four-slot form +3-9% over the 4-byte one at N <= 2k (run 15's three-slot
gain), level or +1-2% against the three-slot 16-byte form. Check path first: "backward: fused five-product (Gluon),
16-byte dK/dV stores, four slots at d=64".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned, split tail, 16-byte dK/dV stores" \
        "tuned four slots, split tail" "tuned four slots, split tail, 16-byte dK/dV stores"

Run 18 (v0.34, results/2026-12-02_h200_v0.34_probes/probe_bwd_run18_d256.txt): d=256's tuned tile against its rings
re-cut: one dQ buffer per warpgroup, alone or with a second dO or Q slot, or a second dO slot with 32-column dQ chunks.
All correct, all slower (-3% to -9%): the single dQ buffer costs 4-6% and neither second slot buys it back.

Run 22 (v0.34, prepared): the tuned forms with their float32 dQ tiles stored without bank conflicts
(``spread_dq_stores``), against the same forms as tuned. Compiled for sm_90a on the CPU: the same stores, one select
per dQ register more. Prediction: d=256 +2-5% (its P^T tile's conflicts, as many bytes per step, were worth +3-6% in
probe run 21), d=128 +1-4% at N <= 2k, d=64 +0-3%. Check path first: "backward: fused five-product (Gluon), dQ stored
without bank conflicts".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 128 256 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (last candidate)" \
        "tuned, 16-byte dK/dV stores" "tuned, dQ stored without bank conflicts"

Run 22's result (v0.35, results/2026-12-02_h200_v0.35_probes/probe_bwd_run22.txt; check path 17/17 PASS): d=128
+0.5% to +4.9% (non-causal 2k 486 -> 510 TFLOP/s), the prediction held; d=64 -0.3% to -1.8%, missed; d=256 -8% to -14%
(non-causal 2k 408 -> 353), far outside it. d=128's last candidate takes the stores; "tuned (last candidate)" stays
the form run 22 timed.

Run 23 (v0.35): the tuned persistent forms (d=128's with spread dQ stores) reading each block's LSE row from shared
memory right after the S^T and dP^T products' issue, not after S^T's wait (``early_lse``). ncu run 15 (d=128
non-causal 1k) put 7% of the MMA warps' stall samples on that row's first uses. Prediction: d=128 +2-5%, d=64 +1-4%
(the same read, fewer cycles per block to hide it in). Check path first: "backward: fused five-product (Gluon), LSE
row read before the S^T wait".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 128 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.35)" \
        "tuned (v0.35), LSE read before the S^T wait"

Run 23's result (v0.35, results/2026-12-02_h200_v0.35_probes/probe_bwd_run23.txt; check path 17/17 PASS): missed.
d=128 +0.6% to +2.6% at N <= 2k and -0.9% to -2.1% at 16k, d=64 -0.4% to -1.6%, within the probe's spread (the same
d=128 tuned form gave 415-430 TFLOP/s at non-causal 1k in runs 22-23). Not a candidate.

Run 26 (v0.39, prepared): the tuned persistent forms claiming their non-causal key blocks one at a time, in order
(``noncausal_claims``), against the same forms with the round-robin and its last round split (``split_tail``). v0.39's
forward claims gained 4.4% / 2.7% at d=128 non-causal 1k / 2k because the round-robin's programs with the same 16
tiles ended up to a tile apart (round_times.py, call 7). The backward's split tail (v0.23, +2-7% at N <= 2k) evens
the last round but keeps each program's whole rounds static. Prediction, to be checked first with program_ends.py at
non-causal 1k (a spread of 10-15 µs expected): d=128 -2% to +3% at 1k-2k (the spread won against the partial last
round lost), level at 16k; d=64 likewise. Check path first: "backward: fused five-product (Gluon), non-causal claims".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 64 --rounds 3 --causal no --seqlens 1024 2048 16384 --forms "tuned (v0.39)" \
        "tuned (v0.39), non-causal claims"

Run 26's result (v0.40, results/2026-12-02_h200_v0.40/call1_probe_bwd_run26.txt): the claims +4.0% at d=128
non-causal 1k, +1.0% at 2k, -2.2% at 16k; d=64 -3% to -4%. A third d=128 candidate since v0.40.

Run 27 (v0.41; the forms and the kernel option are in results/2026-12-02_h200_v0.41/convert_dq.patch, not in the
code): the tuned forms writing dQ themselves (``convert_dq``): the dQ warp counted each query block's landed
reduce-adds (an acquire-release atomic after each one) and the last contributor read the block's float32 sum back
by TMA and stored it in bf16, so that the launcher's conversion pass (48 µs) was not needed. Prediction: +4-6% at 1k.
Outcome (call1_probe_bwd_run27_1k.txt; both check paths passed): d=64 377 -> 200 TFLOP/s non-causal, 262 -> 176
causal; d=128 split tail 438 -> 249, non-causal claims 446 -> 389, causal (the dynamic list) 318 -> 284. Slower
everywhere, most with the static schedules: not kept.

Run 28 (v0.41): d=64's tuned forms with two K/V slots (``kv_slots=2``). With one slot the loader requests a key
block's K_j, V_j (two new in-kernel descriptors, then 2 x 16 KB by TMA) only once the MMA warps have handed the
previous block's K/V back (``kv_empty``, after its last product), so the wait for them falls between two key blocks,
less the previous block's dK/dV epilogue. At 1k the d=64 backward's per-tile time is ~19% above 16k's (v0.40 grid:
~1.58 against ~1.32 µs), ~4 µs per key block of 16 tiles, the same number of key blocks per program (~31) at every
length. Prediction: if ~1-1.5 µs of that is the K/V wait, +3-5% at 1k, +1.5-2.5% at 2k, level at 16k, causal and not.
Check paths first: "backward: fused five-product (Gluon), two K/V slots at d=64" and its claimed key blocks.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 64 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.40)" "tuned (v0.40), two K/V slots" \
        "three slots (v0.40)" "three slots (v0.40), two K/V slots"

Run 28's result (v0.41, results/2026-12-02_h200_v0.41/call5_probe_bwd_run28.txt; check paths 17/17 PASS each): four
Q/dO slots non-causal 1k / 2k / 16k 375 -> 406, 436 -> 452, 491 -> 491, causal 261 -> 300, 346 -> 369, 460 -> 467
TFLOP/s. Both d=64 candidates take two K/V slots.

Run 29 (v0.41; the option and its forms are in results/2026-12-02_h200_v0.41/kv_prefetch.patch, not in the code):
d=128's tuned forms asking the L2 for each key block's K and V rows (``kv_prefetch``: ``prefetch.global.L2`` from the
loader warp) when the loader reaches the block, before its wait for the one K/V slot (a second slot does not fit at
d=128). Prediction: +1.5-2.5% at 1k, +0.5-1% at 2k, level at 16k. Outcome (call8_probe_bwd_run29.txt; check paths
17/17 PASS each): split tail non-causal 428 -> 435 / 501 -> 506 / 578 -> 574, claims 447 -> 438 / 504 -> 506 /
565 -> 569, causal 319 -> 321 / 422 -> 415 / 547 -> 545 TFLOP/s: within the probe's spread, -2% to +1.6%. Not kept.

Run 30 (v0.42): d=128's tuned one-slot forms with the key-block boundary's waits reordered. With one K/V slot the
loader waits for the MMA warps to release it (after the tile's last dV and dK products) before anything of the next
key block: then the K/V descriptors and K_j, V_j (64 KB), then the Q/dO descriptors, the first query block's LSE/D
rows (plain loads) and its Q/dO (32 KB), so the MMA warps, once done storing the block's dK/dV, wait for that whole
chain. ``queries_first``: the first two query blocks' loads are requested as ring slots free, and the K/V descriptors
written, before the slot wait, leaving the K/V request's own latency. ``early_kv_release``: the MMA warps release the
slot after the last query block's dQ product (K_j's last reader), two products earlier. Prediction (from v0.41's d=64
result, where a second slot removed ~2.3 µs per key block): the chain costs ~1.5-2.5 µs a key block (nc 1k: ~16 query
blocks, ~45-50 µs); queries first +2-4% at non-causal 1k, +3-6% causal 1k (9 query blocks a key block on average),
+1-2% at 2k, level (within 1%) at 16k; the early release +1-2% at 1k alone; both +3-5% non-causal 1k, +4-7% causal 1k.
Check paths first: "backward: fused five-product (Gluon), queries first and early K/V release at d=128" and its
claimed key blocks.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 3 --seqlens 1024 2048 16384 --forms "tuned (v0.41)" \
        "tuned (v0.41), queries first" "tuned (v0.41), early K/V release" "tuned (v0.41), both" "claims (v0.41)" \
        "claims (v0.41), both"

Run 30's result (v0.42, results/2026-12-02_h200_v0.42/call1_probe_bwd_run30.txt; the check paths with both options
34/34 PASS), TFLOP/s tuned -> queries first / early release / both: non-causal 1k 425 -> 442 / 417 / 432, 2k 500 ->
509 / 489 / 502, 16k 567 -> 577 / 563 / 565; causal 1k 319 -> 324 / 319 / 321, 2k 419 -> 423 / 415 / 416, 16k 552 ->
550 / 538 / 535; claims 446 / 502 / 571 -> both 428 / 498 / 561. Queries first +4.0% at non-causal 1k (the
prediction's top), +1.8% at 2k and 16k (above it), +1.6% / +1.0% / -0.4% causal (below it); the early release
loses 1-3%, alone and with queries first, so it was removed (``early_kv_release.patch`` in the results folder).

Run 31 (v0.42): queries first on both tuned forms, 5 rounds, 1k-16k. Prediction: claims + queries first +2-4% over
claims at non-causal 1k, +1-2% at 2k, level to +2% at 4k-16k; causal as run 30 (+1-2% at 1k-2k, level at 16k).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 128 --rounds 5 --seqlens 1024 2048 4096 16384 --forms "tuned (v0.41)" \
        "tuned (v0.41), queries first" "claims (v0.41)" "claims (v0.41), queries first"

Run 31's result (v0.42, results/2026-12-02_h200_v0.42/call2_probe_bwd_run31.txt; check paths 17/17 PASS each), TFLOP/s
without -> with queries first: split tail non-causal 1k 422 -> 439, 2k 495 -> 505, 4k 549 -> 549, 16k 576 -> 575;
claims non-causal 432 -> 428, 497 -> 499, 533 -> 538, 565 -> 560; causal (the same kernels in both columns) 1k
316 -> 322 and 314 -> 319, 2k 414 -> 414 and 411 -> 421, 4k 492 -> 484 and 478 -> 481, 16k 542 -> 544 and 546 -> 545.
The split tail's gain repeats (+4.0% at 1k, +2.0% at 2k); the claims form is level, against the +2-4% predicted at
1k; causal +1.6-1.9% at 1k, level beyond, as predicted. Both d=128 persistent candidates take it (v0.42).

Runs 32-34 (v0.44, d=256): the tuned role-split tile with Q, K, V and dO (run 32), K and V only (run 33), or all four
with Q and dO two-dimensional over their flattened rows (run 34) through descriptors made on the host
(``host_descriptors``; run 34's two-dimensional form: results/2026-12-02_h200_v0.44/flat_query_descriptors.patch):

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/fused_backward_persistent/probe.py \
        --head-dims 256 --rounds 5 --seqlens 1024 2048 16384 --forms "tuned (v0.43)" \
        "tuned (v0.43), K/V host descriptors" "tuned (v0.43), host descriptors"

Prediction (run 32): non-causal 1k +3-4%, causal 1k +2-3%, 16k level. Outcome (results/2026-12-02_h200_v0.44/,
bf16, TFLOP/s): all four through four-dimensional host descriptors 8-17% slower everywhere (non-causal 1k 355 ->
306, 16k 448 -> 375); K and V alone +0.5-2.5% everywhere (non-causal 1k 355 -> 361, 16k 448 -> 459; causal 1k 278 ->
285), d=256's candidate since; Q and dO two-dimensional (run 34) 351 / 429 at non-causal 1k / 16k against 361 / 451
(K/V alone) and 303 / 376 (four-dimensional). PERFORMANCE.md v0.44.
"""

import argparse
import contextlib
import os
import sys
from dataclasses import replace

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from flashio import configs, launch_plans, launchers
from flashio.configs import TileConfig

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tile_orders import cross_head_pairs, rotated_pairs  # noqa: E402 - benchmarks/experiments/tile_orders.py

FORMS = {
    64: {"ws": TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, kv_in_registers=True),
         "ws persistent": TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, kv_in_registers=True,
                                     persistent=True),
         "ws, LSE/D in shared": TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, kv_in_registers=True,
                                           stats_in_shared=True)},
    128: {"ws": TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True),
          "ws persistent": TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, persistent=True),
          "ws, LSE/D in shared": TileConfig(64, 128, 8, 2, "gluon", warp_specialised=True, stats_in_shared=True)},
}
for _d, _forms in FORMS.items():  # v0.18: the persistent form with LSE/D in shared memory, round-robin or listed
    _forms["ws persistent, LSE/D in shared"] = replace(_forms["ws, LSE/D in shared"], persistent=True)
    _forms["ws persistent, LSE/D in shared, balanced"] = replace(_forms["ws, LSE/D in shared"], persistent=True,
                                                                 balanced_schedule=True)
for _d, _forms in FORMS.items():  # v0.19: two dS^T tiles, one barrier per query block
    _forms["ws, LSE/D in shared, two dS tiles"] = replace(_forms["ws, LSE/D in shared"], ds_buffers=2)
    _forms["ws, LSE/D in shared, two dS tiles, 3 stages"] = replace(_forms["ws, LSE/D in shared"], ds_buffers=2,
                                                                    num_stages=3)
    _forms["ws persistent, LSE/D in shared, balanced, two dS tiles"] = replace(
        _forms["ws persistent, LSE/D in shared, balanced"], ds_buffers=2)
    _forms["ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages, one dQ tile"] = replace(
        _forms["ws persistent, LSE/D in shared, balanced"], ds_buffers=2, num_stages=3, dq_buffers=1)
    # controls of run 4 (d=64): three Q/dO slots with one dS^T tile; the persistent listed form with three slots
    _forms["ws, LSE/D in shared, 3 stages"] = replace(_forms["ws, LSE/D in shared"], num_stages=3)
    _forms["ws persistent, LSE/D in shared, balanced, 3 stages"] = replace(
        _forms["ws persistent, LSE/D in shared, balanced"], num_stages=3)
    _forms["ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages"] = replace(
        _forms["ws persistent, LSE/D in shared, balanced"], ds_buffers=2, num_stages=3)
    # run 6: at d=128 the control of the three-slot form (one dQ tile, one dS^T tile); at d=64 a fourth slot
    _forms["ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile"] = replace(
        _forms["ws persistent, LSE/D in shared, balanced"], num_stages=3, dq_buffers=1)
    _forms["ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages"] = replace(
        _forms["ws persistent, LSE/D in shared, balanced"], ds_buffers=2, num_stages=4)
for _d, _forms in FORMS.items():  # v0.19 (prepared): the key rows on two MMA partitions (backward_gluon_rows.py)
    _forms["rows persistent, balanced"] = TileConfig(64, 128, 4, 2, "gluon", warp_specialised=True, persistent=True,
                                                     stats_in_shared=True, balanced_schedule=True, split_rows=True)
    _forms["rows persistent, balanced, 3 stages"] = replace(_forms["rows persistent, balanced"], num_stages=3)
    _forms["rows persistent, balanced, 3 stages, K/V in registers"] = replace(_forms["rows persistent, balanced"],
                                                                             num_stages=3, kv_in_registers=True)
# v0.22 (prepared): a block's dV and dK products waited at the next block's S^T wait (two dS^T tiles)
for _stages in (3, 4):
    FORMS[64][f"ws persistent, LSE/D in shared, balanced, two dS tiles, {_stages} stages, late dK/dV wait"] = replace(
        FORMS[64][f"ws persistent, LSE/D in shared, balanced, two dS tiles, {_stages} stages"],
        late_key_gradient_wait=True)
# v0.23 (run 11): the tuned persistent forms (d=64: three Q/dO slots, two dS^T tiles; d=128: three slots, one dQ
# tile) with and without a split tail (non-causal calls: the last round's key blocks in pieces over all programs).
FORMS[64]["tuned"] = FORMS[64]["ws persistent, LSE/D in shared, balanced, two dS tiles, 3 stages"]
FORMS[128]["tuned"] = FORMS[128]["ws persistent, LSE/D in shared, balanced, 3 stages, one dQ tile"]
for _forms in FORMS.values():
    _forms["tuned, split tail"] = replace(_forms["tuned"], split_tail=True)
# v0.29's run 13 had "tuned, split tail, runs of 2" and "... runs of 4" (head_run, removed: head_runs.patch).
# v0.29 (prepared, run 14): the tuned form with its causal pairs of key blocks across two heads; the launcher's list
# patched in for the form's calls (CONTEXTS), so that non-causal calls run the tuned form unchanged.
for _forms in (FORMS[64], FORMS[128]):
    _forms["tuned, split tail, cross-head pairs"] = replace(_forms["tuned"], split_tail=True)
CONTEXTS = {"tuned, split tail, cross-head pairs": lambda: cross_head_pairs(forward=False, backward=True)}
# v0.32 (prepared, run 15): the tuned forms storing dK and dV 16 bytes at a time.
for _forms in (FORMS[64], FORMS[128]):
    _forms["tuned, split tail, 16-byte dK/dV stores"] = replace(_forms["tuned"], split_tail=True, wide_stores=True)
# v0.23 (prepared, run 12): d=256's role-split kernel, tuned (one key block per program), and in a persistent
# grid over a tile list (causal: the balanced list), without and with the split tail.
FORMS[256] = {"tuned": TileConfig(64, 64, 4, 1, "gluon", dq_chunks=4, dq_buffers=2, warp_specialised=True,
                                  split_roles=True)}
FORMS[256]["role split persistent"] = replace(FORMS[256]["tuned"], persistent=True, balanced_schedule=True)
FORMS[256]["role split persistent, split tail"] = replace(FORMS[256]["role split persistent"], split_tail=True)
# v0.32 (prepared, run 17): d=64's four-slot tuned form with and without them (tuned: the three-slot form with them).
FORMS[64]["tuned four slots, split tail"] = replace(
    FORMS[64]["ws persistent, LSE/D in shared, balanced, two dS tiles, 4 stages"], split_tail=True)
FORMS[64]["tuned four slots, split tail, 16-byte dK/dV stores"] = replace(FORMS[64]["tuned four slots, split tail"],
                                                                          wide_stores=True)
# v0.32 (prepared, run 16): d=256's tuned role-split tiles storing dK and dV 16 bytes at a time.
FORMS[256]["tuned, 16-byte dK/dV stores"] = replace(FORMS[256]["tuned"], wide_stores=True)
FORMS[256]["tuned, two Q slots"] = TileConfig(64, 64, 4, 2, "gluon", dq_chunks=8, dq_buffers=2, warp_specialised=True,
                                              split_roles=True)
FORMS[256]["tuned, two Q slots, 16-byte dK/dV stores"] = replace(FORMS[256]["tuned, two Q slots"], wide_stores=True)
# v0.34 (run 18): the tuned d=256 tile's rings. With one Q slot and one dO slot, Q_{i+1} is fetched only once B's dK_i
# product has read Q_i, and dO_{i+1} once A's dV_i product has read dO_i: each block's loads wait behind the last
# products that read the slot (the two-Q-slot tile bought its second slot with 32-column dQ chunks, and lost 4-11%).
# One dQ buffer per warpgroup instead of two frees 32 KB for a second Q or dO slot at 64-column chunks.
_TUNED_256 = FORMS[256]["tuned, 16-byte dK/dV stores"]
FORMS[256]["tuned, one dQ buffer"] = replace(_TUNED_256, dq_buffers=1)
FORMS[256]["tuned, two dO slots, one dQ buffer"] = replace(_TUNED_256, dq_buffers=1, do_stages=2)
FORMS[256]["tuned, two Q slots, one dQ buffer"] = replace(_TUNED_256, dq_buffers=1, num_stages=2)
FORMS[256]["tuned, two dO slots, 32-column dQ chunks"] = replace(_TUNED_256, dq_chunks=8, do_stages=2)
# v0.34 (prepared, run 22): the tuned forms with their float32 dQ tiles stored without bank conflicts (odd rows store
# the column block 16 columns over through a view that flips that column bit on odd rows: one select per register;
# gluon_stores.store_float32_spread). ncu run 14 (d=256): the plain stores take twice the ideal shared wavefronts,
# and their fence and barrier hold 14-18% of each MMA warpgroup's stall samples.
for _d in (64, 128):
    FORMS[_d]["tuned, dQ stored without bank conflicts"] = replace(configs.BACKWARD_FUSED_CANDIDATES[_d][-1],
                                                                    spread_dq_stores=True)
    # (v0.35: d=128's last candidate takes them; this form stays the one run 22 timed, without them.)
    FORMS[_d]["tuned (last candidate)"] = replace(configs.BACKWARD_FUSED_CANDIDATES[_d][-1], spread_dq_stores=False)
FORMS[256]["tuned, dQ stored without bank conflicts"] = replace(_TUNED_256, spread_dq_stores=True)
# v0.35 (run 23): the tuned persistent forms (d=128's with its spread dQ stores) reading each block's LSE row from
# shared memory right after the S^T and dP^T products' issue instead of after S^T's wait (ncu run 15: the first uses
# of that row held 7% of the d=128 MMA warps' stall samples).
for _d in (64, 128):
    FORMS[_d]["tuned (v0.35)"] = configs.BACKWARD_FUSED_CANDIDATES[_d][-1]
    FORMS[_d]["tuned (v0.35), LSE read before the S^T wait"] = replace(configs.BACKWARD_FUSED_CANDIDATES[_d][-1],
                                                                       early_lse=True)
# v0.36 (run 24): the tuned persistent forms with each head's causal pairs rotated (``tile_orders.rotated_pairs``). Run
# 24 ran them as the library's lists ("tuned (v0.36)") against "tuned (v0.36), unrotated pairs (v0.35 lists)" as the
# control: level, and the library kept its lists.
for _d in (64, 128):
    FORMS[_d]["tuned (v0.36)"] = configs.BACKWARD_FUSED_CANDIDATES[_d][-1]
    FORMS[_d]["tuned (v0.36), rotated pairs"] = configs.BACKWARD_FUSED_CANDIDATES[_d][-1]
CONTEXTS["tuned (v0.36), rotated pairs"] = lambda: rotated_pairs(forward=False, backward=True)
# v0.37 (run 25): the tuned persistent forms (d=64's three- and four-slot candidates) claiming their causal key blocks
# one at a time from one list (``dynamic_schedule``; v0.37's program_ends.py: the programs of the static lists end up
# to 16-22 µs after the median one at d=128 and d=64 causal 1k). Non-causal points run the forms unchanged.
for _d in (64, 128):
    FORMS[_d]["tuned (v0.37)"] = configs.BACKWARD_FUSED_CANDIDATES[_d][-1]
    FORMS[_d]["tuned (v0.37), dynamic tile list"] = replace(configs.BACKWARD_FUSED_CANDIDATES[_d][-1],
                                                            dynamic_schedule=True)
FORMS[64]["three slots (v0.37)"] = configs.BACKWARD_FUSED_CANDIDATES[64][0]
FORMS[64]["three slots (v0.37), dynamic tile list"] = replace(configs.BACKWARD_FUSED_CANDIDATES[64][0],
                                                              dynamic_schedule=True)
# v0.39 (run 26, prepared): the tuned persistent forms claiming their non-causal key blocks one at a time in order
# (``noncausal_claims``, the dynamic list's kernel form compiled non-causal) instead of the round-robin with its last,
# partial round split (``split_tail``, the tuned forms' since v0.23); causal points run the tuned forms unchanged.
for _d in (64, 128):
    FORMS[_d]["tuned (v0.39)"] = configs.BACKWARD_FUSED_CANDIDATES[_d][-1]
    FORMS[_d]["tuned (v0.39), non-causal claims"] = configs.BACKWARD_FUSED_CANDIDATES[_d][-1].claims_form()
# v0.41 (run 28): d=64's tuned forms (four and three Q/dO slots) with two K/V slots (``kv_slots=2``).
FORMS[64]["tuned (v0.40)"] = configs.BACKWARD_FUSED_CANDIDATES[64][-1]
FORMS[64]["three slots (v0.40)"] = configs.BACKWARD_FUSED_CANDIDATES[64][0]
for _name in ("tuned (v0.40)", "three slots (v0.40)"):
    FORMS[64][f"{_name}, two K/V slots"] = replace(FORMS[64][_name], kv_slots=2)
# v0.42 (runs 30-31): d=128's tuned one-slot forms (split tail / causal dynamic list; non-causal claims) with the key
# block's first query blocks requested before the K/V slot wait (``queries_first``).
FORMS[128]["tuned (v0.41)"] = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1], queries_first=False)
FORMS[128]["claims (v0.41)"] = replace(configs.BACKWARD_FUSED_CANDIDATES[128][1].claims_form(),  # v0.40-v0.42
                                       queries_first=False)
for _name in ("tuned (v0.41)", "claims (v0.41)"):  # (run 30's early-release forms: early_kv_release.patch)
    FORMS[128][f"{_name}, queries first"] = replace(FORMS[128][_name], queries_first=True)
# v0.44 (runs 32-33): d=256's tuned role-split tile with Q, K, V and dO (run 32), or K and V only (run 33), loaded
# through descriptors made on the host (``host_descriptors``) instead of written and fenced by each program's loader.
FORMS[256]["tuned (v0.43)"] = replace(configs.BACKWARD_FUSED_CANDIDATES[256][0], host_descriptors=0)
FORMS[256]["tuned (v0.43), host descriptors"] = replace(FORMS[256]["tuned (v0.43)"], host_descriptors=4)
FORMS[256]["tuned (v0.43), K/V host descriptors"] = replace(FORMS[256]["tuned (v0.43)"], host_descriptors=2)
# Run 34 (v0.44) also timed Q and dO through two-dimensional host descriptors over their flattened rows; that form
# is in results/2026-12-02_h200_v0.44/flat_query_descriptors.patch, not in the code.
POINTS = ((False, 1024), (False, 2048), (False, 16384), (True, 1024), (True, 2048), (True, 4096), (True, 16384))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--forms", nargs="+", choices=sorted(set(FORMS[64]) | set(FORMS[128]) | set(FORMS[256])),
                        default=list(FORMS[128])[:3],
                        help="forms to time (default: the first three, runs 1-2)")
    parser.add_argument("--head-dims", nargs="+", type=int, choices=(64, 128, 256), default=(64, 128))
    parser.add_argument("--rounds", type=int, default=1,
                        help="time cuDNN and the forms this many times in turn at each point, print the medians")
    parser.add_argument("--causal", choices=("both", "yes", "no"), default="both",
                        help="only the causal or only the non-causal points")
    parser.add_argument("--seqlens", nargs="+", type=int, default=None,
                        help="these sequence lengths (dividing 16384) instead of the points' own")
    args = parser.parse_args(argv)
    if args.seqlens is not None and any(n <= 0 or 16384 % n for n in args.seqlens):
        parser.error(f"--seqlens takes lengths that divide 16384 (16k tokens a batch), got {args.seqlens}")
    causal_kinds = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    points = [(causal, n) for causal in causal_kinds for n in args.seqlens] if args.seqlens is not None else \
        [(causal, n) for causal, n in POINTS if causal in causal_kinds]
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    torch.manual_seed(0)
    os.environ["FLASHIO_BACKWARD_PATH"] = "gluon"
    print("| d | causal | N | cuDNN | " + " | ".join(f"{name} (TFLOP/s, max diff)" for name in args.forms) + " |")
    print("|---|---|---|---|" + "---|" * len(args.forms))
    for d in args.head_dims:
        for causal, n in points:
            batch, heads = 16384 // n, 2048 // d  # batch*N = 16k tokens, hidden 2048 (the grid)
            q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
            scale = d ** -0.5
            flops = 2.5 * 4 * batch * heads * n * n * d / (2 if causal else 1)
            out, lse = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=scale, causal=causal,
                                                   dropout_p=0.0, seed=0)
            backward = lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd",
                                                            softmax_scale=scale, causal=causal, dropout_p=0.0,
                                                            seed=0, deterministic=True)
            os.environ.pop("FLASHIO_BACKWARD_PATH")
            reference = backward()
            os.environ["FLASHIO_BACKWARD_PATH"] = "gluon"
            leaves = [t.detach().clone().requires_grad_() for t in (q, k, v)]
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                graph = F.scaled_dot_product_attention(*leaves, is_causal=causal)
            cudnn = lambda: torch.autograd.grad(graph, leaves, do, retain_graph=True)  # no .grad accumulation
            rate = lambda fn: flops / triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median") / 1e9
            rates = {name: [] for name in ["cuDNN", *args.forms]}
            errors = {}
            run = lambda: launchers.attention_backward(do, q, k, v, out, lse, layout="bhnd", softmax_scale=scale,
                                                       causal=causal, dropout_p=0.0, seed=0)
            for _ in range(args.rounds):
                rates["cuDNN"].append(rate(cudnn))
                for name in args.forms:
                    if name in errors and not isinstance(errors[name], float):
                        continue  # failed in an earlier round, or not a form at this head dim
                    if name not in FORMS[d]:
                        errors[name] = f"not a d={d} form"
                        continue
                    configs.BACKWARD_FUSED_CANDIDATES[d] = (FORMS[d][name],)
                    launch_plans.clear()
                    try:  # the largest difference over the rounds (v0.21: a race showed in some rounds only)
                        with CONTEXTS.get(name, contextlib.nullcontext)():
                            errors[name] = max([errors.get(name, 0.0)] + [
                                float((a.float() - r.float()).abs().max()) for a, r in zip(run(), reference)])
                            rates[name].append(rate(run))
                    except Exception as exc:  # report and go on: one form's failure must not hide the others
                        errors[name] = f"{type(exc).__name__}: {str(exc)[:60]}"
                    launch_plans.clear()  # no plan recorded inside a context outlives it
            median = lambda values: f"{sorted(values)[len(values) // 2]:.0f}"
            cells = [median(rates["cuDNN"])]
            for name in args.forms:
                error = errors[name]
                cells.append(f"{median(rates[name])} ({error:.4f})" if isinstance(error, float) else error)
            print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
