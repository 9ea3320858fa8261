#!/usr/bin/env python3
"""Type references between the top-level folders of a target's Swift sources: prints every pair of
folders that use each other's types (issue 19: inside a target, no two folders may).
usage: scripts/folder-graph.py Sources/TARGET [--depth N] [-v]"""
import os, re, sys, collections
root = sys.argv[1]; depth = int(sys.argv[sys.argv.index('--depth')+1]) if '--depth' in sys.argv else 1
decl = re.compile(r'^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)', re.M)
def group(path):
    rel = os.path.relpath(path, root).split(os.sep)[:-1]
    return '/'.join(rel[:depth]) or '.'
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.swift'):
            p = os.path.join(d, f); files[p] = open(p).read()
owner = {}
for p, t in files.items():
    for m in decl.finditer(t): owner.setdefault(m.group(1), group(p))
strip = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
edges = collections.defaultdict(lambda: collections.Counter())
for p, t in files.items():
    g = group(p); body = strip.sub('', t)
    used = set(re.findall(r'\b([A-Z]\w*)\b', body))
    for u in used:
        o = owner.get(u)
        if o and o != g: edges[(g, o)][u] += 1
pairs = set()
for (a, b) in edges:
    if (b, a) in edges and (b, a) not in pairs: pairs.add((a, b))
verbose = '-v' in sys.argv
for (a, b) in sorted(pairs):
    print(f"{a} <-> {b}: {sum(edges[(a,b)].values())}/{sum(edges[(b,a)].values())}")
    if verbose:
        print("   ", a, "uses", dict(edges[(a,b)])); print("   ", b, "uses", dict(edges[(b,a)]))
if not pairs: print("no two folders use each other's types")
