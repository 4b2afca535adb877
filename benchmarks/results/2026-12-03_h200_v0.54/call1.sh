#!/bin/bash
# v0.54 call 1: the row sums on the tensor cores with one 64-key block of ones per program (d=128's host and
# mask-by-branch forms with their half diagonal; d=64's three-consumer form summing P in two pieces; d=64's tenth
# candidate). (1) Each form in its own process against a float32 SDPA, with the shared-memory attributes CUDA gives its
# kernel; (2) the two row-sum check paths at d=64 and d=128; (3) probe run 67 (d=128, with and without) and run 68
# (d=64's three-consumer form with and without, five rounds; the tenth candidate at causal 1k-2k).
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
for form in "128 6" "128 8" "64 6" "64 9"; do
TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=off CUDA_LAUNCH_BLOCKING=1 timeout 150 python3 - $form <<'PY' 2>&1 | tail -6 | tee -a $OUT/which.txt
import sys, os, ctypes, dataclasses, torch
from flashio import configs, launchers
from flashio.kernels import forward_gluon
d, index = int(sys.argv[1]), int(sys.argv[2])
os.environ["FLASHIO_FORWARD_PATH"] = "gluon"
c = configs.FORWARD_GLUON_CANDIDATES[d][index]
configs.FORWARD_GLUON_CANDIDATES[d] = (dataclasses.replace(c, row_sum_mma=True),)
for causal, n in ((False, 1024), (True, 1024), (True, 1000)):
    q, k, v = (torch.randn(16384 // n, 2048 // d, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=d ** -0.5, causal=causal, dropout_p=0.0,
                                      seed=0)[0]
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal,
                                                           scale=d ** -0.5)
    print(f"d={d} form {index} + row sums", "causal" if causal else "non-causal", n, "max err",
          round(float((out.float() - ref).abs().max()), 5), flush=True)
cuda = ctypes.CDLL("libcuda.so.1")
def attribute(function, which):
    value = ctypes.c_int()
    status = cuda.cuFuncGetAttribute(ctypes.byref(value), which, ctypes.c_void_p(function))
    return value.value if status == 0 else f"error {status}"
for device, cache in forward_gluon.attention_forward_gluon_persistent_kernel.device_caches.items():
    for compiled in cache[0].values():
        compiled._init_handles()
        print(f"d={d} form {index}: Triton's shared {compiled.metadata.shared} B, CUDA static shared (SHARED_SIZE_BYTES)",
              attribute(compiled.function, 1), "max dynamic", attribute(compiled.function, 8),
              "opt-in limit", torch.cuda.get_device_properties(0).shared_memory_per_block_optin, flush=True)
PY
done
echo "which at ${SECONDS}s"
export TRITON_CACHE_DIR=$(mktemp -d)
FLASHIO_TUNING_CACHE=$(mktemp -d) timeout 240 python3 -m flashio.check --skip-timing --case-head-dims 64 128 \
    --paths "row sums on the tensor cores" --skip-default-cases --case-timeout 60 > $OUT/check.txt 2>&1
echo "check rc $? PASS $(grep -c PASS $OUT/check.txt) FAIL $(grep -c FAIL $OUT/check.txt) at ${SECONDS}s"
grep -E "FAIL|Traceback|Error:|TIMEOUT|timed out" $OUT/check.txt | head -8
FLASHIO_TUNING_CACHE=off timeout $((400 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 128 --rounds 3 --skip-tuned \
    --points causal:1024 causal:2048 causal:4096 causal:16384 noncausal:1024 noncausal:4096 noncausal:16384 \
    --forms "d=128 host form (v0.54)" "d=128 host form, row sums by MMA (v0.54)" "d=128 masks by branch (v0.54)" \
            "d=128 masks by branch, row sums by MMA (v0.54)" > $OUT/probe67.txt 2>&1
echo "probe 67 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe67.txt
FLASHIO_TUNING_CACHE=off timeout $((570 - SECONDS)) python3 benchmarks/experiments/forward_short/probe.py \
    --head-dims 64 --rounds 5 --skip-tuned \
    --points noncausal:1024 noncausal:2048 noncausal:4096 noncausal:16384 causal:1024 causal:2048 \
    --forms "d=64 three consumers (v0.54)" "d=64 three consumers, row sums by MMA (v0.54)" \
            "d=64 four consumers, masks by branch, row sums by MMA" > $OUT/probe68.txt 2>&1
echo "probe 68 rc $? at ${SECONDS}s"; grep "^|" $OUT/probe68.txt
