#!/usr/bin/python3
"""Compare two pg_regress results directories, tolerating reordered rows.

    pg_regress_diff.py PLAIN SRM [--plain-log FILE] [--srm-log FILE]
                       [--plain-server-log FILE] [--srm-server-log FILE]
                       [--report FILE] [--context N] [--strict-explain]

PLAIN and SRM are results directories (or pg_regress output directories that
hold results/) of the same suite, run without and with srmsort.  Every file
is compared line by line; result headers and separators are compared
without their widths (which follow from the values, compared anyway).

A differing region is tolerated when it lies inside one query result's row
block (the lines between the header separator "---+---" and the "(N rows)"
footer) in both files and the two row blocks are the same multiset of lines:
"order of rows only", which rows with equal sort keys may show.  Where the
statement's sort keys (its last top-level ORDER BY, or else its one window's
PARTITION BY/ORDER BY) are output columns, the key columns are checked: equal
in both orders = verified ties; different = a misorder, reported as real.
Tolerated reorders are listed (file, line, statement) in the report.

EXPLAIN output that differs only because the plan shows srmsort's node,
"Custom Scan (SRMSort)" for "Sort", is srmsort's design: counted, not a real
difference, unless --strict-explain is given.

Everything else is a real difference: written to the report (--report, or
stdout) as a unified diff per test file, classified by kind in the summary
(the kinds are heuristics to help reading; all of them count).  With
--plain-log/--srm-log (pg_regress's stdout) the tests that failed against
their expected files are listed: the plain run's failures are baseline noise
(work_mem = 64kB plans, version skew of the test files), and a differing
file whose test failed in the plain run is marked so.  With the server logs,
WARNING/ERROR/FATAL kinds more frequent in the srm run are listed, and crash
lines (PANIC, TRAP, terminated by signal) count as real differences.

Exit status: 0 no real differences, 1 real differences, 2 usage error.
"""

import argparse
import collections
import difflib
import os
import re
import sys

SEP_RE = re.compile(r'^-+(\+-+)*$')
FOOT_RE = re.compile(r'^\((\d+) rows?\)$')
SRM_NODE_RE = re.compile(r'Custom Scan \(SRMSort\)')
MSG_RE = re.compile(r'^(NOTICE|DETAIL|HINT|WARNING|CONTEXT|INFO|LOG|DEBUG\d?):  ')
ERR_RE = re.compile(r'^(ERROR|FATAL|PANIC):  ')
CRASH_RE = re.compile(r'server closed the connection unexpectedly|connection to server was lost|'
                      r'terminating connection because of crash')
STATUS_RE = re.compile(r'^(?:test\s+|\s+)(\S+)\s+\.\.\.\s+(ok|FAILED|failed \(ignored\)|ignored)\b')


def read_lines(path):
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        return f.read().split('\n')


def row_blocks(lines):
    """[(sep, start, end)]: rows are lines[start:end], footer at lines[end]."""
    blocks = []
    sep = None
    for i, line in enumerate(lines):
        if SEP_RE.match(line):
            sep = i                      # the latest separator wins
        elif sep is not None and FOOT_RE.match(line):
            blocks.append((sep, sep + 1, i))
            sep = None
        elif sep is not None and line == '' and i > sep + 1 and not lines[i - 1].endswith('+'):
            # a blank line ends a result (a row has at least its border blank)
            sep = None
    return blocks


def block_at(blocks, lo, hi):
    """The block whose rows contain the range [lo, hi) (or the insertion
    point lo when lo == hi)."""
    for b in blocks:
        if b[1] <= lo and hi <= b[2]:
            return b
    return None


def normalize(lines, srm_names):
    """Lines compared instead of the raw ones (one for one): result headers
    and separators without their widths (a width follows from the values,
    compared anyway) and, with srm_names, srmsort's plan node shown as core's
    Sort.  Returns the lines and how many had srmsort's node name."""
    out = list(lines)
    changed = 0
    for i, line in enumerate(out):
        if SEP_RE.match(line):
            out[i] = '-' + '+-' * line.count('+')
            if i > 0:
                out[i - 1] = '|'.join(c.strip() for c in lines[i - 1].split('|'))
        elif srm_names and SRM_NODE_RE.search(line):
            out[i] = SRM_NODE_RE.sub('Sort', line)
            changed += 1
    return out, changed


