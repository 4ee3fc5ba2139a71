#!/usr/bin/env python3
"""The Python half of tools/gpu.sh: what a GPU session reads and prints,
on the GPU host (python3 there has no Go) or here. Standard library only.

  gpu.py table REPORT...            a short table of `tlec bench --json` reports
  gpu.py ab DIR LABEL...            A/B: DIR/LABEL.BUILD.rN.json of every build and round
  gpu.py vs REPORT OTHER            REPORT's medians over OTHER's, row by row
  gpu.py ptxas [--roles] [--sass-dir D] REGEX PATH...
                                    registers, spills and ptxas' performance
                                    advisories of the kernels named by REGEX
  gpu.py sass [--ops RE] [--top N] [--sass-dir D] REGEX PATH...
                                    a SASS histogram of each kernel (opcodes, or
                                    the matches of --ops)
  gpu.py race-sass LOG CACHE [CTX]  the SASS around each instruction a
                                    racecheck report names
  gpu.py kda-configs FILE           the kda_fwd configurations kda_peers.py's
                                    FILE has complete (1-based, comma-separated)
  gpu.py nofla SRC DST              kda_peers.py without FLA (FlashKDA alone)
  gpu.py only-configs SRC DST LIST  kda_peers.py over the 1-based configurations LIST
  gpu.py tune TUNE.json...          tlec tune's fresh, cached and exhaustive
                                    runs of each key (tools/gpu.sh's TUNE)

A PATH is a JIT cache directory (TLE_CACHE_DIR: *.json entries holding
Binary.Kernel and Binary.PTX), a directory of .ptx files, or a .ptx file; a
.ptx file's kernel is its file name. ptxas and sass need ptxas and cuobjdump
(the GPU host has both).
"""
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        return None


def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


# ---- table


def means(by_name, text):
    """One line per name with values: text formatted with the name, the
    values' geometric mean, count and minimum."""
    for name, v in by_name.items():
        if v:
            print(text.format(name=name, gm=gm(v), n=len(v), min=min(v)))


def row_key(r):
    return " ".join(x for x in (r.get("case", ""), r.get("config", "")) if x)


def table(paths):
    for path in paths:
        rep = load(path)
        if not isinstance(rep, dict) or "rows" not in rep:
            print(f"{path}: not a tlec bench report")
            continue
        rows = rep.get("rows") or []
        dry = " (dry run)" if rep.get("dry_run") and "dry" not in rep.get("device", "") else ""
        print(f"== {rep.get('suite', '?')} on {rep.get('device', '?')}{dry}: {len(rows)} rows ({os.path.basename(path)})")
        peers = []
        for r in rows:
            for p in r.get("peers") or []:
                if p.get("name") not in peers:
                    peers.append(p.get("name"))
        w = min(max([len(row_key(r)) for r in rows] + [4]), 56)
        pw = [max(len(p), 8) for p in peers]
        head = f"{'case':{w}s} {'median us':>9s} {'rate':>14s}"
        head += "".join(f" {p:>{n}s}" for p, n in zip(peers, pw))
        print(head)
        speed = {p: [] for p in peers}
        for r in rows:
            rate = f"{r.get('rate', 0):.2f} {r.get('unit', '')}" if r.get("rate") else "-"
            line = f"{row_key(r)[:w]:{w}s} {r.get('median_us', 0):9.1f} {rate:>14s}"
            for p, n in zip(peers, pw):
                cell = "-"
                for q in r.get("peers") or []:
                    if q.get("name") == p and q.get("speedup"):
                        cell = f"{q['speedup']:.3f}x"
                        speed[p].append(q["speedup"])
                line += f" {cell:>{n}s}"
            print(line)
        means(speed, "speed-up over {name}: geometric mean {gm:.3f}x over {n} rows (min {min:.3f}x)")


# ---- A/B


