# test/lib.sh — shared by test/run_tests.sh, demo/run_demo.sh and
# bench/run_bench.sh: install missing Debian packages, build and stage an
# install, and run a throwaway PostgreSQL cluster owned by a non-root user.
#
# The PostgreSQL major version is $SRMSORT_PG (15, 17, 18 or 19; default
# 15).  15 is this Debian 12 machine's package; 17, 18 and 19 are Debian's
# packages inside Debian roots that test/pg_server.sh makes and enters
# (srm_packages re-runs the calling script there, with the arguments it
# saved in SRM_ARGV).  Every path of the server (binaries, pkglibdir,
# sharedir, pgxs, pg_regress, the TAP modules) comes from its pg_config.
#
# Source it, then call (in order):
#   srm_packages        install what is missing (root) or say what is
#                       (non-root), build or find the server, set the paths
#   srm_build           build with warnings as errors, stage an install
#   srm_build_unit      the same for the unit tests' module (test/unit)
#   srm_cluster_start   initdb + start a cluster with four tablespaces
#   srm_psql ...        run psql against it as the cluster owner
#   srm_cluster_stop    stop and remove it (also done by the EXIT trap)
#
# Variables set: SRM_REPO, SRM_TMP, SRM_INST, SRM_PGDATA, SRM_PORT, SRM_USER,
# SRM_PG_MAJOR, SRM_PG_CONFIG, SRM_BIN, SRM_PKGLIBDIR, SRM_SHAREDIR,
# SRM_PG_REGRESS, SRM_TAP_PERL, SRM_SO, SRM_EXT_CONF.

SRM_REPO=${SRM_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SRM_PG_MAJOR=${SRMSORT_PG:-15}
case "$SRM_PG_MAJOR" in
    15 | 17 | 18 | 19) SRM_PACKAGES="postgresql-$SRM_PG_MAJOR postgresql-server-dev-$SRM_PG_MAJOR liburing-dev libipc-run-perl make gcc" ;;
    *) printf 'error: PostgreSQL %s is not supported (15, 17, 18 or 19)\n' "$SRM_PG_MAJOR" >&2; exit 2 ;;
esac
SRM_TMP_PREFIX=/tmp/srmsort-test.

srm_log() { printf '== %s\n' "$*"; }
srm_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The user that owns and runs the cluster: never root.
srm_pick_user() {
    if [ "$(id -u)" -eq 0 ]; then
        SRM_USER=postgres
        id "$SRM_USER" >/dev/null 2>&1 || useradd --system --create-home "$SRM_USER"
    else
        SRM_USER=$(id -un)
    fi
}

# Run a command as the cluster owner.
srm_as_user() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u "$SRM_USER" -- "$@"
    else
        "$@"
    fi
}

srm_pkg_missing() {
    local p missing=""
    for p in $SRM_PACKAGES; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing="$missing $p"
        fi
    done
    echo "$missing"
}

# Re-run the calling script inside the Debian root of a major that is not
# this machine's own (test/pg_server.sh run), unless already inside one.
srm_enter_root() {
    [ "$SRM_PG_MAJOR" != 15 ] && [ ! -f /etc/srmsort-root ] || return 0
    [ -n "${SRM_ARGV+set}" ] ||
        srm_die "PostgreSQL $SRM_PG_MAJOR runs in a Debian root: $0 does not say how to re-run itself there (SRM_ARGV)"
    [ "$(id -u)" -eq 0 ] ||
        srm_die "PostgreSQL $SRM_PG_MAJOR runs in a Debian root (test/pg_server.sh), which takes root to make and enter"
    srm_log "PostgreSQL $SRM_PG_MAJOR: running $(basename "$0") in its Debian root"
    srm_run_origin
    exec "$SRM_REPO/test/pg_server.sh" run "$SRM_PG_MAJOR" -- \
        /bin/sh -c 'cd "$1" 2>/dev/null || cd "$2"; shift 2; exec "$@"' sh "$PWD" "$SRM_REPO" \
        "$(readlink -f "$0")" ${SRM_ARGV[@]+"${SRM_ARGV[@]}"}
}

