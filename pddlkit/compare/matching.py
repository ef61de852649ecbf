"""A renaming of objects that maps one set of labelled facts onto another.

Both problems (or anything else that is objects plus facts ``(label, (arg, ...))``) become
one graph, their disjoint union: a node per object, a hyperedge per fact. Colour refinement
(1-dimensional Weisfeiler-Leman) partitions the nodes of that union: two objects share a
colour when their typed neighbourhoods unfold alike to any depth. Refining the union instead
of each side makes colours comparable across the two sides for free, and an isomorphism can
only map an object to one of its own colour, so unequal colour counts prove "not
equivalent" at once.

Equal counts are not a proof (colour refinement cannot tell a 6-cycle from two 3-cycles), so
the search individualizes: it picks the smallest class with more than one object, gives one
reference object and, in turn, each candidate object of that class a new colour of their
own, refines again and recurses, backtracking when the counts diverge. A renaming is only
ever accepted after checking that it maps every fact onto a fact (and the counts match), so
"equivalent" is never wrong; "not equivalent" is exhaustive unless ``budget`` search nodes
ran out, which the result says (``decided``). At every node the objects left in one class
are first paired in order and checked: objects that are true twins (the packages at one
depot) need no branching at all, which is what keeps large, regular IPC problems fast.

Refinement is incremental (Hopcroft's rule): when a class splits, the largest part keeps
the old colour and only neighbours of the other parts are looked at again, so a round costs
what changed, not the size of the problem.

When the facts do not correspond, the renaming reported is found in two steps. First, one
edit (:func:`_repair`): if removing, adding or changing one fact on one side makes the two
isomorphic, that isomorphism is the renaming and the edit is the difference; this is exact
for the near misses that matter most (a forgotten fact, a goal object swapped) and is what the
property tests check. Otherwise a heuristic (:func:`_best`) maps as many facts as it can:
objects alone in their stable colour class on each side are paired (they unfold alike to
any depth, differences included), as are classes with equal counts after individualizing;
objects with the same name and type on both sides are paired next (a model describing the
same world mostly keeps its names); the rest grow from those pairs by witnesses (percolation
matching: the pair that most facts of already-paired objects agree on goes next), the
remainder by their deepest common colour; and a hill climb moves or swaps images while that
maps more facts. That is a local optimum, not a proven maximum (maximum common subgraph is
NP-hard).
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Hashable, Iterable, Optional

Fact = tuple  # (label, (arg, ...)): label is any hashable, args are object names


@dataclass(frozen=True)
class Structure:
    """Objects with the colour they start with (their type, or their own name for objects
    that must map to themselves), and labelled facts over them. Every argument of a fact
    must be one of ``objects``."""

    objects: dict[str, Hashable]
    facts: frozenset


@dataclass
class Match:
    """The outcome of :func:`match`: ``mapping`` (reference object -> candidate object) is an
    isomorphism when ``isomorphic``; otherwise it is the best renaming found (partial when
    the two sides differ in objects). ``decided`` is False when the search budget ran out
    before "not isomorphic" was proven."""

    mapping: dict[str, str]
    isomorphic: bool
    decided: bool = True
    nodes: int = 0
    notes: list[str] = field(default_factory=list)


class _Budget(Exception):
    pass


_MASK = (1 << 64) - 1


def _item(fact_hash: int, position: int) -> int:
    return hash((fact_hash, position)) & _MASK


@dataclass
class _Partition:
    """A colouring of the union's nodes and what refining it incrementally needs: each
    class's members, each fact's hash under the current colours (label and argument
    colours) and each node's signature, the sum of the hashes of (its facts, its position in
    each) modulo 2**64. A sum is a function of the multiset, so the partition stays
    isomorphism-invariant; a collision only makes it coarser (slower, never wrong: every
    renaming is checked against the facts)."""

    colour: list
    members: dict
    fact_hash: list
    sig: list
    next_id: int

    def copy(self) -> "_Partition":
        return _Partition(list(self.colour), {k: list(v) for k, v in self.members.items()},
                          list(self.fact_hash), list(self.sig), self.next_id)


class _Union:
    """The disjoint union of two structures as integer nodes, with its refinement."""

    def __init__(self, ref: Structure, cand: Structure):
        self.ref_names = sorted(ref.objects)
        self.cand_names = sorted(cand.objects)
        self.n_ref = len(self.ref_names)
        self.names = self.ref_names + self.cand_names
        index_r = {o: i for i, o in enumerate(self.ref_names)}
        index_c = {o: i + self.n_ref for i, o in enumerate(self.cand_names)}
        self.index_c = index_c
        # label ids in a fixed order, so the colours (and the renaming found) do not depend
        # on the process's string hashing
        labels = {label: i for i, label in enumerate(sorted(
            {label for label, _ in ref.facts} | {label for label, _ in cand.facts}, key=repr))}
        self.labels = labels
        self.facts: list[tuple[int, tuple[int, ...]]] = []
        self.ref_facts: set = set()
        self.cand_facts: set = set()
        self.nullary = (Counter(), Counter())
        for side, (struct, index, store) in enumerate(((ref, index_r, self.ref_facts),
                                                       (cand, index_c, self.cand_facts))):
            for label, args in struct.facts:
                lid = labels[label]
                nodes = tuple(index[a] for a in args)
                store.add((lid, nodes))
                if not nodes:
                    self.nullary[side][lid] += 1
                    continue
                self.facts.append((lid, nodes))
        n = len(self.names)
        self.incidence: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for fi, (_, nodes) in enumerate(self.facts):
            for pos, v in enumerate(nodes):
                self.incidence[v].append((fi, pos))
        start = [ref.objects[o] for o in self.ref_names] + [cand.objects[o] for o in self.cand_names]
        rank = {k: i for i, k in enumerate(sorted({repr(k) for k in start}))}
        self.initial = [rank[repr(k)] for k in start]

    # ------------------------------------------------------------------ refinement

    def start(self) -> _Partition:
        colour = list(self.initial)
        fact_hash = [hash((lid, tuple(colour[a] for a in nodes))) & _MASK
                     for lid, nodes in self.facts]
        sig = [0] * len(colour)
        for fi, (_, nodes) in enumerate(self.facts):
            h = fact_hash[fi]
            for pos, v in enumerate(nodes):
                sig[v] = (sig[v] + _item(h, pos)) & _MASK
        return _Partition(colour, _members(colour), fact_hash, sig, max(colour, default=-1) + 1)

    def refine(self, part: _Partition, changed: Iterable[int] = (), check_all: bool = False,
               history: Optional[list] = None) -> None:
        """Refine ``part`` in place to the coarsest stable partition below it. ``changed``
        are nodes whose colour was just set (individualized); ``check_all`` looks at every
        class once (a fresh partition). Hopcroft's rule: the largest part of a split class
        keeps its colour, so only the facts of the other parts' nodes are rehashed."""
        colour, members, sig = part.colour, part.members, part.sig
        touched = set(self._rehash(part, changed))
        classes = sorted(members) if check_all else sorted({colour[v] for v in touched})
        while classes:
            moved: list[int] = []
            splits = []
            for cls in classes:
                nodes = members[cls]
                if len(nodes) < 2:
                    continue
                first = sig[nodes[0]]
                if all(sig[v] == first for v in nodes):
                    continue
                groups: dict = defaultdict(list)
                for v in nodes:
                    groups[sig[v]].append(v)
                splits.append((cls, groups))
            # colours change only after every class of the round was split on the old ones
            for cls, groups in splits:
                parts = sorted(groups.items())
                keep = max(range(len(parts)), key=lambda i: (len(parts[i][1]), -i))
                members[cls] = parts[keep][1]
                for i, (_, nodes) in enumerate(parts):
                    if i == keep:
                        continue
                    members[part.next_id] = nodes
                    for v in nodes:
                        colour[v] = part.next_id
                    moved.extend(nodes)
                    part.next_id += 1
            if not moved:
                break
            if history is not None:
                history.append(list(colour))
            classes = sorted({colour[v] for v in self._rehash(part, moved)})

    def _rehash(self, part: _Partition, changed: Iterable[int]) -> set:
        """Update the hashes of the facts of ``changed`` nodes and the signatures of their
        arguments; the nodes whose signature changed."""
        colour, fact_hash, sig = part.colour, part.fact_hash, part.sig
        facts, incidence = self.facts, self.incidence
        seen: set = set()
        touched: set = set()
        for x in changed:
            for fi, _ in incidence[x]:
                if fi in seen:
                    continue
                seen.add(fi)
                lid, nodes = facts[fi]
                new = hash((lid, tuple(colour[a] for a in nodes))) & _MASK
                old = fact_hash[fi]
                if new == old:
                    continue
                fact_hash[fi] = new
                for pos, v in enumerate(nodes):
                    sig[v] = (sig[v] - _item(old, pos) + _item(new, pos)) & _MASK
                    touched.add(v)
        return touched

    def counts_agree(self, members: dict[int, list[int]]) -> bool:
        n = self.n_ref
        for nodes in members.values():
            left = sum(1 for v in nodes if v < n)
            if 2 * left != len(nodes):
                return False
        return True

    def verify(self, mapping: dict[int, int]) -> bool:
        if self.nullary[0] != self.nullary[1] or len(self.ref_facts) != len(self.cand_facts):
            return False
        cand = self.cand_facts
        for lid, nodes in self.ref_facts:
            if (lid, tuple(mapping[a] for a in nodes)) not in cand:
                return False
        return True


