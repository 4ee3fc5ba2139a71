#!/usr/bin/env bash
# KDA variant v3 on the GPU host (repository root, .gpu carried; .fla for
# the FLA peer when PEER=1): accuracy against the float64 reference (small
# cases, and T=8192 H=96 unless LARGE=0), tlec bench kda_fwd --variant v3 for
# each run in RUNS, ptxas resources and the SASS of both kernels (llc-19
# PTX built by tools/build-ptx.sh into .gpu/kda3), compute-sanitizer
# memcheck and racecheck on a small varlen case (SANITIZE=0 skips). RUNS
# lists PREP_WARPS:BLOCK_V[:CONFIGS] (BLOCK_V 0: the default). Logs under $OUT.
. "$(dirname "$0")/gpu-env.sh"
echo "== kda v3 accuracy on the GPU"
(cd kernels/kda && TLE_KDA_LARGE=${LARGE:-1} TLE_KDA_VARIANT=v3 "$root/.gpu/kda.test" -test.run 'Accuracy//v3|GPULarge|Runner' -test.v >"$OUT/kda3-test.log" 2>&1; echo "rc=$?")
grep -E "^(--- |ok|FAIL|PASS)|cuda.*(PASS|FAIL)|relative RMS|Error" "$OUT/kda3-test.log" | grep -v "cpu_" | head -30
echo "== ptxas and SASS (llc-19 PTX)"
# (few files under $OUT: the device tool brings back a limited number)
for f in .gpu/kda3/*.ptx; do
  b=$(basename "$f" .ptx)
  ptxas -arch=sm_90a -v "$f" -o "/tmp/$b.cubin" 2>&1 | grep -E "registers|spill" | sed "s/^/$b: /" | tee -a "$OUT/kda3-ptxas.txt"
  cuobjdump --dump-sass "/tmp/$b.cubin" > "/tmp/$b.sass" 2>&1
  { echo "== $b"; grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z][A-Z0-9.]*' "/tmp/$b.sass" | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -20; } >> "$OUT/kda3-sass-hist.txt"
done
echo "== tlec bench kda_fwd --variant v3"
# RUNS: PREP_WARPS:BLOCK_V[:CONFIGS] per bench run
for run in ${RUNS:-4:0}; do
  IFS=: read -r w bv cf <<<"$run"
  echo "-- preparation warps $w, block_v $bv" | tee -a "$OUT/bench-kda3.txt"
  .gpu/tlec bench kda_fwd --variant v3:$w --block-v $bv --reps ${REPS:-20} ${cf:+--configs $cf} 2>>"$OUT/bench-kda3.err" | tee -a "$OUT/bench-kda3.txt"
done
tail -2 "$OUT/bench-kda3.err"
if [ "${SANITIZE:-1}" = 1 ]; then
  echo "== compute-sanitizer on a small varlen case"
  for tool in memcheck racecheck; do
    (cd kernels/kda && TLE_KDA_LARGE=0 compute-sanitizer --tool $tool "$root/.gpu/kda.test" -test.run 'Accuracy//v3/varlen/h0/f32' >"/tmp/sanitizer-$tool.log" 2>&1; echo "$tool rc=$?")
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|========= (Invalid|Race|Error)" "/tmp/sanitizer-$tool.log" | sort | uniq -c | head -5
    { echo "== $tool"; grep -E "SUMMARY" "/tmp/sanitizer-$tool.log"; grep -E -A4 "^========= (Warning|Error)" "/tmp/sanitizer-$tool.log" | head -40; } >> "$OUT/sanitizer.txt"
  done
fi
if [ "${PEER:-0}" = 1 ]; then
  echo "== FLA chunk_kda peer"
  PYTHONPATH="$root/.fla" FLA_FLASH_KDA=0 PYTHONUNBUFFERED=1 python3 tools/kda_peer.py 2>&1 | tee "$OUT/fla.txt" | tail -8
fi
