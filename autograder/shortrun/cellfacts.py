"""What one code cell reads, binds and touches, as far as its source says (it is never run).

The facts the slice (:mod:`autograder.shortrun.dependencies`) is built from: the names a cell reads
before binding them (in order, through branches, loops and ``try``), the names function and
class bodies read when they are later called, what it rebinds outright (the end of a name's
history), which names it may make share an object (:mod:`autograder.shortrun.aliasing`), what it seeds,
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

from autograder.shortrun.aliasing import STORING_METHODS, alias_names, immutable, targets
from autograder.shortrun.scopes import free_reads, function_reads, module_level

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
    global_writes: set[str] = field(default_factory=set)  # names its functions rebind (``global n``) when called
    rebinds: set[str] = field(default_factory=set)  # top-level names bound other than by an import
    # where the cell's code may leave something other code reaches without naming it (see shared_reach)
    escape: str = ""  # a reason, decided by the cell alone ("" = none found)
    store_roots: set[str] = field(default_factory=set)  # the names attribute/item stores go through (any depth)
    callback_roots: set[str] = field(default_factory=set)  # names that calls registering a callback or
    # changing their object (``append``, ``update``) go through
    derived: dict[str, set[str]] = field(default_factory=dict)  # name -> names it is bound to a part of (no call)
    modules_inside: set[str] = field(default_factory=set)  # modules its functions import for themselves


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


# calls that reach any object, or run any code, whatever the names around them say
ESCAPE_CALLS = frozenset({"setattr", "delattr", "exec", "eval", "compile", "__import__", "globals", "vars",
                          "breakpoint"})
# attributes that lead from an object to what other objects share (its class, its globals, its code)
INTERNALS = frozenset({"__class__", "__dict__", "__globals__", "__builtins__", "__code__", "__closure__", "__bases__",
                       "__mro__", "__subclasses__", "__getattribute__", "__setattr__", "__delattr__", "__defaults__",
                       "__kwdefaults__", "__func__", "__self__", "__module__", "__loader__", "__spec__", "f_globals",
                       "f_locals", "f_back", "gi_frame", "tb_frame"})
# calls that leave a function to be run later by whoever triggers it (hooks, threads, signals, exit handlers)
CALLBACK_CALLS = re.compile(r"^(register\w*|\w*_hooks?|settrace|setprofile|excepthook|signal|Thread|Timer|finalize|"
                            r"start_new_thread|fork|Process|Pool|addaudithook)$")
# methods that change the object they are called on (so, called on a module's part, the module)
CHANGING_METHODS = STORING_METHODS | {"pop", "popitem", "remove", "clear", "discard", "sort", "reverse", "__delitem__"}


def _chain(node: ast.AST) -> tuple[ast.AST, list[str]]:
    """The root of an attribute/item chain (``a.b[c].d`` -> ``a``) and the attribute names along it."""
    attrs = []
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        if isinstance(node, ast.Attribute):
            attrs.append(node.attr)
        node = node.value
    return node, attrs


def _scope_locals(fn: ast.AST) -> set[str]:
    """The names local to a function or lambda (arguments and what its own body binds, ``global``
    and ``nonlocal`` names aside); nested functions' bodies are their own scopes."""
    args = fn.args
    local = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    local |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    todo = list(fn.body) if isinstance(fn.body, list) else [fn.body]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            local.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(n.name)
            todo += getattr(n, "decorator_list", [])
            continue
        elif isinstance(n, ast.Lambda):
            continue
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            local |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            local.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            declared |= set(n.names)
        todo.extend(ast.iter_child_nodes(n))
    return local - declared


