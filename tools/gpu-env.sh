# Sourced by the tools/gpu-*.sh scripts, which run on the GPU host from the
# repository root with .gpu carried: logs go to $OUT (default /tmp/out), root
# is the repository root, and tutorials_gpu runs the tutorial tests.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
root=$(pwd)

# tutorials_gpu LOG [LABEL]: the tutorial tests (.gpu/tutorials.test)
# through libNVVM, then through the carried llc-19 PTX of .gpu/ptx
# (tools/build-ptx.sh), output into LOG; prints "LABEL rc=N".
tutorials_gpu() {
  (cd kernels/tutorials && TLE_TOOLCHAIN=nvvm TLE_TEST_PTX_DIR="$root/.gpu/ptx" "$root/.gpu/tutorials.test" -test.v >"$1" 2>&1; echo "${2:+$2 }rc=$?")
}