def statement_before(lines, idx):
    """The statement (last few echoed lines) before a result header at
    lines[idx] (the separator)."""
    j = idx - 2                           # the line above the column header
    stmt = []
    while j >= 0 and len(stmt) < 12:
        line = lines[j]
        if line == '' or FOOT_RE.match(line) or MSG_RE.match(line) or ERR_RE.match(line):
            break
        stmt.insert(0, line)
        j -= 1
    return stmt


def split_top(text, sep=','):
    """text split at sep outside parentheses and quotes."""
    parts, depth, cur, quote = [], 0, [], None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in '\'"':
            quote = ch
        elif ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(''.join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append(''.join(cur))
    return parts


def _top_level(text, regex):
    """End offsets of the matches of regex outside parentheses."""
    depth, ends = 0, []
    for m in re.finditer(r'[()]|' + regex, text, re.I):
        tok = m.group(0)
        if tok == '(':
            depth += 1
        elif tok == ')':
            depth -= 1
        elif depth == 0:
            ends.append(m.end())
    return ends


def _clause_end(text):
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == '('
        depth -= ch == ')'
        if depth < 0 or (depth == 0 and ch == ';'):
            return text[:i]
    return text


def order_keys(stmt):
    """The sort keys that order the statement's output, as text: its last
    top-level ORDER BY, or else the PARTITION BY and ORDER BY of its window
    when all its windows are the same.  None if there are none."""
    text = ' '.join(re.sub(r'--.*$', '', x) for x in stmt)
    ends = _top_level(text, r'\border\s+by\b')
    if ends:
        tail = _clause_end(text[ends[-1]:])
        tail = re.split(r'\b(?:limit|offset|fetch|for\s+(?:update|share|no|key))\b',
                        tail, flags=re.I)[0]
        return split_top(tail)
    specs = set()
    for m in re.finditer(r'\b(?:over|as)\s*\(', text, re.I):
        specs.add(re.sub(r'\s+', ' ', _clause_end(text[m.end():]).strip().lower()))
    specs = {x for x in specs if 'partition by' in x or 'order by' in x}
    if len(specs) != 1:
        return None
    spec = re.split(r'\b(?:rows|range|groups)\b', specs.pop())[0]
    keys = []
    for part, body in re.findall(r'\b(partition|order)\s+by\s+(.*?)(?=\b(?:partition|order)\s+by\b|$)',
                                 spec):
        keys.extend(split_top(body))
    return keys or None


def order_key_columns(stmt, header):
    """Column indexes of the leading sort keys that are output columns (by
    name or number), and whether that is all of them; None if no keys."""
    keys = order_keys(stmt)
    if not keys:
        return None
    names = [h.strip() for h in header.split('|')]
    cols = []
    for item in keys:
        item = re.sub(r'\s+(asc|desc|nulls\s+(first|last)|using\s+\S+|collate\s+\S+)\b', ' ',
                      ' ' + item.strip() + ' ', flags=re.I).strip()
        item = re.sub(r'^"(.*)"$', r'\1', item)
        if re.fullmatch(r'\d+', item):
            k = int(item) - 1
            if not 0 <= k < len(names):
                return cols, False
            cols.append(k)
            continue
        item = item.split('.')[-1].strip('"')
        if item not in names or names.count(item) != 1:
            return cols, False
        cols.append(names.index(item))
    return cols, True


def tie_check(stmt, header, rows_a, rows_b):
    """'ties' when the sort key columns read the same in both orders, 'keys
    differ' when the leading key columns that are output do not (a real
    misorder), None when the keys cannot all be told from the output."""
    found = order_key_columns(stmt, header)
    if found is None or any(x.endswith('+') for x in rows_a + rows_b):
        return None
    cols, complete = found
    ncol = len(header.split('|'))
    for x, y in zip(rows_a, rows_b):
        cx, cy = x.split('|'), y.split('|')
        if len(cx) != ncol or len(cy) != ncol:
            return None
        if [cx[k].strip() for k in cols] != [cy[k].strip() for k in cols]:
            return 'keys differ'
    return 'ties' if complete else None


def matched_map(opcodes):
    m = {}
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == 'equal':
            for k in range(i2 - i1):
                m[i1 + k] = j1 + k
    return m


PLAN_LINE_RE = re.compile(r'^\s*->  |\(actual rows=|^\s*(Sort|Group|Hash|Merge) (Key|Cond)|'
                          r'"Node Type"|Node Type:|<Node-Type>')
SRM_FACT_RE = re.compile(r'Sort Method|Sort Space|Worker \d+:|Disks|Runs|Parallel Reads|Temp|'
                         r'Memory|SRMSort|Custom|Peak|Block Size|Merge Order|Flushes|Stalls|'
                         r'I/O Wait|Bookkeeping|"Nu"|Nu:')
WINDOW_RE = re.compile(r'\bover\s*\(|\bover\s+[a-z_]\w*|\bwindow\s+\w+\s+as\b', re.I)
PICK_RE = re.compile(r'\bdistinct\s+on\b|\blimit\b|\boffset\b|\bfetch\s+(first|next)\b', re.I)


def enclosing_block(blocks, lo, hi):
    """The block whose separator..footer span contains [lo, hi)."""
    for b in blocks:
        if b[0] <= lo and hi <= b[2] + 1:
            return b
    return None


def is_plan(lines, block):
    if block is None:
        return False
    sep, start, end = block
    if sep >= 1 and lines[sep - 1].strip() == 'QUERY PLAN':
        return True
    return any(PLAN_LINE_RE.search(x) for x in lines[start:end])


# Values that depend on the run, not on the sort: WAL positions (0/109794A8)
# and OIDs of five digits or more in a table's cells (stats_import's
# tableid); a hunk whose lines differ only in these is classified apart.
RUN_VALUE_RE = re.compile(r'\b[0-9A-F]{1,8}/[0-9A-F]{1,8}\b|(?<=\| )\s*\d{5,}(?= \|)')


def classify_hunk(a, b, i1, i2, j1, j2, blocks_a, blocks_b):
    """The kind of a real difference, for the summary."""
    old = a[i1:i2]
    new = b[j1:j2]
    both = old + new
    if any(CRASH_RE.search(x) for x in both):
        return 'server crash / lost connection'
    if any(ERR_RE.match(x) for x in both):
        return 'errors differ'
    if not old and new and all(MSG_RE.match(x) for x in new):
        return 'extra messages (NOTICE/DETAIL/HINT/WARNING)'
    if old and not new and all(MSG_RE.match(x) for x in old):
        return 'missing messages (NOTICE/DETAIL/HINT/WARNING)'
    if any(MSG_RE.match(x) for x in both):
        return 'messages differ'
    ba = enclosing_block(blocks_a, i1, i2)
    bb = enclosing_block(blocks_b, j1, j2)
    if is_plan(a, ba) or is_plan(b, bb):
        srm_lines = set(b[bb[1]:bb[2]]) - set(a[ba[1]:ba[2]]) if ba and bb else set()
        if any(SRM_FACT_RE.search(x) for x in both) or \
                any(re.search(r'SRM|radix sort', x) for x in srm_lines):
            return 'EXPLAIN ANALYZE sort facts differ'
        return 'EXPLAIN plan differs (beyond the node name)'
    if old and len(old) == len(new) and \
            all(RUN_VALUE_RE.sub('#', x) == RUN_VALUE_RE.sub('#', y) for x, y in zip(old, new)):
        return 'run-dependent values differ (WAL positions, OIDs)'
    stmt = ' '.join(statement_before(a, ba[0])) if ba else ''
    if WINDOW_RE.search(stmt):
        return 'rows differ: window functions over peers (tie-dependent?)'
    if PICK_RE.search(stmt):
        return 'rows differ: DISTINCT ON / LIMIT keeps another tie?'
    return 'rows or other output differ'


def unified(a_disp, b_disp, opcodes_groups, name_a, name_b):
    out = ['--- %s' % name_a, '+++ %s' % name_b]
    for group in opcodes_groups:
        i1, j1 = group[0][1], group[0][3]
        i2, j2 = group[-1][2], group[-1][4]
        out.append('@@ -%d,%d +%d,%d @@' % (i1 + 1, i2 - i1, j1 + 1, j2 - j1))
        for tag, a1, a2, b1, b2 in group:
            if tag == 'equal':
                out.extend(' ' + x for x in a_disp[a1:a2])
                continue
            out.extend('-' + x for x in a_disp[a1:a2])
            out.extend('+' + x for x in b_disp[b1:b2])
    return out


def compare_file(name, pa, pb, args):
    """Returns a dict with the findings for one file."""
    res = {'name': name, 'order': [], 'explain': 0, 'kinds': collections.Counter(),
           'diff': [], 'hunks': []}
    a_raw = read_lines(pa)
    b_raw = read_lines(pb)
    if a_raw == b_raw:
        return res
    a, _ = normalize(a_raw, False)
    b, n_explain = normalize(b_raw, not args.strict_explain)
    blocks_a = row_blocks(a)
    blocks_b = row_blocks(b)

    # pass 1: rewrite B's row blocks that are A's in another order
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    ops = sm.get_opcodes()
    amap = matched_map(ops)
    b2 = list(b)
    b_disp = list(b_raw)
    done = set()
    misordered = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == 'equal':
            continue
        ba = block_at(blocks_a, i1, i2)
        bb = block_at(blocks_b, j1, j2)
        if ba is None or bb is None or (ba, bb) in done:
            continue
        if amap.get(ba[0]) != bb[0] or amap.get(ba[2]) != bb[2]:
            continue                          # not the same result
        if ba[2] - ba[1] != bb[2] - bb[1]:
            continue
        if collections.Counter(a[ba[1]:ba[2]]) != collections.Counter(b[bb[1]:bb[2]]):
            continue
        done.add((ba, bb))
        stmt = statement_before(a, ba[0])
        tie = tie_check(stmt, a_raw[ba[0] - 1], a_raw[ba[1]:ba[2]], b_raw[bb[1]:bb[2]])
        if tie == 'keys differ':
            misordered.append(bb)             # stays a real difference
            continue
        b2[bb[1]:bb[2]] = a[ba[1]:ba[2]]
        b_disp[bb[1]:bb[2]] = a_raw[ba[1]:ba[2]]
        res['order'].append({
            'line': ba[1] + 1, 'rows': ba[2] - ba[1], 'stmt': stmt, 'tie': tie,
            'order_by': any(re.search(r'\border\s+by\b', x, re.I) for x in stmt),
            'plain': a_raw[ba[1]:ba[2]], 'srm': b_raw[bb[1]:bb[2]]})

    # pass 2: what is left is real
    sm = difflib.SequenceMatcher(None, a, b2, autojunk=False)
    ops = sm.get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == 'equal':
            continue
        if any(m[1] <= j1 and j2 <= m[2] for m in misordered):
            kind = 'rows in another order although their ORDER BY keys differ (misorder)'
        else:
            kind = classify_hunk(a, b2, i1, i2, j1, j2, blocks_a, blocks_b)
        res['kinds'][kind] += 1
        blk = enclosing_block(blocks_a, i1, i2)
        stmt = [x for x in statement_before(a, blk[0]) if not x.lstrip().startswith('--')] if blk else []
        res['hunks'].append((kind, a_raw[i1:i2], b_disp[j1:j2], i1 + 1, stmt[:1]))
    if res['hunks']:
        res['diff'] = unified(a_raw, b_disp, sm.get_grouped_opcodes(args.context),
                              'plain/' + name, 'srm/' + name)
    # EXPLAIN node-name-only differences: the raw files differ there but the
    # normalized ones do not
    if n_explain:
        sm0 = difflib.SequenceMatcher(None, a_raw, b_raw, autojunk=False)
        res['explain'] = sum(1 for tag, i1, i2, j1, j2 in sm0.get_opcodes()
                             if tag != 'equal' and a[i1:i2] == b[j1:j2])
    return res


def read_status(path):
    st = {}
    if not path or not os.path.exists(path):
        return st
    for line in read_lines(path):
        m = STATUS_RE.match(line)
        if m:
            st[m.group(1)] = m.group(2)
    return st


LOGLINE_RE = re.compile(r'^(?:\S+ \S+ \S+ \[\d+\] )?((?:WARNING|ERROR|FATAL|PANIC):  .*|TRAP: .*|'
                        r'.*terminated by signal.*|.*was terminated by .*)$')


def server_log_kinds(path):
    """Counter of the server log's WARNING/ERROR/FATAL/PANIC messages and
    crash lines, numbers and temporary paths blanked."""
    c = collections.Counter()
    if not path or not os.path.exists(path):
        return c
    for line in read_lines(path):
        m = LOGLINE_RE.match(line)
        if m:
            t = re.sub(r'/tmp/\S+', '/tmp/...', m.group(1))
            c[re.sub(r'\d+', 'N', t)[:150]] += 1
    return c


def results_dir(d):
    r = os.path.join(d, 'results')
    return r if os.path.isdir(r) else d


def signature(kind, hunk_old, hunk_new, stmt):
    """A short, number-free text that groups like differences."""
    if kind.startswith('rows') and stmt:
        return 'after: ' + re.sub(r'\s+', ' ', stmt[0].strip())[:100]
    lines = [x for x in hunk_new if MSG_RE.match(x) or ERR_RE.match(x)] or \
            [x for x in hunk_old if MSG_RE.match(x) or ERR_RE.match(x)]
    if lines and kind != 'rows or other output differ':
        s = lines[0]
    else:
        s = (hunk_new or hunk_old or [''])[0]
    s = re.sub(r'\d+', 'N', s.strip())
    return s[:110]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('plain')
    ap.add_argument('srm')
    ap.add_argument('--plain-log')
    ap.add_argument('--srm-log')
    ap.add_argument('--plain-server-log')
    ap.add_argument('--srm-server-log')
    ap.add_argument('--report', help='file for the full diffs (default: stdout)')
    ap.add_argument('--context', type=int, default=3)
    ap.add_argument('--strict-explain', action='store_true',
                    help='count "Custom Scan (SRMSort)" for "Sort" in EXPLAIN as real')
    args = ap.parse_args()

    da, db = results_dir(args.plain), results_dir(args.srm)
    fa = {f for f in os.listdir(da) if f.endswith('.out')}
    fb = {f for f in os.listdir(db) if f.endswith('.out')}
    st_plain = read_status(args.plain_log)
    st_srm = read_status(args.srm_log)
    baseline = sorted(t for t, s in st_plain.items() if s != 'ok')

    results = []
    missing = []
    for name in sorted(fa | fb):
        if name not in fa or name not in fb:
            missing.append((name, 'plain' if name not in fa else 'srm'))
            continue
        results.append(compare_file(name, os.path.join(da, name), os.path.join(db, name), args))

    real = [r for r in results if r['hunks']]
    order = [r for r in results if r['order']]
    explain = [r for r in results if r['explain']]
    kinds = collections.defaultdict(list)        # kind -> [(file, signature)]
    for r in real:
        for kind, old, new, line, stmt in r['hunks']:
            kinds[kind].append((r['name'], signature(kind, old, new, stmt)))

    rep = []
    rep.append('pg_regress differential: plain = %s, srm = %s' % (da, db))
    rep.append('')
    for r in real:
        test = r['name'][:-4]
        mark = '  [plain run FAILED this test: baseline noise likely]' if test in baseline else ''
        rep.append('=' * 78)
        rep.append('%s: %d real difference(s)%s' % (r['name'], len(r['hunks']), mark))
        for k, n in sorted(r['kinds'].items()):
            rep.append('   %3d  %s' % (n, k))
        rep.append('=' * 78)
        rep.extend(r['diff'])
        rep.append('')
    for name, where in missing:
        rep.append('%s: no results file in the %s run' % (name, where))
    if order:
        rep.append('=' * 78)
        rep.append('ORDER OF ROWS ONLY (tolerated; review those under ORDER BY: ties, or a sort bug)')
        rep.append('=' * 78)
        for r in order:
            for o in r['order']:
                rep.append('%s:%d  %d rows%s' % (
                    r['name'], o['line'], o['rows'],
                    '  (ORDER BY keys equal: ties)' if o['tie'] == 'ties' else
                    '  ORDER BY (keys not all in the output: unverified)' if o['order_by'] else ''))
                rep.extend('    | ' + s for s in o['stmt'])
                for x, y in zip(o['plain'], o['srm']):
                    if x != y:
                        rep.append('    first reordered row: plain %r / srm %r' % (x, y))
                        break
    if explain:
        rep.append('')
        rep.append('EXPLAIN node name only ("Custom Scan (SRMSort)" for "Sort"), regions per file:')
        rep.extend('   %4d  %s' % (r['explain'], r['name']) for r in explain)
    # the compact summary
    out = []
    out.append('---- pg_regress differential summary ----')
    if st_plain:
        out.append('plain run: %d of %d tests failed against their expected files (baseline noise): %s'
                   % (len(baseline), len(st_plain), ' '.join(baseline) or '-'))
    if st_srm:
        newfail = sorted(t for t, s in st_srm.items() if s != 'ok' and st_plain.get(t) == 'ok')
        out.append('srm run: %d of %d failed; failing only with srmsort: %d: %s'
                   % (sum(1 for s in st_srm.values() if s != 'ok'), len(st_srm),
                      len(newfail), ' '.join(newfail) or '-'))
    out.append('files compared: %d; identical: %d; with real differences: %d; missing: %d'
               % (len(results), sum(1 for r in results if not r['hunks'] and not r['order']
                                    and not r['explain']), len(real), len(missing)))
    n_order = sum(len(r['order']) for r in order)
    out.append('order of rows only (tolerated): %d result(s) in %d file(s): %s'
               % (n_order, len(order), ' '.join('%s(%d)' % (r['name'][:-4], len(r['order']))
                                                for r in order) or '-'))
    n_tie = sum(1 for r in order for o in r['order'] if o['tie'] == 'ties')
    unver = ['%s:%d' % (r['name'][:-4], o['line']) for r in order for o in r['order']
             if o['order_by'] and o['tie'] != 'ties']
    out.append('   ORDER BY keys read equal (verified ties): %d; under an ORDER BY whose keys '
               'are not output columns (unverified): %d%s'
               % (n_tie, len(unver), (': ' + ' '.join(unver)) if unver else ''))
    if not args.strict_explain:
        out.append('EXPLAIN node name only (by design, tolerated): %d region(s) in %d file(s)'
                   % (sum(r['explain'] for r in explain), len(explain)))
    if kinds:
        out.append('real differences by kind:')
        for kind in sorted(kinds, key=lambda k: -len(kinds[k])):
            items = kinds[kind]
            files = collections.OrderedDict()
            for f, s in items:
                files.setdefault(f[:-4], 0)
                files[f[:-4]] += 1
            out.append('  %s: %d hunk(s) in %d file(s): %s' % (
                kind, len(items), len(files),
                ' '.join('%s(%d)' % (f, n) for f, n in files.items())))
            sigs = collections.Counter(s for f, s in items)
            for s, n in sigs.most_common(6):
                out.append('      %4d x %s' % (n, s))
            if len(sigs) > 6:
                out.append('      ... %d more distinct' % (len(sigs) - 6))
    if missing:
        out.append('missing results files: %s' % ' '.join('%s(%s)' % m for m in missing))
    if args.srm_server_log:
        lp = server_log_kinds(args.plain_server_log)
        ls = server_log_kinds(args.srm_server_log)
        more = [(k, n - lp.get(k, 0)) for k, n in ls.items() if n > lp.get(k, 0)]
        crash = [k for k, n in more if not re.match(r'(WARNING|ERROR|FATAL):', k)]
        out.append('server log: %d message kind(s) more often in the srm run (%d crash/PANIC)%s'
                   % (len(more), len(crash), ':' if more else ''))
        for k, n in sorted(more, key=lambda x: -x[1])[:12]:
            out.append('      %4d x %s' % (n, k[:110]))
        if len(more) > 12:
            out.append('      ... %d more' % (len(more) - 12))
        nreal_log = len(crash)
    else:
        nreal_log = 0
    nreal = sum(len(r['hunks']) for r in real) + len(missing) + nreal_log
    out.append('full diffs: %s' % (args.report or '(above)'))
    out.append('RESULT: %d real difference(s) in %d file(s); %d reordered result(s) tolerated'
               % (nreal, len(real) + len(missing), n_order))
    summary = '\n'.join(out) + '\n'
    report_text = summary + '\n' + '\n'.join(rep) + '\n'
    if args.report:
        with open(args.report, 'w', encoding='utf-8', errors='surrogateescape') as f:
            f.write(report_text)
    else:
        sys.stdout.write('\n'.join(rep) + '\n')
    sys.stdout.write(summary)
    return 1 if nreal else 0


if __name__ == '__main__':
    sys.exit(main())