def _reaches_shared(tree: ast.AST, facts: "CellFacts") -> None:
    """Fill in what the cell's code (function bodies included) does that may leave something where
    code reaches it without naming anything this cell names: the facts
    :func:`autograder.shortrun.dependencies.shared_reach` decides with, knowing which names are modules across
    the notebook.  A function's local names are kept apart from the notebook's (``fn3.e``), so that
    ``e = os.environ; e["X"] = "1"`` inside a function is seen and a local list is not a global one."""
    why = ""
    scopes = 0

    def name(node: ast.Name, env: dict[str, str]) -> str:
        return env.get(node.id, node.id)

    def bind_derived(target: ast.AST, value: ast.AST, env: dict[str, str]) -> None:
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                bind_derived(t, v, env)
            return
        parts = value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else [value]
        roots = set()
        for v in parts:
            if isinstance(v, ast.Call) and _called_name(v) == "getattr" and v.args:  # getattr(torch, "Tensor")
                v = v.args[0]
            root, _ = _chain(v)
            if isinstance(root, ast.Name):
                roots.add(name(root, env))
        for t in ast.walk(target):
            if isinstance(t, ast.Name) and roots:
                facts.derived.setdefault(env.get(t.id, t.id), set()).update(roots)

    def visit(node: ast.AST, env: dict[str, str]) -> None:
        nonlocal why, scopes
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in getattr(node, "decorator_list", []) + node.args.defaults + [
                    k for k in node.args.kw_defaults if k is not None]:
                visit(d, env)
            if getattr(node, "name", "") == "__del__":
                why = why or "it defines a finalizer (__del__)"
            scopes += 1
            inner = {**env, **{n: f"fn{scopes}.{n}" for n in _scope_locals(node)}}
            for st in (node.body if isinstance(node.body, list) else [node.body]):
                visit(st, inner)
            return
        if isinstance(node, ast.Call):
            called = _called_name(node)
            if isinstance(node.func, ast.Name) and called in ESCAPE_CALLS:
                why = why or f"it calls {called}()"
            root, _ = _chain(node.func)
            changing = isinstance(node.func, ast.Attribute) and called in CHANGING_METHODS
            if (CALLBACK_CALLS.match(called) or changing) and isinstance(root, ast.Name):
                facts.callback_roots.add(name(root, env))
        elif isinstance(node, ast.Attribute) and node.attr in INTERNALS:
            why = why or f"it reaches {node.attr}"
        elif isinstance(node, ast.Global):
            facts.global_writes |= set(node.names)
            hit = sorted(set(node.names) & BUILTIN_NAMES)
            if hit:
                why = why or f"it rebinds the built-in {hit[0]}"
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root, _ = _chain(node)
            if not isinstance(root, ast.Name):
                why = why or "it assigns an attribute of an object it reaches through a call"
            elif root.id in BUILTIN_NAMES and root.id not in env or root.id == "__builtins__":
                why = why or f"it assigns an attribute or item of {root.id}"
            else:
                facts.store_roots.add(name(root, env))
        # names bound to a part of something, no call in between: ``T = torch.Tensor``, ``env = os.environ``
        if isinstance(node, ast.Assign):
            for t in node.targets:
                bind_derived(t, node.value, env)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            bind_derived(node.target, node.value, env)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            bind_derived(node.target, node.iter, env)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind_derived(node.optional_vars, node.context_expr, env)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and env:  # a module imported inside a function
            for a in node.names:
                local = (a.asname or a.name).split(".")[0]
                if local in env:
                    facts.derived.setdefault(env[local], set()).add(a.name.split(".")[0])
                    facts.modules_inside.add(a.name.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child, env)

    visit(tree, {})
    facts.escape = why


# names through which code reads what it does not name: the notebook's globals, IPython's history and
# output cache (``_``, ``_i3``, ``Out``), frames and modules by name, files and the environment
DYNAMIC_READS = frozenset({"globals", "locals", "vars", "dir", "eval", "exec", "compile", "__import__",
                           "get_ipython", "In", "Out", "_ih", "_oh", "_dh", "__main__", "__builtins__", "builtins",
                           "sys", "inspect", "importlib", "gc", "breakpoint", "help", "os", "open", "pathlib", "Path",
                           "shutil", "glob", "tempfile", "pickle", "io", "subprocess"})
# attributes that read files or the environment (``torch.load``, ``np.loadtxt``, ``p.read_text``)
DYNAMIC_ATTRIBUTES = frozenset({"load", "loadtxt", "genfromtxt", "fromfile", "read_text", "read_bytes",
                                "read_csv", "environ", "getenv", "getcwd", "listdir", "scandir"})
# IPython's output and input history by name (``_``, ``__``, ``_i``, ``_3``, ``_i3``): a skipped cell leaves out
# its entries, but these names are also everyday throwaway variables, so only reading one the cell did not
# bind itself counts
_HISTORY_NAME = re.compile(r"_{1,3}$|_i{1,3}$|_i?\d+$")


def reads_beyond_names(source: str) -> str:
    """Why code a learner wrote may read what it does not name ("" if it reads only what it names).

    The slice keeps every cell that binds or changes a name a learner cell reads (a function's globals
    included, when it is called), so a learner's code that reads only the names it spells sees the same
    values in a short run as in a full one.  What it might read otherwise: the namespace itself
    (``globals()``, ``eval``), IPython's history and output cache (``_``, ``Out``, ``_i3``, whose entries a
    skipped cell leaves out), frames and internals, ``sys`` and ``importlib`` (``sys.modules["__main__"]``),
    files and the environment (``open``, ``os``, ``torch.load``), and whatever a magic or a shell escape
    does."""
    text, why = python_source(source)
    if why or "get_ipython()" in text:
        return why or "it uses a magic or a shell escape"
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        return f"it does not parse ({type(exc).__name__})"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in DYNAMIC_READS:
            return f"it uses {node.id}"
        if isinstance(node, ast.Attribute) and (node.attr in INTERNALS or node.attr in DYNAMIC_ATTRIBUTES):
            return f"it reaches {node.attr}"
        if isinstance(node, ast.alias) and node.name.split(".")[0] in DYNAMIC_READS:
            return f"it imports {node.name}"
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in DYNAMIC_READS:
            return f"it imports from {node.module}"
    facts = analyze(source)
    history = sorted(n for n in facts.reads | facts.late_reads if _HISTORY_NAME.match(n))
    if history:
        return f"it reads {history[0]}, which IPython binds to an earlier cell's output or source"
    return ""


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
            if not runs_now:  # read when called, names this cell bound before it included
                facts.late_reads |= body_reads
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
                facts.late_reads |= function_reads(n)
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
    facts.rebinds = {n.id for n in module_level(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    facts.rebinds |= facts.defs
    _reaches_shared(tree, facts)
    hit = sorted(facts.rebinds & BUILTIN_NAMES)
    if hit:
        facts.escape = facts.escape or f"it rebinds the built-in {hit[0]}"
    return facts
