#!/usr/bin/env bash
# KDA forward against its peers in one session, on the GPU host from the
# repository root with .gpu and .peers carried:
#   built here: CGO_ENABLED=0 go build -ldflags="-s -w" -o .gpu/tlec ./cmd/tlec
#               (optionally CGO_ENABLED=0 go test -c -o .gpu/ ./kernels/kda for TEST=1)
#   .peers:     echo /.peers/ >> .git/info/exclude; mkdir -p .peers; cp ../shared/peers/{flashkda.tar.xz,fla.tar.xz,kda_peers.py} .peers/
# Steps: build FlashKDA (about 76 s), run kda_peers.py (FLA and FlashKDA, f32
# and bf16 state, eight configurations) into $OUT/kda_peers.json, then
# tlec bench kda_fwd --peer on that file with PDL off and on (and, with
# STATE=bf16 too, the bf16-state kernels). The bench runs only the
# configurations the file has complete (a peer run cut by PEER_TIMEOUT
# keeps the ones it finished). About 6 minutes; logs under $OUT.
# TEST=1 first runs the v3 accuracy tests on the GPU (.gpu/kda.test),
# SANITIZE=1 compute-sanitizer memcheck, racecheck and synccheck on one of
# them, TUT=1 the tutorial tests, ATTN=1 the attention tests (.gpu/*.test).
# OLD=DIR also benches DIR/tlec (another build, for an A/B in the same
# call); PDLBENCH=0 skips the --pdl bench.
. "$(dirname "$0")/gpu-env.sh"
REPS=${REPS:-30}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/gpu.txt"
if [ "${TEST:-0}" = 1 ]; then
  echo "== kda v3 accuracy on the GPU"
  (cd kernels/kda && TLE_KDA_LARGE=${KDALARGE:-0} TLE_KDA_VARIANT=v3 TLE_REQUIRE_GPU=1 "$root/.gpu/kda.test" -test.run 'Accuracy//v3|Runner|PDL|GPULarge' -test.v >"$OUT/kda-test.log" 2>&1; echo "rc=$?")
  grep -E "^(--- FAIL|ok|FAIL|PASS)" "$OUT/kda-test.log" | head -20
fi

if [ "${SANITIZE:-0}" = 1 ]; then
  sanitize kda kda.test "$OUT" 120 'Accuracy//v3/varlen/h0/f32$'
fi
if [ "${TUT:-0}" = 1 ]; then
  echo "== tutorials"
  (cd kernels/tutorials && TLE_REQUIRE_GPU=1 "$root/.gpu/tutorials.test" -test.v >"$OUT/tutorials.log" 2>&1; echo "tutorials rc=$?")
  grep -E "^(--- FAIL|ok|FAIL)" "$OUT/tutorials.log" | head -10
fi
if [ "${ATTN:-0}" = 1 ]; then
  echo "== attention"
  (cd kernels/attention && TLE_REQUIRE_GPU=1 "$root/.gpu/attention.test" -test.v >"$OUT/attention.log" 2>&1; echo "attention rc=$?")
  grep -E "^(--- FAIL|ok|FAIL)" "$OUT/attention.log" | head -10
fi

echo "== FlashKDA build and FLA"
t0=$(date +%s)
rm -rf /tmp/fkda /tmp/fla-root && mkdir -p /tmp/fla-root
tar -xJf .peers/fla.tar.xz -C /tmp/fla-root
tar -xJf .peers/flashkda.tar.xz -C /tmp
(cd /tmp/fkda && FLASH_KDA_CUDA_ARCHS=90a NVCC_THREADS=8 python3 setup.py build_ext --inplace >"$OUT/flashkda-build.log" 2>&1; echo "flashkda build rc=$? in $(( $(date +%s) - t0 )) s")
tail -2 "$OUT/flashkda-build.log"

