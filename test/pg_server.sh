#!/bin/bash
# test/pg_server.sh — the PostgreSQL servers the tests and benchmarks run
# against, each one Debian's binary packages.
#
#   test/pg_server.sh 15             print the pg_config of the server of a
#   test/pg_server.sh --bindir 15    major version (or its bin directory):
#                                    15 is this Debian 12 machine's package;
#                                    17, 18 and 19 live in Debian roots and
#                                    are found from inside them
#   test/pg_server.sh root 19        make the Debian root that carries 19
#                                    unless made, print its directory
#   test/pg_server.sh run 19 -- CMD [ARG...]
#                                    run CMD inside that root (as root, in
#                                    a mount namespace of its own)
#   test/pg_server.sh source 15      the extracted upstream source of a
#                                    major's Debian source package (its
#                                    regression suite): print the tree
#   test/pg_server.sh remake 19      throw the root away and make it again
#   test/pg_server.sh pkgroot 19     make the package-install root of the
#                                    suite that carries 19 (15: bookworm)
#                                    unless made, print its directory
#
# The roots (debootstrap --variant=minbase, then apt-get install):
#   trixie   Debian 13: postgresql-17 and postgresql-server-dev-17
#   sid      Debian unstable with the experimental suite: postgresql-18 and
#            its headers from sid, postgresql-19 and its headers from
#            experimental (a release candidate)
# each with what building, testing and benchmarking srmsort and building
# Citus need (ROOT_PACKAGES).  They live in
# ${SRMSORT_PG_CACHE:-/var/cache/srmsort-pg}/roots/<suite>, outside the
# repository: made once (a minute or two), reused without the network, and
# made anew when their recipe (suites, packages) changes; "stamp" in the
# root's directory holds the recipe it was made with.
#
# "run" enters the root through unshare(1): a private mount namespace in
# which /proc, /sys and /dev are mounted, and the repository (and, when
# present, the Citus source of SRMSORT_CITUS_SRC) bound at the same paths
# as outside, so scripts and results see one tree.  The mounts are the
# namespace's: they vanish with its last process, whatever way it ends, and
# the machine's mount table never shows them.  Inside, /etc/srmsort-root
# names the root, and the server of each major is Debian's, as 15 is here.
#
# Sources: the machine's Debian mirror (deb.debian.org).  A package the
# archive lists but does not serve (HTTP 404) is reported with its URL and
# exit status 75 (EX_TEMPFAIL): the environment, not the project, failed.
#
# "pkgroot": a root of its own per suite for installing srmsort's
# packages (test/packages.sh): debootstrap --variant=minbase, the apt
# sources and their lists, and nothing else (no server, no compiler, no
# make), in <cache>/pkgroots/<suite> with a stamp of its own, so that the
# test roots' recipe stays as it is.  test/packages.sh installs into a
# throwaway overlay of it; the root itself stays as made.
#
# "source": Debian's source packages postgresql-<major> from the suite that
# carries that major (bookworm: 15, sid: 18), fetched with apt-get through
# a private configuration, extracted under <cache>/src/<major>.  17's and
# 19's source packages are not served here (exit 75).
set -euo pipefail

CACHE=${SRMSORT_PG_CACHE:-/var/cache/srmsort-pg}
MIRROR=${SRMSORT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
MIRROR_SECURITY=${SRMSORT_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# What every root carries besides the servers: building srmsort (gcc, make,
# liburing, ICU through pkg-config), the TAP tests (libipc-run-perl), the
# test scripts (iproute2's ss, procps, python3 for pg_regress_diff.py),
# Citus (libzstd, liblz4, libkrb5, libcurl), the benchmarks' plots (matplotlib).
ROOT_PACKAGES="gcc make liburing-dev libicu-dev pkg-config libipc-run-perl perl
 iproute2 procps python3 python3-matplotlib libzstd-dev liblz4-dev libkrb5-dev
 libcurl4-openssl-dev
 ca-certificates xz-utils bzip2"

say() { printf 'pg_server: %s\n' "$*" >&2; }
die() { printf 'pg_server: error: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# The suite of the root that carries a major (empty: the host's package).
suite_of() {
    case "$1" in
        15) echo "" ;;
        17) echo trixie ;;
        18 | 19) echo sid ;;
        *) die "unsupported PostgreSQL major version '$1' (15, 17, 18 or 19)" ;;
    esac
}

