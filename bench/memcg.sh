# bench/memcg.sh — sourced by the benchmarks that bound the server's memory
# (bench/disk_bound.sh, bench/concurrency.sh MEM=...), after test/lib.sh.
#
# The bound is a cgroup-v1 memory cgroup of the server's own: a child of
# the cgroup the script runs in, named srmsort_bench.PID, whose
# memory.limit_in_bytes counts the server's processes' memory, its
# shared_buffers and every page of page cache they bring in (the tables'
# and the workfiles'), so at most that much of the data stays in memory.
#
#   memcg_create BYTES    make the cgroup (MEMCG: its directory)
#   memcg_start_server    srm_cluster_start from inside it (its processes
#                         inherit it; the script leaves it again), then
#                         check that the postmaster is in it and in the
#                         root blkio cgroup (where bench/disks.sh's caps
#                         apply)
#   memcg_remove          move what is left to the parent, remove it (for
#                         the EXIT trap, after srm_cluster_stop)

memcg_create() {
    local bytes=$1 root self
    root=$(findmnt -rn -t cgroup -o TARGET | while read -r m; do
        [ -f "$m/memory.limit_in_bytes" ] && echo "$m" && break; done)
    [ -n "$root" ] || srm_die "no cgroup-v1 memory controller mounted"
    self=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
    MEMCG=$root${self%/}/srmsort_bench.$$
    MEMCG_NAME=${self%/}/srmsort_bench.$$
    mkdir "$MEMCG"
    echo "$bytes" >"$MEMCG/memory.limit_in_bytes"
}

memcg_start_server() {
    local pm
    echo $$ >"$MEMCG/cgroup.procs"
    srm_cluster_start
    echo $$ >"$(dirname "$MEMCG")/cgroup.procs"
    pm=$(head -1 "$SRM_PGDATA/postmaster.pid")
    grep -q "memory:$MEMCG_NAME\$" "/proc/$pm/cgroup" ||
        srm_die "the postmaster is not in $MEMCG"
    grep -q "blkio:/\$" "/proc/$pm/cgroup" ||
        srm_die "the postmaster is not in the root blkio cgroup"
    srm_log "server (pid $pm) in memory cgroup $MEMCG, limit $(cat "$MEMCG/memory.limit_in_bytes") bytes"
}

memcg_remove() {
    [ -n "${MEMCG:-}" ] && [ -d "$MEMCG" ] || return 0
    while read -r pid; do
        echo "$pid" >"$(dirname "$MEMCG")/cgroup.procs" 2>/dev/null || true
    done <"$MEMCG/cgroup.procs"
    rmdir "$MEMCG" 2>/dev/null || echo "left behind: $MEMCG" >&2
}

# bytes of a size such as 512MB or 1G
memcg_bytes() {
    local n=${1%[KMGkmg]*} u=${1##*[0-9]}
    u=${u%B}
    case "$u" in
        "") echo "$n" ;; K | k) echo $((n * 1024)) ;; M | m) echo $((n * 1024 * 1024)) ;;
        G | g) echo $((n * 1024 * 1024 * 1024)) ;; *) srm_die "bad size $1" ;;
    esac
}