def _members(colour: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    for v, c in enumerate(colour):
        out[c].append(v)
    return dict(out)


def _isomorphism(ref: Structure, cand: Structure, budget: int
                 ) -> tuple[Optional[dict[str, str]], bool, int, "_Union", _Partition, list]:
    """(mapping or None, decided, search nodes, the union, its stable partition, history)."""
    u = _Union(ref, cand)
    part = u.start()
    history: list = [list(part.colour)]
    u.refine(part, check_all=True, history=history)
    result = None
    decided = True
    nodes = [0]
    if (len(u.ref_names) == len(u.cand_names) and u.counts_agree(part.members)
            and u.nullary[0] == u.nullary[1] and len(u.ref_facts) == len(u.cand_facts)):
        try:
            result = _search(u, part, nodes, budget)
        except _Budget:
            decided = False
    names = u.names
    mapping = None if result is None else {names[a]: names[b] for a, b in result.items()}
    return mapping, decided, nodes[0], u, part, history


def match(ref: Structure, cand: Structure, *, budget: int = 2000) -> Match:
    """An isomorphism from ``ref`` onto ``cand`` (see the module docstring), or else the
    renaming under which one edit (:func:`_repair`) makes them isomorphic, or else the best
    renaming the heuristic (:func:`_best`) finds."""
    found, decided, nodes, u, part, history = _isomorphism(ref, cand, budget)
    if found is not None:
        return Match(found, True, True, nodes)
    notes = []
    if not decided:
        notes.append(f"the isomorphism search stopped after {budget} nodes: the problems "
                     "may still be equivalent under a renaming it did not reach")
    repaired = _repair(ref, cand, budget)
    if repaired is not None:
        return Match(repaired, False, decided, nodes, notes)
    mapping = _best(u, part, history)
    names = u.names
    out = Match({names[a]: names[b] for a, b in mapping.items()}, False, decided, nodes, notes)
    if len(mapping) == len(u.ref_names) == len(u.cand_names) and u.verify(mapping):
        out.isomorphic, out.decided, out.notes = True, True, []   # found one after all
    return out


# ---------------------------------------------------------------------------- one edit

#: the most edits whose one-round colours are checked, and the most of those that pass which
#: are tested for isomorphism
EDIT_CHECKS = 200_000
EDIT_TRIES = 24


def _round_one(struct: Structure) -> tuple[dict[str, tuple], dict[str, list], dict]:
    """Each object's colour one refinement round deep (its type, and its facts with the
    types of their arguments, as a hash sum), each object's facts, each object's type hash."""
    base = {o: hash(repr(k)) & _MASK for o, k in struct.objects.items()}
    sig = {o: 0 for o in struct.objects}
    facts_of: dict[str, list] = defaultdict(list)
    for fact in struct.facts:
        h = _fact_hash(fact, base)
        for pos, a in enumerate(fact[1]):
            sig[a] = (sig[a] + _item(h, pos)) & _MASK
        for a in set(fact[1]):
            facts_of[a].append(fact)
    colour = {o: (base[o], sig[o]) for o in struct.objects}
    return colour, facts_of, base


def _fact_hash(fact: tuple, base: dict) -> int:
    label, args = fact
    return hash((repr(label), tuple(base[a] for a in args))) & _MASK


def _repair(ref: Structure, cand: Structure, budget: int) -> Optional[dict[str, str]]:
    """The renaming under which the two sides differ by one edit, if one does: a fact removed
    from one side, added to it, or one argument of one of its facts replaced.

    An edit changes the one-round colours (type and facts one level deep) of the objects in
    the facts it touches, and after the right edit both sides have the same colour counts.
    So the edits tried on a side are those whose objects are in classes where that side has
    more objects than the other (a fact dropped from a grid of 1,000 identical cells leaves
    its two cells with colours nobody else has on their side), smallest classes first, and
    only those that balance the counts (a check of a few colours each, at most
    :data:`EDIT_CHECKS`) are tested for isomorphism (at most :data:`EDIT_TRIES`). Exact for
    one edit within those bounds: what an LLM's near miss (a fact forgotten, a goal object
    swapped) and the property tests look like."""
    if Counter(map(repr, ref.objects.values())) != Counter(map(repr, cand.objects.values())):
        return None
    sides = (ref, cand)
    rounds = [_round_one(x) for x in sides]
    hist = [Counter(r[0].values()) for r in rounds]
    diff = hist[0].copy()
    diff.subtract(hist[1])
    diff = {k: v for k, v in diff.items() if v}   # > 0: the reference has more
    max_arity = max((len(args) for x in sides for _, args in x.facts), default=0)
    if sum(abs(v) for v in diff.values()) > 4 * max(max_arity, 1):
        return None   # one edit recolours at most 2 x arity objects: more than one edit
    labels = [Counter(label for label, _ in x.facts) for x in sides]
    arity = {label: len(args) for x in sides for label, args in x.facts}
    second = _round_two(sides, rounds)
    if not diff and not second[1]:
        return None   # two rounds deep nothing differs: no edit this search can find
    checks = tries = 0
    for i in (1, 0):   # the candidate first
        sign = 1 if i == 0 else -1
        colour, facts_of, base = rounds[i]
        size = hist[i]
        pool = sorted((o for o, c in colour.items() if sign * diff.get(c, 0) > 0),
                      key=lambda o: (size[colour[o]], o))
        if not pool:   # the one-round counts balance (two objects swapped roles): go deeper
            two, diff2 = second[0][i], second[1]
            size2 = Counter(two.values())
            pool = sorted((o for o, c in two.items() if sign * diff2.get(c, 0) > 0),
                          key=lambda o: (size2[two[o]], o))
        if not pool:
            continue
        facts = sides[i].facts
        near = list(dict.fromkeys(f for o in pool for f in sorted(facts_of.get(o, ()), key=repr)))

        def edits():
            for f in near:
                yield f, None
            for f in near:
                for j, a in enumerate(f[1]):
                    for z in pool:
                        if z != a and base[z] == base[a]:
                            g = (f[0], f[1][:j] + (z,) + f[1][j + 1:])
                            if g not in facts:
                                yield f, g
            for label in sorted(labels[1 - i], key=repr):
                if labels[1 - i][label] > labels[i][label]:
                    for args in itertools.product(pool, repeat=arity[label]):
                        g = (label, tuple(args))
                        if g not in facts:
                            yield None, g

        for removed, added in edits():
            checks += 1
            if checks > EDIT_CHECKS:
                return None
            if not _balances(removed, added, colour, base, diff, sign):
                continue
            if not _balances_two(sides, i, removed, added, rounds, second):
                continue
            tries += 1
            if tries > EDIT_TRIES:
                return None
            new = set(facts)
            if removed is not None:
                new.discard(removed)
            if added is not None:
                new.add(added)
            edited = Structure(sides[i].objects, frozenset(new))
            found, *_ = _isomorphism(*((edited, cand) if i == 0 else (ref, edited)), budget)
            if found is not None:
                return found
    return None


def _round_two(sides, rounds) -> tuple[list[dict], dict]:
    """Each object's colour two rounds deep (its one-round colour, and its facts with the
    one-round colours of their arguments), per side, and the count difference (reference
    minus candidate) of those colours."""
    colours = []
    for struct, (one, _, _) in zip(sides, rounds):
        sig = {o: 0 for o in struct.objects}
        for fact in struct.facts:
            h = hash((repr(fact[0]), tuple(one[a] for a in fact[1]))) & _MASK
            for pos, a in enumerate(fact[1]):
                sig[a] = (sig[a] + _item(h, pos)) & _MASK
        colours.append({o: (one[o], sig[o]) for o in struct.objects})
    diff = Counter(colours[0].values())
    diff.subtract(Counter(colours[1].values()))
    return colours, {k: v for k, v in diff.items() if v}


def _balances_two(sides, i: int, removed, added, rounds, second) -> bool:
    """Whether the edit on side ``i`` also balances the two-round colours: the objects of the
    edited facts change their one-round colours, so they and every object sharing a fact
    with them are recoloured from their facts after the edit."""
    colours, diff = second
    _, facts_of, base = rounds[i]
    one = dict(rounds[i][0])
    touched = {a for f in (removed, added) if f is not None for a in f[1]}

    def facts(o):
        out = [f for f in facts_of.get(o, ()) if f != removed]
        if added is not None and o in added[1]:
            out.append(added)
        return out

    for a in touched:
        sig = 0
        for f in facts(a):
            h = _fact_hash(f, base)
            for pos, x in enumerate(f[1]):
                if x == a:
                    sig = (sig + _item(h, pos)) & _MASK
        one[a] = (base[a], sig)
    affected = set(touched)
    for a in touched:
        for f in facts(a):
            affected.update(f[1])
    change: dict = defaultdict(int)
    for o in affected:
        sig = 0
        for f in facts(o):
            h = hash((repr(f[0]), tuple(one[a] for a in f[1]))) & _MASK
            for pos, x in enumerate(f[1]):
                if x == o:
                    sig = (sig + _item(h, pos)) & _MASK
        change[colours[i][o]] -= 1
        change[(one[o], sig)] += 1
    sign = 1 if i == 0 else -1
    for key in set(diff) | set(change):
        if sign * diff.get(key, 0) + change.get(key, 0) != 0:
            return False
    return True


def _balances(removed, added, colour: dict, base: dict, diff: dict, sign: int) -> bool:
    """Whether the edit, on the side whose surplus is ``sign * diff``, leaves no colour with
    more objects on one side than the other."""
    delta: dict[str, int] = {}
    for fact, step in ((removed, -1), (added, 1)):
        if fact is None:
            continue
        h = _fact_hash(fact, base)
        for pos, a in enumerate(fact[1]):
            delta[a] = (delta.get(a, 0) + step * _item(h, pos)) & _MASK
    change: dict = defaultdict(int)
    for a, d in delta.items():
        if not d:
            continue
        old = colour[a]
        change[old] -= 1
        change[(old[0], (old[1] + d) & _MASK)] += 1
    for key in set(diff) | set(change):
        if sign * diff.get(key, 0) + change.get(key, 0) != 0:
            return False
    return True


def _search(u: _Union, part: _Partition, nodes: list, budget: int) -> Optional[dict[int, int]]:
    nodes[0] += 1
    if nodes[0] > budget:
        raise _Budget()
    n = u.n_ref
    mapping: dict[int, int] = {}
    branch = None
    for cls in sorted(part.members):
        vs = part.members[cls]
        left = [v for v in vs if v < n]
        right = [v for v in vs if v >= n]
        mapping.update(zip(left, right))
        if len(left) > 1 and (branch is None or len(left) < len(branch[0])):
            branch = (left, right, cls)
    if u.verify(mapping):
        return mapping
    if branch is None:
        return None
    left, right, cls = branch
    r = left[0]
    for c in right:
        sub = part.copy()
        sub.members[cls] = [v for v in sub.members[cls] if v not in (r, c)]
        sub.colour[r] = sub.colour[c] = sub.next_id
        sub.members[sub.next_id] = [r, c]
        sub.next_id += 1
        u.refine(sub, (r, c))
        if not u.counts_agree(sub.members):
            continue
        found = _search(u, sub, nodes, budget)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------------------- best renaming


def _best(u: _Union, stable: _Partition, history: list[list[int]]) -> dict[int, int]:
    """A renaming that maps as many facts as it can (see the module docstring)."""
    mapping = _pair_classes(u, stable)
    _same_names(u, mapping)
    if len(mapping) < ANCHORS * u.n_ref:
        _early_anchors(u, history, mapping)
    _percolate(u, mapping, history)
    _fill(u, history, mapping)
    _improve(u, mapping)
    return mapping


#: below this share of reference objects paired by the stable colouring and by names, pairs
#: alone in their class at an earlier refinement round are taken as anchors too
ANCHORS = 0.1


#: the refinement rounds whose lone pairs are anchors (later ones see the differences)
EARLY = 2


def _early_anchors(u: _Union, history: list[list[int]], mapping: dict[int, int]) -> None:
    """Pairs alone in their class at refinement round 1 or 2 (:data:`EARLY`): before the
    differences' influence has spread far, two objects alone with one colour are alike as
    far as that round sees (the robot's cell in a grid)."""
    n = u.n_ref
    used = set(mapping.values())
    for colour in history[1:EARLY + 1]:
        groups: dict = defaultdict(lambda: ([], []))
        for v, c in enumerate(colour):
            groups[c][v >= n].append(v)
        for left, right in groups.values():
            if len(left) == 1 and len(right) == 1 and left[0] not in mapping \
                    and right[0] not in used:
                mapping[left[0]] = right[0]
                used.add(right[0])


def _agreement(history: list[list[int]], a: int, b: int) -> int:
    """The last refinement round at which ``a`` and ``b`` share a colour (-1: never);
    colours only split, so this is a binary search."""
    lo, hi = -1, len(history) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if history[mid][a] == history[mid][b]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _pair_classes(u: _Union, stable: _Partition) -> dict[int, int]:
    """Pairs from the stable colouring of the union: a class with one object of each side is a
    pair (they unfold alike to any depth, differences included); a class with as many of
    each side is split by individualizing one of each, as the exact search's first branch
    would, and refined again. Classes with unequal counts (where the differences are) are
    left to :func:`_percolate`."""
    part = stable.copy()
    n = u.n_ref
    mapping: dict[int, int] = {}
    for _ in range(len(u.names) + 1):
        branch = None
        for cls, vs in part.members.items():
            left = [v for v in vs if v < n]
            if not left or 2 * len(left) != len(vs):
                continue
            if len(left) == 1:
                mapping[left[0]] = next(v for v in vs if v >= n)
            elif branch is None or len(left) < branch[1] or (len(left) == branch[1]
                                                             and cls < branch[0]):
                branch = (cls, len(left))
        if branch is None:
            break
        cls = branch[0]
        vs = part.members[cls]
        r = min(v for v in vs if v < n)
        c = min(v for v in vs if v >= n)
        part.members[cls] = [v for v in vs if v not in (r, c)]
        part.colour[r] = part.colour[c] = part.next_id
        part.members[part.next_id] = [r, c]
        part.next_id += 1
        u.refine(part, (r, c))
    return mapping


def _same_names(u: _Union, mapping: dict[int, int]) -> None:
    """Objects the structure left unpaired that have the same name and type on both sides
    are paired: a model describing the same world mostly keeps its names (``kitchen``)."""
    used = set(mapping.values())
    for a in range(u.n_ref):
        b = u.index_c.get(u.names[a])
        if a not in mapping and b is not None and b not in used \
                and u.initial[a] == u.initial[b]:
            mapping[a] = b
            used.add(b)


#: a fact key (label, position) shared by more than this many facts on each side (a hub: a
#: depot with every package at it) gives no evidence about which of its facts is which
HUB = 100


def _percolate(u: _Union, mapping: dict[int, int], history: list[list[int]]) -> None:
    """Grow ``mapping`` by witnesses (percolation graph matching): a pair (x, y) of the same
    type gains one for each fact of a mapped pair (a, b) with the same label, a and b in the
    same position, and x and y in the same other position; the pair with most witnesses is
    taken next (of equal witnesses, the pair whose colours agree to the deepest refinement
    round), its own facts then witness for their neighbours."""
    n = u.n_ref
    base = u.initial
    keyed: list[dict] = [defaultdict(list) for _ in u.names]
    for fi, (lid, nodes) in enumerate(u.facts):
        for pos, v in enumerate(nodes):
            keyed[v][(lid, pos)].append(fi)
    used = set(mapping.values())
    score: Counter = Counter()
    heap: list = []

    def witness(a: int, b: int) -> None:
        ka, kb = keyed[a], keyed[b]
        for key, fs in ka.items():
            gs = kb.get(key)
            if not gs or (len(fs) > HUB and len(gs) > HUB):
                continue
            pos = key[1]
            for fi in fs:
                xs = u.facts[fi][1]
                for gi in gs:
                    ys = u.facts[gi][1]
                    for j, x in enumerate(xs):
                        if j == pos:
                            continue
                        y = ys[j]
                        if x in mapping or y in used or base[x] != base[y]:
                            continue
                        score[(x, y)] += 1
                        heapq.heappush(heap, (-score[(x, y)], -_agreement(history, x, y),
                                              x, y))

    for a, b in list(mapping.items()):
        witness(a, b)
    while heap:
        neg, _, x, y = heapq.heappop(heap)
        if x in mapping or y in used or -neg != score[(x, y)]:
            continue
        mapping[x] = y
        used.add(y)
        witness(x, y)


def _fill(u: _Union, history: list[list[int]], mapping: dict[int, int]) -> None:
    """Pair what no fact links to the pairs made: each remaining reference object with a free
    candidate object of its type, the one whose colour agrees with it to the deepest
    refinement round (then the first)."""
    n = u.n_ref
    used = set(mapping.values())
    free = [v for v in range(n, len(u.names)) if v not in used]
    if not free:
        return
    for a in range(n):
        if a in mapping:
            continue
        best, depth = None, -1
        for b in free:
            if b in used or history[0][a] != history[0][b]:
                continue
            d = 0
            for i in range(1, len(history)):
                if history[i][a] != history[i][b]:
                    break
                d = i
            if d > depth:
                best, depth = b, d
        if best is not None:
            mapping[a] = best
            used.add(best)


def _image(u: _Union, mapping: dict[int, int], fi: int) -> Optional[tuple]:
    lid, nodes = u.facts[fi]
    image = []
    for x in nodes:
        y = mapping.get(x)
        if y is None:
            return None
        image.append(y)
    return (lid, tuple(image))


def _mapped_facts(u: _Union, mapping: dict[int, int], fact_ids: Iterable[int]) -> int:
    cand = u.cand_facts
    count = 0
    for fi in fact_ids:
        image = _image(u, mapping, fi)
        if image is not None and image in cand:
            count += 1
    return count


#: the most facts :func:`_improve` evaluates in all (moves and swaps of objects with many
#: facts cost more)
TRIALS = 1_000_000


def _improve(u: _Union, mapping: dict[int, int], rounds: int = 20) -> None:
    """Hill-climb: move a reference object that touches an unmapped fact to a free candidate
    object of its type, or swap its image with another reference object's, whenever that
    maps more facts; until no such move helps (or :data:`TRIALS` fact evaluations are
    spent)."""
    n = u.n_ref
    base = u.initial
    by_type: dict[int, list[int]] = defaultdict(list)
    for v in range(n):
        by_type[base[v]].append(v)
    used = set(mapping.values())
    free_by_type: dict[int, set] = defaultdict(set)
    for v in range(n, len(u.names)):
        if v not in used:
            free_by_type[base[v]].add(v)
    ref_fact_ids = [fi for fi in range(len(u.facts)) if u.facts[fi][1][0] < n]
    cand_fact_ids = [fi for fi in range(len(u.facts)) if u.facts[fi][1][0] >= n]
    trials = 0
    for _ in range(rounds):
        images = set()
        suspects: set = set()
        for fi in ref_fact_ids:
            image = _image(u, mapping, fi)
            if image is None or image not in u.cand_facts:
                suspects.update(u.facts[fi][1])
            else:
                images.add(image)
        preimage = {b: a for a, b in mapping.items()}
        for fi in cand_fact_ids:
            if u.facts[fi] not in images:
                suspects.update(preimage[x] for x in u.facts[fi][1] if x in preimage)
        improved = False
        for a in sorted(suspects):
            own = [fi for fi, _ in u.incidence[a]]
            before = _mapped_facts(u, mapping, own)
            for b in sorted(free_by_type[base[a]]):
                trials += 2 * len(own)
                old = mapping.get(a)
                mapping[a] = b
                if _mapped_facts(u, mapping, own) > before:
                    free_by_type[base[a]].discard(b)
                    if old is not None:
                        free_by_type[base[a]].add(old)
                    improved = True
                    break
                if old is None:
                    del mapping[a]
                else:
                    mapping[a] = old
            if a not in mapping:
                continue
            for c in by_type[base[a]]:
                if c == a or c not in mapping:
                    continue
                touched = set(own).union(fi for fi, _ in u.incidence[c])
                trials += 2 * len(touched)
                before = _mapped_facts(u, mapping, touched)
                mapping[a], mapping[c] = mapping[c], mapping[a]
                if _mapped_facts(u, mapping, touched) > before:
                    improved = True
                    break
                mapping[a], mapping[c] = mapping[c], mapping[a]
            if trials > TRIALS:
                return
        if not improved:
            return
