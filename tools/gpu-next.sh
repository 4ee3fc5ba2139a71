#!/usr/bin/env bash
# The GPU call of session 11 (repository root, .gpu and .fla carried):
# make_desc on the GPU and dot as wgmma by default.
#   build here: rm -rf .gpu && mkdir -p .gpu && CGO_ENABLED=0 go build -o .gpu/tlec ./cmd/tlec &&
#     CGO_ENABLED=0 go test -c -o .gpu/ ./kernels/tutorials ./kernels/kda ./tests && bash tools/build-ptx.sh
# 1. the tutorial tests through libNVVM (PTX 9.0) and carried llc-19 PTX
#    (8.3 for make_desc), and the make_desc / dot-as-wgmma tests of ./tests;
# 2. ptxas and SASS of matmul_make_desc from both toolchains;
# 3. compute-sanitizer memcheck, racecheck and synccheck on TestMatmulMakeDesc;
# 4. the KDA accuracy tests (the runtime's launch path changed);
# 5. the tutorial bench with cuBLAS in the same call.
. "$(dirname "$0")/gpu-env.sh"
echo "== tutorials (libNVVM, then carried PTX), make_desc and dot as wgmma"
tutorials_gpu /tmp/tut.log tutorials
(cd tests && TLE_TOOLCHAIN=nvvm "$root/.gpu/tests.test" -test.run 'DotWgmma|MakeDesc|Chained|RegisterA' -test.v >>/tmp/tut.log 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|FAIL)|Error|rror:" /tmp/tut.log | head -40 | tee "$OUT/tutorials.txt"
echo "== ptxas and SASS of matmul_make_desc"
.gpu/tlec build kernels/tutorials/matmul_make_desc.tle --kernel matmul_make_desc -D BM=128 -D BN=256 -D BK=64 -D S=3 -D LAG=1 --toolchain nvvm -o /tmp/mmd_nvvm.ptx 2>&1 | tail -2
for f in .gpu/ptx/matmul_make_desc.ptx /tmp/mmd_nvvm.ptx; do
  b=$(basename "$f" .ptx)
  grep -m1 "^\.version" "$f" | sed "s/^/$b: /" >> "$OUT/make-desc-sass.txt"
  ptxas -arch=sm_90a -v "$f" -o "/tmp/$b.cubin" 2>&1 | grep -E "registers|spill|rror" | sed "s/^/$b: /" >> "$OUT/make-desc-sass.txt"
  cuobjdump --dump-sass "/tmp/$b.cubin" | grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9_.]*" | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | grep -E "UTMA|HGMMA|SYNCS|USETMAXREG|UBLKCP|FENCE|MEMBAR|CCTL" | sed "s/^/$b: /" >> "$OUT/make-desc-sass.txt"
done
cat "$OUT/make-desc-sass.txt"
echo "== compute-sanitizer on TestMatmulMakeDesc (libNVVM)"
for tool in memcheck racecheck synccheck; do
  (cd kernels/tutorials && TLE_TOOLCHAIN=nvvm compute-sanitizer --tool $tool "$root/.gpu/tutorials.test" -test.run 'TestMatmulMakeDesc$' >"/tmp/san-$tool.log" 2>&1; echo "$tool rc=$?")
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^--- |^ok|FAIL" "/tmp/san-$tool.log" | sed "s/^/$tool: /" | tee -a "$OUT/sanitizer.txt"
done
echo "== KDA accuracy"
(cd kernels/kda && TLE_TOOLCHAIN=nvvm "$root/.gpu/kda.test" -test.run 'TestAccuracy|TestRunnerWarm' >/tmp/kda.log 2>&1; echo "kda rc=$?"; grep -E "^(--- |ok|FAIL)" /tmp/kda.log | head)
echo "== tlec bench tutorials + peers"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --reps 20 2>/dev/null | tee "$OUT/bench-tutorials.txt"
PYTHONUNBUFFERED=1 python3 tools/peers.py 2>&1 | tail -8 | tee -a "$OUT/bench-tutorials.txt"
