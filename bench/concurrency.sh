#!/bin/bash
# bench/concurrency.sh — concurrent spilling sorts with pgbench.
#
# N clients each run SELECT * FROM slice_<client> ORDER BY k OFFSET 1e12 on
# their own table slice, for light (2 clients) and heavy (8 clients) load,
# with PostgreSQL's own sort and with srmsort at srmsort.partitions = 1, 2,
# 4 and auto over the four tablespaces srm_d0..srm_d3 (plain directories on
# one disk here).  Reports mean and 95th-percentile latency and throughput.
#
# Environment: ROWS per slice (300000), SECONDS_PER_RUN (20), WORK_MEM
# (4MB), LOADS ("2 8").  EMULATED=1 (root) puts the four disks on emulated
# disks of MBPS (100) MB/s each (bench/disks.sh) and
# makes srmsort use O_DIRECT.  Results: bench/results/concurrency.md, or
# concurrency_emulated.md.
set -euo pipefail
SRM_ARGV=("$@")
. "$(dirname "$0")/../test/lib.sh"

ROWS=${ROWS:-300000}
SECS=${SECONDS_PER_RUN:-20}
WORK_MEM=${WORK_MEM:-4MB}
LOADS=${LOADS:-"2 8"}
MAXC=$(echo $LOADS | tr ' ' '\n' | sort -n | tail -1)

EMULATED=${EMULATED:-0}
MBPS=${MBPS:-100}
TOOL=$SRM_REPO/bench/disks.sh
export SRMDISKS_ROOT=${SRMDISKS_ROOT:-/tmp/srmdisks}
DISKS=srm_d0,srm_d1,srm_d2,srm_d3
SUFFIX=
DIRECT=

srm_packages
srm_setup_tmp
srm_build
if [ "$EMULATED" = 1 ]; then
    [ "$(id -u)" -eq 0 ] || srm_die "EMULATED=1 needs root"
    SRMDISKS_OWNER=$SRM_USER bash "$TOOL" up 4 "$MBPS"
    trap 'srm_cluster_stop; bash "$TOOL" down --force >/dev/null 2>&1 || true' EXIT
    # this shell, and so the server it starts, where the caps apply
    bash "$TOOL" enter $$
    DISKS=e0,e1,e2,e3
    SUFFIX=_emulated
    DIRECT="-c srmsort.direct_io=on"
fi
SRM_EXTRA_CONF="max_connections = 40
max_parallel_workers_per_gather = 0" srm_cluster_start
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
script=$SRM_TMP/sort.sql
echo 'SELECT * FROM slice_:client_id ORDER BY k OFFSET 1e12;' >"$script"
chmod 644 "$script"

out=$SRM_REPO/bench/results
mkdir -p "$out"
csv=$out/concurrency$SUFFIX.csv
echo "clients,system,tps,mean_ms,p95_ms,transactions" >"$csv"
for n in $LOADS; do
    for sys in native p1 p2 p4 auto; do
        case $sys in
            native) opts="-c srmsort.enabled=off -c temp_tablespaces=$DISKS" ;;
            p1) opts="-c srmsort.partitions=1 $DIRECT" ;;
            p2) opts="-c srmsort.partitions=2 $DIRECT" ;;
            p4) opts="-c srmsort.partitions=4 $DIRECT" ;;
            auto) opts="-c srmsort.partitions=auto $DIRECT" ;;
        esac
        logdir=$SRM_TMP/pgbench_${n}_$sys
        mkdir -p "$logdir"
        chown "$SRM_USER" "$logdir"
        (cd "$logdir" && srm_as_user env PGOPTIONS="-c work_mem=$WORK_MEM -c srmsort.tablespaces=$DISKS $opts" \
            "$SRM_BIN/pgbench" -n -M simple -h "$SRM_TMP/sock" -p "$SRM_PORT" -U postgres \
            -c "$n" -j 2 -T "$SECS" -f "$script" --log --log-prefix=lat postgres >pgbench.out 2>&1) ||
            { cat "$logdir/pgbench.out"; srm_die "pgbench failed"; }
        line=$("$SRM_PYTHON" - "$logdir" "$SECS" <<'PY'
import glob, statistics, sys
lat = []
for f in glob.glob(sys.argv[1] + "/lat*"):
    for l in open(f):
        p = l.split()
        if len(p) >= 3:
            lat.append(int(p[2]) / 1000.0)
lat.sort()
p95 = lat[int(0.95 * (len(lat) - 1))] if lat else 0
print("%.2f,%.1f,%.1f,%d" % (len(lat) / float(sys.argv[2]), statistics.mean(lat) if lat else 0, p95, len(lat)))
PY
)
        echo "$n,$sys,$line" >>"$csv"
        echo "  clients=$n $sys: tps,mean_ms,p95_ms,n = $line"
    done
done
"$SRM_PYTHON" - "$csv" "$out/concurrency$SUFFIX.md" "$EMULATED" "$MBPS" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
with open(sys.argv[2], "w") as f:
    where = ("four emulated disks of %s MB/s each, srmsort with O_DIRECT" % sys.argv[4]) if sys.argv[3] == "1" \
        else "four tablespaces on one disk"
    f.write("pgbench: each client sorts its own slice (ORDER BY k OFFSET 1e12); %s.\n\n" % where)
    f.write("| clients | system | sorts/s | mean latency ms | p95 latency ms | sorts |\n|---|---|---|---|---|---|\n")
    for r in rows:
        f.write("| %s | %s | %s | %s | %s | %s |\n" % (r["clients"], r["system"], r["tps"], r["mean_ms"], r["p95_ms"], r["transactions"]))
print(open(sys.argv[2]).read())
PY