def ab(d, labels):
    """Per label, every build's median per round (round 1 first) and each
    other build's median of rounds over the first build's (> 1: the first
    build, the new one, is faster)."""
    for label in labels:
        runs = {}  # build -> [rows by key, per round]
        for path in sorted(glob.glob(os.path.join(d, f"{glob.escape(label)}.*.r*.json"))):
            m = re.match(re.escape(label) + r"\.(.+)\.r(\d+)\.json$", os.path.basename(path))
            if not m:
                continue
            rep = load(path) or {}
            rows = {row_key(r) + " " + r.get("kernel", ""): r.get("median_us", 0) for r in rep.get("rows") or []}
            runs.setdefault(m.group(1), {})[int(m.group(2))] = rows
        if not runs:
            print(f"== {label}: no A/B reports")
            continue
        builds = sorted(runs, key=lambda b: (b != "new", b))
        rounds = max(max(r) for r in runs.values())
        print(f"== A/B {label}: median us per round, " + " / ".join(builds) + f" ({rounds} round{'s' if rounds > 1 else ''})")
        first = runs[builds[0]]
        keys = []
        for rr in first.values():
            keys += [k for k in rr if k not in keys]
        ratios = {b: [] for b in builds[1:]}
        w = min(max([len(k) for k in keys] + [4]), 60)
        cw = max([len(b) for b in builds] + [6 * rounds])
        print(f"{'case':{w}s} " + " ".join(f"{b:>{cw}s}" for b in builds))
        for k in keys:
            cells, meds = [], {}
            for b in builds:
                v = [runs[b].get(i, {}).get(k) for i in range(1, rounds + 1)]
                cells.append("/".join(f"{x:.1f}" if x else "-" for x in v))
                ok = [x for x in v if x]
                meds[b] = statistics.median(ok) if ok else None
            line = f"{k[:w]:{w}s} " + " ".join(f"{c:>{cw}s}" for c in cells)
            for b in builds[1:]:
                if meds[b] and meds[builds[0]]:
                    x = meds[b] / meds[builds[0]]
                    ratios[b].append(x)
                    line += f" {b}/{builds[0]} {x:.3f}"
            print(line)
        means(ratios, "{name} over " + builds[0] + ": geometric mean {gm:.3f} over {n} rows (> 1: " + builds[0] + " faster)")


def vs(a_path, b_path):
    """a's medians over b's, rows matched by case (by case and config where
    a case has several rows): < 1, a is faster."""
    a, b = load(a_path) or {}, load(b_path) or {}
    ra, rb = a.get("rows") or [], b.get("rows") or []
    if not ra or not rb:
        print(f"== {a_path} vs {b_path}: no rows")
        return

    def keyed(rows):
        cases = [r.get("case", "") for r in rows]
        return {(r.get("case", "") if cases.count(r.get("case", "")) == 1 else row_key(r)): r.get("median_us", 0) for r in rows}
    ka, kb = keyed(ra), keyed(rb)
    la, lb = os.path.basename(a_path)[:-5], os.path.basename(b_path)[:-5]
    w = min(max([len(k) for k in ka] + [4]), 56)
    print(f"== {la} over {lb}: median us")
    na, nb = max(len(la), 10), max(len(lb), 10)
    print(f"{'case':{w}s} {la:>{na}s} {lb:>{nb}s} {'ratio':>7s}")
    v = []
    for k, x in ka.items():
        y = kb.get(k)
        r = x / y if x and y else None
        if r:
            v.append(r)
        print(f"{k[:w]:{w}s} {x:{na}.1f} {(y or 0):{nb}.1f} " + (f"{r:7.3f}" if r else "      -"))
    if v:
        print(f"{la} over {lb}: geometric mean {gm(v):.3f} over {len(v)} rows (< 1: {la} faster)")


