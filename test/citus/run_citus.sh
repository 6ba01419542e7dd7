#!/bin/bash
# test/citus/run_citus.sh — srmsort on every node of a Citus cluster.
#
# Starts a coordinator and two workers on localhost (test/citus/cluster.sh:
# non-root owner, random free ports, removed on exit), distributes a table
# of a few million rows over 4 shards and checks that
#   - CREATE INDEX and REINDEX on the distributed table build every shard's
#     index through srmsort on its worker (srmsort.trace in the worker's
#     log), while the coordinator leaves its own (shell) index to core,
#   - every shard index passes amcheck's bt_index_parent_check with
#     heapallindexed,
#   - a reference table's index is built through srmsort on every node,
#     the coordinator's placement included (Citus's local execution),
#   - a shard move (block_writes: the indexes rebuilt through
#     worker_apply_shard_ddl_command) builds the moved index through
#     srmsort on its new worker, valid,
#   - the coordinator's ORDER BY runs as SRMSort over Citus's scan, with
#     results identical to srmsort.enabled = off,
#   - a LIMIT query's sorts on the workers run through srmsort, with results
#     identical to srmsort off on every node.
#
# Usage: test/citus/run_citus.sh [--pg N] [--rows N] [--keep]
#   --pg N     PostgreSQL major version (default: PG_CONFIG's, else 15)
#   --rows N   rows of the distributed table (default 3000000)
#   --keep     keep the temporary directory
# Run as root (the nodes run as the user postgres) or as a non-root user.
# Builds and stages srmsort itself, unless test/run_tests.sh has exported
# SRMSORT_SO and SRMSORT_EXT_CONF.  Exits 0 when every check passed, 1 when
# one failed, 77 (skipped, with the reason) when the server has no Citus.
set -euo pipefail
SRM_ARGV=("$@")

ROWS=3000000
if [ -n "${PG_CONFIG:-}" ] && [ -z "${SRMSORT_PG:-}" ]; then
    SRMSORT_PG=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
fi
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) SRMSORT_PG=$2; shift 2 ;;
        --rows) ROWS=$2; shift 2 ;;
        --keep) export SRMSORT_KEEP=1; shift ;;
        *) echo "usage: $0 [--pg N] [--rows N] [--keep]" >&2; exit 2 ;;
    esac
done
export SRMSORT_PG=${SRMSORT_PG:-15}

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
. "$HERE/cluster.sh"

if [ -n "${SRMSORT_SO:-}" ] && [ -n "${SRMSORT_EXT_CONF+set}" ]; then
    srm_pick_user
    srm_pg_paths
    SRM_SO=$SRMSORT_SO
    SRM_EXT_CONF=$SRMSORT_EXT_CONF
    prebuilt=yes
else
    srm_packages
    prebuilt=
fi
why=$(citus_missing)
if [ -n "$why" ]; then
    echo "SKIP: $why"
    exit 77
fi
srm_setup_tmp
trap 'citus_cluster_stop; srm_cluster_stop' EXIT
[ -n "$prebuilt" ] || srm_build

passed=0
failed=0
check() {
    local name=$1
    shift
    if "$@"; then
        echo "ok - $name"
        passed=$((passed + 1))
    else
        echo "not ok - $name"
        failed=$((failed + 1))
    fi
}
# the lines of a node's log since a mark
mark() { wc -l <"$(citus_log "$1")"; }
since() { tail -n +"$(($2 + 1))" "$(citus_log "$1")"; }
# how many times srmsort built index $2 on node $1 since mark $3
builds() { since "$1" "$3" | grep -c "srmsort: built index \"$2\"" || true; }

CITUS_COORD_CONF="srmsort.trace = on
work_mem = '4MB'"
CITUS_WORKER_CONF="srmsort.trace = on
work_mem = '4MB'
maintenance_work_mem = '16MB'"
srm_log "Citus cluster: a coordinator and two workers (PostgreSQL $SRM_PG_MAJOR)"
citus_cluster_start "$SRM_TMP/citus"
C=$CITUS_C
citus_psql "$C" -Atc "SELECT 'citus ' || extversion FROM pg_extension WHERE extname = 'citus'"

# ---- a table of $ROWS rows, distributed over 4 shards ----
# The data is loaded before distributing, so the coordinator's shell table
# keeps its local copy (Citus hides it, on disk until
# truncate_local_data_after_distributing_table): an index on the shell
# table has rows to sort, which shows whether srmsort stays out of it.
srm_log "loading $ROWS rows"
citus_psql "$C" <<EOF >/dev/null
SELECT setseed(0.26);
CREATE TABLE dist AS
SELECT (random() * 1e12)::int8 AS a, g::int8 AS i, md5(g::text) AS t
  FROM generate_series(1, $ROWS) g;
