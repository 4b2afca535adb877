export PYTHONPATH=src PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d) FLASHIO_TUNING_CACHE=off CUDA_LAUNCH_BLOCKING=1
for form in default plain rowsum; do
python3 - $form <<'PY' 2>&1 | tail -4
import sys, os, dataclasses, torch
from flashio import configs, launchers
form = sys.argv[1]
if form != "default":
    os.environ["FLASHIO_FORWARD_PATH"] = "gluon"
    c = configs.FORWARD_GLUON_CANDIDATES[64][6]
    configs.FORWARD_GLUON_CANDIDATES[64] = (dataclasses.replace(c, row_sum_mma=(form == "rowsum")),)
for causal, n in ((False, 1024), (True, 1024)):
    q, k, v = (torch.randn(16, 32, n, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = launchers.attention_forward(q, k, v, layout="bhnd", softmax_scale=0.125, causal=causal, dropout_p=0.0, seed=0)[0]
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal, scale=0.125)
    print(form, causal, n, "max err", float((out.float() - ref).abs().max()), flush=True)
PY
done
