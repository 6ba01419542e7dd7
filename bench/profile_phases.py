#!/usr/bin/env python3
"""Phases of a sort in instructions per row, from bench/profile.sh's
callgrind_annotate listings (inclusive costs, one per file:function; of a
function with code inlined from several files, the entry of its own file,
which the calls into it are charged to, is the largest and counts), and
its rusage.

    profile_phases.py --rows N --dir RESULTS_DIR  > phases.md
"""
import argparse
import csv
import glob
import json
import os
import re
import statistics
from collections import defaultdict

LINE = re.compile(r"^\s*([0-9,]+)\s+\(\s*[0-9.]+%\)\s+(.*?):(\S+?)(?:'\d+)?(?:\s+\[.*\])?\s*$")

# Phases: (label, [functions added], [functions subtracted]); inclusive
# costs, so a phase is a function's cost less what it calls that another
# phase counts.
PHASES = {
    "srm": [
        ("input copy (slot to arena), load bookkeeping",
         ["SrmSorterPutSlot", "SrmSorterPerform"],
         ["SrmMemLoadSort", "SrmMemLoadWriteRun", "SrmMergeBegin", "SrmSorterRunMerges"]),
        ("run formation: radix sort", ["SrmMemLoadSort"], []),
        ("run writing incl. record encoding", ["SrmMemLoadWriteRun"], []),
        ("merge setup and intermediate merges", ["SrmMergeBegin", "SrmSorterRunMerges"], []),
        ("final merge: loser tree, keys, blocks, records to MinimalTuples",
         ["SrmMergeNext"], []),
        ("  of which rebuilt to break ties (materialize)", ["materialize"], []),
        ("output: store in slot (ExecStoreMinimalTuple)", ["ExecStoreMinimalTuple"], []),
    ],
    "native": [
        ("input copy + run formation + run writing (tuplesort_puttupleslot)",
         ["tuplesort_puttupleslot"], []),
        ("  of which writing runs (LogicalTapeWrite)", ["LogicalTapeWrite"], []),
        ("  of which heap tuple to MinimalTuple", ["minimal_tuple_from_heap_tuple"], []),
        ("last run, merge passes before the final (tuplesort_performsort)",
         ["tuplesort_performsort"], []),
        ("final merge / in-memory result (tuplesort_gettupleslot)",
         ["tuplesort_gettupleslot"], ["ExecStoreMinimalTuple"]),
        ("  of which reading runs (LogicalTapeRead)", ["LogicalTapeRead"], []),
        ("output: store in slot (ExecStoreMinimalTuple)", ["ExecStoreMinimalTuple"], []),
    ],
}


def inclusive(path):
    """{function: inclusive Ir} and the program total of one listing."""
    costs = defaultdict(int)
    total = None
    in_body = False
    with open(path) as f:
        for line in f:
            if "PROGRAM TOTALS" in line:
                total = int(line.split()[0].replace(",", ""))
                continue
            if line.startswith("-- Auto-annotated"):
                break
            if "file:function" in line:
                in_body = True
                continue
            if not in_body:
                continue
            m = LINE.match(line)
            if m:
                fn = m.group(3)
                if "'" in line.split()[2]:      # a recursive cycle's inner entry
                    continue
                costs[fn] = max(costs[fn], int(m.group(1).replace(",", "")))
    return costs, total


def rusage(d):
    out = defaultdict(lambda: {"user": [], "sys": []})
    p = os.path.join(d, "rusage.csv")
    if not os.path.exists(p):
        return out
    with open(p) as f:
        for r in csv.DictReader(f):
            if r["user_s"]:
                out[(r["system"], r["work_mem"])]["user"].append(float(r["user_s"]))
                out[(r["system"], r["work_mem"])]["sys"].append(float(r["sys_s"]))
    return out