srm_packages() {
    local missing
    srm_enter_root
    missing=$(srm_pkg_missing)
    if [ "$(id -u)" -eq 0 ]; then
        # Debian's server and its headers must be the same minor version
        local sv="" dv=""
        if [ "$SRM_PG_MAJOR" = 15 ]; then
            sv=$(dpkg-query -W -f='${Version}' "postgresql-$SRM_PG_MAJOR" 2>/dev/null || true)
            dv=$(dpkg-query -W -f='${Version}' "postgresql-server-dev-$SRM_PG_MAJOR" 2>/dev/null || true)
        fi
        if [ -n "$missing" ] && [ -f /etc/srmsort-root ]; then
            srm_die "the Debian root lacks$missing: make it anew (test/pg_server.sh remake $SRM_PG_MAJOR)"
        fi
        if [ -n "$missing" ] || [ "$sv" != "$dv" ]; then
            srm_log "installing Debian packages:${missing:- (version alignment)}"
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -qq >/dev/null
            apt-get install -y -qq $SRM_PACKAGES >/dev/null
        fi
    elif [ -n "$missing" ]; then
        srm_die "missing Debian packages:$missing (as root: apt-get install$missing)"
    fi
    srm_pg_paths
}

# The server of $SRM_PG_MAJOR (built by test/pg_server.sh unless cached) and
# every path the scripts need, from its pg_config.
srm_pg_paths() {
    srm_enter_root
    SRM_PG_CONFIG=$("$SRM_REPO/test/pg_server.sh" "$SRM_PG_MAJOR") ||
        srm_die "no PostgreSQL $SRM_PG_MAJOR server (test/pg_server.sh $SRM_PG_MAJOR failed)"
    SRM_BIN=$("$SRM_PG_CONFIG" --bindir)
    SRM_PKGLIBDIR=$("$SRM_PG_CONFIG" --pkglibdir)
    SRM_SHAREDIR=$("$SRM_PG_CONFIG" --sharedir)
    # pgxs.mk is <pgxs>/src/makefiles/pgxs.mk; pg_regress and the TAP
    # modules are installed beside it under <pgxs>/src/test
    local pgxs_src
    pgxs_src=$(dirname "$(dirname "$("$SRM_PG_CONFIG" --pgxs)")")
    SRM_PG_REGRESS=$pgxs_src/test/regress/pg_regress
    SRM_TAP_PERL=$pgxs_src/test/perl
    [ -x "$SRM_BIN/initdb" ] || srm_die "PostgreSQL $SRM_PG_MAJOR binaries not found in $SRM_BIN"
    [ -x "$SRM_PG_REGRESS" ] || srm_die "pg_regress not found at $SRM_PG_REGRESS"
    [ -f "$SRM_TAP_PERL/PostgreSQL/Test/Cluster.pm" ] ||
        srm_die "the TAP modules (PostgreSQL::Test::Cluster) not found in $SRM_TAP_PERL"
    srm_log "PostgreSQL $("$SRM_PG_CONFIG" --version | sed 's/^PostgreSQL //') ($SRM_BIN)"
}

# The benchmarks run Debian's Python (its python3-matplotlib draws the
# plots), not whatever python3 comes first in PATH.
if [ -x /usr/bin/python3 ]; then SRM_PYTHON=/usr/bin/python3; else SRM_PYTHON=python3; fi

# A benchmark's throwaway cluster: packages (with $2 = plots, matplotlib
# too), build, a cluster with shared_buffers 1GB and max_wal_size $1, the
# extension.
srm_bench_cluster() {
    srm_packages
    [ "${2:-}" != plots ] || srm_bench_packages
    srm_setup_tmp
    srm_build
    SRM_EXTRA_CONF="shared_buffers = '1GB'
max_wal_size = '$1'
log_temp_files = -1" srm_cluster_start
    srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null
}

# Install Debian packages quietly (root), updating the package lists once
# if the first try fails; the status says whether it worked.
srm_apt_try() {
    # waits for dpkg's lock: run_tests.sh --pg all may be installing into
    # a Debian root meanwhile
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$@" >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$@" >/dev/null 2>&1; }
}