# The apt sources of a root, one line each.
root_sources() {
    case "$1" in
        bookworm)
            echo "deb $MIRROR bookworm main"
            echo "deb $MIRROR bookworm-updates main"
            echo "deb $MIRROR_SECURITY bookworm-security main"
            ;;
        trixie)
            echo "deb $MIRROR trixie main"
            echo "deb $MIRROR trixie-updates main"
            echo "deb $MIRROR_SECURITY trixie-security main"
            ;;
        sid)
            echo "deb $MIRROR sid main"
            echo "deb $MIRROR experimental main"
            ;;
    esac
}

# The packages of a root's servers; a /suite suffix picks the suite (19 is
# only in experimental, and naming the suite per package keeps apt from
# pulling the rest of the system from experimental).
root_servers() {
    case "$1" in
        trixie) echo "postgresql-17 postgresql-server-dev-17" ;;
        sid)
            echo "postgresql-18 postgresql-server-dev-18"
            echo "postgresql-19/experimental postgresql-server-dev-19/experimental"
            echo "postgresql-client-19/experimental libpq5/experimental libpq-dev/experimental"
            ;;
    esac
}

# The recipe a root is made from: changing it makes the root anew.
root_recipe() {
    printf 'recipe 2\n%s\n%s\n%s\n' "$(root_sources "$1")" "$(root_servers "$1")" \
        "$(echo $ROOT_PACKAGES)"
}

# Run a step with its output in the log.  On failure: a 404 from the
# archive is the environment's failure (exit 75, with the URLs), anything
# else the log's tail and exit 1.
step() {
    local what=$1
    shift
    say "$what"
    echo "==== $what: $*" >>"$LOG"
    if ! "$@" >>"$LOG" 2>&1; then
        local urls
        urls=$(grep -E '404 +Not Found' "$LOG" | grep -oE 'https?://[^ ]+' | sort -u | head -n 5 || true)
        if [ -n "$urls" ]; then
            printf 'pg_server: error: %s failed: the Debian archive answered 404 (Not Found) for:\n' "$what" >&2
            printf '  %s\n' $urls >&2
            printf 'pg_server: error: %s\n' "the archive lists what it does not serve: an environment failure, not the project's (log: $LOG)" >&2
            exit 75
        fi
        echo "---- tail of $LOG ----" >&2
        tail -n 30 "$LOG" >&2
        die "$what failed (log: $LOG)"
    fi
}

need_root_user() {
    [ "$(id -u)" -eq 0 ] || die "PostgreSQL $MAJOR runs in a Debian root made with debootstrap and entered with chroot: run as root"
}

# Take a lock on a path (one maker of a root or a source tree at a time).
lock() {
    mkdir -p "$(dirname "$1")" 2>/dev/null && [ -w "$(dirname "$1")" ] ||
        die "cannot write to $(dirname "$1") (run as root, or set SRMSORT_PG_CACHE to a directory of yours)"
    exec 9>"$1.lock"
    flock 9
}

root_made() {
    [ -f "$ROOTDIR/stamp" ] && [ "$(cat "$ROOTDIR/stamp")" = "$(root_recipe "$SUITE")" ] &&
        [ -x "$ROOTDIR/fs/usr/bin/apt-get" ]
}

# Run a command inside the root being made (proc mounted for maintainer
# scripts, daemons kept from starting by policy-rc.d).
in_new_root() {
    unshare --mount --propagation private -- /bin/sh -c '
        mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$ROOTDIR/fs" "$@"
}

