"""The docs name only what exists: every repository path, ``make`` target, ``autograder`` command and
option, test, and dotted name of the package that README.md, docs/*.md and the package's docstrings name
is there; the README stays a front door (short, with a "Where next" table that links every page of docs/).

Read from the text alone (no notebook runs, no kernel): a few seconds.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from autograder.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# where prose about the code lives: docstrings and comments of these files
SOURCES = sorted([*(ROOT / "autograder").rglob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
                  ROOT / "nbgrader_config.py", *(ROOT / "examples").glob("*.py")])
NOT_IMPORTED = {"autograder.sandbox.zygote"}  # runs as root inside its sandbox: read, never imported here

TOP = r"(?:autograder|tests|benchmarks|scripts|docs|solutions|notebooks|examples)"
PATH = re.compile(r"(?<![\w./-])(" + TOP + r"/[\w.*{}…/-]*[\w/*}])")
# a path that stands for many: a placeholder in capitals, a glob, a choice
PLACEHOLDER = re.compile(r"[A-Z]{2,}|NN_|exN|[*{}…]|\.\.\.")
OUTPUTS = [p.strip().strip("/") for p in (ROOT / ".gitignore").read_text().splitlines() if p.strip()]
# files a script of the project writes where it keeps its committed results (path -> the script)
WRITTEN = {"benchmarks/results/gpu_tier.txt": "scripts/gpu_tier.sh"}
TEST_ID = re.compile(r"(tests/(?:\w+/)?test_\w+\.py)::(\w+)")
TEST_NAME = re.compile(r"`(test_\w+)`")
DOTTED = re.compile(r"(?<![\w.])(autograder(?:\.\w+)+)")
ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc):`~?([\w.]+)`")


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def code_spans(text: str) -> list[str]:
    """The inline code spans and the logical lines of fenced blocks of a Markdown text."""
    out = []
    fence = r"^[ \t]*```[^\n]*\n(.*?)^[ \t]*```[ \t]*$"
    for block in re.findall(fence, text, flags=re.M | re.S):
        out += [ln for ln in block.replace("\\\n", " ").splitlines() if ln.strip()]
    rest = re.sub(fence, "", text, flags=re.M | re.S)
    out += [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", rest)]
    return out


@functools.cache
def prose(path: Path) -> str:
    """The docstrings and comments of a Python file, or a whole Makefile or script."""
    text = path.read_text()
    if path.suffix != ".py":
        return text
    parts = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                parts.append(doc)
    # attribute docstrings: a string statement after a module-level assignment
    parts += [n.value.value for n in ast.parse(text).body[1:] if isinstance(n, ast.Expr)
              and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)]
    return "\n".join(parts)


def is_output(path: str) -> bool:
    """A path the project's commands write (ignored by git, or a script's result), not one that ships."""
    if path in WRITTEN:
        return Path(path).name in (ROOT / WRITTEN[path]).read_text()
    return any(fnmatch.fnmatch(path, pat) or path.startswith(pat + "/") or path == pat for pat in OUTPUTS)


def exists(path: str) -> bool:
    return (ROOT / path.rstrip("/")).exists() or is_output(path)


def repo_paths(text: str) -> set[str]:
    return {m for m in PATH.findall(text) if not PLACEHOLDER.search(m)}


def module_file(name: str) -> Path | None:
    base = ROOT / Path(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.exists():
            return p
    return None


def resolves(dotted: str) -> bool:
    """An importable module of the package, or an attribute (at any depth) of one."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        if module_file(name) is None:
            continue
        rest = parts[i:]
        if name in NOT_IMPORTED:
            tree = ast.parse(module_file(name).read_text())
            top = {getattr(n, "name", None) for n in tree.body} | {
                t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
            return not rest or rest[0] in top
        obj = importlib.import_module(name)
        for attr in rest:
            # a dataclass field without a class-level default is an annotation, not an attribute
            if not hasattr(obj, attr) and attr not in getattr(obj, "__annotations__", {}):
                return False
            obj = getattr(obj, attr, None)
        return True
    return False


def defined_in(path: Path) -> set[str]:
    """Every name a module binds at any depth: functions, classes, their attributes, imported names."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])


# ------------------------------------------------------------------ paths


def test_every_path_a_doc_names_exists():
    missing = []
    for doc in DOCS:
        text = doc.read_text()
        for p in repo_paths(text):
            if not exists(p):
                missing.append(f"{rel(doc)}: {p}")
        # a relative Markdown link, from the doc's own folder
        for target in re.findall(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)", text):
            if not (doc.parent / target).exists():
                missing.append(f"{rel(doc)}: link {target}")
    assert not missing, "named but not in the repository:\n" + "\n".join(sorted(missing))


def test_every_path_the_code_names_in_its_docstrings_and_comments_exists():
    missing = []
    for src in [*SOURCES, ROOT / "Makefile", *(ROOT / "scripts").iterdir()]:
        for p in repo_paths(prose(src)):
            if not exists(p):
                missing.append(f"{rel(src)}: {p}")
    assert not missing, "named but not in the repository:\n" + "\n".join(sorted(missing))


def test_every_test_a_doc_names_exists():
    defined = {}
    for f in (ROOT / "tests").rglob("*.py"):
        defined[rel(f)] = set(re.findall(r"^\s*(?:async )?def (test_\w+)", f.read_text(), flags=re.M))
    every = set().union(*defined.values())
    missing = []
    for src in [*DOCS, *SOURCES]:
        text = src.read_text() if src.suffix == ".md" else prose(src)
        for file, name in TEST_ID.findall(text):
            if name not in defined.get(file, set()):
                missing.append(f"{rel(src)}: {file}::{name}")
        for name in TEST_NAME.findall(text):
            if name not in every and not any(d.endswith(f"/{name}.py") for d in defined):
                missing.append(f"{rel(src)}: {name}")
    assert not missing, "named tests that do not exist:\n" + "\n".join(sorted(missing))


# ------------------------------------------------------------------ make targets


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([\w.-]+)\s*:(?!=)", text, flags=re.M)) - {".PHONY"}


def test_every_make_target_a_doc_names_exists():
    targets = make_targets()
    missing = []
    for src in [*DOCS, ROOT / "Makefile"]:
        text = src.read_text()
        spans = code_spans(text) if src.suffix == ".md" else re.findall(r"`([^`]+)`", text)
        for span in spans:
            for m in re.finditer(r"(?:^|[\s;&|(])make((?:\s+[\w-]+(?![\w=./-]))+)", span.split("#")[0]):
                missing += [f"{rel(src)}: make {t}" for t in m.group(1).split() if t not in targets]
    assert not missing, "make targets that do not exist:\n" + "\n".join(sorted(missing))


def test_every_phony_target_exists():
    text = (ROOT / "Makefile").read_text()
    phony = set(re.search(r"^\.PHONY:(.*)$", text, flags=re.M).group(1).split())
    assert phony <= make_targets(), f".PHONY names no rule: {sorted(phony - make_targets())}"


# ------------------------------------------------------------------ commands and options


def commands() -> dict[str, set[str]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    return {name: {o for a in p._actions for o in a.option_strings} for name, p in sub.choices.items()}


INVOKED = re.compile(r"(?<![\w./-])autograder\s+([a-z][\w-]*)")


def invocations(span: str, cmds: dict) -> list[tuple[str, str]]:
    """Each ``autograder COMMAND ...`` of a code span, or the span itself where it starts with a
    command's name (``grade --new-seed``), with the text up to the next one."""
    span = re.split(r"\s#|;|&&|\|", span)[0]
    found = [(m.group(1), m.end()) for m in INVOKED.finditer(span)]
    first = re.match(r"([a-z][\w-]*)\b", span)
    if first and first.group(1) in cmds and not found:
        found = [(first.group(1), first.end())]
    return [(name, re.split(r"(?<![\w./-])autograder\s", span[end:])[0]) for name, end in found]


def test_every_command_and_option_a_doc_names_exists():
    cmds = commands()
    wrong = []
    for doc in DOCS:
        for span in code_spans(doc.read_text()):
            for name, rest in invocations(span, cmds):
                if name not in cmds:
                    wrong.append(f"{rel(doc)}: autograder {name}")
                    continue
                for opt in re.findall(r"(?<![\w-])(--[a-z][\w-]*)(?![\w.-])", rest):
                    if opt not in cmds[name] | {"--help"}:
                        wrong.append(f"{rel(doc)}: autograder {name} {opt}")
    assert not wrong, "commands or options that do not exist:\n" + "\n".join(sorted(set(wrong)))


def test_every_benchmark_option_a_doc_names_exists():
    wrong = []
    for doc in DOCS:
        for span in code_spans(doc.read_text()):
            for script, rest in re.findall(r"(benchmarks/\w+\.py)((?:\s+[^\s#]+)*)", span.split("#")[0]):
                source = (ROOT / script).read_text()
                wrong += [f"{rel(doc)}: {script} {o}" for o in re.findall(r"(--[a-z][\w-]*)", rest)
                          if f'"{o}"' not in source]
    assert not wrong, "benchmark options that do not exist:\n" + "\n".join(wrong)


# ------------------------------------------------------------------ dotted names


def test_every_dotted_name_the_docstrings_and_docs_name_resolves():
    unresolved = []
    for src in SOURCES:
        text = prose(src)
        names = set(DOTTED.findall(text))
        for target in ROLE.findall(text):
            if target.startswith("."):
                names.add(package_of(src) + target)
            elif target.startswith("autograder."):
                names.add(target)
            elif "." not in target:
                # a name in the docstring's own scope (a method of its class, a function beside it)
                if src.is_relative_to(ROOT / "autograder") and target not in defined_in(src):
                    unresolved.append(f"{rel(src)}: {target}")
            elif src.is_relative_to(ROOT / "autograder"):
                names.add(f"{module_of(src)}.{target}")  # a name of the module the docstring is in
        unresolved += [f"{rel(src)}: {n}" for n in sorted(names) if not resolves(n.rstrip("."))]
    for doc in DOCS:
        for span in code_spans(doc.read_text()):
            unresolved += [f"{rel(doc)}: {n}" for n in DOTTED.findall(span) if not resolves(n.rstrip("."))]
    assert not unresolved, "dotted names that resolve to nothing:\n" + "\n".join(sorted(set(unresolved)))


@pytest.mark.parametrize("name", ["autograder.values.nosuch", "autograder.grading.pipeline.nosuch"])
def test_the_resolver_refuses_what_is_not_there(name):
    assert not resolves(name)


# ------------------------------------------------------------------ the course map's numbers


@functools.cache
def course_numbers() -> dict[str, tuple[int, float, int]]:
    """Each notebook's exercises, points and minutes (its exercises' own estimates plus half an hour)."""
    import nbformat

    from autograder.values import course

    out = {}
    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        nb = nbformat.from_dict(json.loads(path.read_text()))
        for cell in nb.cells:
            cell.source = "".join(cell.source)  # as nbformat's reader joins it (without validating)
        exercises = course.exercises(nb)
        minutes = [int(m) for c in nb.cells if c.cell_type == "markdown"
                   for m in re.findall(r"^#+ Exercise \d+\.\d+ .*~(\d+) min", c.source, flags=re.M)]
        assert len(minutes) == len(exercises), f"{path.name}: an exercise header without its ~N min"
        out[path.stem[:2]] = (len(exercises), sum(e.points for e in exercises), sum(minutes) + 30)
    return out


def test_the_course_map_states_each_notebooks_exercises_points_and_minutes():
    numbers = course_numbers()
    rows = {m.group(1): (int(m.group(2)), float(m.group(3)), int(m.group(4))) for m in re.finditer(
        r"^\| (\d\d) \| .*? \| (\d+) \((\d+)\) \| (\d+) \|", (ROOT / "README.md").read_text(), flags=re.M)}
    assert rows == numbers, "README's course map, (exercises, points, minutes) per notebook, is not the notebooks'"


def test_the_sample_progress_report_adds_up_to_the_course():
    numbers = course_numbers()
    m = re.search(r"^(\d+) passed, (\d+) failed, (\d+) not attempted +— +score [\d.]+/(\d+)$",
                  (ROOT / "docs" / "learners.md").read_text(), flags=re.M)
    assert m, "docs/learners.md shows no progress summary line"
    assert sum(map(int, m.groups()[:3])) == sum(n for n, _, _ in numbers.values())
    assert float(m.group(4)) == sum(p for _, p, _ in numbers.values())


# ------------------------------------------------------------------ the README, a front door

README_MAX_LINES = 160  # the pitch, the two commands, the course map and where next; the rest is in docs/


def test_the_readme_stays_short():
    lines = len((ROOT / "README.md").read_text().splitlines())
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}): move what it says at length to a page of docs/")


def test_the_readmes_where_next_table_links_every_docs_page():
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^## Where next\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert section, "README.md has no '## Where next' section"
    rows = [ln for ln in section.group(1).splitlines() if ln.startswith("|")]
    linked = {t for ln in rows for t in re.findall(r"\]\((docs/[^)#\s]+\.md)(?:#[^)]*)?\)", ln)}
    pages = {rel(p) for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, f"docs pages the README's 'Where next' table does not link: {sorted(pages - linked)}"
