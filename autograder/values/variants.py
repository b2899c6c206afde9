"""Per-student variants: an exercise's parameters drawn from the student's id and the assignment's secret.

Every student of a class would otherwise get the same numbers, and one shared answer would serve them
all.  A *variant cell* is a locked nbgrader cell (grade id ``exN_M_variant``) whose source binds each
parameter once, at the top level, to a literal, and whose metadata lists each parameter's choices::

    # cell.metadata.autograder
    {"variant": {"N_BINS": [4, 5, 6, 8], "P": [1, 2]}}
    # cell.source
    N_BINS = 4  # your variant: the grader uses the same numbers
    P = 1

The source as the instructor wrote it is the *default variant* (the first choice of each parameter):
what ``notebooks/``, a self-study learner and a pack made for nobody in particular hold.  A student's
variant is drawn by :func:`draw` from a keyed hash of the assignment, the notebook, the parameter and
the student id, so it is the same every time it is drawn (a refetch changes nothing) and two students
mostly differ; :func:`render` writes it into a notebook, replacing the literals and nothing else.
Visible and hidden tests read the parameters by name from the kernel, so the same tests judge every
variant, and the grader grades each submission against the reference run on that student's variant
(:meth:`autograder.grading.coursedata.NotebookData.for_student`).  The grader never takes a variant
from a submitted notebook: it draws it again from the student id, and restores the cell.

A *planted* answer cell is a solution cell whose released copy is not a stub but the solution itself with
one silent bug planted in it, drawn per student (the debugging exam).  Its metadata lists the bugs it may
carry, each as text replacements applied to the solution with its region markers removed::

    # cell.metadata.autograder
    {"plant": {"no_zero_grad": [["        optimizer.zero_grad()\n", ""]],
               "graph_kept": [["total += loss.item()", "total += loss"]]}}

Which bug a student gets is one more drawn parameter (:func:`plant_param`, never shown to the learner);
the first bug by name is the default variant's.  :func:`plant` writes the drawn bug into a release;
nbgrader's ``generate_assignment`` plants the default one
(:func:`autograder.values.learner_view.generate_steps`), and the bug list never reaches a release.

A bug alone does not make an exam one's own: every fix leads back to the same solution, and a classmate's
fixed copy would pass for anyone.  So a planted exercise has a *spec* of its own too: the variant cell of
the same exercise (``exN_M_variant`` before ``exN_M_solution``) binds the numbers its text leaves to each
student (:func:`spec_params`).  Its parameters are drawn together with the bug, one draw per exercise
(:func:`draw`): the i-th bug comes with the i-th choice of each parameter, so two students handed
different bugs have different specs.  The solution reads those parameters by name, and so is the reference
for every spec; the copy a student is handed has them written in as literals (:func:`write_in`), so the
fixed copy answers that student's spec and no other.

This module is pure (no files, no secrets kept): the secret is the caller's
(:func:`autograder.grading.seeds.variant_secret`).

One module of about 410 lines: the draw, the rendering of a spec into cells and the planted bugs write the
same cells with the same rules (a literal written in, a line found once), and are checked together.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import hmac
import json
import re

import nbformat

from autograder.values import course

META = "variant"  # the key under cell.metadata.autograder
PLANT = "plant"  # the key under cell.metadata.autograder of a planted answer cell: its bugs
PLANTED = "planted"  # ... of the cell as handed out: it holds its bug, and a release made from it keeps it
VARIANT_ID_RE = re.compile(r"^(ex\d+_\d+)_variant$")


def _own(cell) -> dict:
    """A cell's ``metadata.autograder`` ({} where a cell holds none, or something else there)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    auto = meta.get("autograder") if isinstance(meta, dict) else None
    return auto if isinstance(auto, dict) else {}


def _checksum_again(cell) -> None:
    """Give a cell nbgrader has checksummed the checksum of its new source (nbgrader's *Validate* then
    takes it as the cell it was handed out as)."""
    grading = cell.get("metadata", {}).get("nbgrader")
    if isinstance(grading, dict) and "checksum" in grading:
        from nbgrader.utils import compute_checksum

        grading["checksum"] = compute_checksum(cell)


