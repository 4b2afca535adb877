"""IO accounting and the cross-GPU performance model of FlashAttention (pure Python / NumPy).

Never touches a GPU and never imports CUDA state. Modules:
- ``gpus``: the GPU database (figures with units and sources), user GPU files, overrides;
- ``counts``: analytic FLOP and HBM counts (standard, FlashAttention-1 Algorithm 1, FlashAttention-2);
- ``simulator``: the tiled algorithms on NumPy arrays through an explicit SRAM, counting HBM traffic;
- ``l2``: DRAM traffic after the L2 cache;
- ``timing``: the roofline time model (waves over SMs, launch overhead) with H200-measured efficiencies;
- ``calibration``: the H200 anchor measurements and the constants derived from them;
- ``explain``: elasticities of the speedup and time shares;
- ``cli``: ``flashio gpus``, ``flashio io``, ``flashio predict``, ``flashio explain``.
"""