# NOFLA=1: FlashKDA alone (kda_peers.py with FLA's timing and its
# comparison with FlashKDA taken out, FLA recorded as not run), for a call
# too short for FLA's Triton compiles (about 30 s instead of 4 minutes)
peers_py=.peers/kda_peers.py
if [ "${NOFLA:-0}" = 1 ]; then
  peers_py=/tmp/flashkda_only.py
  python3 - .peers/kda_peers.py "$peers_py" <<'PY'
import sys
s = open(sys.argv[1]).read().replace("from fla.ops.kda import chunk_kda\n", "")
s = s.replace("""    try: res[f"fla_{tag}_ms"] = med(fla)
    except Exception as e: res[f"fla_{tag}_err"] = str(e)[-200:]""", """    res[f"fla_{tag}_err"] = "FLA not run (NOFLA=1)\"""")
i = s.index("        o_fla = fla()[0]")
j = s.index("\n", s.index('res[f"relrms_fla_vs_flashkda_{tag}"]'))
open(sys.argv[2], "w").write(s[:i] + "        pass" + s[j:])
PY
fi
echo "== $peers_py"
t0=$(date +%s)
PYTHONPATH=/tmp/fkda:/tmp/fla-root FLA_FLASH_KDA=0 PYTHONUNBUFFERED=1 \
  timeout "${PEER_TIMEOUT:-330}" python3 "$peers_py" "$OUT/kda_peers.json" >"$OUT/kda_peers.log" 2>&1
echo "kda_peers.py rc=$? (124: cut by PEER_TIMEOUT) in $(( $(date +%s) - t0 )) s"
grep -E "^H(96|64)_|wrote|importable|Error" "$OUT/kda_peers.log" | tail -12

# the 1-based configurations the file has complete (tlec's table is
# kda_peers.py's CONFIGS, in order)
configs=$(python3 - "$OUT/kda_peers.json" <<'EOF'
import json, sys
try: r = json.load(open(sys.argv[1]))
except Exception as e: print(e, file=sys.stderr); sys.exit(0)
tags = ["H96_fixed", "H96_varlen6", "H96_1024x8", "H64_fixed", "H64_varlen6", "H64_1024x8", "H96_T1024", "H64_T32768"]
ok = [str(i + 1) for i, t in enumerate(tags)
      if all(f"flashkda_{s}state_{t}_ms" in r for s in ("f32", "bf16")) and (f"fla_{t}_ms" in r or f"fla_{t}_err" in r)]
print(",".join(ok))
EOF
)
echo "configurations with peer figures: ${configs:-none}"

bench() { # LABEL ARGS...: one tlec bench, its table to stdout and $OUT/bench-LABEL.txt
  local label=$1; shift
  echo "-- $label"
  .gpu/tlec bench kda_fwd --reps "$REPS" "$@" 2>"$OUT/bench-$label.err" | tee "$OUT/bench-$label.txt"
  local rc=${PIPESTATUS[0]}
  [ $rc = 0 ] || { echo "rc=$rc"; tail -3 "$OUT/bench-$label.err"; }
}
echo "== tlec bench kda_fwd"
if [ -n "$configs" ]; then
  peer=(--peer "$OUT/kda_peers.json" --configs "$configs")
else
  echo "no complete peer figures (see $OUT/kda_peers.log): the bench runs without --peer"
  peer=()
fi
bench plain ${peer[@]+"${peer[@]}"}
if [ -n "${OLD:-}" ]; then
  echo "-- old ($OLD/tlec)"
  "$OLD/tlec" bench kda_fwd --reps "$REPS" ${peer[@]+"${peer[@]}"} 2>"$OUT/bench-old.err" | tee "$OUT/bench-old.txt"
fi
if [ "${PDLBENCH:-1}" = 1 ]; then
  bench pdl --pdl ${peer[@]+"${peer[@]}"}
fi
if [ "${STATE:-f32}" = bf16 ]; then
  bench bf16 --state bf16 ${peer[@]+"${peer[@]}"}
fi
