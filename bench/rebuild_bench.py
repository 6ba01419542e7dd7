#!/usr/bin/env python3
"""Rebuild benchmark: CREATE INDEX CONCURRENTLY, CLUSTER and REINDEX TABLE
with PostgreSQL's builds and sort vs srmsort's.

Runs against an existing cluster (PGHOST/PGPORT/PGUSER/PGDATABASE in the
environment; bench/run_rebuild_bench.sh makes a throwaway one).  One table
of --rows rows of (k int8, v int8), both random, with three btree indexes
(k), (v) and (k, v).  For every maintenance_work_mem it times, side by side
and alternating the systems (A B A B ...), after one untimed warm-up of
each:

  reindex   REINDEX TABLE t: its three indexes
  cic       CREATE INDEX CONCURRENTLY ON t (k) (dropped again, untimed)
  cluster   CLUSTER t USING the index on k, or on v: always the one the
            table is not in the order of (a random order for the index
            used); then rebuilds the three indexes.  PostgreSQL sorts the
            table when its planner finds a sequential scan and a sort
            cheaper than an index scan, which it does for a table larger
            than effective_cache_size: --effective-cache-size (default
            1GB, below the 2.2GB of 50M rows) stands for a table larger
            than the cache; with PostgreSQL's default of 4GB it scans
            the index (see the trace lines: "clustering ... using ...")

in that order (CLUSTER leaves the table in the order of an index, and
PostgreSQL's sort of an input already in order is much faster: the
index rebuilds after CLUSTER have such inputs, REINDEX and CREATE INDEX
CONCURRENTLY before it do not), and takes the median of --reps runs.

Systems (max_parallel_maintenance_workers = --workers for both, PostgreSQL's
default 2: as many workers as PostgreSQL plans for each build -- one at
64MB):
  native    srmsort.create_index and srmsort.cluster off
  srm       both on (srmsort.min_input_size = 0)

After the timed runs, one more run of each system samples PostgreSQL's
progress view (pg_stat_progress_create_index, pg_stat_progress_cluster)
from another session and reports the time per phase: for CREATE INDEX
CONCURRENTLY, how much is the build srmsort takes and how much the
validation (index scan, TID sort, heap scan) that stays PostgreSQL's
(--no-phases skips it).

Results go to <out>/rebuild.csv and <out>/rebuild.md.
"""

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import time

from bench import md_table, out_path, psql

SYSTEMS = {
    "native": "SET srmsort.create_index = off; SET srmsort.cluster = off;",
    "srm": "SET srmsort.create_index = on; SET srmsort.cluster = on;"
           " SET srmsort.min_input_size = 0;",
}

# REINDEX and CREATE INDEX CONCURRENTLY first, while the table is in no
# index's order; CLUSTER last, as it leaves the table in an index's order
# (PostgreSQL's sort of an already sorted input is much faster)
OPERATIONS = ["reindex", "cic", "cluster"]


def ensure_table(rows):
    """The table with its three indexes (built once, by srmsort)."""
    name = "rbench_%d" % rows
    out, _ = psql("SELECT to_regclass('%s') IS NOT NULL" % name)
    if out.strip() != "t":
        print("  generating %s (%d rows)" % (name, rows), flush=True)
        psql("SELECT setseed(0.36);\n"
             "CREATE TABLE %s AS SELECT (random() * 9e18)::int8 AS k,"
             " (random() * 9e18)::int8 AS v FROM generate_series(1, %d) i;\n"
             "SET maintenance_work_mem = '1GB';\n"
             "CREATE INDEX %s_k ON %s (k);\n"
             "CREATE INDEX %s_v ON %s (v);\n"
             "CREATE INDEX %s_kv ON %s (k, v);\n"
             "VACUUM ANALYZE %s;\n" % (name, rows, name, name, name, name, name, name, name))
    out, _ = psql("SELECT pg_relation_size('%s')" % name)
    return name, int(out.strip())


class Table:
    """The table, and which index it was last clustered on."""

    def __init__(self, name):
        self.name = name
        self.order = None

    def statement(self, op):
        """The timed statement of op, and the untimed one after it."""
        if op == "cic":
            return ("CREATE INDEX CONCURRENTLY rbench_cic ON %s (k);" % self.name,
                    "DROP INDEX rbench_cic;")
        if op == "cluster":
            # the index the table is not in the order of: PostgreSQL sorts
            self.order = "v" if self.order == "k" else "k"
            return ("CLUSTER %s USING %s_%s;" % (self.name, self.name, self.order),
                    "ANALYZE %s;" % self.name)
        return ("REINDEX TABLE %s;" % self.name, "")


def run(setup, table, op):
    """Time one operation; returns ms."""
    stmt, after = table.statement(op)
    out, _ = psql("%s\n\\timing on\n%s\n\\timing off\n%s\n" % (setup, stmt, after))
    return float(re.search(r"^Time: ([0-9.]+) ms", out, re.M).group(1))


def trace_facts(setup, table, op):
    """The srmsort.trace lines of one run (its builds and CLUSTER's sort)."""
    stmt, after = table.statement(op)
    sql = ("%s\nSET client_min_messages = log; SET srmsort.trace = on;\n%s\n%s\n"
           % (setup, stmt.replace("CLUSTER ", "CLUSTER VERBOSE "), after))
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                       input=sql, capture_output=True, text=True)
    lines = re.findall(r"srmsort: (?:built index|sorted table) .*|clustering .*", p.stderr)
    return "; ".join(l.strip() for l in lines)