# debootstrap minbase of a suite into $2, its apt sources and lists,
# daemons kept from starting by policy-rc.d ($3: words for the log)
bootstrap() {
    local suite=$1 fs=$2 what=$3
    if ! command -v debootstrap >/dev/null; then
        step "installing debootstrap" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap ||
            true
        command -v debootstrap >/dev/null || {
            env DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$LOG" 2>&1 || true
            step "installing debootstrap" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
        }
    fi
    step "debootstrap --variant=minbase $suite ($MIRROR$what)" \
        debootstrap --variant=minbase --keyring="$KEYRING" "$suite" "$fs" "$MIRROR"
    root_sources "$suite" >"$fs/etc/apt/sources.list"
    printf '#!/bin/sh\nexit 101\n' >"$fs/usr/sbin/policy-rc.d"
    chmod 755 "$fs/usr/sbin/policy-rc.d"
    # Release files here can be older than their Valid-Until (experimental)
    echo 'Acquire::Check-Valid-Until "false";' >"$fs/etc/apt/apt.conf.d/99srmsort"
    cp /etc/resolv.conf "$fs/etc/resolv.conf" 2>/dev/null || true
    step "apt-get update ($suite$what)" in_new_root apt-get -q update
}

make_root() {
    local t0=$SECONDS fs=$ROOTDIR/fs
    need_root_user
    rm -f "$ROOTDIR/stamp"
    rm -rf "$fs"
    mkdir -p "$ROOTDIR"
    : >"$LOG"
    bootstrap "$SUITE" "$fs" ""
    # shellcheck disable=SC2046
    step "apt-get install (PostgreSQL $(root_servers "$SUITE" | grep -oE 'postgresql-[0-9]+' | sort -u |
        sed 's/postgresql-//' | tr '\n' ' ')and the tools)" \
        in_new_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        $(root_servers "$SUITE") $ROOT_PACKAGES
    in_new_root apt-get clean >>"$LOG" 2>&1 || true
    local v
    for v in $(root_servers "$SUITE" | grep -oE '^postgresql-[0-9]+' | sed 's/postgresql-//'); do
        [ -x "$fs/usr/lib/postgresql/$v/bin/postgres" ] && [ -x "$fs/usr/lib/postgresql/$v/bin/pg_config" ] ||
            die "the root lacks PostgreSQL $v's server or pg_config (log: $LOG)"
    done
    echo "$SUITE" >"$fs/etc/srmsort-root"
    root_recipe "$SUITE" >"$ROOTDIR/stamp.new"
    mv "$ROOTDIR/stamp.new" "$ROOTDIR/stamp"
    say "Debian root $SUITE made in $((SECONDS - t0)) s: $fs"
}

cmd_root() {
    [ -n "$SUITE" ] || die "PostgreSQL $MAJOR is this machine's own package: no root"
    if ! root_made; then
        need_root_user
        lock "$ROOTDIR"
        root_made || make_root
    fi
    echo "$ROOTDIR/fs"
}

# `run MAJOR -- CMD...`: CMD inside the root, the repository and the Citus
# source bound at their own paths, in a mount namespace of its own.
cmd_run() {
    local fs repo citus
    need_root_user
    fs=$(cmd_root)
    repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    citus=${SRMSORT_CITUS_SRC:-$repo/../shared/vendor/citus}
    [ -d "$citus" ] && citus=$(cd "$citus" && pwd) || citus=""
    exec unshare --mount --propagation private -- /bin/bash -c '
        set -e
        fs=$1 repo=$2 citus=$3
        shift 3
        mount -t proc proc "$fs/proc"
        mount --rbind /sys "$fs/sys"
        mount --rbind /dev "$fs/dev"
        mkdir -p "$fs$repo"
        mount --bind "$repo" "$fs$repo"
        if [ -n "$citus" ]; then
            mkdir -p "$fs$citus"
            mount --bind -o ro "$citus" "$fs$citus"
        fi
        cp /etc/resolv.conf "$fs/etc/resolv.conf" 2>/dev/null || true
        # the host'"'"'s local certificate authorities (a TLS-inspecting
        # proxy'"'"'s) are trusted in the root too: pip over https (DuckDB)
        l=/usr/local/share/ca-certificates
        if [ -d "$l" ] && [ -x "$fs/usr/sbin/update-ca-certificates" ] &&
            ! diff -rq "$l" "$fs$l" >/dev/null 2>&1; then
            mkdir -p "$fs$l" && cp -a "$l/." "$fs$l/" &&
                chroot "$fs" update-ca-certificates >/dev/null 2>&1 || true
        fi
        exec chroot "$fs" /usr/bin/env SRMSORT_IN_ROOT=1 \
            ${citus:+SRMSORT_CITUS_SRC="$citus"} "$@"' \
        srm-root "$fs" "$repo" "$citus" "$@"
}

