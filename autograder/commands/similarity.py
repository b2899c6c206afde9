"""``autograder similarity ASSIGNMENT``: which students' answers look alike, for the instructor to look at.

Only what the students wrote is compared: the code of their answer cells (nbgrader solution cells, as
the pristine release marks them), with every line that any of the instructor's own (non-answer) cells
holds left out, and every line that both students of a pair were handed in their answer cells (the
released stub) or reach by fixing their own copy (in the debugging exam, where each one is handed their
own draw: a planted bug and a spec of their own written into the script), so starter code, course code
and the fixes every correct copy shares never make two students look alike.  A fixed exam copied from a
classmate of another draw does: it holds the classmate's spec, which the copier's own copy never led to.
Two students of one draw who fixed everything hand in the same script, as honest work does: nothing of it
counts, and the pair is not listed.  The comparison is copydetect's winnowing fingerprints (the method MOSS
uses): code is tokenized with names and strings made anonymous, so renamed variables do not hide a
shared passage, and each shared run of tokens is found wherever it stands, so reordered lines do not
either.  Each exercise is compared across the class, and so is each notebook's whole answer text;
pairs are ranked by score.

Submissions are read without trust (:func:`autograder.grading.steps.read.read_submission`): a notebook
that does not read is skipped and named, an answer is cut at :data:`MAX_ANSWER_CHARS`, and every piece
of student text reaches the page escaped.  The command reads the course and the submissions and writes
one self-contained HTML page; it changes no grade and no other file.  A file there that it did not write
last (a page the instructor annotated, a file of their own) is kept beside it first, by the one rule for
files written for people (:func:`autograder.values.files.write_for_people`).

One module of about 430 lines: the command's reading of the answers, its comparison and its page are
used by nothing else; split, each part would have one caller.
"""

from __future__ import annotations

import html
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograder.adapters.submitted import discover
from autograder.grading.coursedata import NotebookData
from autograder.grading.seeds import drawn_variant_secret
from autograder.grading.steps.read import read_submission
from autograder.values import course, outputs, variants
from autograder.values.errors import UserError
from autograder.values.files import kept_line, write_for_people

NOISE = 25
"""Shared runs shorter than this many tokenized characters are not counted (copydetect's default noise
threshold; one tokenized line such as ``V=V.V(V,V)`` is about ten)."""
WINDOW = 1
"""Winnowing window: 1 keeps every fingerprint (answers are short, so nothing needs thinning out)."""
MAX_ANSWER_CHARS = 50_000
"""An answer cell longer than this is compared and shown up to here only (and the report says so)."""
GENERATOR = "autograder similarity"
"""Named in every page this command writes (the page's ``generator``)."""
DEFAULT_TOP = 10


@dataclass
class Doc:
    """One student's answer text in one scope, line by line: ``(line, compared)``.  A line not compared
    is one the student was handed, or the course's own, or a label this command added.  ``handed``: the
    lines (stripped) left out only because this student was handed them; ``expected``: those and the lines
    of their handout with every planted bug fixed (in the debugging exam, the fixed script of their own
    draw: what an honest fix of their own copy writes)."""

    lines: list[tuple[str, bool]] = field(default_factory=list)
    handed: set[str] = field(default_factory=set)
    expected: set[str] = field(default_factory=set)

    def against(self, other: "Doc") -> "Doc":
        """This answer as compared with ``other``'s: a line counts unless it is the course's, or one that both
        students' own copies hold or lead to when fixed (a stub both were handed, a fix both had to make).  A
        line of this student's own draw that ``other``'s copy does not lead to (their spec, written into their
        copy) counts only where ``other`` wrote it too, word for word: two draws' spec lines differ only in
        their numbers, which the tokens compared keep, but not enough to tell honest answers apart, while a
        classmate's spec in one's answer is what a copied exam holds."""
        return Doc(self._compared(self.expected & other.expected, self.found_in(other)), self.handed,
                   self.expected)

    def found_in(self, other: "Doc") -> frozenset[str]:
        """The lines of this student's draw alone that ``other`` wrote too."""
        theirs = {line.strip() for line, _ in other.lines}
        return frozenset((self.expected - other.expected) & theirs)

    def _compared(self, common: set[str], found: frozenset[str]) -> list[tuple[str, bool]]:
        out = []
        for line, keep in self.lines:
            text = line.strip()
            if not keep and text not in self.handed:  # the course's own line, or a label
                out.append((line, False))
            elif text in common:
                out.append((line, False))
            else:
                out.append((line, text not in self.expected or text in found))
        return out

    @property
    def text(self) -> str:
        return "".join(line for line, _ in self.lines)

    def compared_text(self) -> str:
        """The text as compared: a line left out becomes a comment of the same length, so every position
        in it is the same position in :attr:`text`, and the tokenizer skips it."""
        return "".join(line if keep else _blank(line) for line, keep in self.lines)

    def own(self) -> bool:
        """Whether anything of the student's own is left to compare."""
        return any(keep and line.strip() for line, keep in self.lines)


