#!/usr/bin/env bash
# One GPU call for the closing figures (repository root, .gpu carried):
# tutorial correctness through libNVVM and carried llc-19 PTX, ptxas and
# SASS of the tutorial PTX, racecheck of the pipe tutorial, the tutorial
# benchmark with its peers, and the KDA benchmark per variant.
. "$(dirname "$0")/gpu-env.sh"
echo "== tutorials (libNVVM, then carried llc-19 PTX)"
tutorials_gpu "$OUT/tut.log"
grep -E "^(--- |ok|FAIL)" "$OUT/tut.log"
echo "== ptxas / SASS of the carried tutorial PTX"
for f in .gpu/ptx/*.ptx; do
  n=$(basename $f .ptx)
  ptxas -arch=sm_90a -v $f -o /tmp/$n.cubin 2>&1 | grep -E "registers|spill" | tr '\n' ' ' | sed "s/^/$n: /"; echo
  cuobjdump --dump-sass /tmp/$n.cubin 2>/dev/null | grep -oE "SYNCS[A-Z.]*|USETMAXREG|HGMMA|UTMALDG|HMMA|LDGSTS|UCGABAR[A-Z_]*|MEMBAR[A-Z.]*" | sort | uniq -c | tr '\n' ' '; echo
done 2>&1 | tee "$OUT/sass.txt"
echo "== racecheck of pipe_scale and cluster_exchange on the GPU"
(cd kernels/tutorials && TLE_TOOLCHAIN=nvvm compute-sanitizer --tool racecheck "$root/.gpu/tutorials.test" -test.run 'PipeScale|ClusterExchange' >"$OUT/race.log" 2>&1; echo "rc=$?")
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" "$OUT/race.log" | head -5
echo "== bench tutorials + peers"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --reps 20 2>"$OUT/bench.err" | tee "$OUT/bench.txt"
PYTHONUNBUFFERED=1 python3 tools/peers.py 2>&1 | tail -8 | tee "$OUT/peers.txt"
echo "== kda accuracy on the GPU (v1 and v2 cases)"
(cd kernels/kda && TLE_KDA_LARGE=0 TLE_TOOLCHAIN=nvvm "$root/.gpu/kda.test" -test.run 'Accuracy' -test.v >"$OUT/kda-acc.log" 2>&1; echo "rc=$?")
grep -cE "relative RMS" "$OUT/kda-acc.log"; grep -E "^(--- |ok|FAIL)" "$OUT/kda-acc.log"
echo "== ptxas of kda v1 / v2"
for f in .gpu/kda/*.ptx; do echo -n "$(basename $f): "; ptxas -arch=sm_90a -v $f -o /tmp/k.cubin 2>&1 | grep -E "registers|spill" | tr '\n' ' '; echo; done | tee "$OUT/kda-ptxas.txt"
echo "== bench kda_fwd"
for a in "--block-v 64" "--block-v 32 --variant v1:8" "--block-v 64 --variant v2:8" "--block-v 32 --variant v2:8"; do
  echo "-- $a"
  TLE_TOOLCHAIN=nvvm .gpu/tlec bench kda_fwd --reps 20 --warmup 5 $a 2>>"$OUT/kda.err" | tee -a "$OUT/kda.txt"
done
