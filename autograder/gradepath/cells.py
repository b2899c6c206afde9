"""What one code cell reads, binds and changes, as far as its source says (it is never run).

The facts the grade path (:mod:`autograder.gradepath`) is built from: the names a cell reads before
binding them (in order, through branches, loops and ``try``), the names the bodies of the functions
it defines read whenever they are called, the names it binds and those it rebinds outright (where a
name's history starts again), and the names whose object it changes without rebinding them
(``x[0] = 1``, ``items.append(t)``, ``w.add_(1)``, ``torch.set_num_threads(1)``).  Magics are read
through IPython's own translation: ``%timeit f(x)`` reads ``f`` and ``x``.  A file written by
``%%writefile NAME`` is bound like a name (:func:`file_name`), and a cell reads it where a string it holds
names it (``distlab.run("ddp_trace.py:ddp_trace", ...)``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
from dataclasses import dataclass, field

from autograder.gradepath.scopes import free_reads, function_reads, module_level, targets

BUILTIN_NAMES = frozenset(dir(builtins)) | {"get_ipython", "display", "In", "Out", "exit", "quit"}

# calls that change a process-wide setting through the module they are called on (``torch.set_num_threads``);
# the random-number generators are not among them: every test cell leaves them as it found them and every
# hidden test seeds its own (:func:`autograder.probe.hold_generators`)
SETTING_CALLS = frozenset({
    "set_default_dtype", "set_default_device", "set_default_tensor_type", "use_deterministic_algorithms",
    "set_num_threads", "set_num_interop_threads", "set_float32_matmul_precision", "set_printoptions",
    "filterwarnings", "simplefilter", "resetwarnings", "chdir", "putenv", "setLevel", "basicConfig",
    "set_flush_denormal", "set_anomaly_enabled", "set_detect_anomaly", "set_start_method",
})
# methods that change the object they are called on (besides torch's in-place ones, whose names end in "_")
CHANGING_METHODS = frozenset({
    "append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "remove", "clear", "discard",
    "sort", "reverse", "appendleft", "put", "__setitem__", "__delitem__", "add_param_group", "register_buffer",
    "register_parameter", "add_module", "register_module", "load_state_dict", "train", "eval",
})
TIMING_MAGICS = ("time", "timeit", "prun")


@dataclass
class CellFacts:
    """What one code cell reads, binds and changes, as far as its source says."""

    reads: set[str] = field(default_factory=set)  # read when the cell runs, before it binds them
    late_reads: set[str] = field(default_factory=set)  # read by the functions it defines, whenever they are called
    binds: set[str] = field(default_factory=set)  # names it binds at the top level (conditionally or not)
    kills: set[str] = field(default_factory=set)  # names it rebinds without reading their old value
    changes: set[str] = field(default_factory=set)  # names whose object it changes without rebinding them
    # changing-method calls, as (the root of what it is called on, the method, its first argument's root): which
    # of the two changes depends on whether the first is a module (:meth:`changed`)
    method_calls: set[tuple[str, str, str | None]] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)  # names it binds by importing
    strings: set[str] = field(default_factory=set)  # the strings its code holds, when it runs
    late_strings: set[str] = field(default_factory=set)  # those of the functions it defines, when they are called
    star: bool = False  # ``from m import *``: it may bind any name

    def changed(self, modules: set[str]) -> set[str]:
        """The names whose object the cell changes, given the names that are modules in its notebook: an in-place
        method (its name ends in "_") called on a module changes its first argument (``torch.nn.init.zeros_(w)``
        changes ``w``); any other changing method changes what it is called on (``sys.path.append(p)``
        changes ``sys``)."""
        out = set(self.changes)
        for obj, method, first in self.method_calls:
            if obj in modules and method.endswith("_"):
                if first:
                    out.add(first)
            else:
                out.add(obj)
        return out


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


def _root(node: ast.AST) -> str | None:
    """The name at the root of an attribute/item chain (``a.b[c].d`` -> ``a``), or None (a call's result)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _changes(tree: ast.AST, facts: CellFacts) -> None:
    """The names whose object the cell's top-level code changes without rebinding them.

    Attribute and item stores and deletions go through their root (``model.fc = ...``, ``d[k] += 1``); a
    changing method changes what it is called on (``xs.append(t)``, ``w.add_(1)``, ``model.eval()``),
    and an in-place one called on a module (``torch.nn.init.zeros_(w)``) its first argument: which names are
    modules is the notebook's to say (:meth:`CellFacts.changed`).  A setting call changes its module
    (``torch.set_num_threads(1)``)."""
    for n in module_level(tree):
        if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            root = _root(n)
            if root:
                facts.changes.add(root)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            method = n.func.attr
            root = _root(n.func.value)
            if not root:
                continue
            if method in SETTING_CALLS:
                facts.changes.add(root)
            elif method in CHANGING_METHODS or (method.endswith("_") and not method.startswith("_")):
                facts.method_calls.add((root, method, _root(n.args[0]) if n.args else None))


def file_name(name: str) -> str:
    """How a file a cell writes is bound: a name no Python name can be."""
    return f"file:{name}"


def _written_files(tree: ast.AST, facts: CellFacts) -> None:
    """``%%writefile [-a] NAME`` binds the file ``NAME`` (rebinds it, without ``-a``); the text it writes is no
    string the cell's code holds."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "run_cell_magic":
            args = [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if len(args) >= 2 and args[0] == "writefile":
                words = args[1].split()
                if words and words[-1] != "-a":
                    facts.binds.add(file_name(words[-1]))
                    if "-a" not in words and "--append" not in words:
                        facts.kills.add(file_name(words[-1]))
                if len(args) >= 3:
                    facts.strings.discard(args[2])


@functools.lru_cache(maxsize=1)
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def python_source(source: str) -> str:
    """The cell as plain Python, as IPython runs it (its own translation of magics and shell escapes);
    a timing magic's statement is added as code, so that what it times is read like code."""
    try:
        text = _transformer().transform_cell(source)
    except Exception:  # noqa: BLE001 - IPython could not read it: read as it is (it will not parse)
        return source
    if "get_ipython()" not in text:
        return text
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text
    timed = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "run_line_magic", "run_cell_magic"):
            args = [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if args and args[0] in TIMING_MAGICS:
                timed += [re.sub(r"^(-\w+(\s+\d+)?\s+)*", "", a.strip()) for a in args[1:]]
    return text + "".join(f"\n{t}" for t in timed if t)


@functools.lru_cache(maxsize=8192)
def analyze(source: str) -> CellFacts:
    """Read one code cell's source (remembered: a course's cells are read once per process; the
    facts are shared, so callers never change them).  A cell that does not parse, or is too deep to
    read, binds nothing."""
    try:
        return _read(ast.parse(python_source(source)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return CellFacts()


def _read(tree: ast.AST) -> CellFacts:
    facts = CellFacts()
    bound: set[str] = set()
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body_reads = function_reads(st)
            runs_now = isinstance(st, ast.ClassDef) or _hidden_test_body(st)
            header = list(st.decorator_list) + list(getattr(st, "bases", [])) + list(getattr(st, "keywords", []))
            if not isinstance(st, ast.ClassDef):
                header += list(st.args.defaults) + [d for d in st.args.kw_defaults if d is not None]
            loads = {n.id for h in header for n in ast.walk(h) if isinstance(n, ast.Name)}
            if runs_now:  # a class body, or a hidden test's body, runs now
                loads |= body_reads
            else:  # read when called, names this cell bound before it included
                facts.late_reads |= body_reads
            facts.reads |= loads - bound
            facts.binds.add(st.name)
            facts.kills.add(st.name)
            bound.add(st.name)
            continue
        stores = set()
        for n in module_level(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                stores.add(n.id)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                facts.star = facts.star or any(a.name == "*" for a in n.names)
                imported = {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
                facts.modules |= imported
                stores |= imported
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stores.add(n.name)
            elif isinstance(n, ast.Lambda):
                facts.late_reads |= function_reads(n)
            elif isinstance(n, ast.Global):
                stores |= set(n.names)
        facts.reads |= free_reads([st], bound)[0]
        facts.binds |= stores
        # a plain top-level rebinding that does not read the old value starts the name's history again
        loads = {n.id for n in module_level(st) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if isinstance(st, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in st.targets):
            facts.kills |= set().union(*(targets(t) for t in st.targets)) - loads
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            facts.kills |= {st.target.id} - loads
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            facts.kills |= {(a.asname or a.name).split(".")[0] for a in st.names if a.name != "*"}
        bound |= stores
    # functions that rebind a global when called (``global k``) rebind it wherever they are called from
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for g in ast.walk(n):
                if isinstance(g, ast.Global):
                    facts.binds |= set(g.names)
    _changes(tree, facts)
    facts.strings = {n.value for n in module_level(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    facts.late_strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    facts.late_strings -= facts.strings
    _written_files(tree, facts)
    return facts