def _blank(line: str) -> str:
    body = line.rstrip("\n")
    return ("#" + " " * (len(body) - 1) if body else "") + line[len(body):]


@dataclass
class Student:
    name: str
    exercises: dict[str, Doc]  # exercise id -> the answer
    notebook: Doc  # every answer of the notebook, one after the other


@dataclass
class Pair:
    notebook: str
    scope: str  # an exercise id, or "" for the whole notebook
    title: str
    a: str
    b: str
    score: float  # shared code of both answers over the code of both answers
    share_a: float  # how much of a's answer is shared with b's
    share_b: float
    doc_a: Doc
    doc_b: Doc
    spans_a: list[tuple[int, int]]
    spans_b: list[tuple[int, int]]


@dataclass
class Gathered:
    """What one assignment's submissions gave: the students per notebook, and what was not compared."""

    students: dict[str, list[Student]] = field(default_factory=dict)  # notebook -> students with answers
    stub_only: dict[str, list[str]] = field(default_factory=dict)  # notebook -> students with nothing of their own
    skipped: list[str] = field(default_factory=list)  # "student/notebook: why"
    notes: list[str] = field(default_factory=list)  # "student/notebook: what", for what was compared


def clean(text: str, limit: int = MAX_ANSWER_CHARS) -> tuple[str, bool]:
    """Student text made safe to tokenize and to write as UTF-8: line ends made ``\\n``, lone surrogates
    and control characters replaced; cut at ``limit`` characters (and whether it was)."""
    cut = len(text) > limit
    text = outputs.safe_text(text[:limit]).replace("\r\n", "\n").replace("\r", "\n")  # a lone surrogate: '?'
    return "".join(c if c >= " " or c in "\t\n" else "\ufffd" for c in text), cut


def _lines(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if line.strip()]


def course_lines(data: NotebookData) -> set[str]:
    """Every line of the instructor's non-answer cells (code and text), stripped."""
    found: set[str] = set()
    for cell in list(data.solution.cells) + list(data.release.cells):
        if not course.is_solution(cell):
            found.update(_lines(str(cell.get("source", ""))))
    return found


def answer_cells(data: NotebookData) -> list[tuple[str, str, str]]:
    """The release's code answer cells, in order: ``(grade id, exercise id, released stub)``.  Written
    (Markdown) answers are not compared: code is what the tokenizer reads."""
    return [(course.grade_id(c), course.exercise_of(c), c.source) for c in data.release.cells
            if course.is_solution(c) and c.cell_type == "code" and course.exercise_of(c) and course.grade_id(c)]


def planted_fixed(data: NotebookData) -> dict[str, str]:
    """Each planted answer cell of ``data`` with no bug: the solution with the spec ``data`` binds written in (what
    a student handed that copy has once every bug is fixed), by grade id."""
    spec = variants.bound(data.release)
    return {course.grade_id(c): variants.planted_source(c.source, [], data.markers, spec)
            for c in data.solution.cells if variants.plants(c)}