# Whether the package lists offer a version of package $1.  The output is
# read whole: under pipefail, `apt-cache policy | grep -q` fails whenever
# grep quits before apt-cache has written its version table (SIGPIPE),
# which skipped the PostGIS test on some runs and not others.
srm_apt_candidate() {
    local out
    out=$(apt-cache policy "$1" 2>/dev/null) || return 1
    [[ $out == *"Candidate: "[0-9]* ]]
}

# PostGIS for the GiST tests (test/t/180_postgis.pl), where Debian ships
# it for the server under test (postgresql-N-postgis-3: 15 on this machine,
# 17 in trixie, 18 in sid; none for 19), installed on demand as root like
# the other optional packages.  Sets SRMSORT_POSTGIS for the test: "yes"
# (installed: the test must run), or "skip:REASON" (no package for this
# server, or not root and not installed).  A package the archive lists but
# that fails to install stays "yes": the test then fails, as it should.
srm_postgis() {
    local pkg=postgresql-$SRM_PG_MAJOR-postgis-3
    export SRMSORT_POSTGIS=yes
    if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        SRMSORT_POSTGIS="skip:$pkg is not installed (as root: apt-get install $pkg)"
        return 0
    fi
    # the package lists as they are (the roots' are not updated for this)
    if ! srm_apt_candidate "$pkg"; then
        SRMSORT_POSTGIS="skip:Debian ships no $pkg"
        return 0
    fi
    srm_log "installing $pkg for the PostGIS test"
    srm_apt_try --no-install-recommends "$pkg" ||
        srm_log "$pkg could not be installed: the PostGIS test will fail"
}

# The benchmarks' plots need matplotlib: installed as root when missing
# (best effort; without it the benchmarks write their tables only).
srm_bench_packages() {
    "$SRM_PYTHON" -c 'import matplotlib' 2>/dev/null && return 0
    if [ "$(id -u)" -eq 0 ]; then
        srm_log "installing python3-matplotlib for the plots"
        srm_apt_try python3-matplotlib ||
            srm_log "python3-matplotlib could not be installed: no plots"
    else
        srm_log "python3-matplotlib is missing (as root: apt-get install python3-matplotlib): no plots"
    fi
}

# DuckDB's Python module for bench.py's "duckdb" system, installed with pip
# into a directory outside the repository, one per Python version, when
# missing (root; best effort: without it the benchmark leaves DuckDB out
# and says so).  A Python without pip (the Debian roots' for 17 and 19)
# gets python3-pip first.  Sets SRM_PYTHONPATH for the benchmark's
# environment.
srm_bench_duckdb() {
    local dir
    SRM_PYTHONPATH=""
    "$SRM_PYTHON" -c 'import duckdb' 2>/dev/null && return 0
    dir=${SRMSORT_PY_CACHE:-/var/cache/srmsort-py}/$("$SRM_PYTHON" -c \
        'import sys; print("py%d.%d" % sys.version_info[:2])')
    if [ ! -d "$dir/duckdb" ]; then
        if [ "$(id -u)" -ne 0 ]; then
            srm_log "the duckdb Python module is missing (as root: pip install duckdb): no duckdb"
            return 0
        fi
        if ! "$SRM_PYTHON" -m pip --version >/dev/null 2>&1; then
            srm_log "installing python3-pip for DuckDB's Python module"
            srm_apt_try python3-pip ||
                { srm_log "python3-pip could not be installed: no duckdb"; return 0; }
        fi
        srm_log "installing DuckDB's Python module into $dir"
        # --target writes to $dir alone: nothing of the system's Python
        # changes, which is what Debian's "externally managed" guards
        "$SRM_PYTHON" -m pip install -q --target "$dir" duckdb >/dev/null 2>&1 ||
            "$SRM_PYTHON" -m pip install -q --break-system-packages --target "$dir" duckdb \
                >/dev/null 2>&1 ||
            { srm_log "duckdb could not be installed with pip: no duckdb"; rm -rf "$dir"; return 0; }
    fi
    SRM_PYTHONPATH=$dir
}

# Run one of bench/'s Python scripts as the cluster's owner, connected to
# the benchmark cluster, with bench/ (and DuckDB's module, when
# srm_bench_duckdb found one) on its module path.
srm_bench_py() {
    local script=$1
    shift
    srm_as_user env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER=postgres PGDATABASE=postgres \
        PYTHONPATH="$SRM_REPO/bench${SRM_PYTHONPATH:+:$SRM_PYTHONPATH}" \
        "$SRM_PYTHON" "$SRM_REPO/bench/$script" "$@"
}

