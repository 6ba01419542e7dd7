#!/bin/bash
# bench/emulated_disks.sh — the first parallel-disk experiment: D emulated disks
# of a fixed bandwidth each (bench/disks.sh: loop devices capped by the
# cgroup I/O throttle), D = 1, 2, 4, 8, comparing srmsort's SRM and DSM
# merges with PostgreSQL's own sort using the same disks as
# temp_tablespaces.  The counterpart of the SRM paper's Tables 1-2.
#
# srmsort uses O_DIRECT (srmsort.direct_io) so that every block really
# crosses the emulated disk; PostgreSQL's own sort has no such option and
# writes through the page cache (the per-disk dirty limit makes its writes
# feel the cap, but its reads may come from the cache: native figures are
# flattering).  Each run starts after bench/disks.sh dropcache.
#
# Its data fit in memory: PostgreSQL's buffered temp files never reach the
# disks while srmsort's O_DIRECT workfiles do, so it compares the page
# cache with the disks, and its report says so.  bench/disk_bound.sh is the
# experiment with the data larger than memory.
#
# Needs root.  Environment: D_LIST (default "1 2 4 8"), MBPS (100), ROWS
# (5000000), WORK_MEM (4MB), REPS (1), OUT (bench/results/YYYY-MM-DD-emulated).
# Results: OUT/emulated.md and .csv, with matplotlib OUT/emulated_speedup.png,
# and run.md (what ran where).
set -euo pipefail
SRM_ARGV=("$@")
. "$(dirname "$0")/../test/lib.sh"

TOOL=$SRM_REPO/bench/disks.sh
export SRMDISKS_ROOT=${SRMDISKS_ROOT:-/tmp/srmdisks}
D_LIST=${D_LIST:-"1 2 4 8"}
MBPS=${MBPS:-100}
ROWS=${ROWS:-5000000}
WORK_MEM=${WORK_MEM:-4MB}
REPS=${REPS:-1}
D_MAX=$(echo $D_LIST | tr ' ' '\n' | sort -n | tail -1)

[ "$(id -u)" -eq 0 ] || srm_die "the emulated disks need root (loop devices, cgroup I/O limits)"

srm_packages
srm_bench_packages
srm_setup_tmp
srm_build
SRMDISKS_OWNER=$SRM_USER bash "$TOOL" up "$D_MAX" "$MBPS"
trap 'srm_cluster_stop; bash "$TOOL" down --force >/dev/null 2>&1 || true' EXIT
# this shell, and so the server it starts, where the caps apply
bash "$TOOL" enter $$
SRM_EXTRA_CONF="shared_buffers = '512MB'
max_parallel_workers_per_gather = 0" srm_cluster_start
srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null
for i in $(seq 0 $((D_MAX - 1))); do
    srm_psql -qc "CREATE TABLESPACE e$i LOCATION '$SRMDISKS_ROOT/d$i'" >/dev/null
done
srm_log "generating $ROWS rows"
srm_psql -q <<SQL >/dev/null
DO \$\$ BEGIN PERFORM setseed(0.42); END \$\$;
CREATE TABLE t AS SELECT (random() * 9e18)::int8 AS k, i::int8 AS v
  FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE t;
SQL

