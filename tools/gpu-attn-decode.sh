#!/usr/bin/env bash
# Paged decode attention (kernels/attention) against HPC-Ops in one session,
# on the GPU host from the repository root with .gpu and .peers carried:
#   built here: CGO_ENABLED=0 go build -ldflags="-s -w" -o .gpu/tlec ./cmd/tlec
#               CGO_ENABLED=0 go test -c -o .gpu/attention.test ./kernels/attention   (for TEST=1)
#   .peers:     echo /.peers/ >> .git/info/exclude; mkdir -p .peers; cp ../shared/peers/hpc-ops-kit.tar.xz .peers/
# Steps (about 6 minutes; every step has a timeout so the whole stays under 8):
#   TEST=1: the package's tests on the GPU (TLE_REQUIRE_GPU=1: accuracy on the
#           interpreter and the GPU, the 128k case, the Runner) -> $OUT/attention-test.log
#   HPC-Ops: build the kit (/tmp/hpc/build.sh, about 147 s), then its decode
#           bench (bench.py --only decode: 9 workloads, BF16 dynamic/static Sq 1/2,
#           FP8 q1 dynamic Sq 1, CUDA-graph replay) -> $OUT/hpc_attn.json
#   TLE-Go: tlec bench attn_decode --ctas C --json for each C of $CTAS
#           (default 0: the package's choice) -> $OUT/tlec_attn_cC.json
#   the two side by side: TLE-Go's whole call against HPC-Ops' compute+combine
#           with a prebuilt task map (its fastest), per workload, and the
#           geometric means -> $OUT/compare_cC.txt
. "$(dirname "$0")/gpu-env.sh"
REPS=${REPS:-100}
CTAS=${CTAS:-0}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/gpu.txt"

# the kit builds on the CPU while the tests run on the GPU (timings come after both)
t0=$(date +%s)
rm -rf /tmp/hpc && tar -xJf .peers/hpc-ops-kit.tar.xz -C /tmp
(timeout 240 bash /tmp/hpc/build.sh >"$OUT/hpc-build.log" 2>&1; echo "rc=$?" >"$OUT/hpc-build.rc") &
build=$!

if [ "${TEST:-0}" = 1 ]; then
  echo "== kernels/attention tests on the GPU"
  (cd kernels/attention && TLE_REQUIRE_GPU=1 timeout 200 "$root/.gpu/attention.test" -test.v >"$OUT/attention-test.log" 2>&1; echo "rc=$?")
  grep -E "^(--- FAIL|--- SKIP|ok|FAIL|PASS)|Error:|Messages:" "$OUT/attention-test.log" | head -30
fi

if [ "${SANITIZE:-0}" = 1 ]; then
  # small cases: a decode call of each dtype path and a masked FP8 prefill
  echo "== compute-sanitizer"
  for tool in memcheck racecheck synccheck; do
    (cd kernels/attention && TLE_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool $tool "$root/.gpu/attention.test" -test.run 'TestDecodeQuick$|TestPrefillMask' >"$OUT/san-$tool.log" 2>&1; echo "$tool rc=$?")
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^(--- FAIL|FAIL|ok|PASS)" "$OUT/san-$tool.log" | head -4
  done
fi

echo "== HPC-Ops build"
wait $build
echo "hpc build $(cat "$OUT/hpc-build.rc") in $(( $(date +%s) - t0 )) s"
tail -2 "$OUT/hpc-build.log"

# PREFILL=1: HPC-Ops' prefill bench too (its 24 FP8 configurations, BF16
# paged and unpaged) and tlec bench attn_prefill -> $OUT/tlec_prefill.json
only="--only decode"
[ "${PREFILL:-0}" = 1 ] && only=""
echo "== HPC-Ops bench ${only:-(decode and prefill)}"
t0=$(date +%s)
OUT="$OUT" PYTHONUNBUFFERED=1 timeout 240 python3 /tmp/hpc/bench.py $only --iters "$REPS" >"$OUT/hpc-bench.log" 2>&1
echo "hpc bench rc=$? in $(( $(date +%s) - t0 )) s"
grep -E "CHECK|FAILED" "$OUT/hpc-bench.log" | head -10

# CTAS: the --ctas values to time (0: the package's default), one table each
for c in $CTAS; do
echo "== tlec bench attn_decode --ctas $c"
t0=$(date +%s)
timeout 200 .gpu/tlec bench attn_decode --reps "$REPS" --ctas "$c" --json >"$OUT/tlec_attn_c$c.json" 2>"$OUT/tlec-bench-c$c.err"
echo "tlec bench rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$OUT/tlec-bench-c$c.err"
python3 - "$OUT/tlec_attn_c$c.json" "$OUT/hpc_attn.json" <<'PY' | tee "$OUT/compare_c$c.txt" | grep -E "geometric|copy rate|^uniform_4096|^skewed"
import json, math, sys
try:
    ours = json.load(open(sys.argv[1]))
except Exception as e:
    print("no TLE-Go figures:", e); sys.exit(0)
try:
    hpc = {r["name"]: r for r in json.load(open(sys.argv[2]))["results"] if "us" in r}
except Exception as e:
    print("no HPC-Ops figures:", e); hpc = {}
def peer(case, dt, sq):
    r = hpc.get(f"decode_{dt}_dynamic_sq{sq}_nhd/{case} [compute+combine]")
    return r["us"] if r else None
print(f"copy rate {ours[0]['copy_tb_per_s']:.3f} TB/s (same run)" if ours else "no rows")
print(f"{'case':16s} {'dtype':7s} sq layout ctas stages splits {'us':>8s} {'TB/s':>6s} {'floor':>7s} {'HPC dyn':>8s} {'speed-up':>8s}")
groups = {}
for r in ours:
    dt = "bf16" if r["dtype"] == "bf16" else f"fp8q{r.get('quant_type', 1)}"
    p = peer(r["case"], dt, r["sq"])
    sp = p / r["median_us"] if p else None
    if sp and r["layout"] == "nhd":
        groups.setdefault((dt, r["sq"]), []).append(sp)
    print(f"{r['case']:16s} {dt:7s} {r['sq']:2d} {r['layout']:6s} {r.get('ctas', 1):4d} {r.get('stages', 0):6d} {r['splits']:6d} {r['median_us']:8.1f} {r['tb_per_s']:6.2f} {r['floor_us']:7.1f} "
          f"{(f'{p:8.1f}' if p else '       -')} {(f'{sp:7.3f}x' if sp else '       -')}")
for (dt, sq), v in sorted(groups.items()):
    g = math.exp(sum(map(math.log, v)) / len(v))
    print(f"geometric mean over {len(v)} NHD workloads, {dt} Sq {sq}: {g:.3f}x HPC-Ops (min {min(v):.3f}x)")
PY
done
if [ "${PREFILL:-0}" = 1 ]; then
  echo "== tlec bench attn_prefill"
  timeout 120 .gpu/tlec bench attn_prefill --reps "$REPS" --json >"$OUT/tlec_prefill.json" 2>"$OUT/tlec-prefill.err"; echo "rc=$?"
  python3 - "$OUT/tlec_prefill.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['case']:10s} {r['dtype']:5s} q{r['quant_type']} {r['layout']}: {r['median_us']:8.1f} us {r['tflop_s']:6.1f} TFLOP/s")
PY
fi