def tune(paths):
    """tlec tune's three runs of each key (tune-N.json fresh, -cached.json a
    second process, -exh.json exhaustive): the tuner's choice timed in the
    exhaustive run against that run's best and the default's."""
    fresh = [p for p in paths if not p.endswith(("-cached.json", "-exh.json"))]
    print("== tune: the tuner's choice in the exhaustive timing (medians in us)")
    print(f"{'kernel [key]':40s} {'tuner':>26s} {'best':>26s} {'gap':>6s} {'default':>9s} {'def/best':>8s} {'timed':>5s} {'tuning':>8s} {'cached':>12s}")
    for p in sorted(fresh):
        f = load(p)
        e = load(p[:-5] + "-exh.json")
        c = load(p[:-5] + "-cached.json")
        if not f or not e:
            print(f"{os.path.basename(p)}: no {'fresh' if not f else 'exhaustive'} result")
            continue

        def med(res):
            return {r["Config"]["Name"]: r["Timing"]["MedianMs"] * 1e3 for r in res.get("Rows") or [] if r.get("Timing")}
        em = med(e)
        if not em:
            print(f"{os.path.basename(p)}: nothing timed")
            continue
        best = min(em, key=em.get)
        win = f["Winner"]["Name"]
        dflt = next((r["Config"]["Name"] for r in f.get("Rows") or []), "")
        tw, td = em.get(win), em.get(dflt)
        gap = f"{(tw / em[best] - 1) * 100:5.1f}%" if tw else "    -"
        cached = f"{c.get('Source', '-')} {c.get('took_ms', 0):.1f}ms" if c else "-"
        key = f"{f['Kernel']} [{f['Bucket']}]"
        print(f"{key[:40]:40s} {win[:17]:>17s} {tw or 0:8.1f} {best[:17]:>17s} {em[best]:8.1f} {gap:>6s} {td or 0:9.1f} "
              f"{(td or 0) / em[best]:8.3f} {len(em):5d} {f.get('took_ms', 0) / 1e3:7.1f}s {cached:>12s}")
    print("gap: the tuner's choice over the exhaustive best, both from the exhaustive run; tuning: the fresh run's Tune(); "
          "cached: the second process's source and Tune() time")


# ---- kernels: PTX from caches and files


def kernels(regex, paths):
    """Yields (kernel, where, ptx) for every PTX under paths whose kernel
    matches regex."""
    pat = re.compile(regex)
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.json"))) + sorted(glob.glob(os.path.join(p, "*.ptx")))
        elif os.path.exists(p):
            files.append(p)
    for f in files:
        if f.endswith(".ptx"):
            k = os.path.basename(f)[:-4]
            with open(f) as fh:
                ptx = fh.read()
        else:
            e = load(f) or {}
            b = e.get("Binary") or {}
            k, ptx = b.get("Kernel", "?"), b.get("PTX", "")
        if ptx and pat.search(k):
            yield k, f, ptx


def assemble(ptx, verbose=False):
    """ptxas for sm_90a (what the JIT does): (cubin path, ptxas stderr)."""
    d = tempfile.mkdtemp()
    with open(f"{d}/k.ptx", "w") as f:
        f.write(ptx)
    args = ["ptxas", "-arch=sm_90a", "-o", f"{d}/k.cubin", f"{d}/k.ptx"]
    if verbose:
        args.insert(1, "-v")
    r = subprocess.run(args, capture_output=True, text=True)
    return (f"{d}/k.cubin" if r.returncode == 0 else None), r.stderr


def disassemble(cubin):
    return subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout


def save_sass(sass_dir, k, where, sass):
    if sass_dir:
        os.makedirs(sass_dir, exist_ok=True)
        name = re.sub(r"[^\w.-]", "_", f"{k}-{os.path.basename(where)}")
        with open(os.path.join(sass_dir, name + ".sass"), "w") as f:
            f.write(sass)


def roles(sass):
    """Local-memory instructions (STL, LDL) counted by the last USETMAXREG
    before them in program order: a warp role's region, "#N regs R"."""
    region, count, n = "entry", {}, 0
    for line in sass.splitlines():
        m = re.search(r"USETMAXREG\S*\s.*?(0x[0-9a-f]+)\s*;", line)
        if m:
            n += 1
            region = f"#{n} regs {int(m.group(1), 0)}"
        for op in ("STL", "LDL"):
            if re.search(rf"\b{op}(\.|\s)", line):
                count.setdefault(region, {"STL": 0, "LDL": 0})[op] += 1
    return "; ".join(f"{k}: STL {v['STL']} LDL {v['LDL']}" for k, v in count.items()) or "none"


