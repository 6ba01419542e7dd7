#!/usr/bin/env python3
"""Check the links between the repository's Markdown files: every relative
link's file exists and every #anchor names a heading of its target (GitHub's
rule: lower case, punctuation dropped, spaces to hyphens, -1, -2 for
repeats).  With no arguments, every *.md file of the repository.  Prints
the broken ones and a last line "links: ok" or "links: N broken"; exit
status 1 if any."""
import os, re, sys

def anchors(path):
    seen = {}
    out = set()
    code = False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            code = not code
        if code:
            continue
        m = re.match(r'#{1,6} (.*)', line)
        if not m:
            continue
        h = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', m.group(1).strip())
        a = re.sub(r'[^\w\- ]', '', h.lower().replace('`', '')).replace(' ', '-')
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else '%s-%d' % (a, n))
    return out

def main(files):
    bad = 0
    cache = {}
    for f in files:
        text = open(f, encoding='utf-8').read()
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        for target in re.findall(r'\]\(([^)\s]+)\)', text):
            if re.match(r'[a-z]+:', target):
                continue
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(dest):
                print('%s: %s: no such file' % (f, target))
                bad += 1
                continue
            if anchor and dest.endswith('.md'):
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if anchor not in cache[dest]:
                    print('%s: %s: no such heading' % (f, target))
                    bad += 1
    print('links: ok' if not bad else 'links: %d broken' % bad)
    return 1 if bad else 0

def every_md():
    top = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    out = []
    for d, dirs, names in os.walk(top):
        dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
        out += [os.path.relpath(os.path.join(d, n)) for n in sorted(names) if n.endswith('.md')]
    return out

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or every_md()))
