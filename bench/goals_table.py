#!/usr/bin/env python3
"""Issue #50's goals table from two runs of bench/run_goals.sh.

    bench/goals_table.py bench/results/2026-11-28-goals-pg19 bench/results/2026-11-28-goals-pg19-2
    bench/goals_table.py --lower RUN1 RUN2     # the tables of the lower runs only

Prints, as Markdown, per case measured (a row per data set, rows,
work_mem or maintenance_work_mem and system):

1. The tables of the lower runs, for the README and docs/performance.md:
   the floor (the same query without ORDER BY; for an index build, the
   table's scan), the other system's median, srmsort's, the ratio and
   srmsort's time as a multiple of the floor, all from the run whose ratio
   is the lower (the one that counts), with that run's directory named; and
   the case's goal, met only when both runs meet it. srmsort against
   PostgreSQL (ORDER BY and CREATE INDEX), against DuckDB at equal threads,
   and srmsort's split ORDER BY against srmsort in one process.
2. Unless --lower: both runs side by side, the medians and ratio of each.

A comparison measured in one run only is given with that run's figures and
"(one run)" for a verdict.
"""
import csv
import glob
import os
import sys

# the cases in bench/run_goals.sh's order: the tables list them so
CASE_ORDER = ("int8", "duckdb1", "parallel", "inmem_int8", "inmem_text", "twokeys",
              "numeric_index", "numeric_sort", "shapes", "shapes_wide", "shapes_toast",
              "records")

LABELS = {
    "int8": "int8", "records": "100-byte records", "text_c": 'text "C"', "text_icu": "text ICU",
    "multikey": "two keys (int4, int8)", "multikey_int4": "two keys (int4, int4)",
    "multikey_date": "two keys (int4, date)", "date_numeric": "(date, numeric, numeric)",
    "date_int4": "(date, int4)", "int8_desc": "int8 DESC", "int8_nulls": "int8, 20% NULL",
    "many_cols": "20 columns", "wide": "512-byte rows", "toast": "TOASTed values",
}

# whom a system is compared with, per table
AGAINST_PG = {"srm": "native", "srm_serial": "native_serial", "dsm": "native",
              "srm_any": "native"}


def goal(c):
    """Issue #50's goal for a comparison (a ratio), or None."""
    kind, case, ds, rows, wm, workers, system, base = c
    if base == "duckdb":
        # equal threads: one process against one thread, the split (2
        # workers) against two threads at 1GB
        if system == "srm" and not workers and wm in ("64MB", "1GB"):
            return 1.2
        if system == "srm" and workers == 2 and wm == "1GB":
            return 1.15
        return None
    if base == "srm_serial":
        return 1.0                              # the split never slower
    # by case (bench/run_goals.sh's directories), so that a quick run
    # with --rows shows the same goals
    if case in ("numeric_index", "numeric_sort"):
        return 2.0
    if system != "srm" or workers:
        return 1.0
    if case == "int8":
        return 3.0
    if case == "records":
        return 2.5
    if case == "inmem_int8" or (case == "inmem_text" and ds == "text_c"):
        return 2.0
    if case == "inmem_text" and ds == "text_icu":
        return 3.0
    if case == "twokeys":
        return 2.5
    return 1.0                                  # never slower than PostgreSQL


def load(run):
    """{(case, dataset, rows, work_mem, system): (kind, row)} of a run's
    results.csv (bench.py) and index.csv (index_bench.py) files."""
    out = {}
    for f in sorted(glob.glob(os.path.join(run, "*", "*.csv"))):
        kind = {"results.csv": "sort", "index.csv": "index"}.get(os.path.basename(f))
        if kind is None:
            continue
        case = os.path.basename(os.path.dirname(f))
        for r in csv.DictReader(open(f)):
            wm = r.get("work_mem") or r.get("maintenance_work_mem")
            out[(case, r["dataset"], int(r["rows"]), wm, r["system"])] = (kind, r)
    return out


def comparisons(runs):
    """(kind, case, dataset, rows, work_mem, workers, system, base) for
    every pair of systems measured side by side in some run."""
    seen = {}
    for run in runs:
        for (case, ds, rows, wm, system), (kind, r) in run.items():
            has = lambda s: (case, ds, rows, wm, s) in run
            workers = int(r.get("workers") or 0)
            pairs = []
            # an index build against PostgreSQL's at the same workers
            # setting; an ORDER BY against PostgreSQL's (which plans its own)
            peer = AGAINST_PG.get(system) if kind == "index" else (
                "native" if system in AGAINST_PG else None)
            if peer and has(peer):
                pairs.append(peer)
            if kind == "sort" and system == "srm" and has("duckdb"):
                pairs.append("duckdb")
            if kind == "sort" and system == "srm" and workers and has("srm_serial"):
                pairs.append("srm_serial")
            for base in pairs:
                seen.setdefault((kind, case, ds, rows, wm, workers, system, base), None)
    order = {c: i for i, c in enumerate(CASE_ORDER)}
    return sorted(seen, key=lambda c: (order.get(c[1], len(order)), c[1]))