srm_bench_outdir emulated ${OUT:+--out "$OUT"}
out=$SRM_BENCH_OUT
csv=$out/emulated.csv
echo "disks,mbps,rows,work_mem,system,rep,seconds,method,runs,merge_order,passes,nu,stalls,io_wait_ms,temp_written_kb" >"$csv"
for D in $D_LIST; do
    list=$(seq -s, -f 'e%g' 0 $((D - 1)))
    for rep in $(seq 1 "$REPS"); do
        for sys in native srm dsm; do
            case $sys in
                native) set="SET srmsort.enabled = off; SET temp_tablespaces = $list;" ;;
                srm) set="SET srmsort.tablespaces = '$list'; SET srmsort.direct_io = on; SET srmsort.merge_strategy = srm;" ;;
                dsm) set="SET srmsort.tablespaces = '$list'; SET srmsort.direct_io = on; SET srmsort.merge_strategy = dsm;" ;;
            esac
            bash "$TOOL" dropcache >/dev/null 2>&1 || true
            json=$(srm_psql -qAt <<SQL
SET work_mem = '$WORK_MEM';
$set
EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) SELECT * FROM t ORDER BY k OFFSET 1e12;
SQL
)
            line=$("$SRM_PYTHON" - "$json" <<'PY'
import json, sys
p = json.loads(sys.argv[1])[0]
n = p["Plan"]["Plans"][0]
g = lambda k: n.get(k, "")
print(",".join(str(x) for x in [round(p["Execution Time"] / 1000, 3), g("Sort Method"), g("Runs"),
      g("Merge Order"), g("Passes"), g("Nu"), g("Stalls"), g("I/O Wait"), g("Temp Written")]))
PY
)
            echo "$D,$MBPS,$ROWS,$WORK_MEM,$sys,$rep,$line" >>"$csv"
            echo "  D=$D $sys rep $rep: $line"
        done
    done
done

"$SRM_PYTHON" - "$csv" "$out/emulated.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w") as f:
    f.write("> **Fits in memory — not a disk-bound result.** PostgreSQL's buffered temp files never "
            "reached the disks, while srmsort's O_DIRECT workfiles did: this compares the page cache "
            "with the disks.  Sorts larger than memory: bench/disk_bound.sh.\n\n")
    f.write("Emulated disks: %s MB/s each, %s rows (int8 key + int8), work_mem %s; median seconds.\n\n"
            % (rows[0]["mbps"], rows[0]["rows"], rows[0]["work_mem"]))
    f.write("| disks | system | seconds | vs native | method | runs | merge order | passes | nu | stalls | I/O wait ms |\n")
    f.write("|---|---|---|---|---|---|---|---|---|---|---|\n")
    for d in sorted({r["disks"] for r in rows}, key=int):
        med = {s: statistics.median(float(r["seconds"]) for r in rows if r["disks"] == d and r["system"] == s)
               for s in ("native", "srm", "dsm")}
        for s in ("native", "srm", "dsm"):
            r = [x for x in rows if x["disks"] == d and x["system"] == s][-1]
            f.write("| %s | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s |\n" % (
                d, s, med[s], med["native"] / med[s], r["method"], r["runs"], r["merge_order"],
                r["passes"], r["nu"], r["stalls"], r["io_wait_ms"]))
print(open(sys.argv[2]).read())
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib not installed: no plot", file=sys.stderr)
    sys.exit(0)
import os
ds = sorted({int(r["disks"]) for r in rows})
fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
for s in ("native", "srm", "dsm"):
    t = [statistics.median(float(r["seconds"]) for r in rows if int(r["disks"]) == d and r["system"] == s)
         for d in ds]
    a1.plot(ds, t, marker="o", label=s)
    a2.plot(ds, [t[0] / x for x in t], marker="o", label=s)
a2.plot(ds, [d / ds[0] for d in ds], linestyle=":", color="grey", label="linear")
a1.set_xlabel("disks D"); a1.set_ylabel("seconds"); a1.set_title("time vs D")
a2.set_xlabel("disks D"); a2.set_ylabel("speedup over D=%d" % ds[0]); a2.set_title("speedup vs D")
for a in (a1, a2):
    a.set_xticks(ds); a.legend()
fig.suptitle("%s rows, work_mem %s, %s MB/s per disk" % (rows[0]["rows"], rows[0]["work_mem"], rows[0]["mbps"]))
fig.tight_layout()
fig.savefig(os.path.join(os.path.dirname(sys.argv[2]), "emulated_speedup.png"), dpi=100)
PY
