# test/citus/cluster.sh — a Citus cluster on localhost for srmsort's Citus
# test (test/citus/run_citus.sh) and benchmark (bench/run_citus_bench.sh):
# a coordinator and two workers, each with citus and srmsort preloaded (in
# that order: Citus refuses to start otherwise), srmsort's settings in each
# node's own configuration, two tablespaces srm_d0 and srm_d1 per node.
#
# Source test/lib.sh first and set SRM_SO, SRM_EXT_CONF, SRM_BIN,
# SRM_PKGLIBDIR, SRM_SHAREDIR and SRM_USER (srm_packages and srm_build, or
# the exported SRMSORT_SO and SRMSORT_EXT_CONF of test/run_tests.sh), then:
#   citus_missing            prints why Citus cannot run here, or nothing
#   citus_cluster_start DIR  initdb + start the three nodes under DIR (owned
#                            by SRM_USER), add the workers; sets CITUS_C,
#                            CITUS_W1, CITUS_W2 (their ports) and CITUS_DIR
#   citus_psql PORT ...      psql on that node as postgres (ON_ERROR_STOP)
#   citus_log PORT           that node's server log
#   citus_cluster_stop       stop the nodes (their directories stay in DIR)
# Extra postgresql.conf lines: CITUS_COORD_CONF and CITUS_WORKER_CONF.

citus_missing() {
    if [ ! -f "$SRM_PKGLIBDIR/citus.so" ]; then
        echo "Citus is not installed for PostgreSQL $SRM_PG_MAJOR (no citus.so in $SRM_PKGLIBDIR)"
    elif [ ! -f "$SRM_SHAREDIR/extension/citus.control" ]; then
        echo "Citus is not installed for PostgreSQL $SRM_PG_MAJOR (no citus.control in $SRM_SHAREDIR/extension)"
    fi
}

# Three distinct free ports.
citus_ports() {
    local a b c
    a=$(srm_free_port)
    b=$a
    while [ "$b" = "$a" ]; do b=$(srm_free_port); done
    c=$a
    while [ "$c" = "$a" ] || [ "$c" = "$b" ]; do c=$(srm_free_port); done
    echo "$a $b $c"
}

citus_psql() {
    local port=$1
    shift
    srm_as_user "$SRM_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$CITUS_DIR/sock" -p "$port" \
        -U postgres -d postgres "$@"
}

citus_log() {
    echo "$CITUS_DIR/node$1.log"
}

citus_node_init() {
    local port=$1 extra=$2 d=$CITUS_DIR/node$1
    srm_as_user "$SRM_BIN/initdb" -D "$d" -A trust -U postgres --no-sync \
        >"$CITUS_DIR/initdb$port.log" 2>&1 ||
        { cat "$CITUS_DIR/initdb$port.log"; srm_die "initdb failed"; }
    cat >>"$d/postgresql.conf" <<EOF
shared_preload_libraries = 'citus, $SRM_SO'
$SRM_EXT_CONF
listen_addresses = 'localhost'
port = $port
unix_socket_directories = '$CITUS_DIR/sock'
fsync = off
log_line_prefix = '%m [%p] '
max_connections = 60
shared_buffers = '128MB'
$extra
EOF
    srm_as_user "$SRM_BIN/pg_ctl" -D "$d" -l "$(citus_log "$port")" -w -t 60 start >/dev/null ||
        { tail -n 20 "$(citus_log "$port")"; srm_die "node on port $port did not start"; }
    srm_as_user mkdir -p "$CITUS_DIR/ts$port/d0" "$CITUS_DIR/ts$port/d1"
    citus_psql "$port" <<EOF >/dev/null
CREATE EXTENSION citus;
CREATE EXTENSION srmsort;
CREATE EXTENSION amcheck;
CREATE TABLESPACE srm_d0 LOCATION '$CITUS_DIR/ts$port/d0';
CREATE TABLESPACE srm_d1 LOCATION '$CITUS_DIR/ts$port/d1';
-- srmsort's settings live in each node's configuration: a SET on the
-- coordinator does not reach the workers
ALTER SYSTEM SET srmsort.tablespaces = 'srm_d0, srm_d1';
SELECT pg_reload_conf();
EOF
}

citus_cluster_start() {
    CITUS_DIR=$1
    mkdir -p "$CITUS_DIR/sock"
    chown -R "$SRM_USER" "$CITUS_DIR"
    read -r CITUS_C CITUS_W1 CITUS_W2 <<<"$(citus_ports)"
    CITUS_PORTS="$CITUS_C $CITUS_W1 $CITUS_W2"
    citus_node_init "$CITUS_C" "${CITUS_COORD_CONF:-}"
    citus_node_init "$CITUS_W1" "${CITUS_WORKER_CONF:-}"
    citus_node_init "$CITUS_W2" "${CITUS_WORKER_CONF:-}"
    citus_psql "$CITUS_C" <<EOF >/dev/null
SELECT citus_set_coordinator_host('localhost', $CITUS_C);
SELECT citus_add_node('localhost', $CITUS_W1);
SELECT citus_add_node('localhost', $CITUS_W2);
EOF
}

citus_cluster_stop() {
    local p
    for p in ${CITUS_PORTS:-}; do
        if [ -f "$CITUS_DIR/node$p/postmaster.pid" ]; then
            srm_as_user "$SRM_BIN/pg_ctl" -D "$CITUS_DIR/node$p" -m immediate -w stop \
                >/dev/null 2>&1 || true
        fi
    done
    CITUS_PORTS=""
}
