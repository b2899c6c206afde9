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
  cell: those reads keep every later cell that mentions them;
- cells that import, change global settings or the environment, use magics other than timing
  or shell escapes, or do not parse are kept unconditionally.

What static reading cannot see (random-number streams, files a later cell reads back, state
reached through ``globals()``) is measured on the reference's full run and checked against its
short run (:mod:`autograder.shortrun`), with the full-run fallback behind; this module only proposes.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field

BUILTIN_NAMES = frozenset(dir(builtins)) | {"get_ipython", "display", "In", "Out", "exit", "quit"}

# calls that change process-wide state (seeding a generator object of one's own does not)
SETTING_CALLS = frozenset({
    "set_rng_state", "set_state", "setstate", "set_default_dtype", "set_default_device",
    "set_default_tensor_type", "use_deterministic_algorithms", "set_num_threads", "set_num_interop_threads",
    "set_float32_matmul_precision", "set_printoptions", "filterwarnings", "simplefilter", "resetwarnings",
    "chdir", "putenv", "setLevel", "basicConfig", "set_flush_denormal", "set_anomaly_enabled",
    "set_detect_anomaly", "init_process_group", "destroy_process_group", "set_start_method", "seed_everything",
})
# calls whose result never shares an object with their arguments
FRESH_CALLS = frozenset({"float", "int", "len", "str", "bool", "round", "abs", "repr", "format", "print",
                         "isinstance", "hash", "id", "type", "range", "math", "item", "tolist", "clone",
                         "numel", "dim", "size", "sum", "min", "max", "all", "any", "isclose", "allclose",
                         "equal", "norm", "mean", "std", "copy", "deepcopy"})
# calls whose result holds its positional arguments (besides constructors, whose names are capitalised)
CONTAINER_CALLS = frozenset({"list", "tuple", "dict", "set", "iter", "next", "zip", "enumerate", "reversed", "sorted",
                             "filter", "map", "getattr", "vars", "chain", "partial"})
# methods that store their arguments in their object
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "add_param_group",
                             "register_buffer", "register_parameter", "add_module", "register_module", "__setitem__",
                             "appendleft", "put", "setattr"})
TIMING_MAGICS = ("time", "timeit", "prun")


@dataclass
class CellFacts:
    """What one code cell reads, binds and mentions, as far as its source says."""

    reads: set[str] = field(default_factory=set)  # read before this cell binds them
    late_reads: set[str] = field(default_factory=set)  # read by function/method bodies, when called later
    mentions: set[str] = field(default_factory=set)  # every name the cell touches (it may change them)
    kills: set[str] = field(default_factory=set)  # names rebound without reading their old value
    stores: set[str] = field(default_factory=set)  # names the cell binds at top level (conditionally or not)
    attr_stores: set[str] = field(default_factory=set)  # names whose attributes or items the cell assigns
    defs: set[str] = field(default_factory=set)  # names bound by a top-level def or class
    modules: set[str] = field(default_factory=set)  # names bound by imports
    links: list[set[str]] = field(default_factory=list)  # names that may end up sharing an object
    always: str = ""  # why the cell is kept whatever reads it ("" = only when something needs it)
    seeds: set[str] = field(default_factory=set)  # global generators the cell seeds (torch, cuda, numpy, random)
    leading_seeds: set[str] = field(default_factory=set)  # those seeded before anything else in the cell runs


