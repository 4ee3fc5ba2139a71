#!/usr/bin/env bash
# The first GPU call of the next session (repository root, .gpu and .fla
# carried): re-checks what changed after this session's last GPU run, in
# order of importance, keeping few files under $OUT.
#   build here: rm -rf .gpu && mkdir -p .gpu && CGO_ENABLED=0 go build -o .gpu/tlec ./cmd/tlec &&
#     CGO_ENABLED=0 go test -c -o .gpu/ ./kernels/tutorials ./kernels/kda ./tests && bash tools/build-ptx.sh
# 1. the tutorials through libNVVM and carried llc-19 PTX (the cp.async
#    barrier change touches the pipelined matmul), with the dot-as-wgmma
#    tests (TestMatmulDotWgmma, TestDotWgmmaTransposedOperand);
# 2. KDA v3: accuracy, racecheck / memcheck after the fix, the bench;
# 3. the tutorial bench with the 'matmul (dot as wgmma)' rows and cuBLAS.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
root=$(pwd)
echo "== tutorials (libNVVM, then carried PTX) and dot as wgmma"
(cd kernels/tutorials && TLE_TOOLCHAIN=nvvm TLE_TEST_PTX_DIR="$root/.gpu/ptx" "$root/.gpu/tutorials.test" -test.v >/tmp/tut.log 2>&1; echo "tutorials rc=$?")
(cd tests && TLE_TOOLCHAIN=nvvm "$root/.gpu/tests.test" -test.run 'DotWgmma' -test.v >>/tmp/tut.log 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|FAIL)|Error" /tmp/tut.log | head -30 | tee "$OUT/tutorials.txt"
echo "== KDA v3"
SANITIZE=1 LARGE=0 RUNS="4:0" REPS=20 OUT="$OUT" bash tools/gpu-kda3.sh 2>&1 | tr '\r' '\n' | grep -v "%|" | tail -30
echo "== tlec bench tutorials + peers"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --reps 20 2>/dev/null | tee "$OUT/bench-tutorials.txt"
PYTHONUNBUFFERED=1 python3 tools/peers.py 2>&1 | tail -8 | tee -a "$OUT/bench-tutorials.txt"
