#!/usr/bin/env python3
"""Issue #38's goals table from two runs of bench/run_goals.sh.

    bench/goals_table.py bench/results/goals_pg19_run1 bench/results/goals_pg19_run2

Prints, as Markdown, one row per case measured in both runs: PostgreSQL's
and srmsort's medians and the ratio of each run, the lower ratio (the one
that counts) and, where the case has a goal, whether both runs meet it.
A case measured in one run only is listed with that run's figures and no
verdict.
"""
import csv
import glob
import os
import sys

# (dataset, rows, work_mem, system) -> goal ratio against native
GOALS = {}
for wm in ("4MB", "64MB", "1GB"):
    GOALS[("int8", 50000000, wm, "srm")] = 3.0
for wm in ("4MB", "64MB"):
    GOALS[("records", 50000000, wm, "srm")] = 2.5
GOALS[("int8", 10000000, "1GB", "srm")] = 1.5
GOALS[("text_c", 5000000, "1GB", "srm")] = 1.5
GOALS[("text_icu", 5000000, "1GB", "srm")] = 1.5
# shapes: never slower than PostgreSQL
SHAPES = ("int8_desc", "int8_nulls", "multikey", "many_cols", "wide", "toast")


def load(run):
    """{(case dir, dataset, rows, work_mem, workers, system): row}"""
    out = {}
    for f in sorted(glob.glob(os.path.join(run, "*", "results.csv"))):
        case = os.path.basename(os.path.dirname(f))
        for r in csv.DictReader(open(f)):
            key = (case, r["dataset"], int(r["rows"]), r["work_mem"], int(r["workers"] or 0),
                   r["system"])
            out[key] = r
    return out


def goal(key):
    case, ds, rows, wm, workers, system = key
    if ds in SHAPES:
        return 1.0
    if workers:
        return None
    return GOALS.get((ds, rows, wm, system))


def secs(v):
    v = float(v)
    return "%.2f s" % v if v >= 1 else "%.3f s" % v


def rows_label(n):
    return "%dM" % (n // 1000000) if n % 1000000 == 0 else "%dk" % (n // 1000)


def side_by_side(a, b, key, base):
    """For each run: the cells "base's median, key's median" and base's
    median over key's (the ratio), where both were measured."""
    cells, ratios = [], []
    for run in (a, b):
        r, n = run.get(key), run.get(key[:5] + (base,))
        if r is None or n is None:
            cells += ["", ""]
            continue
        ratio = float(n["median_s"]) / float(r["median_s"])
        ratios.append(ratio)
        cells += ["%s, %s" % (secs(n["median_s"]), secs(r["median_s"])), "%.2f×" % ratio]
    return cells, ratios


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    print("| data | rows | work_mem | workers | system | PostgreSQL, srmsort (run 1) | ratio 1 "
          "| PostgreSQL, srmsort (run 2) | ratio 2 | lower | goal |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in list(a) + [k for k in b if k not in a]:
        case, ds, rows, wm, workers, system = key
        if system == "native":
            continue
        cells, ratios = side_by_side(a, b, key, "native")
        g = goal(key)
        low = min(ratios) if ratios else None
        if g is None or len(ratios) < 2:
            verdict = "" if g is None else "≥ %.1f× (one run)" % g
        elif g == 1.0:
            verdict = "never slower: %s" % ("met" if low >= 1.0 else "**missed**")
        else:
            verdict = "≥ %.1f×: %s" % (g, "met" if low >= g else "**missed**")
        print("| %s | %s | %s | %d | %s | %s | %s | %s |"
              % (ds, rows_label(rows), wm, workers, system, " | ".join(cells),
                 "%.2f×" % low if low else "", verdict))

    # the parallel sort against srmsort's own single-process time (goal 1.6×)
    par = [k for k in a if k[4] and k[5] == "srm"]
    if par:
        print()
        print("| data | rows | work_mem | workers | srmsort in one process, split (run 1) | speedup 1 "
              "| in one process, split (run 2) | speedup 2 | lower | goal |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for key in par:
            cells, ups = side_by_side(a, b, key, "srm_serial")
            low = min(ups) if ups else None
            verdict = ("≥ 1.6×: %s" % ("met" if low >= 1.6 else "**missed**")) if len(ups) == 2 else ""
            print("| %s | %s | %s | %d | %s | %s | %s |"
                  % (key[1], rows_label(key[2]), key[3], key[4], " | ".join(cells),
                     "%.2f×" % low if low else "", verdict))

if __name__ == "__main__":
    main()