def python_source(source: str) -> tuple[str, str]:
    """The cell as plain Python (IPython's own translation of magics and shell escapes), and why it
    must be kept anyway ("" if not): magics and shell escapes are kept, except timing magics, whose
    statement is read like code."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        text = TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - IPython could not read it: the cell is kept
        return source, "IPython cannot translate it"
    if "get_ipython()" not in text:
        return text, ""
    why = ""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text, ""
    timed = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "run_line_magic", "run_cell_magic", "system", "getoutput"):
            args = [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            magic = args[0] if args else ""
            if n.func.attr in ("run_line_magic", "run_cell_magic") and magic in TIMING_MAGICS:
                timed += [re.sub(r"^(-\w+(\s+\d+)?\s+)*", "", a.strip()) for a in args[1:]]
            else:
                why = why or (f"magic %{magic}" if "magic" in n.func.attr else "shell escape")
    return text + "".join(f"\n{t}" for t in timed if t), why


def _alias_names(node: ast.AST | None) -> set[str]:
    """Names whose objects the value of ``node`` may be, or contain."""
    if node is None:
        return set()
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        return _alias_names(node.value)
    if isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called in FRESH_CALLS:
            return set()
        # a method's result may be (a view of) its object: x.view(...), model.parameters(), d.get(k)
        out = _alias_names(func.value) if isinstance(func, ast.Attribute) else set()
        if called[:1].isupper() or called in CONTAINER_CALLS:  # constructors and containers keep their arguments
            for a in node.args:  # keyword arguments are settings (device=, lr=) far more often than objects
                out |= _alias_names(a)
        return out
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_alias_names(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Dict):
        return set().union(*(_alias_names(v) for v in node.values)) if node.values else set()
    if isinstance(node, ast.BoolOp):
        return set().union(*(_alias_names(v) for v in node.values))
    if isinstance(node, ast.IfExp):
        return _alias_names(node.body) | _alias_names(node.orelse)
    if isinstance(node, (ast.NamedExpr,)):
        return _alias_names(node.value) | {node.target.id}
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        names = _alias_names(node.value if isinstance(node, ast.DictComp) else node.elt)
        local: set[str] = set()
        for gen in reversed(node.generators):
            targets = _targets(gen.target)
            if names & targets:
                names |= _alias_names(gen.iter)
            local |= targets
        return names - local
    return set()


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _simple_reads(node: ast.AST, bound: set[str]) -> tuple[set[str], set[str]]:
    """Names a statement (or expression) without nested blocks reads before binding, and what it binds."""
    loads, stores, local = set(), set(), set()
    for n in _module_level(node):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, ast.comprehension):
            local |= _targets(n.target)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            stores |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(n.name)
    return loads - bound - local, stores


def _free_reads(body: list[ast.stmt], bound: set[str]) -> tuple[set[str], set[str]]:
    """Names a block reads before it binds them on every path, and the names bound after it on every
    path.  Statements run in order; a loop's body may run zero times, a handler after any statement."""
    reads, bound = set(), set(bound)
    for st in body:
        if isinstance(st, ast.If):
            r, _ = _simple_reads(st.test, bound)
            r1, b1 = _free_reads(st.body, bound)
            r2, b2 = _free_reads(st.orelse, bound)
            reads |= r | r1 | r2
            bound = b1 & b2
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            r, _ = _simple_reads(st.iter, bound)
            r1, _ = _free_reads(st.body, bound | _targets(st.target))
            r2, _ = _free_reads(st.orelse, bound)
            reads |= r | r1 | r2
        elif isinstance(st, ast.While):
            r, _ = _simple_reads(st.test, bound)
            r1, _ = _free_reads(st.body, bound)
            r2, _ = _free_reads(st.orelse, bound)
            reads |= r | r1 | r2
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            inner = set(bound)
            for item in st.items:
                r, _ = _simple_reads(item.context_expr, inner)
                reads |= r
                if item.optional_vars is not None:
                    inner |= _targets(item.optional_vars)
            r1, bound = _free_reads(st.body, inner)
            reads |= r1
        elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
            r1, b1 = _free_reads(st.body, bound)
            reads |= r1
            for h in st.handlers:
                r, _ = _simple_reads(h.type, bound) if h.type is not None else (set(), set())
                rh, _ = _free_reads(h.body, bound | ({h.name} if h.name else set()))
                reads |= r | rh
            r2, _ = _free_reads(st.orelse, b1)
            r3, b3 = _free_reads(st.finalbody, bound)
            reads |= r2 | r3
            bound = b3
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = bound | {st.name}  # its header and body are read elsewhere (analyze)
        else:
            r, stored = _simple_reads(st, bound)
            reads |= r
            bound = bound | stored
    return reads, bound