def answers_of(nb, data: NotebookData, shared: set[str], who: str) -> tuple[Student, list[str]]:
    """One student's answers as documents, with what was cut; a cell the submission lacks is its stub.
    ``data`` is the notebook as this student was handed it (their variant, their planted bugs)."""
    submitted: dict[str, str] = {}
    for cell in nb.cells:
        gid = course.grade_id(cell)
        if gid and gid not in submitted:
            submitted[gid] = str(cell.get("source", ""))
    titles = {e.id: e.title or e.id for e in data.exercises}
    fixed = planted_fixed(data)
    exercises: dict[str, Doc] = {}
    notes = []
    for gid, ex, stub in answer_cells(data):
        text, cut = clean(submitted.get(gid, stub))
        if cut:
            notes.append(f"{who}: the answer cell {gid} is longer than {MAX_ANSWER_CHARS} characters; "
                         "only its beginning is compared")
        handed = set(_lines(stub)) - shared
        left_out = shared | handed
        doc = exercises.setdefault(ex, Doc())
        doc.handed |= handed
        doc.expected |= handed | (set(_lines(fixed.get(gid, ""))) - shared)
        if doc.lines and not doc.lines[-1][0].endswith("\n"):
            doc.lines[-1] = (doc.lines[-1][0] + "\n", doc.lines[-1][1])
        doc.lines += [(line, line.strip() not in left_out) for line in text.splitlines(keepends=True)]
    whole = Doc(handed=set().union(*(d.handed for d in exercises.values())),
                expected=set().union(*(d.expected for d in exercises.values())))
    for ex, doc in exercises.items():
        whole.lines.append((f"# ── {titles.get(ex, ex)} ──\n", False))
        whole.lines += doc.lines
        if whole.lines and not whole.lines[-1][0].endswith("\n"):
            whole.lines[-1] = (whole.lines[-1][0] + "\n", whole.lines[-1][1])
    return Student(who, exercises, whole), notes


def gather(root: Path, subs: Path, assignment: str, default_variant: bool = False) -> Gathered:
    """Every submitted notebook of ``assignment`` in ``subs``, read without trust, as the students' answers,
    each judged against what that student was handed: their own variant, drawn again from their id, or the
    default one for all with ``default_variant`` (a class handed one copy for all)."""
    out = Gathered()
    planned = discover(root, subs, [assignment], None)
    if not planned:
        raise UserError(f"no submission of {assignment} in {subs}: collect first, or give --submissions FOLDER")
    secret = None if default_variant else drawn_variant_secret(root, assignment)
    loaded: dict[str, tuple[NotebookData, set[str]]] = {}
    for f in planned:
        if f.notebook not in loaded:
            data = NotebookData.loaded(course.Assignment(assignment, root), f.notebook)
            loaded[f.notebook] = (data, course_lines(data))
        data, shared = loaded[f.notebook]
        if secret is not None:
            data = data.for_student(f.student, secret)
        who = f"{f.student}/{f.notebook}"
        out.notes += [f"{who}: {n}" for n in f.notes]
        sub = read_submission(Path(f.path))
        if sub.problem or sub.nb is None:
            out.skipped.append(f"{who}: {sub.problem or 'it could not be read'}")
            continue
        student, notes = answers_of(sub.nb, data, shared, who)
        student.name = f.student
        out.notes += notes
        if student.notebook.own():
            out.students.setdefault(f.notebook, []).append(student)
        else:
            out.stub_only.setdefault(f.notebook, []).append(f.student)
    return out


def _fingerprint(doc: Doc):
    from copydetect import CodeFingerprint

    if not doc.own():
        return None
    fp = CodeFingerprint("answer.py", NOISE, WINDOW, filter=True, language="python",
                         fp=io.StringIO(doc.compared_text()))
    return fp if fp.hashes else None


def _spans(slices, length: int) -> list[tuple[int, int]]:
    """copydetect's slices (starts, ends) as sorted, merged ``(start, end)`` ranges within the text."""
    found = sorted((max(0, int(s)), min(length, int(e))) for s, e in zip(slices[0], slices[1]) if int(e) > int(s))
    merged: list[tuple[int, int]] = []
    for s, e in found:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def compare(docs: dict[str, Doc], notebook: str, scope: str, title: str) -> list[Pair]:
    """Every pair of students whose answers share code, best first: each answer as compared with the other's
    (:meth:`Doc.against`; the same for every pair where everyone was handed the same)."""
    from copydetect import compare_files

    prints: dict[tuple[str, frozenset], tuple[Doc, object]] = {}

    def printed(who: str, other: str):
        mine, theirs = docs[who], docs[other]
        key = (who, frozenset(mine.expected & theirs.expected), mine.found_in(theirs))
        if key not in prints:
            doc = mine.against(theirs)
            prints[key] = (doc, _fingerprint(doc))
        return prints[key]

    names = sorted(docs)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            (da, fa), (db, fb) = printed(a, b), printed(b, a)
            if fa is None or fb is None:
                continue
            _, (sa, sb), (slices_a, slices_b) = compare_files(fa, fb)
            if not len(slices_a) or not len(slices_a[0]):
                continue
            sa, sb = min(1.0, float(sa)), min(1.0, float(sb))
            ca, cb = float(fa.token_coverage), float(fb.token_coverage)
            score = (sa * ca + sb * cb) / (ca + cb) if ca + cb else 0.0
            if score <= 0:
                continue
            pairs.append(Pair(notebook, scope, title, a, b, score, sa, sb, da, db,
                              _spans(slices_a, len(da.text)), _spans(slices_b, len(db.text))))
    pairs.sort(key=lambda p: (-p.score, p.a, p.b))
    return pairs


