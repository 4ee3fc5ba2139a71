#!/usr/bin/env python3
"""Peers for `tlec bench tutorials`, measured on the same GPU in the same run:
a device-to-device copy, torch's softmax and cuBLAS bf16 matmul (through
PyTorch). Medians of CUDA-event timings from triton.testing.do_bench.
Prints one JSON line per measurement, then a table."""
import sys

import torch

from peerbench import bench, report


def main():
    rows = []
    gib = 1 << 30
    x = torch.randn(gib // 4, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    ms = bench(lambda: y.copy_(x))
    rows.append(("torch d2d copy", "1 GiB", ms, 2 * gib / ms / 1e9, "TB/s"))
    a = torch.randn(1 << 28, device="cuda")
    b = torch.randn(1 << 28, device="cuda")
    o = torch.empty_like(a)
    ms = bench(lambda: torch.add(a, b, out=o))
    rows.append(("torch add", "2^28 f32", ms, 3 * gib / ms / 1e9, "TB/s"))
    del x, y, a, b, o
    s = torch.randn(4096, 8192, device="cuda")
    so = torch.empty_like(s)
    ms = bench(lambda: torch.softmax(s, dim=1, out=so))
    rows.append(("torch softmax", "4096x8192 f32", ms, 2 * s.numel() * 4 / ms / 1e9, "TB/s"))
    del s, so
    for n in (1024, 2048, 4096, 8192):
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        ms = bench(lambda: a @ b)
        rows.append(("cuBLAS matmul", f"{n}^3 bf16", ms, 2 * n ** 3 / ms / 1e9, "TFLOP/s"))
    report(rows, 16, 16, 14, 3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