def spec(cell) -> dict[str, list]:
    """A cell's parameters and their choices ({} for any other cell, or a malformed declaration)."""
    found = _own(cell).get(META)
    if not isinstance(found, dict):
        return {}
    return {str(k): list(v) for k, v in found.items() if isinstance(v, list) and v}


def is_variant_cell(cell) -> bool:
    return bool(spec(cell))


def plants(cell) -> dict[str, list[tuple[str, str]]]:
    """The bugs a planted answer cell may carry, each as its (find, replace) pairs ({} for any other cell)."""
    found = _own(cell).get(PLANT)
    if not isinstance(found, dict):
        return {}
    # by name: a notebook's JSON keeps its keys sorted, so the order they were written in is not kept
    return {str(name): [(str(p[0]), str(p[1])) for p in pairs if isinstance(p, (list, tuple)) and len(p) == 2]
            for name, pairs in sorted(found.items()) if isinstance(pairs, list)}


def _gid(cell) -> str:
    return course.grade_id(cell) or ""


def plant_param(cell) -> str:
    """The drawn parameter that says which bug a planted answer cell carries."""
    return f"{_gid(cell)}/bug"


def spec_params(nb) -> dict[str, str]:
    """The parameters drawn with a planted exercise's bug: each one that the variant cell of an exercise with a
    planted answer cell declares, with the exercise's bug parameter (:func:`plant_param`)."""
    planted = {course.exercise_of(c): plant_param(c) for c in nb.cells if plants(c)}
    out: dict[str, str] = {}
    for cell in nb.cells:
        found = VARIANT_ID_RE.match(_gid(cell))
        if found and found.group(1) in planted:
            out.update({name: planted[found.group(1)] for name in spec(cell)})
    return out


def params(nb) -> dict[str, list]:
    """Every drawn parameter of a notebook with its choices, in cell order: the variant cells' and, for
    each planted answer cell, which bug it carries."""
    out: dict[str, list] = {}
    for cell in nb.cells:
        out.update(spec(cell))
        if plants(cell):
            out[plant_param(cell)] = list(plants(cell))
    return out


def cell_values(nb, values: dict) -> dict[str, object]:
    """The values of ``values`` that the variant cells bind (the bugs drawn left out)."""
    declared = {name for cell in nb.cells for name in spec(cell)}
    return {k: v for k, v in values.items() if k in declared}


def default(nb) -> dict[str, object]:
    """The default variant: each parameter's first choice."""
    return {k: v[0] for k, v in params(nb).items()}


def _index(secret: bytes, *parts: str) -> int:
    digest = hmac.new(secret, "/".join(parts).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little")


def draw(nb, secret: bytes, assignment: str, notebook: str, student: str) -> dict[str, object]:
    """``student``'s variant of ``nb``: each parameter's choice from a keyed hash, one per parameter (so
    the variants of a class spread over every combination), except that a planted exercise's spec is drawn
    under its bug's name, so the two come from one draw (:func:`spec_params`)."""
    tied = spec_params(nb)
    return {k: choices[_index(secret, assignment, notebook, tied.get(k, k), student) % len(choices)]
            for k, choices in params(nb).items()}


def draws(nb) -> list[dict[str, object]]:
    """A few variants that between them hold every choice of every parameter: the i-th of each (the i-th
    bug of each planted exercise with its spec), i = 0, 1, ... up to the longest list, the default first.
    Tests run the reference once for each, where every combination would be too many."""
    found = params(nb)
    longest = max((len(v) for v in found.values()), default=0)
    return [{k: v[i % len(v)] for k, v in found.items()} for i in range(longest)]


def tag(values: dict) -> str:
    """A short name for a variant ('' for none), for cache keys and file names."""
    if not values:
        return ""
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:12]


