#!/usr/bin/env python3
"""srmsort benchmark driver: native PostgreSQL sort vs srmsort (SRM, DSM).

Runs against an existing cluster (PGHOST/PGPORT/PGUSER/PGDATABASE in the
environment; bench/run_bench.sh makes a throwaway one).  For every data set,
size and work_mem it measures, side by side and alternating the systems
(A B C, B C A, C A B, ...), the wall time of a query that sorts every row and returns
none:

    SELECT * FROM t ORDER BY <key> OFFSET 1e12

(no LIMIT, so no top-N sort), takes the median of --reps runs after one
untimed warm-up, and records the floor (the same query without ORDER BY),
the sort facts from EXPLAIN (ANALYZE, TIMING OFF) and the backend's peak
resident memory (VmHWM, reset before each run through /proc/self/clear_refs).
Serial plans by default; --workers N allows N workers per Gather
(max_parallel_workers_per_gather), so the sorts run in the workers under a
Gather Merge, srmsort's and PostgreSQL's alike.

The system "duckdb" (where the duckdb Python module is importable) runs the
same query in DuckDB on one thread (--workers N: N threads) with memory_limit = work_mem and
preserve_insertion_order, over a copy of the table loaded once into a
DuckDB database file in a temporary directory; int8 and text data sets only.
Its floor is its own: the query without ORDER BY in DuckDB.

Results go to <out>/results.csv and <out>/results.md; with matplotlib
installed, also <out>/time_vs_rows.png.
"""

import argparse
import csv
import json
import os
import re
import statistics
import shutil
import subprocess
import sys
import tempfile
import time


def out_path(path):
    """path, made writable: a file left by another user (a git checkout as
    root, the benchmark running as the cluster's owner) is replaced, which
    the results directory's mode allows."""
    if os.path.exists(path) and not os.access(path, os.W_OK):
        os.remove(path)
    return path


# the text data sets: the same generator and seed, hence the same rows (in a
# table each), under different collations
TEXT_KEYS = ("SELECT substr(md5(random()::text) || md5(random()::text), 1, 16 + (random() * 16)::int) AS k "
             "FROM generate_series(1, {rows}) i")

