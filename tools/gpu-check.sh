#!/usr/bin/env bash
# Runs on the GPU host from the repository root, with the binaries that
# `make`-less building put in .gpu/ (see README, "GPU"): the driver tests,
# the tutorials through libNVVM and through carried llc-19 PTX, ptxas on
# that PTX, the benchmark suite and its peers. Logs go to $OUT.
. "$(dirname "$0")/gpu-env.sh"
export TLE_LOG=jit
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
step() { echo "== $1"; }
step "runtime/cuda GPU tests"
(cd runtime/cuda && TLE_REQUIRE_GPU=1 "$root/.gpu/cuda.test" -test.run 'GPU|NVVM|Available' -test.v >"$OUT/cuda.log" 2>&1; echo "rc=$?") | tee -a "$OUT/summary.txt"
grep -E "^(--- |ok|FAIL|PASS)|launch cost" "$OUT/cuda.log" | head -40
step "backend GPU tests"
(cd backend/nvptx && "$root/.gpu/nvptx.test" -test.run GPU -test.v >"$OUT/nvptx.log" 2>&1; echo "rc=$?") | tee -a "$OUT/summary.txt"
grep -E "^(--- |ok|FAIL|PASS)" "$OUT/nvptx.log" | head -30
step "tutorials via libNVVM"
(cd kernels/tutorials && TLE_CACHE_DIR=/tmp/cache-nvvm TLE_TOOLCHAIN=nvvm "$root/.gpu/tutorials.test" -test.v >"$OUT/tutorials-nvvm.log" 2>&1; echo "rc=$?") | tee -a "$OUT/summary.txt"
grep -E "^(--- |ok|FAIL|PASS)|Error:|error" "$OUT/tutorials-nvvm.log" | head -40
step "tutorials via carried llc-19 PTX"
TLE_CACHE_DIR=/tmp/cache-llc tutorials_gpu "$OUT/tutorials-llc.log" | tee -a "$OUT/summary.txt"
grep -E "^(--- |ok|FAIL|PASS)|Error:" "$OUT/tutorials-llc.log" | head -40
step "ptxas -arch=sm_90a -v on the carried PTX"
for f in .gpu/ptx/*.ptx; do echo "-- $f"; ptxas -arch=sm_90a -v "$f" -o /tmp/k.cubin 2>&1 | grep -E "registers|spill|error" | head -4; done 2>&1 | tee "$OUT/ptxas.txt"
step "bench"
TLE_TOOLCHAIN=nvvm .gpu/tlec bench tutorials --reps ${REPS:-30} 2>"$OUT/bench.err" | tee "$OUT/bench.txt"
tail -3 "$OUT/bench.err"
step "peers"
PYTHONUNBUFFERED=1 python3 tools/peers.py 2>&1 | tee "$OUT/peers.txt" | tail -12
