#!/usr/bin/env python3
"""Phases of an index build in instructions per row, from
bench/profile_build.sh's callgrind outputs (one per process and part).

    profile_build.py --rows N --dir RESULTS_DIR  > phases.md

Each output file is one process's costs up to a dump: the part before the
sort's perform step (trigger --dump-before), the perform step
(--dump-after) and the rest (program termination).  Costs are inclusive
(callgrind_annotate --inclusive=yes), summed over every process of a run;
the workers of a parallel build are processes of their own.
"""
import argparse
import glob
import os
import re
import subprocess
from collections import defaultdict

from profile_phases import inclusive

# The sort's entry points: inclusive costs that do not contain one another
# (the *_common helpers they call are left out).
SORT_PG = re.compile(r"^tuplesort_(begin_\w+|put(?!tuple_common)\w+|performsort|"
                     r"get(?!tuple_common)\w+|end|skiptuples)$")
SORT_SRM = re.compile(r"^SrmSorter(Begin\w*|Put\w+|Perform|Get(?!Stats)\w+|End)$")
# qsort outside tuplesort's own entry points (GIN sorts TID lists with it)
QSORT = ("pg_qsort", "qsort_arg", "qsort_interruptible")
# page writing and WAL of the loaders
WRITES = ("smgrextend", "smgrwrite", "smgrimmedsync", "smgrnblocks", "log_newpage",
          "log_newpages", "log_newpage_range", "smgr_bulk_write", "smgr_bulk_finish",
          "SrmRelWriterPutLogged", "SrmRelWriterEnd")
# GiST's page splitting and unions (both loaders call them)
GIST_PACK = ("gistSplit", "gistunion", "gistfillbuffer", "gistextractpage",
             "gistjoinvector", "gistfillitupvec")


def part_of(path):
    """'before', 'perform' or 'after' from the dump's trigger."""
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("desc: Trigger:"):
                # srmsort's leader waiting for worker 0's merge: a few
                # hundred instructions, and callgrind may dump only after
                # it; what precedes is the leader's input
                if "SrmParallelWaitMerge" in line:
                    return "before"
                if "--dump-before" in line:
                    return "before"
                if "--dump-after" in line:
                    return "perform"
                return "after"
            if line.startswith("fn=") or line.startswith("summary:"):
                break
    return "after"


def total_of(path):
    """The process's instructions: its totals line (a forked worker's
    summary line may say 0), else its summary."""
    total = 0
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("summary:") and total == 0:
                total = int(line.split()[1])
            elif line.startswith("totals:"):
                return int(line.split()[1])
    return total


def load(d, tag):
    """{part: {fn: Ir}}, {part: total} over every process of a run, and
    {pid: total} of each process (the backend's, running index_build, under
    the key 'backend').  A process that never dumped (a parallel worker
    that only scans and writes runs) has its one part counted as 'before';
    the 'after' parts of processes other than the backend (a worker's
    merge, sent to the leader) go under 'after_w'."""
    costs = defaultdict(lambda: defaultdict(int))
    totals = defaultdict(int)
    procs = defaultdict(int)
    backend = None
    wrapped = False
    read = []
    for p in sorted(glob.glob(os.path.join(d, "callgrind", tag + ".*.out*"))):
        if p.endswith(".txt"):
            continue
        if total_of(p) == 0:
            continue
        part = part_of(p)
        pid = re.search(r"\.(\d+)\.out", p).group(1)
        txt = p + ".inclusive.txt"
        if not os.path.exists(txt):
            with open(txt, "w") as f:
                subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                                "--auto=no", p], stdout=f, check=True)
        c, t = inclusive(txt)
        if "index_build" in c:
            backend = pid
        if (t or 0) >= 2 ** 63 or any(v >= 2 ** 63 for v in c.values()):
            # callgrind's counts of a part wrapped around (seen in a
            # parallel worker dumping at SrmSorterPerform): no phases
            wrapped = True
        procs[pid] += total_of(p)
        read.append((pid, part, c, t or 0))
    parts_of = defaultdict(set)
    for pid, part, _, _ in read:
        parts_of[pid].add(part)
    for pid, part, c, t in read:
        if pid != backend and part == "after":
            part = "after_w" if len(parts_of[pid]) > 1 else "before"
        totals[part] += t
        for fn, v in c.items():
            costs[part][fn] += v
    if backend is not None:
        procs["backend"] = procs.pop(backend)
    if wrapped:
        costs, totals = defaultdict(lambda: defaultdict(int)), defaultdict(int)
    return costs, totals, procs


