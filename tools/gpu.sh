#!/usr/bin/env bash
# tools/gpu.sh: one GPU session in two commands, from the repository root.
#
#   tools/gpu.sh here        on this machine (Go): build what the GPU host
#                            needs into .gpu/, copy the named peers into
#                            .peers/, check the suites' flags on a dry GPU,
#                            save this configuration in .gpu/gpu.env
#   tools/gpu.sh host        on the GPU host (no Go), as the device call
#                            run(command="bash tools/gpu.sh host",
#                                carry=[".gpu", ".peers"]):
#                            GPU info, peers built (in the background),
#                            tests, compute-sanitizer, peer timers, the
#                            suites (A/B when there are several builds),
#                            ptxas and SASS reports, ncu, then a short
#                            table last
#   tools/gpu.sh STEP ARGS   one step (a function below) alone, e.g.
#                            tools/gpu.sh ir_same REV: the timed kernels'
#                            LLVM IR here against git revision REV's
#                            (no GPU; exit 1 when a build differs);
#                            ptx_same REV: their PTX (llc-19)
#   tools/gpu.sh --help      this text
#
# Configuration (environment; what `here` saw is saved in .gpu/gpu.env and
# is the host's default, a variable set on the host wins):
#   SUITES    ';'-separated `[LABEL=]SUITE [FLAGS]`: each a `tlec bench
#             SUITE FLAGS --json` into $OUT/LABEL.json (LABEL: the suite's
#             name, SUITE-2 for its second entry); no spaces inside a flag's
#             value. Suites: tutorials, kda_fwd, attn_decode, attn_prefill.
#   REPS, WARMUP   --reps and --warmup of every suite (default tlec's)
#   COMPARE   space-separated LABEL:OTHER: LABEL's medians over OTHER's, row
#             by row (ks64=attn_prefill --key-step 64 against attn_prefill)
#   PEERS     peers to build and time before the suites: hpc (HPC-Ops:
#             hpc_attn.json, --peer of attn_decode and attn_prefill),
#             flashkda and fla (kda_peers.py: kda_peers.json, --peer of
#             kda_fwd, which then runs the configurations the file has
#             complete; flashkda without fla: FlashKDA alone), sdpa
#             (torch SDPA: sdpa_prefill.json, --peer of attn_prefill and
#             tutorials), matmul (cuBLAS, cuBLASLt FP8: matmul_peers.json,
#             --peer of tutorials). A suite that refuses a --peer file
#             runs again without it.
#   KDA_PEER_CONFIGS  kda_peers.py over these configurations alone (1-based,
#             comma-separated: FLA's compiles of all eight do not fit a call)
#   SAME_MASK=0    attn_prefill's own block masks instead of HPC-Ops' draw
#             (default with hpc: tools/hpc_masks.py, --masks)
#   HPC_ONLY  decode|prefill: HPC-Ops' bench part (default: from SUITES);
#             HPC_ITERS its --iters (default REPS, else 100)
#   TESTS     space-separated PKG[:REGEX]: .gpu/PKG.test -test.run REGEX
#             in PKG's directory with TLE_REQUIRE_GPU=1 (PKG: decode, prefill,
#             kda, tutorials, tle, tests, nvptx, cuda, ... or a path); after a
#             sticky CUDA error each failed test runs again alone;
#             tutorials also runs the carried llc-19 PTX when PTX=1 built it
#   TEST_ENV  more environment for tests and sanitizers (TLE_KDA_LARGE=0)
#   SAN       space-separated PKG:REGEX: compute-sanitizer SAN_TOOLS
#             (default memcheck racecheck synccheck) on those tests; a
#             racecheck report's instructions are shown in their SASS
#   PKGS      more test packages to build here
#   BASE      space-separated [NAME=]REV: tlec of git revision REV built
#             into .gpu/NAME/tlec (NAME default base). The host runs every
#             suite on .gpu/tlec and each .gpu/NAME/tlec it finds, ROUNDS
#             times (default 1) alternating, each build with its own JIT
#             cache, and an A/B table compares them (the builds must share
#             the --json schema). `here` first lists the timed kernels whose
#             LLVM IR differs (tlec bench builds; DIFF=0 skips it)
#   PTX=1     llc-19 PTX of the tutorials into .gpu/ptx (tools/build-ptx.sh)
#   PTXAS     a kernel-name regex: registers, spills, stack, smem and
#             ptxas' advisories of those kernels (ROLES=1: local memory by
#             warp role); SASS a regex: their SASS histogram (SASS_OPS: a
#             regex of instructions to count, default the top opcodes).
#             Both read the suites' JIT caches, .gpu/ptx and .gpu/var (PTX
#             built here with `.gpu/tlec build ... -o .gpu/var/NAME.ptx`),
#             or PTX_PATHS
#   NCU       a kernel-name regex for Nsight Compute on NCU_BENCH (tlec
#             bench arguments; default the first suite, --reps 1 --warmup
#             0): NCU_SKIP, NCU_COUNT (default 0, 1) launches; NCU_SECTIONS
#             (default SpeedOfLight Occupancy LaunchStats WarpStateStats
#             SchedulerStats MemoryWorkloadAnalysis; empty: none) and
#             NCU_METRICS (gpu__time_duration.sum,...) into ncu.txt;
#             NCU_STALLS=0 skips the warp-stall breakdown by warp role of
#             the first launch (tools/ncu-stalls.py)
#   TUNE      ';'-separated `tlec tune` arguments (FILE --arg ...), each
#             tuned three times: fresh (the tuner's choice and its wall
#             time), again in a second process (the cached choice: what it
#             added), and exhaustively in a cache of its own (--retune
#             --reps TUNE_REPS, default 200, --budget TUNE_BUDGET seconds,
#             default 120): a table of the tuner's choice against the
#             exhaustive best and the default (hand-picked) configuration
#   EXTRA     a command run last on the host (before the table), W and
#             OUT set
#   BUDGET    seconds the host part may take (default 560: the device's
#             10-minute command, with time for the table); a step that
#             would start later is skipped, and every timeout is cut to
#             what is left. TEST_TIMEOUT, SAN_TIMEOUT, SUITE_TIMEOUT,
#             PEER_TIMEOUT (each peer timer), BUILD_TIMEOUT (each peer's
#             build) are seconds (240, 90, 240, 330, 240)
#   TLE_TOOLCHAIN and other TLE_ variables pass through to tlec and tests
#   PLAN=1    print the steps with their arguments instead of running them
#   OUT       where the results go (the device tool sets it; default
#             /tmp/out): summary.txt (notes and tables), logs.tar.gz
#             (everything of the work folder W, default /tmp/gpu-work), and
#             the suites' and peers' JSON (6 at most: the device returns 8
#             files)
#
# Examples (then the device call above):
#   PEERS=hpc TESTS='decode prefill' SUITES='attn_decode; attn_prefill' tools/gpu.sh here
#   PEERS='flashkda fla' TESTS='kda:Accuracy' TEST_ENV=TLE_KDA_LARGE=0 SUITES='kda_fwd; bf16=kda_fwd --state bf16' tools/gpu.sh here
#   PEERS=matmul SUITES='tutorials --parts tma,fp8' PTX=1 TESTS=tutorials SASS='matmul' SASS_OPS='[HQ]GMMA|UTMALDG' tools/gpu.sh here
#   BASE=main ROUNDS=3 SUITES='attn_prefill --cases fp8_q1' PTXAS=attn_prefill ROLES=1 tools/gpu.sh here
#   SAN='decode:TestDecodeQuick$ prefill:TestPrefillMaskEmptyTile' NCU=attn_decode NCU_BENCH='attn_decode --cases uniform_4096' tools/gpu.sh here
#   PLAN=1 tools/gpu.sh host    # what the host would run
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

