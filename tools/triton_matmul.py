#!/usr/bin/env python3
"""Triton TMA matmul peer for matmul_tma (kernels/tutorials/matmul_tma.tle).

C = A @ B in bf16 (f32 accumulation), A [M, K] and B [K, N] row-major, tiles
128x256x64, 4 stages (3 if 4 do not fit), 8 warps, operands loaded through host-side tensor
descriptors (triton.tools.tensor_descriptor.TensorDescriptor, i.e. TMA on
Hopper). If that API is missing or fails, a plain pointer-based tl.dot
matmul with the same tiles runs instead; the table says which ran. Timings
are triton.testing.do_bench medians at 4096^3 and 8192^3, next to cuBLAS
(torch.matmul) measured in the same run. Prints one JSON line per
measurement, then a table.
"""
import sys

import torch
import triton
import triton.language as tl

from peerbench import bench, report

BM, BN, BK, STAGES, WARPS = 128, 256, 64, 4, 8


@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_m = pid_m * BM
    off_n = pid_n * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([off_m, k * BK])
        b = b_desc.load([k * BK, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.bfloat16))


@triton.jit
def matmul_ptr_kernel(a, b, c, M, N, K,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        ka = k * BK + rk
        ta = tl.load(a + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        tb = tl.load(b + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(ta, tb, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def grid(m, n):
    return (triton.cdiv(m, BM), triton.cdiv(n, BN))


def run_tma(a, b, c, stages):
    from triton.tools.tensor_descriptor import TensorDescriptor
    m, k = a.shape
    n = b.shape[1]
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b, [BK, BN])
    cd = TensorDescriptor.from_tensor(c, [BM, BN])
    return lambda: matmul_tma_kernel[grid(m, n)](ad, bd, cd, m, n, k, BM=BM, BN=BN, BK=BK,
                                                   num_stages=stages, num_warps=WARPS)


def run_ptr(a, b, c, stages):
    m, k = a.shape
    n = b.shape[1]
    return lambda: matmul_ptr_kernel[grid(m, n)](a, b, c, m, n, k, BM=BM, BN=BN, BK=BK,
                                                   num_stages=stages, num_warps=WARPS)


def make(a, b, c):
    """Returns (name, stages, launch) for the TMA kernel with 4 stages, else 3
    (if 4 do not fit in shared memory next to the epilogue), else the
    pointer fallback."""
    ref = (a.float() @ b.float())
    for name, mk, stages in (("triton TMA", run_tma, STAGES), ("triton TMA", run_tma, 3),
                             ("triton tl.dot (no TMA)", run_ptr, 3)):
        try:
            fn = mk(a, b, c, stages)
            c.zero_()
            fn()
            torch.cuda.synchronize()
            err = ((c.float() - ref).norm() / ref.norm()).item()
            if err > 1e-2:
                raise RuntimeError(f"wrong result: rel err {err:.3g}")
            return name, stages, fn
        except Exception as e:  # noqa: BLE001 - any failure selects the fallback
            print(f"# {name} ({stages} stages) failed: {type(e).__name__}: {e}", file=sys.stderr)
    raise RuntimeError("no Triton matmul ran")


def main():
    print(f"# triton {triton.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name()}", file=sys.stderr)
    rows = []
    for n in (4096, 8192):
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        flops = 2 * n ** 3
        ms = bench(lambda: a @ b)
        rows.append(("cuBLAS matmul", f"{n}^3 bf16", ms, flops / ms / 1e9, "TFLOP/s"))
        name, stages, fn = make(a, b, c)
        ms = bench(fn)
        rows.append((name, f"{n}^3 bf16 {BM}x{BN}x{BK} s{stages} w{WARPS}", ms, flops / ms / 1e9, "TFLOP/s"))
        del a, b, c
    report(rows, 24, 34, 16, 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