# The server's pg_config, where this process can run it.
cmd_pg_config() {
    local pgc=/usr/lib/postgresql/$MAJOR/bin/pg_config
    if [ -n "$SUITE" ] && [ ! -f /etc/srmsort-root ]; then
        die "PostgreSQL $MAJOR lives in a Debian root: run the command inside it (test/pg_server.sh run $MAJOR -- COMMAND)"
    fi
    [ -x "$pgc" ] && [ -x "/usr/lib/postgresql/$MAJOR/bin/postgres" ] ||
        die "PostgreSQL $MAJOR is not installed (as root: apt-get install postgresql-$MAJOR postgresql-server-dev-$MAJOR)"
    if [ "$PRINT" = bindir ]; then
        "$pgc" --bindir
    else
        echo "$pgc"
    fi
}

# ---- pkgroot: a bare root to install srmsort's packages into ----

pkgroot_recipe() {
    printf 'pkgroot 1\n%s\n' "$(root_sources "$1")"
}

cmd_pkgroot() {
    local suite=${SUITE:-bookworm} dir fs t0=$SECONDS
    dir=$CACHE/pkgroots/$suite
    fs=$dir/fs
    if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$(pkgroot_recipe "$suite")" ]; then
        need_root_user
        lock "$dir"
        if [ "$(cat "$dir/stamp" 2>/dev/null)" != "$(pkgroot_recipe "$suite")" ]; then
            ROOTDIR=$dir SUITE=$suite LOG=$dir/make.log
            rm -f "$dir/stamp"
            rm -rf "$fs"
            mkdir -p "$dir"
            : >"$LOG"
            bootstrap "$suite" "$fs" ", package-install root"
            in_new_root apt-get clean >>"$LOG" 2>&1 || true
            pkgroot_recipe "$suite" >"$dir/stamp.new"
            mv "$dir/stamp.new" "$dir/stamp"
            say "package-install root $suite made in $((SECONDS - t0)) s: $fs"
        fi
    fi
    echo "$fs"
}

# ---- source: an upstream tree from Debian's source package ----

# The Debian suites whose source packages carry a major.
source_suites() {
    case "$1" in
        15) echo "bookworm bookworm-security" ;;
        17) echo "trixie trixie-security" ;;
        18) echo "sid" ;;
        19) echo "experimental" ;;
    esac
}

apt_private() {
    apt-get -o Dir::Etc::sourcelist="$SRCDIR/apt/sources.list" -o Dir::Etc::sourceparts=- \
        -o Dir::State::Lists="$SRCDIR/apt/lists" -o Dir::Cache="$SRCDIR/apt/cache" \
        -o Acquire::Check-Valid-Until=false "$@"
}

