#!/usr/bin/env python3
"""CREATE INDEX benchmark: PostgreSQL's btree and sorted GiST builds vs srmsort's.

Runs against an existing cluster (PGHOST/PGPORT/PGUSER/PGDATABASE in the
environment; bench/run_index_bench.sh makes a throwaway one).  For every
data set and maintenance_work_mem it times, side by side and alternating
the systems (A B C A B C ...), a fresh

    CREATE INDEX ON t (k)            (btree data sets)
    CREATE INDEX ON t USING gist (p) (GiST data sets: point, postgis_*)

(dropped again after each run), takes the median of --reps runs after one
untimed warm-up of each system, and records the index size in pages, the
backend's peak resident memory (VmHWM), the floor (the table's scan in one
process, SELECT <the index's columns> FROM t OFFSET 1e12: what every build
reads, without writing an index) and, for srmsort, the facts its
srmsort.trace log line reports (method, runs, passes, nu, temp written).

Systems:
  native         PostgreSQL with max_parallel_maintenance_workers = --workers
                 (default 2): as many workers as PostgreSQL plans for it
                 (each participant needs 32MB: 1 worker at 64MB, 2 at 1GB)
  native_serial  PostgreSQL with max_parallel_maintenance_workers = 0
  srm            srmsort with the same setting, hence the same workers
                 (srmsort.min_input_size = 0 so that it builds even when
                 the sort fits in memory)
  srm_serial     srmsort with max_parallel_maintenance_workers = 0

ratio_same_workers compares srmsort with PostgreSQL at the same setting
(srm with native, srm_serial with native_serial); workers is the number
PostgreSQL planned (from srmsort's trace line: participants less the
leader).

GiST builds are serial in PostgreSQL and in srmsort: bench/run_gist_bench.sh
runs the GiST data sets with native_serial and srm_serial.  The PostGIS data
sets need the postgis extension; where CREATE EXTENSION postgis fails they
are skipped, and index.md says so.

Results go to <out>/index.csv and <out>/index.md.
"""

import argparse
import csv
import os
import re
import statistics
import sys
import time

from bench import DATASETS as BENCH_DATASETS, TEXT_KEYS, md_table, out_path, psql, timed

# coordinates of the GiST data sets: uniform in a square of 1e6
XY = "random() * 1e6 AS x, random() * 1e6 AS y"

DATASETS = {
    # name: (create-table SQL with {rows}, what follows ON <table>, description)
    "int8": (BENCH_DATASETS["int8"][0], "(k)", "random int8 key + int8 payload"),
    "text_c": (TEXT_KEYS, '(k COLLATE "C")', "random text keys of 16-32 characters, collation C"),
    "text_icu": (TEXT_KEYS, '(k COLLATE "en-x-icu")', "the same text keys, ICU en"),
    # keys a normalized key covers only in part (issue #50): a date of
    # 2,500 values, then two numerics or an int4
    "date_numeric": (BENCH_DATASETS["date_numeric"][0], "(d, a, b)",
                     "date of 2,500 values, two numerics + int8 payload"),
    "date_int4": (BENCH_DATASETS["date_int4"][0], "(d, b)",
                  "date of 2,500 values, int4 + int8 payload"),
    # GiST, sorted builds (operator classes with sortsupport)
    "point": ("SELECT point(x, y) AS p, i::int8 AS v FROM (SELECT %s, i "
              "FROM generate_series(1, {rows}) i) s" % XY,
              "USING gist (p)", "random core points (point_ops) + int8 payload"),
    "postgis_point": ("SELECT ST_MakePoint(x, y) AS p, i::int8 AS v FROM (SELECT %s, i "
                      "FROM generate_series(1, {rows}) i) s" % XY,
                      "USING gist (p)", "random PostGIS points (gist_geometry_ops_2d)"),
    # squares of side 1 to 100 turned by a random angle: 5-point polygons
    "postgis_poly": ("SELECT ST_Rotate(ST_MakeEnvelope(x, y, x + w, y + w), a, x, y) AS p, "
                     "i::int8 AS v FROM (SELECT %s, 1 + random() * 99 AS w, "
                     "random() * pi() AS a, i FROM generate_series(1, {rows}) i) s" % XY,
                     "USING gist (p)", "small random PostGIS polygons (turned squares)"),
}

# the extension a data set needs
NEEDS = {"postgis_point": "postgis", "postgis_poly": "postgis"}