# the variables `here` saves for the host
CONFIG=(SUITES REPS WARMUP PEERS KDA_PEER_CONFIGS SAME_MASK HPC_ONLY HPC_ITERS TESTS TEST_ENV SAN SAN_TOOLS PKGS BASE ROUNDS PTX
  PTXAS ROLES SASS SASS_OPS PTX_PATHS NCU NCU_BENCH NCU_SKIP NCU_COUNT NCU_SECTIONS NCU_METRICS NCU_STALLS COMPARE TUNE TUNE_REPS TUNE_BUDGET EXTRA BUDGET
  TEST_TIMEOUT SAN_TIMEOUT SUITE_TIMEOUT PEER_TIMEOUT BUILD_TIMEOUT TLE_TOOLCHAIN)

defaults() {
  SUITES=${SUITES:-} REPS=${REPS:-} WARMUP=${WARMUP:-} PEERS=${PEERS:-} KDA_PEER_CONFIGS=${KDA_PEER_CONFIGS:-} SAME_MASK=${SAME_MASK:-1}
  HPC_ONLY=${HPC_ONLY:-} HPC_ITERS=${HPC_ITERS:-${REPS:-100}} TESTS=${TESTS:-} TEST_ENV=${TEST_ENV:-}
  SAN=${SAN:-} SAN_TOOLS=${SAN_TOOLS:-memcheck racecheck synccheck} PKGS=${PKGS:-} BASE=${BASE:-}
  ROUNDS=${ROUNDS:-1} PTX=${PTX:-0} PTXAS=${PTXAS:-} ROLES=${ROLES:-0} SASS=${SASS:-} SASS_OPS=${SASS_OPS:-}
  PTX_PATHS=${PTX_PATHS:-} NCU=${NCU:-} NCU_BENCH=${NCU_BENCH:-} NCU_SKIP=${NCU_SKIP:-0} NCU_COUNT=${NCU_COUNT:-1}
  NCU_METRICS=${NCU_METRICS:-} NCU_STALLS=${NCU_STALLS:-1} COMPARE=${COMPARE:-}
  TUNE=${TUNE:-} TUNE_REPS=${TUNE_REPS:-200} TUNE_BUDGET=${TUNE_BUDGET:-120}
  NCU_SECTIONS=${NCU_SECTIONS-SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats MemoryWorkloadAnalysis} EXTRA=${EXTRA:-} BUDGET=${BUDGET:-560}
  TEST_TIMEOUT=${TEST_TIMEOUT:-240} SAN_TIMEOUT=${SAN_TIMEOUT:-90} SUITE_TIMEOUT=${SUITE_TIMEOUT:-240}
  PEER_TIMEOUT=${PEER_TIMEOUT:-330} BUILD_TIMEOUT=${BUILD_TIMEOUT:-240} DIFF=${DIFF:-1} PLAN=${PLAN:-0}
  OUT=${OUT:-/tmp/out} W=${W:-/tmp/gpu-work}
}

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; }

# ---- the steps' frame

T0=$SECONDS
MODE=step
say() { printf '%s\n' "$*"; }
# note TEXT: a line of the summary printed at the end
note() {
  say "$*"
  if [ -d "$W" ]; then say "$*" >>"$W/notes.txt"; fi
}
left() { echo $((BUDGET - (SECONDS - T0))); }
# tmo SECS: SECS, cut to what is left of BUDGET
tmo() {
  local l
  l=$(left)
  ((l < 1)) && l=1
  if (($1 < l)); then echo "$1"; else echo "$l"; fi
}
# step FN ARGS...: run one step (PLAN=1: print it); on the host a failed
# step is noted and the session goes on, here it stops everything
step() {
  if [ "$PLAN" = 1 ]; then
    say "plan: $*"
    return 0
  fi
  if [ "$MODE" = host ] && (($(left) < 5)); then
    note "skipped, BUDGET ${BUDGET}s spent: $*"
    return 0
  fi
  say "== $* ($((SECONDS - T0)) s)"
  local rc=0
  "$@" || rc=$?
  if [ "$rc" != 0 ]; then
    note "failed (rc=$rc): $*"
    if [ "$MODE" = here ]; then exit "$rc"; fi
  fi
  return 0
}
has() { [[ " $PEERS " == *" $1 "* ]]; }