# Fetch postgresql-$MAJOR's source package into $SRCDIR/dl (15: the
# installed server's version where the archive still has it).
fetch_source() {
    local pkg=postgresql-$MAJOR suite ok="" want="" spec uri
    if [ "$MAJOR" = 15 ]; then
        want=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
    fi
    rm -rf "$SRCDIR/apt" "$SRCDIR/dl"
    mkdir -p "$SRCDIR/apt/lists/partial" "$SRCDIR/apt/cache/archives/partial" "$SRCDIR/dl"
    for spec in ${want:+"$pkg=$want"} "$pkg"; do
        for suite in $(source_suites "$MAJOR"); do
            uri=$MIRROR
            case "$suite" in *-security) uri=$MIRROR_SECURITY ;; esac
            echo "deb-src [signed-by=$KEYRING] $uri $suite main" >"$SRCDIR/apt/sources.list"
            step "apt-get update ($suite sources, private lists)" apt_private update
            echo "==== apt-get source --download-only $spec ($suite)" >>"$LOG"
            if (cd "$SRCDIR/dl" && apt_private source --download-only "$spec") >>"$LOG" 2>&1; then
                ok=$suite
                break 2
            fi
            say "$spec could not be fetched from $suite"
            rm -f "$SRCDIR/dl"/*
        done
    done
    rm -rf "$SRCDIR/apt/lists" "$SRCDIR/apt/cache"
    if [ -z "$ok" ]; then
        echo "---- tail of $LOG ----" >&2
        tail -n 12 "$LOG" >&2
        printf 'pg_server: error: %s\n' "Debian's source package $pkg could not be fetched from any of: $(source_suites "$MAJOR") (the archive does not serve it: an environment failure)" >&2
        exit 75
    fi
    DSC=$(ls "$SRCDIR/dl"/*.dsc)
    say "fetched $(basename "$DSC") from $ok"
}

# Only the orig tarball is extracted: Debian's patches adapt the tree to
# its packaging, and the regression suite wanted is upstream's.
cmd_source() {
    SRCDIR=$CACHE/src/$MAJOR
    LOG=$SRCDIR/fetch.log
    if [ -f "$SRCDIR/stamp" ]; then
        echo "$SRCDIR/tree"
        return
    fi
    lock "$SRCDIR"
    if [ ! -f "$SRCDIR/stamp" ]; then
        rm -rf "$SRCDIR/tree"
        mkdir -p "$SRCDIR"
        : >"$LOG"
        command -v dpkg-source >/dev/null || step "installing dpkg-dev" \
            env DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev bzip2 xz-utils
        fetch_source
        local tarball
        tarball=$(ls "$SRCDIR/dl"/*.orig.tar.* | grep -v '\.asc$' | head -n 1)
        mkdir -p "$SRCDIR/tree"
        step "extracting $(basename "$tarball")" tar -xf "$tarball" -C "$SRCDIR/tree" --strip-components=1
        [ -d "$SRCDIR/tree/src/test/regress" ] || die "$tarball holds no PostgreSQL tree"
        chmod -R a+rX "$SRCDIR/tree"
        basename "$DSC" >"$SRCDIR/stamp"
        say "PostgreSQL $MAJOR source ($(basename "$DSC")) in $SRCDIR/tree"
    fi
    echo "$SRCDIR/tree"
}

CMD=pg_config
PRINT=pg_config
MAJOR=""
while [ $# -gt 0 ]; do
    case "$1" in
        root | run | source | remake | pkgroot) CMD=$1 ;;
        --bindir) PRINT=bindir ;;
        --pg-config) PRINT=pg_config ;;
        -h | --help) usage ;;
        [0-9]*)
            MAJOR=$1
            if [ "$CMD" = run ]; then
                shift
                [ "${1:-}" = "--" ] && shift
                [ $# -gt 0 ] || usage
                break
            fi
            ;;
        *) usage ;;
    esac
    shift
done
[ -n "$MAJOR" ] || usage
SUITE=$(suite_of "$MAJOR")
ROOTDIR=$CACHE/roots/$SUITE
LOG=$ROOTDIR/make.log

case "$CMD" in
    pg_config) cmd_pg_config ;;
    root) cmd_root ;;
    run) cmd_run "$@" ;;
    source) cmd_source ;;
    pkgroot) cmd_pkgroot ;;
    remake)
        [ -n "$SUITE" ] || die "15 is this machine's own package: no root to make"
        need_root_user
        lock "$ROOTDIR"
        make_root
        echo "$ROOTDIR/fs"
        ;;
esac
