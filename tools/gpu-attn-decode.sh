#!/usr/bin/env bash
# Paged decode attention (kernels/attention) against HPC-Ops in one session,
# on the GPU host from the repository root with .gpu and .peers carried:
#   built here: CGO_ENABLED=0 go build -ldflags="-s -w" -o .gpu/tlec ./cmd/tlec
#               CGO_ENABLED=0 go test -c -o .gpu/attention.test ./kernels/attention   (for TEST=1)
#   .peers:     echo /.peers/ >> .git/info/exclude; mkdir -p .peers; cp ../shared/peers/{hpc-ops-kit.tar.xz,sdpa_prefill.py} .peers/
# Steps (about 6 minutes; every step has a timeout so the whole stays under 8;
# PREFILL=1 adds up to 8 more; PREFILL=1 DECODE=0, the prefill side alone,
# stays under 9):
#   TEST=1: the package's tests on the GPU (TLE_REQUIRE_GPU=1: accuracy on the
#           interpreter and the GPU, the 128k case, the Runner) -> attention-test.log
#   SANITIZE=1: compute-sanitizer memcheck, racecheck, synccheck on small
#           decode and masked prefill tests -> san-TOOL.log
#   HPC-Ops: build the kit (/tmp/hpc/build.sh, about 147 s), then its bench
#           (bench.py --only decode: 9 workloads, BF16 dynamic/static Sq 1/2,
#           FP8 q1 dynamic Sq 1, CUDA-graph replay; PREFILL=1 adds its prefill
#           bench, DECODE=0 drops the decode one) -> $OUT/hpc_attn.json
#   TLE-Go decode (DECODE=1, the default): tlec bench attn_decode --ctas C
#           --schedule S --json for each C of $CTAS (default 0: the package's
#           choice) and S of $SCHEDS (default auto: the package's policy;
#           fixed, dynamic) -> tlec_attn_cC-S.json,
#           against HPC-Ops' compute+combine with a prebuilt task map (its
#           fastest), per workload, and the geometric means
#   PREFILL=1: torch SDPA (.peers/sdpa_prefill.py, cuDNN and FA2; copy it from
#           ../shared/peers too) -> $OUT/sdpa_prefill.json; tlec bench attn_prefill
#           --json -> $OUT/tlec_prefill.json; per row HPC-Ops' time of the same
#           name and the speed-up, the geometric mean over the 24 FP8 rows,
#           masked over dense (ours and HPC-Ops'), BF16 paged, and the
#           self-attention rows against cuDNN and FA2; SAME_MASK=1 (default)
#           gives our masked rows HPC-Ops' own block masks (tools/hpc_masks.py,
#           tlec bench attn_prefill --masks) so both walk one mask
#   KEYSTEP64=1 (with PREFILL=1): the FP8 rows again at --key-step 64 (one
#           page a step), beside the default 128 keys a step (about 1 minute more)
#   RERUN_FP8="FLAGS" (with PREFILL=1): the FP8 rows again with FLAGS
#           (--v-stages 3, ...) beside the default run, and the ratio
#   HPC_BUILD_TIMEOUT: seconds for the kit's build (default 240)
#   BF16K128=1 (with PREFILL=1): the BF16 paged rows again at --key-step 128
#           (attn_prefill_bf16_k128, the default at pages of 64 since run 30:
#           a repeat of the default run there)
#   TESTRUN, SANRUN: -test.run patterns for TEST=1 (default: every test;
#           TEST_TIMEOUT seconds, default 150) and
#           SANITIZE=1 (default: TestDecodeQuick$|TestPrefillMaskEmptyTile)
# $OUT gets at most 5 files (the device tool drops files past a count):
# hpc_attn.json, tlec_prefill.json, sdpa_prefill.json, compare.txt (every
# comparison table, in full) and logs.tar.gz (logs, gpu.txt and the decode
# JSONs, written in $W); stdout shows compact tables only.
. "$(dirname "$0")/gpu-env.sh"
REPS=${REPS:-100}
CTAS=${CTAS:-0}
PREFILL=${PREFILL:-0}
DECODE=${DECODE:-1}
W=/tmp/gpu-attn-work
rm -rf "$W" && mkdir -p "$W"
finish() {
  cp "$W/compare.txt" "$OUT/compare.txt" 2>/dev/null
  tar -czf "$OUT/logs.tar.gz" -C "$W" . 2>/dev/null
}
trap finish EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$W/gpu.txt"