DATASETS = {
    # name: (create-table SQL with {rows}, sort key, description)
    "int8": ("SELECT (random() * 9e18)::int8 AS k, i::int8 AS v "
             "FROM generate_series(1, {rows}) i",
             "k", "int8 key + int8 payload"),
    # keys from a small range (a million values, ~20 bits): what the radix
    # sort's skipping of shared high bits is worth
    "int8_range": ("SELECT (random() * 1e6)::int8 AS k, i::int8 AS v "
                   "FROM generate_series(1, {rows}) i",
                   "k", "int8 key in [0, 1e6] + int8 payload"),
    "records": ("SELECT decode(substr(md5(random()::text) || md5(random()::text), 1, 20), 'hex') AS k, "
                "repeat(substr(md5(i::text), 1, 30), 3) AS v "
                "FROM generate_series(1, {rows}) i",
                "k", "10-byte random key + 90-byte payload"),
    # a key with no normalized form: merges compare through the opclass
    "interval": ("SELECT make_interval(secs => random() * 1e9) AS k, i::int8 AS v "
                 "FROM generate_series(1, {rows}) i",
                 "k", "interval key (no normalized form) + int8 payload"),
    # shapes PostgreSQL's sort must never beat: a descending key, NULL keys,
    # a second key deciding most of the order, many columns to deform, wide
    # rows, values stored out of line (the sort moves their TOAST pointers)
    "int8_desc": ("SELECT (random() * 9e18)::int8 AS k, i::int8 AS v "
                  "FROM generate_series(1, {rows}) i",
                  "k DESC", "int8 key descending + int8 payload"),
    "int8_nulls": ("SELECT CASE WHEN random() < 0.2 THEN NULL ELSE (random() * 9e18)::int8 END AS k, "
                   "i::int8 AS v FROM generate_series(1, {rows}) i",
                   "k NULLS FIRST", "int8 key, 20% NULL, NULLS FIRST + int8 payload"),
    "multikey": ("SELECT (random() * 1000)::int4 AS a, (random() * 9e18)::int8 AS b, i::int8 AS v "
                 "FROM generate_series(1, {rows}) i",
                 "a, b", "int4 key of 1000 values, then an int8 key + int8 payload"),
    # two keys whose first has 32 bits or fewer (issue #47): the second
    # shares the normalized key, whole (int4, date) or summarized (int8)
    "multikey_int4": ("SELECT (random() * 1000)::int4 AS a, (random() * 4e9 - 2e9)::int4 AS b, "
                      "i::int8 AS v FROM generate_series(1, {rows}) i",
                      "a, b", "int4 key of 1000 values, then an int4 key + int8 payload"),
    "multikey_date": ("SELECT (random() * 1000)::int4 AS a, "
                      "DATE '2000-01-01' + (random() * 20000)::int AS b, "
                      "i::int8 AS v FROM generate_series(1, {rows}) i",
                      "a, b", "int4 key of 1000 values, then a date key + int8 payload"),
    "multikey_date_int8": ("SELECT DATE '2020-01-01' + (random() * 1000)::int AS a, "
                           "(random() * 1e6)::int8 AS b, "
                           "i::int8 AS v FROM generate_series(1, {rows}) i",
                           "a, b", "date key of 1000 values, then an int8 key in [0, 1e6] + int8 payload"),
    # keys a normalized key covers only in part (issue #50): a date of 2,500
    # values (4,000 rows each), then numeric keys, which have no normalized
    # form (PostgreSQL has abbreviated keys for them), or an int4
    "date_numeric": ("SELECT DATE '2020-01-01' + floor(random() * 2500)::int AS d, "
                     "round((random() * 1e5)::numeric, 2) AS a, "
                     "round((random() * 100)::numeric, 4) AS b, "
                     "i::int8 AS v FROM generate_series(1, {rows}) i",
                     "d, a, b", "date key of 2,500 values, then two numeric keys + int8 payload"),
    "date_int4": ("SELECT DATE '2020-01-01' + floor(random() * 2500)::int AS d, "
                  "(random() * 4e9 - 2e9)::int4 AS b, "
                  "i::int8 AS v FROM generate_series(1, {rows}) i",
                  "d, b", "date key of 2,500 values, then an int4 key + int8 payload"),
    "many_cols": ("SELECT (random() * 9e18)::int8 AS k, "
                  + ", ".join("(i + %d)::int4 AS c%d" % (n, n) for n in range(1, 21))
                  + " FROM generate_series(1, {rows}) i",
                  "k", "int8 key + 20 int4 columns"),
    "wide": ("SELECT (random() * 9e18)::int8 AS k, repeat(md5(i::text), 16) AS v "
             "FROM generate_series(1, {rows}) i",
             "k", "int8 key + 512-byte text payload"),
    "toast": ("SELECT (random() * 9e18)::int8 AS k, "
              "(SELECT string_agg(md5(random()::text || g), '') FROM generate_series(1, 70 + 0 * i) g) AS v "
              "FROM generate_series(1, {rows}) i",
              "k", "int8 key + 2240-byte random text payload, stored out of line (TOAST)"),
    "text_c": (TEXT_KEYS, 'k COLLATE "C"', "random text keys of 16-32 characters, collation C"),
    "text_cutf8": (TEXT_KEYS, 'k COLLATE "C.utf8"',
                   "random text keys of 16-32 characters, libc C.UTF-8"),
    "text_icu": (TEXT_KEYS, 'k COLLATE "en-x-icu"', "random text keys of 16-32 characters, ICU en"),
}

SYSTEMS = {
    "native": "SET srmsort.enabled = off;",
    "srm": "SET srmsort.enabled = on; SET srmsort.merge_strategy = srm;",
    "dsm": "SET srmsort.enabled = on; SET srmsort.merge_strategy = dsm;",
    # srmsort at any budget, also below srmsort.min_work_mem
    "srm_any": "SET srmsort.enabled = on; SET srmsort.merge_strategy = srm;"
               " SET srmsort.min_work_mem = '64kB';",
    # srmsort in one process even with --workers: its own serial time
    "srm_serial": "SET srmsort.enabled = on; SET srmsort.merge_strategy = srm;"
                  " SET max_parallel_workers_per_gather = 0;",
}


# data sets DuckDB can load from PostgreSQL's text output: column types
DUCKDB_TYPES = {"int8": "k BIGINT, v BIGINT", "int8_range": "k BIGINT, v BIGINT",
                "text_c": "k VARCHAR"}


