#!/usr/bin/env bash
# Registers and spills of every kernel in a TLE JIT cache, on the GPU host:
#   bash tools/gpu-ptxas-spills.sh DIR [NAME_REGEX]
# Assembles each cached PTX (DIR/*.json, what TLE_CACHE_DIR=DIR left) with
# the host's ptxas -v for sm_90a and prints one line per kernel: its name,
# registers, spill stores and loads (bytes), and the cache entry; then each
# performance advisory ptxas gave for it ("Potential Performance Loss", e.g.
# wgmma.mma_async serialized and why).
dir=${1:?cache dir}
python3 - "$dir" "${2:-.}" <<'PY'
import glob, json, os, re, subprocess, sys, tempfile
d, pat = sys.argv[1], re.compile(sys.argv[2])
for path in sorted(glob.glob(os.path.join(d, "*.json"))):
    b = json.load(open(path)).get("Binary", {})
    k = b.get("Kernel", "?")
    if not pat.search(k):
        continue
    t = tempfile.mkdtemp()
    open(f"{t}/k.ptx", "w").write(b.get("PTX", ""))
    r = subprocess.run(["ptxas", "-v", "-arch=sm_90a", "-o", f"{t}/k.cubin", f"{t}/k.ptx"], capture_output=True, text=True)
    regs = re.search(r"Used (\d+) registers", r.stderr)
    sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)
    print(f"{k:32s} regs {regs.group(1) if regs else '?':>4s} spill st/ld {sp.group(1) if sp else '?'}/{sp.group(2) if sp else '?'}  {os.path.basename(path)}")
    for line in sorted(set(l.strip() for l in r.stderr.splitlines() if "Performance Loss" in l)):
        print("    " + re.sub(r" in the function '[^']*'", "", line.split("info    : ")[-1]))
PY
