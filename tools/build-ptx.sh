#!/usr/bin/env bash
# Builds the tutorial kernels' PTX with llc-19 (on a machine without a GPU),
# with the bindings the tutorial tests use, into DIR (default .gpu/ptx). On
# the GPU host, TLE_TEST_PTX_DIR=DIR makes the tutorial tests run this PTX
# (PTX=1 tools/gpu.sh here builds it; the host's tutorials tests then use it,
# and the PTXAS and SASS reports read it).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.gpu/ptx}
mkdir -p "$dir"
tlec=${TLEC:-.gpu/tlec}
t=kernels/tutorials
$tlec build $t/vector_add.tle --kernel vector_add -D BLOCK=256 --toolchain llc -o "$dir/vector_add.ptx"
$tlec build $t/softmax.tle --kernel softmax -D BLOCK=512 --toolchain llc -o "$dir/softmax.ptx"
$tlec build $t/matmul.tle --kernel matmul -D BM=64 -D BN=32 -D BK=32 --toolchain llc -o "$dir/matmul.ptx"
$tlec build $t/matmul_f32.tle --kernel matmul_f32 -D BM=64 -D BN=32 -D BK=32 --toolchain llc -o "$dir/matmul_f32.ptx"
$tlec build $t/matmul_block_ptr.tle --kernel matmul_block_ptr -D BM=64 -D BN=32 -D BK=32 --toolchain llc -o "$dir/matmul_block_ptr.ptx"
$tlec build $t/layer_norm.tle --kernel layer_norm -D BLOCK=512 --toolchain llc -o "$dir/layer_norm.ptx"
for k in pipe_scale pingpong cluster_exchange tma_copy tma_roundtrip; do
  case $k in
    pipe_scale) d=(-D ROWS=8 -D ROW=256 -D CAP=2) ;;
    pingpong) d=(-D ITERS=6 -D COLS=32) ;;
    cluster_exchange) d=(-D BLOCK=128) ;;
    tma_copy) d=(-D BM=32 -D BN=64) ;;
    tma_roundtrip) d=(-D BM=64 -D BN=128) ;;
  esac
  $tlec build $t/$k.tle --kernel $k "${d[@]}" --toolchain llc -o "$dir/$k.ptx" || echo "build-ptx: $k: no PTX (see above)"
done
$tlec build $t/wgmma_tile.tle --kernel wgmma_tile --toolchain llc -o "$dir/wgmma_tile.ptx" || echo "build-ptx: wgmma_tile: no PTX (see above)"
$tlec build $t/matmul_tma.tle --kernel matmul_tma -D BM=128 -D BN=256 -D BK=64 -D S=3 -D LAG=1 --toolchain llc -o "$dir/matmul_tma.ptx" || echo "build-ptx: matmul_tma: no PTX (see above)"
$tlec build $t/matmul_tma_nt.tle --kernel matmul_tma_nt -D BM=128 -D BN=256 -D BK=64 -D S=3 -D LAG=1 --toolchain llc -o "$dir/matmul_tma_nt.ptx" || echo "build-ptx: matmul_tma_nt: no PTX (see above)"
$tlec build $t/matmul_make_desc.tle --kernel matmul_make_desc -D BM=128 -D BN=256 -D BK=64 -D S=3 -D LAG=1 --toolchain llc -o "$dir/matmul_make_desc.ptx" || echo "build-ptx: matmul_make_desc: no PTX (see above)"
$tlec build $t/matmul_fp8.tle --kernel matmul_fp8 -D BM=128 -D BN=256 -D BK=128 -D S=3 -D LAG=1 -D PROMOTE=0 --toolchain llc -o "$dir/matmul_fp8.ptx" || echo "build-ptx: matmul_fp8: no PTX (see above)"
# wgmma of fp8 and of small N, at one binding (N 32, K 128) of its test
for k in wgmma_e4m3_smem wgmma_e4m3_reg wgmma_e4m3_e5m2 wgmma_bf16_reg; do
  $tlec build $t/wgmma_fp8.tle --kernel $k -D N=32 -D K=128 --num-warps 4 --toolchain llc -o "$dir/$k.ptx" || echo "build-ptx: $k: no PTX (see above)"
done
# the paged KV gather: TMA of rank 3 to 5 (its SASS: UTMALDG.3D/.4D/.5D, UTMASTG.4D)
for k in paged_gather paged_gather_f8 paged_gather_r3 paged_gather_r5 paged_gather_md paged_gather_md5; do
  $tlec build $t/paged_gather.tle --kernel $k --toolchain llc -o "$dir/$k.ptx" || echo "build-ptx: $k: no PTX (see above)"
done
for k in transpose_e4m3 transpose_bf16 pv_e4m3; do
  d=(); [ $k != pv_e4m3 ] && d=(-D SPELL=0)
  $tlec build $t/smem_transpose_fp8.tle --kernel $k "${d[@]}" --toolchain llc -o "$dir/$k.ptx" || echo "build-ptx: $k: no PTX (see above)"
done
# two pages of 64 keys in two slots, read as one [128, D] view (reshape of a shared view): one m64n128 wgmma per k step
for k in qk_pages_e4m3 qk_pages_bf16 qk_pages_tma_e4m3; do
  $tlec build $t/smem_reshape.tle --kernel $k --num-warps 4 --toolchain llc -o "$dir/$k.ptx" || echo "build-ptx: $k: no PTX (see above)"
done
# V^T straight into wgmma's register a, at one binding (N 32) of its test
$tlec build $t/smem_transpose_fp8.tle --kernel pvt_e4m3_reg -D N=32 --toolchain llc -o "$dir/pvt_e4m3_reg.ptx" || echo "build-ptx: pvt_e4m3_reg: no PTX (see above)"
$tlec build $t/async_load.tle --kernel async_load -D N=96 -D BM=16 -D BN=128 --toolchain llc -o "$dir/async_load.ptx"
# the causal attention tutorial at both key blocks, on 8 warps as its test runs it
for bn in 64 128; do
  $tlec build $t/attention.tle --kernel attention -D BM=128 -D BN=$bn -D HEAD_DIM=128 --num-warps 8 --toolchain llc -o "$dir/attention_bn$bn.ptx"
done
# the programmatic-dependent-launch pair (for its SASS: griddepcontrol.wait and .launch_dependents)
for k in pdl_producer pdl_consumer pdl_producer_timed pdl_consumer_timed; do
  $tlec build $t/pdl.tle --kernel $k -D BLOCK=256 --toolchain llc -o "$dir/$k.ptx"
done
# stream compaction with warp votes (for its SASS: VOTE.ANY and POPC, no SHFL.UP)
$tlec build $t/compact.tle --kernel compact -D N=256 --toolchain llc -o "$dir/compact.ptx"