# pkg_dir PKG: the package directory of a test package name or path
pkg_dir() {
  local d
  for d in "$1" "kernels/$1" "kernels/attention/$1" "backend/$1" "runtime/$1"; do
    if compgen -G "$d/*_test.go" >/dev/null; then
      echo "$d"
      return 0
    fi
  done
  echo "no test package $1" >&2
  return 1
}

# entries: SUITES as lines "LABEL<TAB>SUITE FLAGS..."
entries() {
  local e label words seen=" "
  local -a parts
  IFS=';' read -ra parts <<<"$SUITES"
  for e in "${parts[@]}"; do
    read -ra words <<<"$e"
    [ ${#words[@]} -gt 0 ] || continue
    label=
    if [[ ${words[0]} =~ ^([A-Za-z0-9_.-]+)=(.+)$ ]]; then
      label=${BASH_REMATCH[1]}
      words[0]=${BASH_REMATCH[2]}
    fi
    if [ -z "$label" ]; then
      label=${words[0]}
      local n=2
      while [[ $seen == *" $label "* ]]; do label=${words[0]}-$n n=$((n + 1)); done
    fi
    seen+="$label "
    printf '%s\t%s\n' "$label" "${words[*]}"
  done
}

suite_names() { entries | cut -f2 | cut -d' ' -f1; }

# peer_files SUITE: the peers' JSON (of PEERS) that SUITE reads
peer_files() {
  case $1 in
  kda_fwd) if has flashkda || has fla; then echo "$W/kda_peers.json"; fi ;;
  attn_decode) if has hpc; then echo "$W/hpc_attn.json"; fi ;;
  attn_prefill)
    if has hpc; then echo "$W/hpc_attn.json"; fi
    if has sdpa; then echo "$W/sdpa_prefill.json"; fi
    ;;
  tutorials)
    if has matmul; then echo "$W/matmul_peers.json"; fi
    if has sdpa; then echo "$W/sdpa_prefill.json"; fi
    ;;
  esac
}

# bench_args SUITE FLAGS...: the full `tlec bench` arguments of an entry
bench_args() {
  local s=$1 f
  local -a a=("$@")
  [[ " $* " == *" --reps "* || -z $REPS ]] || a+=(--reps "$REPS")
  [[ " $* " == *" --warmup "* || -z $WARMUP ]] || a+=(--warmup "$WARMUP")
  a+=(--json)
  for f in $(peer_files "$s"); do a+=(--peer "$f"); done
  if [ "$s" = attn_prefill ] && has hpc && [ "$SAME_MASK" = 1 ] && [[ " $* " != *" --masks "* ]]; then
    a+=(--masks "$W/masks")
  fi
  printf '%s\n' "${a[@]}"
}

