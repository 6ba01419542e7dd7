#!/usr/bin/env python3
"""Sorts larger than memory on D emulated disks: the driver of
bench/disk_bound.sh (which sets up the disks, the memory cgroup and the
cluster, and says how; read its header first).

For every D of --disks it runs each system --reps times, alternated and
rotated (A B C, B C A, C A B, ...), each run after the emulated disks'
files and the server cgroup's page cache were dropped, and records:

  seconds       wall time of the statement (EXPLAIN ANALYZE's execution
                time for ORDER BY, psql's for CREATE INDEX)
  per disk      bytes read and written by the disk's loop device during
                the run (/sys/block/loopN/stat), and its busy share: the
                time its cap needs for those bytes over the run's time,
                (read + written) / cap / seconds (the emulation gives reads
                and writes separate budgets, so up to 2 is possible; a
                real disk shares one budget, which is what the figure
                charges)
  floor         the I/O floor: the workfile bytes srmsort's SRM sort wrote
                and read (its own count, the least of its runs), spread
                evenly over the D disks at their caps: the time no sort
                that writes and reads its data once more can beat
  memory        the cgroup's peak usage (memory.max_usage_in_bytes, reset
                before the run) and how often it hit its limit (failcnt)
  sort facts    from EXPLAIN (ANALYZE, FORMAT JSON) (ORDER BY) or the
                build's DEBUG1 facts (CREATE INDEX): method, runs, merge
                order, passes, nu, stalls, workfile bytes

Runs as root (cgroup files, device counters, disks.sh dropcache); psql
runs as the cluster's owner.  Writes <out>/disk_bound.csv, <out>/results.md
and <out>/seconds_vs_disks.png (matplotlib).
"""

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time

# a system's suffixes: its settings, its description
SUFFIXES = {
    "buf": ("SET srmsort.direct_io = off;", "buffered"),
    "direct": ("SET srmsort.direct_io = on;", "O_DIRECT"),
    "rr": ("SET srmsort.disk_weights = equal;", "round-robin striping (equal weights)"),
    "full": ("SET srmsort.disk_weights = equal;", "every disk at full speed"),
    "mem": ("", "disks uncapped, no memory bound (CPU-bound time)"),
}


def system(name):
    """The settings and the description of a system: native (PostgreSQL's
    sort, temp_tablespaces over the D disks), or srm / dsm (srmsort's SRM
    or DSM merge over the D disks) with any of the suffixes _buf / _direct
    (srmsort.direct_io off / on; none: its default, off), _rr (round-robin
    striping: srmsort.disk_weights = equal; none: its default, measured
    weights), _full (every disk at --mbps whatever --caps says, with equal
    weights: what weighted disks are compared with, in the same run) and
    _mem (the disks uncapped, the memory bound lifted, after a warm-up: the
    sort's CPU-bound time, "the in-memory time" of the goals).  None if the
    name is not one of these."""
    parts = name.split("_")
    if name == "native":
        return ("SET srmsort.enabled = off; SET temp_tablespaces = {list};",
                "PostgreSQL's sort, temp_tablespaces over the D disks")
    if parts[0] not in ("srm", "dsm") or len(set(parts[1:])) != len(parts) - 1:
        return None
    sets = ["SET srmsort.tablespaces = '{list}';"]
    desc = ["srmsort, %s merge" % parts[0].upper()]
    if parts[0] == "dsm":
        sets.append("SET srmsort.merge_strategy = dsm;")
    for suffix in parts[1:]:
        if suffix not in SUFFIXES:
            return None
        if SUFFIXES[suffix][0]:
            sets.append(SUFFIXES[suffix][0])
        desc.append(SUFFIXES[suffix][1])
    if not any(x in parts for x in ("buf", "direct")):
        desc.append("default I/O mode")
    return (" ".join(sets), ", ".join(desc))


PALETTE = {"native": "tab:red", "srm": "tab:blue", "srm_buf": "tab:blue",
           "srm_direct": "tab:cyan", "dsm_buf": "tab:green", "dsm_direct": "tab:olive",
           "dsm": "tab:green", "srm_rr": "tab:purple", "srm_mem": "tab:grey"}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


