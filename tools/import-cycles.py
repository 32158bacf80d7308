#!/usr/bin/env python3
"""Prints the strongly connected components of src/'s import graph (files that import each other,
directly or through others), of files and then of src/'s top-level folders (`folders: ...`):
`tools/import-cycles.py [src] [-v]`. Empty output means the imports point one way
(docs/architecture.md). `-v` prints every file's imports. It reads `use` paths and
`crate::`/`super::` paths as text; test code (`#[cfg(test)]` modules, `tests.rs`, `*_tests.rs`)
is left out."""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else 'src'
files = {}
for dp, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(dp, f)
            rel = os.path.relpath(p, root)[:-3]
            parts = rel.split(os.sep)
            if parts[-1] == 'mod': parts = parts[:-1]
            if parts in (['lib'], ['main']): continue
            files[tuple(parts)] = p
def resolve(path):
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in files: return tuple(path[:n])
    return None
def expand(prefix, body):
    # body like "a, b::{c, d}, e as f, self"
    out = []; depth = 0; cur = ''
    for ch in body:
        if ch == '{': depth += 1
        if ch == '}': depth -= 1
        if ch == ',' and depth == 0: out.append(cur.strip()); cur = ''
        else: cur += ch
    if cur.strip(): out.append(cur.strip())
    res = []
    for item in out:
        item = item.split(' as ')[0].strip()
        m = re.match(r'([A-Za-z0-9_:]*?)::\{(.*)\}$', item, re.S)
        if m: res += expand(prefix + m.group(1).split('::'), m.group(2))
        elif item == 'self': res.append(prefix)
        elif item: res.append(prefix + item.split('::'))
    return res
edges = {m: set() for m in files}
for m, p in files.items():
    src = open(p).read()
    src = re.sub(r'#\[cfg\(test\)\]\s*(pub(\(\w+\))? )?mod \w+ \{.*', '', src, flags=re.S)
    src = re.sub(r'//.*', '', src)
    is_mod = p.endswith('mod.rs') or p.endswith('lib.rs')
    here = list(m) if is_mod else list(m[:-1])   # the module `super` of children... 
    parent = list(m[:-1]) if not is_mod else list(m[:-1])
    # How many inline `mod x { ... }` blocks enclose each position: `super` inside one of them
    # names a module of the same file first.
    inline = [0] * (len(src) + 1); stack = []; opens = {mo.end() - 1 for mo in re.finditer(r'\bmod \w+\s*\{', src)}
    for k, ch in enumerate(src):
        if ch == '{': stack.append(k in opens)
        elif ch == '}' and stack: stack.pop()
        inline[k + 1] = sum(stack)
    paths = []
    for u in re.finditer(r'\buse\s+([^;]+);', src):
        t = u.group(1).strip()
        mm = re.match(r'(.*?)::\{(.*)\}$', t, re.S)
        found = expand(mm.group(1).split('::'), mm.group(2)) if mm else [t.split(' as ')[0].split('::')]
        paths += [(x, inline[u.start()]) for x in found]
    for mt in re.finditer(r'\b((?:crate|super)(?:::[A-Za-z0-9_]+)+)', src):
        paths.append((mt.group(1).split('::'), inline[mt.start()]))
    for path, depth in paths:
        path = [x.strip() for x in path if x.strip()]
        if not path: continue
        if path[0] == 'crate': full = path[1:]
        elif path[0] == 'super':
            ups = 0
            while path and path[0] == 'super': ups += 1; path = path[1:]
            if ups <= depth: continue   # a module of this file
            ups -= depth
            b = list(m) if is_mod else list(m)
            b = b[:len(b) - ups]
            full = b + path
        elif path[0] == 'self': full = (list(m) if is_mod else list(m[:-1])) + path[1:]
        else:
            continue
        t = resolve(full)
        if t is not None and t != m: edges[m].add(t)
idx = {}; low = {}; st = []; on = set(); sccs = []; i = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = i[0]; i[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = st.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: sccs.append(c)
for v in files:
    if v not in idx: sc(v)
for c in sorted(sccs, key=len, reverse=True):
    print(len(c), sorted('/'.join(x) for x in c))
# The same over the top-level folders (layers), test files left out.
def is_test(m): return m[-1] == 'tests' or m[-1].endswith('_tests')
layer_edges = {}
for a, bs in edges.items():
    if is_test(a): continue
    for b in bs:
        if a[0] != b[0]: layer_edges.setdefault(a[0], set()).add(b[0])
def reach(v, seen):
    for w in layer_edges.get(v, ()):
        if w not in seen: seen.add(w); reach(w, seen)
    return seen
layer_cycles = sorted({tuple(sorted(x for x in reach(v, set()) if v in reach(x, set()))) for v in layer_edges} - {()})
for c in layer_cycles:
    print('folders:', list(c))
if '-v' in sys.argv:
    for a in sorted(edges):
        print('/'.join(a), '->', sorted('/'.join(x) for x in edges[a]))