def fsum(costs, names=None, pattern=None):
    s = 0
    for fn, v in costs.items():
        if (names and fn in names) or (pattern and pattern.match(fn)):
            s += v
    return s


def row(label, v, n, whole):
    # a few instructions per row (BRIN's sort) still show
    per = ("%.0f" if v >= 10 * n else "%.3g") % (v / n)
    share = 100.0 * v / whole if whole else 0
    return "| %s | %s | %s%% |" % (label, per, ("%.1f" if share >= 1 else "%.2g") % share)


def gist_table(costs, totals, n, srm):
    """Phases of a sorted GiST build."""
    b, p, a = costs["before"], costs["perform"], defaultdict(int, costs["after"])
    for fn, v in costs["after_w"].items():
        a[fn] += v
    totals = dict(totals)
    totals["after"] = totals.get("after", 0) + totals.get("after_w", 0)
    total = totals.get("before", 0) + totals.get("perform", 0) + totals["after"]
    put = fsum(b, pattern=re.compile(r"^(SrmSorterPut\w+|tuplesort_put\w+)$")) - \
        fsum(b, names=("tuplesort_puttuple_common",))
    compress = fsum(b, names=("gistCompressValues",))
    form = fsum(b, names=("index_form_tuple", "index_form_tuple_context"))
    get = fsum(a, pattern=re.compile(r"^(SrmSorterGetIndexTuple|tuplesort_getindextuple)$"))
    pack = fsum(a, names=GIST_PACK)
    writes = fsum(a, names=WRITES)
    sort = put + totals["perform"] + get
    lines = [
        "| phase | instr/row | share of the build |",
        "|---|---|---|",
        row("heap scan, deforming, the callback (the rest before the sort is performed)",
            totals["before"] - put - compress, n, total),
        row("opclass compress (gistCompressValues)", compress, n, total),
        row("sort input: the tuple formed and put (%s)" %
            ("SrmSorterPutIndexValues" if srm else "tuplesort_putindextuplevalues"), put, n, total),
        row("  of which index_form_tuple", form, n, total) if form else None,
        row("sort perform (%s)" % ("SrmSorterPerform" if srm else "tuplesort_performsort"),
            totals["perform"], n, total),
        row("sort output (%s)" % ("SrmSorterGetIndexTuple" if srm else "tuplesort_getindextuple"),
            get, n, total),
        row("leaf packing and upper levels, pages written (the rest after)",
            totals["after"] - get, n, total),
        row("  of which picksplit and unions (%s)" % ", ".join(GIST_PACK[:2]), pack, n, total),
        row("  of which page writes and WAL (smgr*, log_newpage*, relwrite)", writes, n, total),
        row("**the build** (index_build)", total, n, total),
        row("**the sort** (input + perform + output)", sort, n, total),
        row("**not the sort**", total - sort, n, total),
    ]
    return [l for l in lines if l], total, sort


# a btree build's named steps: (label, PostgreSQL's functions, srmsort's)
BT_PUT = ("tuplesort_putindextuplevalues", "SrmSorterPutIndexValues")
BT_FORM = (("index_form_tuple", "index_form_tuple_context"),
           ("SrmIndexTupleSize", "SrmIndexTupleFill"))
# run formation while the input comes (sorting and writing a full load)
BT_RUNS = (("tuplesort_puttuple_common",), ("dump_run",))
# the sorted stream: the sort's output (a parallel srmsort build's leader
# reads worker 0's merge from a queue)
BT_GET = (("tuplesort_getindextuple",), ("SrmSorterGetIndexTuple", "SrmParallelNextTuple"))
BT_WRITES = (("smgr_bulk_get_buf", "smgr_bulk_write", "smgr_bulk_finish"),
             ("SrmRelWriterPutLogged", "SrmRelWriterEnd", "smgrimmedsync"))
