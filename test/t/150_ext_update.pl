# ALTER EXTENSION srmsort UPDATE from every earlier SQL version gives the
# objects CREATE EXTENSION gives.  The versions are the repository's
# scripts (srmsort--V.sql, srmsort--A--B.sql), whatever chain they make:
# each must be installed and offered by the server, each earlier one is
# created, updated to the default version and its objects (functions with
# their definitions, views, ACLs, comments) compared with a fresh install.
use strict;
use warnings;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $repo = "$FindBin::RealBin/../..";
my %versions;
opendir(my $dh, $repo) or die "cannot list $repo: $!";
for my $f (readdir $dh)
{
	next unless $f =~ /^srmsort--(.+)\.sql$/;
	$versions{$_} = 1 for split /--/, $1;
}
closedir $dh;
open(my $ch, '<', "$repo/srmsort.control") or die "srmsort.control: $!";
my ($default) = map { /^default_version\s*=\s*'([^']+)'/ ? $1 : () } <$ch>;
close $ch;
ok(defined $default && $versions{$default},
	"srmsort.control's default_version ($default) has a script");

# one release version everywhere it is written: META.json (PGXN, make
# dist), debian/changelog (the packages, with a Debian revision),
# CHANGELOG.md's newest released section; and META.json's "provides" names the SQL
# script of the default version
my $meta = PostgreSQL::Test::Utils::slurp_file("$repo/META.json");
my ($release) = $meta =~ /^   "version": "([^"]+)"/m;
my ($deb) = PostgreSQL::Test::Utils::slurp_file("$repo/debian/changelog") =~ /^srmsort \(([^)]+)\)/;
# (an "Unreleased" section above it gathers what the next release will say)
my ($log) = PostgreSQL::Test::Utils::slurp_file("$repo/CHANGELOG.md") =~ /^## (?!Unreleased\b)(\S+)/m;
ok(defined $release && $release =~ /^\d+\.\d+\.\d+$/, "META.json's version ($release) is semantic");
is($deb =~ s/-[^-]+$//r, $release, "debian/changelog's newest entry is $release");
is($log, $release, "CHANGELOG.md's newest released section is $release");
like($meta, qr/"file": "srmsort--\Q$default\E\.sql"/, "META.json provides srmsort--$default.sql");

my $node = SrmTest::node('ext_update', tablespaces => 0);
$node->safe_psql('postgres', 'DROP EXTENSION srmsort');

# the server offers exactly the repository's versions
my $offered = $node->safe_psql('postgres',
	"SELECT string_agg(version, ' ' ORDER BY version) FROM pg_available_extension_versions WHERE name = 'srmsort'"
);
is($offered, join(' ', sort keys %versions),
	'the server offers every SQL version the scripts name');

# The extension's objects, described in full: one line each.
my $objects_sql = q{
SELECT string_agg(d, E'\n' ORDER BY d) FROM (
  SELECT pg_describe_object(dep.classid, dep.objid, dep.objsubid) || ' | ' ||
    CASE dep.classid
      WHEN 'pg_proc'::regclass THEN
        (SELECT pg_get_functiondef(p.oid) || ' acl=' || coalesce(p.proacl::text, '-')
         FROM pg_proc p WHERE p.oid = dep.objid)
      WHEN 'pg_class'::regclass THEN
        (SELECT c.relkind::text || ' ' || coalesce(pg_get_viewdef(c.oid), '') ||
                ' acl=' || coalesce(c.relacl::text, '-') ||
                ' cols=' || (SELECT string_agg(a.attname || ':' || format_type(a.atttypid, a.atttypmod), ',' ORDER BY a.attnum)
                             FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
         FROM pg_class c WHERE c.oid = dep.objid)
      WHEN 'pg_type'::regclass THEN format_type(dep.objid, NULL)
      ELSE ''
    END || ' comment=' || coalesce(obj_description(dep.objid, dep.classid::regclass::text), '-') AS d
  FROM pg_depend dep
  WHERE dep.refclassid = 'pg_extension'::regclass
    AND dep.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'srmsort')
    AND dep.deptype = 'e') s
};

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION srmsort');
my $fresh = $node->safe_psql('fresh', $objects_sql);
ok($fresh =~ /srmsort_version/, 'a fresh CREATE EXTENSION has its objects');
is($node->safe_psql('fresh', "SELECT extversion FROM pg_extension WHERE extname = 'srmsort'"),
	$default, "a fresh CREATE EXTENSION is at $default");

my @earlier = grep { $_ ne $default } sort keys %versions;
note('earlier SQL versions: ' . (@earlier ? "@earlier" : 'none (one SQL version so far)'));
for my $v (@earlier)
{
	my $db = 'from_' . ($v =~ s/\W/_/gr);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION srmsort VERSION '$v'");
	$node->safe_psql($db, 'ALTER EXTENSION srmsort UPDATE');
	is($node->safe_psql($db, "SELECT extversion FROM pg_extension WHERE extname = 'srmsort'"),
		$default, "$v updates to $default");
	is($node->safe_psql($db, $objects_sql), $fresh,
		"$v updated to $default has the objects of a fresh CREATE EXTENSION");
	# and the updated functions call the loaded library
	is($node->safe_psql($db, 'SELECT srmsort_version()'),
		$node->safe_psql('fresh', 'SELECT srmsort_version()'),
		"$v updated: srmsort_version() answers as in a fresh install");
}

# every version has an update path to the default one
my $stranded = $node->safe_psql('postgres',
	"SELECT string_agg(source, ' ') FROM pg_extension_update_paths('srmsort') WHERE target = '$default' AND source <> target AND path IS NULL"
);
is($stranded, '', "every SQL version has an update path to $default");

$node->stop;
done_testing();
