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

# sanitize PKG TEST LOGDIR TIMEOUT RUN: compute-sanitizer memcheck,
# racecheck and synccheck on .gpu/TEST run in kernels/PKG with -test.run RUN,
# logs LOGDIR/san-TOOL.log; prints each tool's rc and summary.
sanitize() {
  local pkg=$1 test=$2 dir=$3 limit=$4 run=$5 tool
  echo "== compute-sanitizer"
  for tool in memcheck racecheck synccheck; do
    (cd "kernels/$pkg" && TLE_REQUIRE_GPU=1 timeout "$limit" compute-sanitizer --tool $tool "$root/.gpu/$test" -test.run "$run" >"$dir/san-$tool.log" 2>&1; echo "$tool rc=$?")
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^(--- FAIL|FAIL|ok|PASS)" "$dir/san-$tool.log" | head -4
  done
}