def perf_tables(d, n):
    """CPU time by phase (perf cpu-clock samples), ns per row."""
    runs = {}
    for p in glob.glob(os.path.join(d, "perf", "*.json")):
        sys_, wm = os.path.basename(p)[:-len(".json")].split("-", 1)
        with open(p) as f:
            runs[(sys_, wm)] = json.load(f)
    if not runs:
        return
    print("# CPU time by phase (perf record -e cpu-clock -g), %d rows\n" % n)
    print("Samples inside standard_ExecutorRun, each counted towards the")
    print("innermost phase function on its stack (kernel time towards the user")
    print("code that entered the kernel); one run of each query.\n")
    for wm in sorted({wm for _, wm in runs}, key=lambda w: (len(w), w)):
        for s in ("scan", "native", "srm"):
            r = runs.get((s, wm))
            if not r:
                continue
            tot = r["total_ns"]
            print("%s, %s: %.2f s of CPU, %.0f ns/row\n" % (s, wm, tot / 1e9, tot / n))
            print("| phase | user ns/row | sys ns/row | share |")
            print("|---|---|---|---|")
            for ph, v in sorted(r["phases"].items(),
                                key=lambda kv: -(kv[1]["user_ns"] + kv[1]["sys_ns"])):
                print("| %s | %.1f | %.1f | %.0f%% |"
                      % (ph, v["user_ns"] / n, v["sys_ns"] / n,
                         100.0 * (v["user_ns"] + v["sys_ns"]) / max(tot, 1)))
            print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    n = a.rows
    listings = {}
    for p in glob.glob(os.path.join(a.dir, "callgrind", "inclusive.*.txt")):
        sys_, wm = os.path.basename(p)[len("inclusive."):-len(".txt")].split("-", 1)
        listings[(sys_, wm)] = inclusive(p)
    ru = rusage(a.dir)
    perf_tables(a.dir, n)
    if not listings:
        return
    wms = sorted({wm for _, wm in listings}, key=lambda w: (len(w), w))
    print("# Instructions per row (callgrind, inside standard_ExecutorRun), %d rows\n" % n)
    print("The scan is `SELECT * FROM t OFFSET 1e12`; a sort's own cost is its total")
    print("less the scan's. CPU: the backend's getrusage for the statement, medians.\n")
    for wm in wms:
        print("## work_mem %s\n" % wm)
        scan = listings.get(("scan", wm), (None, None))[1]
        print("| | scan | native | srm |")
        print("|---|---|---|---|")
        row = ["all of ExecutorRun, instr/row"]
        for s in ("scan", "native", "srm"):
            t = listings.get((s, wm), (None, None))[1]
            row.append("%.0f" % (t / n) if t else "")
        print("| " + " | ".join(row) + " |")
        row = ["the sort (total less the scan), instr/row", ""]
        for s in ("native", "srm"):
            t = listings.get((s, wm), (None, None))[1]
            row.append("%.0f" % ((t - scan) / n) if t and scan else "")
        print("| " + " | ".join(row) + " |")
        for lab, key in (("user CPU, ns/row", "user"), ("sys CPU, ns/row", "sys")):
            row = [lab]
            for s in ("scan", "native", "srm"):
                v = ru.get((s, wm), {}).get(key) if (s, wm) in ru else None
                row.append("%.0f" % (statistics.median(v) * 1e9 / n) if v else "")
            print("| " + " | ".join(row) + " |")
        print()
        for s in ("native", "srm"):
            if (s, wm) not in listings:
                continue
            costs, total = listings[(s, wm)]
            print("%s, %s: phases, instructions per row\n" % (s, wm))
            print("| phase | instr/row | share of the sort |")
            print("|---|---|---|")
            sort_total = total - scan if scan else total
            counted = 0
            for lab, plus, minus in PHASES[s]:
                if lab.startswith("  ") and not any(f in costs for f in plus):
                    continue            # a detail this run never called
                v = sum(costs.get(f, 0) for f in plus) - sum(costs.get(f, 0) for f in minus)
                if v <= 0 and not lab.startswith("  "):
                    continue
                if not lab.startswith("  "):
                    counted += v
                print("| %s | %.0f | %.0f%% |" % (lab, v / n, 100.0 * v / sort_total))
            rest = sort_total - counted
            print("| the rest: the node, its calls and loops, the Limit's extra work | %.0f | %.0f%% |"
                  % (rest / n, 100.0 * rest / sort_total))
            print()


if __name__ == "__main__":
    main()
