"""GPU probe for the forward at the points where it trails cuDNN most (v0.13 grid: causal N <= 4k at d=64
and d=128, 0.82-0.92x cuDNN): forms of flashio's forward forced one at a time through the launcher, against
cuDNN's forward and flashio's tuned choice in the same process, bf16, batch*N = 16k tokens, hidden 2048.

Why (benchmarks/PERFORMANCE.md, v0.13): the v0.11 persistent Gluon forward took causal tiles heaviest first
over all heads, so the 132 programs at work at once read the K/V of ~132 different heads (at N = 1k the
heads' K/V are 64 MB in all, more than the 50 MB L2); the Triton persistent forward, which pairs a head's
heavy and light query blocks and walks the heads in order, led it at causal 1k-2k (v0.11 probe: 449 against
386 TFLOP/s at 2k). v0.13 gives the Gluon persistent kernel the paired, head-by-head order. Prediction: the
Gluon persistent forms +10-20% at causal 1k-2k (d=128: ~430 -> level with or above the Triton kernel, 369 at
1k / 411 at 2k in the v0.13 grid), unchanged non-causal (same order there); the ping-pong and separate-K/V
persistent forms, never run before, correct.

Each cell: TFLOP/s (max |O difference| to the analytic-default forward, which ``flashio.check`` compares
with the float32 reference); the forward through ``launchers.attention_forward`` as the bench times it.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py

Run 1 (v0.13, H200; results/2026-11-30_h200_v0.13_probes/probe_fwd_short.txt): prediction met at d=128 —
the paired Gluon persistent form at causal 1k / 2k / 4k / 8k 343 / 459 / 535 / 588 TFLOP/s (v0.11 probe,
heaviest first: 290 / 386 / 491 at 1k / 2k / 4k), ahead of the Triton persistent kernel from 2k on (443 at 2k)
but not at 1k (372); d=64 causal 2k / 4k / 8k 314 / 388 / 422; non-causal level with before. The ping-pong and
separate-K/V persistent forms: correct (forced check paths, 30 of 30 PASS with the plain persistent form) and
0-9% slower than the plain one (separate K/V most, at d=64 causal 4k-8k), so not tuned. The "flashio
(tuned)" column of run 1 timed the analytic default (the reference's launch plan stayed in place; fixed
since).

Run 2 (v0.14, H200; results/2026-11-30_h200_v0.14_probes/probe_fwd_short_run2.txt) adds the persistent form that stores its output from registers
(``output_from_registers``): Q handed back when a consumer's key loop ends, and the loader fetching the next
tile's first K/V block before its Q, so a tile no longer starts by waiting for a Q load issued only after the
previous output store. Compiled for sm_90a on the CPU: same stack as the TMA-store form (0 B non-causal, 40 B
causal at d=128), 64 4-byte global stores per thread per tile at d=128. Prediction: d=128 non-causal 1k
524 -> 550-575 TFLOP/s, causal 1k +3-6%, within 2% at N >= 4k; at d=64 similar in proportion. Beside it the
form that stages its output in a shared buffer of its own (``output_buffer``; TMA store waited for a tile
later; two K/V slots with separate K and V barriers to make room at d=128): the same prediction, without the
risk of the 4-byte stores.
It also adds the persistent form with 64-key blocks (four K/V slots, 82 KB of shared memory at d=64; no
stack non-causal, 8 B causal): half the diagonal block's masked work at causal N <= 2k (at 1k, 11% of the
products -> 6%) for twice the per-block softmax bookkeeping. Prediction: d=64 causal 1k-2k within +-5% of the
128-key form (218 / 314 in run 1), slower at N >= 4k and at d=128.
Outcome of run 2 (TFLOP/s, form that stages its output through Q -> output from registers): d=128 non-causal
1k 507 -> 531 (+5%, the low end of the prediction), non-causal 2k 554 -> 536, causal 1k 343 -> 347, 2k
469 -> 440, 4k 532 -> 533, 8k 541 -> 576 (the "within 2% at N >= 4k" was wrong both ways); d=64 better at every
point, +2-10% (non-causal 1k 359 -> 381, causal 1k 221 -> 243, 2k 314 -> 338, 8k 416 -> 448). So it replaced
the persistent form at d=64 and joined the d=128 candidates beside it. The output-buffer form: level with the
plain one (d=64 causal 2k 315, d=128 non-causal 1k 508): the hand-back gains, the third K/V slot it gives up
costs about as much. 64-key blocks: d=64 causal 1k 239 (+8% over the 128-key form, prediction +-5%), 2k 307
(-2%), 4k-8k 9-11% slower; d=128 causal 1k 366, the fastest Gluon form there, still below the Triton
persistent kernel (371) and the tuned choice (369); not tuned. Every form correct: forced check paths 30 of
30 PASS (check.txt), max |O difference| to the analytic default <= 0.0078.

Run 3 (v0.14, H200; results/2026-11-30_h200_v0.14_probes/probe_fwd_short_run3.txt) times the persistent form with three consumer warpgroups at d=64 (a 192-row
tile, FlashAttention-3's d=64 tile: while two warpgroups issue products the third's exponentials run; 160
registers per consumer thread, no stack non-causal, 40 B causal, compiled for sm_90a on the CPU) beside the
two-consumer form it would replace:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 64 --forms "Gluon persistent, output from registers" "Gluon persistent, three consumers"

First ``python -m flashio.check --skip-timing --skip-default-cases --paths "forward: Gluon, persistent, three
consumers"`` (a hang would be a barrier count error: the K/V slots are released by three consumers).
Prediction: d=64 +10-15% at causal 1k-2k over the two-consumer form (243 / 338 in run 2), enough to pass the
portable 64x64 kernel the tuner takes there (~300 / 340); +5-10% at N >= 4k and non-causal; the diagonal
block's masked work grows (192-row tiles: at causal 1k 6 query blocks of 192 instead of 8 of 128).
Outcome (TFLOP/s, two consumers -> three): prediction wrong. Non-causal 1k 375 -> 375, causal 1k 242 -> 180
(-26%), 2k 325 -> 285 (-12%), 4k 399 -> 406, 8k 442 -> 444. Correct: the forced check path 10 of 10 PASS
(check_three.txt; its d=64 cases end in a tile whose last consumers' rows are all past the sequence), max |O
difference| to the analytic default <= 0.0039. Not profiled: the causal compile's 32 B of stack (13 spill
stores at 160 registers per consumer thread, none non-causal) is the first suspect. Not tuned.

Run 4 (v0.15, prepared) times two ways of fetching a tile's Q earlier in the persistent form that stores its
output from registers. Today a consumer hands its Q buffer back when its key loop ends, after the last
block's softmax and P V product; the loader's fetch of the next tile's Q (from HBM: Q is read once) then
races the epilogue, and both consumers start the next tile together, so the tensor cores idle while they
wait. (a) ``early_q_release``: Q handed back right after the tile's last score product (the lead grows by
a softmax and a P V product, ~0.5 us at d=128); (b) ``q_buffers=2``: two sets of Q buffers, the next tile's
Q fetched a whole tile ahead (at d=128 only beside two K/V slots with separate barriers: 193 KB; the
column "output from registers, split K/V" is that form with one set). Compiled for sm_90a on the CPU: the
stack and spills of the forms they modify (d=64 0-8 B, d=128 40 B).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 330 python3 benchmarks/experiments/forward_short/probe.py \
        --forms "Gluon persistent, output from registers" "Gluon persistent, Q handed back early" \
        "Gluon persistent, output from registers, split K/V" "Gluon persistent, two Q buffers" \
        "Gluon persistent, two Q buffers, Q handed back early"

First ``python -m flashio.check --skip-timing --skip-default-cases --paths`` with the three forced paths
"forward: Gluon, persistent, Q handed back early", "..., two Q buffers", "..., two Q buffers, Q handed back
early" (a hang would be a barrier phase error). Prediction, from a tile of 8 key blocks at N = 1k taking
~17 us per program at d=128 (~8 us at d=64) and an exposed Q fetch of ~0.5-0.8 us: (a) +3-5% at d=128
non-causal 1k (531 in run 2), +2-4% at causal 1k-2k, +4-8% at d=64 1k-2k, within +-2% at N >= 8k; (b) the
same or up to 2 points more at d=64; at d=128 level with (a): what it gains on Q it may lose on the third
K/V slot (v0.13: separate K/V slots 0-9% slower).
Outcome of run 4 (TFLOP/s; output from registers -> Q handed back early / two Q sets; at d=128 two Q sets
beside the split-K/V form): correct (forced check paths 30 of 30 PASS, check_q.txt). d=64: early +2-5% at
N <= 4k (non-causal 1k 372 -> 389, causal 1k 244 -> 250, 2k 329 -> 338), level at 8k; two Q sets +1-4% at
every point (385 / 251 / 342, causal 8k 427 -> 439); both together no better than either. d=128: early
+1-2% at 1k, -3% to -6% at 2k-8k (causal 8k 588 -> 550); two Q sets +1-5% over their own split-K/V form
(non-causal 1k 478 -> 485), which is 4-10% slower than the three-slot form at N <= 2k. So the Q fetch is a
small part of the tile boundary's cost (prediction: +3-8%; met only at the low end, at d=64).

Run 5 (v0.15, prepared) times the register-capped d=64 form that runs two programs per multiprocessor
(64-key blocks, 80 registers per thread on entry: 112 / 104 per consumer thread, 65 KB of shared memory;
pipelined loop 16 B of stack, plain loop none; compiled for sm_90a on the CPU). Why: with one program per
multiprocessor, a tile's first scores and softmax, its last P V product and its epilogue run with the
tensor cores idle (both consumers cross the boundary together); at causal 1k a unit of two tiles has 9 key
blocks and two boundaries. The portable 64x64 kernel, with several programs per multiprocessor and
warp-level MMAs, leads every Gluon form there (307 against 251 TFLOP/s in run 4). A second program's key
loop fills the first's boundaries. Prediction: d=64 causal 1k-2k +15-25% over the best Gluon form of run 4
(251 / 342 -> 290-320 / 380-410, level with or past the tuned choice), non-causal 1k +5-10%, within +-5% at
causal 4k-8k; the plain loop within 5% of the pipelined one (the other program does the overlapping).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 64 --forms "Gluon persistent, output from registers" "Gluon persistent, two Q buffers" \
        "Gluon, two programs per SM" "Gluon, two programs per SM, plain loop"

First ``python -m flashio.check --skip-timing --skip-default-cases --paths "forward: Gluon, two programs per
multiprocessor" "forward: Gluon, two programs per multiprocessor, plain loop"``.
Outcome of run 5 (TFLOP/s, d=64 bf16; results/2026-11-30_h200_v0.15_probes/probe_fwd_short_run5.txt): correct
(20 of 20 PASS, check_two.txt). The plain loop two programs per multiprocessor: non-causal 1k 418 (best Gluon
form of one program per multiprocessor 386, tuned choice 390, cuDNN 436), causal 1k 299 (249 / 307 / 340),
2k 377 (340 / 362 / 398), 4k 403 (400 / 379 / 435), 8k 422 (435 / 447 / 455). Prediction met at causal 1k
(+20% over the best Gluon form) and non-causal 1k (+8%), below it at causal 2k (+11%), right at 4k-8k
(within -3% to +1%); wrong about the pipelined loop, which is 0-9% slower than the plain one here (its 16 B
of stack; the other program does the overlapping). The plain form joins the d=64 candidates.

Run 6 (v0.15; probe_fwd_short_run6.txt) times the same plain form storing its output from registers (no O
descriptor built, no TMA store and wait at the program's end: the non-persistent kernel takes
OUTPUT_FROM_REGISTERS since v0.15), and at d=128 the non-persistent pipelined form storing from registers:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 150 python3 benchmarks/experiments/forward_short/probe.py \
        --forms "Gluon, two programs per SM, plain loop" "Gluon, two programs per SM, output from registers"

Prediction (written before the run): +2-4% at d=64 causal 1k (short programs pay most for the output
descriptor and the store's wait), level at N >= 4k. Outcome: correct (10 of 10 PASS, check_two_out_regs.txt);
d=64 mixed, -2% to +3% (non-causal 1k 402 -> 392, causal 1k 292 -> 290, 4k 403 -> 411, 8k 432 -> 443): within
the run-to-run spread, so both forms are candidates; at d=128 the non-persistent form storing from registers
is 10-14% slower than the tuned persistent one at N <= 4k (non-causal 1k 457 against 526).

Run 7 (v0.15 prepared, run in v0.16; results/2026-11-30_h200_v0.16_probes/probe_fwd_short_run7.txt) times the persistent loop running on across
tiles (``across_tiles``): a tile's last P V product issued with the next tile's first score product, the
next tile's first softmax while it runs, the finished tile's epilogue after. Compiled for sm_90a on the CPU
(stack non-causal / causal): d=128 two Q sets beside two separate K/V slots 0 / 48 B (193 KB), one Q set
beside three slots 0 / 8 B (225 KB), two Q sets beside five 64-key slots 0 / 24 B; d=64 two Q sets 0 / 8 B.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py \
        --forms "Gluon persistent, output from registers" "Gluon persistent, across tiles" \
        "Gluon persistent, across tiles, one Q set" "Gluon persistent, across tiles, 64-key blocks"

First ``python -m flashio.check --skip-timing --skip-default-cases --paths "forward: Gluon, persistent, across
tiles" "forward: Gluon, persistent, across tiles, one Q set" "forward: Gluon, persistent, across tiles, 64-key
blocks"`` (its cases include rows that see no key and tiles with a consumer's block skipped). Prediction: the
boundary then costs its epilogue only, recovering 0.5-1 of the 1.5-1.9 block-times per tile: d=128
non-causal 1k +6-12% over the one-Q-set form without it (533 in run 4), causal 1k-2k +8-15%, +-3% at N >= 8k;
with one Q set the next tile's Q arrives a HBM latency after the hand-back, so about half of that; d=64 +3-6%.
Outcome: prediction wrong, the loop across tiles is slower almost everywhere (level only with one Q set at
d=128 causal 8k; TFLOP/s, per-tile loop -> across
tiles with two Q sets / one Q set / 64-key blocks): d=128 non-causal 1k 526 -> 495 / 494 / 464, 2k 551 ->
517 / 532 / 492, causal 1k 339 -> 314 / 325 / 335, 2k 429 -> 399 / 400 / 407, 4k 509 -> 482 / 504 / 472, 8k
570 -> 555 / 571 / 517; d=64 non-causal 1k 378 -> 354 / 358 / 320, causal 1k 241 -> 227 / 238 / 228, 8k 423 ->
413 / 411 / 365. Correct where it ran: every output within 0.0039 (0.0078 at d=64 causal 2k) of the analytic
default, as the per-tile form; the forced check paths ran out of their 200 s budget compiling after 2 of the
first path's cases (both PASS; check_across.txt). Not profiled; the suspects are the 48 B / 8 B of causal
stack and the finished tile's epilogue, which now waits behind the next tile's first softmax instead of
overlapping the loader's next fetch. Not tuned. v0.22: the forced check path with the grid-shaped cases
stopped at its third case (d=256 causal 1k) twice, for 400 s and more after its first two cases passed in
seconds (check_run25_all.txt, check_run27_rest.txt in results/2026-12-01_h200_v0.22_probes/; its d=256
form compiles on the CPU in 7 s): a hang, not the compiles v0.16 blamed. Slower everywhere it ran and hanging
at d=256: removed in v0.22 (the forms above no longer exist; the commands are the record of the run).

Run 8 (v0.16, prepared, not yet run) measures what the Triton warp-specialised persistent kernel's causal
mask costs: the kernel the tuner takes at d=128 causal 1k, where flashio is 0.849x cuDNN (v0.16 grid). Triton
3.6's partitioned loop allows no branch, so it compares and selects every score of every key block, not
only the diagonal block's; the form "no mask (timing only)" launches it with MAY_MASK=False (the output is
then wrong, its error column large; checked on the CPU interpreter: the patch changes the output and is
undone after the form). Arithmetic: at d=128 a score costs 512 tensor-core FLOPs (~0.135 clocks of an SM)
and ~6 FP32 operations of softmax (~0.047 clocks); the mask's two more add ~0.016 clocks, 12% of the
tensor-core time if nothing hides them, ~0 if the other consumer's products do.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --forms "Triton ws persistent" "Triton ws persistent, no mask (timing only)"

Prediction: +3-8% without the mask at causal N <= 4k, the same at non-causal 1k-2k (no mask there: MAY_MASK is
False already). If it is more, a mask applied to the diagonal block only is the lever (a Gluon form, or a
Triton version whose partitioned loop takes a branch).

Outcome (v0.17, run 8, results/2026-12-01_h200_v0.17_probes/): more than predicted, +9% / +10% / +19% / +27% at
d=128 causal 1k / 2k / 4k / 8k, +14-28% at d=64 causal; non-causal level. Run 9 timed the pipelined Gluon forms
with block 0 unmasked (v0.17) against the previous file (+1-9%) and the persistent plain loop (slower than the
Triton kernel at every causal point); run 10 found no Gluon form ahead of the Triton kernel at d=128 causal 1k.

Run 11 (v0.18, results/2026-12-01_h200_v0.18_probes/probe_run11_d128.txt) times two options against the forms
without them, three rounds in turn (``--rounds 3``, medians): ``half_diagonal`` (the first consumer's last key
block, whose second half none of its rows sees, computed over its first half) and ``balanced_schedule`` (the
persistent grids' causal tiles from a host-made list that evens out the last two rounds; flashio.schedules):

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 300 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 --rounds 3 --forms "Triton ws persistent" "Triton ws persistent, balanced" \
        "Gluon persistent (paired)" "Gluon persistent (paired), half diagonal" "Gluon persistent (paired), balanced" \
        "Gluon persistent (paired), half diagonal, balanced" "Gluon persistent, output from registers" \
        "Gluon persistent, output from registers, half diagonal, balanced"

Prediction: the list +1-3% at every causal point (its model: 1.9-2.9% at d=128), the half block +2-4% at
causal 1k, +1-2% at 2k, < 1% beyond. Outcome (bf16, d=128 causal 1k / 2k / 4k / 8k): the list +1 / +3.5 / +7
/ +7% on the Triton kernel (373 -> 377 at 1k), within the noise on the paired Gluon form; the half block alone
-1 to -2% (wrong); both on the form storing from registers +4-5% (1k 353 -> 371, 8k 598 -> 623; its causal
stack 40 -> 8 B). Run 12 (d=64, ``--forms "Gluon persistent, two Q buffers" "Gluon persistent, two Q buffers,
half diagonal, balanced" ...``): the two-Q-set form with both +1 / +4 / +6.5 / +6%. The half-diagonal forms
failed to compile non-causal in run 11 (an assertion, since a no-op there). Run 13 (v0.18,
probe_run13_d128.txt; ``--points causal:1024 causal:2048 causal:4096``) timed the register-storing form with
both options and its Q handed back after the last score product ("Gluon persistent, Q handed back early, half
diagonal, balanced"; ncu runs 4-5 found the consumers waiting for Q at each tile start): prediction +2-4% at
causal 1k, outcome slower at every point (364 / 428 / 496 against 369 / 471 / 561 TFLOP/s). Run 14
(probe_run14_d128.txt) timed "Gluon persistent, two Q buffers, half diagonal, balanced" (at d=128 beside two K/V
slots) against the three-slot form: prediction within ±3% at causal 1k, outcome 355 / 435 / 508 against 372 / 464
/ 523 at causal 1k / 2k / 4k and 439 against 491 non-causal 1k.

Run 15 (v0.18, prepared, not yet run): Q held in registers, its buffer handed back as soon as it is loaded
(``q_in_registers``; compiled for sm_90a on the CPU: no spills at d=64, 8 B of stack at d=128 causal as without
it). First ``python -m flashio.check --skip-timing --skip-default-cases --paths "forward: Gluon, persistent, Q in
registers"``, then

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --rounds 3 --forms "Gluon persistent, output from registers, half diagonal, balanced" \
        "Gluon persistent, Q in registers, half diagonal, balanced"

Prediction: +2-4% at d=128 causal 1k (most of the consumers' 7% wait for Q), +1-3% at causal 2k and non-causal
1k, within ±2% at N ≥ 4k; d=64 (two Q sets already) within ±2%.
Outcome (v0.19, results/2026-12-01_h200_v0.19_probes/probe_run15.txt, check_run15.txt: 10 of 10 PASS): d=128
wrong, slower everywhere — non-causal 1k 510 -> 489, causal 1k / 2k / 4k / 8k 373 -> 367, 477 -> 460, 544 -> 516,
605 -> 584 TFLOP/s (Q's 64 registers per consumer thread come out of the pipelining). d=64 (its Q-in-registers
form keeps the two Q sets, the other column has one) 385 -> 390, 256 -> 263, 353 -> 366, 403 -> 418, 434 -> 455.

Run 16 (v0.19) times d=256's tuned persistent form (64-key blocks, separate K/V slots) with the balanced tile
list, which v0.18 left out at d=256:

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 250 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 256 --rounds 3 --forms "Gluon persistent split K/V (d=256)" \
        "Gluon persistent split K/V, balanced (d=256)"

Prediction (the schedule's model): +1.2-2.7% at causal points. Outcome (probe_run16_d256.txt): wrong, slower at
every causal point — 1k / 2k / 4k / 8k 447 -> 423, 534 -> 529, 597 -> 567, 614 -> 594 TFLOP/s; non-causal 1k
594 -> 599 (the same kernel). Not profiled; d=256 keeps the round-robin pairs.

Run 17 (v0.19) puts run 15's d=64 form beside the one it would replace, the tuned persistent form with two Q
sets (same options but Q in registers):

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 64 --rounds 3 --forms "Gluon persistent, two Q buffers, half diagonal, balanced" \
        "Gluon persistent, Q in registers, half diagonal, balanced"

Prediction: +1-3% at causal 2k-8k, within ±2% at 1k. Outcome (probe_run17_d64.txt): non-causal 1k 387 -> 388,
causal 1k / 2k / 4k / 8k 258 -> 262, 355 -> 361, 399 -> 414, 431 -> 454 TFLOP/s (+0.3 to +5.3%; above the
prediction at 8k); it replaces the two-Q-set form in the d=64 candidates.

Run 18 (v0.20, prepared, not yet run): the d=64 causal 1k forward (0.91x cuDNN, the lowest d=64 forward point)
is the portable kernel's 64x64 tile, and ptxas serialises its warpgroup MMAs (every k-step closes its own group
and is waited for: warning C7515, read on the CPU in v0.20; `python -m flashio.bench.resources` counts them).
Two ways out, both compiled without the serialisation: the same tile with its masked key blocks' loop
unpipelined (``masked_loop_stages=1``: the C7515 case came from that loop; 135 registers instead of 120, still
three programs per multiprocessor), and the descriptor kernel's 64x64 tile, which has not been a d=64
candidate (106 registers, three programs). First their forced check paths ("forward: portable, masked loop
unpipelined", "forward: tensor descriptors, 64x64 tiles"), then

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 240 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 64 --rounds 3 --points causal:1024 causal:2048 noncausal:1024 --forms \
        "Triton portable 64x64 (d=64)" "Triton portable 64x64, masked loop unpipelined (d=64)" \
        "Triton descriptors 64x64 (d=64)" "Triton descriptors 64x64, 4 stages (d=64)"

Prediction: either +3-8% over the portable tile as tuned at causal 1k (cuDNN's 333 TFLOP/s against 303 in the
v0.20 grid), which would make it the tuned choice there; the winner joins its candidate list (for the portable
kernel: the option on its 64x64 tile, or on every tile if the other points agree).
Outcome (v0.21, H200, bf16, medians of 3, TFLOP/s; cuDNN 337 / 389 / 437 at causal 1k / causal 2k /
non-causal 1k): portable 64x64 296 / 347 / 388, masked loop unpipelined 278 / 314 / 354, descriptors 64x64
225 / 294 / 317 (4 stages 222 / 300 / 319): the serialised portable tile stays fastest; the option was removed,
last in commit 392c891.

Run 19 (v0.23): one exponential in k of the unmasked blocks by a polynomial on the FMA units (FlashAttention-4's
software exponential) on the tuned d=64 forms: slower in proportion to the share (-1 to -7% at one in 8, -15
to -20% at one in 2; benchmarks/PERFORMANCE.md v0.23); removed, its forms and kernel code are the patch
results/2026-12-01_h200_v0.23_probes/polynomial_exp2.patch.

Run 20 (v0.23): the tuned persistent forms with and without a split tail (the last, partial round's tiles cut
along their keys into one run per program, each piece's unnormalised O and row statistics merged by a second
kernel), after its forced check path (15 of 15 PASS); the forms and kernel code are the patch
results/2026-12-01_h200_v0.23_probes/forward_split_tail.patch, run with

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 90 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 --rounds 1 --skip-tuned --points noncausal:1024 noncausal:2048 \
        --forms "tuned persistent" "tuned persistent, split tail"

and again at noncausal:4096 noncausal:16384 (the session's last device seconds: one round each). Prediction
(from the backward's split tail): +3-6% at N <= 2k, +2% at 16k. Outcome, d=128 bf16, TFLOP/s without / with:
1k 535 / 499, 2k 590 / 598, 4k 668 / 646, 16k 631 / 636 (cuDNN 606 / 649 / 668 / 672): wrong, -7% at 1k. A
forward tile is short (8 key blocks of two products at 1k, against the backward's 16 query blocks of five),
so the extra pieces' tile overheads and the merge kernel cost more than the half round they save. Removed.

Run 21 (v0.24): the tuned persistent forms with the loader prefetching the next tile's Q rows into the L2
(``q_prefetch``; one ``prefetch.global.L2`` per 128-byte line, issued before the current tile's loads), after the
forced check path "forward: Gluon, persistent, next Q prefetched into the L2":

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 \
        noncausal:16384 --forms "tuned persistent" "tuned persistent, Q prefetched"

Why (v0.24 ncu run 9, d=128 non-causal 1k, the tuned form storing from registers): its consumers spend ~6.6% of
their stall samples waiting for their Q tile at each tile start (q_ready; 1193 of ~18,000 samples), another
~1.8% at the hand-back barrier before it. Their Q buffer goes back at the end of the key loop and the loader's
TMA load of the next Q (16 KB per consumer, never read before: HBM) lands a round trip later, while the
consumers have only the epilogue to do. Prediction: with the rows already in the L2 that wait roughly halves:
+2-4% at N = 1k (both masks), +1-2% at 2k, within 1% at 16k (one tile boundary in 128 key blocks).
Outcome (results/2026-12-01_h200_v0.24_probes/probe_fwd_run21_*.txt; check path 15 of 15 PASS): wrong, slower,
bf16 TFLOP/s without / with: d=128 non-causal 1k 503 / 479, 2k 575 / 552, 16k 637 / 641, causal 1k 373 / 351,
2k 492 / 460; d=256 non-causal 1k 596 / 574, 2k 669 / 640, causal 1k 444 / 434.
Run 22 (v0.24): the same with the TMA unit's asynchronous bulk prefetch (``cp.async.bulk.prefetch.L2``: the
whole tile in one when its rows are contiguous, as here) instead of the line prefetches, which are load
instructions of the loader warp itself: level to slower, d=128 non-causal 1k 499 / 500, 2k 575 / 558, 16k 624 /
616, causal 1k 369 / 363, 2k 487 / 474; d=256 594 / 582, 652 / 632, 443 / 439 (probe_fwd_run22_*.txt; check 15 of
15 PASS). So the wait at the tile start is not HBM latency that an earlier fetch could hide: a 32 KB TMA load
from the L2 still lands most of a microsecond after the hand-back that allows it. Removed; the option, its
check path and tests are results/2026-12-01_h200_v0.24_probes/q_prefetch_bulk.patch (the line form's helper
beside it).

Run 23 (v0.24): the Q hand-back after the last score product again (``early_q_release``; run 13 measured it 2-12%
slower), now from a step of its own after the key loops instead of a branch in every step. The sm_90a SASS of
run 13's form shows why it lost: with the hand-back in the loop body, every step waits for its P V product
(``WARPGROUP.DEPBAR.LE gsb0, 0x0``) right after its scores, before its softmax. Peeled, the loop bodies are
the tuned form's, and the last step arrives on ``q_empty`` between its score wait and its P V wait. After the
check path "forward: Gluon, persistent, half diagonal block, Q handed back early":

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 110 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 \
        noncausal:16384 --forms "tuned persistent" "Gluon persistent, Q handed back early, half diagonal, balanced"

Prediction: the next tile's Q load starts about one key block (~2 µs at 1k) before the end of the key loop
instead of after it, and it takes ~0.8 µs from the L2 (runs 21-22), so the consumers' wait at the tile start
(ncu run 9: ~6.6% of their stall samples) mostly goes: +3-6% at N = 1k, +1-3% at 2k, within 1% at 16k. Against
it: the form keeps 8 values per tile on the stack (26 spill stores at d=128 non-causal, none in the key loops)
and adds a third copy of a step's code.
Outcome (results/2026-12-01_h200_v0.24_probes/probe_fwd_run23_d128.txt; check path 15 of 15 PASS): wrong, slower
everywhere, by most at non-causal 16k, where the hand-back is one step in 128. TFLOP/s tuned / peeled: non-causal
1k 520 / 461, 2k 585 / 517, 16k 638 / 583; causal 1k 373 / 357, 2k 497 / 467. The kernel grew from 5512 to 7232
instructions (non-causal), and each consumer partition has its own copy. Its loop bodies' SASS has the same
structure as the tuned form's, so the likelier cause is instruction fetch or the spills, not the hand-back. That
is not profiled. Removed: results/2026-12-01_h200_v0.24_probes/early_q_release_peeled.patch (on 5c4a9aa's
kernels).

Run 24 (v0.24, run in v0.25): the tuned persistent forms with conditional rescaling in their key loop
(``lazy_rescale``, ``_lazy_online_softmax``: exponentials against the running maximum, which moves only when a
block's maximum exceeds it by more than 2^8). experiments/forward_gluon/wait_placement.py found that the online
softmax's dependency on each block's row maximum is what makes ptxas wait for the previous P V product before
the exponentials. In the option's sm_90a compile they run beside that product (520 exponentials between the
two waits per causal compile, against none for the tuned forms; `python -m flashio.bench.resources`). The cost
is a warpgroup-wide decision per block (a reduction through shared memory, two more barriers) and 24-48 B of
stack (causal; none in the loop's steady state, not checked at d=64). First the check path, whose cases now
include two with a late band of 6x keys (score maxima that jump mid-sequence: the rescaling branch):

    PYTHONPATH=src timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
        --paths "forward: Gluon, persistent, conditional rescaling"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 250 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 64 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
        causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, conditional rescaling"

Prediction: +3-8% at N <= 2k, where both consumers are at a tile boundary at once and nothing else fills the
tensor cores during their exponentials; +0-3% at 16k (0.98 of the matmul ceiling at d=128 already); d=64, whose
softmax is a larger share of a block, at the top of those ranges. Against it: the per-block decision's
barriers, and a second set of exponentials whenever a block rescales.
Outcome (results/2026-12-01_h200_v0.25_probes/probe_fwd_run24.txt; check path 17 of 17 PASS, the key-spike cases
among them): wrong, slower at every point. TFLOP/s tuned / conditional rescaling: d=128 non-causal 1k 529 / 464,
2k 577 / 522, 16k 640 / 610, causal 1k 373 / 340, 2k 488 / 449; d=64 non-causal 1k 391 / 337, 2k 445 / 364, 16k
469 / 395, causal 1k 263 / 239, 2k 365 / 330. ncu run 10 (d=64 non-causal 1k, the source page of both): 18% more
stall samples. The rescaling branch is rarely taken (the option executes fewer exponentials than the tuned form,
no alpha per block); the extra samples are at the exponentials (+58%: "wait" and "mio" throttle, now issued
while the register-operand P V product runs), the decision's branch (long scoreboard), and the barrier-parked
NOPs; the decision's own barrier holds few. Removed: results/2026-12-01_h200_v0.25_probes/
conditional_rescaling.patch.

Run 25 (v0.25): the tuned persistent forms with ping-pong turns between their consumers (``pingpong``; FlashAttention-3
section 3.1: one consumer's products are issued while the other runs its softmax). ncu run 11 read cuDNN's
forward on the H200: 1272 SASS instructions, every warpgroup MMA waited for at once (two
``WARPGROUP.DEPBAR.LE gsb0, 0x0`` in the code, no exponentials beside a product), named barriers between its
consumers (300k ``BAR.SYNC`` at d=128 non-causal 1k), the output through ``stmatrix`` and a TMA store. ptxas
already gives the tuned pipelined loop the same waits (v0.24), so a ping-pong turn is what cuDNN's loop has and
flashio's tuned one does not. v0.12 measured the persistent ping-pong form level at d=128 non-causal 1k and 1-7%
slower elsewhere, before the half diagonal block, the tile list and the output from registers. Compiled for
sm_90a on the CPU: 168 registers, no spills non-causal; causal stack 8 -> 32 B at d=128 (16 local loads), none at
d=64. Its check path (added after v0.25's device time ran out) goes first:

    PYTHONPATH=src timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
        --paths "forward: Gluon, persistent, tuned options, ping-pong"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 170 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 64 --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
        causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, ping-pong"

Prediction: within -5% to +3% of the tuned form at every point (v0.12's range, moved up by the turn's better fit
now that the loop waits for both products anyway); a gain, if any, at N <= 2k, where both consumers reach a tile
boundary together.
Run 25 (v0.26; results/2026-12-01_h200_v0.26_probes/probe_fwd_run25.txt; check path 17 of 17 PASS): slower at
every point, -1% to -4% (d=128 non-causal 1k 532 -> 516, 16k 650 -> 624; d=64 non-causal 1k 395 -> 391, causal
1k 266 -> 262). Inside the range, no gain at N <= 2k. Not a candidate.

Run 26 (v0.26): K's ring shallower than V's (``k_stages``), so that d=128 has room for two Q sets beside three V
slots. K_j's slot frees once S_j is computed, V_j's only after P_j V_j a step later: two K slots give the loader
about the lead that three joint slots give it, and 2 x 32 KB (K) + 3 x 32 KB (V) + 2 x 2 x 16 KB (Q) = 224 KB.
v0.15 measured the two Q sets beside two slots of each (128 KB), 10% slower at non-causal 1k, and v0.19 Q in
registers, 1-5% slower, so the second Q set never ran with the tuned ring's V depth. The tile-start Q wait it
removes was ~1 us of v0.24's ~3.6 us per tile boundary (ncu run 9). At d=256 the same K2/V3 ring (64-key blocks,
64 + 96 KB beside Q's 64 KB) gives V a third slot where the tuned form has two of each; no room for a second Q
set. Compiled for sm_90a on the CPU: 168 registers, 193 / 225 KB of shared memory (one / two Q sets) at d=128,
no spills non-causal, causal stack 8 / 24 B; warpgroup MMAs not serialised (12 groups, as the tuned form).

    PYTHONPATH=src timeout 150 python3 -m flashio.check --skip-timing --skip-default-cases --case-timeout 100 \
        --paths "forward: Gluon, persistent, two K slots, three V slots"
    PYTHONPATH=src FLASHIO_TUNING_CACHE=off timeout 200 python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 128 --rounds 2 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
        causal:2048 noncausal:16384 --forms "tuned persistent" "tuned persistent, K2/V3" \
        "tuned persistent, K2/V3, two Q sets"
    (the same at --head-dims 256 with the first two forms)

Prediction: d=128 with two Q sets +3-6% at non-causal and causal 1k, +1-3% at 2k, level at 16k (the Q wait is
~1 us per tile, a tile is ~16.7 us at 1k); K2/V3 with one Q set level with the tuned form (-2% to +1%), which
says whether the shallower K ring costs anything. d=256 K2/V3 +0-3% (V's third slot), most at 1k.
Run 26 (results/2026-12-01_h200_v0.26_probes/probe_fwd_run26_d*.txt; check path 17 of 17 PASS): prediction wrong.
TFLOP/s tuned / K2/V3 / K2/V3 with two Q sets, d=128: non-causal 1k 531 / 531 / 527, 2k 575 / 567 / 563, 16k
630 / 617 / 619, causal 1k 371 / 371 / 369, 2k 498 / 481 / 479; d=256 tuned / K2/V3: non-causal 1k 615 / 617, 2k
673 / 644, 16k 716 / 696, causal 1k 445 / 445, 2k 546 / 531. The second Q set bought nothing, and the shallower K
ring cost 1-4% from 2k on. ncu run 12 (d=128 non-causal 1k, both source pages): with Q fetched a tile ahead the
consumers' tile-start Q waits fell from 977 to 682 stall samples, but their per-step K/V waits rose from 158 to
~500 (all mbarrier waits 2640 -> 3165): the wait moved to the next tile's first K/V blocks, whose slots free only
as the last blocks of a tile finish. Removed: results/2026-12-01_h200_v0.26_probes/k_stages.patch.

Run 31 (v0.29, results/2026-12-01_h200_v0.29_probes/probe_fwd_run31.txt; both forced check paths 34 of 34 PASS
first): the tuned persistent form at d=128 with its tiles taken in runs of 2 or 4 consecutive work units of one head
from a tile list (the option ``head_run``: non-causal query blocks, causal pairs), so that all but the first tile
of a run start on K/V the program has just read; beside them the tuned form reading the plain round-robin from a
list (control: the listed kernel's code, the same order), and the Triton persistent form (the tuned causal 1k
choice) with runs of two pairs. Prediction (v0.28: K/V in the L2 +3.0% non-causal, +4.8% causal at 1k): runs of 2
+1-1.5% at 1k, level at 16k. bf16, median of 3 rounds, TFLOP/s tuned / control / runs of 2 / runs of 4, Triton
persistent / with runs of 2 (cuDNN): non-causal 1k 519 / 514 / 507 / 498, 509 / 516 (605); 2k 578 / 573 / 558 / 564,
522 / 533 (632); 16k 641 / 644 / 642 / 627, 566 / 574 (617); causal 1k 375 / 374 / 354 / 328, 377 / 370 (436); 2k 502
/ 495 / 486 / 454, 437 / 444 (516). Wrong: the Gluon form loses 2-4% non-causal and 4-13% causal with runs (the
list itself costs ~1%, the control), the Triton form moves within +-2%. With the round-robin the 8 programs on one
head's tiles (non-causal 1k) start them together and read its K/V at once; runs spread the programs at work over 2
or 4 times as many heads, and that costs more than the reuse saves. Removed: head_runs.patch.
Run 32 (v0.29, probe_fwd_run32.txt): the causal balanced lists with odd programs' pairs turned round (light, then
heavy; probe-only, ``tile_orders.alternating_pairs``), so that half the programs reach a tile boundary while the other half are
inside a tile: a test of whether tile starts that come all at once queue for memory together. d=128, bf16,
median of 3 rounds, tuned Gluon / alternating, Triton persistent / alternating (cuDNN): causal 1k 372 / 367, 375 /
373 (429); 2k 483 / 476, 428 / 430 (488). Level or slower: no sign that simultaneous tile starts cost.
Run 33 (prepared in v0.29, run in v0.30; results/2026-12-01_h200_v0.29_probes/call6.sh, output in
results/2026-12-01_h200_v0.30_probes/probe_fwd_run33.txt): causal pairs across two heads
(``tile_orders.cross_head_pairs``), which keep 8 programs on one head's query blocks at 1k and stagger the starts of
their second tiles by a key block. Prediction: +1-2% at d=128 causal 1k-2k, level at 4k; d=64 the same. Outcome,
median of 3 rounds, tuned Gluon within / across heads (cuDNN): d=128 1k 370 / 378 (430), 2k 467 / 483 (484), 4k
577 / 568 (540); d=64 1k 265 / 270 (338), 2k 363 / 368 (397), 4k 422 / 427 (434). The Triton persistent form
+0.5-4%. Right by this run at N <= 2k; the library's forward paired across heads at up to 16 blocks a head for
run 34 (results/2026-12-01_h200_v0.30_probes/cross_head_pairs.patch). Run 34 (v0.30, 5 rounds; probe_fwd_run34.txt):
the same points, forms "tuned persistent" (the library's lists then), "tuned persistent, within-head pairs" (the
control) and "tuned persistent, cross-head pairs" (at any length). TFLOP/s library / within / across: d=128 1k 376 /
373 / 375, 2k 486 / 490 / 494, 4k 565 / 582 / 567 (at 4k the library's list was the within-head one: one list
differs by 3% here); d=64 1k 270 / 265 / 270, 2k 362 / 363 / 367, 4k 417 / 427 / 428. Run 35 (9 rounds, the library
pairing across heads at N <= 2k still; probe_fwd_run35.txt), library / within: d=128 1k 369 / 371, 2k 481 / 482; d=64
1k 269 / 264, 2k 359 / 365. So d=64 causal 1k +1.9% in all three runs, d=128 1k +2.2 / +0.8 / -0.5%, 2k level.
Kept at N <= 1k, then reverted the same session: the tuner's first-call timings (tuner_listed.py) had the listed
candidates 1.4-2.5x slow with cross-head lists in 3 of 4 fresh processes, in none of 3 with within-head lists.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
        --rounds 3 --skip-tuned --points causal:1024 causal:2048 causal:4096 --forms "tuned persistent" \
        "tuned persistent, cross-head pairs" "Triton ws persistent, balanced" \
        "Triton ws persistent, balanced, cross-head pairs"

Run 36 (prepared in v0.31, not run): the tuned persistent forms storing their output 16 bytes at a time
(``wide_stores``: each row's words exchanged between its four lanes by two butterfly shuffle steps, then one
16-byte store per four words; no shared memory). Why: at d=128 non-causal 1k the LG throttle is 5.6% of the tuned
forward's stall samples and absent from cuDNN's, whose output goes through shared memory and a TMA store (v0.31,
experiments/backward_limiter/stall_reasons.py on ncu runs 11-12). Compiled for sm_90a on the CPU: at d=128 the 68
4-byte stores become 4 (the LSE rows) plus 16 of 16 bytes, for 64 more shuffles and ~200 more instructions in all
(5,512 -> 5,736 non-causal), the same 168 registers and 225.3 KB of shared memory; causal, its stack 8 -> 32 bytes,
reloaded once per tile. Prediction: +0.5-2% at 1k (the stalls sit in the epilogue, partly hidden by the other
consumer's products), level at 16k. Check path first: "forward: Gluon, persistent, tuned options, 16-byte output
stores".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
        --rounds 5 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
        --forms "tuned persistent" "tuned persistent, 16-byte output stores"

Run 36, run in v0.32 (results/2026-12-01_h200_v0.32_probes/probe_fwd_run36.txt; the check path passed 17 of 17
first), bf16, median of 5 rounds, TFLOP/s 4-byte / 16-byte stores (cuDNN): d=128 non-causal 1k 505 / 537 (580), 2k
573 / 596 (598), 16k 629 / 627 (610); causal 1k 370 / 397 (427), 2k 483 / 495 (484). d=64 non-causal 1k 389 / 397
(439), 2k 436 / 447 (452), 16k 473 / 475 (459); causal 1k 265 / 272 (339), 2k 360 / 377 (390). So +2-7% at N <= 2k
(more than predicted: +6.3% and +7.3% at d=128 1k), level at 16k; the tuned persistent forms take them (v0.32). The
form with the older stores is now "tuned persistent, 4-byte output stores".

Run 37 (v0.32): the same stores in the one-tile-per-program kernel, for the forms the tuner takes at d=64
non-causal (two programs per multiprocessor at 80 registers per thread, plain loop; the form storing from
registers at 4k) and d=128 non-causal 8k-16k (the pipelined tile, its output through Q's buffer by TMA).
Prediction: d=64 +1-4% at N <= 2k for the register-capped forms (their epilogues overlap the other program's key
loop, so less than the persistent form's), level at 16k; d=128 pipelined tile level (+-1%) at 16k, where its
epilogue is a small share. Check path first: "forward: Gluon, one tile per program, 16-byte output stores".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 64 128 \
        --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:2048 \
        --forms "Gluon, two programs per SM, plain loop" "Gluon, two programs per SM, output from registers" \
        "Gluon, two programs per SM, output from registers, 16-byte stores" "Gluon pipelined" "tuned persistent"

Run 45 (prepared in v0.38, not run; results/2026-12-02_h200_v0.38_prepared/call2_prepared.sh, after the check path
"forward: Gluon, persistent, split tail"): the tuned persistent forms with the non-causal round-robin's last, partial
round cut along its key blocks (``split_tail``; pieces merged by a second kernel). At every N of the grid d=128 has
2048 query blocks on 132 programs (15.5 rounds), d=64 4096 (31.03), d=256 1024 (7.76). With a tile costing its key
blocks plus 1.7 blocks of fixed cost (``schedules.TILE_OVERHEAD_BLOCKS``, a piece paying it too; the runs cut by that
cost), the busiest program shortens at 1k / 2k / 16k by 1.5% / 2.2% / 2.9% at d=128 (1k: 155.2 -> 152.9 block
times), 2.3% / - / 3.0% at d=64 and 1.6% / 2.3% / 2.9% at d=256. The merge reads the pieces' float32 slots (d=128
11-13 MB, d=64 1-4 MB, d=256 29-30 MB; written by the kernel during the tail, mostly still in the 50 MB L2) and takes a
launch: ~4.5 µs at d=128, ~2.5 at d=64, ~8 at d=256 (2 µs plus the bytes at ~5 TB/s). Prediction, net: d=128 level
at 1k (-1% to +1%), +0.5-2% at 2k, +1.5-3% at 4k-16k; d=64 +1-2% at 1k; d=256 -1% to -3% at 1k (the merge's bytes
outweigh the tail), level at 2k, +2-3% at 16k.

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 64 \
        256 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 \
        --forms "tuned persistent" "tuned persistent, split tail"

Outcome (v0.39 calls 3-5, H200, bf16, median of 3 rounds; the merge pipelined, 16 rows and 3 stages), round-robin /
split tail, TFLOP/s: d=128 1k 526 / 520, 2k 579 / 576, 4k 614 / 623, 8k 635 / 635, 16k 630 / 641; d=64 1k 394 / 387,
4k 458 / 460, 8k 463 / 469, 16k 465 / 475; d=256 1k 587 / 536, 2k 664 / 624, 4k 689 / 672, 8k 694 / 674, 16k 695 / 715.
Wrong at N <= 2k everywhere (d=256 -6% to -9%), +1.5-2.9% at 16k. The merge alone took 10-18 µs after a flush
(merge_cost.py), not the model's 2.5-8. Not a candidate.

Run 46 (v0.39 call 6): "tuned persistent, split tail, merge skipped" beside both (timing only): d=128 1k 539 / 543 /
555, 2k 597 / 599 / 601, 4k 628 / 628 / 631; d=256 1k 618 / 554 / 591, 2k 669 / 627 / 666. The kernel alone gains 3%
at d=128 1k and under 1% at 2k, and loses at d=256: a merge inside the kernel would not reach cuDNN at 1k either.

Run 47 (v0.39 call 8): the non-causal tiles claimed one at a time in the round-robin's order (then a patch of the
launcher's table; ``TileConfig.noncausal_claims`` since), after call 7 found the round-robin's programs with the same
16 tiles ending up to 15 µs apart at d=128 non-causal 1k (round_times.py). Prediction: d=128 +3-4% at 1k, ~+2% at 2k;
d=256 ~+1% at 1k. Round-robin / claims, TFLOP/s: d=128 1k 544 / 568, 2k 595 / 611, 4k 617 / 621, 16k 652 / 650; d=64
1k 394 / 423; d=256 1k 598 / 594, 2k 681 / 662. Held at d=128, more at d=64, wrong at d=256; d=64's and d=128's tuned
persistent forms take it ("tuned persistent, non-causal round-robin" is them without it).

Run 48 (v0.42): d=128's tuned persistent form with Q in registers (``q_in_registers``: Q read into registers as the
score products' A operand and its buffer handed back at the tile's start, so that the loader fetches the next tile's
Q during this one). Last measured at d=128 in v0.19 (run 15: 1-5% slower), on a form without the dynamic lists, the
16-byte output stores or the non-causal claims; it compiles now without spills (168 registers, no stack, causal and
non-causal, CPU compile for sm_90a). v0.39 call 2 measured ~1 µs between tiles at causal 1k, the next tile's Q wait.
Prediction: causal 1k +3-6%, non-causal 1k +2-4%, 2k +1-3%, 16k level to -1%; v0.19's result is the prior against.
Check path first: "forward: Gluon, persistent, tuned options, Q in registers at d=128".

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
        --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 causal:2048 noncausal:16384 \
        causal:16384 --forms "tuned persistent" "tuned persistent, Q in registers"

Outcome (v0.42 call 5, results/2026-12-02_h200_v0.42/call5_probe_fwd_run48.txt; check path 17/17 PASS), tuned / Q in
registers, TFLOP/s: non-causal 1k 550 / 562, 2k 605 / 608, 16k 650 / 654; causal 1k 390 / 382, 2k 522 / 499, 16k
641 / 613. +0.5-2.2% non-causal, -2% to -4% causal: not a candidate.

Run 49 (v0.45): d=256's persistent form (64-key blocks, separate K/V slots; the tuned choice at every d=256 forward
point of v0.44's grid) stages its output through Q's buffer: per tile and consumer a 32 KB shared store, an O
descriptor written in the kernel, a TMA store waited for, and only then Q handed back, so the next tile's 64 KB Q
load starts after all of that. Stored from registers instead (``output_from_registers``, never timed at d=256; its
check path has run it since v0.14), Q is handed back when the key loop ends and the loader fetches the next tile's
first key block before its Q (``KV_FIRST``). Compiled for sm_90a on the CPU: 168 registers, no stack non-causal,
causal stack 64 -> 24 B (4-byte stores) or 56 B (16-byte stores). Prediction: non-causal 1k +2-4%, 2k +1-2%, 16k
level (+-1%); causal 1k +3-5%, 2k +2-3%; 16-byte stores +1-2% more at N <= 2k (as at d=128, v0.32); the early Q
hand-back on top level (it lost at d=128 for its code, v0.24); the dynamic lists -2% to +3% (v0.37 run 44 on the
staged form).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 256 \
        --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
        causal:16384 --forms "tuned persistent" "d=256 persistent, output from registers" \
        "d=256 persistent, output from registers, 16-byte stores" \
        "d=256 persistent, output from registers, 16-byte stores, Q handed back early" \
        "d=256 persistent, output from registers, 16-byte stores, claims"

Outcome (v0.45 call 1, results/2026-12-02_h200_v0.45/call1/call1_probe_fwd_run49.txt; both check paths 4/4 PASS),
TFLOP/s, cuDNN / tuned persistent / from registers 4-byte / 16-byte / 16-byte + Q early / 16-byte + claims:
non-causal 1k 597 / 601 / 520 / 615 / 572 / 602, 2k 620 / 665 / 601 / 664 / 614 / 638, 16k 655 / 732 / 681 / 693 /
660 / 729; causal 1k 452 / 447 / 389 / 434 / 421 / 441, 2k 507 / 557 / 510 / 551 / 529 / 564, 16k 579 / 680 / 704 /
689 / 647 / 720. The 4-byte stores lost 7-14% but at causal 16k (+3.5%; prediction +2-5%: wrong; a consumer's 64x256
block is 64 four-byte store instructions a thread against 16 wide ones, the likely cause, not measured); the 16-byte stores +2.3% at non-causal 1k only, level at 2k, -5% non-causal 16k, -3% causal
1k (wrong but for non-causal 1k); the early hand-back -5% to -8%; the claims -4% to +6%. The 16-byte form goes to
the tuner as a fourth d=256 candidate (PERFORMANCE.md v0.45: the grid took it at 14 of 20 forward points).

Run 50 (v0.45): d=128's tuned persistent form with its three-slot ring split into K and V slots with their own
barriers (``split_kv`` at three stages: 3 x 32 KB of K, 3 x 32 KB of V, the same 225 KB; never timed at d=128 with
three slots: v0.15's split form had two). K_j's slot is refilled once S_j is computed instead of after P_j V_j, so
at a tile's end the next tile's first K blocks load while the last softmax, P V product and epilogue run, and the
consumers may drift a block apart. Compiled for sm_90a on the CPU: 168 registers, no stack (causal stack 8 -> 0 B);
with ping-pong turns causal 8 B. Q in registers (run 48's form) again beside them, non-causal its only gain then.
Prediction: separate slots +1-3% at 1k, +0-1% at 2k, 16k level to -1%; with ping-pong -2% to +2% (ping-pong on the
shared ring lost 1-4% in v0.26); Q in registers as run 48 (+0.5-2% non-causal, -2% to -4% causal).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
        --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
        causal:16384 --forms "tuned persistent" "tuned persistent, separate K/V slots" \
        "tuned persistent, separate K/V slots, ping-pong" "tuned persistent, Q in registers"

Outcome (v0.45 call 2, results/2026-12-02_h200_v0.45/call2/call2_probe_fwd_run50.txt; check path 9/9 PASS), TFLOP/s,
cuDNN / tuned / separate slots / with ping-pong / Q in registers: non-causal 1k 591 / 566 / 543 / 545 / 580, 2k 600
/ 608 / 591 / 582 / 640, 16k 623 / 656 / 638 / 629 / 667; causal 1k 433 / 390 / 392 / 386 / 383, 2k 490 / 534 /
526 / 516 / 517, 16k 559 / 700 / 633 / 634 / 628. Separate slots -3% to -4% non-causal, level causal 1k, -1.5%
causal 2k, -10% causal 16k (prediction +1-3% at 1k: wrong); ping-pong no better; Q in registers as run 48 (+2% to
+5% non-causal, -2% to -10% causal). None is a candidate.

Run 51 (v0.46): the tuned persistent forms (d=64's, d=128's storing from registers, d=256's storing from registers 16
bytes at a time) with Q's tile loads through a descriptor that the launcher made on the host (``host_descriptors=1``)
and with Q's, K's and V's (``=3``). Today the loader writes three per-head descriptors to global memory at every tile
and fences them, after waiting for the previous tile's loads to land (they read the same scratch slots); the copy
engine then fetches each new descriptor before the first request through it. Q's request is the one the consumers
wait for at a tile's start (v0.24: ~6.6% of their stall samples at d=128 non-causal 1k); v0.44 found a program's
first product 1.25 µs sooner with host descriptors (d=256 backward, K/V). Compiled for sm_90a on the CPU: the same
168 registers and warpgroup MMAs, d=128 non-causal 5792 -> 5704 (Q) / 5496 (Q/K/V) instructions, the descriptor
writes gone with them (STS 44 -> 30 / 2). Prediction: Q through the host +2-4% at non-causal 1k, +2-5% at causal 1k
(shorter tiles, the same wait), +0-2% at 2k, 16k level; Q/K/V as Q at 1k if the loop's loads through four-dimensional
boxes cost nothing here, else down to -10% at 16k (v0.44: -16% in the backward's Q/dO loop with them, cause not
found).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py --head-dims 128 \
        --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 noncausal:16384 causal:1024 causal:2048 \
        causal:16384 --forms "tuned persistent" "tuned persistent, Q host descriptor" \
        "tuned persistent, Q/K/V host descriptors"

Outcome (v0.46 call 1, results/2026-12-03_h200_v0.46/call1/; both check paths 25 of 25 PASS, (B, N, H, D) cases
included), TFLOP/s, cuDNN / tuned / Q host / Q/K/V host: non-causal 1k 569 / 572 / 554 / 567, 2k 590 / 604 / 598 /
608, 16k 615 / 647 / 641 / 644; causal 1k 429 / 391 / 399 / 416, 2k 478 / 534 / 521 / 533, 16k 545 / 686 / 642 / 645.
Q alone: -3% to +2% (prediction +2-5% at 1k: wrong). Q, K and V: +6.4% at causal 1k (0.91 -> 0.97x cuDNN), level
(-1% to +1%) non-causal and at causal 2k, -6% at causal 16k, as Q alone there (a Q load a tile cannot cost 6% at 16k;
a second sample is run 52's). So the gain is the loader's, at a tile's start: with in-kernel descriptors it waits for
the previous tile's last loads, writes and fences three descriptors, and the next tile's first K/V request (issued
before its Q) goes through a descriptor the copy engine has not seen; causal 1k tiles have 4.5 key blocks on average.

Run 52 (v0.46): the same at d=64 and d=256 (their tuned persistent forms; d=256's storing from registers, 16-byte
stores), d=128's points again, and d=128's form with Q in registers (the non-causal tuned choice) with Q/K/V host
descriptors. Prediction: Q/K/V host +3-6% at causal 1k at d=64 and d=256, level to +2% at causal 2k and non-causal
1k; d=128 causal 1k +4-7% again; Q in registers with them level to +2% non-causal (its Q wait is hidden already, the
first K/V block's is not).

    PYTHONPATH=src FLASHIO_TUNING_CACHE=off python3 benchmarks/experiments/forward_short/probe.py \
        --head-dims 64 256 128 --rounds 3 --skip-tuned --points noncausal:1024 noncausal:2048 causal:1024 \
        causal:2048 causal:16384 --forms "tuned persistent" "d=256 persistent, output from registers, 16-byte stores" \
        "tuned persistent, Q/K/V host descriptors" "tuned persistent, Q in registers" \
        "tuned persistent, Q in registers, Q/K/V host descriptors"
"""

