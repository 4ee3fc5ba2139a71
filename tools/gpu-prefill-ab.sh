#!/usr/bin/env bash
# Prefill A/B against torch's cuDNN in one call, on the GPU host (repository
# root, .gpu and .peers carried):
#   .gpu/tlec        this build         .gpu/NAME/tlec  the others (worktrees)
#   .peers/sdpa_prefill.py              (torch SDPA: cuDNN and FA2)
# Each build's `tlec bench attn_prefill --reps REPS --cases CASES` runs ROUNDS
# times, the builds alternating (new, others, new, others, ...), then torch
# SDPA once; prints "build row median_us min_us" and SDPA's GQA 32/4 lines.
# TESTRUN= a -test.run pattern of each build's attention.test (.gpu/NAME/
# attention.test when present) run after the timings; SANRUN= one for
# compute-sanitizer memcheck, racecheck and synccheck of .gpu/attention.test.
# Defaults: CASES=kvcache_bf16_nhd/512x32768,nocache ROUNDS=2 REPS=25.
# Used by docs/perf.md runs 58-60.
. "$(dirname "$0")/gpu-env.sh"
t0=$(date +%s)
others=$(cd .gpu && ls -d */ 2>/dev/null | tr -d / | while read b; do [ -x $b/tlec ] && echo $b; done | tr '\n' ' ')
for r in $(seq "${ROUNDS:-2}"); do
  for b in new $others; do
    t=.gpu/tlec; [ $b = new ] || t=.gpu/$b/tlec
    TLE_CACHE_DIR=/tmp/pf-ab-$b timeout 80 $t bench attn_prefill --reps "${REPS:-25}" --cases "${CASES:-kvcache_bf16_nhd/512x32768,nocache}" 2>/dev/null |
      grep -E "^prefill_" | awk -v b=$b '{print b, $1, $2, $3}'
  done
done
PYTHONUNBUFFERED=1 timeout 100 python3 .peers/sdpa_prefill.py "$OUT/sdpa.json" 2>&1 | grep _gqa32_4_
echo "benches done in $(( $(date +%s) - t0 )) s"
if [ -n "${TESTRUN:-}" ]; then
  for b in new $others; do
    bin=.gpu/attention.test; [ $b = new ] || bin=.gpu/$b/attention.test
    [ -x $bin ] || continue
    (cd kernels/attention && TLE_REQUIRE_GPU=1 timeout 150 "$root/$bin" -test.run "$TESTRUN" 2>&1 | grep -E "^(--- FAIL|ok|FAIL|PASS)|Error:" | head | sed "s/^/$b /")
  done
fi
[ -n "${SANRUN:-}" ] && sanitize attention attention.test "$OUT" 45 "$SANRUN"
echo "done in $(( $(date +%s) - t0 )) s"