SYSTEMS = {
    "native": "SET srmsort.create_index = off; SET max_parallel_maintenance_workers = {workers};",
    "native_serial": "SET srmsort.create_index = off; SET max_parallel_maintenance_workers = 0;",
    "srm": "SET srmsort.create_index = on; SET srmsort.min_input_size = 0;"
           " SET max_parallel_maintenance_workers = {workers};",
    "srm_serial": "SET srmsort.create_index = on; SET srmsort.min_input_size = 0;"
                  " SET max_parallel_maintenance_workers = 0;",
}

# whom each system is compared with at the same worker setting
SAME_WORKERS = {"srm": "native", "srm_serial": "native_serial"}

# the table the text data sets share
TABLE_OF = {"int8": "int8", "text_c": "text", "text_icu": "text", "point": "point",
            "date_numeric": "date_numeric", "date_int4": "date_int4",
            "postgis_point": "postgis_point", "postgis_poly": "postgis_poly"}


def have_extension(ext):
    """Create ext if it can be; whether it is there."""
    _, _ = psql("CREATE EXTENSION IF NOT EXISTS %s" % ext, check=False)
    out, _ = psql("SELECT count(*) FROM pg_extension WHERE extname = '%s'" % ext)
    return out.strip() == "1"


def ensure_table(ds, rows):
    base = TABLE_OF[ds]
    name = "ibench_%s_%d" % (base, rows)
    out, _ = psql("SELECT to_regclass('%s') IS NOT NULL" % name)
    if out.strip() != "t":
        print("  generating %s (%d rows)" % (name, rows), flush=True)
        psql("SELECT setseed(0.42); CREATE TABLE %s AS %s; VACUUM ANALYZE %s;"
             % (name, DATASETS[ds][0].format(rows=rows), name))
    out, _ = psql("SELECT pg_relation_size('%s')" % name)
    return name, int(out.strip())


def build(setup, table, key):
    """Time one CREATE INDEX; returns (ms, peak RSS kB, index pages)."""
    sql = ("%s\n"
           "COPY (SELECT 5) TO '/proc/self/clear_refs';\n"
           "CREATE INDEX ibench_idx ON %s %s;\n"
           "SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s+([0-9]+)');\n"
           "SELECT pg_relation_size('ibench_idx') / 8192;\n"
           "DROP INDEX ibench_idx;\n" % (setup, table, key))
    cmd_out, _ = psql(sql, timing=True)
    # \timing prints after every statement: take the one after the tag
    ms = float(re.search(r"^CREATE INDEX\nTime: ([0-9.]+) ms", cmd_out, re.M).group(1))
    nums = [l for l in cmd_out.splitlines() if l.strip().isdigit()]
    return ms, int(nums[-2]), int(nums[-1])


def trace_facts(setup, table, key):
    """The srmsort.trace facts of one build (from the client's LOG messages)."""
    import subprocess
    sql = ("%s\nSET client_min_messages = log; SET srmsort.trace = on;\n"
           "CREATE INDEX ibench_idx ON %s %s;\nDROP INDEX ibench_idx;\n"
           % (setup, table, key))
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                       input=sql, capture_output=True, text=True)
    # the build's line (participants log their own sorts too)
    m = re.search(r"built index .*\n(?:.*\n)*?DETAIL:\s+(Sort method .*)", p.stderr)
    return m.group(1).strip() if m else ""