import argparse
import contextlib
import dataclasses
import os
import sys

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from flashio import configs, launch_plans, launchers, schedules
from flashio.check import forcing
from flashio.configs import TileConfig

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from tile_orders import alternating_pairs, cross_head_pairs, measured_tile_costs, rotated_pairs  # noqa: E402 - benchmarks/experiments/tile_orders.py


@contextlib.contextmanager
def _adjusted_launches(adjust):
    """Inside, every launch through ``launch_plans.launch`` takes the constants ``adjust(kernel, constants)``
    returns."""
    launch = launch_plans.launch
    launch_plans.launch = lambda kernel, grid, *args, **constants: launch(kernel, grid, *args,
                                                                          **adjust(kernel, constants))
    try:
        yield
    finally:
        launch_plans.launch = launch


@contextlib.contextmanager
def without_split_tail_merge():
    """Timing only, the cut tiles' rows are wrong: the split-tail forward launched without its merge
    (``launchers.combine_split_tail`` a no-op), so that its rate is the Gluon kernel's alone. Against the form with the
    merge it gives what the merge costs where it runs, after the kernel (its slots in L2, the launch queued)."""
    combine = launchers.combine_split_tail
    launchers.combine_split_tail = lambda *args, **kwargs: None
    try:
        yield
    finally:
        launchers.combine_split_tail = combine


