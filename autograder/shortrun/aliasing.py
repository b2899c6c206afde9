"""Which names may end up holding the same object, read from code without running it.

Mutating an object through one name changes what every other name for it sees:
``opt = SGD(model.parameters())`` then ``opt.step()`` changes ``model``; ``v = w.view(3)`` then
``v.add_(1)`` changes ``w``; ``items.append(t)`` puts ``t`` inside ``items``.  The slice
(:mod:`autograder.shortrun.dependencies`) follows such names together.  The rules err towards sharing,
except where a value cannot be shared or changed in place: numbers, strings, devices and dtypes,
and the results of calls known to build something new (``x.item()``, ``len(xs)``, ``x.clone()``).
Keyword arguments are taken as settings (``device=``, ``lr=``), not as objects kept.
"""

from __future__ import annotations

import ast
import re

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
def alias_names(node: ast.AST | None) -> set[str]:
    """Names whose objects the value of ``node`` may be, or contain."""
    if node is None:
        return set()
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        return alias_names(node.value)
    if isinstance(node, ast.Call):
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called in FRESH_CALLS:
            return set()
        # a method's result may be (a view of) its object: x.view(...), model.parameters(), d.get(k)
        out = alias_names(func.value) if isinstance(func, ast.Attribute) else set()
        if called[:1].isupper() or called in CONTAINER_CALLS:  # constructors and containers keep their arguments
            for a in node.args:  # keyword arguments are settings (device=, lr=) far more often than objects
                out |= alias_names(a)
        return out
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(alias_names(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Dict):
        return set().union(*(alias_names(v) for v in node.values)) if node.values else set()
    if isinstance(node, ast.BoolOp):
        return set().union(*(alias_names(v) for v in node.values))
    if isinstance(node, ast.IfExp):
        return alias_names(node.body) | alias_names(node.orelse)
    if isinstance(node, (ast.NamedExpr,)):
        return alias_names(node.value) | {node.target.id}
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        names = alias_names(node.value if isinstance(node, ast.DictComp) else node.elt)
        local: set[str] = set()
        for gen in reversed(node.generators):
            bound = targets(gen.target)
            if names & bound:
                names |= alias_names(gen.iter)
            local |= bound
        return names - local
    return set()


def targets(node: ast.AST) -> set[str]:
    """The names an assignment target binds."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def immutable(node: ast.AST | None) -> bool:
    """Whether an expression's value can never be changed in place (numbers, strings, devices, dtypes)."""
    if isinstance(node, (ast.Constant, ast.JoinedStr, ast.Compare)):
        return True
    if isinstance(node, ast.IfExp):
        return immutable(node.body) and immutable(node.orelse)
    if isinstance(node, ast.BoolOp):
        return all(immutable(v) for v in node.values)
    if isinstance(node, (ast.BinOp,)):
        return immutable(node.left) and immutable(node.right)
    if isinstance(node, ast.UnaryOp):
        return immutable(node.operand)
    if isinstance(node, ast.Tuple):
        return all(immutable(e) for e in node.elts)
    if isinstance(node, ast.Attribute):  # torch.float32, torch.bfloat16, ...
        return isinstance(node.value, ast.Name) and node.value.id == "torch" and \
            bool(re.match(r"^(u?int\d+|float\d*|bfloat16|half|double|long|bool|complex\d+)$", node.attr))
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return name in {"device", "str", "int", "float", "bool", "len", "round", "abs", "item", "repr", "format",
                        "is_available", "get_default_dtype"}
    return False