def rank(found: Gathered, root: Path, assignment: str) -> tuple[list[Pair], list[Pair]]:
    """The pairs of every notebook's whole answer text, and of every exercise, each list best first."""
    whole, each = [], []
    for notebook, students in sorted(found.students.items()):
        data = NotebookData.loaded(course.Assignment(assignment, root), notebook)
        whole += compare({s.name: s.notebook for s in students}, notebook, "", "all answers")
        for e in data.exercises:
            docs = {s.name: s.exercises[e.id] for s in students if e.id in s.exercises}
            each += compare(docs, notebook, e.id, e.title or e.id)
    whole.sort(key=lambda p: (-p.score, p.notebook, p.a, p.b))
    each.sort(key=lambda p: (-p.score, p.notebook, p.scope, p.a, p.b))
    return whole, each


def render_doc(doc: Doc, spans: list[tuple[int, int]]) -> str:
    """A document as escaped HTML: shared passages marked, lines left out of the comparison greyed."""
    e = html.escape
    out, pos, k = [], 0, 0
    for line, keep in doc.lines:
        end = pos + len(line)
        if not keep:
            out.append(f'<span class="course">{e(line)}</span>')
        else:
            while k < len(spans) and spans[k][1] <= pos:
                k += 1
            at, j = pos, k
            while j < len(spans) and spans[j][0] < end:
                s, t = max(spans[j][0], pos), min(spans[j][1], end)
                out.append(e(line[at - pos:s - pos]) + f"<mark>{e(line[s - pos:t - pos])}</mark>")
                at = t
                j += 1
            out.append(e(line[at - pos:]))
        pos = end
    return "".join(out)


def _pct(x: float) -> str:
    return f"{x:.0%}"