BT_LOAD = (("_bt_truncate", "_bt_pageinit", "_bt_keep_natts_fast", "_bt_dedup_start_pending",
            "_bt_dedup_save_htid", "_bt_form_posting", "PageAddItemExtended", "CopyIndexTuple"),
           ("_bt_truncate", "_bt_pageinit", "_bt_dedup_start_pending", "_bt_dedup_save_htid",
            "_bt_form_posting", "PageIndexTupleOverwrite", "CopyIndexTuple"))


def btree_table(costs, totals, n, srm):
    """Phases of a btree build (serial or parallel: every process's parts
    summed)."""
    b, a = costs["before"], costs["after"]
    total = sum(totals.values())
    k = 1 if srm else 0
    put = fsum(b, names=(BT_PUT[k],))
    form = fsum(b, names=BT_FORM[k])
    # a parallel participant's last load, sorted and written for the
    # merge after its input (srmsort; PostgreSQL's workers do it in
    # tuplesort_performsort)
    export = fsum(b, names=("SrmSorterFinishRuns",)) if srm else 0
    runs = max(0, fsum(b, names=BT_RUNS[k]) - export)
    # the backend's stream, and a worker's merge that feeds it (srmsort's
    # worker 0)
    get = fsum(a, names=BT_GET[k])
    merge_w = totals.get("after_w", 0)
    writes = fsum(a, names=BT_WRITES[k])
    load_named = fsum(a, names=BT_LOAD[k])
    lines = [
        "| phase | instr/row | share of the build |",
        "|---|---|---|",
        row("heap scan, FormIndexDatum, the callback (before the sort is performed, less the put)",
            totals["before"] - put - export, n, total),
        row("sort input: the index tuple formed and put (%s)" % BT_PUT[k], put, n, total),
        row("  of which forming the tuple (%s%s)" % (", ".join(BT_FORM[k]),
                                                     "; inline when every column has a fixed"
                                                     " length" if srm else ""), form, n, total),
        row("  of which run formation: full loads sorted and written (%s)" % BT_RUNS[k][0],
            runs, n, total),
        row("  the rest: copy, key, bookkeeping", put - form - runs, n, total),
        row("a participant's last load sorted and written for the merge (SrmSorterFinishRuns)",
            export, n, total) if export else None,
        row("sort perform (%s)" % ("SrmSorterPerform, SrmParallelWaitMerge" if srm
                                   else "tuplesort_performsort"),
            totals.get("perform", 0), n, total),
        row("sort output: the merge (%s%s)" % (", ".join(BT_GET[k]),
                                              "; a worker's merge sent to the leader" if merge_w else ""),
            get + merge_w, n, total),
        row("btree load: pages built, written and logged (the rest after)",
            totals.get("after", 0) - get, n, total),
        row("  of which page writes and WAL (%s)" % ", ".join(BT_WRITES[k]), writes, n, total),
        row("  of which nbtree helpers (truncate, pageinit, dedup%s)"
            % ("" if srm else ", PageAddItem, CopyIndexTuple"), load_named, n, total),
        row("**the build** (index_build and the workers' build functions)", total, n, total),
    ]
    lines = [l for l in lines if l]
    sort = put - form + export + totals.get("perform", 0) + get + merge_w
    lines.append(row("**the sort** (input less forming + perform + output)", sort, n, total))
    return lines, total, sort


