#!/usr/bin/env bash
# wgmma with a in registers (the RS form): correctness on the GPU, ptxas
# on an RS kernel, then the KDA bench with this compiler and with another
# (.gpu/tlec-other: run 11 used a build in which dot chose the RS form for
# chained products), each with its own JIT cache.
#   build here: rm -rf .gpu && mkdir -p .gpu && CGO_ENABLED=0 go build -o .gpu/tlec ./cmd/tlec &&
#     CGO_ENABLED=0 go test -c -o .gpu/ ./kernels/tutorials ./kernels/kda ./tests && bash tools/build-ptx.sh &&
#     .gpu/tlec build tests/testdata/wgmma_rs.tle --kernel rs --toolchain llc -o .gpu/rs.ptx
. "$(dirname "$0")/gpu-env.sh"
echo "== tests: RS wgmma, chained dots, dot as wgmma, make_desc (libNVVM)"
(cd tests && TLE_TOOLCHAIN=nvvm "$root/.gpu/tests.test" -test.run 'RegisterA|ChainedDot|DotWgmma|MakeDesc' -test.v >/tmp/t.log 2>&1; echo "tests rc=$?")
grep -E "^--- " /tmp/t.log | tee "$OUT/tests-rs.txt"
(cd kernels/tutorials && TLE_TOOLCHAIN=nvvm TLE_TEST_PTX_DIR="$root/.gpu/ptx" "$root/.gpu/tutorials.test" -test.v >>/tmp/t.log 2>&1; echo "tutorials rc=$?")
grep -E "^(--- FAIL|FAIL|ok)|Error:|rror:" /tmp/t.log | head -20 | tee "$OUT/tests.txt"
echo "== KDA accuracy (v3, with T=8192 H=96)"
(cd kernels/kda && TLE_TOOLCHAIN=nvvm TLE_KDA_VARIANT=v3 "$root/.gpu/kda.test" -test.run 'Accuracy//v3|GPULarge|Runner' -test.v >/tmp/kda.log 2>&1; echo "kda rc=$?")
grep -E "^(--- FAIL|FAIL|ok)|rel|Error:" /tmp/kda.log | head -20 | tee -a "$OUT/tests.txt"
echo "== ptxas of kda_rec (llc-19 PTX, BV 64 and 32)"
for bv in 64 32; do ptxas -arch=sm_90a -v .gpu/kda3/kda_rec_bv$bv.ptx -o /tmp/r.cubin 2>&1 | grep -E "registers|spill" | sed "s/^/bv$bv: /"; done | tee "$OUT/ptxas.txt"
if [ -f .gpu/rs.ptx ]; then
  ptxas -arch=sm_90a -v .gpu/rs.ptx -o /tmp/rs.cubin 2>&1 | grep -E "registers|spill|arn" | sed "s/^/rs: /" | tee -a "$OUT/ptxas.txt"
  cuobjdump --dump-sass /tmp/rs.cubin | grep -oE "HGMMA[^;]*" | head -2 | sed "s/^/rs: /" | tee -a "$OUT/ptxas.txt"
fi
echo "== bench kda_fwd: this compiler, the other one, this one again"
TLE_CACHE_DIR=/tmp/cache-this TLE_TOOLCHAIN=nvvm .gpu/tlec bench kda_fwd --reps 20 2>/dev/null | tee "$OUT/bench.txt"
if [ -x .gpu/tlec-other ]; then
  echo "-- the other compiler" | tee -a "$OUT/bench.txt"
  TLE_CACHE_DIR=/tmp/cache-other TLE_TOOLCHAIN=nvvm .gpu/tlec-other bench kda_fwd --reps 20 2>/dev/null | tee -a "$OUT/bench.txt"
  echo "-- this compiler again" | tee -a "$OUT/bench.txt"
  TLE_CACHE_DIR=/tmp/cache-this TLE_TOOLCHAIN=nvvm .gpu/tlec bench kda_fwd --reps 20 2>/dev/null | tee -a "$OUT/bench.txt"
fi