# the kit builds on the CPU while the tests run on the GPU (timings come after both)
t0=$(date +%s)
rm -rf /tmp/hpc && tar -xJf .peers/hpc-ops-kit.tar.xz -C /tmp
(timeout ${HPC_BUILD_TIMEOUT:-240} bash /tmp/hpc/build.sh >"$W/hpc-build.log" 2>&1; echo "rc=$?" >"$W/hpc-build.rc") &
build=$!

if [ "${TEST:-0}" = 1 ]; then
  echo "== kernels/attention tests on the GPU"
  (cd kernels/attention && TLE_REQUIRE_GPU=1 timeout "${TEST_TIMEOUT:-150}" "$root/.gpu/attention.test" -test.v ${TESTRUN:+-test.run "$TESTRUN"} >"$W/attention-test.log" 2>&1; echo "rc=$?")
  grep -E "^(--- FAIL|--- SKIP|ok|FAIL|PASS)|Error:|Messages:" "$W/attention-test.log" | head -30
fi

if [ "${SANITIZE:-0}" = 1 ]; then
  # small cases: a decode call of each dtype path and a masked FP8 prefill
  sanitize attention attention.test "$W" 45 "${SANRUN:-TestDecodeQuick\$|TestPrefillMaskEmptyTile}"
fi

echo "== HPC-Ops build"
wait $build
echo "hpc build $(cat "$W/hpc-build.rc") in $(( $(date +%s) - t0 )) s"
tail -2 "$W/hpc-build.log"

only="--only decode"
if [ "$PREFILL" = 1 ]; then only=""; [ "$DECODE" = 0 ] && only="--only prefill"; fi
echo "== HPC-Ops bench ${only:-(decode and prefill)}"
t0=$(date +%s)
OUT="$OUT" PYTHONUNBUFFERED=1 timeout 240 python3 /tmp/hpc/bench.py $only --iters "$REPS" >"$W/hpc-bench.log" 2>&1
echo "hpc bench rc=$? in $(( $(date +%s) - t0 )) s"
grep -E "FAIL|^wrote" "$W/hpc-bench.log" | head -10

# CTAS: the --ctas values to time (0: the package's default); SCHEDS: the
# --schedule values (auto: the package's policy; fixed, dynamic); one
# table each
[ "$DECODE" = 1 ] && for c in $CTAS; do for s in ${SCHEDS:-auto}; do
sa=""; [ "$s" != auto ] && sa="--schedule $s"
l="c$c-$s"
echo "== tlec bench attn_decode --ctas $c $sa"
t0=$(date +%s)
timeout 200 .gpu/tlec bench attn_decode --reps "$REPS" --ctas "$c" $sa --json >"$W/tlec_attn_$l.json" 2>"$W/tlec-bench-$l.err"
echo "tlec bench rc=$? in $(( $(date +%s) - t0 )) s"
tail -3 "$W/tlec-bench-$l.err"
echo "== decode --ctas $c $sa" >>"$W/compare.txt"
python3 - "$W/tlec_attn_$l.json" "$OUT/hpc_attn.json" <<'PY' | tee -a "$W/compare.txt" | grep -E "geometric|copy rate|^uniform_4096|^skewed"
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
print(f"{'case':16s} {'dtype':7s} sq layout ctas stages sched   splits {'us':>8s} {'TB/s':>6s} {'floor':>7s} {'HPC dyn':>8s} {'speed-up':>8s}")
groups = {}
for r in ours:
    dt = "bf16" if r["dtype"] == "bf16" else f"fp8q{r.get('quant_type', 1)}"
    p = peer(r["case"], dt, r["sq"])
    sp = p / r["median_us"] if p else None
    if sp and r["layout"] == "nhd":
        groups.setdefault((dt, r["sq"]), []).append(sp)
    print(f"{r['case']:16s} {dt:7s} {r['sq']:2d} {r['layout']:6s} {r.get('ctas', 1):4d} {r.get('stages', 0):6d} {r.get('schedule', '-'):7s} {r['splits']:6d} {r['median_us']:8.1f} {r['tb_per_s']:6.2f} {r['floor_us']:7.1f} "
          f"{(f'{p:8.1f}' if p else '       -')} {(f'{sp:7.3f}x' if sp else '       -')}")