class DuckDB:
    """DuckDB on one thread, its tables copied once from PostgreSQL (through a
    CSV file) into a database file of its own; its sort key for text is
    DuckDB's binary order, as PostgreSQL's "C" collation."""

    def __init__(self):
        import duckdb
        self.version = duckdb.__version__
        self.dir = tempfile.mkdtemp(prefix="srmsort-duckdb-")
        self.con = duckdb.connect(os.path.join(self.dir, "bench.duckdb"))
        # one thread, or as many as PostgreSQL may have workers (--workers)
        self.con.execute("SET threads = %d" % max(GATHER_WORKERS, 1))
        self.con.execute("SET preserve_insertion_order = true")
        self.con.execute("SET temp_directory = '%s'" % os.path.join(self.dir, "tmp"))
        self.loaded = set()

    def load(self, ds, table):
        if table in self.loaded:
            return
        csvf = os.path.join(self.dir, "load.csv")
        cols = ", ".join(c.split()[0] for c in DUCKDB_TYPES[ds].split(", "))
        subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-c",
                        "\\copy (SELECT %s FROM %s) TO '%s' CSV" % (cols, table, csvf)],
                       check=True, capture_output=True)
        self.con.execute("SET memory_limit = '4GB'")
        self.con.execute("CREATE TABLE %s (%s)" % (table, DUCKDB_TYPES[ds]))
        self.con.execute("COPY %s FROM '%s' (FORMAT csv)" % (table, csvf))
        os.remove(csvf)
        self.loaded.add(table)

    def floor(self, table, reps):
        """Median wall time (ms) of the query without ORDER BY, after one
        untimed run: DuckDB's own floor."""
        self.con.execute("SET memory_limit = '4GB'")
        times = []
        for _ in range(reps + 1):
            t0 = time.monotonic()
            self.con.execute("SELECT * FROM %s OFFSET 1000000000000" % table).fetchall()
            times.append((time.monotonic() - t0) * 1000)
        return statistics.median(times[1:])

    def timed(self, table, work_mem):
        """Wall time (ms) of the benchmark's query, or None if DuckDB fails
        (too small a memory_limit)."""
        self.con.execute("SET memory_limit = '%s'" % work_mem.replace("kB", "KB"))
        t0 = time.monotonic()
        try:
            self.con.execute("SELECT * FROM %s ORDER BY k OFFSET 1000000000000" % table).fetchall()
        except Exception as e:              # duckdb.OutOfMemoryException and the like
            print("  duckdb: %s" % str(e).splitlines()[0], file=sys.stderr)
            return None
        return (time.monotonic() - t0) * 1000

    def close(self):
        self.con.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def md_table(f, cols, rows):
    """Write rows (dicts) as a Markdown table of the columns cols to f."""
    f.write("| " + " | ".join(cols) + " |\n")
    f.write("|" + "---|" * len(cols) + "\n")
    for r in rows:
        f.write("| " + " | ".join(str(r[c]) for c in cols) + " |\n")


