#!/usr/bin/env python3
"""FLA's chunk_kda (Triton) on FlashKDA's six configurations, on the same GPU
in the same run as `tlec bench kda_fwd`: the machine-speed check the KDA
issue asks for. Needs PYTHONPATH pointing at a copy of FLA's fla/ folder and
FLA_FLASH_KDA=0. Prints a table of median ms (triton.testing.do_bench)."""
import os
import sys

import torch
from triton.testing import do_bench

os.environ.setdefault("FLA_FLASH_KDA", "0")
from fla.ops.kda import chunk_kda  # noqa: E402

CONFIGS = [
    (96, "T=8192", [8192]),
    (96, "varlen 6", [1300, 547, 2048, 963, 271, 3063]),
    (96, "varlen 1024x8", [1024] * 8),
    (64, "T=8192", [8192]),
    (64, "varlen 6", [1300, 547, 2048, 963, 271, 3063]),
    (64, "varlen 1024x8", [1024] * 8),
]


def main():
    torch.manual_seed(0)
    K = V = 128
    rows = []
    for H, name, lens in CONFIGS:
        T = sum(lens)
        N = len(lens)
        dev = "cuda"
        q = torch.nn.functional.normalize(torch.randn(1, T, H, K, device=dev), dim=-1).bfloat16()
        k = torch.nn.functional.normalize(torch.randn(1, T, H, K, device=dev), dim=-1).bfloat16()
        v = torch.randn(1, T, H, V, device=dev).bfloat16()
        g = torch.randn(1, T, H, K, device=dev).bfloat16()
        beta = torch.randn(1, T, H, device=dev).bfloat16()
        A_log = torch.rand(H, device=dev)
        dt_bias = torch.rand(H * K, device=dev)
        h0 = torch.randn(N, H, K, V, device=dev, dtype=torch.float32)
        cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), device=dev, dtype=torch.long)
        cu_arg = cu if N > 1 else None

        def run():
            return chunk_kda(q, k, v, g, beta, scale=K ** -0.5, initial_state=h0, output_final_state=True,
                             use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True,
                             safe_gate=True, lower_bound=-5.0, A_log=A_log, dt_bias=dt_bias, cu_seqlens=cu_arg)
        ms = do_bench(run, warmup=25, rep=200, return_mode="median")
        rows.append((H, name, ms))
        print(f"FLA chunk_kda H={H} {name}: {ms:.3f} ms", flush=True)
    print(f"{'peer':<16} {'H':>3} {'config':<14} {'median ms':>10}")
    for H, name, ms in rows:
        print(f"{'FLA chunk_kda':<16} {H:>3} {name:<14} {ms:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