def ptxas(regex, paths, with_roles=False, sass_dir=None):
    n = 0
    for k, where, ptx in kernels(regex, paths):
        n += 1
        cubin, err = assemble(ptx, verbose=True)
        regs = re.search(r"Used (\d+) registers", err)
        sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", err)
        st = re.search(r"(\d+) bytes stack frame", err)
        smem = re.search(r"(\d+) bytes smem", err)
        print(f"{k:34s} regs {regs.group(1) if regs else '?':>4s} spill st/ld {sp.group(1) if sp else '?'}/{sp.group(2) if sp else '?'}"
              f" stack {st.group(1) if st else '?'} smem {smem.group(1) if smem else '?'}  {where}")
        if cubin is None:
            print("    ptxas failed: " + err.strip()[:300])
            continue
        if with_roles or sass_dir:
            sass = disassemble(cubin)
            save_sass(sass_dir, k, where, sass)
            if with_roles:
                print("    local memory by role: " + roles(sass))
        for line in sorted(set(x.strip() for x in err.splitlines() if "Performance Loss" in x or "warning" in x)):
            print("    " + re.sub(r" in the function '[^']*'", "", line.split("info    : ")[-1]))
    if n == 0:
        print(f"no kernel matching {regex!r} under {' '.join(paths)}")


INSN = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def sass_hist(regex, paths, ops=None, top=25, sass_dir=None):
    n = 0
    for k, where, ptx in kernels(regex, paths):
        n += 1
        cubin, err = assemble(ptx)
        if cubin is None:
            print(f"== {k} ({where}): ptxas failed: {err.strip()[:300]}")
            continue
        sass = disassemble(cubin)
        save_sass(sass_dir, k, where, sass)
        count, total = {}, 0
        for line in sass.splitlines():
            m = INSN.match(line)
            if not m:
                continue
            total += 1
            if ops:
                for x in re.findall(ops, m.group(1) + m.group(2)):
                    x = x if isinstance(x, str) else x[0]
                    count[x] = count.get(x, 0) + 1
            else:
                op = m.group(1).split(".")[0]
                count[op] = count.get(op, 0) + 1
        best = sorted(count.items(), key=lambda x: (-x[1], x[0]))[:top]
        print(f"== {k}: {total} instructions ({where})")
        print("   " + " ".join(f"{v} {o}" for o, v in best) if best else "   (none of " + (ops or "any") + ")")
    if n == 0:
        print(f"no kernel matching {regex!r} under {' '.join(paths)}")


# ---- racecheck excerpts


def race_sass(log, cache, ctx=12):
    offs, kinds = {}, {}  # kernel -> offsets; (kernel, offset) -> "Read" or "Write"
    with open(log, errors="replace") as f:
        for line in f:
            a = re.search(r"\b(Read|Write) (access|Thread)", line)
            for k, o in re.findall(r"(\w+)\+0x([0-9a-f]+)", line):
                offs.setdefault(k, set()).add(int(o, 16))
                if a:
                    kinds[(k, int(o, 16))] = a.group(1)
    if not offs:
        print("no instruction named in the report")
        return
    for k, where, ptx in kernels(".", [cache]):
        if k not in offs:
            continue
        cubin, err = assemble(ptx)
        if cubin is None:
            print(k, "ptxas failed:", err[:500])
            continue
        sass = disassemble(cubin).splitlines()
        at = {}
        for i, line in enumerate(sass):
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/", line)
            if m:
                at[int(m.group(1), 16)] = i

        # several builds of one kernel may be cached (other
        # specialisations): keep the one whose instructions at the reported
        # offsets are loads (reads) and stores (writes) of memory
        def fits(o):
            i = at.get(o)
            if i is None:
                return False
            op = re.sub(r"^\s*/\*[0-9a-f]+\*/\s*(@!?U?P\w+\s+)?", "", sass[i]).split(" ")[0]
            want = kinds.get((k, o))
            return want is None or op.startswith("ATOM") or (want == "Read") == op.startswith("LD")
        if not all(fits(o) for o in offs[k]):
            print(f"==== {k} ({where}): not the reported build")
            continue
        print(f"==== {k} ({where}, {len(sass)} lines of SASS)")
        for o in sorted(offs[k]):
            i = at[o]
            print(f"-- +0x{o:x}")
            for j in range(max(0, i - 2 * ctx), min(len(sass), i + ctx + 1)):
                print(("=> " if j == i else "   ") + sass[j].strip()[:160])


