#!/bin/bash
# test/pg_regress_diff.sh — differential run of PostgreSQL's own regression
# suite (src/test/regress) with and without srmsort.
#
# Runs the suite twice, installcheck style, against two throwaway clusters
# that differ only in srmsort: a plain one, and one with srmsort preloaded,
# srmsort.min_input_size = 0 and srmsort.min_work_mem = 64kB (srmsort takes
# every sort it can); both with work_mem = 64kB and the four tablespaces
# srm_d0..srm_d3 of test/lib.sh.  Then test/pg_regress_diff.py compares the
# two results directories, tolerating only rows of one result that come in
# another order (same multiset of rows), and reports every other
# difference.
#
# Run as root (installs the missing packages through lib.sh; 17, 18 and 19
# run in their Debian roots) or, for 15, as a user who has them.  The suite
# is upstream's, from Debian's source package of the server's major
# (test/pg_server.sh source N), cached outside the repo.  Where the
# archive does not serve that major's source (17 and 19 here), the newest
# older major's suite is run against the server instead, and said so: both
# runs use the same suite on the same server, so the comparison holds,
# though tests written for the older server fail in both.
#
# Options:
#   --pg N            PostgreSQL major version (15, 17, 18, 19; default
#                     $SRMSORT_PG or 15)
#   --pgsrc DIR       use this extracted PostgreSQL source tree
#   --cache DIR       cache for the suite's C modules
#                     (default /var/cache/srmsort-regress/<major>)
#   --out DIR         report directory (default /tmp/srmsort-regressdiff-DATE)
#   --serial          one test at a time (make installcheck); default is the
#                     parallel schedule with up to 20 concurrent tests
#   --extra-conf LINE one more postgresql.conf line for both clusters
#                     (repeatable)
#   --srm-conf LINE   one more postgresql.conf line for the srmsort cluster
#   --skip TEST       leave a test of the schedule out (repeatable): for an
#                     older suite that a newer server runs pathologically
#                     slowly (18's join_hash on 19 at work_mem = 64kB)
#   --keep            keep the work directory (clusters stopped all the same)
#
# Exit status: 0 no real differences, 1 real differences, 2 could not run.
set -euo pipefail
SRM_ARGV=("$@")

T0=$(date +%s)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PGSRC=""
CACHE=""
OUT=""
SERIAL=0
KEEP=0
EXTRA_CONF=""
SRM_CONF=""
SKIP=""
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) export SRMSORT_PG=$2; shift 2 ;;
        --pgsrc) PGSRC=$2; shift 2 ;;
        --cache) CACHE=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --serial) SERIAL=1; shift ;;
        --extra-conf) EXTRA_CONF="$EXTRA_CONF$2"$'\n'; shift 2 ;;
        --srm-conf) SRM_CONF="$SRM_CONF$2"$'\n'; shift 2 ;;
        --skip) SKIP="$SKIP $2"; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--pg N] [--pgsrc DIR] [--cache DIR] [--out DIR] [--serial] [--extra-conf LINE] [--srm-conf LINE] [--skip TEST] [--keep]" >&2
           exit 2 ;;
    esac
done

# lib.sh: srm_pick_user, srm_packages, srm_build, srm_cluster_start, srm_psql.
# Its srm_setup_tmp/srm_clean_leftovers are not used: they would stop the
# clusters of other runs of run_tests.sh on this machine.
. "$HERE/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

elapsed() { echo $(( $(date +%s) - T0 ))s; }
phase() { srm_log "[$(elapsed)] $*"; }

