#!/bin/bash
# bench/concurrency.sh — concurrent spilling sorts with pgbench.
#
# N clients each run SELECT * FROM slice_<client> ORDER BY k OFFSET 1e12 on
# their own table slice, TX times each (pgbench -t), for each load of
# LOADS, with PostgreSQL's own sort (temp_tablespaces over the same
# disks) and with srmsort at srmsort.partitions = 1, 2, 4 and auto over
# four tablespaces.  Reports sorts per second (all sorts over the wall
# time of the run), mean and 95th-percentile latency, and for srmsort the
# partitions its sorts took (sampled from srmsort_activity every 0.5 s).
#
# Where the disks are:
#   default      four directories on the machine's one disk (srm_d0..3)
#   EMULATED=1   four emulated disks of MBPS MB/s each (bench/disks.sh,
#                root), with the bytes each moved and its busy share (bytes
#                over its cap over the run's time) per run
#   MEM=SIZE     (with EMULATED=1) the server in a memory cgroup of SIZE
#                (bench/memcg.sh): the sorts' workfiles do not fit in the
#                page cache, and the disks decide
#
# Systems (SYSTEMS): native; p1, p2, p4, auto (srmsort.partitions), each
# with srmsort's default I/O mode, or with _buf / _direct appended for
# srmsort.direct_io = off / on.
#
# Environment: ROWS per slice, WORK_MEM, LOADS, TX (sorts per client),
# MBPS, MEM, SYSTEMS, OUT (the results' directory).  Defaults: 300000
# rows, 4MB, "2 8", 20, 100 MB/s, no bound; with MEM: 4000000 rows, 16MB,
# "2 4 8", 3, 30 MB/s.  Results: OUT/concurrency.csv and .md, and run.md
# (what ran where); OUT: bench/results/YYYY-MM-DD-concurrency, or
# -concurrency-bound with MEM.
set -euo pipefail
SRM_ARGV=("$@")
. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/memcg.sh"
# the benchmark's cluster lives for hours: outside the tests' /tmp prefix,
# whose runners clean up what they take for leftovers
SRM_TMP_PREFIX=/var/tmp/srmsort-bench.

EMULATED=${EMULATED:-0}
MEM=${MEM:-}
if [ -n "$MEM" ]; then
    [ "$EMULATED" = 1 ] || srm_die "MEM needs EMULATED=1 (the disks must bind)"
    ROWS=${ROWS:-4000000}
    WORK_MEM=${WORK_MEM:-16MB}
    LOADS=${LOADS:-"2 4 8"}
    TX=${TX:-3}
    MBPS=${MBPS:-30}
    SLUG=concurrency-bound
else
    ROWS=${ROWS:-300000}
    WORK_MEM=${WORK_MEM:-4MB}
    LOADS=${LOADS:-"2 8"}
    TX=${TX:-20}
    MBPS=${MBPS:-100}
    SLUG=concurrency
fi
SYSTEMS=${SYSTEMS:-"native p1 p2 p4 auto"}
MAXC=$(echo $LOADS | tr ' ' '\n' | sort -n | tail -1)

TOOL=$SRM_REPO/bench/disks.sh
export SRMDISKS_ROOT=${SRMDISKS_ROOT:-/tmp/srmdisks}
DISKS=srm_d0,srm_d1,srm_d2,srm_d3
SUFFIX=

srm_packages
srm_setup_tmp
srm_build
cleanup() {
    srm_cluster_stop
    memcg_remove
    [ "$EMULATED" != 1 ] || bash "$TOOL" down --force >/dev/null 2>&1 || true
}
trap cleanup EXIT
CONF="max_connections = 40
max_parallel_workers_per_gather = 0
log_temp_files = -1"
if [ "$EMULATED" = 1 ]; then
    [ "$(id -u)" -eq 0 ] || srm_die "EMULATED=1 needs root"
    SRMDISKS_OWNER=$SRM_USER SRMDISKS_SIZE_MB=${SRMDISKS_SIZE_MB:-8192} bash "$TOOL" up 4 "$MBPS"
    # this shell, and so the server it starts, where the caps apply
    bash "$TOOL" enter $$
    DISKS=e0,e1,e2,e3
    SUFFIX=_emulated
