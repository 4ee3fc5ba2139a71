#!/usr/bin/env bash
# KDA v3 profile on the GPU host (.gpu carried): the preparation kernel's
# warps against the total and per-kernel medians (configs 1 and 4), then
# Nsight Compute on one launch of each kernel at H=96 T=8192. Logs in $OUT.
. "$(dirname "$0")/gpu-env.sh"
for w in ${WARPS:-1 2 4 8}; do
  .gpu/tlec bench kda_fwd --variant v3:$w --block-v ${BV:-64} --configs ${CONFIGS:-1,4} --reps ${REPS:-20} --warmup 3 2>>"$OUT/bench.err" | tee -a "$OUT/bench.txt"
done
tail -1 "$OUT/bench.err"
if [ "${NCU:-1}" = 1 ]; then
  ncu -k regex:kda_ --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    .gpu/tlec bench kda_fwd --variant v3 --block-v ${BV:-64} --configs 1 --reps 1 --warmup 0 >"$OUT/ncu.txt" 2>&1
  grep -E "kda_|Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps" "$OUT/ncu.txt" | head -80
fi
