#!/usr/bin/env bash
# Runs on the GPU host from the repository root with .gpu carried (built
# elsewhere: go test -c -o .gpu/tutorials.test ./kernels/tutorials,
# go build -o .gpu/tlec ./cmd/tlec, bash tools/build-ptx.sh): the shared-
# memory transpose tutorial's tests through libNVVM and through the
# carried llc-19 PTX, then the SASS of its carried PTX: the transposes are
# LDSM.16.MT88.4 (ldmatrix.x4.trans), PRMT (8-bit only, 16 per thread
# for a [64, 128] e4m3 tile) and STSM.16.M88.4 (stmatrix.x4), with no
# per-byte LDS.U8 / STS.U8.
. "$(dirname "$0")/gpu-env.sh"
echo "== smem transpose tests"
(cd kernels/tutorials && TLE_REQUIRE_GPU=1 TLE_TOOLCHAIN=nvvm TLE_TEST_PTX_DIR="$root/.gpu/ptx" "$root/.gpu/tutorials.test" -test.run 'SmemTranspose' -test.v >"$OUT/smemt-tests.log" 2>&1; echo "rc=$?")
grep -E "^(--- |ok|FAIL|PASS)|Error:" "$OUT/smemt-tests.log" | head -20
for k in transpose_e4m3 transpose_bf16 pv_e4m3; do
  echo "== SASS of $k (carried PTX)"
  ptxas -arch=sm_90a -v ".gpu/ptx/$k.ptx" -o "/tmp/$k.cubin" 2>&1 | grep -E "registers|spill|error" | head -3
  cuobjdump -sass "/tmp/$k.cubin" >"$OUT/$k.sass"
  grep -oE "(LDSM|STSM)[A-Z0-9.]*|PRMT|LDS\.U8|STS\.U8|[HQ]GMMA\.[A-Z0-9x.]+" "$OUT/$k.sass" | sort | uniq -c
done
