"""What one code cell reads, binds and touches, as far as its source says (it is never run).

The facts the slice (:mod:`autograder.dependencies`) is built from: the names a cell reads
before binding them (in order, through branches, loops and ``try``), the names function and
class bodies read when they are later called, what it rebinds outright (the end of a name's
history), which names it may make share an object (:mod:`autograder.aliasing`), what it seeds,
and whether it must run whatever reads it (imports, but for a few standard-library modules that
only bind names; global settings, magics and shell escapes, code that does not parse).  Magics
are read through IPython's own translation.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
from dataclasses import dataclass, field

from .aliasing import STORING_METHODS, alias_names, immutable, targets
from .scopes import free_reads, function_reads, module_level

BUILTIN_NAMES = frozenset(dir(builtins)) | {"get_ipython", "display", "In", "Out", "exit", "quit"}

# calls that change process-wide state (seeding a generator object of one's own does not)
SETTING_CALLS = frozenset({
    "set_rng_state", "set_state", "setstate", "set_default_dtype", "set_default_device",
    "set_default_tensor_type", "use_deterministic_algorithms", "set_num_threads", "set_num_interop_threads",
    "set_float32_matmul_precision", "set_printoptions", "filterwarnings", "simplefilter", "resetwarnings",
    "chdir", "putenv", "setLevel", "basicConfig", "set_flush_denormal", "set_anomaly_enabled",
    "set_detect_anomaly", "init_process_group", "destroy_process_group", "set_start_method", "seed_everything",
})
TIMING_MAGICS = ("time", "timeit", "prun")
# standard-library modules whose import changes nothing outside themselves (no process-wide setting,
# no registration, no output): a cell that imports only these is kept for what it binds, like any
# other cell.  Every other import keeps its cell whatever reads it.
QUIET_MODULES = frozenset({
    "abc", "bisect", "collections", "contextlib", "copy", "dataclasses", "enum", "fractions", "functools",
    "heapq", "itertools", "json", "math", "numbers", "operator", "pprint", "re", "statistics", "string",
    "textwrap", "time", "timeit", "types", "typing", "weakref",
})


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
    value_binds: set[str] = field(default_factory=set)  # names bound to numbers, strings, devices, dtypes
    object_binds: set[str] = field(default_factory=set)  # names bound to anything else
    modules: set[str] = field(default_factory=set)  # names bound by imports
    links: list[set[str]] = field(default_factory=list)  # names that may end up sharing an object
    always: str = ""  # why the cell is kept whatever reads it ("" = only when something needs it)
    seeds: set[str] = field(default_factory=set)  # global generators the cell seeds (torch, cuda, numpy, random)
    leading_seeds: set[str] = field(default_factory=set)  # those seeded before anything else in the cell runs


def _hidden_test_body(node) -> bool:
    """A function under the grader's ``@hidden_test(...)``: the decorator runs its body at once and
    keeps no reference to it (:func:`autograder.probe.hidden_test`), so what the body reads is read
    now, not whenever it might be called later."""
    if not isinstance(node, ast.FunctionDef) or len(node.decorator_list) != 1:
        return False
    deco = node.decorator_list[0]
    if not isinstance(deco, ast.Call):
        return False
    f = deco.func
    return (isinstance(f, ast.Name) and f.id == "hidden_test") or (isinstance(f, ast.Attribute) and f.attr == "hidden_test")


def _quiet(node: ast.Import | ast.ImportFrom) -> bool:
    """Whether this import statement only binds names (every module it loads is in QUIET_MODULES)."""
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] in QUIET_MODULES
    return all(a.name.split(".")[0] in QUIET_MODULES for a in node.names)


@functools.lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def python_source(source: str) -> tuple[str, str]:
    """The cell as plain Python (IPython's own translation of magics and shell escapes), and why it
    must be kept anyway ("" if not): magics and shell escapes are kept, except timing magics, whose
    statement is read like code."""
    try:
        text = _transformer().transform_cell(source)
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


def _value_bindings(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names a cell binds to immutable values only, and those it binds to anything else."""
    good: set[str] = set()
    bad: set[str] = set()
    for n in module_level(tree):
        if isinstance(n, ast.Assign):
            names = set().union(*(targets(t) for t in n.targets))
            simple = all(isinstance(t, ast.Name) for t in n.targets)
            (good if simple and immutable(n.value) else bad).update(names)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            (good if immutable(n.value) else bad).update(targets(n.target))
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            pass
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            if not (isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range"):
                bad.update(targets(n.target))
            else:
                good.update(targets(n.target))
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            bad.update(targets(n.optional_vars))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bad.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bad.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, ast.NamedExpr):
            bad.add(n.target.id)
    return good, bad


@functools.lru_cache(maxsize=8192)
def analyze(source: str) -> CellFacts:
    """Read one code cell's source (remembered: a course's cells are read once per process; the
    facts are shared, so callers never change them)."""
    facts = CellFacts()
    text, why = python_source(source)
    if why:
        facts.always = why
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        facts.always = f"does not parse ({type(exc).__name__})"
        return facts
    facts.value_binds, facts.object_binds = _value_bindings(tree)
    for st in tree.body:  # what the cell seeds before anything else can draw a number
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and _seeded(st.value):
            facts.leading_seeds |= _seeded(st.value)
        elif not isinstance(st, (ast.Import, ast.ImportFrom)):
            break
    bound: set[str] = set()
    for st in tree.body:
        is_def = isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if is_def:
            body_reads = function_reads(st)
            runs_now = isinstance(st, ast.ClassDef) or _hidden_test_body(st)
            if not runs_now:
                facts.late_reads |= body_reads - bound
            header = list(getattr(st, "decorator_list", [])) + list(getattr(st, "bases", []))
            if not isinstance(st, ast.ClassDef):
                header += list(st.args.defaults) + [d for d in st.args.kw_defaults if d is not None]
            loads = {n.id for h in header for n in ast.walk(h) if isinstance(n, ast.Name)}
            if runs_now:  # a class body, or a hidden test's body, runs now
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
        for n in module_level(st):
            if isinstance(n, ast.Name):
                (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names = {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
                if any(a.name == "*" for a in n.names):
                    facts.always = facts.always or "star import"
                facts.modules |= names
                stores |= names
                if not _quiet(n):
                    facts.always = facts.always or "imports"
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                facts.late_reads |= function_reads(n) - bound
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
                loop_bound |= targets(n.target)
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                loop_bound |= targets(n.optional_vars)
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
        for n in module_level(st):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                bound_to = n.targets if isinstance(n, ast.Assign) else [n.target]
                group = set().union(*(targets(t) for t in bound_to)) | alias_names(n.value)
                for t in bound_to:  # obj.attr = v / d[k] = v put v inside obj / d
                    if isinstance(t, (ast.Attribute, ast.Subscript)):
                        root = alias_names(t)
                        group |= root
                        facts.attr_stores |= root
                        if isinstance(t.value, ast.Name) and t.value.id in facts.modules | {"os", "torch", "np", "sys"}:
                            facts.always = facts.always or "changes a module attribute"
                if len(group) > 1:
                    facts.links.append(group)
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                group = targets(n.target) | alias_names(n.iter)
                if len(group) > 1:
                    facts.links.append(group)
            elif isinstance(n, ast.withitem) and n.optional_vars is not None:
                group = targets(n.optional_vars) | alias_names(n.context_expr)
                if len(group) > 1:
                    facts.links.append(group)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args:
                if _called_name(n) in STORING_METHODS:
                    group = alias_names(n.func.value)
                    for a in n.args:
                        group |= alias_names(a)
                    if len(group) > 1:
                        facts.links.append(group)
            elif isinstance(n, ast.NamedExpr):
                facts.links.append({n.target.id} | alias_names(n.value))
        facts.reads |= free_reads([st], bound)[0]
        facts.mentions |= loads | stores
        facts.stores |= stores
        # a plain top-level rebinding that does not read the old value ends the name's history
        if isinstance(st, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in st.targets):
            facts.kills |= set().union(*(targets(t) for t in st.targets)) - loads
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            facts.kills |= {st.target.id} - loads
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            facts.kills |= {(a.asname or a.name).split(".")[0] for a in st.names if a.name != "*"}
        bound |= stores
    return facts
