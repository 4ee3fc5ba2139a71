#!/usr/bin/env bash
# compute-sanitizer racecheck on some tests of a kernels/ package, then the
# SASS around every instruction the report names, on the GPU host from the
# repository root with .gpu carried (.gpu/PKG.test built here):
#   PKG=attention RUNS='TestA/case_1 TestB' bash tools/gpu-racecheck-sass.sh
# Each -test.run pattern of RUNS runs alone (one report each) with a fresh
# JIT cache, so the PTX of the kernels it launched is in that cache; the
# kernels the report names are assembled with the host's ptxas (sm_90a, the
# JIT's compiler) and disassembled, and CTX instructions either side of each
# reported offset are printed. Output: $OUT/race-N.log (the report) and
# $OUT/sass-N.txt (the excerpts).
. "$(dirname "$0")/gpu-env.sh"
PKG=${PKG:-attention}
CTX=${CTX:-12}
n=0
for run in $RUNS; do
  n=$((n + 1))
  cache=/tmp/race-cache-$n
  rm -rf "$cache" && mkdir -p "$cache"
  echo "== racecheck $run"
  (cd "kernels/$PKG" && TLE_CACHE_DIR=$cache TLE_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool racecheck \
    --racecheck-report all "$root/.gpu/$PKG.test" -test.run "$run" >"$OUT/race-$n.log" 2>&1; echo "rc=$?")
  grep -E "RACECHECK SUMMARY|^(--- FAIL|FAIL|ok|PASS)" "$OUT/race-$n.log" | head -4
  python3 - "$OUT/race-$n.log" "$cache" "$CTX" >"$OUT/sass-$n.txt" <<'PY'
import glob, json, re, subprocess, sys, tempfile, os
log, cache, ctx = sys.argv[1], sys.argv[2], int(sys.argv[3])
offs, kinds = {}, {}  # kernel -> offsets; (kernel, offset) -> "Read" or "Write"
for line in open(log, errors="replace"):
    a = re.search(r"\b(Read|Write) (access|Thread)", line)
    for k, o in re.findall(r"(\w+)\+0x([0-9a-f]+)", line):
        offs.setdefault(k, set()).add(int(o, 16))
        if a:
            kinds[(k, int(o, 16))] = a.group(1)
if not offs:
    print("no instruction named in the report"); sys.exit(0)
for path in sorted(glob.glob(os.path.join(cache, "*.json"))):
    b = json.load(open(path)).get("Binary", {})
    k = b.get("Kernel")
    if k not in offs:
        continue
    d = tempfile.mkdtemp()
    open(f"{d}/k.ptx", "w").write(b["PTX"])
    r = subprocess.run(["ptxas", "-arch=sm_90a", "-o", f"{d}/k.cubin", f"{d}/k.ptx"], capture_output=True, text=True)
    if r.returncode:
        print(k, "ptxas failed:", r.stderr[:500]); continue
    sass = subprocess.run(["cuobjdump", "-sass", f"{d}/k.cubin"], capture_output=True, text=True).stdout.splitlines()
    at = {}
    for i, l in enumerate(sass):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/", l)
        if m:
            at[int(m.group(1), 16)] = i
    # several builds of one kernel may be cached (other specialisations):
    # keep the one whose instructions at the reported offsets are loads
    # (reads) and stores (writes) of memory
    def fits(o):
        i = at.get(o)
        if i is None:
            return False
        op = re.sub(r"^\s*/\*[0-9a-f]+\*/\s*(@!?U?P\w+\s+)?", "", sass[i]).split(" ")[0]
        want = kinds.get((k, o))
        return want is None or (want == "Read") == (op.startswith("LD") or op.startswith("ATOM")) or op.startswith("ATOM")
    if not all(fits(o) for o in offs[k]):
        print(f"==== {k} ({path}): not the reported build (its instructions at the offsets are not the reported accesses)")
        continue
    print(f"==== {k} ({path}, {len(sass)} lines of SASS)")
    for o in sorted(offs[k]):
        i = at.get(o)
        if i is None:
            print(f"-- +0x{o:x}: not in this build"); continue
        print(f"-- +0x{o:x}")
        for j in range(max(0, i - 2 * ctx), min(len(sass), i + ctx + 1)):
            print(("=> " if j == i else "   ") + sass[j].strip()[:160])
PY
  head -c 300 "$OUT/sass-$n.txt"; echo
done
