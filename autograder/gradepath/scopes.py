"""What a block of Python reads before it binds, read from its syntax tree.

A name a cell reads is an input only if the cell has not bound it already on every path that
reaches the read: statements run in order, both branches of an ``if`` must bind a name for it to
count as bound after it, a loop's body may run zero times, an ``except`` handler may start after
any statement of its ``try``.  Function and class bodies read their globals when they run, so
they are read apart (:func:`function_reads`); what runs at module level is :func:`module_level`.
"""

from __future__ import annotations

import ast


def targets(node: ast.AST) -> set[str]:
    """The names an assignment target binds."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def module_level(tree: ast.AST):
    """The nodes that run at module level: function bodies and lambdas are not entered (their
    names are local), class bodies are."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))


def simple_reads(node: ast.AST, bound: set[str]) -> tuple[set[str], set[str]]:
    """Names a statement (or expression) without nested blocks reads before binding, and what it binds."""
    loads, stores, local = set(), set(), set()
    for n in module_level(node):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, ast.comprehension):
            local |= targets(n.target)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            stores |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name != "*"}
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(n.name)
    return loads - bound - local, stores


def free_reads(body: list[ast.stmt], bound: set[str]) -> tuple[set[str], set[str]]:
    """Names a block reads before it binds them on every path, and the names bound after it on every
    path.  Statements run in order; a loop's body may run zero times, a handler after any statement."""
    reads, bound = set(), set(bound)
    for st in body:
        if isinstance(st, ast.If):
            r, _ = simple_reads(st.test, bound)
            r1, b1 = free_reads(st.body, bound)
            r2, b2 = free_reads(st.orelse, bound)
            reads |= r | r1 | r2
            bound = b1 & b2
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            r, _ = simple_reads(st.iter, bound)
            r1, _ = free_reads(st.body, bound | targets(st.target))
            r2, _ = free_reads(st.orelse, bound)
            reads |= r | r1 | r2
        elif isinstance(st, ast.While):
            r, _ = simple_reads(st.test, bound)
            r1, _ = free_reads(st.body, bound)
            r2, _ = free_reads(st.orelse, bound)
            reads |= r | r1 | r2
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            inner = set(bound)
            for item in st.items:
                r, _ = simple_reads(item.context_expr, inner)
                reads |= r
                if item.optional_vars is not None:
                    inner |= targets(item.optional_vars)
            r1, bound = free_reads(st.body, inner)
            reads |= r1
        elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
            r1, b1 = free_reads(st.body, bound)
            reads |= r1
            for h in st.handlers:
                r, _ = simple_reads(h.type, bound) if h.type is not None else (set(), set())
                rh, _ = free_reads(h.body, bound | ({h.name} if h.name else set()))
                reads |= r | rh
            r2, _ = free_reads(st.orelse, b1)
            r3, b3 = free_reads(st.finalbody, bound)
            reads |= r2 | r3
            bound = b3
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = bound | {st.name}  # its header and body are read elsewhere (analyze)
        else:
            r, stored = simple_reads(st, bound)
            reads |= r
            bound = bound | stored
    return reads, bound


def function_reads(fn: ast.AST) -> set[str]:
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