def phases(setup, table, op):
    """One more run of op, its time per phase of PostgreSQL's progress view
    (pg_stat_progress_create_index, or _cluster for CLUSTER), sampled every
    0.1 s from another session: where the statement's time goes."""
    stmt, after = table.statement(op)
    view = "pg_stat_progress_cluster" if op == "cluster" else "pg_stat_progress_create_index"
    p = subprocess.Popen(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    p.stdin.write("%s\nSELECT pg_sleep(0.2);\n%s\n" % (setup, stmt))
    p.stdin.close()
    spent = {}
    last = time.time()
    start = last
    while p.poll() is None:
        out, _ = psql("SELECT phase FROM %s WHERE pid <> pg_backend_pid() LIMIT 1" % view)
        now = time.time()
        ph = out.strip() or "(outside the view)"
        spent[ph] = spent.get(ph, 0.0) + (now - last)
        last = now
        time.sleep(0.1)
    total = time.time() - start
    if p.returncode != 0:
        raise RuntimeError("psql failed: %s\n%s" % (stmt, p.stderr.read()))
    if after:
        psql(after)
    return "; ".join("%s %.1f s" % (k, v) for k, v in spent.items()) + " (of %.1f s)" % total


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=50000000)
    ap.add_argument("--mwm", default="64MB")
    ap.add_argument("--ops", default=",".join(OPERATIONS))
    ap.add_argument("--systems", default="native,srm")
    ap.add_argument("--workers", type=int, default=2,
                    help="max_parallel_maintenance_workers of both systems")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--effective-cache-size", default="1GB")
    ap.add_argument("--tablespaces", default="srm_d0,srm_d1,srm_d2,srm_d3")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--no-phases", action="store_true",
                    help="skip the extra run per system that times the progress view's phases")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    if not os.access(args.out, os.W_OK | os.X_OK):
        sys.exit("bench: cannot write to %s" % args.out)
    systems = args.systems.split(",")
    name, nbytes = ensure_table(args.rows)
    table = Table(name)
    results = []
    started = time.strftime("%Y-%m-%d %H:%M")
    for mwm in args.mwm.split(","):
        base = ("SET maintenance_work_mem = '%s'; SET max_parallel_maintenance_workers = %d;"
                " SET effective_cache_size = '%s';"
                " SET srmsort.tablespaces = '%s'; SET temp_tablespaces = %s;"
                % (mwm, args.workers, args.effective_cache_size, args.tablespaces,
                   args.tablespaces))
        for op in args.ops.split(","):
            times = {s: [] for s in systems}
            for s in systems:                           # warm-up, untimed
                run(base + SYSTEMS[s], table, op)
            for _ in range(args.reps):
                for s in systems:                       # A B A B ...
                    times[s].append(run(base + SYSTEMS[s], table, op))
            facts = trace_facts(base + SYSTEMS["srm"], table, op) if "srm" in systems else ""
            spent = {} if args.no_phases else {s: phases(base + SYSTEMS[s], table, op)
                                               for s in systems}
            native_med = statistics.median(times["native"]) if "native" in times else None
            for s in systems:
                med = statistics.median(times[s])
                row = {
                    "operation": op, "rows": args.rows, "table_mb": round(nbytes / 1e6, 1),
                    "maintenance_work_mem": mwm, "workers": args.workers, "system": s,
                    "median_s": round(med / 1000, 3),
                    "min_s": round(min(times[s]) / 1000, 3),
                    "max_s": round(max(times[s]) / 1000, 3),
                    "runs_s": " ".join("%.1f" % (t / 1000) for t in times[s]),
                    "ratio_to_native": round(native_med / med, 2) if native_med else "",
                    "srmsort_facts": facts if s == "srm" else "",
                    "phases": spent.get(s, ""),
                }
                results.append(row)
                print("  %-8s %6s %-7s median %8.3fs (min %.3f max %.3f) x%s"
                      % (op, mwm, s, row["median_s"], row["min_s"], row["max_s"],
                         row["ratio_to_native"]), flush=True)

    with open(out_path(os.path.join(args.out, "rebuild.csv")), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        w.writeheader()
        w.writerows(results)
    with open(out_path(os.path.join(args.out, "rebuild.md")), "w") as f:
        cols = ["operation", "rows", "table_mb", "maintenance_work_mem", "workers", "system",
                "median_s", "min_s", "max_s", "runs_s", "ratio_to_native"]
        f.write("CREATE INDEX CONCURRENTLY, CLUSTER, REINDEX TABLE (three indexes), "
                "measured %s to %s on %s (%d cores); median of %d, systems alternated; "
                "effective_cache_size %s.\n\n"
                % (started, time.strftime("%H:%M"), os.uname().nodename,
                   os.cpu_count(), args.reps, args.effective_cache_size))
        md_table(f, cols, results)
        f.write("\nsrmsort's trace lines (one more run of each, srmsort.trace):\n\n")
        for r in results:
            if r["srmsort_facts"]:
                f.write("- %s, %s: %s\n" % (r["operation"], r["maintenance_work_mem"],
                                            r["srmsort_facts"]))
        if any(r["phases"] for r in results):
            f.write("\nTime per phase of PostgreSQL's progress view (one more run of each, "
                    "sampled every 0.1 s; the first 0.2 s are the session's pause before "
                    "the statement):\n\n")
            for r in results:
                if r["phases"]:
                    f.write("- %s, %s, %s: %s\n" % (r["operation"], r["maintenance_work_mem"],
                                                   r["system"], r["phases"]))


if __name__ == "__main__":
    main()