# ---- KDA peers

# kda_peers.py's CONFIGS, in order: tlec bench kda_fwd --configs numbers them from 1
KDA_TAGS = ["H96_fixed", "H96_varlen6", "H96_1024x8", "H64_fixed", "H64_varlen6", "H64_1024x8", "H96_T1024", "H64_T32768"]


def kda_configs(path):
    r = load(path)
    if not isinstance(r, dict):
        return
    ok = [str(i + 1) for i, t in enumerate(KDA_TAGS)
          if all(f"flashkda_{s}state_{t}_ms" in r for s in ("f32", "bf16")) and (f"fla_{t}_ms" in r or f"fla_{t}_err" in r)]
    print(",".join(ok))


def nofla(src, dst):
    """kda_peers.py with FLA's import, timing and comparison taken out, FLA
    recorded as not run: FlashKDA alone, for a call too short for FLA's
    Triton compiles (about 30 s instead of 4 minutes)."""
    with open(src) as f:
        s = f.read()
    s = s.replace("from fla.ops.kda import chunk_kda\n", "")
    s = re.sub(r"    try: res\[f\"fla_\{tag\}_ms\"\] = med\(fla\)\n    except Exception as e: res\[f\"fla_\{tag\}_err\"\] = [^\n]*\n",
               '    res[f"fla_{tag}_err"] = "FLA not run"\n', s)
    i = s.index("        o_fla = fla()[0]")
    j = s.index("\n", s.index('res[f"relrms_fla_vs_flashkda_{tag}"]'))
    with open(dst, "w") as f:
        f.write(s[:i] + "        pass" + s[j:])


def only_configs(src, dst, which):
    """kda_peers.py over the configurations which names (1-based, comma-
    separated) alone: FLA's Triton compiles of the others do not fit a
    call beside them."""
    idx = [int(x) - 1 for x in which.split(",") if x.strip()]
    with open(src) as f:
        s = f.read()
    old = "for H, name, lens in CONFIGS:"
    if old not in s:
        raise SystemExit(f"gpu.py only-configs: {src} has no {old!r}")
    s = s.replace(old, f"for H, name, lens in [CONFIGS[i] for i in {idx!r}]:")
    with open(dst, "w") as f:
        f.write(s)


# ---- main


def opt(args, name, default=None, flag=False):
    if name in args:
        i = args.index(name)
        if flag:
            del args[i]
            return True
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return default


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, args = argv[0], argv[1:]
    if cmd == "table":
        table(args)
    elif cmd == "ab":
        ab(args[0], args[1:])
    elif cmd == "vs":
        vs(args[0], args[1])
    elif cmd == "ptxas":
        r = opt(args, "--roles", flag=True)
        d = opt(args, "--sass-dir")
        ptxas(args[0], args[1:], r, d)
    elif cmd == "sass":
        ops = opt(args, "--ops")
        top = int(opt(args, "--top", 25))
        d = opt(args, "--sass-dir")
        sass_hist(args[0], args[1:], ops, top, d)
    elif cmd == "race-sass":
        race_sass(args[0], args[1], int(args[2]) if len(args) > 2 else 12)
    elif cmd == "tune":
        tune(args)
    elif cmd == "kda-configs":
        kda_configs(args[0])
    elif cmd == "nofla":
        nofla(args[0], args[1])
    elif cmd == "only-configs":
        only_configs(args[0], args[1], args[2])
    else:
        print(f"gpu.py: no command {cmd!r}\n{__doc__}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
