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
- given the cells that hold the learner's code, every cell that may run it is kept (its reads are
  followed like a root's), and every cell after learner code that may leave code where no name
  leads (:func:`runs_learner_code`).

Each cell is read once (:mod:`autograder.shortrun.cellfacts`); names that may share an object
(:mod:`autograder.shortrun.aliasing`) are followed together.  What static reading cannot see (random-number streams, files a later cell reads back, state
reached through ``globals()``) is measured on the reference's full run and checked against its
short run (:mod:`autograder.shortrun`), with the full-run fallback behind; this module only proposes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.shortrun.cellfacts import BUILTIN_NAMES, analyze


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


def needed(sources: list[str | None], roots: dict[int, str], learner: set[int] | frozenset[int] = frozenset()) -> Slice:
    """The cells that ``roots`` (index -> why) depend on, among ``sources`` (None for a cell that is not
    code).  Every unconditional cell (:attr:`~autograder.shortrun.cellfacts.CellFacts.always`) is a root
    too, and so is every cell that may run code from a ``learner`` cell (:func:`runs_learner_code`).

    Names are followed by *version*: a plain rebinding starts a new one, and only the cells between a
    version's start and its end (the next rebinding) can change the object it names.  Versions that may
    share an object (:attr:`~autograder.shortrun.cellfacts.CellFacts.links`) are followed together."""
    facts = {i: analyze(s) for i, s in enumerate(sources) if s is not None}
    order = sorted(facts)
    modules = set().union(*(f.modules for f in facts.values())) if facts else set()
    # a cell can change one only by rebinding it (a function's ``global n`` rebinds it from any caller)
    values = value_names(list(facts.values())) - set().union(*(f.global_writes for f in facts.values()))
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
    body_writes: dict[str, set[str]] = {}  # a defined name -> the globals its bodies rebind
    for f in facts.values():
        for n in f.kills:
            if f.late_reads:
                body_reads.setdefault(n, set()).update(f.late_reads)
            if f.global_writes:
                body_writes.setdefault(n, set()).update(f.global_writes)
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

    def reached_all(names: set[str]) -> set[str]:
        """``names`` and every name the bodies bound to them read, transitively."""
        return set().union(*(reached(n) for n in names)) if names else set()

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
    rebound = {i: set().union(*(body_writes.get(m, set()) for m in reached_all(f.mentions))) if body_writes else set()
               for i, f in facts.items()}

    def changes(j: int, name: str) -> bool:
        f = facts[j]
        if name in values:
            return name in f.stores or name in rebound[j]
        if name in definitions:
            return name in f.stores or name in f.attr_stores or name in rebound[j]
        return name in f.mentions or name in reach[j]

    why = {i: r for i, r in roots.items() if i in facts}
    why.update({i: f.always for i, f in facts.items() if f.always and i not in why})
    if learner:
        touches = {i: fn_globals(f.reads | f.late_reads | f.global_writes) for i, f in facts.items()}
        for i, r in runs_learner_code(facts, order, set(learner), modules, values | ignore, groups, version_at,
                                      touches).items():
            why.setdefault(i, r)
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
            for v in [version_at(name, k)] + [(name, s) for s in starts.get(name, ()) if s >= k]:
                follow(v, end, k)
    inputs = {i: fn_globals(facts[i].reads | facts[i].late_reads) for i in roots if i in facts}
    return Slice(keep, why, inputs)


def shared_reach(f, shared: set[str], modules: set[str]) -> str:
    """Why a cell's code may leave something where code reaches it without naming any name of the
    notebook ("" if not): it assigns into a module or a built-in (or an object reached from one without a
    call, ``shared``), registers a callback through one, rebinds one of the ``modules``' names, or does what
    :attr:`~autograder.shortrun.cellfacts.CellFacts.escape` names."""
    if f.escape:
        return f.escape
    hit = sorted(f.store_roots & shared)
    if hit:
        return f"it assigns an attribute or item of {hit[0]}, which code reaches without naming it"
    hit = sorted(f.callback_roots & shared)
    if hit:
        return f"it registers a callback through {hit[0]}"
    hit = sorted((f.rebinds - f.modules) & modules)
    if hit:
        return f"it rebinds {hit[0]}, the name of a module"
    return ""


def runs_learner_code(facts: dict, order: list[int], learner: set[int], modules: set[str], plain: set[str],
                      groups: "_Groups", version_at, touches: dict[int, set[str]]) -> dict[int, str]:
    """The cells (not ``learner``'s own) that may run code a ``learner`` cell wrote, with why: a skipped
    cell must never run it, since no proof on the reference covers what it does.

    Learner code is reached through names: those a learner cell binds or touches (what its functions
    read when called included) and every name that may share an object with one.  A cell that touches
    such a name, directly or through a function it calls, may run learner code, and what it touches in
    turn may then hold some.  Names of values (numbers, strings, devices) hold no code (``plain``).  A
    learner cell that may leave code where no name leads (:func:`shared_reach`: into a module, a
    class, the built-ins, a hook) makes every later cell one that may run it.  ``touches``: the names
    each cell may use from what came before it (:attr:`~autograder.shortrun.cellfacts.CellFacts.reads`), through
    the functions it calls too."""
    shared = set(modules) | set(BUILTIN_NAMES) | {"__builtins__"} | set().union(
        *(f.modules_inside for f in facts.values()))
    grew = True
    while grew:  # names bound to a part of a module (``T = torch.Tensor``) are as shared as the module
        grew = False
        for f in facts.values():
            for n, roots in f.derived.items():
                if n not in shared and roots & shared:
                    shared.add(n)
                    grew = True
    tainted: set = set()
    out: dict[int, str] = {}
    escaped = ""

    def names(i: int, after: bool) -> set:
        f = facts[i]
        found = {groups.find(version_at(n, i)) for n in touches[i] - plain}
        if after:
            found |= {groups.find(version_at(n, i, after=True)) for n in (f.mentions | f.late_reads) - plain}
        return found

    for i in order:
        if i in learner:
            tainted |= names(i, after=True)
            leaves = shared_reach(facts[i], shared, modules)
            escaped = escaped or (f"cell {i} (the learner's) may leave code where no name leads: {leaves}"
                                  if leaves else "")
        elif escaped:
            out[i] = escaped
        elif names(i, after=False) & tainted:
            via = sorted(n for n in touches[i] - plain if groups.find(version_at(n, i)) in tainted)
            out[i] = f"it may run the learner's code (through {', '.join(via[:3])})"
            tainted |= names(i, after=True)
    return out


def value_names(facts) -> set[str]:
    """Names every binding of which is an immutable value (``device = "cuda" if ... else "cpu"``,
    ``lr = 0.1``): passing them around never shares an object, so they link nothing."""
    values = set().union(*(f.value_binds for f in facts)) if facts else set()
    return values - set().union(*(f.object_binds for f in facts)) if facts else set()
