#!/usr/bin/env bash
# The Hopper primitives on the GPU host (repository root, .gpu carried):
# every tutorial (TMA and wgmma kernels included) through libNVVM and the
# carried llc-19 PTX, ptxas and the SASS instructions of each kernel, and
# compute-sanitizer on the TLE test kernels. Logs under $OUT.
. "$(dirname "$0")/gpu-env.sh"
echo "== tutorials (libNVVM, then carried llc-19 PTX)"
tutorials_gpu "$OUT/tut.log"
grep -E "^(--- |ok|FAIL)|^\s+--- FAIL|Error:" "$OUT/tut.log" | head -40
echo "== ptxas / SASS"
for f in .gpu/ptx/*.ptx; do
  n=$(basename $f .ptx)
  echo "$n: $(ptxas -arch=sm_90a -v $f -o /tmp/$n.cubin 2>&1 | grep -E 'registers|spill|error|warn' | tr '\n' ' ')"
  echo "   $(cuobjdump --dump-sass /tmp/$n.cubin 2>/dev/null | grep -oE 'HGMMA\.[0-9A-Za-z]+|UTMALDG[.A-Z0-9]*|UTMASTG[.A-Z0-9]*|SYNCS\.[A-Z.]+|USETMAXREG[.A-Z]*|UCGABAR_[A-Z]+|LDGSTS|HMMA\.[0-9A-Z]+' | sort | uniq -c | tr '\n' ' ')"
done 2>&1 | tee "$OUT/sass.txt"
echo "== compute-sanitizer"
for tool in memcheck racecheck synccheck; do
  (cd kernels/tutorials && TLE_TOOLCHAIN=nvvm compute-sanitizer --tool $tool "$root/.gpu/tutorials.test" -test.run 'TMA|Wgmma|PipeScale|ClusterExchange' >"$OUT/san-$tool.log" 2>&1; echo "$tool rc=$?")
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY" "$OUT/san-$tool.log" | head -2
done
