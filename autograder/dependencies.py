"""Which cells of a notebook a grade depends on: a static, conservative backward slice.

A grade depends on the graded cells (answers and tests), the learner's own cells, and whatever
state those read.  This module reads each code cell's source (never runs it) and keeps, from
those roots backwards, every cell that binds or mentions a name a kept cell reads, until the
last plain rebinding of that name (``n = expr`` not reading ``n``, ``def n``, ``class n``,
``import n``).  It errs on the side of keeping:

- a cell that mentions a name at all may change it (``model.train()``, ``xs.append(1)``), so it
  is kept as a possible writer;
- names that may share an object (``opt = SGD(model.parameters())``, ``lst.append(t)``,
  ``xb, yb = batch``) are one name for the slice: mutating one may change the other;
- a function's or class's body reads its globals when it is called, which may be any later
  cell: those reads keep every later cell that mentions them (a ``@hidden_test`` body is run by
  its decorator at once and kept by no one, so it reads them when its cell runs);
- cells that import (but for standard-library modules that only bind names), change global
  settings or the environment, use magics other than timing or shell escapes, or do not parse
  are kept unconditionally.

Each cell is read once (:mod:`autograder.cellfacts`); names that may share an object
(:mod:`autograder.aliasing`) are followed together.  What static reading cannot see (random-number streams, files a later cell reads back, state
reached through ``globals()``) is measured on the reference's full run and checked against its
short run (:mod:`autograder.shortrun`), with the full-run fallback behind; this module only proposes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cellfacts import BUILTIN_NAMES, analyze


class _Groups:
    """Name versions that may share an object, merged (union-find)."""

    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, n):
        self.parent.setdefault(n, n)
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def union(self, names) -> None:
        names = list(names)
        for other in names[1:]:
            a, b = self.find(names[0]), self.find(other)
            if a != b:
                self.parent[b] = a


@dataclass
class Slice:
    """The cells a set of roots needs: indexes into the list of code sources given to :func:`needed`."""

    keep: set[int]
    why: dict[int, str]  # why each kept cell is kept (a root's reason, or the name that pulls it in)
    inputs: dict[int, set[str]] = field(default_factory=dict)  # names each root may read, functions' globals included


def needed(sources: list[str | None], roots: dict[int, str]) -> Slice:
    """The cells that ``roots`` (index -> why) depend on, among ``sources`` (None for a cell that is not
    code).  Every unconditional cell (:attr:`CellFacts.always`) is a root too.

    Names are followed by *version*: a plain rebinding starts a new one, and only the cells between a
    version's start and its end (the next rebinding) can change the object it names.  Versions that may
    share an object (:attr:`CellFacts.links`) are followed together."""
    facts = {i: analyze(s) for i, s in enumerate(sources) if s is not None}
    order = sorted(facts)
    modules = set().union(*(f.modules for f in facts.values())) if facts else set()
    values = value_names(list(facts.values()))  # a cell can change one only by rebinding it
    ignore = BUILTIN_NAMES | modules
    # versions: name -> sorted cells that rebind it; a version is (name, start) with start -1 before any
    starts: dict[str, list[int]] = {}
    for i in order:
        for n in facts[i].kills:
            starts.setdefault(n, []).append(i)

    def version_at(n: str, i: int, after: bool = False) -> tuple[str, int]:
        """The version of ``n`` a cell ``i`` reads (``after``: the one it leaves behind)."""
        best = -1
        for k in starts.get(n, ()):
            if k < i or (after and k == i):
                best = k
        return (n, best)

    def end_of(v: tuple[str, int]) -> int:
        later = [k for k in starts.get(v[0], ()) if k > v[1]]
        return later[0] if later else (order[-1] + 1 if order else 0)

    groups = _Groups()
    for i in order:
        for g in facts[i].links:
            g = [n for n in g if n not in ignore and n not in values]
            if len(g) > 1:  # what the cell leaves behind may share objects with what it read
                groups.union([version_at(n, i, after=True) for n in g] + [version_at(n, i) for n in g])
    versions = {(n, -1) for n in set().union(*(f.mentions for f in facts.values()))} if facts else set()
    versions |= {(n, k) for n, ks in starts.items() for k in ks}
    family: dict = {}
    for v in versions:
        family.setdefault(groups.find(v), set()).add(v)

    body_reads: dict[str, set[str]] = {}  # a defined name -> what the bodies bound to it read
    for f in facts.values():
        for n in f.kills:
            if f.late_reads:
                body_reads.setdefault(n, set()).update(f.late_reads)
    closure: dict[str, frozenset[str]] = {}

    def reached(n: str) -> frozenset[str]:
        if n not in closure:
            out, todo = set(), [n]
            while todo:
                m = todo.pop()
                if m not in out:
                    out.add(m)
                    todo += [x for x in body_reads.get(m, ()) if x not in out]
            closure[n] = frozenset(out)
        return closure[n]

    def fn_globals(names: set[str]) -> set[str]:
        """``names`` with the globals of every function or class they may name, transitively."""
        out: set[str] = set()
        for n in names:
            out |= reached(n) if n in body_reads else {n}
        return out - ignore

    # a function or class is changed only by rebinding or by setting its attributes, not by a call
    definitions = set().union(*(f.defs for f in facts.values())) - set().union(
        *(f.stores - f.defs for f in facts.values())) if facts else set()

    # a call runs the function's body: a cell that calls f touches what f's body touches
    reach = {i: fn_globals(f.mentions - ignore) for i, f in facts.items()}

    def changes(j: int, name: str) -> bool:
        f = facts[j]
        if name in values:
            return name in f.stores
        if name in definitions:
            return name in f.stores or name in f.attr_stores
        return name in f.mentions or name in reach[j]

    why = {i: r for i, r in roots.items() if i in facts}
    why.update({i: f.always for i, f in facts.items() if f.always and i not in why})
    keep = set(why)
    todo = list(keep)
    walked: set = set()

    def pull(j: int, name: str, reader: int) -> None:
        if j not in keep:
            keep.add(j)
            why[j] = f"it may make or change {name!r}, which cell {reader} reads"
            todo.append(j)

    def follow(v: tuple[str, int], upto: int, reader: int) -> None:
        """Keep the cells, before ``upto``, that may have made or changed the object version ``v`` names."""
        for name, start in family.get(groups.find(v), {v}):
            if (name, start, upto) in walked:
                continue
            walked.add((name, start, upto))
            stop = min(end_of((name, start)), upto - 1)
            for j in order:
                if max(start, 0) <= j <= stop and j < upto and changes(j, name):
                    pull(j, name, reader)

    while todo:
        k = todo.pop()
        f = facts[k]
        for name in f.reads - ignore:
            follow(version_at(name, k), k, k)
        for name in f.late_reads - ignore:
            # a body reads its globals when called, from any later cell: every version from now on counts
            end = order[-1] + 1
            for v in [version_at(name, k)] + [(name, s) for s in starts.get(name, ()) if s > k]:
                follow(v, end, k)
    inputs = {i: fn_globals(facts[i].reads | facts[i].late_reads) for i in roots if i in facts}
    return Slice(keep, why, inputs)


def value_names(facts) -> set[str]:
    """Names every binding of which is an immutable value (``device = "cuda" if ... else "cpu"``,
    ``lr = 0.1``): passing them around never shares an object, so they link nothing."""
    values = set().union(*(f.value_binds for f in facts)) if facts else set()
    return values - set().union(*(f.object_binds for f in facts)) if facts else set()