# builds: new (.gpu/tlec) and every .gpu/NAME/tlec
builds() {
  local d
  echo new
  for d in .gpu/*/; do
    d=${d%/}
    if [ -x "$d/tlec" ]; then echo "${d#.gpu/}"; fi
  done
}

# ---- here: this machine

clean() {
  mkdir -p .gpu .peers
  find .gpu -mindepth 1 -maxdepth 1 ! -name var -exec rm -rf {} +
  find .peers -mindepth 1 -maxdepth 1 -exec rm -rf {} +
}

build_tlec() { CGO_ENABLED=0 go build -ldflags='-s -w' -o .gpu/tlec ./cmd/tlec; }

# build_tests PKG...: .gpu/NAME.test of each package (-tags gpu: the
# backend's GPU tests)
build_tests() {
  local p d
  local -a dirs=()
  for p in "$@"; do
    d=$(pkg_dir "$p") || return 1
    dirs+=("./$d")
  done
  CGO_ENABLED=0 go test -c -tags gpu -ldflags='-s -w' -o .gpu/ "${dirs[@]}"
}

build_perftable() { CGO_ENABLED=0 go build -ldflags='-s -w' -o .gpu/perftable ./cmd/perftable; }

# build_base NAME REV: tlec of git revision REV into .gpu/NAME/tlec
build_base() {
  local name=$1 rev=$2 dir=${3:-.gpu} src rc=0
  case $name in new | ptx | var | *[!A-Za-z0-9_-]*)
    echo "BASE: build name $name: want letters, digits, _ or -, not new, ptx or var"
    return 2
    ;;
  esac
  src=$(mktemp -d)
  git archive "$rev" | tar -x -C "$src" || rc=$?
  if [ "$rc" = 0 ]; then
    (cd "$src" && CGO_ENABLED=0 go build -ldflags='-s -w' -o "$ROOT/$dir/$name/tlec" ./cmd/tlec) || rc=$?
  fi
  rm -rf "$src"
  [ "$rc" = 0 ] || return "$rc"
  git log -1 --format='%h %s' "$rev" | cut -c1-100 >"$dir/$name/rev"
  say "$name: $(cat "$dir/$name/rev")"
}

build_ptx() { TLEC=.gpu/tlec bash tools/build-ptx.sh .gpu/ptx; }

# builds_diff NAME SUITE...: the kernel builds whose LLVM IR differs between
# .gpu/tlec and .gpu/NAME/tlec (tlec bench builds); never fails the session
builds_diff() {
  local name=$1
  shift
  if ! timeout 300 .gpu/tlec bench builds "$@" >".gpu/builds-new.txt" 2>".gpu/builds.err" ||
    ! timeout 300 ".gpu/$name/tlec" bench builds "$@" >".gpu/builds-$name.txt" 2>>".gpu/builds.err"; then
    say "no build list (tlec bench builds of both builds): $(tail -1 .gpu/builds.err)"
    return 0
  fi
  local n
  n=$(diff ".gpu/builds-$name.txt" .gpu/builds-new.txt | grep -c '^>' || true)
  say "$n of $(wc -l <.gpu/builds-new.txt) timed kernel builds differ from $name's:"
  diff ".gpu/builds-$name.txt" .gpu/builds-new.txt | grep '^>' | cut -c3- | head -20 || true
  [ "$n" != 0 ] || say "nothing the suites time changed: an A/B would measure noise"
}

# ir_same REV [SUITE...]: whether every kernel build the suites time (tlec
# bench builds: each build of their dry runs at their default settings)
# gives the same LLVM IR in this tree as at git revision REV. Exit 0 when
# all do; else the builds that differ and exit 1. A change meant to leave
# the timed kernels alone runs it against the commit it started from;
# runs on this machine, no GPU, in .irsame/ (a prepared .gpu/ stays as it is).
ir_same() { same_builds "LLVM IR" "$@"; }

# ptx_same REV [SUITE...]: the same for the builds' PTX (llc-19): where the
# LLVM IR differs and the PTX does not, the kernels run the same machine
# code (ptxas is deterministic), so no figure needs measuring again. REV
# must have `tlec bench builds --ptx` (from the commit that added ptx_same).
ptx_same() { same_builds PTX "$@"; }

same_builds() {
  local what=$1 rev=${2:?ir_same REV [SUITE...]} d=.irsame
  local -a ptx=()
  shift 2
  [ "$what" = PTX ] && ptx=(--ptx)
  mkdir -p $d
  CGO_ENABLED=0 go build -ldflags='-s -w' -o $d/tlec ./cmd/tlec && build_base base "$rev" $d || return 2
  $d/tlec bench builds "${ptx[@]}" "$@" >$d/builds-new.txt || return 2
  $d/base/tlec bench builds "${ptx[@]}" "$@" >$d/builds-base.txt || return 2
  if diff $d/builds-base.txt $d/builds-new.txt; then
    say "all $(wc -l <$d/builds-new.txt) timed kernel builds: $what identical to $rev's"
    return 0
  fi
  say "the builds above differ (<: $rev, >: this tree)"
  return 1
}

# check_suite SUITE FLAGS...: the suite's flags on a dry GPU (no peers)
check_suite() {
  local rc=0
  timeout 120 .gpu/tlec bench "$@" --dry-run --json >/dev/null 2>.gpu/check.err || rc=$?
  case $rc in
  0) ;;
  2) # a usage error: the device call would waste its time (unless this
    # tlec has no dry run of the suite)
    if grep -q -- '--dry-run' .gpu/check.err; then
      say "not checked: $(head -1 .gpu/check.err)"
      return 0
    fi
    cat .gpu/check.err
    return 2
    ;;
  *) say "dry run rc=$rc (not fatal): $(tail -2 .gpu/check.err)" ;;
  esac
}

# copy_peers PEER...: the files each peer needs, from ../shared/peers
copy_peers() {
  local p
  local -a f=()
  for p in "$@"; do
    case $p in
    hpc) f+=(hpc-ops-kit.tar.xz) ;;
    flashkda) f+=(flashkda.tar.xz kda_peers.py) ;;
    fla) f+=(fla.tar.xz kda_peers.py) ;;
    sdpa) f+=(sdpa_prefill.py) ;;
    matmul) f+=(matmul_peers.py) ;;
    *)
      echo "PEERS: no peer $p (hpc, flashkda, fla, sdpa, matmul)"
      return 2
      ;;
    esac
  done
  for p in "${f[@]}"; do cp "$ROOT/../shared/peers/$p" .peers/ || return; done
  ls .peers
}

# save_env: the configuration set for `here`, the host's defaults
save_env() {
  local v
  : >.gpu/gpu.env
  for v in "${GIVEN[@]}"; do
    # shellcheck disable=SC2016 # the line expands on the host
    if [ -n "${!v:-}" ]; then printf '[ -n "${%s+x}" ] || %s=%q\n' "$v" "$v" "${!v}" >>.gpu/gpu.env; fi
  done
  cat .gpu/gpu.env
}

# pack: gzip the built binaries (Go binaries halve), so that tlec and four
# test packages fit the device's 64 MiB; the host's unpack restores them
pack() {
  find .gpu -type f \( -name tlec -o -name '*.test' -o -name perftable \) -exec gzip -f -9 {} +
}

unpack() {
  local -a gz
  mapfile -t gz < <(find .gpu -type f -name '*.gz')
  if [ ${#gz[@]} -gt 0 ]; then gzip -d -f "${gz[@]}"; fi
}

carry_size() {
  local kb
  kb=$(du -sk .gpu .peers | awk '{s += $1} END {print s}')
  say "carry .gpu and .peers: $((kb / 1024)) MiB (the device takes 64 MiB with the tree)"
  if ((kb > 60 * 1024)); then
    say "too large: build fewer test packages or bases"
    return 1
  fi
  say "next: run(command=\"bash tools/gpu.sh host\", carry=[\".gpu\", \".peers\"])"
}

here() {
  MODE=here
  local p b label words
  local -a pkgs=() args peers
  for p in $TESTS $SAN $PKGS; do
    p=${p%%:*}
    [[ " ${pkgs[*]} " == *" $p "* ]] || pkgs+=("$p")
  done
  step clean
  step build_tlec
  if [ ${#pkgs[@]} -gt 0 ]; then step build_tests "${pkgs[@]}"; fi
  if [ -d cmd/perftable ]; then step build_perftable; fi
  for b in $BASE; do
    if [[ $b == *=* ]]; then step build_base "${b%%=*}" "${b#*=}"; else step build_base base "$b"; fi
  done
  if [ "$PTX" = 1 ]; then step build_ptx; fi
  read -ra peers <<<"$PEERS"
  if [ ${#peers[@]} -gt 0 ]; then step copy_peers "${peers[@]}"; fi
  while IFS=$'\t' read -r label words; do
    read -ra args <<<"$words"
    step check_suite "${args[@]}"
  done < <(entries)
  if [ "$DIFF" = 1 ] && [ -n "$SUITES" ]; then
    for b in $BASE; do
      [[ $b == *=* ]] && b=${b%%=*} || b=base
      # shellcheck disable=SC2046 # suite names are words
      step builds_diff "$b" $(suite_names | sort -u)
    done
  fi
  step save_env
  step pack
  step carry_size
}

# ---- host: the GPU machine

gpu_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | tee "$W/gpu.txt"
  note "gpu: $(head -1 "$W/gpu.txt"); $(ptxas --version 2>/dev/null | tail -1)"
  if [ -f .gpu/base/rev ]; then note "base: $(cat .gpu/base/rev)"; fi
}

# peers_build PEER...: HPC-Ops and FlashKDA built in the background
# (PIDs in BG), FLA unpacked
BG=()
peers_build() {
  local p
  for p in "$@"; do
    case $p in
    hpc)
      rm -rf /tmp/hpc && tar -xJf .peers/hpc-ops-kit.tar.xz -C /tmp || return
      (
        rc=0
        timeout "$(tmo "$BUILD_TIMEOUT")" bash /tmp/hpc/build.sh >"$W/hpc-build.log" 2>&1 || rc=$?
        echo "$rc" >"$W/hpc-build.rc"
      ) &
      BG+=($!)
      ;;
    flashkda)
      rm -rf /tmp/fkda && tar -xJf .peers/flashkda.tar.xz -C /tmp || return
      (
        rc=0
        cd /tmp/fkda && FLASH_KDA_CUDA_ARCHS=90a NVCC_THREADS=8 timeout "$(tmo "$BUILD_TIMEOUT")" \
          python3 setup.py build_ext --inplace >"$W/flashkda-build.log" 2>&1 || rc=$?
        echo "$rc" >"$W/flashkda-build.rc"
      ) &
      BG+=($!)
      ;;
    fla) rm -rf /tmp/fla-root && mkdir -p /tmp/fla-root && tar -xJf .peers/fla.tar.xz -C /tmp/fla-root ;;
    esac
  done
}

peers_wait() {
  local p
  for p in "${BG[@]}"; do wait "$p" || true; done
  BG=()
  for p in hpc flashkda; do
    if [ -f "$W/$p-build.rc" ]; then
      note "$p build rc=$(cat "$W/$p-build.rc") at $((SECONDS - T0)) s"
      tail -2 "$W/$p-build.log"
    fi
  done
}

# gotest PKG REGEX N: .gpu/NAME.test -test.run REGEX in PKG's directory
gotest() {
  local pkg=$1 re=$2 n=$3 dir name log rc=0
  local -a env
  dir=$(pkg_dir "$pkg") || return 2
  name=${dir##*/} log=$W/test-${dir##*/}$n.log
  read -ra env <<<"$TEST_ENV"
  # the tutorials run the carried llc-19 PTX too (PTX=1 here)
  if [ "$name" = tutorials ] && [ -d .gpu/ptx ]; then env=("TLE_TEST_PTX_DIR=$ROOT/.gpu/ptx" "${env[@]}"); fi
  (cd "$dir" && env TLE_REQUIRE_GPU=1 "${env[@]}" timeout "$(tmo "$TEST_TIMEOUT")" \
    "$ROOT/.gpu/$name.test" -test.v ${re:+-test.run "$re"}) >"$log" 2>&1 || rc=$?
  grep -E '^(--- FAIL|FAIL|ok|PASS)|Error:|panic:' "$log" | head -20 || true
  [ "$rc" != 124 ] || rc="124 (timed out)"
  note "test $pkg${re:+ -run $re}: rc=$rc, $(grep -c '^--- PASS' "$log" || true) passed, $(grep -c '^--- FAIL' "$log" || true) failed, $(grep -c '^--- SKIP' "$log" || true) skipped"
  if [ "$rc" != 0 ] && grep -qE "$STICKY" "$log"; then alone "$dir" "$name" "$n" "$log"; fi
  [ "$rc" = 0 ]
}