def _function_reads(fn: ast.AST) -> set[str]:
    """Global names a function's or class's body reads when it runs (its locals and arguments aside)."""
    local = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    local |= {n.name for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
              and n is not fn}
    declared = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Global):
            declared |= set(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            local.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            local |= {(a.asname or a.name).split(".")[0] for a in n.names}
    loads = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return (loads - (local - declared)) | declared


def _seeded(call: ast.Call) -> set[str]:
    """The process-wide generators a call seeds: ``torch.manual_seed`` (CPU and every GPU),
    ``torch.cuda.manual_seed_all``, ``np.random.seed``, ``random.seed``."""
    f = call.func
    if not isinstance(f, ast.Attribute):
        return set()
    v = f.value
    if f.attr == "manual_seed" and isinstance(v, ast.Name) and v.id == "torch":
        return {"torch", "cuda"}
    if f.attr in ("manual_seed", "manual_seed_all") and isinstance(v, ast.Attribute) and v.attr == "cuda":
        return {"cuda"}
    if f.attr == "seed" and isinstance(v, ast.Attribute) and v.attr == "random":
        return {"numpy"}
    if f.attr == "seed" and isinstance(v, ast.Name) and v.id == "random":
        return {"random"}
    return set()


def _called_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def analyze(source: str) -> CellFacts:
    """Read one code cell's source."""
    facts = CellFacts()
    text, why = python_source(source)
    if why:
        facts.always = why
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        facts.always = f"does not parse ({type(exc).__name__})"
        return facts
    for st in tree.body:  # what the cell seeds before anything else can draw a number
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and _seeded(st.value):
            facts.leading_seeds |= _seeded(st.value)
        elif not isinstance(st, (ast.Import, ast.ImportFrom)):
            break
    bound: set[str] = set()
    for st in tree.body:
        is_def = isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if is_def:
            body_reads = _function_reads(st)
            facts.late_reads |= body_reads - bound
            header = list(getattr(st, "decorator_list", [])) + list(getattr(st, "bases", []))
            if not isinstance(st, ast.ClassDef):
                header += list(st.args.defaults) + [d for d in st.args.kw_defaults if d is not None]
            loads = {n.id for h in header for n in ast.walk(h) if isinstance(n, ast.Name)}
            if isinstance(st, ast.ClassDef):  # a class body runs now
                loads |= body_reads
            facts.reads |= loads - bound
            facts.mentions |= loads | {st.name}
            facts.stores.add(st.name)
            facts.defs.add(st.name)
            facts.kills.add(st.name)
            bound.add(st.name)
            continue
        loads, stores = set(), set()
        loop_bound: set[str] = set()
        for n in _module_level(st):
            if isinstance(n, ast.Name):
                (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names = {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
                if any(a.name == "*" for a in n.names):
                    facts.always = facts.always or "star import"
                facts.modules |= names
                stores |= names
                facts.always = facts.always or "imports"
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                facts.late_reads |= _function_reads(n) - bound
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                loop_bound |= _targets(n.target)
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                loop_bound |= _targets(n.optional_vars)
            elif isinstance(n, ast.ExceptHandler) and n.name:
                loop_bound.add(n.name)
            elif isinstance(n, ast.Call):
                name = _called_name(n)
                if name in SETTING_CALLS:
                    facts.always = facts.always or f"changes a global setting ({name})"
                elif _seeded(n):
                    facts.seeds |= _seeded(n)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                stores |= set(n.names)
        # where values may end up shared: assignments, loops, with-as, and method calls with arguments
        for n in _module_level(st):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                group = set().union(*(_targets(t) for t in targets)) | _alias_names(n.value)
                for t in targets:  # obj.attr = v / d[k] = v put v inside obj / d
                    if isinstance(t, (ast.Attribute, ast.Subscript)):
                        root = _alias_names(t)
                        group |= root
                        facts.attr_stores |= root
                        if isinstance(t.value, ast.Name) and t.value.id in facts.modules | {"os", "torch", "np", "sys"}:
                            facts.always = facts.always or "changes a module attribute"
                if len(group) > 1:
                    facts.links.append(group)
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                group = _targets(n.target) | _alias_names(n.iter)
                if len(group) > 1:
                    facts.links.append(group)
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                group = _targets(n.optional_vars) | _alias_names(n.context_expr)
                if len(group) > 1:
                    facts.links.append(group)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args:
                if _called_name(n) in STORING_METHODS:
                    group = _alias_names(n.func.value)
                    for a in n.args:
                        group |= _alias_names(a)
                    if len(group) > 1:
                        facts.links.append(group)
            elif isinstance(n, ast.NamedExpr):
                facts.links.append({n.target.id} | _alias_names(n.value))
        facts.reads |= _free_reads([st], bound)[0]
        facts.mentions |= loads | stores
        facts.stores |= stores
        # a plain top-level rebinding that does not read the old value ends the name's history
        if isinstance(st, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in st.targets):
            facts.kills |= set().union(*(_targets(t) for t in st.targets)) - loads
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            facts.kills |= {st.target.id} - loads
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            facts.kills |= {(a.asname or a.name).split(".")[0] for a in st.names if a.name != "*"}
        bound |= stores
    return facts


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
    values = value_names(sources)  # a cell can change one only by rebinding it
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


def _immutable(node: ast.AST | None) -> bool:
    """Whether an expression's value can never be changed in place (numbers, strings, devices, dtypes)."""
    if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Compare)):
        return True
    if isinstance(node, ast.IfExp):
        return _immutable(node.body) and _immutable(node.orelse)
    if isinstance(node, ast.BoolOp):
        return all(_immutable(v) for v in node.values)
    if isinstance(node, (ast.BinOp,)):
        return _immutable(node.left) and _immutable(node.right)
    if isinstance(node, ast.UnaryOp):
        return _immutable(node.operand)
    if isinstance(node, ast.Tuple):
        return all(_immutable(e) for e in node.elts)
    if isinstance(node, ast.Attribute):  # torch.float32, torch.bfloat16, ...
        return isinstance(node.value, ast.Name) and node.value.id == "torch" and \
            bool(re.match(r"^(u?int\d+|float\d*|bfloat16|half|double|long|bool|complex\d+)$", node.attr))
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return name in {"device", "str", "int", "float", "bool", "len", "round", "abs", "item", "repr", "format",
                        "is_available", "get_default_dtype"}
    return False


def _module_level(tree: ast.AST):
    """The nodes that run at module level: function bodies and lambdas are not entered (their
    names are local), class bodies are."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))


def value_names(sources: list[str | None]) -> set[str]:
    """Names every binding of which is an immutable value (``device = "cuda" if ... else "cpu"``,
    ``lr = 0.1``): passing them around never shares an object, so they link nothing."""
    good: set[str] = set()
    bad: set[str] = set()
    for s in sources:
        if s is None:
            continue
        text, _ = python_source(s)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for n in _module_level(tree):
            if isinstance(n, ast.Assign):
                names = set().union(*(_targets(t) for t in n.targets))
                simple = all(isinstance(t, ast.Name) for t in n.targets)
                (good if simple and _immutable(n.value) else bad).update(names)
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                (good if _immutable(n.value) else bad).update(_targets(n.target))
            elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                pass
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                if not (isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range"):
                    bad.update(_targets(n.target))
                else:
                    good.update(_targets(n.target))
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                bad.update(_targets(n.optional_vars))
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bad.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                bad.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, ast.NamedExpr):
                bad.add(n.target.id)
    return good - bad
