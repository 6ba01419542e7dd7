#!/bin/bash
# bench/disk_bound.sh — sorts larger than memory on D emulated disks: the
# situation srmsort is for.  PostgreSQL's sort (temp_tablespaces over the
# same disks) against srmsort's SRM and DSM merges, buffered and O_DIRECT,
# for ORDER BY (--mode sort) or CREATE INDEX (--mode index).
#
# How the memory is bounded (bench/memcg.sh).  The server runs in a
# cgroup-v1 memory cgroup of its own (a child of this script's, named
# srmsort_bench.PID) whose memory.limit_in_bytes is --mem: the limit counts
# the server's processes' memory, shared_buffers and every page of page
# cache they bring in -- the table's pages and the workfiles' -- so at most
# --mem of data can stay in memory, whatever the machine has.  The script
# checks that the postmaster is in that cgroup before it starts; every run
# resets and
# then reports the cgroup's peak usage (memory.max_usage_in_bytes, never
# above the limit) and how often the limit was hit (memory.failcnt): hits
# mean the kernel had to evict to stay in the bound.  Before each run the
# emulated disks' files and the cgroup's reclaimable pages are dropped
# (bench/disks.sh dropcache, memory.force_empty).  Each disk's loop device
# counts the bytes that really crossed it: a workfile read served from the
# page cache would show as fewer bytes read than written.
#
# The disks: bench/disks.sh (loop devices, cgroup-v1 blkio throttle on the
# root cgroup, where this script and so the server stay), --mbps MB/s each
# for reads and for writes, or --caps per disk (d0 first).  D = 1, 2, 4, 8
# take e0..e(D-1).
#
#   bench/disk_bound.sh                         # 50M int8 rows, 512MB bound, 30 MB/s
#   bench/disk_bound.sh --dataset records --rows 30000000 --systems native,srm_buf,srm_direct
#   bench/disk_bound.sh --mode index --rows 100000000 --mem 2GB
#   bench/disk_bound.sh --disks 4 --caps 30,30,15,15 --systems srm,srm_rr
#
# Options: --mode sort|index, --dataset int8|records, --rows N, --mem SIZE
# (the bound: 512MB; K/M/G), --mbps N (30), --caps LIST, --disks LIST
# ("1,2,4,8"), --systems LIST (bench/disk_bound.py's SYSTEMS; default
# native,srm_buf,srm_direct,dsm_buf,dsm_direct), --reps N (3), --work-mem
# (64MB), --maintenance-work-mem (1GB), --out DIR (bench/results/YYYY-MM-DD-disk-bound-MODE-DATASET, with a run.md),
# --pg N (the server version, as for the tests).  Needs root.
# SRMSORT_COMMIT names the code measured when the repository is an export
# (git archive) rather than a checkout.
set -euo pipefail
SRM_ARGV=("$@")

MODE=sort
DATASET=int8
ROWS=50000000
MEM=512MB
MBPS=30
CAPS=
DLIST=1,2,4,8
SYSTEMS=native,srm_buf,srm_direct,dsm_buf,dsm_direct
REPS=3
WORK_MEM=64MB
MWM=1GB
OUT=
while [ $# -gt 0 ]; do
    case "$1" in
        --mode) MODE=$2; shift ;;
        --dataset) DATASET=$2; shift ;;
        --rows) ROWS=$2; shift ;;
        --mem) MEM=$2; shift ;;
        --mbps) MBPS=$2; shift ;;
        --caps) CAPS=$2; shift ;;
        --disks) DLIST=$2; shift ;;
        --systems) SYSTEMS=$2; shift ;;
        --reps) REPS=$2; shift ;;
        --work-mem) WORK_MEM=$2; shift ;;
        --maintenance-work-mem) MWM=$2; shift ;;
        --out) OUT=$2; shift ;;
        --pg) export SRMSORT_PG=$2; shift ;;
        *) echo "unknown option $1 (see the header of $0)" >&2; exit 2 ;;
    esac
    shift
done

. "$(dirname "$0")/../test/lib.sh"
. "$(dirname "$0")/memcg.sh"
# the benchmark's cluster lives for hours: outside the tests' /tmp prefix,
# whose runners clean up what they take for leftovers
SRM_TMP_PREFIX=/var/tmp/srmsort-bench.
[ "$(id -u)" -eq 0 ] || srm_die "needs root (loop devices, blkio and memory cgroups)"
case "$MODE" in sort | index) ;; *) srm_die "--mode is sort or index" ;; esac
case "$DATASET" in
    int8) GEN="SELECT (random() * 9e18)::int8 AS k, i::int8 AS v FROM generate_series(1, $ROWS) i"
        DESC="int8 key + int8 payload" ;;
    records) GEN="SELECT decode(substr(md5(random()::text) || md5(random()::text), 1, 20), 'hex') AS k, repeat(substr(md5(i::text), 1, 30), 3) AS v FROM generate_series(1, $ROWS) i"
        DESC="10-byte random key + 90-byte payload" ;;
    *) srm_die "--dataset is int8 or records" ;;
