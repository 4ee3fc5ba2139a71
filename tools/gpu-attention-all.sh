#!/usr/bin/env bash
# Every attention kernel in one GPU call, with .gpu and .peers carried
# (.peers: copies of ../shared/peers/sdpa_prefill.py and
# hpc-ops-kit.tar.xz): the kernels/attention tests (decode and prefill on
# both devices), the plain attention tutorial's test and bench with torch
# SDPA (cuDNN, FA2) in the same call, then decode and prefill against
# HPC-Ops built from source (tools/gpu-attn-decode.sh, PREFILL=1: longer
# than one 10-minute device call with the rest; run it alone when the
# device tool's limit binds). Logs in $OUT.
. "$(dirname "$0")/gpu-env.sh"
echo "== kernels/attention tests"
(cd kernels/attention && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm timeout 240 "$root/.gpu/attention.test" -test.v >"$OUT/attention.log" 2>&1; echo "rc=$?")
grep -E "^(--- FAIL|FAIL|ok|PASS)|Error:|Messages:" "$OUT/attention.log" | head -20
echo "== attention tutorial test"
(cd kernels/tutorials && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm "$root/.gpu/tutorials.test" -test.run 'TestAttention' -test.v >"$OUT/tutorial-attention.log" 2>&1; echo "rc=$?")
grep -E "^(--- FAIL|FAIL|PASS)|Error:|cuda.*stages" "$OUT/tutorial-attention.log" | head -12
echo "== attention tutorial bench and torch SDPA"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --parts attention --reps ${REPS:-30} 2>"$OUT/bench.err" | tee "$OUT/bench.txt"
python3 .peers/sdpa_prefill.py "$OUT/sdpa_prefill.json" 2>&1 | grep -E "mha_causal_S(4096|8192|16384)" | tee "$OUT/sdpa.txt"
echo "== decode and prefill against HPC-Ops"
REPS=${REPS:-30} PREFILL=1 bash "$(dirname "$0")/gpu-attn-decode.sh" 2>&1 | tr '\r' '\n' | grep -v '%|' | tail -60
