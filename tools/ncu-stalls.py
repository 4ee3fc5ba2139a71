#!/usr/bin/env python3
"""Warp-stall breakdown of one kernel from Nsight Compute's source page, on the GPU host:
  ncu --kernel-name regex:NAME --launch-skip K --launch-count 1 --section SourceCounters \
      --page source --print-source sass --csv CMD > src.csv
  python3 tools/ncu-stalls.py src.csv [TOP]
(tools/gpu.sh host runs both for NCU=REGEX.)
Splits the SASS into warp roles at their named barriers (a role's `bar.sync id, n` is
`BAR.SYNC.DEFER_BLOCKING id, n` in SASS; id 0 is the CTA's; code before a role's first
barrier, such as its first mbarrier wait, counts toward the role before it), then prints for each role
its share of the stall samples, its main stall reasons, and its TOP (default 12)
instructions by samples with their two main reasons."""
import csv, re, sys

rows = list(csv.reader(open(sys.argv[1], errors="replace")))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
hi = next((i for i, r in enumerate(rows) if "Source" in r and "Warp Stall Sampling (All Samples)" in r), None)
if hi is None:
    sys.exit("no source page in " + sys.argv[1])
h = rows[hi]
data = [r for r in rows[hi + 1:] if len(r) == len(h)]
src, allc = h.index("Source"), h.index("Warp Stall Sampling (All Samples)")
stalls = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


# a role's code runs from its first named barrier to the next role's (by id)
role, spans, start = None, [], 0
for i, r in enumerate(data):
    m = re.search(r"BAR\.SYNC\.DEFER_BLOCKING (0x[0-9a-f]+), 0x", r[src])
    if m and m.group(1) != role:
        spans.append((role, start, i))
        role, start = m.group(1), i
spans.append((role, start, len(data)))
total = sum(num(r[allc]) for r in data) or 1
print(f"{len(data)} instructions, {int(total)} stall samples")
for name, a, b in spans:
    part = data[a:b]
    s = sum(num(r[allc]) for r in part)
    if s < total * 0.01:
        continue
    agg = sorted(((h[c][6:], sum(num(r[c]) for r in part)) for c in stalls), key=lambda x: -x[1])[:6]
    print(f"\n== barrier {name or 'none (prologue)'}: instructions {a}-{b}, {s / total * 100:.1f}% of samples: "
          + " ".join(f"{k}={v / s * 100:.0f}%" for k, v in agg))
    for i in sorted(range(a, b), key=lambda i: -num(data[i][allc]))[:top]:
        r = data[i]
        why = sorted(((h[c][6:], num(r[c])) for c in stalls), key=lambda x: -x[1])[:2]
        print(f"  {num(r[allc]) / total * 100:5.1f}% #{i:5d} {r[src].strip()[:70]:70s} " + " ".join(f"{k}:{int(v)}" for k, v in why))