SET citus.shard_count = 4;
SET client_min_messages = warning;
SELECT create_distributed_table('dist', 'i');
EOF
shards=$(citus_psql "$C" -Atc "SELECT shardid || ' ' || nodeport FROM citus_shards
                                 WHERE table_name = 'dist'::regclass ORDER BY shardid")
echo "$shards" | sed 's/^/   shard /'
check "4 shards over the two workers" \
    test "$(echo "$shards" | awk '{print $2}' | sort -u | wc -l)-$(echo "$shards" | wc -l)" = "2-4"
check "every row on the shards" \
    test "$(citus_psql "$C" -Atc "SELECT count(*) FROM dist")" = "$ROWS"

# every shard's index built once more by srmsort on its worker since marks
# $m (an associative array of marks per port), each valid
declare -A m
marks() { local p; for p in $CITUS_PORTS; do m[$p]=$(mark "$p"); done; }
shards_built() {
    local want=$1 sid port n ok=0
    while read -r sid port; do
        n=$(builds "$port" "dist_a_$sid" "${m[$port]}")
        if [ "$n" != "$want" ]; then
            echo "   shard $sid on port $port: built by srmsort $n times, expected $want"
            ok=1
        fi
    done <<<"$shards"
    return $ok
}
shards_valid() {
    local sid port out ok=0
    while read -r sid port; do
        out=$(citus_psql "$port" -Atc "SELECT bt_index_parent_check('dist_a_$sid', true, true)" 2>&1) ||
            { echo "   dist_a_$sid: $out"; ok=1; }
    done <<<"$shards"
    return $ok
}
coord_left_alone() {
    local n
    n=$(since "$C" "${m[$C]}" | grep -c 'srmsort: built index' || true)
    [ "$n" = 0 ] || { echo "   srmsort built $n indexes on the coordinator"; return 1; }
}

# ---- CREATE INDEX on the distributed table ----
srm_log "CREATE INDEX"
marks
citus_psql "$C" -c "CREATE INDEX dist_a ON dist (a)"
check "CREATE INDEX: every shard's index built by srmsort on its worker" shards_built 1
check "CREATE INDEX: the coordinator's shell index left to core" coord_left_alone
check "CREATE INDEX: the shell index exists on the coordinator" \
    test "$(citus_psql "$C" -Atc "SELECT count(*) FROM pg_index WHERE indexrelid = 'dist_a'::regclass")" = 1
check "CREATE INDEX: every shard index passes bt_index_parent_check" shards_valid

# ---- REINDEX INDEX and REINDEX TABLE ----
srm_log "REINDEX"
marks
citus_psql "$C" -c "REINDEX INDEX dist_a"
check "REINDEX INDEX: every shard's index rebuilt by srmsort" shards_built 1
marks
citus_psql "$C" -c "REINDEX TABLE dist"
check "REINDEX TABLE: every shard's index rebuilt by srmsort" shards_built 1
check "REINDEX: the coordinator's shell index left to core" coord_left_alone
check "REINDEX: every shard index passes bt_index_parent_check" shards_valid

# ---- a reference table: a placement on every node, the coordinator's
# through Citus's local execution (a statement nested in the unarmed one) ----
srm_log "reference table"
citus_psql "$C" <<EOF >/dev/null
SET client_min_messages = warning;
CREATE TABLE ref AS SELECT (random() * 1e9)::int8 AS a, g AS i FROM generate_series(1, 200000) g;
SELECT create_reference_table('ref');
SELECT truncate_local_data_after_distributing_table('ref');
EOF
rsid=$(citus_psql "$C" -Atc "SELECT shardid FROM pg_dist_shard WHERE logicalrelid = 'ref'::regclass")
marks
citus_psql "$C" -c "CREATE INDEX ref_a ON ref (a)"
ref_built() {
    local p n ok=0
    for p in $CITUS_PORTS; do
        n=$(builds "$p" "ref_a_$rsid" "${m[$p]}")
        [ "$n" = 1 ] || { echo "   port $p: ref_a_$rsid built by srmsort $n times"; ok=1; }
        n=$(builds "$p" "ref_a" "${m[$p]}")
        [ "$n" = 0 ] || { echo "   port $p: the shell index ref_a built by srmsort"; ok=1; }
        citus_psql "$p" -Atc "SELECT bt_index_parent_check('ref_a_$rsid', true, true)" >/dev/null || ok=1
    done
    return $ok
}
check "reference table: its placement's index built by srmsort on every node, valid" ref_built

# ---- the coordinator's ORDER BY: SRMSort over Citus's scan ----
srm_log "ORDER BY on the coordinator"
q="SELECT a, i, t FROM dist ORDER BY a, i"
plan=$(citus_psql "$C" -Atc "EXPLAIN (COSTS OFF) $q")
echo "$plan" | sed 's/^/   /' | head -n 8
check "ORDER BY: SRMSort at the top of the coordinator's plan" \
    grep -q '^Custom Scan (SRMSort)' <<<"$(head -n 1 <<<"$plan")"
check "ORDER BY: with Citus's scan as its input" \
    grep -qE '^  ->  Custom Scan \(Citus Adaptive\)' <<<"$plan"
facts=$(citus_psql "$C" -Atc "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q" | grep -m 1 'Sort Method' || true)
echo "   $facts"
check "ORDER BY: srmsort sorted the rows" grep -q 'SRM' <<<"$facts"
sum_on=$(citus_psql "$C" -Atc "$q" | md5sum)
sum_off=$(citus_psql "$C" -At -c "SET srmsort.enabled = off" -c "$q" | md5sum)
check "ORDER BY: the same rows in the same order as srmsort.enabled = off" test "$sum_on" = "$sum_off"

# ---- a LIMIT query: the sorts on the workers ----
srm_log "ORDER BY ... LIMIT: the workers' sorts"
# (on t, which no index serves: the workers sort)
lq="SELECT a, i, t FROM dist ORDER BY t, i LIMIT $((ROWS / 8))"
task_srmsorts() { sed -n '/->  Task/,$p' <<<"$1" | grep -c 'Custom Scan (SRMSort)' || true; }
wplan=$(citus_psql "$C" -At -c "SET citus.explain_all_tasks = on" -c "EXPLAIN (COSTS OFF) $lq")
echo "$wplan" | sed 's/^/   /' | head -n 14
tasks_srm=$(task_srmsorts "$wplan")
check "LIMIT: the four shards' sorts run as SRMSort on the workers ($tasks_srm)" test "$tasks_srm" = 4
lsum_on=$(citus_psql "$C" -Atc "$lq" | md5sum)
workers_srmsort() {
    local p
    for p in $CITUS_W1 $CITUS_W2; do
        citus_psql "$p" -c "ALTER SYSTEM SET srmsort.enabled = $1" -c "SELECT pg_reload_conf()" >/dev/null
    done
    sleep 1
}
workers_srmsort off
wplan=$(citus_psql "$C" -At -c "SET citus.explain_all_tasks = on" -c "EXPLAIN (COSTS OFF) $lq")
check "LIMIT: srmsort.enabled = off in the workers' configuration takes effect" \
    test "$(task_srmsorts "$wplan")" = 0
lsum_off=$(citus_psql "$C" -At -c "SET srmsort.enabled = off" -c "$lq" | md5sum)
workers_srmsort on
check "LIMIT: the same rows in the same order as srmsort off on every node" test "$lsum_on" = "$lsum_off"

# ---- a shard move: indexes rebuilt through worker_apply_shard_ddl_command ----
srm_log "moving a shard"
read -r sid from <<<"$(head -n 1 <<<"$shards")"
if [ "$from" = "$CITUS_W1" ]; then to=$CITUS_W2; else to=$CITUS_W1; fi
marks
citus_psql "$C" -Atc "SELECT citus_move_shard_placement($sid, 'localhost', $from, 'localhost', $to,
                                                      shard_transfer_mode => 'block_writes')" >/dev/null
shards=$(citus_psql "$C" -Atc "SELECT shardid || ' ' || nodeport FROM citus_shards
                                 WHERE table_name = 'dist'::regclass ORDER BY shardid")
check "move: shard $sid now on port $to" grep -qx "$sid $to" <<<"$shards"
check "move: its index built by srmsort on the new worker" \
    test "$(builds "$to" "dist_a_$sid" "${m[$to]}")" = 1
check "move: every shard index passes bt_index_parent_check" shards_valid
check "move: ORDER BY gives the same rows as before" \
    test "$(citus_psql "$C" -Atc "$q" | md5sum)" = "$sum_on"

for p in $CITUS_PORTS; do
    if grep -nE 'PANIC|TRAP|server process .* was terminated' "$(citus_log "$p")"; then
        check "no crash on port $p" false
    fi
done
if [ "$failed" -gt 0 ]; then
    for p in $CITUS_PORTS; do
        echo "---- errors in the log of port $p ----"
        grep -nE 'ERROR|FATAL|PANIC' "$(citus_log "$p")" | tail -n 20 || true
    done
fi
echo "citus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