def bindings(source: str) -> dict[str, ast.expr]:
    """The top-level ``NAME = literal`` bindings of a variant cell's source, by name (the expression node)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {node.targets[0].id: node.value for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}


def same_but_values(source: str, recorded: str) -> bool:
    """Whether ``source`` is the variant cell ``recorded`` with other values bound (and nothing else changed)."""
    bound = {}
    for name, node in bindings(recorded).items():
        try:
            bound[name] = ast.literal_eval(node)
        except ValueError:
            continue
    return bool(bound) and render_source(source, bound).rstrip("\n") == recorded.rstrip("\n")


def values_in(cell) -> dict[str, object]:
    """The values a variant cell's source binds its parameters to (unreadable ones are left out)."""
    declared = spec(cell)
    if not declared:
        return {}
    out = {}
    for name, node in bindings(cell.get("source", "")).items():
        if name in declared:
            try:
                out[name] = ast.literal_eval(node)
            except ValueError:
                continue
    return out


def bound(nb) -> dict[str, object]:
    """The values a notebook's variant cells bind: the variant it was rendered for (the default one as written)."""
    out: dict[str, object] = {}
    for cell in nb.cells:
        out.update(values_in(cell))
    return out


def _literal(value: object, written: bytes) -> str:
    """``value`` as a Python literal, a string in the double quotes of the literal it replaces where it can be."""
    if isinstance(value, str) and written.startswith(b'"') and not any(c in value for c in '"\\\n'):
        return f'"{value}"'
    return repr(value)


def named(names, source: str) -> list[str]:
    """The parameters of ``names`` that ``source`` names (as whole words), in their order."""
    return [n for n in names if re.search(rf"\b{re.escape(n)}\b", source)]


def binding_lines(values: dict, source: str) -> str:
    """``NAME = literal`` lines binding each parameter of ``values`` that ``source`` names (a hidden-test block)."""
    return "".join(f"{name} = {values[name]!r}\n" for name in named(values, source))


def render_source(source: str, values: dict) -> str:
    """``source`` with each top-level ``NAME = literal`` of ``values`` bound to its value instead."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode("utf-8")))
    raw = source.encode("utf-8")
    spans = []
    for name, node in bindings(source).items():
        if name in values:
            start = offsets[node.lineno - 1] + node.col_offset
            end = offsets[node.end_lineno - 1] + node.end_col_offset
            spans.append((start, end, _literal(values[name], raw[start:end]).encode("utf-8")))
    for start, end, text in sorted(spans, reverse=True):
        raw = raw[:start] + text + raw[end:]
    return raw.decode("utf-8")


def render(nb: nbformat.NotebookNode, values: dict) -> nbformat.NotebookNode:
    """A copy of ``nb`` with each variant cell's parameters bound to ``values`` (other cells untouched,
    nbgrader's checksum kept right)."""
    out = nbformat.from_dict(copy.deepcopy(nb))
    if not values:
        return out
    for cell in out.cells:
        mine = {k: v for k, v in values.items() if k in spec(cell)}
        if not mine:
            continue
        cell.source = render_source(cell.source, mine)
        _checksum_again(cell)
    return out