# The environment bench/'s scripts read besides their arguments: run.md
# repeats whichever of these the command was given.
SRM_BENCH_ENV_NAMES="SRMSORT_PG SRMDISKS_SIZE_MB SRMDISKS_ROOT EMULATED MEM ROWS WORK_MEM LOADS TX MBPS SYSTEMS OUT D_LIST REPS"

# One word of a command line as a shell reads it back: quoted only when it
# must be.
srm_shell_word() {
    case "$1" in
        "" | *[!A-Za-z0-9_./,:=+@%-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;;
        *) printf '%s' "$1" ;;
    esac
}

# What run.md says of the code and the command: the commit, whether the
# tree (bench/results aside) differs from it, and the command line.  Taken
# once, on the host: exported, so that the script re-run in a Debian root
# (srm_enter_root), which has no git, inherits it.
srm_run_origin() {
    [ -z "${SRM_RUN_COMMIT:-}" ] || return 0
    local a v cmd="" script
    SRM_RUN_COMMIT=$(git -C "$SRM_REPO" rev-parse --short=12 HEAD 2>/dev/null) ||
        SRM_RUN_COMMIT="unknown (not a git checkout)"
    SRM_RUN_DIRTY=$(git -C "$SRM_REPO" status --porcelain -- . ':(exclude)bench/results' \
        2>/dev/null | cut -c4- | head -20 | tr '\n' ' ')
    for v in $SRM_BENCH_ENV_NAMES; do
        [ -n "$(printenv "$v")" ] || continue
        # --pg N sets SRMSORT_PG itself
        [ "$v" != SRMSORT_PG ] || case " ${SRM_ARGV[*]-} " in *" --pg"*) continue ;; esac
        cmd+="$v=$(srm_shell_word "$(printenv "$v")") "
    done
    script=$(readlink -f "$0")
    cmd+=${script#"$SRM_REPO"/}
    for a in ${SRM_ARGV[@]+"${SRM_ARGV[@]}"}; do cmd+=" $(srm_shell_word "$a")"; done
    SRM_RUN_CMD=$cmd
    export SRM_RUN_COMMIT SRM_RUN_DIRTY SRM_RUN_CMD
}

# A directory bench/'s scripts write into, writable for the cluster's
# owner, who writes the results.
srm_bench_mkdir() {
    mkdir -p "$1"
    chmod 777 "$1" 2>/dev/null || true
}

# The profiles (bench/profile.sh, bench/profile_build.sh) run the server
# under callgrind: stop with how to get valgrind where it is missing.
srm_need_valgrind() {
    command -v valgrind >/dev/null ||
        srm_die "valgrind is missing (apt-get install valgrind; in a root: test/pg_server.sh run $SRM_PG_MAJOR -- apt-get install -y valgrind)"
}