fi
if [ -n "$MEM" ]; then
    memcg_create "$(memcg_bytes "$MEM")"
    SRM_EXTRA_CONF="$CONF
shared_buffers = '128MB'" memcg_start_server
else
    SRM_EXTRA_CONF=$CONF srm_cluster_start
fi
srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null
if [ "$EMULATED" = 1 ]; then
    for i in 0 1 2 3; do
        srm_psql -qc "CREATE TABLESPACE e$i LOCATION '$SRMDISKS_ROOT/d$i'" >/dev/null
    done
fi
srm_log "generating $MAXC slices of $ROWS rows"
for c in $(seq 0 $((MAXC - 1))); do
    srm_psql -q -c "CREATE TABLE slice_$c AS SELECT (random() * 9e18)::int8 AS k, i::int8 AS v, md5(i::text) AS t FROM generate_series(1, $ROWS) i" \
        -c "VACUUM ANALYZE slice_$c" >/dev/null
done
SLICE_MB=$(srm_psql -qAt -c "SELECT pg_relation_size('slice_0') / 1048576")
# srmsort measures its disks the first time it uses them: here, untimed
srm_psql -qc "SET work_mem = '1MB'; SET srmsort.tablespaces = '$DISKS';
    SELECT count(*) FROM (SELECT * FROM slice_0 ORDER BY k OFFSET 0) s" >/dev/null
script=$SRM_TMP/sort.sql
echo 'SELECT * FROM slice_:client_id ORDER BY k OFFSET 1e12;' >"$script"
chmod 644 "$script"

# the loop devices of the disks, for their byte counts
LOOPS=""
if [ "$EMULATED" = 1 ]; then
    LOOPS=$(awk '$1 == "disk" {print $4}' "$SRMDISKS_ROOT/.state" | xargs -n1 basename | tr '\n' ' ')
fi
dev_bytes() {
    local l
    for l in $LOOPS; do
        # (%.0f: mawk's %d stops at 2^31)
        awk '{printf "%.0f:%.0f ", $3 * 512, $7 * 512}' "/sys/block/$l/stat"
    done
}

