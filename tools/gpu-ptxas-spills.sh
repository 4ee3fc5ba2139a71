#!/usr/bin/env bash
# Registers and spills of every kernel in a TLE JIT cache, on the GPU host:
#   bash tools/gpu-ptxas-spills.sh DIR [NAME_REGEX]
# Assembles each cached PTX (DIR/*.json, what TLE_CACHE_DIR=DIR left) with
# the host's ptxas -v for sm_90a and prints one line per kernel: its name,
# registers, spill stores and loads (bytes), and the cache entry; then each
# performance advisory ptxas gave for it ("Potential Performance Loss", e.g.
# wgmma.mma_async serialized and why). ROLES=1 adds, per kernel, the SASS's
# local-memory instructions (STL, LDL) counted by the last USETMAXREG before
# them in program order, "#N regs R" for the N-th of the kernel's
# USETMAXREG (R registers): a warp role's region, in the order the roles'
# code lies in the SASS (attn_prefill_fp8_k128: the two consumer copies,
# the transposer, the producer).
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
    if os.environ.get("ROLES") == "1":
        sass = subprocess.run(["cuobjdump", "-sass", f"{t}/k.cubin"], capture_output=True, text=True).stdout
        if os.environ.get("SASS_DIR"):
            open(os.path.join(os.environ["SASS_DIR"], os.path.basename(path) + ".sass"), "w").write(sass)
        region, count, n = "entry", {}, 0
        for l in sass.splitlines():
            m = re.search(r"USETMAXREG\S*\s.*?(0x[0-9a-f]+)\s*;", l)
            if m:
                n += 1
                region = f"#{n} regs {int(m.group(1), 0)}"
            for op in ("STL", "LDL"):
                if re.search(rf"\b{op}(\.|\s)", l):
                    count.setdefault(region, {"STL": 0, "LDL": 0})[op] += 1
        print("    local memory by role: " + ("; ".join(f"{k}: STL {v['STL']} LDL {v['LDL']}" for k, v in count.items()) or "none"))
    for line in sorted(set(l.strip() for l in r.stderr.splitlines() if "Performance Loss" in l)):
        print("    " + re.sub(r" in the function '[^']*'", "", line.split("info    : ")[-1]))
PY