# A benchmark run's results directory, SRM_BENCH_OUT: the --out argument
# among "$@" (the last), else bench/results/YYYY-MM-DD-$1 (-2, -3, ... when
# taken).  Writes its run.md: when, which code (commit, and the files that
# differ from it), which server, the machine's load, the exact command.
# Call it once the server is known (after srm_packages).
srm_bench_outdir() {
    local slug=$1 out="" prev="" a n=2 when
    shift
    for a in "$@"; do
        [ "$prev" != --out ] || out=$a
        case "$a" in --out=*) out=${a#--out=} ;; esac
        prev=$a
    done
    when=$(date -u '+%Y-%m-%d %H:%M UTC')
    if [ -z "$out" ]; then
        out=$SRM_REPO/bench/results/$(date -u +%F)-$slug
        while [ -e "$out" ]; do
            out=$SRM_REPO/bench/results/$(date -u +%F)-$slug-$n
            n=$((n + 1))
        done
    fi
    case "$out" in /*) ;; *) out=$PWD/$out ;; esac
    # a Debian root (17, 18, 19) has the repository bound, nothing else:
    # results written elsewhere would vanish with its mount namespace
    if [ -f /etc/srmsort-root ]; then
        case "$out/" in
            "$SRM_REPO"/*) ;;
            *) srm_die "--out $out: PostgreSQL $SRM_PG_MAJOR runs in a Debian root that sees only the repository; give a directory under $SRM_REPO" ;;
        esac
    fi
    srm_bench_mkdir "$out"
    SRM_BENCH_OUT=$out
    srm_run_origin
    {
        echo "# ${out##*/}"
        echo
        echo "* Started: $when"
        if [ -n "$SRM_RUN_DIRTY" ]; then
            echo "* Code: srmsort $SRM_RUN_COMMIT, tree dirty (differs from the commit in: ${SRM_RUN_DIRTY% })"
        else
            echo "* Code: srmsort $SRM_RUN_COMMIT, tree clean"
        fi
        echo "* Server: $("$SRM_PG_CONFIG" --version)"
        echo "* Machine: $(hostname), $(nproc) CPUs, $(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); at the start: $(uptime | sed 's/^ *//')"
        echo "* Command, from the repository's top:"
        echo
        echo '```sh'
        echo "$SRM_RUN_CMD"
        echo '```'
    } >"$out/run.md"
    srm_log "results: ${out#"$SRM_REPO"/} (srmsort $SRM_RUN_COMMIT${SRM_RUN_DIRTY:+, tree dirty})"
}