# ---- work directory, clusters, cleanup ----
WORK=$(mktemp -d /tmp/srmsort-regressdiff.XXXXXX)
chmod 755 "$WORK"
STARTED=""          # PGDATA directories of the clusters started
cleanup() {
    local d
    for d in $STARTED; do
        if [ -f "$d/postmaster.pid" ]; then
            srm_as_user "$SRM_BIN/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    if [ "$KEEP" = 1 ]; then
        echo "work directory kept: $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

srm_pick_user
srm_packages
PGXS_REGRESS=$SRM_PG_REGRESS
PG_CONFIG=$SRM_PG_CONFIG
CACHE=${CACHE:-/var/cache/srmsort-regress/$SRM_PG_MAJOR}

# ---- PostgreSQL's source: the server's major, else the newest older one
# whose source package the archive serves ----
PGVER=$(dpkg-query -W -f='${Version}' "postgresql-$SRM_PG_MAJOR")
SUITE_NOTE=""
if [ -z "$PGSRC" ]; then
    for m in $SRM_PG_MAJOR 18 15; do
        [ "$m" -le "$SRM_PG_MAJOR" ] || continue
        set +e
        PGSRC=$("$HERE/pg_server.sh" source "$m")
        rc=$?
        set -e
        [ $rc -eq 0 ] && break
        PGSRC=""
        [ $rc -eq 75 ] || srm_die "test/pg_server.sh source $m failed"
    done
    [ -n "$PGSRC" ] || srm_die "no PostgreSQL source package served for $SRM_PG_MAJOR or an older major"
    SRCVER=$(cat "$(dirname "$PGSRC")/stamp")
    if [ "$m" != "$SRM_PG_MAJOR" ]; then
        SUITE_NOTE="PostgreSQL $SRM_PG_MAJOR's source package is not served here: PostgreSQL $m's suite runs against the $SRM_PG_MAJOR server"
        srm_log "note: $SUITE_NOTE"
    fi
else
    PGSRC=$(cd "$PGSRC" && pwd)
    SRCVER="(given tree)"
fi
REGSRC=$PGSRC/src/test/regress
[ -f "$REGSRC/parallel_schedule" ] && [ -f "$REGSRC/regress.c" ] ||
    srm_die "$PGSRC is not a PostgreSQL source tree (no src/test/regress/parallel_schedule)"
grep -q "PG_MAJORVERSION_NUM $SRM_PG_MAJOR\b\|^PACKAGE_VERSION='$SRM_PG_MAJOR\." "$PGSRC/configure" ||
    srm_log "warning: $PGSRC does not look like PostgreSQL $SRM_PG_MAJOR"

# ---- the suite's C modules (regress.so, autoinc.so, refint.so), built with
# PGXS against the installed server's headers and flags ----
LIBDIR=$CACHE/lib
if ! mkdir -p "$LIBDIR" 2>/dev/null || [ ! -w "$LIBDIR" ]; then
    LIBDIR=$WORK/lib
    mkdir -p "$LIBDIR"
fi
phase "building regress.so, autoinc.so, refint.so in $LIBDIR"
for f in "$REGSRC/regress.c" "$PGSRC/contrib/spi/autoinc.c" "$PGSRC/contrib/spi/refint.c"; do
    cmp -s "$f" "$LIBDIR/$(basename "$f")" || cp "$f" "$LIBDIR/"
done
cat >"$LIBDIR/Makefile" <<EOF
# generated by test/pg_regress_diff.sh
MODULES = regress autoinc refint
# as contrib/spi/Makefile: the regression tests expect refint's messages
PG_CPPFLAGS = -DREFINT_VERBOSE
PG_CONFIG = $PG_CONFIG
PGXS := \$(shell \$(PG_CONFIG) --pgxs)
include \$(PGXS)
EOF
# rebuild when the server (its headers) changed
if [ "$(cat "$LIBDIR/SERVER" 2>/dev/null)" != "$PGVER $SRCVER" ]; then
    rm -f "$LIBDIR"/*.o "$LIBDIR"/*.so
fi
make -C "$LIBDIR" -s -j2 with_llvm=no >"$LIBDIR/build.log" 2>&1 ||
    { cat "$LIBDIR/build.log"; srm_die "building the regression modules failed"; }
echo "$PGVER $SRCVER" >"$LIBDIR/SERVER"
chmod -R a+rX "$LIBDIR"
for m in regress autoinc refint; do
    [ -f "$LIBDIR/$m.so" ] || srm_die "$LIBDIR/$m.so was not built"
done

# ---- srmsort, built and staged as test/run_tests.sh does ----
SRM_TMP=$WORK/build
mkdir -p "$SRM_TMP"
phase "building srmsort"
srm_build

# ---- the report directory ----
[ -n "$OUT" ] || OUT=/tmp/srmsort-regressdiff-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# ---- the two runs ----
regress_opts=(--inputdir="$REGSRC" --bindir="$SRM_BIN" --dlpath="$LIBDIR"
              --user=postgres --encoding=UTF8 --no-locale
              --schedule="$WORK/schedule")
# the suite's schedule, without the tests --skip names
awk -v skip="$SKIP" 'BEGIN { n = split(skip, s, " "); for (i = 1; i <= n; i++) drop[s[i]] = 1 }
    /^test:/ { line = "test:"; kept = 0
               for (i = 2; i <= NF; i++) if (!($i in drop)) { line = line " " $i; kept++ }
               if (kept) print line; next }
    { print }' "$REGSRC/parallel_schedule" >"$WORK/schedule"
[ -z "$SKIP" ] || srm_log "left out of the schedule:$SKIP"
if [ "$SERIAL" = 1 ]; then
    regress_opts+=(--max-connections=1)
else
    regress_opts+=(--max-concurrent-tests=20)
fi

run_suite() {   # run_suite NAME  (uses SRM_SO, SRM_EXTRA_CONF)
    local name=$1 rc
    SRM_TMP=$WORK/$name
    mkdir -p "$SRM_TMP/out"
    srm_cluster_start
    STARTED="$STARTED $SRM_PGDATA"
    phase "$name: cluster on port $SRM_PORT, running the regression suite"
    set +e
    srm_as_user "$PGXS_REGRESS" "${regress_opts[@]}" --host="$SRM_TMP/sock" --port="$SRM_PORT" \
        --outputdir="$SRM_TMP/out" >"$SRM_TMP/pg_regress.log" 2>&1
    rc=$?
    set -e
    grep -E 'tests (passed|failed)|tests? (passed|failed)' "$SRM_TMP/pg_regress.log" | tail -1 |
        sed -e 's/^ *//' -e "s/^/   $name: pg_regress: /"
    srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m fast -w -t 60 stop >/dev/null 2>&1 ||
        srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m immediate -w stop >/dev/null 2>&1 || true
    # keep what the report needs
    cp "$SRM_TMP/pg_regress.log" "$OUT/$name.pg_regress.log"
    cp "$SRM_TMP/server.log" "$OUT/$name.server.log"
    [ -f "$SRM_TMP/out/regression.diffs" ] && cp "$SRM_TMP/out/regression.diffs" "$OUT/$name.regression.diffs"
    rm -rf "$OUT/results-$name"
    cp -r "$SRM_TMP/out/results" "$OUT/results-$name"
    [ "$rc" -le 1 ] || srm_die "$name: pg_regress could not run (exit $rc): see $OUT/$name.pg_regress.log"
}

