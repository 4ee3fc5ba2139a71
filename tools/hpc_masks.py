#!/usr/bin/env python3
"""Saves the block masks HPC-Ops' prefill bench draws (the kit's bench.py,
prefill_mask: torch's generator on the GPU, seed 10086) as
DIR/mask_<q_len>x<kv_len>.npy, uint8 [1, 32, q tiles, key tiles], for
`tlec bench attn_prefill --masks DIR`, so that both benches walk one mask.
Run on the GPU host after the kit is built (tools/gpu.sh host builds it in
/tmp/hpc and runs this when PEERS has hpc and SUITES attn_prefill):
  python3 tools/hpc_masks.py [KIT] DIR
It imports the kit's bench module (which imports hpc); nothing of the kit is
copied here.
"""
import os
import sys

kit, out = (sys.argv[1], sys.argv[2]) if len(sys.argv) > 2 else ("/tmp/hpc", sys.argv[1])
sys.path.insert(0, kit)
import numpy as np  # noqa: E402
import bench  # noqa: E402  (the kit's bench.py)

os.makedirs(out, exist_ok=True)
for q_len, kv_len in ((127, 127), (512, 4096), (512, 32768)):
    m = bench.prefill_mask(dict(q_len=q_len, kv_len=kv_len, hq=32))
    path = os.path.join(out, f"mask_{q_len}x{kv_len}.npy")
    np.save(path, m.cpu().numpy().astype(np.uint8))
    rows = m.reshape(-1, m.shape[-1]).sum(-1)
    print(f"{path}: shape {list(m.shape)}, density {m.float().mean().item():.4f}, "
          f"active tiles per program {int(rows.min())}-{int(rows.max())} (mean {rows.float().mean().item():.1f})")