esac
MEM_BYTES=$(memcg_bytes "$MEM")
DMAX=$(echo "$DLIST" | tr ',' '\n' | sort -n | tail -1)
NCAPS=0
[ -z "$CAPS" ] || NCAPS=$(echo "$CAPS" | tr ',' '\n' | wc -l)
[ "$NCAPS" -le "$DMAX" ] || DMAX=$NCAPS

TOOL=$SRM_REPO/bench/disks.sh
export SRMDISKS_ROOT=${SRMDISKS_ROOT:-/tmp/srmdisks}
export SRMDISKS_SIZE_MB=${SRMDISKS_SIZE_MB:-8192}

srm_packages
srm_bench_packages
srm_setup_tmp
srm_build

cleanup() {
    srm_cluster_stop
    memcg_remove
    bash "$TOOL" down --force >/dev/null 2>&1 || true
}
trap cleanup EXIT

SRMDISKS_OWNER=$SRM_USER bash "$TOOL" up "$DMAX" "$MBPS"
# this shell, and so the server it starts, where the disks' caps apply
bash "$TOOL" enter $$
memcg_create "$MEM_BYTES"
SRM_EXTRA_CONF="shared_buffers = '128MB'
max_parallel_workers_per_gather = 0
max_wal_size = '8GB'
checkpoint_timeout = '1h'
log_temp_files = -1" memcg_start_server

srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null
for i in $(seq 0 $((DMAX - 1))); do
    srm_psql -qc "CREATE TABLESPACE e$i LOCATION '$SRMDISKS_ROOT/d$i'" >/dev/null
done
srm_log "generating $ROWS rows ($DATASET)"
t0=$(date +%s)
srm_psql -q <<SQL >/dev/null
DO \$\$ BEGIN PERFORM setseed(0.42); END \$\$;
CREATE TABLE t AS $GEN;
VACUUM ANALYZE t;
SQL
TABLE_MB=$(srm_psql -qAt -c "SELECT pg_relation_size('t') / 1048576")
srm_log "table: $TABLE_MB MB in $(($(date +%s) - t0)) s"

srm_bench_outdir "disk-bound-$MODE-$DATASET" ${OUT:+--out "$OUT"}
OUT=$SRM_BENCH_OUT
KEY=k
if [ "$MODE" = index ]; then
    WHAT="CREATE INDEX t_k ON t (k), maintenance_work_mem $MWM (max_parallel_maintenance_workers 2, the default: the workers PostgreSQL plans, for both)"
    TITLE="CREATE INDEX larger than memory on D emulated disks"
else
    WHAT="SELECT * FROM t ORDER BY k OFFSET 1e12, work_mem $WORK_MEM, one backend (max_parallel_workers_per_gather 0)"
    TITLE="ORDER BY larger than memory on D emulated disks"
fi
SETUP="$(date -u '+%Y-%m-%d %H:%M UTC'), PostgreSQL $("$SRM_PG_CONFIG" --version | sed 's/^PostgreSQL //'), srmsort ${SRMSORT_COMMIT:-$SRM_RUN_COMMIT${SRM_RUN_DIRTY:++changes}}.

* Data: $ROWS rows of $DESC, $TABLE_MB MB of table ($(awk -v t="$TABLE_MB" -v m="$MEM_BYTES" 'BEGIN {printf "%.1f", t * 1048576 / m}')x the memory bound).
* Statement: $WHAT.
* Memory bound: the server in a cgroup-v1 memory cgroup limited to $MEM (shared_buffers 128MB; page cache included).
* Disks: D loop-device disks (bench/disks.sh), ${CAPS:-$MBPS} MB/s each for reads and writes (blkio throttle).
* Command: \`bench/disk_bound.sh --mode $MODE --dataset $DATASET --rows $ROWS --mem $MEM --mbps $MBPS${CAPS:+ --caps $CAPS} --disks $DLIST --systems $SYSTEMS --reps $REPS --work-mem $WORK_MEM${MODE:+} --out ${OUT#$SRM_REPO/}\`"
"$SRM_PYTHON" "$SRM_REPO/bench/disk_bound.py" --mode "$MODE" --key "$KEY" --disks "$DLIST" \
    --systems "$SYSTEMS" --reps "$REPS" --work-mem "$WORK_MEM" --maintenance-work-mem "$MWM" \
    --mbps "$MBPS" --caps "$CAPS" --mem-bytes "$MEM_BYTES" --cgroup "$MEMCG" --disks-tool "$TOOL" \
    --psql "$SRM_BIN/psql" --user "$SRM_USER" --out "$OUT" --title "$TITLE" \
    --plot-title "$ROWS rows ($DATASET), memory bound $MEM, $MODE" --setup-text "$SETUP"
cp "$SRM_TMP/server.log" "$OUT/server.log" 2>/dev/null || true
gzip -f "$OUT/server.log" 2>/dev/null || true