srm_bench_outdir "$SLUG" ${OUT:+--out "$OUT"}
OUT=$SRM_BENCH_OUT
csv=$OUT/concurrency$SUFFIX.csv
[ -z "$MEM" ] || csv=$OUT/concurrency.csv
echo "clients,system,sorts_per_s,mean_ms,p95_ms,sorts,seconds,partitions_seen,mb_read,mb_written,busy,mem_peak_mb" >"$csv"
for n in $LOADS; do
    for sys in $SYSTEMS; do
        case $sys in
            native) opts="-c srmsort.enabled=off -c temp_tablespaces=$DISKS" ;;
            *)
                p=${sys%%_*}
                opts="-c srmsort.partitions=${p#p}"
                [ "$p" != auto ] || opts="-c srmsort.partitions=auto"
                case $sys in
                    *_direct) opts="$opts -c srmsort.direct_io=on" ;;
                    *_buf) opts="$opts -c srmsort.direct_io=off" ;;
                esac
                ;;
        esac
        logdir=$SRM_TMP/pgbench_${n}_$sys
        mkdir -p "$logdir"
        chown "$SRM_USER" "$logdir"
        if [ "$EMULATED" = 1 ]; then
            bash "$TOOL" dropcache >/dev/null 2>&1 || true
        fi
        if [ -n "$MEM" ]; then
            echo 0 >"$MEMCG/memory.force_empty" 2>/dev/null || true
            echo 0 >"$MEMCG/memory.max_usage_in_bytes"
        fi
        # the partitions srmsort's sorts take, sampled while the run lasts
        (trap - EXIT; while :; do
            srm_psql -qAt -c "SELECT string_agg(DISTINCT partition::text, ' ') FROM srmsort_activity" 2>/dev/null || true
            sleep 0.5
        done) >"$logdir/partitions" &
        sampler=$!
        b0=$(dev_bytes)
        t0=$(date +%s.%N)
        (cd "$logdir" && srm_as_user env PGOPTIONS="-c work_mem=$WORK_MEM -c srmsort.tablespaces=$DISKS $opts" \
            "$SRM_BIN/pgbench" -n -M simple -h "$SRM_TMP/sock" -p "$SRM_PORT" -U postgres \
            -c "$n" -j 2 -t "$TX" -f "$script" --log --log-prefix=lat postgres >pgbench.out 2>&1) ||
            { kill "$sampler"; cat "$logdir/pgbench.out"; srm_die "pgbench failed"; }
        t1=$(date +%s.%N)
        b1=$(dev_bytes)
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        peak=""
        [ -z "$MEM" ] || peak=$(($(cat "$MEMCG/memory.max_usage_in_bytes") / 1048576))
        line=$("$SRM_PYTHON" - "$logdir" "$t0" "$t1" "$b0" "$b1" "$MBPS" "$sys" <<'PY'
import glob, statistics, sys
d, t0, t1, b0, b1, mbps, sysname = sys.argv[1:8]
secs = float(t1) - float(t0)
lat = []
for f in glob.glob(d + "/lat*"):
    for l in open(f):
        p = l.split()
        if len(p) >= 3:
            lat.append(int(p[2]) / 1000.0)
lat.sort()
p95 = lat[int(0.95 * (len(lat) - 1))] if lat else 0
seen = set()
for l in open(d + "/partitions"):
    seen.update(l.split())
parts = "-" if sysname == "native" else (" ".join(sorted(seen, key=int)) or "?")
rd = wr = busy = ""
if b0.strip():
    a = [tuple(map(int, x.split(":"))) for x in b0.split()]
    b = [tuple(map(int, x.split(":"))) for x in b1.split()]
    r = [(b[i][0] - a[i][0]) / 1e6 for i in range(len(a))]
    w = [(b[i][1] - a[i][1]) / 1e6 for i in range(len(a))]
    rd = "/".join("%.0f" % x for x in r)
    wr = "/".join("%.0f" % x for x in w)
    busy = "/".join("%.2f" % ((r[i] + w[i]) / float(mbps) / secs) for i in range(len(a)))
print("%.3f,%.1f,%.1f,%d,%.1f,%s,%s,%s,%s" % (len(lat) / secs, statistics.mean(lat) if lat else 0,
                                          p95, len(lat), secs, parts, rd, wr, busy))
PY
)
        echo "$n,$sys,$line,$peak" >>"$csv"
        echo "  clients=$n $sys: sorts/s,mean_ms,p95_ms,sorts,seconds,partitions,read,written,busy,mem = $line,$peak"
    done
done
"$SRM_PYTHON" - "$csv" "${csv%.csv}.md" "$EMULATED" "$MBPS" "$MEM" "$ROWS" "$SLICE_MB" "$WORK_MEM" "$TX" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
emulated, mbps, mem, nrows, slice_mb, wm, tx = sys.argv[3:10]
with open(sys.argv[2], "w") as f:
    where = ("four emulated disks of %s MB/s each" % mbps) if emulated == "1" else "four tablespaces on one disk"
    f.write("pgbench: each client sorts its own slice of %s rows (%s MB; ORDER BY k OFFSET 1e12), "
            "%s times, work_mem %s; %s" % (nrows, slice_mb, tx, wm, where))
    if mem:
        f.write("; the server in a memory cgroup of %s (page cache included), so the sorts' "
                "workfiles do not stay in memory" % mem)
    f.write(".  Sorts/s: all sorts over the run's wall time.  Partitions: those srmsort's sorts "
            "took (sampled).  Per disk (e0/e1/e2/e3): MB read and written, busy share (bytes over "
            "cap over time).  The machine was shared with other work.\n\n")
    f.write("| clients | system | sorts/s | mean latency ms | p95 latency ms | sorts | partitions "
            "| MB read | MB written | busy share | mem peak MB |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        f.write("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["clients"], r["system"], r["sorts_per_s"], r["mean_ms"], r["p95_ms"], r["sorts"],
            r["partitions_seen"], r["mb_read"], r["mb_written"], r["busy"], r["mem_peak_mb"]))
print(open(sys.argv[2]).read())
PY