for (dt, sq), v in sorted(groups.items()):
    g = math.exp(sum(map(math.log, v)) / len(v))
    print(f"geometric mean over {len(v)} NHD workloads, {dt} Sq {sq}: {g:.3f}x HPC-Ops (min {min(v):.3f}x)")
PY
done; done

# NCU=1: each decode kernel's and combine's duration under Nsight Compute
# on $NCU_CASES (BF16 and FP8, Sq 1, NHD: one call each) -> ncu-decode.txt
if [ "${NCU:-0}" = 1 ]; then
  echo "== ncu durations (${NCU_CASES:=skewed_extreme,uniform_512,uniform_4096,one_128k_31x4k})"
  timeout 150 ncu --clock-control none -k regex:attn_ --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
    .gpu/tlec bench attn_decode --cases "$NCU_CASES" --reps 2 --warmup 1 >"$W/ncu-decode.txt" 2>&1
  echo "ncu rc=$?"
  python3 - "$W/ncu-decode.txt" <<'PY' | tee -a "$W/compare.txt"
import re, sys
name = None; rows = []
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s+(attn_\w+).*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
    if m: name = m.group(1); cur = {"k": name}; rows.append(cur); continue
    m = re.match(r"\s+(gpu__time_duration.sum|launch__grid_size|launch__registers_per_thread)\s+(\S+)\s+([\d.,]+)", line)
    if m and rows: rows[-1][m.group(1)] = (m.group(3), m.group(2))
for r in rows:
    d = r.get("gpu__time_duration.sum", ("?", ""))
    print(f"{r['k']:32s} {d[0]:>10s} {d[1]:6s} grid {r.get('launch__grid_size', ('?',))[0]:>6s} regs {r.get('launch__registers_per_thread', ('?',))[0]}")
PY
fi

[ "$PREFILL" = 1 ] || exit 0
if [ "${SDPA:-1}" = 1 ]; then  # SDPA=0 skips torch SDPA
echo "== torch SDPA"
t0=$(date +%s)
PYTHONUNBUFFERED=1 timeout 150 python3 .peers/sdpa_prefill.py "$OUT/sdpa_prefill.json" >"$W/sdpa.log" 2>&1
echo "sdpa rc=$? in $(( $(date +%s) - t0 )) s"
fi
# SAME_MASK=1 (the default): HPC-Ops' own block masks (its bench's draw,
# tools/hpc_masks.py) for our masked rows too, so both walk one mask;
# SAME_MASK=0 keeps our bench's draw (same rule and seed, other generator)
masks=()
if [ "${SAME_MASK:-1}" = 1 ] && timeout 60 python3 tools/hpc_masks.py /tmp/hpc "$W/masks" >"$W/hpc-masks.log" 2>&1; then
  masks=(--masks "$W/masks"); tail -2 "$W/hpc-masks.log"
else
  echo "our own masks (SAME_MASK=${SAME_MASK:-1})"; tail -2 "$W/hpc-masks.log" 2>/dev/null