def write_in(source: str, values: dict) -> str:
    """``source`` with every reading of a parameter of ``values`` (a name that is not an attribute, a keyword
    argument or the target of an assignment) replaced by its value as a literal: the spec as a student's copy
    holds it.  Anything else of the text is left as it is."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    significant = [t for t in tokens if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                                       tokenize.INDENT, tokenize.DEDENT)]
    spans = []
    for i, tok in enumerate(significant):
        if tok.type != tokenize.NAME or tok.string not in values:
            continue
        before = significant[i - 1].string if i else ""
        after = significant[i + 1].string if i + 1 < len(significant) else ""
        if before == "." or after == "=":
            continue
        start = offsets[tok.start[0] - 1] + tok.start[1]
        end = offsets[tok.end[0] - 1] + tok.end[1]
        spans.append((start, end, _literal(values[tok.string], b'"')))  # a string in double quotes
    for start, end, text in sorted(spans, reverse=True):
        source = source[:start] + text + source[end:]
    return source


def planted_source(solution_source: str, pairs, markers, values: dict | None = None) -> str:
    """A planted answer cell as a student gets it: the solution without its region markers, with one bug's
    replacements applied (each must find its text exactly once), and the parameters of ``values`` it reads
    written in (:func:`write_in`; the student's spec)."""
    text = "".join(line for line in solution_source.splitlines(keepends=True)
                   if not (markers.opens(line) or markers.closes(line)))
    for find, replace in pairs:
        if text.count(find) != 1:
            raise ValueError(f"a planted bug's text {find.strip()[:60]!r} occurs {text.count(find)} times, not once")
        text = text.replace(find, replace)
    return write_in(text, values or {}).rstrip("\n")


def plant(release: nbformat.NotebookNode, solution, values: dict, markers) -> nbformat.NotebookNode:
    """``release`` with each planted answer cell holding ``solution``'s code with the bug ``values`` draw and
    the spec they bind written in (the default variant's where ``values`` has none), and no bug list left in
    its metadata."""
    out = nbformat.from_dict(copy.deepcopy(release))
    planted = {_gid(c): c for c in solution.cells if plants(c)}
    drawn = {**default(solution), **values}
    spec = cell_values(solution, drawn)
    for cell in out.cells:
        auto = cell.get("metadata", {}).get("autograder")
        if isinstance(auto, dict):
            auto.pop(PLANT, None)
            if not auto:
                del cell.metadata["autograder"]
        source = planted.get(_gid(cell))
        if source is None or not _gid(cell):
            continue
        bugs = plants(source)
        bug = drawn.get(plant_param(source), next(iter(bugs)))
        cell.source = planted_source(source.source, bugs[bug], markers, spec)
        cell.metadata.setdefault("autograder", {})[PLANTED] = True
        _checksum_again(cell)
    return out


def is_planted(cell) -> bool:
    """Whether a released answer cell holds a planted bug (it is handed out as it is, never as a stub)."""
    return _own(cell).get(PLANTED) is True


def planted_sources(solution, markers) -> list[str]:
    """Every planted answer cell's text with each of its bugs and the spec drawn with it (:func:`draws`): what
    one student or another is handed."""
    found = []
    for values in draws(solution):
        spec = cell_values(solution, values)
        found += [planted_source(c.source, plants(c)[values[plant_param(c)]], markers, spec)
                  for c in solution.cells if plants(c)]
    return found


def problems(nb, markers=None) -> list[str]:
    """What is wrong with a notebook's variant cells, in words ([] when nothing is)."""
    found = []
    seen: set[str] = set()
    for cell in nb.cells:
        declared = spec(cell)
        if not declared:
            continue
        gid = _gid(cell)
        if not VARIANT_ID_RE.match(gid):
            found.append(f"variant cell {gid or '(no grade id)'}: its grade id must be exN_M_variant")
        grading = course.nbgrader_meta(cell)
        if not grading.get("locked") or grading.get("solution") or grading.get("grade"):
            found.append(f"{gid}: a variant cell must be locked, and neither an answer nor a test")
        bound = values_in(cell)
        for name, choices in declared.items():
            if name in seen:
                found.append(f"{gid}: parameter {name} is declared twice in the notebook")
            seen.add(name)
            if name not in bound:
                found.append(f"{gid}: {name} is not bound to a literal at the top level of the cell")
            elif bound[name] != choices[0]:
                found.append(f"{gid}: {name} = {bound[name]!r} in the source, but its first choice is {choices[0]!r}")
            if len({json.dumps(c, sort_keys=True) for c in choices}) != len(choices):
                found.append(f"{gid}: {name} lists a choice twice")
    for cell in nb.cells:
        bugs = plants(cell)
        if not bugs:
            continue
        gid = _gid(cell)
        if not course.nbgrader_meta(cell).get("solution"):
            found.append(f"{gid or '(no grade id)'}: only an answer cell can have planted bugs")
        if markers is not None:
            for name, pairs in bugs.items():
                if not pairs:
                    found.append(f"{gid}: bug {name} changes nothing")
                try:
                    text = planted_source(cell.source, pairs, markers)
                except ValueError as exc:
                    found.append(f"{gid}: bug {name}: {exc}")
                    continue
                if name in text:
                    found.append(f"{gid}: bug {name} names itself in the text it plants")
    tied = spec_params(nb)
    counts = {plant_param(c): len(plants(c)) for c in nb.cells if plants(c)}
    for name, key in tied.items():
        choices = params(nb)[name]
        if len(choices) != counts[key]:
            found.append(f"{name}: a planted exercise's spec parameter has one choice per bug ({counts[key]}), "
                         f"not {len(choices)}: two students with different bugs must have different specs")
    return found
