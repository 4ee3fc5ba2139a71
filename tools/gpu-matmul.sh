#!/usr/bin/env bash
# The warp-specialised TMA + wgmma matmul on the GPU host (repository root,
# .gpu carried): correctness of every tutorial (both toolchains), ptxas and
# SASS of matmul_tma, then `tlec bench tutorials` next to cuBLAS and a
# Triton TMA matmul measured in the same call. Logs under $OUT.
. "$(dirname "$0")/gpu-env.sh"
echo "== tutorials"
tutorials_gpu "$OUT/tut.log"
grep -E "^(--- |ok|FAIL)|^\s+--- FAIL|Error:" "$OUT/tut.log" | grep -v PASS | head -20; grep -c "^--- PASS" "$OUT/tut.log"
echo "== matmul_tma ptxas / SASS"
ptxas -arch=sm_90a -v .gpu/ptx/matmul_tma.ptx -o /tmp/mt.cubin 2>&1 | grep -E "registers|spill|error|warn" | head -5
cuobjdump --dump-sass /tmp/mt.cubin | grep -oE 'HGMMA\.[0-9A-Za-z]+|UTMALDG[.A-Z0-9]*|USETMAXREG[.A-Z]*|SYNCS\.[A-Z.]+' | sort | uniq -c
echo "== bench"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --reps ${REPS:-15} 2>"$OUT/bench.err" | tee "$OUT/bench.txt"
tail -2 "$OUT/bench.err"
PYTHONUNBUFFERED=1 python3 tools/peers.py 2>&1 | tail -5 | tee "$OUT/peers.txt"
PYTHONUNBUFFERED=1 timeout 120 python3 tools/triton_matmul.py 2>&1 | tail -8 | tee "$OUT/triton.txt"
