"""What the peer scripts (peers.py, triton_matmul.py) share: the timing and
the report, one JSON line per measurement, then a table."""
import json

from triton.testing import do_bench


def bench(fn):
    """The median ms of fn from triton.testing.do_bench (CUDA events)."""
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def report(rows, name_w, config_w, rate_w, rate_prec):
    """Prints rows of (name, config, median ms, rate, unit) as JSON lines,
    then as a table with columns of those widths and rate_prec decimals."""
    for r in rows:
        print(json.dumps({"name": r[0], "config": r[1], "median_ms": r[2], "rate": r[3], "unit": r[4]}))
    print(f"{'peer':<{name_w}} {'config':<{config_w}} {'median ms':>10} {'rate':>{rate_w}}")
    for r in rows:
        print(f"{r[0]:<{name_w}} {r[1]:<{config_w}} {r[2]:>10.4f} {r[3]:>9.{rate_prec}f} {r[4]}")
