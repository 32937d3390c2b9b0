#!/bin/bash
# The engine's layering (ARCHITECTURE.md): dispatch -> handlers (cmd/) -> object/, session,
# policy, nv/, pcr ... -> state/, crypto/ -> marshal and the leaf services (rc, log, clock).
# Measured on what the files really use: a function one object file of core/ calls and another
# defines (nm), so a declaration kept in a shared header hides nothing. Reports the references
# that run from a lower layer up to a higher one and the largest set of files that call each
# other in a circle; fails if either exceeds its budget (CORE_UP_MAX, CORE_CIRCLE_MAX: what the
# tree has now, so that no new one comes in). Before the transaction and the leaf services had
# files of their own: 103 upward references and a circle of 62 files. Left now: state/codec.c
# encodes the NV table, persistent objects and saved sessions with their own functions, and
# state_close drops the primary cache (12 references); the command table and the handlers that
# list or look up commands (cmd/table, capability, command_audit, policy, pp, testing: one
# layer, the table naming each handler and these handlers asking it about other commands).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

UP_MAX=${CORE_UP_MAX:-12}
CIRCLE_MAX=${CORE_CIRCLE_MAX:-6}
obj=$BUILD_DIR/obj/core
[ -d "$obj" ] || { bad "no objects in $obj (build first)"; finish; }

# one line per object: "D file symbol" (defined) or "U file symbol" (used)
# (one nm for every object: nm -A prefixes each line with its object's path)
(cd "$obj" && find . -name '*.o' | sed 's|^\./||' | sort | xargs nm -A) |
	awk '{ split($1, p, ".o:"); f = p[1] }
	     NF == 3 && $2 ~ /^[TDBR]$/ { print "D", f, $3 } NF == 3 && $2 == "U" { print "U", f, $3 }' \
	>"$T/syms"

python3 - "$T/syms" "$UP_MAX" "$CIRCLE_MAX" >"$T/report" <<'PY' || true
import sys

# Layer of a file of core/ by its path (higher calls lower). state/serve.c and state/owner.c
# serve the engine's socket and lock: they belong with the engine's face. The transaction
# (txn.c) sits with the services that record their changes in it and calls down into state/.
def layer(f):
    if f in ("engine", "dispatch", "state/serve", "state/owner"):
        return 5, "engine, dispatch"
    if f.startswith("cmd/"):
        return 4, "handlers (cmd/)"
    if f.startswith("state/"):
        return 1, "state/"
    if f.startswith("crypto/") or f in ("marshal", "types_marshal", "rc", "log", "clock"):
        return 0, "crypto/, marshal, leaf services"
    return 2, "object/, session, policy, nv/, pcr, auth ..."

defs, uses = {}, {}
for line in open(sys.argv[1]):
    k, f, s = line.split()
    if k == "D":
        defs[s] = f
    else:
        uses.setdefault(f, set()).add(s)
up_max, circle_max = int(sys.argv[2]), int(sys.argv[3])
edges = {f: set() for f in set(defs.values()) | set(uses)}
up = []
for f, syms in sorted(uses.items()):
    for s in sorted(syms):
        g = defs.get(s)
        if g is None or g == f:
            continue
        edges[f].add(g)
        if layer(g)[0] > layer(f)[0]:
            up.append((f, g, s))

# Tarjan's strongly connected components, iteratively
index, low, on, stack, comps, n = {}, {}, set(), [], [], [0]
for root in sorted(edges):
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = n[0]; n[0] += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges[w]))))
                break
            if w in on:
                low[v] = min(low[v], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                c = []
                while True:
                    w = stack.pop(); on.discard(w); c.append(w)
                    if w == v:
                        break
                comps.append(sorted(c))
big = max(comps, key=len)
pairs = sorted({(f, g) for f, g, _ in up})
print("upward %d %d" % (len(up), len(pairs)))
print("circle %d %s" % (len(big), " ".join(big)))
for f, g, s in up:
    print("  up: %s (%s) calls %s of %s (%s)" % (f, layer(f)[1], s, g, layer(g)[1]))
sys.exit(0 if len(up) <= up_max and len(big) <= circle_max else 1)
PY
read -r _ nup npairs <<<"$(sed -n 1p "$T/report")"
read -r _ ncircle circle <<<"$(sed -n 2p "$T/report")"
sed -n '3,$p' "$T/report"
echo "circle of $ncircle files: $circle"
if [ "$nup" -le "$UP_MAX" ]; then
	ok "core/: $nup upward references ($npairs file pairs), budget $UP_MAX"
else
	bad "core/: $nup upward references ($npairs file pairs), budget $UP_MAX"
fi
if [ "$ncircle" -le "$CIRCLE_MAX" ]; then
	ok "core/: the largest circle has $ncircle files, budget $CIRCLE_MAX"
else
	bad "core/: the largest circle has $ncircle files, budget $CIRCLE_MAX"
fi
finish