def planned_workers(facts):
    """Workers of a build, from srmsort's trace facts (0 if serial): a
    btree's participants, or the workers of a GiST build's picksplit."""
    m = re.search(r"(?:participants \d+ \(|leaf batches divided by )(\d+) worker", facts)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="int8,text_c,text_icu")
    ap.add_argument("--rows", type=int, default=10000000)
    ap.add_argument("--mwm", default="64MB,1GB")
    ap.add_argument("--systems", default="native,native_serial,srm,srm_serial")
    ap.add_argument("--workers", type=int, default=2,
                    help="max_parallel_maintenance_workers of the parallel systems")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tablespaces", default="srm_d0,srm_d1,srm_d2,srm_d3")
    ap.add_argument("--out", default="bench/results")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    if not os.access(args.out, os.W_OK | os.X_OK):
        # say so now, not after the measurements
        sys.exit("bench: cannot write to %s" % args.out)
    systems = args.systems.split(",")
    setups = {s: SYSTEMS[s].format(workers=args.workers) for s in systems}
    results = []
    skipped = []
    for ds in args.datasets.split(","):
        if ds in NEEDS and not have_extension(NEEDS[ds]):
            print("  %s: skipped, extension %s not available" % (ds, NEEDS[ds]), flush=True)
            skipped.append("%s (no %s)" % (ds, NEEDS[ds]))
            continue
        table, nbytes = ensure_table(ds, args.rows)
        key = DATASETS[ds][1]
        # the floor: the table's scan in one process, the index's columns
        # deformed and projected (what every build reads; writing the index
        # is not in it)
        floor_q = "SELECT %s FROM %s OFFSET 1e12" % (key[key.index("(") + 1:key.rindex(")")], table)
        timed("", floor_q)                              # warm the cache
        floor = statistics.median(timed("", floor_q)[0] for _ in range(args.reps))
        for mwm in args.mwm.split(","):
            base = ("SET maintenance_work_mem = '%s'; SET srmsort.tablespaces = '%s'; "
                    "SET temp_tablespaces = %s;" % (mwm, args.tablespaces, args.tablespaces))
            times = {s: [] for s in systems}
            info = {}
            for s in systems:                           # warm-up, untimed
                build(base + setups[s], table, key)
            for _ in range(args.reps):
                for s in systems:                       # A B C A B C ...
                    t, kb, pages = build(base + setups[s], table, key)
                    times[s].append(t)
                    info.setdefault(s, []).append((kb, pages))
            native_med = statistics.median(times["native"]) if "native" in times else None
            serial_med = (statistics.median(times["native_serial"])
                          if "native_serial" in times else None)
            facts = {s: trace_facts(base + setups[s], table, key)
                     for s in systems if s.startswith("srm")}
            workers = planned_workers(facts.get("srm", ""))
            for s in systems:
                med = statistics.median(times[s])
                peer = SAME_WORKERS.get(s)
                row = {
                    "dataset": ds, "rows": args.rows, "table_mb": round(nbytes / 1e6, 1),
                    "maintenance_work_mem": mwm, "system": s,
                    "workers": 0 if s.endswith("serial") else workers,
                    "median_s": round(med / 1000, 3),
                    "min_s": round(min(times[s]) / 1000, 3),
                    "max_s": round(max(times[s]) / 1000, 3),
                    "ratio_to_native": round(native_med / med, 2) if native_med else "",
                    "ratio_to_native_serial": round(serial_med / med, 2) if serial_med else "",
                    "ratio_same_workers": (round(statistics.median(times[peer]) / med, 2)
                                           if peer in times else ""),
                    "floor_s": round(floor / 1000, 3),
                    "index_pages": info[s][-1][1],
                    "index_mb": round(info[s][-1][1] * 8192 / 1e6, 1),
                    "peak_rss_mb": round(max(i[0] for i in info[s]) / 1024, 1),
                    "srmsort_facts": facts.get(s, ""),
                }
                results.append(row)
                print("  %-8s %6s %-13s %d workers, median %7.3fs (min %.3f max %.3f) "
                      "x%s at the same workers, %d pages"
                      % (ds, mwm, s, row["workers"], row["median_s"], row["min_s"],
                         row["max_s"], row["ratio_same_workers"], row["index_pages"]),
                      flush=True)

    with open(out_path(os.path.join(args.out, "index.csv")), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        w.writeheader()
        w.writerows(results)
    with open(out_path(os.path.join(args.out, "index.md")), "w") as f:
        cols = ["dataset", "rows", "table_mb", "maintenance_work_mem", "system", "workers",
                "median_s", "min_s", "max_s", "ratio_same_workers", "ratio_to_native",
                "ratio_to_native_serial", "floor_s", "index_pages", "index_mb", "peak_rss_mb"]
        f.write("CREATE INDEX, measured %s on %s (%d cores); median of %d, systems alternated.\n\n"
                % (time.strftime("%Y-%m-%d %H:%M"), os.uname().nodename,
                   os.cpu_count(), args.reps))
        md_table(f, cols, results)
        if skipped:
            f.write("\nSkipped: %s.\n" % ", ".join(skipped))
        f.write("\nsrmsort's sort facts (srmsort.trace):\n\n")
        for r in results:
            if r["srmsort_facts"]:
                f.write("- %s, %s, %s: %s\n" % (r["dataset"], r["maintenance_work_mem"],
                                                r["system"], r["srmsort_facts"]))


if __name__ == "__main__":
    main()