def measure(run, c):
    """(ratio, base row, system row) of a comparison in one run, or None."""
    kind, case, ds, rows, wm, workers, system, base = c
    if (case, ds, rows, wm, system) not in run or (case, ds, rows, wm, base) not in run:
        return None
    r = run[(case, ds, rows, wm, system)][1]
    b = run[(case, ds, rows, wm, base)][1]
    return float(b["median_s"]) / float(r["median_s"]), b, r


def secs(v):
    if v in (None, ""):
        return ""
    v = float(v)
    return "%.2f s" % v if v >= 1 else "%.3f s" % v


def rows_label(n):
    return "%dM" % (n // 1000000) if n % 1000000 == 0 else "%dk" % (n // 1000)


def what(c):
    kind, case, ds, rows, wm, workers, system, base = c
    label = LABELS.get(ds, ds)
    if kind == "index":
        label = "CREATE INDEX " + label
    elif case.startswith("inmem"):
        label += " (in memory)"
    if system == "srm_serial" and kind == "sort":
        label += ", srmsort in one process"
    if system == "srm_serial" and kind == "index":
        label += ", serial"
    return label


def verdict(c, ratios):
    g = goal(c)
    if g is None:
        return ""
    name = "never slower" if g == 1.0 else "≥ %s×" % ("%.2f" % g).rstrip("0").rstrip(".")
    if len(ratios) < 2:
        return "%s (one run)" % name
    return "%s: %s" % (name, "met" if min(ratios) >= g else "**missed**")


def lower_tables(names, runs, comps, pg):
    tables = (
        ("srmsort against PostgreSQL", lambda c: c[7] in ("native", "native_serial"),
         "PostgreSQL" + (" " + pg if pg else "")),
        ("srmsort against DuckDB at equal threads (srmsort in one process against "
         "DuckDB's one thread, the split with 2 workers against two threads; the floor is "
         "PostgreSQL's scan, DuckDB's own beside it)", lambda c: c[7] == "duckdb", "DuckDB"),
        ("srmsort's split ORDER BY (2 workers) against srmsort in one process",
         lambda c: c[7] == "srm_serial", "srmsort in one process"),
    )
    for title, pick, base_name in tables:
        mine = [c for c in comps if pick(c)]
        if not mine:
            continue
        duck = base_name == "DuckDB"
        print("%s:\n" % title)
        print("| data | rows | work_mem | workers | floor | %s%s | srmsort | ratio | "
              "srmsort ÷ floor | goal (#50) | results |" % (
                  "DuckDB's floor | " if duck else "", base_name))
        print("|---" * (11 + duck) + "|")
        for c in mine:
            got = [(m, name) for m, name in ((measure(run, c), name)
                                             for run, name in zip(runs, names)) if m]
            if not got:
                continue
            (ratio, b, r), name = min(got, key=lambda g: g[0][0])
            floor = float(r["floor_s"]) if r.get("floor_s") else None
            kind, case, ds, rows, wm, workers, system, base = c
            print("| %s | %s | %s | %s | %s | %s%s | %s | %.2f× | %s | %s | %s/%s |" % (
                what(c), rows_label(rows), wm, 0 if system.endswith("serial") else workers,
                secs(floor), secs(b.get("floor_s")) + " | " if duck else "",
                secs(b["median_s"]), secs(r["median_s"]), ratio,
                "%.1f×" % (float(r["median_s"]) / floor) if floor else "",
                verdict(c, [g[0][0] for g in got]), name, case))
        print()


def both_runs(names, runs, comps):
    print("Both runs (%s):\n" % ", ".join(names))
    print("| data | rows | work_mem | workers | system | against | run 1 | ratio 1 "
          "| run 2 | ratio 2 | lower | goal (#50) |")
    print("|---" * 12 + "|")
    for c in comps:
        kind, case, ds, rows, wm, workers, system, base = c
        cells, ratios = [], []
        for run in runs:
            m = measure(run, c)
            if m is None:
                cells += ["", ""]
                continue
            ratio, b, r = m
            ratios.append(ratio)
            cells += ["%s, %s" % (secs(b["median_s"]), secs(r["median_s"])), "%.2f×" % ratio]
        print("| %s | %s | %s | %d | %s | %s | %s | %s | %s |" % (
            what(c), rows_label(rows), wm, 0 if system.endswith("serial") else workers, system, base, " | ".join(cells),
            "%.2f×" % min(ratios) if ratios else "", verdict(c, ratios)))


def main():
    args = sys.argv[1:]
    lower_only = "--lower" in args
    args = [a for a in args if a != "--lower"]
    if len(args) != 2:
        sys.exit(__doc__)
    names = [os.path.basename(os.path.normpath(a)) for a in args]
    runs = [load(a) for a in args]
    comps = comparisons(runs)
    pgs = sorted({r["pg"] for run in runs for _, r in run.values() if r.get("pg")})
    print("PostgreSQL %s; the lower-ratio run of %s and %s; medians.\n"
          % (", ".join(pgs) or "?", names[0], names[1]))
    lower_tables(names, runs, comps, pgs[-1] if len(pgs) == 1 else "")
    if not lower_only:
        both_runs(names, runs, comps)


if __name__ == "__main__":
    main()
