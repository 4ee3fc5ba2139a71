#!/usr/bin/env bash
# kda_prep on the GPU host (.gpu carried: tlec, optionally tlec-base built
# from the commit to compare against, kda.test, nvptx.test, and the llc-19
# PTX of kda_prep in .gpu/ptx/*prep*.ptx): ptxas resources and SASS size of
# each PTX, the kda tests on the GPU (TESTS=0 skips), tlec bench kda_fwd v3
# for each binary in BINS and each preparation kernel form in VARIANTS
# (WARPS or WARPS:KBLOCK, as --variant v3:...; configurations CONFIGS), then
# Nsight Compute on one kda_prep launch per binary and form in NCU_VARIANTS
# (NCU=0 skips). Logs in $OUT.
. "$(dirname "$0")/gpu-env.sh"
echo "== ptxas (sm_90a) and SASS of kda_prep"
for f in .gpu/ptx/*prep*.ptx; do
  b=$(basename "$f" .ptx)
  r=$(ptxas -arch=sm_90a -v "$f" -o "/tmp/$b.cubin" 2>&1 | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill (stores|loads)" | tr '\n' ' ')
  n=$(cuobjdump --dump-sass "/tmp/$b.cubin" | grep -cE '^\s+/\*[0-9a-f]+\*/')
  bars=$(cuobjdump --dump-sass "/tmp/$b.cubin" | grep -cE 'BAR\.SYNC')
  echo "$b: $r SASS $n BAR $bars" | tee -a "$OUT/ptxas.txt"
  { echo "== $b"; cuobjdump --dump-sass "/tmp/$b.cubin" | grep -oE '^\s+/\*[0-9a-f]+\*/\s+[A-Z][A-Z0-9.]*' | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25; } >> "$OUT/sass-hist.txt"
done
if [ "${TESTS:-1}" = 1 ]; then
  echo "== kda tests on the GPU"
  (cd kernels/kda && TLE_KDA_LARGE=${LARGE:-1} "$root/.gpu/kda.test" -test.run 'Accuracy|GPULarge|Runner' -test.v >"$OUT/kda-test.log" 2>&1; echo "kda rc=$?")
  grep -E "^(--- FAIL|FAIL|ok|PASS)" "$OUT/kda-test.log" | head; grep -E "GPULarge|cuda.*v3/fixed/K128" -A3 "$OUT/kda-test.log" | grep -E "relative RMS" | head -6
  (cd backend/nvptx && "$root/.gpu/nvptx.test" -test.run 'GPU(Cumsum|Math|Scan|Reduce)' -test.v >"$OUT/nvptx-test.log" 2>&1; echo "nvptx rc=$?")
  grep -E "^(--- FAIL|FAIL|ok|PASS)" "$OUT/nvptx-test.log" | head
fi
echo "== bench"
for t in ${BINS:-tlec-base tlec}; do
  [ -x .gpu/$t ] || continue
  for w in ${VARIANTS:-4}; do
    echo "-- $t v3:$w" | tee -a "$OUT/bench.txt"
    .gpu/$t bench kda_fwd --variant v3:$w --configs ${CONFIGS:-1} --reps ${REPS:-20} --warmup 3 2>>"$OUT/bench.err" | tee -a "$OUT/bench.txt"
  done
done
if [ "${NCU:-1}" = 1 ]; then
  for t in ${BINS:-tlec-base tlec}; do
    [ -x .gpu/$t ] || continue
    for w in ${NCU_VARIANTS:-4}; do
      ncu --clock-control none -k regex:kda_prep --launch-count 1 --section LaunchStats --section Occupancy --section SchedulerStats --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
        --metrics sm__inst_executed.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio \
        .gpu/$t bench kda_fwd --variant v3:$w --configs 1 --reps 1 --warmup 0 >"$OUT/ncu-$t-${w/:/-}.txt" 2>&1
      echo "-- ncu $t v3:$w"; grep -E "Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|inst_executed|Issued Warp|No Eligible|Block Limit|Dynamic Shared|Warp Cycles Per Issued|DRAM Throughput|Memory Throughput|stalled" "$OUT/ncu-$t-${w/:/-}.txt" | head -40
    done
  done
fi