def render(assignment: str, found: Gathered, whole: list[Pair], each: list[Pair], top: int) -> str:
    """The page: how to read it, what was not compared, the top pairs, and each side by side."""
    e = html.escape
    shown = whole[:top] + each[:top]
    by_notebook: dict[tuple[str, str, str], list[str]] = {}
    for p in each:
        by_notebook.setdefault((p.notebook, p.a, p.b), []).append(f"{p.scope} {p.score:.2f}")

    def row(i: int, p: Pair, extra: str) -> str:
        return (f'<tr><td><a href="#pair-{i}">{i}</a></td><td>{p.score:.2f}</td><td>{e(p.a)} ({_pct(p.share_a)})</td>'
                f"<td>{e(p.b)} ({_pct(p.share_b)})</td><td>{e(p.notebook)}</td><td>{e(extra)}</td></tr>")

    whole_rows = "".join(row(i + 1, p, ", ".join(by_notebook.get((p.notebook, p.a, p.b), [])))
                         for i, p in enumerate(whole[:top]))
    each_rows = "".join(row(len(whole[:top]) + i + 1, p, p.title) for i, p in enumerate(each[:top]))
    panels = "".join(
        f'<section id="pair-{i + 1}"><h3>{i + 1}. {p.score:.2f}: {e(p.a)} and {e(p.b)}, {e(p.notebook)}, '
        f'{e(p.title)}</h3><table class="side"><tr><th>{e(p.a)}: {_pct(p.share_a)} of this answer is shared</th>'
        f"<th>{e(p.b)}: {_pct(p.share_b)} of this answer is shared</th></tr>"
        f"<tr><td><pre>{render_doc(p.doc_a, p.spans_a)}</pre></td><td><pre>{render_doc(p.doc_b, p.spans_b)}</pre>"
        f"</td></tr></table></section>" for i, p in enumerate(shown))
    counted = sum(len(v) for v in found.students.values())
    stubs = "".join(f"<li>{e(nb)}: {e(', '.join(who))}</li>" for nb, who in sorted(found.stub_only.items()))
    skipped = "".join(f"<li>{e(s)}</li>" for s in found.skipped)
    notes = "".join(f"<li>{e(s)}</li>" for s in found.notes)
    table = ("<table><tr><th>#</th><th>score</th><th>student (share of their answer)</th>"
             "<th>student (share of their answer)</th><th>notebook</th><th>{}</th></tr>{}</table>")
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="generator" content="{GENERATOR}">
<title>Similarity report: {e(assignment)}</title>
<style>body{{font-family:sans-serif;max-width:90em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}}
table.side{{width:100%;table-layout:fixed}}pre{{white-space:pre-wrap;word-break:break-all;margin:0}}
mark{{background:#ffd54f}}.course{{color:#999}}</style></head><body>
<h1>Similarity report: {e(assignment)}</h1>
<p>Similarity is not proof. Each score is the share of the code of both answers that the two have in
common, as passages of at least {NOISE} tokenized characters (names and strings made anonymous, so a
renamed variable or a moved line does not hide a passage). Short exercises converge: there are few
ways to write them, and honest answers to them can look alike. Lines of the course's own cells, and
lines both students were handed in their answer cells or reach by fixing their own copy (the released
stubs; in the debugging exam, the fixes every correct copy shares), are left out of every comparison
(shown grey). Look at the shared passages side by side (<mark>highlighted</mark>), and talk to the
students before you conclude anything.</p>
<p>{counted} submitted notebook(s) compared; pairs listed: the top {top} of whole notebooks and the top
{top} of single exercises.</p>
{f'<h2>Not compared: nothing of their own (only the released stubs)</h2><ul>{stubs}</ul>' if stubs else ''}
{f'<h2>Skipped: the notebook does not read</h2><ul>{skipped}</ul>' if skipped else ''}
{f'<h2>Notes</h2><ul>{notes}</ul>' if notes else ''}
<h2>Whole notebooks: the most similar pairs</h2>
{table.format('exercises (score)', whole_rows) if whole_rows else '<p>No two notebooks share a passage.</p>'}
<h2>Single exercises: the most similar pairs</h2>
{table.format('exercise', each_rows) if each_rows else '<p>No two answers share a passage.</p>'}
<h2>Side by side</h2>
{panels}
</body></html>
"""


def _plain(text: str) -> str:
    """Text for the terminal: control characters (an escape sequence in a folder name) shown, not sent."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def run(args) -> int:
    root = course.find_root()
    name = course.assignment_names(root, [args.assignment])[0]
    subs = Path(args.submissions).resolve() if args.submissions else course.folder(root, "submitted")
    if not subs.is_dir():
        raise UserError(f"no submissions folder {subs}: collect first, or give --submissions FOLDER")
    top = args.top if args.top is not None else DEFAULT_TOP
    if top < 1:
        raise UserError(f"--top {top}: give a number of pairs of at least 1")
    out = Path(args.to) if args.to else Path(root) / "reports" / f"{name}-similarity.html"
    found = gather(root, subs, name, default_variant=args.default_variant)
    whole, each = rank(found, root, name)
    aside = write_for_people(out, render(name, found, whole, each, top), root)
    if aside:
        print(kept_line(out, aside))
    for s in found.skipped:
        print(f"skipped {_plain(s)}", file=sys.stderr)
    listed = sorted(whole[:top] + each[:top], key=lambda p: -p.score)
    counted = sum(len(v) for v in found.students.values())
    stubs = sum(len(v) for v in found.stub_only.values())
    print(f"{name}: {counted} notebook(s) compared, {stubs} with only the released stubs, {len(found.skipped)} "
          f"skipped, {len(listed)} pair(s) listed; report: {out}")
    for p in listed:
        print(f"{p.score:.2f}  {_plain(p.a)} ~ {_plain(p.b)}  {_plain(p.notebook)}: {_plain(p.title)}")
    return 0
