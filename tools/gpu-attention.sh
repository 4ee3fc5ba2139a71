#!/usr/bin/env bash
# Runs on the GPU host from the repository root with .gpu and .peers
# carried: the attention tutorial's tests (libNVVM), the SASS of its
# products, its bench and, in the same run, torch SDPA (cuDNN, FA2) from
# .peers/sdpa_prefill.py (a copy of ../shared/peers/sdpa_prefill.py).
. "$(dirname "$0")/gpu-env.sh"
echo "== attention tests"
(cd kernels/tutorials && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm "$root/.gpu/tutorials.test" -test.run 'TestAttention' -test.v >"$OUT/attention-tests.log" 2>&1; echo "rc=$?")
grep -E "^(--- |ok|FAIL|PASS)|Error:|rel RMS|relRMS" "$OUT/attention-tests.log" | head -20
echo "== SASS of attention (BN ${BN:-128})"
.gpu/tlec build kernels/tutorials/attention.tle --kernel attention -D BM=128 -D BN=${BN:-128} -D HEAD_DIM=128 --num-warps 8 --toolchain nvvm -o /tmp/att.ptx 2>/dev/null
ptxas -arch=sm_90a -v /tmp/att.ptx -o /tmp/att.cubin 2>&1 | grep -E "registers|spill" | head -3
cuobjdump -sass /tmp/att.cubin >"$OUT/attention.sass"
grep -oE "(HGMMA|HMMA)\.[A-Z0-9x.]+" "$OUT/attention.sass" | sort | uniq -c
echo "== bench"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --parts attention --reps ${REPS:-20} 2>"$OUT/bench.err" | tee "$OUT/bench.txt"
tail -3 "$OUT/bench.err"
if [ -z "${NOPEERS:-}" ]; then
  echo "== peers"
  python3 .peers/sdpa_prefill.py "$OUT/sdpa_prefill.json" 2>&1 | grep -E "mha_causal_S(4096|8192|16384)" | head -8
fi