# Remove clusters of interrupted earlier runs (only our own prefix).
srm_clean_leftovers() {
    local d pid
    for d in "$SRM_TMP_PREFIX"*; do
        [ -d "$d" ] || continue
        # another run in progress (its runner alive, or a run of an older
        # runner without runner.pid started within the hour): not a leftover
        pid=$(cat "$d/runner.pid" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            continue
        fi
        if [ -z "$pid" ] && [ -n "$(find "$d" -maxdepth 0 -mmin -60 2>/dev/null)" ]; then
            continue
        fi
        if [ -f "$d/data/postmaster.pid" ]; then
            pid=$(head -1 "$d/data/postmaster.pid" 2>/dev/null || true)
            if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
                srm_log "stopping a leftover cluster in $d"
                kill -QUIT "$pid" 2>/dev/null || true
                sleep 1
            fi
        fi
        rm -rf "$d" 2>/dev/null || true
    done
}

# Build with warnings as errors and stage an install in $SRM_INST.  The
# build runs in a copy of what it needs under $SRM_TMP, so that runs of
# several versions at once, and edits during a run, cannot mix objects.
srm_build() {
    local src=$SRM_TMP/src
    mkdir -p "$src"
    (cd "$SRM_REPO" && tar cf - Makefile ./*.control ./*.sql src) | (cd "$src" && tar xf -)
    SRM_BUILD_DIR=$src
    local mk=(make -C "$src" -s PG_CONFIG="$SRM_PG_CONFIG" with_llvm=no)
    srm_log "building in $src (PostgreSQL $SRM_PG_MAJOR)"
    "${mk[@]}" clean >/dev/null 2>&1 || true
    "${mk[@]}" WERROR=1 >"$SRM_TMP/build.log" 2>&1 ||
        { cat "$SRM_TMP/build.log"; srm_die "build failed"; }
    SRM_INST=$SRM_TMP/inst
    "${mk[@]}" install DESTDIR="$SRM_INST" >>"$SRM_TMP/build.log" 2>&1 ||
        { cat "$SRM_TMP/build.log"; srm_die "staged install failed"; }
    # Installed for real too where we may (as root: system-wide, or into
    # the Debian root's system), where TAP tests that use the installed
    # extension look for it.
    local installed=""
    if [ "$(id -u)" -eq 0 ] || [ -w "$SRM_PKGLIBDIR" ]; then
        "${mk[@]}" install >>"$SRM_TMP/build.log" 2>&1 ||
            { cat "$SRM_TMP/build.log"; srm_die "install failed"; }
        installed=yes
    fi
    chmod -R a+rX "$SRM_INST"
    srm_ext_conf "$installed"
    [ -f "$SRM_SO" ] || srm_die "no srmsort.so at $SRM_SO"
}

# The unit tests' module (test/unit: srmsort's pure parts linked into a
# test-only library, never into srmsort.so), built the same way as
# srmsort and staged beside it; installed into the server's own
# directories only where the server cannot load staged files (srm_build
# installed srmsort there too).  Sets SRM_UNIT_DIR, its sql/ and expected/.
srm_build_unit() {
    local src=$SRM_TMP/src
    (cd "$SRM_REPO" && tar cf - --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
        --exclude=results test/unit) | (cd "$src" && tar xf -)
    SRM_UNIT_DIR=$src/test/unit
    local mk=(make -C "$SRM_UNIT_DIR" -s PG_CONFIG="$SRM_PG_CONFIG" with_llvm=no)
    srm_log "building the unit tests in $SRM_UNIT_DIR"
    "${mk[@]}" clean >/dev/null 2>&1 || true
    "${mk[@]}" WERROR=1 >"$SRM_TMP/build_unit.log" 2>&1 ||
        { cat "$SRM_TMP/build_unit.log"; srm_die "unit test build failed"; }
    "${mk[@]}" install DESTDIR="$SRM_INST" >>"$SRM_TMP/build_unit.log" 2>&1 ||
        { cat "$SRM_TMP/build_unit.log"; srm_die "staged install of the unit tests failed"; }
    if [ -z "$SRM_EXT_CONF" ]; then
        "${mk[@]}" install >>"$SRM_TMP/build_unit.log" 2>&1 ||
            { cat "$SRM_TMP/build_unit.log"; srm_die "install of the unit tests failed"; }
    fi
    chmod -R a+rX "$SRM_INST" "$SRM_UNIT_DIR"
}

# How the server finds the freshly built extension: SRM_SO (the library to
# preload) and SRM_EXT_CONF (postgresql.conf lines), by what the server
# offers.  Debian's servers have extension_destdir (a Debian patch), which
# prefixes every extension file with the staged install's root; 18 and
# later have extension_control_path and dynamic_library_path, pointed at
# the staged install's sharedir and pkglibdir; a server with neither uses
# the copy installed into its own directories.
srm_ext_conf() {
    local installed=$1 gucs
    gucs=$("$SRM_BIN/postgres" --describe-config 2>/dev/null | cut -f1)
    if grep -qx extension_destdir <<<"$gucs"; then
        SRM_SO=$SRM_INST$SRM_PKGLIBDIR/srmsort.so
        SRM_EXT_CONF="extension_destdir = '$SRM_INST'"
    elif grep -qx extension_control_path <<<"$gucs"; then
        SRM_SO=$SRM_INST$SRM_PKGLIBDIR/srmsort.so
        SRM_EXT_CONF="extension_control_path = '$SRM_INST$SRM_SHAREDIR:\$system'
dynamic_library_path = '$SRM_INST$SRM_PKGLIBDIR:\$libdir'"
    else
        [ -n "$installed" ] ||
            srm_die "PostgreSQL $SRM_PG_MAJOR cannot load a staged install and $SRM_PKGLIBDIR is not writable: run as root or as the owner of the server's prefix"
        SRM_SO=$SRM_PKGLIBDIR/srmsort.so
        SRM_EXT_CONF=""
    fi
}

# A free TCP port (the server listens only on its Unix socket, but the port
# number names the socket and must not collide with a running server).
srm_free_port() {
    local p
    for p in $(shuf -i 20000-40000 -n 50); do
        if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q . &&
            [ ! -e "/tmp/.s.PGSQL.$p" ]; then
            echo "$p"
            return
        fi
    done
    srm_die "no free port found"
}

srm_setup_tmp() {
    srm_pick_user
    srm_clean_leftovers
    SRM_TMP=$(mktemp -d "${SRM_TMP_PREFIX}XXXXXX")
    chmod 755 "$SRM_TMP"
    echo $$ >"$SRM_TMP/runner.pid"
    trap srm_cluster_stop EXIT
    trap 'exit 130' INT TERM
}

# initdb and start a cluster with srmsort preloaded and four tablespaces
# srm_d0..srm_d3 in four separate directories (the test "disks").
srm_cluster_start() {
    SRM_PGDATA=$SRM_TMP/data
    SRM_PORT=${SRMSORT_TEST_PORT:-$(srm_free_port)}
    mkdir -p "$SRM_TMP"/disk{0,1,2,3} "$SRM_TMP/sock"
    chown -R "$SRM_USER" "$SRM_TMP" 2>/dev/null || true
    srm_as_user "$SRM_BIN/initdb" -D "$SRM_PGDATA" -A trust -U postgres \
        --no-sync >"$SRM_TMP/initdb.log" 2>&1 ||
        { cat "$SRM_TMP/initdb.log"; srm_die "initdb failed"; }
    cat >>"$SRM_PGDATA/postgresql.conf" <<EOF
shared_preload_libraries = '$SRM_SO'
$SRM_EXT_CONF
listen_addresses = ''
unix_socket_directories = '$SRM_TMP/sock'
port = $SRM_PORT
fsync = off
log_temp_files = 0
log_line_prefix = '%m [%p] '
${SRM_EXTRA_CONF:-}
EOF
    srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -l "$SRM_TMP/server.log" -w -t 60 start \
        >/dev/null || { tail -20 "$SRM_TMP/server.log"; srm_die "server did not start"; }
    export PGHOST=$SRM_TMP/sock PGPORT=$SRM_PORT PGUSER=postgres PGDATABASE=postgres
    local i
    for i in 0 1 2 3; do
        srm_psql -qc "CREATE TABLESPACE srm_d$i LOCATION '$SRM_TMP/disk$i'" >/dev/null
    done
}

srm_psql() {
    srm_as_user "$SRM_BIN/psql" -X -v ON_ERROR_STOP=1 -h "$SRM_TMP/sock" -p "$SRM_PORT" \
        -U postgres -d "${PGDATABASE:-postgres}" "$@"
}

# Load beside the tests (run_tests.sh --load): one CPU-bound loop per
# core and a writer that writes a file of 256MB to the filesystem of the
# test disks ($SRM_TMP), syncs it to the disk and deletes it, over and
# over.  Each one ends by itself when the runner is gone (checked between
# rounds), and srm_load_stop (part of srm_cluster_stop, the EXIT trap) ends
# them by their process ids on every exit, failure or interrupt included.
SRM_LOAD_PIDS=""
srm_load_start() {
    local runner=$$ n i
    n=$(nproc 2>/dev/null || echo 2)
    for i in $(seq 1 "$n"); do
        ( trap 'exit 0' TERM
          while kill -0 "$runner" 2>/dev/null; do
              i=0
              while [ "$i" -lt 100000 ]; do i=$((i + 1)); done
          done ) &
        SRM_LOAD_PIDS="$SRM_LOAD_PIDS $!"
    done
    mkdir -p "$SRM_TMP/load"
    ( dd_pid=""
      trap '[ -z "$dd_pid" ] || kill "$dd_pid" 2>/dev/null; exit 0' TERM
      while kill -0 "$runner" 2>/dev/null; do
          dd if=/dev/zero of="$SRM_TMP/load/written" bs=1M count=256 conv=fdatasync \
              status=none 2>/dev/null &
          dd_pid=$!
          wait "$dd_pid" || true
          dd_pid=""
          rm -f "$SRM_TMP/load/written"
      done ) &
    SRM_LOAD_PIDS="$SRM_LOAD_PIDS $!"
    srm_log "load: $n CPU-bound loops and a disk writer in $SRM_TMP/load (pids$SRM_LOAD_PIDS)"
}

srm_load_stop() {
    local p
    [ -n "$SRM_LOAD_PIDS" ] || return 0
    for p in $SRM_LOAD_PIDS; do
        kill "$p" 2>/dev/null || true
    done
    for p in $SRM_LOAD_PIDS; do
        wait "$p" 2>/dev/null || true
    done
    SRM_LOAD_PIDS=""
    rm -rf "${SRM_TMP:?}/load"
}

srm_cluster_stop() {
    srm_load_stop
    if [ -n "${SRM_PGDATA:-}" ] && [ -f "$SRM_PGDATA/postmaster.pid" ]; then
        srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    local m
    for m in ${SRM_MOUNTS:-}; do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    done
    if [ -n "${SRM_TMP:-}" ] && [ -z "${SRMSORT_KEEP:-}" ]; then
        rm -rf "$SRM_TMP"
    fi
}
