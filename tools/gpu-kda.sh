#!/usr/bin/env bash
# KDA on the GPU host (repository root, .gpu and .fla carried): accuracy
# against the float64 reference (small cases and T=8192, H=96), the six
# benchmark configurations next to FLA's chunk_kda, ptxas resources and SASS
# of the kernel, and compute-sanitizer on the small cases. Logs under $OUT.
. "$(dirname "$0")/gpu-env.sh"
echo "== kda accuracy on the GPU (small cases + T=8192 H=96)"
(cd kernels/kda && "$root/.gpu/kda.test" -test.run 'Accuracy|GPULarge' -test.v >"$OUT/kda-test.log" 2>&1; echo "rc=$?")
grep -E "^(--- |ok|FAIL|PASS)|rel|Error" "$OUT/kda-test.log" | head -40
echo "== tlec bench kda_fwd"
for bv in ${BVS:-32 64}; do .gpu/tlec bench kda_fwd --block-v $bv --reps ${REPS:-30} 2>>"$OUT/bench-kda.err" | tee -a "$OUT/bench-kda.txt"; done
tail -2 "$OUT/bench-kda.err"
echo "== ptxas and SASS of kda_fwd (llc-19 PTX, BV=32)"
ptxas -arch=sm_90a -v .gpu/ptx/kda_fwd.ptx -o /tmp/kda.cubin 2>&1 | grep -E "registers|spill" | tee "$OUT/kda-ptxas.txt"
cuobjdump --dump-sass /tmp/kda.cubin > "$OUT/kda.sass" 2>&1
grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z][A-Z0-9.]*' "$OUT/kda.sass" | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25 | tee "$OUT/kda-sass-hist.txt"
echo "== compute-sanitizer on the small cases"
for tool in memcheck racecheck; do
  (cd kernels/kda && TLE_KDA_LARGE=0 compute-sanitizer --tool $tool "$root/.gpu/kda.test" -test.run 'Accuracy' >"$OUT/sanitizer-$tool.log" 2>&1; echo "$tool rc=$?")
  grep -E "ERROR SUMMARY|========= (Invalid|Race)" "$OUT/sanitizer-$tool.log" | sort | uniq -c | head -5
done
echo "== FLA chunk_kda peer"
PYTHONPATH="$root/.fla" FLA_FLASH_KDA=0 PYTHONUNBUFFERED=1 python3 tools/kda_peer.py 2>&1 | tee "$OUT/fla.txt" | tail -8