common_conf="work_mem = 64kB
$EXTRA_CONF"

SRM_SO_BUILT=$SRM_SO
SRM_SO=""
SRM_EXTRA_CONF="$common_conf"
run_suite plain

SRM_SO=$SRM_SO_BUILT
SRM_EXTRA_CONF="$common_conf
srmsort.min_input_size = 0
srmsort.min_work_mem = 64kB
$SRM_CONF"
run_suite srm

# ---- server trouble that the results may not show ----
for name in plain srm; do
    n=$(grep -cE 'terminated by signal|PANIC:|TRAP:|server process .* was terminated' "$OUT/$name.server.log" || true)
    [ "$n" = 0 ] || srm_log "$name: $n crash lines in $OUT/$name.server.log"
done

# ---- compare ----
phase "comparing"
set +e
"$PY" "$HERE/pg_regress_diff.py" "$OUT/results-plain" "$OUT/results-srm" \
    --plain-log "$OUT/plain.pg_regress.log" --srm-log "$OUT/srm.pg_regress.log" \
    --plain-server-log "$OUT/plain.server.log" --srm-server-log "$OUT/srm.server.log" \
    --report "$OUT/diffs.txt" | tee "$OUT/summary.txt"
rc=${PIPESTATUS[0]}
set -e
echo "source: $PGSRC ($SRCVER); server: $PGVER; report dir: $OUT"
[ -z "$SUITE_NOTE" ] || echo "note: $SUITE_NOTE" | tee -a "$OUT/summary.txt"
echo "total time: $(elapsed)"
exit "$rc"