class Bench:
    def __init__(self, a):
        self.a = a
        self.cg = a.cgroup
        self.disks = self.read_state()
        self.caps = [int(x) for x in a.caps.split(",")] if a.caps else None

    # ---- the environment ----

    def read_state(self):
        """The loop device of each emulated disk, from disks.sh's state."""
        disks = {}
        with open(os.path.join(os.environ["SRMDISKS_ROOT"], ".state")) as f:
            for line in f:
                p = line.split()
                if p[0] == "disk":
                    disks[int(p[1])] = os.path.basename(p[3])
        return [disks[i] for i in sorted(disks)]

    def dev_bytes(self):
        """(read, written) bytes of every disk's loop device so far."""
        out = []
        for loop in self.disks:
            with open("/sys/block/%s/stat" % loop) as f:
                s = f.read().split()
            out.append((int(s[2]) * 512, int(s[6]) * 512))
        return out

    def cgroup_file(self, name, value=None):
        path = os.path.join(self.cg, name)
        if value is None:
            with open(path) as f:
                return f.read().strip()
        try:
            with open(path, "w") as f:
                f.write(str(value))
        except OSError as e:
            return e
        return None

    def disks_tool(self, *args):
        sh(["bash", self.a.disks_tool] + list(args))

    def set_caps(self, D, uncapped=False, full=False):
        n = len(self.disks)
        if uncapped:
            caps = [0] * n
        elif self.caps and not full:
            caps = (self.caps + [self.a.mbps] * n)[:n]
        else:
            caps = [self.a.mbps] * n
        self.disks_tool("set", ",".join(str(c) for c in caps))
        return caps[:D]

    def drop_caches(self):
        """The emulated disks' files and the server cgroup's page cache (its
        own pages only: the rest of the machine keeps its cache)."""
        self.disks_tool("dropcache")
        # v1: reclaims what it can (shared memory stays); best effort
        self.cgroup_file("memory.force_empty", 0)

    def psql(self, sql, timeout=None):
        cmd = ["runuser", "-u", self.a.user, "--", self.a.psql, "-X", "-qAt",
               "-v", "ON_ERROR_STOP=1", "-h", os.environ["PGHOST"], "-p", os.environ["PGPORT"],
               "-U", "postgres", "-d", "postgres"]
        r = subprocess.run(cmd, input=sql, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError("psql failed: %s\n%s" % (r.stderr, sql))
        return r.stdout, r.stderr

    # ---- one run ----

    def statement(self, sysname, D):
        lst = ", ".join("e%d" % i for i in range(D))
        settings = system(sysname)[0].format(list=lst)
        pre = "SET work_mem = '%s'; SET maintenance_work_mem = '%s'; %s" % (
            self.a.work_mem, self.a.maintenance_work_mem, settings)
        if self.a.mode == "index":
            return pre + ("SET client_min_messages = debug1; SET srmsort.min_input_size = 0;\n"
                          "\\timing on\nCREATE INDEX t_k ON t (%s);\n\\timing off\n"
                          "SET client_min_messages = notice; DROP INDEX t_k;\n" % self.a.key)
        return pre + ("\nEXPLAIN (ANALYZE, VERBOSE, TIMING OFF, SUMMARY ON, FORMAT JSON) "
                      "SELECT * FROM t ORDER BY %s OFFSET 1e12;\n" % self.a.key)

    def facts(self, sysname, out, err):
        f = {}
        if self.a.mode == "index":
            m = re.search(r"Time: ([0-9.]+) ms", out + err)
            f["seconds"] = float(m.group(1)) / 1000.0
            m = re.search(r"srmsort: built index.*\n.*DETAIL:\s+(.*)", err)
            if m:
                d = m.group(1)
                for key, pat in (("method", r"Sort method ([^,]+)"), ("runs", r"runs (\d+)"),
                                 ("merge_order", r"merge order (\d+)"), ("passes", r"passes (\d+)"),
                                 ("nu", r"nu ([0-9.]+)"), ("stalls", r"stalls (\d+)"),
                                 ("temp_written_kb", r"temp written (\d+) kB"),
                                 ("temp_read_kb", r"temp written \d+ kB, read (\d+) kB"),
                                 ("temp_peak_kb", r"peak (\d+) kB")):
                    mm = re.search(pat, d)
                    f[key] = mm.group(1) if mm else ""
            m = re.search(r"participants? .*", err)
            return f
        j = json.loads(out[out.index("["):])[0]
        f["seconds"] = j["Execution Time"] / 1000.0
        n = j["Plan"]["Plans"][0]
        f["method"] = n.get("Sort Method", "")
        for key, prop in (("runs", "Runs"), ("merge_order", "Merge Order"), ("passes", "Passes"),
                          ("nu", "Nu"), ("stalls", "Stalls"), ("temp_written_kb", "Temp Written"),
                          ("temp_read_kb", "Temp Read"),
                          ("temp_peak_kb", "Peak Temp"), ("io_wait_ms", "I/O Wait"),
                          ("direct_io", "Direct I/O"), ("stripe", "Stripe Width"),
                          ("weights_from", "Weights From")):
            f[key] = n.get(prop, "")
        if n.get("Disk Usage"):
            f["weights"] = "/".join(str(d["Weight"]) for d in n["Disk Usage"])
        if not f["temp_peak_kb"] and n.get("Sort Space Type") == "Disk":
            f["temp_peak_kb"] = n.get("Sort Space Used", "")
        return f

    def run(self, sysname, D):
        inmem = sysname.endswith("_mem")
        full = "_full" in sysname
        caps = self.set_caps(D, uncapped=inmem, full=full)
        if inmem:
            self.cgroup_file("memory.limit_in_bytes", -1)
            # warm: the table and the workfiles' pages may stay in memory
            self.psql(self.statement(sysname, D))
        else:
            self.drop_caches()
        self.cgroup_file("memory.max_usage_in_bytes", 0)
        fail0 = int(self.cgroup_file("memory.failcnt"))
        b0 = self.dev_bytes()
        t0 = time.time()
        out, err = self.psql(self.statement(sysname, D))
        wall = time.time() - t0
        b1 = self.dev_bytes()
        peak = int(self.cgroup_file("memory.max_usage_in_bytes"))
        fails = int(self.cgroup_file("memory.failcnt")) - fail0
        if inmem:
            e = self.cgroup_file("memory.limit_in_bytes", self.a.mem_bytes)
            if e is not None:
                # still above the bound: drop the cache, then set it
                self.drop_caches()
                e = self.cgroup_file("memory.limit_in_bytes", self.a.mem_bytes)
                if e is not None:
                    sys.exit("could not restore the memory bound: %s" % e)
            self.set_caps(D)
        if full:
            self.set_caps(D)
        f = self.facts(sysname, out, err)
        f["wall"] = wall
        rd = [b1[i][0] - b0[i][0] for i in range(D)]
        wr = [b1[i][1] - b0[i][1] for i in range(D)]
        secs = f["seconds"]
        busy = [((rd[i] + wr[i]) / (caps[i] * 1e6) / secs) if caps[i] > 0 and secs > 0 else 0.0
                for i in range(D)]
        f.update(mem_peak_mb=round(peak / 2**20), mem_failcnt=fails,
                 read_mb="/".join("%.0f" % (x / 1e6) for x in rd),
                 written_mb="/".join("%.0f" % (x / 1e6) for x in wr),
                 busy="/".join("%.2f" % x for x in busy),
                 read_total_mb=round(sum(rd) / 1e6), written_total_mb=round(sum(wr) / 1e6),
                 caps="/".join(str(c) for c in caps))
        # the disks outside the D in use must stay idle
        idle = [i for i in range(D, len(self.disks)) if b1[i][0] - b0[i][0] + b1[i][1] - b0[i][1] > 16e6]
        if idle:
            f["note"] = "disks %s outside the set moved data" % idle
        return f


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def report(a, rows, path_md):
    sysnames = [s for s in a.systems if any(r["system"] == s for r in rows)]
    ds = sorted({int(r["disks"]) for r in rows})

    def sel(d, s):
        return [r for r in rows if int(r["disks"]) == d and r["system"] == s]

    def med(d, s):
        return median([float(r["seconds"]) for r in sel(d, s)])

    def floor(d):
        # the workfile bytes srmsort's SRM sort wrote and read (its own
        # count, whatever the page cache absorbed), spread evenly over the
        # d disks at their caps
        ref = [r for r in rows if int(r["disks"]) == d and r["system"].startswith("srm")
               and not r["system"].endswith("_mem") and "_full" not in r["system"]
               and r.get("temp_written_kb") not in ("", None) and r.get("temp_read_kb") not in ("", None)]
        if not ref:
            return float("nan")
        caps = [float(c) for c in ref[0]["caps"].split("/")]
        if min(caps) <= 0:
            return float("nan")
        moved = min((float(r["temp_written_kb"]) + float(r["temp_read_kb"])) * 1024 / 1e6 for r in ref)
        return moved / sum(caps)

    L = []
    L.append("# %s\n" % a.title)
    L.append(a.setup_text.strip() + "\n")
    L.append("Medians of %d runs (min-max), seconds; each run after the disks' files and the "
             "server cgroup's page cache were dropped; systems alternated and rotated within "
             "each repetition.  The machine (2 vCPU) was shared with other engineers' builds "
             "and tests while this ran.\n" % a.reps)
    mt = os.path.join(os.path.dirname(path_md), "measured.txt")
    if os.path.exists(mt):
        L.append("srmsort's own measurement of the disks when it first used them "
                 "(`measured.txt`, MB/s read and write, the weights' source):\n")
        L.append("```\n" + open(mt).read().strip() + "\n```\n")
    L.append("| system | meaning |\n|---|---|")
    for s in sysnames:
        L.append("| `%s` | %s |" % (s, system(s)[1]))
    L.append("")
    hdr = "| D | I/O floor |" + "".join(" %s |" % s for s in sysnames)
    if "native" in sysnames:
        hdr += "".join(" native/%s |" % s for s in sysnames if s != "native" and not s.endswith("_mem"))
    L.append(hdr)
    L.append("|" + "---|" * (hdr.count("|") - 1))
    for d in ds:
        line = "| %d | %.1f |" % (d, floor(d))
        for s in sysnames:
            xs = [float(r["seconds"]) for r in sel(d, s)]
            line += (" %.2f (%.2f-%.2f) |" % (median(xs), min(xs), max(xs))) if xs else " |"
        if "native" in sysnames:
            for s in sysnames:
                if s == "native" or s.endswith("_mem"):
                    continue
                line += (" %.2f× |" % (med(d, "native") / med(d, s))) if sel(d, s) else " |"
        L.append(line)
    L.append("")
    L.append("Per run: the sort's facts, the bytes each disk moved (MB read / written, "
             "d0/d1/...), its busy share (bytes over cap over time) and the memory "
             "cgroup's peak and limit hits.\n")
    L.append("| D | system | rep | seconds | method | runs | merge order | passes | nu | stalls "
             "| weights | workfile peak MB | MB read | MB written | busy share | mem peak MB | limit hits |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        peak = r.get("temp_peak_kb") or ""
        L.append("| %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["disks"], r["system"], r["rep"], float(r["seconds"]), r.get("method", ""),
            r.get("runs", ""), r.get("merge_order", ""), r.get("passes", ""), r.get("nu", ""),
            r.get("stalls", ""), r.get("weights", ""),
            ("%.0f" % (float(peak) / 1024)) if peak not in ("", None) else "",
            r["read_mb"], r["written_mb"], r["busy"], r["mem_peak_mb"], r["mem_failcnt"]))
    notes = [r for r in rows if r.get("note")]
    if notes:
        L.append("")
        for r in notes:
            L.append("* D=%s %s rep %s: %s" % (r["disks"], r["system"], r["rep"], r["note"]))
    L.append("")
    with open(path_md, "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for s in sysnames:
        pts = [(d, med(d, s)) for d in ds if sel(d, s)]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s,
                    color=PALETTE.get(s), linestyle=":" if s.endswith("_mem") else "-")
    fl = [(d, floor(d)) for d in ds if floor(d) == floor(d)]
    if fl:
        ax.plot([p[0] for p in fl], [p[1] for p in fl], color="black", linestyle="--",
                label="I/O floor")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ds)
    ax.set_xticklabels([str(d) for d in ds])
    ax.set_xlabel("disks D (%s MB/s each)" % a.mbps)
    ax.set_ylabel("seconds (median)")
    ax.set_ylim(bottom=0)
    ax.set_title(a.plot_title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(os.path.dirname(path_md), "seconds_vs_disks.png"), dpi=100)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=("sort", "index"), default="sort")
    p.add_argument("--key", default="k")
    p.add_argument("--disks", default="1,2,4,8")
    p.add_argument("--systems", default="native,srm_buf,srm_direct,dsm_buf,dsm_direct")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--work-mem", default="64MB")
    p.add_argument("--maintenance-work-mem", default="1GB")
    p.add_argument("--mbps", type=int, default=30)
    p.add_argument("--caps", default="", help="per-disk caps, MB/s, comma-separated")
    p.add_argument("--mem-bytes", type=int)
    p.add_argument("--cgroup")
    p.add_argument("--disks-tool")
    p.add_argument("--psql")
    p.add_argument("--user")
    p.add_argument("--out", required=True)
    p.add_argument("--title", default="")
    p.add_argument("--plot-title", default="")
    p.add_argument("--setup-text", default="")
    p.add_argument("--replot", action="store_true")
    a = p.parse_args()
    a.systems = a.systems.split(",")
    for s in a.systems:
        if system(s) is None:
            sys.exit("unknown system %s (see system() in %s)" % (s, sys.argv[0]))
    os.makedirs(a.out, exist_ok=True)
    path_csv = os.path.join(a.out, "disk_bound.csv")
    path_md = os.path.join(a.out, "results.md")
    fields = ["disks", "system", "rep", "seconds", "wall", "method", "runs", "merge_order",
              "passes", "nu", "stalls", "temp_written_kb", "temp_read_kb", "temp_peak_kb", "io_wait_ms",
              "direct_io", "stripe", "weights_from", "weights", "caps", "read_mb", "written_mb", "read_total_mb",
              "written_total_mb", "busy", "mem_peak_mb", "mem_failcnt", "note"]
    if a.replot:
        # the table and the plot again, from <out>/disk_bound.csv
        report(a, list(csv.DictReader(open(path_csv))), path_md)
        return
    if None in (a.mem_bytes, a.cgroup, a.disks_tool, a.psql, a.user):
        sys.exit("--mem-bytes, --cgroup, --disks-tool, --psql and --user are needed to run")
    b = Bench(a)
    if a.mode == "sort" and any(s != "native" for s in a.systems):
        # srmsort measures each tablespace the first time it uses it: once,
        # here, for all the disks, rather than in the first timed runs
        n = len(b.disks)
        b.set_caps(n)
        b.psql("SET work_mem = '4MB'; SET srmsort.tablespaces = '%s';\n"
               "SELECT count(*) FROM (SELECT * FROM (SELECT * FROM t LIMIT 3000000) x "
               "ORDER BY k OFFSET 0) s;\n"
               % ", ".join("e%d" % i for i in range(n)))
        out, _ = b.psql("SELECT tablespace, round(read_mb_per_s::numeric, 1), "
                        "round(write_mb_per_s::numeric, 1) FROM srmsort_disks ORDER BY 1;")
        with open(os.path.join(a.out, "measured.txt"), "w") as f:
            f.write("srmsort's measurement of the disks (tablespace|read MB/s|write MB/s):\n" + out)
        print("measured:\n" + out, flush=True)
    rows = []
    with open(path_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for D in [int(x) for x in a.disks.split(",")]:
            order = list(a.systems)
            for rep in range(1, a.reps + 1):
                for s in order:
                    r = b.run(s, D)
                    r.update(disks=D, system=s, rep=rep)
                    rows.append(r)
                    w.writerow(r)
                    f.flush()
                    print("D=%d %-10s rep %d: %7.2f s  read %s MB  written %s MB  busy %s  "
                          "mem peak %s MB  passes %s nu %s" % (
                              D, s, rep, r["seconds"], r["read_mb"], r["written_mb"],
                              r["busy"], r["mem_peak_mb"], r.get("passes", ""), r.get("nu", "")),
                          flush=True)
                order = order[1:] + order[:1]
    report(a, rows, path_md)


if __name__ == "__main__":
    main()
