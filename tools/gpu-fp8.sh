#!/usr/bin/env bash
# Runs on the GPU host from the repository root with .gpu and .peers
# carried: the FP8 matmul tests (libNVVM and the carried llc-19 PTX), the
# SASS of its carried PTX, the TMA and FP8 matmul bench and, in the same
# run, cuBLAS bf16 and cuBLASLt FP8 (torch._scaled_mm) from
# .peers/matmul_peers.py (a copy of ../shared/peers/matmul_peers.py).
. "$(dirname "$0")/gpu-env.sh"
echo "== fp8 matmul tests"
(cd kernels/tutorials && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm TLE_TEST_PTX_DIR="$root/.gpu/ptx" "$root/.gpu/tutorials.test" -test.run 'MatmulFP8|MatmulTMA$|WgmmaFP8' -test.v >"$OUT/fp8-tests.log" 2>&1; echo "rc=$?")
grep -E "^(--- |ok|FAIL|PASS)|Error:" "$OUT/fp8-tests.log" | head -20
echo "== SASS of matmul_fp8 (carried PTX)"
ptxas -arch=sm_90a -v .gpu/ptx/matmul_fp8.ptx -o /tmp/fp8.cubin 2>&1 | grep -E "registers|spill|error" | head -4
cuobjdump -sass /tmp/fp8.cubin >"$OUT/matmul_fp8.sass"
grep -oE "[HQ]GMMA\.[A-Z0-9x.]+" "$OUT/matmul_fp8.sass" | sort | uniq -c
echo "== SASS of the register-A e4m3 wgmma at N = 16 (libNVVM PTX)"
.gpu/tlec build kernels/tutorials/wgmma_fp8.tle --kernel wgmma_e4m3_reg -D N=16 -D K=128 --num-warps 4 --toolchain nvvm -o /tmp/rega.ptx 2>/dev/null
ptxas -arch=sm_90a /tmp/rega.ptx -o /tmp/rega.cubin && cuobjdump -sass /tmp/rega.cubin >"$OUT/wgmma_e4m3_reg.sass"
grep -E "[HQ]GMMA" "$OUT/wgmma_e4m3_reg.sass" | head -4
echo "== bench"
TLE_TOOLCHAIN=${TOOLCHAIN:-nvvm} .gpu/tlec bench tutorials --parts ${PARTS:-tma,fp8} --reps ${REPS:-50} 2>"$OUT/bench.err" | tee "$OUT/bench.txt"
tail -3 "$OUT/bench.err"
echo "== peers"
python3 .peers/matmul_peers.py "$OUT/matmul_peers.json" 2>&1 | tail -4