def other_table(costs, totals, n):
    """Sort share of a hash, BRIN or GIN build (every part together)."""
    allc = defaultdict(int)
    for part in costs.values():
        for fn, v in part.items():
            allc[fn] += v
    total = sum(totals.values())
    sort = fsum(allc, pattern=SORT_PG)
    lines = ["| phase | instr/row | share of the build |", "|---|---|---|"]
    for fn in sorted((f for f in allc if SORT_PG.match(f)), key=lambda f: -allc[f]):
        if allc[fn] * 1000 >= total:
            lines.append(row(fn, allc[fn], n, total))
    lines.append(row("**tuplesort, all entry points** (%d instructions)" % sort, sort, n, total))
    q = fsum(allc, names=QSORT)
    lines.append(row("qsort (pg_qsort, qsort_arg, qsort_interruptible; also inside tuplesort)",
                     q, n, total))
    for fn in ("_hash_doinsert", "ginInsertBAEntries", "ginEntryInsert", "ginGetBAEntry",
               "brin_form_tuple", "union_tuples",
               "heapam_index_build_range_scan"):
        if allc.get(fn):
            lines.append(row(fn, allc[fn], n, total))
    lines.append(row("**the build** (index_build and the workers' build functions)",
                     total, n, total))
    return lines, total, sort


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--dir", required=True)
    a = ap.parse_args()
    n = a.rows
    tags = sorted({os.path.basename(p).split(".")[0]
                   for p in glob.glob(os.path.join(a.dir, "callgrind", "*.out*"))
                   if not p.endswith(".txt")})
    print("# Index builds: instructions per row (callgrind), %d rows\n" % n)
    print("Inclusive costs inside index_build and the parallel workers' build")
    print("functions, summed over the processes of each run.\n")
    gist = {}
    busiest = {}
    for tag in tags:
        case, sys_ = tag.rsplit("-", 1)
        costs, totals, procs = load(a.dir, tag)
        if not totals and len(procs) <= 1:
            continue
        print("## %s, %s (%d process%s)\n" % (case, sys_, len(procs),
                                              "" if len(procs) == 1 else "es"))
        if len(procs) > 1:
            # the backend runs the build's serial path
            print("Each process, instructions per row: %s.\n" % ", ".join(
                "%s %.0f" % ("backend" if k == "backend" else "worker", v / n)
                for k, v in sorted(procs.items(), key=lambda kv: (kv[0] != "backend", -kv[1]))))
        if not totals:
            print("(No phases: callgrind's counts of a part wrapped around.)\n")
            continue
        if case.startswith("gist"):
            lines, total, sort = gist_table(costs, totals, n, sys_ == "srm")
            gist[(case, sys_)] = (total, sort)
        elif case.startswith("btree"):
            lines, total, sort = btree_table(costs, totals, n, sys_ == "srm")
            gist[(case, sys_)] = (total, sort)
            busiest[(case, sys_)] = max(procs.values())
        else:
            lines, total, sort = other_table(costs, totals, n)
        print("\n".join(lines))
        share = 100.0 * sort / total if total else 0
        print("\nThe sort: %s%% of the build.\n" % (("%.1f" if share >= 1 else "%.2g") % share))
    for case in sorted({c for c, _ in gist}):
        if (case, "native") in gist and (case, "srm") in gist:
            nt, ns = gist[(case, "native")]
            st, ss = gist[(case, "srm")]
            print("## %s: what bounds the ratio\n" % case)
            print("* instructions, PostgreSQL / srmsort: %.0f / %.0f per row = %.2f"
                  % (nt / n, st / n, nt / st))
            print("* PostgreSQL's build less its sort: %.0f per row; with a sort that cost"
                  " nothing the ratio would be at most %.2f" % ((nt - ns) / n, nt / (nt - ns)))
            print("* srmsort's build less its sort: %.0f per row (PostgreSQL's: %.0f);"
                  " were srmsort's sort free, the ratio would be at most %.2f"
                  % ((st - ss) / n, (nt - ns) / n, nt / (st - ss)))
            bn, bs = busiest.get((case, "native")), busiest.get((case, "srm"))
            if bn and bs and bn != nt:
                print("* the busiest process (the critical path, a CPU each), PostgreSQL / srmsort:"
                      " %.0f / %.0f per row = %.2f" % (bn / n, bs / n, bn / bs))
                # the benchmark machine's two CPUs: the busiest process or
                # half the work, whichever is more
                pn, ps = max(bn, nt / 2), max(bs, st / 2)
                print("* on two CPUs (the busiest process, or half of all instructions),"
                      " PostgreSQL / srmsort: %.0f / %.0f per row = %.2f" % (pn / n, ps / n, pn / ps))
            print()


if __name__ == "__main__":
    main()