fi
# in two parts (FP8; BF16), so a timeout loses half the rows at most;
# their rows joined into one list
for part in fp8:prefill_fp8 bf16:kvcache_bf16,nocache; do
  echo "== tlec bench attn_prefill --cases ${part#*:} ${masks[*]}"
  t0=$(date +%s)
  timeout 180 .gpu/tlec bench attn_prefill --reps "$REPS" --cases "${part#*:}" "${masks[@]}" --json >"$W/tlec_prefill_${part%%:*}.json" 2>"$W/tlec-prefill-${part%%:*}.err"
  echo "tlec bench rc=$? in $(( $(date +%s) - t0 )) s"
  tr '\r' '\n' <"$W/tlec-prefill-${part%%:*}.err" | grep -v '^\s*$' | tail -3 | cut -c1-300
done
# rerun LABEL DEFAULT CASES FLAGS...: the rows CASES again with FLAGS, their
# times beside the default run's ($W/tlec_prefill_DEFAULT.json) and the
# geometric mean of the ratios
rerun() {
  local label=$1 def=$2 cases=$3; shift 3
  echo "== tlec bench attn_prefill $* ($label)"
  timeout 180 .gpu/tlec bench attn_prefill --reps "$REPS" --cases "$cases" "${masks[@]}" "$@" --json >"$W/tlec_prefill_$label.json" 2>"$W/tlec-prefill-$label.err"; echo "rc=$?"
  python3 - "$W/tlec_prefill_$def.json" "$W/tlec_prefill_$label.json" "$label" <<'PY' | tee -a "$W/compare.txt"
import json, math, sys
try:
    a = {r["name"]: r for r in json.load(open(sys.argv[1]))}
    b = json.load(open(sys.argv[2]))
except Exception as e:
    print(f"no {sys.argv[3]} figures:", e); sys.exit(0)
print(f"{'row':41s} {'default us':>10s} {sys.argv[3] + ' us':>10s} {'ratio':>7s} {'TFLOP/s':>8s}")
v = []
for r in b:
    x = a.get(r["name"], {}).get("median_us", 0)
    y = r.get("median_us", 0)
    if x and y:
        v.append(y / x)
    print(f"{r['name']:41s} {x:10.1f} {y:10.1f} {(y / x if x and y else 0):7.3f} {r.get('tflop_s', 0):8.1f}")
if v:
    print(f"geometric mean of {sys.argv[3]} / default times over {len(v)} rows: {math.exp(sum(map(math.log, v)) / len(v)):.3f}")
PY
}
# BLOCKM64=1: the BF16 rows again with 64 query rows a program (two
# programs an SM); KEYSTEP64=1: the FP8 rows again one page (64 keys) a
# step (attn_prefill_fp8) beside the default 128 keys (attn_prefill_fp8_k128)
[ "${BLOCKM64:-0}" = 1 ] && rerun bm64 bf16 kvcache_bf16,nocache --block-m 64
[ "${KEYSTEP64:-0}" = 1 ] && rerun ks64 fp8 prefill_fp8 --key-step 64
[ "${BF16K128:-0}" = 1 ] && rerun bk128 bf16 kvcache_bf16 --key-step 128
# RERUN_FP8="FLAGS": the FP8 rows again with FLAGS (--v-stages 3, ...)
[ -n "${RERUN_FP8:-}" ] && rerun alt fp8 prefill_fp8 $RERUN_FP8
python3 - "$W/tlec_prefill_fp8.json" "$W/tlec_prefill_bf16.json" >"$OUT/tlec_prefill.json" <<'PY'
import json, sys
rows = []
for p in sys.argv[1:]:
    try:
        rows += json.load(open(p))
    except Exception as e:
        print(f"{p}: {e}", file=sys.stderr)
json.dump(rows, sys.stdout, indent=1)
PY
echo "== prefill" >>"$W/compare.txt"
python3 - "$OUT/tlec_prefill.json" "$OUT/hpc_attn.json" "$OUT/sdpa_prefill.json" <<'PY' | tee -a "$W/compare.txt"
import json, math, sys
def load(path, what):
    try:
        return json.load(open(path))
    except Exception as e:
        print(f"no {what} figures: {e}"); return None