def without_causal_mask():
    """Timing only, the output is wrong: the Triton warp-specialised kernels launched with MAY_MASK=False,
    so their key loop applies no mask in any iteration (it applies the causal mask in every one, Triton
    3.6's partitioned loop allowing no branch). The rate difference is what the mask costs."""
    from flashio.kernels import forward_ws

    ws_kernels = (forward_ws.attention_forward_ws_kernel, forward_ws.attention_forward_ws_persistent_kernel)
    return _adjusted_launches(lambda kernel, constants: dict(constants, MAY_MASK=False) if kernel in ws_kernels
                              else constants)


def dynamic_claims(**options):
    """The persistent Gluon forward's launches with a dynamic tile list get these probe constexprs too
    (``CLAIM_FIRST``, ``CLAIM_AHEAD``: kernels/forward_gluon.py ``_persistent_loader``; v0.36, prepared;
    ``LIST_READ_BY_CONSUMERS``, v0.48)."""
    from flashio.kernels import forward_gluon

    persistent = forward_gluon.attention_forward_gluon_persistent_kernel
    return _adjusted_launches(lambda kernel, constants: dict(constants, **options)
                              if kernel is persistent and constants.get("DYNAMIC") else constants)


def dynamic_form(**claims):
    """A probe form: the tuned persistent forms of d=64 and d=128 with the dynamic tile list, their launches given the
    loader's probe constexprs ``claims`` (``dynamic_claims``)."""
    return ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], dynamic_schedule=True),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], dynamic_schedule=True),)}},
        lambda: dynamic_claims(**claims))


