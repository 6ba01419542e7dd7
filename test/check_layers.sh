#!/bin/bash
# test/check_layers.sh — the house rule of src/ (src/README.md), checked.
#
#   test/check_layers.sh [REPO]
#
# src/ is a house of floors, one folder each, from base/ (floor 1) up to
# src/srmsort.c (the top):
#
#   7  srmsort.c
#   6  query/  builds/
#   5  engine/
#   4  merge/
#   3  runs/
#   2  io/  keys/
#   1  base/
#
# The rule, checked here for every file under src/:
#   1. an include of ours is spelled with its folder ("io/disks.h") and
#      names a file that exists;
#   2. a file includes its own folder's headers and lower floors' only, so
#      folders of one floor (io/ and keys/, query/ and builds/) never
#      include each other;
#   3. a *_int.h header is included only from its own folder;
#   4. a function a header declares is defined in the .c file of the
#      header's name (so that includes show who calls whom);
#   5. no include circles between files (a file and its header are one);
#   6. no folder is named like one of PostgreSQL's include directories.
# Prints each breach and ends with "layers: ok" or "layers: N breaches"
# (exit 1).  Needs python3; rule 6 asks pg_config (PG_CONFIG) when there
# is one and otherwise checks a fixed list.
set -euo pipefail
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
pgdirs=""
if command -v "${PG_CONFIG:-pg_config}" >/dev/null 2>&1; then
    inc=$("${PG_CONFIG:-pg_config}" --includedir-server)
    pgdirs=$(find "$inc" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | tr '\n' ' ')
fi
exec python3 - "$repo" "$pgdirs" <<'PY'
import os, re, sys

repo, pgdirs = sys.argv[1], sys.argv[2].split()
if not pgdirs:
    pgdirs = ("access bootstrap catalog commands common datatype executor fe_utils"
              " foreign jit lib libpq mb nodes optimizer parser partitioning port"
              " postmaster regex replication rewrite snowball statistics storage"
              " tcop tsearch utils").split()
FLOOR = {"base": 1, "io": 2, "keys": 2, "runs": 3, "merge": 4, "engine": 5,
         "query": 6, "builds": 6, "": 7}
src = os.path.join(repo, "src")
breaches = []

def breach(msg):
    breaches.append(msg)
    print(msg)

files = []
for d, _, names in os.walk(src):
    for n in sorted(names):
        if n.endswith((".c", ".h")):
            files.append(os.path.relpath(os.path.join(d, n), src))
files.sort()
for f in files:
    folder = os.path.dirname(f)
    if folder not in FLOOR:
        breach(f"src/{f}: folder {folder}/ is not a floor of src/README.md")
for folder in sorted({os.path.dirname(f) for f in files} - {""}):
    if folder in pgdirs:
        breach(f"src/{folder}/: named like PostgreSQL's include directory {folder}/")

inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
text = {f: open(os.path.join(src, f), encoding="utf-8", errors="replace").read() for f in files}
includes = {}
for f in files:
    folder = os.path.dirname(f)
    mine = []
    for h in inc_re.findall(text[f]):
        if "/" not in h:
            if os.path.exists(os.path.join(src, folder, h)) or h in {os.path.basename(x) for x in files}:
                breach(f"src/{f}: includes \"{h}\" without its folder")
            continue            # PostgreSQL's or the system's
        hf = h
        hfolder = os.path.dirname(hf)
        if hfolder not in FLOOR or hfolder == "":
            continue            # PostgreSQL's ("utils/guc.h")
        if hf not in text:
            breach(f"src/{f}: includes \"{h}\", which does not exist")
            continue
        mine.append(hf)
        if hfolder != folder and FLOOR[hfolder] >= FLOOR.get(folder, 7):
            breach(f"src/{f} (floor {FLOOR.get(folder, 7)}) includes {h} (floor {FLOOR[hfolder]})")
        if hf.endswith("_int.h") and hfolder != folder:
            breach(f"src/{f}: includes {h}, which is private to {hfolder}/")
    includes[f] = mine

# rule 4: extern functions declared in X.h are defined in X.c
decl_re = re.compile(r'^extern\s+[^;()]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(', re.M)
def_re = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*\(', re.M)
defined_in = {}
for f in files:
    if f.endswith(".c"):
        for name in def_re.findall(text[f]):
            defined_in.setdefault(name, f)
for h in files:
    if not h.endswith(".h"):
        continue
    for name in decl_re.findall(text[h]):
        where = defined_in.get(name)
        if where is None:
            continue            # PostgreSQL's, or a macro's
        if where[:-2] != h[:-2]:
            breach(f"src/{h}: declares {name}, defined in src/{where} (declare it in its own header)")

# rule 5: circles between modules (X.c and X.h are one module)
mod = lambda f: f[:-2]
graph = {}
for f in files:
    graph.setdefault(mod(f), set())
    for h in includes[f]:
        if mod(h) != mod(f):
            graph[mod(f)].add(mod(h))
index, low, stack, on, comps = {}, {}, [], set(), []
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    for w in sorted(graph[v]):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))
for v in sorted(graph):
    if v not in index:
        strong(v)
for comp in comps:
    ties = "; ".join(f"{a} -> {b}" for a in comp for b in sorted(graph[a]) if b in comp)
    breach(f"include circle: {', '.join(comp)} ({ties})")

print("layers: ok" if not breaches else f"layers: {len(breaches)} breaches")
sys.exit(1 if breaches else 0)
PY