def psql(sql, timing=False, check=True):
    """Run sql in a fresh psql session; return (stdout, elapsed ms or None)."""
    cmd = ["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"]
    if timing:
        sql = "\\timing on\n" + sql
    p = subprocess.run(cmd, input=sql, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("psql failed: %s\n%s" % (sql[:200], p.stderr))
    ms = None
    if timing:
        times = re.findall(r"Time: ([0-9.]+) ms", p.stdout)
        ms = float(times[-2]) if len(times) >= 2 else None
    return p.stdout, ms


def ensure_table(ds, rows):
    name = "bench_%s_%d" % (ds, rows)
    out, _ = psql("SELECT to_regclass('%s') IS NOT NULL" % name)
    if out.strip() != "t":
        print("  generating %s (%d rows)" % (name, rows), flush=True)
        psql("SELECT setseed(0.42); CREATE TABLE %s AS %s; VACUUM ANALYZE %s;"
             % (name, DATASETS[ds][0].format(rows=rows), name))
    out, _ = psql("SELECT pg_total_relation_size('%s')" % name)
    return name, int(out.strip())


# max_parallel_workers_per_gather of the measured queries (--workers)
GATHER_WORKERS = 0


def timed(setup, query):
    """Wall time of query (ms) and the backend's peak RSS (kB)."""
    sql = ("SET max_parallel_workers_per_gather = %d;\n%s\n"
           "COPY (SELECT 5) TO '/proc/self/clear_refs';\n"
           "%s;\n"
           "SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s+([0-9]+)');\n"
           % (GATHER_WORKERS, setup, query))
    out, ms = psql(sql, timing=True)
    lines = [l for l in out.splitlines() if l.strip().isdigit()]
    return ms, int(lines[-1]) if lines else None


def explain_facts(setup, query):
    """The sort node's EXPLAIN ANALYZE facts, plus "Temp Written Blocks"
    (BUFFERS: the 8kB temp blocks written, the same measure for every
    system)."""
    sql = ("SET max_parallel_workers_per_gather = %d;\n%s\n"
           "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF, FORMAT JSON) %s;"
           % (GATHER_WORKERS, setup, query))
    out, _ = psql(sql)
    plan = json.loads(out[out.index("["):])
    facts = {}

    def walk(node):
        if node.get("Node Type") == "Sort" or node.get("Custom Plan Provider") == "SRMSort":
            for k, v in node.items():
                if k not in ("Plans", "Output") and not isinstance(v, (list, dict)):
                    facts.setdefault(k, v)
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    return facts


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="int8,records,text_c,text_cutf8,text_icu")
    ap.add_argument("--rows", default="1000000,5000000")
    ap.add_argument("--work-mem", default="4MB,64MB,1GB")
    ap.add_argument("--systems", default="native,srm,dsm",
                    help="among native, srm, dsm, srm_any, srm_serial and duckdb")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tablespaces", default="",
                    help="srmsort.tablespaces (and temp_tablespaces for native)")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--workers", type=int, default=0,
                    help="max_parallel_workers_per_gather (0: serial plans)")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the plot from <out>/results.csv")
    args = ap.parse_args()
    if args.replot:
        replot(args.out)
        return
    global GATHER_WORKERS
    GATHER_WORKERS = args.workers

    os.makedirs(args.out, exist_ok=True)
    if not os.access(args.out, os.W_OK | os.X_OK):
        # say so now, not after the measurements
        sys.exit("bench: cannot write to %s" % args.out)
    systems = args.systems.split(",")
    duck = None
    if "duckdb" in systems:
        try:
            duck = DuckDB()
        except ImportError:
            print("bench: the duckdb module is not installed: no duckdb", file=sys.stderr)
            systems.remove("duckdb")
    rows_list = [int(r) for r in args.rows.split(",")]
    results = []
    pg = psql("SHOW server_version")[0].strip().split()[0]
    for ds in args.datasets.split(","):
        for rows in rows_list:
            table, nbytes = ensure_table(ds, rows)
            ds_systems = [x for x in systems if x != "duckdb" or ds in DUCKDB_TYPES]
            duck_floor = None
            if duck and "duckdb" in ds_systems:
                duck.load(ds, table)
                duck_floor = duck.floor(table, args.reps)
            key = DATASETS[ds][1]
            query = "SELECT * FROM %s ORDER BY %s OFFSET 1e12" % (table, key)
            floor_q = "SELECT * FROM %s OFFSET 1e12" % table
            timed("", floor_q)                          # warm the cache
            floor = statistics.median(timed("", floor_q)[0] for _ in range(args.reps))
            for wm in args.work_mem.split(","):
                base = "SET work_mem = '%s';" % wm
                if args.tablespaces:
                    base += " SET srmsort.tablespaces = '%s'; SET temp_tablespaces = %s;" % (
                        args.tablespaces, args.tablespaces)
                times = {s: [] for s in ds_systems}
                rss = {s: [] for s in ds_systems}

                def run(s):
                    if s == "duckdb":
                        return duck.timed(table, wm), None
                    return timed(base + SYSTEMS[s], query)

                for s in ds_systems:                    # warm-up, untimed
                    run(s)
                for rep in range(args.reps):
                    # A B C, B C A, C A B, ...: the run right after another
                    # system's sort was measured slower (its temp files'
                    # page cache being reclaimed), so every system takes
                    # every position in turn
                    k = rep % len(ds_systems)
                    for s in ds_systems[k:] + ds_systems[:k]:
                        ms, kb = run(s)
                        if ms is not None:
                            times[s].append(ms)
                        rss[s].append(kb)
                native_med = statistics.median(times["native"]) if times.get("native") else None
                for s in ds_systems:
                    if not times[s]:
                        continue
                    med = statistics.median(times[s])
                    facts = explain_facts(base + SYSTEMS[s], query) if s != "duckdb" else {}
                    row = {
                        "pg": pg, "dataset": ds, "rows": rows,
                        "table_mb": round(nbytes / 1e6, 1),
                        "work_mem": wm, "system": s, "workers": GATHER_WORKERS,
                        "median_s": round(med / 1000, 3),
                        "min_s": round(min(times[s]) / 1000, 3),
                        "max_s": round(max(times[s]) / 1000, 3),
                        "rows_per_s": int(rows / (med / 1000)),
                        "mb_per_s": round(nbytes / 1e6 / (med / 1000), 1),
                        "ratio_to_native": round(native_med / med, 2) if native_med else "",
                        # the same query without ORDER BY on the same
                        # system: DuckDB's own for duckdb
                        "floor_s": round((duck_floor if s == "duckdb" else floor) / 1000, 3),
                        "peak_rss_mb": round(max(r for r in rss[s] if r) / 1024, 1) if any(rss[s]) else "",
                        "sort_method": facts.get("Sort Method", ""),
                        "space_kb": facts.get("Sort Space Used", ""),
                        "runs": facts.get("Runs", ""),
                        "merge_order": facts.get("Merge Order", ""),
                        "passes": facts.get("Passes", ""),
                        "nu": facts.get("Nu", ""),
                        "stalls": facts.get("Stalls", ""),
                        "peak_temp_kb": facts.get("Peak Temp", ""),
                        "temp_written_kb": (facts["Temp Written Blocks"] * 8
                                            if facts.get("Temp Written Blocks") else ""),
                        "mem_peak_kb": facts.get("Memory Peak", ""),
                    }
                    results.append(row)
                    print("  pg%s %-8s %9d rows %6s %-6s median %7.3fs (min %.3f max %.3f) x%s  %s"
                          % (pg, ds, rows, wm, s, row["median_s"], row["min_s"], row["max_s"],
                             row["ratio_to_native"], row["sort_method"]), flush=True)

    with open(out_path(os.path.join(args.out, "results.csv")), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        w.writeheader()
        w.writerows(results)
    with open(out_path(os.path.join(args.out, "results.md")), "w") as f:
        cols = ["pg", "dataset", "rows", "table_mb", "work_mem", "system", "workers",
                "median_s", "min_s",
                "max_s", "ratio_to_native", "floor_s", "rows_per_s", "mb_per_s",
                "peak_rss_mb", "sort_method", "runs", "merge_order", "passes", "nu",
                "stalls", "space_kb", "peak_temp_kb", "temp_written_kb"]
        f.write("Measured %s on %s (%d cores); median of %d, systems alternated%s.\n\n"
                % (time.strftime("%Y-%m-%d %H:%M"), os.uname().nodename,
                   os.cpu_count(), args.reps,
                   "; DuckDB %s" % duck.version if duck else ""))
        md_table(f, cols, results)
    if duck:
        f_note = "DuckDB %s" % duck.version
        duck.close()
        print("  duckdb: %s" % f_note)
    plot(results, args.out)


def plot(results, out):
    """time vs rows, one panel per work_mem: a colour per data set, a line
    style per system (solid native, dashed srm, dotted dsm)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return
    wms = list(dict.fromkeys(r["work_mem"] for r in results))
    datasets = list(dict.fromkeys(r["dataset"] for r in results))
    systems = list(dict.fromkeys(r["system"] for r in results))
    styles = {"native": "-", "srm": "--", "dsm": ":", "srm_any": "--", "duckdb": "-."}
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, axes = plt.subplots(1, len(wms), figsize=(5 * len(wms), 4.2), squeeze=False)
    for ax, wm in zip(axes[0], wms):
        for i, ds in enumerate(datasets):
            for s in systems:
                pts = sorted((int(r["rows"]), float(r["median_s"])) for r in results
                             if r["work_mem"] == wm and r["system"] == s and r["dataset"] == ds)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                            linestyle=styles.get(s, "-."), color=colours[i % len(colours)],
                            label="%s %s" % (ds, s))
        ax.set_title("work_mem %s" % wm)
        ax.set_xlabel("rows")
        ax.set_ylabel("seconds (median)")
        ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(out_path(os.path.join(out, "time_vs_rows.png")), dpi=100)


def replot(out):
    with open(os.path.join(out, "results.csv")) as f:
        plot(list(csv.DictReader(f)), out)


if __name__ == "__main__":
    main()
