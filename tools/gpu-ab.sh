#!/usr/bin/env bash
# A/B of builds of tlec on the GPU host, in one call (repository root,
# .gpu carried):
#   .gpu/tlec       this build      (CGO_ENABLED=0 go build -o .gpu/tlec ./cmd/tlec)
#   .gpu/NAME/tlec  the others      (each built from a worktree of another
#                                   commit: old, and any variants)
#   .gpu/var/*.ptx  optional PTX    (tlec build --emit ptx): ptxas' performance
#                                   advisories and the SASS's WARPGROUP.DEPBAR count
# DECODE=0 skips the decode bench; CASES= the prefill rows (tlec bench
# attn_prefill --cases; default: FP8 dense and masked, BF16 paged, self-attention 4096);
# TESTRUN= a -test.run pattern of .gpu/attention.test to run first (accuracy);
# RACE= one to run under compute-sanitizer racecheck.
# SPILLS= a kernel-name regex: registers and spills of each build's kernels, and
# their local memory by warp role (gpu-ptxas-spills.sh ROLES=1).
# DECODE_BUILDS= the builds the decode bench times (default all), DECODE_ARGS=
# more flags for it (--cases ...); PREFILL=0 skips the prefill bench.
# ROUNDS= how many times the benches run, the builds alternating in each
# round (default 1; each row then shows every round's median); SDPA=1 times
# torch SDPA (.peers/sdpa_prefill.py: cuDNN, FA2) after them, in the same
# call; SANRUN= a -test.run pattern of .gpu/attention.test for
# compute-sanitizer memcheck, racecheck and synccheck.
# EXTRA= a command run after the timings from the repository root, logs under
# $W (an ncu profile, another bench).
# Prints each row's median us for every build; logs in $OUT/logs.tar.gz.
. "$(dirname "$0")/gpu-env.sh"
W=/tmp/gpu-ab; rm -rf $W; mkdir -p $W
finish() { tar -czf "$OUT/logs.tar.gz" -C "$W" . 2>/dev/null; }
trap finish EXIT
if ls .gpu/var/*.ptx >/dev/null 2>&1; then
  echo "== ptxas advisories (name, DEPBARs in the SASS, advisory)"
  for f in .gpu/var/*.ptx; do
    adv=$(ptxas -arch=sm_90a -v $f -o /tmp/k.cubin 2>&1 | grep -E 'Performance' | sed 's/.*serialized due to //; s/ in the function.*//' | sort -u | tr '\n' ';')
    echo "$(basename $f) depbar=$(cuobjdump -sass /tmp/k.cubin 2>/dev/null | grep -c WARPGROUP.DEPBAR) $adv"
  done | tee $W/ptxas.txt
fi
if [ -n "${TESTRUN:-}" ]; then
  echo "== accuracy: $TESTRUN"
  (cd kernels/attention && TLE_REQUIRE_GPU=1 timeout "${TEST_TIMEOUT:-140}" "$root/.gpu/attention.test" -test.v -test.run "$TESTRUN" >$W/test.log 2>&1; echo "rc=$?")
  grep -E "^(--- FAIL|ok|FAIL|PASS)|Error:" $W/test.log | head
fi
if [ -n "${RACE:-}" ]; then
  echo "== racecheck: $RACE"
  (cd kernels/attention && TLE_REQUIRE_GPU=1 timeout 100 compute-sanitizer --tool racecheck "$root/.gpu/attention.test" -test.run "$RACE" >$W/race.log 2>&1; echo "rc=$?")
  grep -E "RACECHECK SUMMARY|^(--- FAIL|FAIL|ok|PASS)" $W/race.log | head -4
fi
builds="new $(cd .gpu && ls -d */ 2>/dev/null | tr -d / | while read b; do [ -x $b/tlec ] && echo $b; done | tr '\n' ' ')"
for r in $(seq "${ROUNDS:-1}"); do
  sfx=; [ $r = 1 ] || sfx=.r$r
  for b in $builds; do
    t=.gpu/tlec; [ $b = new ] || t=.gpu/$b/tlec
    export TLE_CACHE_DIR=$W/cache-$b
    if [ "${DECODE:-1}" = 1 ] && [[ " ${DECODE_BUILDS:-$builds} " == *" $b "* ]]; then timeout 150 $t bench attn_decode --reps "${REPS:-30}" ${DECODE_ARGS:-} >$W/dec-$b$sfx.txt 2>/dev/null; echo "decode $b rc=$?"; fi
    if [ "${PREFILL:-1}" = 1 ]; then timeout 150 $t bench attn_prefill --reps "${REPS:-15}" --cases "${CASES:-fp8_q1_dense_nhd,fp8_q0_dense_nhd,fp8_q0_masked_nhd,fp8_q1_masked_nhd,kvcache_bf16_nhd,kvcache_bf16_masked_nhd,nocache/4096}" >$W/pf-$b$sfx.txt 2>/dev/null; echo "prefill $b rc=$?"; fi
  done
done
unset TLE_CACHE_DIR
if [ "${SDPA:-0}" = 1 ]; then
  echo "== torch SDPA (.peers/sdpa_prefill.py), GQA 32/4"
  PYTHONUNBUFFERED=1 timeout 100 python3 .peers/sdpa_prefill.py "$W/sdpa.json" 2>&1 | grep _gqa32_4_
fi
if [ -n "${SANRUN:-}" ]; then sanitize attention attention.test "$W" 45 "$SANRUN"; fi
if [ -n "${SPILLS:-}" ]; then
  echo "== registers and spills of the kernels matching $SPILLS"
  for b in $builds; do echo "-- $b"; ROLES=1 bash tools/gpu-ptxas-spills.sh $W/cache-$b "$SPILLS" | grep -v "^    [^l]"; done
fi
if [ -n "${EXTRA:-}" ]; then echo "== extra"; (eval "$EXTRA"; echo "extra rc=$?"); fi
python3 - $W "$builds" "${ROUNDS:-1}" <<'PY'
import os, sys
W = sys.argv[1]
def dec(path):
    out = {}
    for l in open(path) if os.path.exists(path) else []:
        f = l.split()
        i = next((i for i, t in enumerate(f) if t in ("nhd", "hnd")), None)
        # the median is the first decimal after the layout (B, the
        # schedule, splits and cluster come before it; builds before the
        # schedule column have one column fewer)
        med = next((t for t in f[i + 1:] if "." in t), None) if i is not None else None
        if med is not None and f[i] == "nhd":
            out[" ".join(f[:i + 1])] = float(med)
    return out
def pre(path):
    out = {}
    for l in open(path) if os.path.exists(path) else []:
        f = l.split()
        if f and f[0].startswith("prefill_"):
            try: out[f[0]] = float(f[1])
            except ValueError: pass
    return out
builds = sys.argv[2].split()
rounds = int(sys.argv[3])
for name, fn, ext in (("decode", dec, "dec"), ("prefill", pre, "pf")):
    # per build, one result per round (round 1's file has no suffix)
    res = {b: [fn(f"{W}/{ext}-{b}{'' if r == 1 else f'.r{r}'}.txt") for r in range(1, rounds + 1)] for b in builds}
    if res[builds[0]][0]:
        print(f"{name} median us: " + " / ".join(builds) + (f" ({rounds} rounds each)" if rounds > 1 else ""))
        for k in res[builds[0]][0]:
            print(f"  {k:45s}" + "".join(" " + "/".join(f"{x.get(k, float('nan')):.1f}" for x in res[b]).rjust(8) for b in builds))
PY