ours = load(sys.argv[1], "TLE-Go") or []
h = load(sys.argv[2], "HPC-Ops")
hpc = {r["name"]: r["us"] for r in (h or {}).get("results", []) if "us" in r}
sdpa = load(sys.argv[3], "torch SDPA") if len(sys.argv) > 3 else None
def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
def f(x, w, p=1, s=""):
    return f"{x:{w}.{p}f}{s}" if x else " " * (w - 1 - len(s)) + "-" + " " * len(s)
def dense_us(tab, name):  # the time of a masked row's dense twin
    if name.startswith("prefill_kvcache_bf16_masked_"):
        return tab.get(name.replace("_masked_", "_"))
    return tab.get(name.replace("_masked_", "_dense_"))
print("speed-up = HPC-Ops us / ours (> 1: ours faster); d/m = the row's dense us / its masked us (ours, HPC-Ops)")
print(f"{'name':41s} {'us':>8s} {'TFLOP/s':>7s} {'HPC us':>8s} {'speed-up':>8s} {'d/m':>6s} {'HPC d/m':>7s}")
fp8, bf16, dm_o, dm_h = {}, [], {}, {}
ours_us = {r["name"]: r["median_us"] for r in ours if not r.get("error") and r["median_us"] > 0}
for r in ours:
    n, us = r["name"], ours_us.get(r["name"])
    p = hpc.get(n)
    sp = p / us if p and us else None
    dm = hdm = None
    if r.get("masked"):
        d = dense_us(ours_us, n); dm = d / us if d and us else None
        hd = dense_us(hpc, n); hdm = hd / p if hd and p else None
        if n.startswith("prefill_fp8"):
            dm and dm_o.setdefault(r["case"], []).append(dm)
            hdm and dm_h.setdefault(r["case"], []).append(hdm)
    if sp and n.startswith("prefill_fp8"):
        fp8.setdefault("masked" if r.get("masked") else "dense", []).append(sp)
    if sp and n.startswith("prefill_kvcache_bf16"):
        bf16.append(sp)
    line = f"{n:41s} {f(us, 8)} {f(r['tflop_s'] if us else 0, 7)} {f(p, 8)} {f(sp, 8, 3, 'x')} {f(dm, 6, 2)} {f(hdm, 7, 2)}"
    if r.get("error"):
        line += "  error: " + r["error"][:60]
    print(line)
allfp8 = fp8.get("dense", []) + fp8.get("masked", [])
print(f"FP8, geometric mean over {len(allfp8)} rows (of 24): {gm(allfp8):.3f}x HPC-Ops (min {min(allfp8, default=float('nan')):.3f}x); "
      f"dense {gm(fp8.get('dense', [])):.3f}x ({len(fp8.get('dense', []))}), masked {gm(fp8.get('masked', [])):.3f}x ({len(fp8.get('masked', []))})")
for c in sorted(set(dm_o) | set(dm_h), key=lambda c: [int(x) for x in c.split("x")]):
    print(f"FP8 masked over dense at {c}, geometric mean: ours {gm(dm_o.get(c, [])):.2f}x ({len(dm_o.get(c, []))} rows), HPC-Ops {gm(dm_h.get(c, [])):.2f}x ({len(dm_h.get(c, []))})")
print(f"BF16 paged, geometric mean over {len(bf16)} rows with an HPC-Ops figure (NHD): {gm(bf16):.3f}x HPC-Ops")
if sdpa:
    print("self-attention (BF16 causal, GQA 32/4) against torch SDPA (speed-up = SDPA us / ours)")
    print(f"{'name':41s} {'us':>8s} {'cuDNN us':>8s} {'speed-up':>8s} {'FA2 us':>8s} {'speed-up':>8s}")
    for S in (4096, 8192, 32768):
        n = f"prefill_bf16_nocache/{S}x{S}"
        us = ours_us.get(n)
        cells = []
        for be in ("cudnn", "flash2"):
            e = sdpa.get(f"{be}_gqa32_4_causal_S{S}", {})
            p = e["ms"] * 1e3 if "ms" in e else None
            cells.append(f"{f(p, 8)} {f(p / us if p and us else None, 8, 3, 'x')}")
        print(f"{n:41s} {f(us, 8)} {' '.join(cells)}")
PY