# a CUDA error that poisons the process's context: every later test of
# the process fails on it too, whatever it does (runs 67 and 68)
STICKY='CUDA_ERROR_(ILLEGAL_INSTRUCTION|ILLEGAL_ADDRESS|MISALIGNED_ADDRESS|LAUNCH_FAILED|HARDWARE_STACK_ERROR|ASSERT)'

# alone DIR NAME N LOG: after a sticky error, each failed top-level test of
# LOG again in a process of its own, so that one test's fault is not read
# as the others' results
alone() {
  local dir=$1 name=$2 n=$3 log=$4 tst out
  local -a env
  read -ra env <<<"$TEST_ENV"
  while read -r tst; do
    out=$W/test-$name$n-$tst.log
    if (cd "$dir" && env TLE_REQUIRE_GPU=1 "${env[@]}" timeout "$(tmo 60)" \
      "$ROOT/.gpu/$name.test" -test.v -test.run "^$tst\$") >"$out" 2>&1; then
      note "  $tst alone: PASS"
    else
      note "  $tst alone: FAIL $(grep -m1 -oE "$STICKY|Error:.*" "$out" || true)"
    fi
  done < <(grep -oE '^--- FAIL: [A-Za-z0-9_]+' "$log" | awk '{print $3}')
}

# sanitize PKG REGEX N: compute-sanitizer SAN_TOOLS on those tests, each
# with a fresh JIT cache; racecheck's reported instructions in their SASS
sanitize() {
  local pkg=$1 re=$2 n=$3 dir name tool log cache rc fails=0
  local -a env extra
  dir=$(pkg_dir "$pkg") || return 2
  name=${dir##*/}
  read -ra env <<<"$TEST_ENV"
  for tool in $SAN_TOOLS; do
    log=$W/san-$name$n-$tool.log cache=$W/san-cache-$name$n-$tool rc=0 extra=()
    if [ "$tool" = racecheck ]; then extra=(--racecheck-report all); fi
    (cd "$dir" && env TLE_REQUIRE_GPU=1 TLE_CACHE_DIR="$cache" "${env[@]}" timeout "$(tmo "$SAN_TIMEOUT")" \
      compute-sanitizer --tool "$tool" "${extra[@]}" "$ROOT/.gpu/$name.test" -test.run "$re") >"$log" 2>&1 || rc=$?
    note "$tool $pkg -run $re: rc=$rc $(grep -hoE '(ERROR|RACECHECK|SYNCCHECK) SUMMARY.*' "$log" | head -1 || true)"
    [ "$rc" = 0 ] || fails=$((fails + 1))
    if [ "$tool" = racecheck ] && grep -qE '\w\+0x[0-9a-f]+' "$log"; then
      python3 tools/gpu.py race-sass "$log" "$cache" >"$W/race-sass-$name$n.txt" 2>&1 || true
      head -c 600 "$W/race-sass-$name$n.txt"
      echo
    fi
  done
  [ "$fails" = 0 ]
}

# hpc_bench: HPC-Ops' bench (hpc_attn.json) and, for attn_prefill, its
# block masks (tools/hpc_masks.py)
hpc_bench() {
  local rc=0 only=$HPC_ONLY names
  if [ "$(cat "$W/hpc-build.rc" 2>/dev/null)" != 0 ]; then
    echo "HPC-Ops did not build (hpc-build.log)"
    return 1
  fi
  names=" $(suite_names | tr '\n' ' ')"
  if [ -z "$only" ]; then
    if [[ $names == *" attn_decode "* && $names != *" attn_prefill "* ]]; then only=decode; fi
    if [[ $names == *" attn_prefill "* && $names != *" attn_decode "* ]]; then only=prefill; fi
  fi
  OUT=$W PYTHONUNBUFFERED=1 timeout "$(tmo "$PEER_TIMEOUT")" python3 /tmp/hpc/bench.py ${only:+--only "$only"} \
    --iters "$HPC_ITERS" >"$W/hpc-bench.log" 2>&1 || rc=$?
  grep -E 'FAIL|^wrote' "$W/hpc-bench.log" | head -5 || true
  if [ "$SAME_MASK" = 1 ] && [[ $names == *" attn_prefill "* ]]; then
    if timeout "$(tmo 60)" python3 tools/hpc_masks.py /tmp/hpc "$W/masks" >"$W/hpc-masks.log" 2>&1; then
      tail -3 "$W/hpc-masks.log"
    else
      note "HPC-Ops' masks not saved (hpc-masks.log: $(tail -1 "$W/hpc-masks.log")): attn_prefill draws its own"
    fi
  fi
  return "$rc"
}

# kda_peers: FLA and FlashKDA (kda_peers.py) into kda_peers.json
kda_peers() {
  local script=.peers/kda_peers.py rc=0
  if ! has fla; then
    script=/tmp/kda_peers_nofla.py
    python3 tools/gpu.py nofla .peers/kda_peers.py "$script" || return
  fi
  if [ -n "$KDA_PEER_CONFIGS" ]; then
    python3 tools/gpu.py only-configs "$script" /tmp/kda_peers_some.py "$KDA_PEER_CONFIGS" || return
    script=/tmp/kda_peers_some.py
  fi
  PYTHONPATH=/tmp/fkda:/tmp/fla-root FLA_FLASH_KDA=0 PYTHONUNBUFFERED=1 timeout "$(tmo "$PEER_TIMEOUT")" \
    python3 "$script" "$W/kda_peers.json" >"$W/kda_peers.log" 2>&1 || rc=$?
  grep -E '^H(96|64)_|wrote|importable|Error' "$W/kda_peers.log" | tail -10 || true
  return "$rc"
}

# peer_py NAME: a peer timer of ../shared/peers, .peers/NAME.py, into NAME.json
peer_py() {
  local rc=0
  PYTHONUNBUFFERED=1 timeout "$(tmo "$PEER_TIMEOUT")" python3 ".peers/$1.py" "$W/$1.json" >"$W/$1.log" 2>&1 || rc=$?
  tail -4 "$W/$1.log"
  return "$rc"
}

# drop_arg FLAG VALUE ARGS...: ARGS without "FLAG VALUE" (VALUE empty: every FLAG)
drop_arg() {
  local flag=$1 value=$2
  shift 2
  while [ $# -gt 0 ]; do
    if [ "$1" = "$flag" ] && [ $# -gt 1 ] && { [ -z "$value" ] || [ "$2" = "$value" ]; }; then
      shift 2
      continue
    fi
    printf '%s\n' "$1"
    shift
  done
}

MISSING=" "
# bench BUILD LABEL ROUND ARGS...: `tlec bench ARGS` of one build into
# runs/LABEL.BUILD.rROUND.json, with that build's JIT cache; a --peer or
# --masks path that is missing is dropped, a --peer the suite refuses too
bench() {
  local build=$1 label=$2 round=$3 bin=.gpu/tlec out err rc f configs
  shift 3
  local -a a=("$@")
  [ "$build" = new ] || bin=.gpu/$build/tlec
  out=$W/runs/$label.$build.r$round.json err=$W/runs/$label.$build.r$round.err
  for f in --peer --masks; do
    local i
    for ((i = 0; i + 1 < ${#a[@]}; i++)); do
      if [ "${a[i]}" = "$f" ] && [ ! -e "${a[i + 1]}" ]; then
        if [[ $MISSING != *" ${a[i + 1]} "* ]]; then
          note "no ${a[i + 1]}: the suites run without it"
          MISSING+="${a[i + 1]} "
        fi
        mapfile -t a < <(drop_arg "$f" "${a[i + 1]}" "${a[@]}")
        i=-1
      fi
    done
  done
  if [ "${a[0]}" = kda_fwd ] && [[ " ${a[*]} " == *" --peer "* && " ${a[*]} " != *" --configs "* ]]; then
    configs=$(python3 tools/gpu.py kda-configs "$W/kda_peers.json")
    if [ -n "$configs" ]; then
      a+=(--configs "$configs")
    else
      note "$label: no configuration complete in kda_peers.json, run without it"
      mapfile -t a < <(drop_arg --peer "" "${a[@]}")
    fi
  fi
  while :; do
    rc=0
    TLE_CACHE_DIR=$W/cache-$build timeout "$(tmo "$SUITE_TIMEOUT")" "$bin" bench "${a[@]}" >"$out" 2>"$err" || rc=$?
    if [ "$rc" = 0 ] || [[ " ${a[*]} " != *" --peer "* ]] || ! grep -q -- '--peer' "$err"; then break; fi
    # the suite refused a peer file: the one it names, else all
    f=$(grep -oE -- "--peer [^ :]+" "$err" | head -1 | cut -d' ' -f2 || true)
    note "$label: $(grep -m1 -- '--peer' "$err" | cut -c1-160); again without ${f:-any --peer}"
    mapfile -t a < <(drop_arg --peer "$f" "${a[@]}")
  done
  tr '\r' '\n' <"$err" | grep -v '^\s*$' | tail -2 | cut -c1-200 || true
  if [ "$build" = new ] && [ "$round" = 1 ]; then cp "$out" "$W/$label.json"; fi
  note "$label ($build, round $round): rc=$rc, $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rows"]), "rows")' "$out" 2>/dev/null || echo 'no report')"
  return "$rc"
}

# the PTX paths of the reports: PTX_PATHS, else the suites' caches,
# .gpu/ptx and .gpu/var
ptx_paths() {
  if [ -n "$PTX_PATHS" ]; then
    # shellcheck disable=SC2086 # a list of paths
    printf '%s\n' $PTX_PATHS
    return
  fi
  local d
  for d in "$W"/cache-* .gpu/ptx .gpu/var; do
    if [ -d "$d" ]; then echo "$d"; fi
  done
}

# ptxas_report REGEX: registers, spills and advisories (ROLES=1: local
# memory by warp role) of the kernels named by REGEX
ptxas_report() {
  local -a r=() paths
  [ "$ROLES" != 1 ] || r=(--roles)
  mapfile -t paths < <(ptx_paths)
  python3 tools/gpu.py ptxas "${r[@]}" "$1" "${paths[@]}" >"$W/ptxas.txt" 2>&1
  head -60 "$W/ptxas.txt"
}

# sass_report REGEX: the SASS histogram of those kernels (SASS_OPS: the
# instructions to count); their SASS in sass/
sass_report() {
  local -a o=() paths
  [ -z "$SASS_OPS" ] || o=(--ops "$SASS_OPS")
  mapfile -t paths < <(ptx_paths)
  python3 tools/gpu.py sass "${o[@]}" --sass-dir "$W/sass" "$1" "${paths[@]}" >"$W/sass.txt" 2>&1
  head -60 "$W/sass.txt"
}

# ncu_profile REGEX ARGS...: Nsight Compute on `tlec bench ARGS`, the
# kernels named by REGEX: sections, then the warp-stall breakdown by role
ncu_profile() {
  local re=$1 rc=0 s
  shift
  local -a m=()
  for s in $NCU_SECTIONS; do m+=(--section "$s"); done
  [ -z "$NCU_METRICS" ] || m+=(--metrics "$NCU_METRICS")
  TLE_CACHE_DIR=$W/cache-new timeout "$(tmo 240)" ncu --clock-control none -k "regex:$re" --launch-skip "$NCU_SKIP" \
    --launch-count "$NCU_COUNT" "${m[@]}" .gpu/tlec bench "$@" >"$W/ncu.txt" 2>&1 || rc=$?
  grep -E "^  [a-z_0-9]+.*\(|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Issued Warp|No Eligible|DRAM Throughput|Memory Throughput|stalled" \
    "$W/ncu.txt" | head -40 || true
  if [ "$NCU_STALLS" = 1 ]; then
    TLE_CACHE_DIR=$W/cache-new timeout "$(tmo 240)" ncu --clock-control none -k "regex:$re" --launch-skip "$NCU_SKIP" \
      --launch-count 1 --section SourceCounters --page source --print-source sass --csv .gpu/tlec bench "$@" >"$W/ncu-source.csv" 2>&1 || rc=$?
    python3 tools/ncu-stalls.py "$W/ncu-source.csv" >"$W/ncu-stalls.txt" 2>&1 || rc=$?
    head -30 "$W/ncu-stalls.txt"
  fi
  return "$rc"
}

extra() { W=$W OUT=$OUT bash -c "$EXTRA"; }

# tune N ARGS...: tlec tune ARGS fresh, cached (a second process) and
# exhaustive, into $W/tune-N{,-cached,-exh}.json
tune() {
  local n=$1 t rc=0
  shift
  t=$(date +%s.%N)
  TLE_CACHE_DIR=$W/tune-cache timeout "$(tmo 300)" .gpu/tlec tune "$@" --json >"$W/tune-$n.json" 2>"$W/tune-$n.err" || rc=$?
  note "tune $n (fresh): rc=$rc, $(python3 -c "import time; print(f'{time.time() - $t:.1f} s wall')")"
  [ "$rc" = 0 ] || { tail -3 "$W/tune-$n.err"; return "$rc"; }
  TLE_CACHE_DIR=$W/tune-cache timeout "$(tmo 120)" .gpu/tlec tune "$@" --json >"$W/tune-$n-cached.json" 2>"$W/tune-$n-cached.err" || rc=$?
  note "tune $n (second process): rc=$rc"
  TLE_CACHE_DIR=$W/tune-exh timeout "$(tmo $((TUNE_BUDGET + 240)))" .gpu/tlec tune "$@" --json --retune --reps "$TUNE_REPS" --budget "${TUNE_BUDGET}s" >"$W/tune-$n-exh.json" 2>"$W/tune-$n-exh.err" || rc=$?
  note "tune $n (exhaustive, $TUNE_REPS rounds at most): rc=$rc"
  return "$rc"
}

# tables: each suite's report (.gpu/perftable, else tools/gpu.py table),
# the A/B table when there are several builds or rounds, and COMPARE
tables() {
  local label
  local -a reps=() labels=()
  while IFS=$'\t' read -r label _; do
    labels+=("$label")
    if [ -f "$W/$label.json" ]; then reps+=("$W/$label.json"); fi
  done < <(entries)
  if [ ${#reps[@]} -gt 0 ]; then
    if ! { [ -x .gpu/perftable ] && .gpu/perftable "${reps[@]}" 2>"$W/perftable.err"; }; then
      python3 tools/gpu.py table "${reps[@]}"
    fi
  fi
  if [ ${#labels[@]} -gt 0 ] && { [ "$ROUNDS" != 1 ] || [ "$(builds | wc -l)" -gt 1 ]; }; then
    python3 tools/gpu.py ab "$W/runs" "${labels[@]}"
  fi
  for label in $COMPARE; do python3 tools/gpu.py vs "$W/${label%%:*}.json" "$W/${label#*:}.json"; done
  if [ -n "$TUNE" ]; then python3 tools/gpu.py tune "$W"/tune-[0-9]*.json; fi
}

# finish: the results into $OUT (8 files at most), the summary and the
# table printed last
finish() {
  [ "$PLAN" != 1 ] || return 0
  local f n=0
  mkdir -p "$OUT"
  tables >"$W/tables.txt" 2>&1 || true
  {
    echo "== notes"
    cat "$W/notes.txt" 2>/dev/null
    echo "== tables"
    cat "$W/tables.txt"
  } >"$OUT/summary.txt"
  for f in $(entries | cut -f1) hpc_attn kda_peers sdpa_prefill matmul_peers; do
    if [ -f "$W/$f.json" ] && ((n < 6)); then
      cp "$W/$f.json" "$OUT/"
      n=$((n + 1))
    fi
  done
  tar -czf "$OUT/logs.tar.gz" -C "$W" . 2>/dev/null || true
  if [ "$(stat -c %s "$OUT/logs.tar.gz" 2>/dev/null || echo 0)" -gt $((15 << 20)) ]; then
    tar -czf "$OUT/logs.tar.gz" --exclude='./cache-*' --exclude='./san-cache-*' --exclude='./sass' -C "$W" . 2>/dev/null || true
  fi
  say "== summary ($((SECONDS - T0)) s; in $OUT: $(cd "$OUT" && echo *))"
  cat "$OUT/summary.txt"
}

host() {
  MODE=host
  local e label words p n
  local -a a
  if [ "$PLAN" != 1 ]; then
    rm -rf "$W" && mkdir -p "$W/runs" "$OUT"
    trap finish EXIT
  fi
  step unpack
  step gpu_info
  local -a build=()
  for p in $PEERS; do [[ $p != hpc && $p != flashkda && $p != fla ]] || build+=("$p"); done
  if [ ${#build[@]} -gt 0 ]; then step peers_build "${build[@]}"; fi
  n=0
  for e in $TESTS; do
    n=$((n + 1))
    if [[ $e == *:* ]]; then step gotest "${e%%:*}" "${e#*:}" "$n"; else step gotest "$e" "" "$n"; fi
  done
  n=0
  for e in $SAN; do
    n=$((n + 1))
    step sanitize "${e%%:*}" "${e#*:}" "$n"
  done
  if [ ${#build[@]} -gt 0 ]; then step peers_wait; fi
  if has hpc; then step hpc_bench; fi
  if has flashkda || has fla; then step kda_peers; fi
  if has sdpa; then step peer_py sdpa_prefill; fi
  if has matmul; then step peer_py matmul_peers; fi
  local -a bs
  if [ "$PLAN" = 1 ] && [ -n "$BASE" ]; then
    bs=(new)
    for p in $BASE; do [[ $p == *=* ]] && bs+=("${p%%=*}") || bs+=(base); done
  else
    mapfile -t bs < <(builds)
  fi
  for ((n = 1; n <= ROUNDS; n++)); do
    while IFS=$'\t' read -r label words; do
      read -ra a <<<"$words"
      mapfile -t a < <(bench_args "${a[@]}")
      for p in "${bs[@]}"; do step bench "$p" "$label" "$n" "${a[@]}"; done
    done < <(entries)
  done
  if [ -n "$PTXAS" ]; then step ptxas_report "$PTXAS"; fi
  if [ -n "$SASS" ]; then step sass_report "$SASS"; fi
  if [ -n "$NCU" ]; then
    words=$NCU_BENCH
    [ -n "$words" ] || words="$(entries | cut -f2 | sed -n 1p) --reps 1 --warmup 0"
    read -ra a <<<"$words"
    step ncu_profile "$NCU" "${a[@]}"
  fi
  if [ -n "$TUNE" ]; then
    n=0
    while IFS= read -r words; do
      [ -n "${words// /}" ] || continue
      n=$((n + 1))
      read -ra a <<<"$words"
      step tune "$n" "${a[@]}"
    done < <(tr ';' '\n' <<<"$TUNE")
  fi
  if [ -n "$EXTRA" ]; then step extra; fi
}

# ---- main

case ${1:-} in
-h | --help | help | "")
  usage
  [ -n "${1:-}" ]
  exit
  ;;
esac
if [ "$1" = host ] && [ -f .gpu/gpu.env ]; then
  # shellcheck source=/dev/null
  . .gpu/gpu.env
fi
GIVEN=()
for v in "${CONFIG[@]}"; do
  if [ -n "${!v:-}" ]; then GIVEN+=("$v"); fi
done
defaults
cmd=$1
shift
case $cmd in
here | host) "$cmd" ;;
*)
  if [ "$(type -t "$cmd")" != function ]; then
    echo "tools/gpu.sh: no step $cmd (tools/gpu.sh --help)" >&2
    exit 2
  fi
  mkdir -p "$W/runs"
  "$cmd" "$@"
  ;;
esac
