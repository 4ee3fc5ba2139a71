#!/usr/bin/env bash
# One GPU call that checks everything a session changed, with .gpu and
# .peers carried (build: see docs/perf.md; .peers holds copies of
# ../shared/peers/matmul_peers.py and sdpa_prefill.py): every tutorial test
# through libNVVM and through the carried llc-19 PTX, the backend, tle and
# end-to-end GPU tests, compute-sanitizer memcheck on the new tutorials,
# the SASS of the new instruction forms, and the TMA / FP8 / attention
# benches with their peers (cuBLAS, cuBLASLt FP8, torch SDPA) in the same
# run. Logs in $OUT; a summary table last.
. "$(dirname "$0")/gpu-env.sh"
export TLE_LOG=
sum() { echo "$1" | tee -a "$OUT/summary.txt"; }
echo "== tutorials (libNVVM and carried PTX)"
(cd kernels/tutorials && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm TLE_TEST_PTX_DIR="$root/.gpu/ptx" "$root/.gpu/tutorials.test" -test.v >"$OUT/tutorials.log" 2>&1; sum "tutorials rc=$?")
grep -E "^(--- FAIL|FAIL)|Error:" "$OUT/tutorials.log" | head -20
echo "== backend, tle, tests"
(cd backend/nvptx && TLE_REQUIRE_GPU=1 "$root/.gpu/nvptx.test" -test.run GPU -test.v >"$OUT/nvptx.log" 2>&1; sum "nvptx rc=$?")
(cd tle && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm "$root/.gpu/tle.test" -test.v >"$OUT/tle.log" 2>&1; sum "tle rc=$?")
(cd tests && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm "$root/.gpu/tests.test" -test.v >"$OUT/tests.log" 2>&1; sum "tests rc=$?")
(cd kernels/attention && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm timeout 200 "$root/.gpu/attention.test" -test.v >"$OUT/attention.log" 2>&1; sum "kernels/attention rc=$?")
grep -hE "^(--- FAIL|FAIL)|Error:" "$OUT/nvptx.log" "$OUT/tle.log" "$OUT/tests.log" "$OUT/attention.log" | head -20
echo "== memcheck"
(cd kernels/tutorials && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm compute-sanitizer --tool memcheck --print-limit 5 "$root/.gpu/tutorials.test" -test.run 'PagedGather|Compact|SmemTranspose|MatmulFP8$|WgmmaFP8$|MatmulF32|Attention$' >"$OUT/memcheck.log" 2>&1; sum "memcheck rc=$? $(grep -m1 'ERROR SUMMARY' "$OUT/memcheck.log")")
echo "== SASS"
sass() { # sass PTX PATTERN
  ptxas -arch=sm_90a "$1" -o /tmp/s.cubin 2>/dev/null && cuobjdump -sass /tmp/s.cubin | grep -oE "$2" | sort | uniq -c | tr '\n' ' '
}
for k in paged_gather paged_gather_f8 paged_gather_r3 paged_gather_r5 paged_gather_md paged_gather_md5; do sum "$k: $(sass .gpu/ptx/$k.ptx 'UTMA[A-Z]+\.[0-9]D[A-Z0-9.]*|[HQ]GMMA\.[A-Z0-9x.]+')"; done
for k in compact; do sum "$k: $(sass .gpu/ptx/$k.ptx 'VOTE\.[A-Z]+|POPC|SHFL\.[A-Z]+|S2R[^,]*, SR_LTMASK|S2UR[^,]*, SR_LTMASK')"; done
for k in transpose_e4m3 transpose_bf16 pv_e4m3; do sum "$k: $(sass .gpu/ptx/$k.ptx '(LDSM|STSM)[A-Z0-9.]*|PRMT|LDS\.U8|STS\.U8|[HQ]GMMA\.[A-Z0-9x.]+')"; done
.gpu/tlec build kernels/tutorials/matmul_f32.tle --kernel matmul_f32 -D BM=128 -D BN=128 -D BK=32 --toolchain nvvm -o /tmp/f32.ptx 2>/dev/null
sum "matmul_f32 wgmma: $(sass /tmp/f32.ptx '[HQ]GMMA\.[A-Z0-9x.]+|HMMA\.[A-Z0-9.]+')"
.gpu/tlec build kernels/tutorials/matmul_f32.tle --kernel matmul_f32 -D BM=128 -D BN=128 -D BK=32 --dot-wgmma=false --toolchain nvvm -o /tmp/f32m.ptx 2>/dev/null
sum "matmul_f32 mma.sync: $(sass /tmp/f32m.ptx '[HQ]GMMA\.[A-Z0-9x.]+|HMMA\.[A-Z0-9.]+')"
sum "matmul_fp8: $(sass .gpu/ptx/matmul_fp8.ptx '[HQ]GMMA\.[A-Z0-9x.]+|UTMALDG\.[0-9]D')"
sum "attention bn128: $(sass .gpu/ptx/attention_bn128.ptx '[HQ]GMMA\.[A-Z0-9x.]+|HMMA\.[A-Z0-9.]+|LDGSTS[A-Z0-9.]*')"
sum "pdl: $(sass .gpu/ptx/pdl_consumer.ptx 'ACQBULK|PREEXIT') $(sass .gpu/ptx/pdl_producer.ptx 'ACQBULK|PREEXIT')"
if [ -z "${NOBENCH:-}" ]; then
  echo "== bench (tma, fp8, attention) and peers"
  TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --parts ${PARTS:-tma,fp8,attention} --reps ${REPS:-30} 2>"$OUT/bench.err" >"$OUT/bench.txt"; sum "bench rc=$?"
  python3 .peers/matmul_peers.py "$OUT/matmul_peers.json" >"$OUT/matmul_peers.txt" 2>&1
  python3 .peers/sdpa_prefill.py "$OUT/sdpa_prefill.json" >"$OUT/sdpa.txt" 2>&1
  cat "$OUT/bench.txt"; cat "$OUT/matmul_peers.txt"; grep -E "mha_causal_S(4096|8192|16384)" "$OUT/sdpa.txt"
fi
echo "== summary"; cat "$OUT/summary.txt"
