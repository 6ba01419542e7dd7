#!/usr/bin/env python3
"""CPU time of one backend's query by phase, from `perf script` of a
`perf record -e cpu-clock -g` (bench/perf_watch.sh).  Prints JSON:
{"name", "total_ns", "phases": {phase: {"user_ns", "sys_ns"}}}.

A sample counts towards the phase of the innermost frame on its stack
that names one (kernel frames count towards the phase of the user code
that entered the kernel), and only inside standard_ExecutorRun (not
parsing, planning or the session's SETs).  srmsort's frames are resolved
with addr2line, inline frames included: the installed library keeps its
symbols, where perf may not read them in a Debian root.

    perf_phases.py --script FILE --buildids FILE --name NAME
"""
import argparse
import glob
import json
import os
import subprocess
from collections import defaultdict

# (phase, functions), innermost match first; one list for both systems
# (their function names do not overlap).
PHASES = [
    # srmsort
    ("sorting loads (radix)", ["SrmMemLoadSort"]),
    ("run writing", ["SrmMemLoadWriteRun"]),
    ("merge setup and intermediate merges", ["SrmMergeBegin", "SrmSorterRunMerges"]),
    ("final merge", ["SrmMergeNext"]),
    ("perform: the rest", ["SrmSorterPerform"]),
    ("input: slot to the load", ["SrmSorterPutSlot"]),
    # PostgreSQL's tuplesort (exported names only: Debian strips the rest)
    ("writing runs (LogicalTapeWrite)", ["LogicalTapeWrite"]),
    ("reading runs (LogicalTapeRead)", ["LogicalTapeRead"]),
    ("input, run formation (tuplesort_puttupleslot)", ["tuplesort_puttupleslot"]),
    ("sort, merge passes (tuplesort_performsort)", ["tuplesort_performsort"]),
    ("final merge / result (tuplesort_gettupleslot)", ["tuplesort_gettupleslot"]),
    # both
    ("output: store in slot", ["ExecStoreMinimalTuple"]),
    ("output: the result's next tuple", ["SrmSorterNextSlot", "SrmSorterGetSlot"]),
    ("scan", ["heap_getnextslot", "ExecStoreBufferHeapTuple", "heapgettup_pagemode",
              "heap_prepare_pagescan", "ReadBufferExtended", "read_stream_next_buffer"]),
]
FN_PHASE = {fn: ph for ph, fns in PHASES for fn in fns}
ROOT = "standard_ExecutorRun"
OTHER = "the rest: executor, node, Limit"


def elf_for(dso, buildids):
    """A readable file with the symbols of dso, or None."""
    if os.path.exists(dso):
        return dso
    home = os.path.expanduser("~/.debug")
    bid = buildids.get(dso)
    if bid:
        p = os.path.join(home, ".build-id", bid[:2], bid[2:], "elf")
        if os.path.exists(p):
            return p
    cands = glob.glob(os.path.join(home, dso.lstrip("/"), "*", "elf"))
    return cands[0] if len(cands) == 1 else None


class Resolver:
    """addr2line -f -i for the frames perf left unnamed, batched per file."""

    def __init__(self, buildids):
        self.buildids = buildids
        self.cache = {}

    def prime(self, wanted):
        for dso, addrs in wanted.items():
            elf = elf_for(dso, self.buildids)
            addrs = sorted(a for a in addrs if (dso, a) not in self.cache)
            if not elf or not addrs:
                for a in addrs:
                    self.cache[(dso, a)] = []
                continue
            # a sentinel address after each query marks where its frames end
            inp = "".join("0x%s\n0x0\n" % a for a in addrs)
            out = subprocess.run(["addr2line", "-f", "-i", "-e", elf], input=inp,
                                 capture_output=True, text=True).stdout.split("\n")
            names, i = [], 0
            for a in addrs:
                cur = []
                # pairs of lines: function, file:line; the sentinel is "??"
                while i + 1 < len(out):
                    fn = out[i]
                    i += 2
                    if fn == "??" and cur:
                        break
                    if fn == "??":
                        # the address itself unresolved: its sentinel follows
                        i += 2
                        break
                    cur.append(fn)
                self.cache[(dso, a)] = cur

    def names(self, dso, addr):
        return self.cache.get((dso, addr), [])


def parse(path):
    """Samples: (comm, period, [(addr, sym, dso)] innermost first)."""
    samples = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            if not line.strip():
                if cur:
                    samples.append(cur)
                cur = None
                continue
            if not line.startswith("\t") and not line.startswith(" "):
                parts = line.split()
                period = int(parts[-1]) if parts and parts[-1].isdigit() else 0
                cur = (parts[0] if parts else "", period, [])
                continue
            if cur is None:
                continue
            s = line.strip()
            addr, rest = s.split(" ", 1) if " " in s else (s, "")
            dso = rest[rest.rfind("(") + 1:rest.rfind(")")] if "(" in rest else ""
            sym = rest[:rest.rfind("(")].strip() if "(" in rest else rest
            cur[2].append((addr, sym, dso))
    if cur:
        samples.append(cur)
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--buildids", required=True)
    ap.add_argument("--name", required=True)
    a = ap.parse_args()
    buildids = {}
    if os.path.exists(a.buildids):
        for line in open(a.buildids):
            p = line.split(None, 1)
            if len(p) == 2:
                buildids[p[1].strip()] = p[0]
    samples = parse(a.script)
    wanted = defaultdict(set)
    for _, _, frames in samples:
        for addr, sym, dso in frames:
            if dso and not dso.startswith("[") and (sym == "[unknown]" or "srmsort" in dso):
                wanted[dso].add(addr)
    res = Resolver(buildids)
    res.prime(wanted)
    phases = defaultdict(lambda: {"user_ns": 0, "sys_ns": 0})
    total = 0
    for _, period, frames in samples:
        names = []
        kernel = bool(frames) and frames[0][2] == "[kernel.kallsyms]"
        for addr, sym, dso in frames:
            if dso and not dso.startswith("[") and (sym == "[unknown]" or "srmsort" in dso):
                names.extend(res.names(dso, addr) or [sym])
            else:
                names.append(sym)
        if ROOT not in names:
            continue
        total += period
        phase = OTHER
        for n in names:
            if n in FN_PHASE:
                phase = FN_PHASE[n]
                break
        phases[phase]["sys_ns" if kernel else "user_ns"] += period
    json.dump({"name": a.name, "total_ns": total, "samples": len(samples),
               "phases": phases}, fp=os.sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