def gluon(stages=3, block_n=128, **options):
    config = TileConfig(128, block_n, 4, stages, "gluon", pipelined=True, **options)
    return {"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {64: (config,), 128: (config,)}}


@contextlib.contextmanager
def short_blocks_moved(count):
    """The non-causal claim list with ``count(head_batches, programs, last_block_short)`` heads' short last query
    blocks claimed at the end, in place of ``schedules.short_last_blocks_moved`` (the library's: the last third of a
    round's), for the forms that v0.55 gives short last blocks (probe runs 73-74)."""
    original = schedules.short_last_blocks_moved
    schedules.short_last_blocks_moved = count
    try:
        yield
    finally:
        schedules.short_last_blocks_moved = original


def claims_in_head_order():
    """v0.54's non-causal claim order, every tile head by head (probe run 73)."""
    return short_blocks_moved(lambda head_batches, programs, short: 0)


def every_short_block_last():
    """Every head's short last query block claimed at the end (probe run 74)."""
    return short_blocks_moved(lambda head_batches, programs, short: head_batches if short else 0)


# d=64's three-consumer candidate and d=128's ninth as runs 53-59 timed them (v0.51 gave both published_coordinates;
# the generated forms below pin it off too).
THREE_CONSUMERS_V050 = dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][6], published_coordinates=False)
NINTH_V050 = dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][8], published_coordinates=False)
FORMS = {
    "Triton ws persistent": ({"FLASHIO_FORWARD_PATH": "ws"}, {"FORWARD_WS_CANDIDATES": {
        d: (TileConfig(128, 128, 4, 2, "ws", persistent=True),) for d in (64, 128)}}),
    # v0.16 (prepared, not yet run): the same without its per-iteration causal mask; timing only (the
    # "error" column is then large by construction).
    "Triton ws persistent, no mask (timing only)": ({"FLASHIO_FORWARD_PATH": "ws"}, {"FORWARD_WS_CANDIDATES": {
        d: (TileConfig(128, 128, 4, 2, "ws", persistent=True),) for d in (64, 128)}}, without_causal_mask),
    "Gluon pipelined": gluon(),
    "Gluon persistent (paired)": gluon(persistent=True),
    "Gluon persistent ping-pong": gluon(persistent=True, pingpong=True),
    "Gluon persistent split K/V": gluon(persistent=True, split_kv=True, stages=2),
    "Gluon persistent, output from registers": gluon(persistent=True, output_from_registers=True),
    "Gluon persistent, output buffer": gluon(persistent=True, split_kv=True, stages=2, output_buffer=True),
    "Gluon persistent, 64-key blocks": gluon(persistent=True, block_n=64, stages=4),
    # d=64 only: three consumer warpgroups do not fit their registers at d=128, which keeps its tuned form.
    "Gluon persistent, three consumers": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (TileConfig(192, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True),),
        128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True),)}}),
    # The same without the pipelined loop (prepared after run 3; 8 B of stack causal against 32 B).
    "Gluon persistent, three consumers, plain loop": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (TileConfig(192, 128, 4, 3, "gluon", persistent=True, output_from_registers=True),),
        128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True),)}}),
    # v0.15 (prepared): Q handed back after the tile's last score product; two sets of Q buffers (at d=128
    # beside two K/V slots with separate barriers, whose form without them is the column before).
    "Gluon persistent, output from registers, split K/V": gluon(persistent=True, output_from_registers=True,
                                                                split_kv=True, stages=2),
    "Gluon persistent, Q handed back early": gluon(persistent=True, output_from_registers=True, early_q_release=True),
    "Gluon persistent, two Q buffers": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                        q_buffers=2),),
        128: (TileConfig(128, 128, 4, 2, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                         split_kv=True, q_buffers=2),)}}),
    "Gluon persistent, two Q buffers, Q handed back early": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {
            64: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                            q_buffers=2, early_q_release=True),),
            128: (TileConfig(128, 128, 4, 2, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                             split_kv=True, q_buffers=2, early_q_release=True),)}}),
    # v0.15 (prepared): d=64 with 64-key blocks at 80 registers per thread, two programs per multiprocessor
    # (non-persistent grid); d=128 has no such form (its accumulator does not fit): its tuned persistent one.
    "Gluon, two programs per SM": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (TileConfig(128, 64, 4, 3, "gluon", pipelined=True, max_registers=80),),
        128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True),)}}),
    "Gluon, two programs per SM, plain loop": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (TileConfig(128, 64, 4, 3, "gluon", max_registers=80),),
        128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True),)}}),
    "Gluon, two programs per SM, output from registers": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {
            64: (TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True),),
            128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, output_from_registers=True),)}}),
    # v0.17: the persistent Gluon forward's plain loop (each consumer: S = Q K^T, its softmax, P V, each
    # product waited), the shape of the Triton ws persistent kernel but with a mask on the diagonal blocks
    # only (run 8: that kernel's every-block mask costs it 9-27% at d=128 causal).
    "Gluon persistent, plain loop": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        d: (TileConfig(128, 128, 4, 3, "gluon", persistent=True, output_from_registers=True),) for d in (64, 128)}}),
    # v0.18 (prepared): the first consumer's diagonal block over its first half (HALF_DIAGONAL), and the
    # persistent grids' causal tiles from a balanced list (flashio.schedules; LISTED).
    "Gluon persistent (paired), half diagonal": gluon(persistent=True, half_diagonal=True),
    "Gluon persistent (paired), balanced": gluon(persistent=True, balanced_schedule=True),
    "Gluon persistent (paired), half diagonal, balanced": gluon(persistent=True, half_diagonal=True,
                                                               balanced_schedule=True),
    "Gluon persistent, output from registers, half diagonal, balanced": gluon(
        persistent=True, output_from_registers=True, half_diagonal=True, balanced_schedule=True),
    # v0.18 "Next" item 1: the register-storing form with both options, its Q handed back after the last
    # score product (runs 4-5: the consumers wait for Q at each tile start).
    "Gluon persistent, Q handed back early, half diagonal, balanced": gluon(
        persistent=True, output_from_registers=True, early_q_release=True, half_diagonal=True,
        balanced_schedule=True),
    # v0.18 (prepared, not yet run): Q in registers, its buffer handed back as soon as it is loaded, so that
    # the next tile's Q is fetched during this one ("Next" item 1).
    "Gluon persistent, Q in registers, half diagonal, balanced": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {
            64: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                            q_buffers=2, half_diagonal=True, balanced_schedule=True, q_in_registers=True),),
            128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                             half_diagonal=True, balanced_schedule=True, q_in_registers=True),)}}),
    "Gluon persistent, two Q buffers, half diagonal, balanced": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {
            64: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                            q_buffers=2, half_diagonal=True, balanced_schedule=True),),
            128: (TileConfig(128, 128, 4, 2, "gluon", pipelined=True, persistent=True, output_from_registers=True,
                             split_kv=True, q_buffers=2, half_diagonal=True, balanced_schedule=True),)}}),
    "Triton ws persistent, balanced": ({"FLASHIO_FORWARD_PATH": "ws"}, {"FORWARD_WS_CANDIDATES": {
        d: (TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True),) for d in (64, 128)}}),
    # v0.19: d=256, the tuned persistent form (64-key blocks, separate K/V slots) round-robin or listed.
    "Gluon persistent split K/V (d=256)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        256: (TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True),)}}),
    "Gluon persistent split K/V, balanced (d=256)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        256: (TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True,
                         balanced_schedule=True),)}}),
    # v0.37 (prepared): the same form claiming its causal tiles one at a time from one list (v0.36: its round-robin
    # programs end at 110 / 147 / 152 µs at causal 1k, min / median / max).
    "Gluon persistent split K/V, dynamic (d=256)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        256: (TileConfig(128, 64, 4, 2, "gluon", pipelined=True, split_kv=True, persistent=True,
                         balanced_schedule=True, dynamic_schedule=True),)}}),
    # v0.24: the tuned persistent form of each head dim (runs 21-22 beside it: the patches' "Q prefetched").
    "tuned persistent": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][1],), 128: (configs.FORWARD_GLUON_CANDIDATES[128][2],),
        256: (configs.FORWARD_GLUON_CANDIDATES[256][1],)}}),
    # v0.42 (run 48): d=128's tuned persistent form with Q in registers (its buffer handed back once loaded); d=64's
    # tuned form has it already, d=256 has no registers for it.
    "tuned persistent, Q in registers": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][1],),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], q_in_registers=True),),
        256: (configs.FORWARD_GLUON_CANDIDATES[256][1],)}}),
    # v0.25: the tuned persistent forms with ping-pong turns between their two consumers (run 25).
    "tuned persistent, ping-pong": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], pingpong=True),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], pingpong=True),)}}),
    # v0.26's run 26 had "tuned persistent, K2/V3" and "tuned persistent, K2/V3, two Q sets" (k_stages=2, at d=128
    # with q_buffers=2; d=256 num_stages=3, k_stages=2); the option was removed after it:
    # results/2026-12-01_h200_v0.26_probes/k_stages.patch.
    # v0.29's run 31 had "tuned persistent, runs of 2", "... runs of 4" (the option head_run: non-causal query blocks,
    # causal pairs of one head taken in a row from a listed schedule), "tuned persistent, listed round-robin
    # (control)" and "Triton ws persistent, balanced, runs of 2"; the option was removed after it:
    # results/2026-12-01_h200_v0.29_probes/head_runs.patch. Run 32 (v0.29): the balanced lists with odd programs'
    # pairs turned round.
    "tuned persistent, alternating pairs": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][1],), 128: (configs.FORWARD_GLUON_CANDIDATES[128][2],)}},
        alternating_pairs),
    "Triton ws persistent, balanced, alternating pairs": ({"FLASHIO_FORWARD_PATH": "ws"}, {"FORWARD_WS_CANDIDATES": {
        d: (TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True),) for d in (64, 128)}},
        alternating_pairs),
    # v0.29's run 33 (run in v0.30): pairs across two heads at any length (``tile_orders.cross_head_pairs``).
    "tuned persistent, cross-head pairs": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][1],), 128: (configs.FORWARD_GLUON_CANDIDATES[128][2],)}},
        cross_head_pairs),
    "Triton ws persistent, balanced, cross-head pairs": ({"FLASHIO_FORWARD_PATH": "ws"}, {"FORWARD_WS_CANDIDATES": {
        d: (TileConfig(128, 128, 4, 2, "ws", persistent=True, balanced_schedule=True),) for d in (64, 128)}},
        cross_head_pairs),
    # v0.31 (prepared, run 36 in v0.32): the tuned persistent forms storing their output 16 bytes at a time, then
    # "tuned persistent, 16-byte output stores"; tuned since v0.32, so the form is now the one with 4-byte stores.
    "tuned persistent, 4-byte output stores": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], wide_stores=False),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], wide_stores=False),)}}),
    # v0.32 (prepared, run 37): the one-tile-per-program forms storing from registers, 16 bytes at a time.
    "Gluon, two programs per SM, output from registers, 16-byte stores": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {
            64: (TileConfig(128, 64, 4, 3, "gluon", max_registers=80, output_from_registers=True, wide_stores=True),),
            128: (TileConfig(128, 128, 4, 3, "gluon", pipelined=True, output_from_registers=True,
                             wide_stores=True),)}}),
    # v0.36 (run 38): the tuned persistent forms with each head's causal pairs rotated (``tile_orders.rotated_pairs``).
    # Run 38 ran them as the library's lists (its "tuned persistent"), against a form "tuned persistent, unrotated
    # pairs (v0.35 lists)" that was then the control: the library's lists again since the rotation lost.
    "tuned persistent, rotated pairs": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][1],), 128: (configs.FORWARD_GLUON_CANDIDATES[128][2],)}},
        rotated_pairs),
    # v0.36 (run 39): the tail of the causal lists assigned with measured tile times (``tile_orders.measured_tile_costs``;
    # N = 1k only).
    "tuned persistent, measured tile costs": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][1],), 128: (configs.FORWARD_GLUON_CANDIDATES[128][2],)}},
        measured_tile_costs),
    # v0.36 (run 40): the tuned persistent forms claiming their tiles one at a time from one list (dynamic_schedule).
    # (d=128's tuned form has it since; "tuned persistent, static tile list" is the form without it.)
    "tuned persistent, dynamic tile list": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], dynamic_schedule=True),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], dynamic_schedule=True),)}}),
    # v0.36 (prepared, run 42): the dynamic list's first entry claimed from the counter too (call 6's form), and each
    # claim issued a tile ahead.
    "tuned persistent, dynamic, first entry claimed": dynamic_form(CLAIM_FIRST=True),
    "tuned persistent, dynamic, claims a tile ahead": dynamic_form(CLAIM_AHEAD=True),
    "tuned persistent, static tile list": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], dynamic_schedule=False),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], dynamic_schedule=False),)}}),
    "tuned persistent, measured tile costs in the tail": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {64: (configs.FORWARD_GLUON_CANDIDATES[64][1],),
                                     128: (configs.FORWARD_GLUON_CANDIDATES[128][2],)}},
        lambda: measured_tile_costs(tail_only=True)),
    # v0.38 (prepared): the tuned persistent forms (d=256: its persistent form) with the non-causal round-robin's last,
    # partial round cut along its key blocks into one run per program, the pieces merged after the kernel
    # (``split_tail``); against "tuned persistent" at non-causal points.
    "tuned persistent, split tail": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], split_tail=True,
                                  noncausal_claims=False),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_tail=True,
                                  noncausal_claims=False),),
        256: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[256][1], split_tail=True),)}}),
    # v0.39 (run 46): the same without the merge (timing only): the kernel's own gain, the merge's cost in place.
    "tuned persistent, split tail, merge skipped": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], split_tail=True,
                                  noncausal_claims=False),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_tail=True,
                                  noncausal_claims=False),),
        256: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[256][1], split_tail=True),)}},
        without_split_tail_merge),
    # v0.39 (run 47, as a patch of the launcher's table then): d=64's and d=128's tuned persistent forms claim their
    # non-causal tiles one at a time since (``noncausal_claims``); this is them with the round-robin non-causal.
    "tuned persistent, non-causal round-robin": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][1], noncausal_claims=False),),
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], noncausal_claims=False),),
        256: (configs.FORWARD_GLUON_CANDIDATES[256][1],)}}),
    # v0.45 (run 49): d=256's persistent form storing its output from registers (Q handed back when the key loop ends),
    # with 16-byte stores, with Q handed back after the last score product, and claiming its tiles (dynamic causal
    # list, non-causal claims).
    "d=256 persistent, output from registers": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        256: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[256][1], output_from_registers=True),)}}),
    "d=256 persistent, output from registers, 16-byte stores": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {256: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[256][1],
                                                               output_from_registers=True, wide_stores=True),)}}),
    "d=256 persistent, output from registers, 16-byte stores, Q handed back early": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {256: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[256][1],
                                                               output_from_registers=True, wide_stores=True,
                                                               early_q_release=True),)}}),
    "d=256 persistent, output from registers, 16-byte stores, claims": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {256: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[256][1],
                                                               output_from_registers=True, wide_stores=True,
                                                               balanced_schedule=True, dynamic_schedule=True,
                                                               noncausal_claims=True),)}}),
    # v0.45 (run 50): d=128's tuned persistent form with separate K and V slots in its three-slot ring (K_j's slot
    # refilled once S_j is computed), alone and with ping-pong turns.
    "tuned persistent, separate K/V slots": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_kv=True),)}}),
    "tuned persistent, separate K/V slots, ping-pong": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][2], split_kv=True,
                                                               pingpong=True),)}}),
    # v0.46 (run 51): the tuned persistent forms with Q's loads, or Q's, K's and V's, through descriptors made on the
    # host (d=256: its form storing from registers, 16 bytes at a time).
    "tuned persistent, Q host descriptor": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        d: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[d][i], host_descriptors=1),)
        for d, i in ((64, 1), (128, 2), (256, 3))}}),
    "tuned persistent, Q/K/V host descriptors": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        d: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[d][i], host_descriptors=3),)
        for d, i in ((64, 1), (128, 2), (256, 3))}}),
    # v0.46 (run 52): d=128's tuned form with Q in registers (its non-causal choice since v0.45) with them.
    "tuned persistent, Q in registers, Q/K/V host descriptors": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][5],
                                                               host_descriptors=3),)}}),
    # v0.48 (run 53): d=64's tuned host-descriptor form (its fifth candidate) with three consumer warpgroups (a 192-row
    # tile), without the half diagonal (a two-consumer option) and Q in registers (it spills at 160 registers per
    # thread): the seventh candidate with the static causal list it had in run 53.
    "d=64 three consumers, host descriptors": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(THREE_CONSUMERS_V050, dynamic_schedule=False),)}}),
    "d=64 host descriptors": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (configs.FORWARD_GLUON_CANDIDATES[64][5],)}}),
    # v0.48 (run 55): the same claiming its causal tiles one at a time, the seventh candidate since.
    "d=64 three consumers, host descriptors, dynamic": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {64: (THREE_CONSUMERS_V050,)}}),
    # v0.48 (run 54): d=128's host-descriptor form (the grid's causal choice), and the same with Q handed back after the
    # tile's last score product.
    "d=128 host descriptors": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        128: (configs.FORWARD_GLUON_CANDIDATES[128][6],)}}),
    "d=128 host descriptors, Q handed back early": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][6], early_q_release=True),)}}),
    # v0.48 (run 56): the host-descriptor forms that claim tiles (d=64's seventh candidate, d=128's form 6) as v0.48
    # builds them (the loader publishes each claimed tile's id) and as v0.47 did (the consumers look the claimed entry
    # up in the list in global memory between tiles: the probe constexpr LIST_READ_BY_CONSUMERS).
    "claiming host forms (v0.48)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (THREE_CONSUMERS_V050,), 128: (configs.FORWARD_GLUON_CANDIDATES[128][6],)}}),
    "claiming host forms, consumers read the list (v0.47)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {64: (THREE_CONSUMERS_V050,),
                                     128: (configs.FORWARD_GLUON_CANDIDATES[128][6],)}},
        lambda: dynamic_claims(LIST_READ_BY_CONSUMERS=True)),
    # v0.49 (run 57): the host-descriptor forms of d=64 (two consumers, its sixth candidate), d=128 (form 6) and d=256
    # (its fifth), and d=64's three-consumer form, each as v0.48 builds it and with its masked key blocks through the
    # unmasked step's code (mask_by_branch: a run-time branch around the mask; one copy of the step per consumer).
    # Run 58: the same with the step's mask computed in every block, without a branch (mask_every_block).
    **{f"{name}{suffix}": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {d: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[d][index], **option,
                                                             published_coordinates=False),)
                                     for d, index in indices}})
       for name, indices in (("host forms", ((64, 5), (128, 6), (256, 4))), ("three consumers (d=64)", ((64, 6),)))
       for suffix, option in (("", {}), (", masks by branch", {"mask_by_branch": True}),
                              (", mask in every block", {"mask_every_block": True}))},
    # v0.50 (run 59): each tile's output stored while the next tile's first score product runs (overlap_tiles), on
    # d=128's form 6 and its mask-by-branch twin (the ninth candidate), d=64's two-consumer host form without Q in
    # registers (which the option excludes; the form without the option beside it) and its three-consumer form; each
    # also with Q handed back after the tile's last score product (early_q_release), so that the next tile's Q, which
    # the overlapped consumer waits for before its output, is fetched during the last block's softmax.
    **{f"{name}{suffix}": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {d: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[d][index],
                                                             **changes, **option, published_coordinates=False),)
                                     for d, index, changes in forms}})
       for name, forms in (("d=128 form 6", ((128, 6, {}),)), ("d=128 ninth (mask by branch)", ((128, 8, {}),)),
                           ("d=64 host form, Q in shared memory, claimed",
                            ((64, 5, {"q_in_registers": False, "dynamic_schedule": True}),)),
                           ("d=64 three consumers", ((64, 6, {}),)))
       for suffix, option in (("", {}), (", overlapped tiles", {"overlap_tiles": True}),
                              (", overlapped tiles, Q back early", {"overlap_tiles": True, "early_q_release": True}))},
    # v0.51 (run 60): each claimed tile's (block, head, batch) published packed by the loader (published_coordinates),
    # so that the consumers do not decode its id (two integer divisions) between tiles: d=128's forms 6 and 7 (the
    # tuned causal 2k-16k and non-causal forms) and the ninth (mask by branch, causal 1k), d=64's sixth (two consumers;
    # its causal calls run a static list, so only non-causal ones change) and seventh (three consumers) candidates.
    **{f"{name}{suffix}": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {d: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[d][index], **option),)}})
       for name, d, index in (("d=128 form 6", 128, 6), ("d=128 form 7 (Q in registers)", 128, 7),
                              ("d=128 ninth (mask by branch)", 128, 8), ("d=64 sixth (two consumers)", 64, 5),
                              ("d=64 three consumers", 64, 6))
       for suffix, option in (("", {"published_coordinates": False}),
                              (", published coordinates", {"published_coordinates": True}))},
    # v0.52 (run 62): d=64's three-consumer candidate (192-row tiles: at N = 1k the last of a head's six has 64 rows)
    # with 64-key blocks, and with four consumer warpgroups of 64 rows (256-row tiles, which divide every power-of-two
    # length from 256; 64-key blocks, as the fourth consumer's 112 registers hold no 64 x 128 score block), with three
    # and four K/V stages.
    **{name: ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][6], **changes),)}})
       for name, changes in (("d=64 three consumers (v0.51)", {}),
                             ("d=64 three consumers, 64-key blocks", {"block_n": 64}),
                             ("d=64 four consumers", {"block_m": 256, "block_n": 64}),
                             ("d=64 four consumers, four stages", {"block_m": 256, "block_n": 64, "num_stages": 4}))},
    # v0.52 (run 63): the four-consumer form with its masked key blocks through the unmasked step's code
    # (mask_by_branch), and d=64's two-consumer host form (its sixth candidate) with 64-key blocks (no half diagonal
    # then: its key blocks are a consumer's rows), the same form as v0.51 tuned it beside them.
    **{name: ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][index], **changes),)}})
       for name, index, changes in (
           ("d=64 four consumers, masks by branch", 6, {"block_m": 256, "block_n": 64, "mask_by_branch": True}),
           ("d=64 sixth (two consumers) (v0.51)", 5, {}),
           ("d=64 sixth (two consumers), 64-key blocks", 5, {"block_n": 64, "half_diagonal": False}))},
    # v0.53 (run 65): d=64's three-consumer candidate (the tuned non-causal form) with a fourth K/V slot (177 KB of
    # shared memory), beside itself.
    **{name: ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][6], **changes),)}})
       for name, changes in (("d=64 three consumers (v0.52)", {}),
                             ("d=64 three consumers, four stages", {"num_stages": 4}))},
    # v0.53 (run 66): d=64's three-consumer, four-consumer and four-consumer mask-by-branch candidates with their row
    # sums on the tensor cores (row_sum_mma), beside themselves.
    **{f"{name}{suffix}": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        64: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[64][index], **option),)}})
       for name, index in (("d=64 three consumers", 6), ("d=64 four consumers", 7),
                           ("d=64 four consumers, masks by branch", 8))
       for suffix, option in ((" (v0.53)", {}), (", row sums by MMA", {"row_sum_mma": True}))},
    # v0.54 (run 67): d=128's host form (the tuned choice from causal 2k and non-causal 2k up) and its mask-by-branch
    # form (causal 1k) with their row sums on the tensor cores (one 64-key block of ones for both consumers, the half
    # diagonal's products summed too), beside themselves; d=64's three-consumer form again (its P now summed in two
    # 64-key pieces).
    **{f"{name}{suffix}": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        head_dim: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[head_dim][index], **option,
                                       **({"half_diagonal": True} if head_dim == 128 else {})),)}})
       for name, head_dim, index in (("d=128 host form", 128, 6), ("d=128 masks by branch", 128, 8),
                                     ("d=64 three consumers", 64, 6))
       for suffix, option in ((" (v0.54)", {}), (", row sums by MMA (v0.54)", {"row_sum_mma": True}))},
    # v0.54 (run 69): d=128 with 64-key blocks: three consumer warpgroups (192-row tiles, d=64's three-consumer
    # candidate's options; 160 registers a consumer thread, no spills, 193 KB of shared memory with two Q sets), so
    # that while one consumer is in its tile's once-run phases two others issue products; and the two-consumer forms
    # with 64-key blocks (no half diagonal then) beside them.
    **{name: ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[source][index], **changes),)}})
       for name, source, index, changes in (
           ("d=128 three consumers, 64-key blocks", 64, 6, {"block_n": 64}),
           ("d=128 three consumers, 64-key blocks, masks by branch", 64, 6, {"block_n": 64, "mask_by_branch": True}),
           ("d=128 three consumers, 64-key blocks, one Q set, four stages", 64, 6,
            {"block_n": 64, "q_buffers": 1, "num_stages": 4}),
           ("d=128 host form, 64-key blocks", 128, 6, {"block_n": 64, "half_diagonal": False}),
           ("d=128 masks by branch, 64-key blocks", 128, 8, {"block_n": 64, "half_diagonal": False}))},
    # v0.54 (runs 67, 70, 71: the ninth candidate as it was then, with its half diagonal block)
    # v0.54 (run 70): d=128's mask-by-branch form (the causal 1k choice) with shorter tile boundaries: Q in registers
    # (its buffer handed back once loaded), two Q sets (the next tile's Q fetched during this one; room for them with
    # K and V in two split stages: 193 KB), both.
    **{name: ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][8], **{"half_diagonal": True, **changes}),)}})
       for name, changes in (
           ("d=128 masks by branch, Q in registers", {"q_in_registers": True}),
           ("d=128 masks by branch, two Q sets, split K/V in two stages",
            {"num_stages": 2, "split_kv": True, "q_buffers": 2}),
           ("d=128 masks by branch, two Q sets, split K/V in two stages, Q in registers",
            {"num_stages": 2, "split_kv": True, "q_buffers": 2, "q_in_registers": True}),
           # run 71: without the half diagonal block (v0.18's +4-5% was measured before the branch form): the first
           # consumer computes its whole diagonal block, with no second copy of the masked softmax to fetch.
           ("d=128 masks by branch, no half diagonal", {"half_diagonal": False}))},
    "d=128 host form, no half diagonal": ({"FLASHIO_FORWARD_PATH": "gluon"}, {"FORWARD_GLUON_CANDIDATES": {
        128: (dataclasses.replace(configs.FORWARD_GLUON_CANDIDATES[128][6], half_diagonal=False),)}}),
    # v0.55 (run 73): d=64's three-consumer candidate (the tuned non-causal form) with its short last query blocks (N =
    # 1k, 2k, 4k: 64 or 128 of 192 rows) claimed at the end, as the launcher now lists them, and in head order (v0.54).
    "d=64 three consumers, short last blocks claimed last": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {64: (configs.FORWARD_GLUON_CANDIDATES[64][6],)}}),
    "d=64 three consumers, claims in head order (v0.54)": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {64: (configs.FORWARD_GLUON_CANDIDATES[64][6],)}}, claims_in_head_order),
    # v0.55 (run 74): every head's short last block at the end: do the short tiles among the others cost those ~1 µs
    # each (call 4: a 1k tile 1 µs longer than the 2k-4k step and fixed cost say)?
    "d=64 three consumers, every short last block claimed last": ({"FLASHIO_FORWARD_PATH": "gluon"}, {
        "FORWARD_GLUON_CANDIDATES": {64: (configs.FORWARD_GLUON_CANDIDATES[64][6],)}}, every_short_block_last),
    # v0.56's run 75 had "d=64 seventh (three consumers)", "d=64 eighth (four consumers)", "d=64 tenth (four consumers,
    # branch, row sums)" and four forms of d=64's 256-row tile on two 128-row consumers (``consumer_rows=128``; measured
    # 5-17% slower than the tuned forms at every point and removed: results/2026-12-04_h200_v0.56/consumer_rows.patch
    # restores the option, its check paths and those forms).
    # v0.30's runs 34-35 had "tuned persistent, within-head pairs" (tile_orders' within-head lists, the control while
    # the library paired across heads; the same as "tuned persistent" since that was reverted).
    # v0.20 (prepared): d=64 with 64x64 tiles, the portable kernel (the tuned choice at causal 1k; ptxas serialises
    # its warpgroup MMAs) against the descriptor kernel, whose MMAs are not serialised.
    "Triton portable 64x64 (d=64)": ({"FLASHIO_FORWARD_PATH": "pointer"}, {"FORWARD_CANDIDATES": {
        64: (TileConfig(64, 64, 4, 3),)}}),
    "Triton descriptors 64x64 (d=64)": ({"FLASHIO_FORWARD_PATH": "tma"}, {"FORWARD_TMA_CANDIDATES": {
        64: (TileConfig(64, 64, 4, 3, "tma"),)}}),
    "Triton descriptors 64x64, 4 stages (d=64)": ({"FLASHIO_FORWARD_PATH": "tma"}, {"FORWARD_TMA_CANDIDATES": {
        64: (TileConfig(64, 64, 4, 4, "tma"),)}}),
}
POINTS = {128: ((False, 1024), (False, 2048), (True, 1024), (True, 2048), (True, 4096), (True, 8192)),
          64: ((False, 1024), (True, 1024), (True, 2048), (True, 4096), (True, 8192)),
          256: ((False, 1024), (True, 1024), (True, 2048), (True, 4096), (True, 8192))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--forms", nargs="+", choices=list(FORMS), default=list(FORMS), help="forms to time")
    parser.add_argument("--head-dims", nargs="+", type=int, choices=(64, 128, 256), default=(128, 64))
    parser.add_argument("--rounds", type=int, default=1,
                        help="time the forms this many times in turn at each point (cuDNN and the tuned call "
                             "first in each round) and print each one's median: A/B comparisons of a few "
                             "percent then do not rest on one timing taken minutes from the other's")
    parser.add_argument("--points", nargs="+", default=None,
                        help="these points instead of POINTS[d], as causal:N or noncausal:N (any N dividing 16384)")
    parser.add_argument("--skip-tuned", action="store_true",
                        help="no 'flashio (tuned)' column (it compiles every candidate at each point)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    forms = {name: FORMS[name] for name in args.forms}
    torch.manual_seed(0)
    print("| d | causal | N | cuDNN | flashio (tuned) | " + " | ".join(forms) + " |")
    print("|---|---|---|---|---|" + "---|" * len(forms))
    wanted = None
    if args.points is not None:
        try:
            wanted = {(kind == "causal", int(n)) for kind, n in (point.split(":") for point in args.points)}
        except ValueError:
            parser.error(f"--points takes causal:N or noncausal:N, got {args.points}")
        if any(n <= 0 or 16384 % n for _, n in wanted):
            parser.error(f"--points takes sequence lengths that divide 16384 (16k tokens a batch), got {args.points}")
    for d in args.head_dims:
        for causal, n in (sorted(wanted) if wanted is not None else POINTS[d]):
            batch, heads = 16384 // n, 2048 // d
            q, k, v = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
            flops = 4 * batch * heads * n * n * d / (2 if causal else 1)
            run = lambda: launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=causal,
                                                      dropout_p=0.0, seed=0)[0]
            rate = lambda fn: flops / triton.testing.do_bench(fn, warmup=5, rep=40, return_mode='median') / 1e9
            os.environ["FLASHIO_AUTOTUNE"] = "0"
            reference = run()
            del os.environ["FLASHIO_AUTOTUNE"]
            launch_plans.clear()  # run 1 left the default's launch plan in place: its "tuned" column timed that
            configs.clear_choices()

            def cudnn():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            rates = {name: [] for name in ["cuDNN", "tuned", *forms]}
            errors = {}
            for _ in range(args.rounds):
                rates["cuDNN"].append(rate(cudnn))
                rates["tuned"].append(float("nan") if args.skip_tuned else rate(run))
                for name, (environment, candidates, *patch) in forms.items():
                    if name in errors and not isinstance(errors[name], float):
                        continue  # failed in an earlier round
                    with forcing(environment, candidates), (patch[0]() if patch else contextlib.nullcontext()):
                        launch_plans.clear()
                        try:
                            errors[name] = float((run().float() - reference.float()).abs().max())
                            rates[name].append(rate(run))
                        except Exception as exc:  # report and go on: one form's failure must not hide others
                            errors[name] = f"{type(exc).__name__}: {str(exc)[:60]}"
                    launch_plans.clear()
            median = lambda values: f"{sorted(values)[len(values) // 2]:.0f}"
            cells = [median(rates["cuDNN"]), median(rates["tuned"])]
            for name in forms:
                error = errors[name]
                cells.append(f"{median(rates[name])} ({error:.4f})" if isinstance(error, float) else error)
            print(f"| {d} | {causal} | {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
