"""``autograder similarity``: a planted near-copy ranks first, honest answers lower, starter code counts for
nothing, a notebook that does not read is skipped and named, student text reaches the page escaped, and
the command writes its own page and nothing else.

The class is built in a released copy of the fixture course, as the attack corpus builds its
submissions (``tests/attacks.py``): the released notebook with the students' answer cells filled in.
One test runs on the real course's first notebook with the course's own correct answer variants
(``tests/answers/01_tensors``) as honest students.  Nothing runs a kernel.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import attacks
import nbformat
import pytest
from bs4 import BeautifulSoup
from support import ROOT, fixture_course, run_tool

from autograder import cli
from autograder.commands import similarity

A = attacks.ASSIGNMENT
STUB_1 = 'def add_one(x):\n    """Exercise 0.1: return x + 1 as a new tensor."""\n'
STUB_2 = 'def double(x):\n    """Exercise 0.2: return 2 * x as a new tensor."""\n'

# the planted pair: max's answers are ana's with every name changed and independent lines swapped
ANA = {"ex0_1_solution": STUB_1 + '''\
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"expected a tensor, got {type(x).__name__}")
    flat = x.reshape(-1)
    result = torch.empty(x.numel(), dtype=x.dtype, device=x.device)
    for index in range(flat.numel()):
        result[index] = flat[index] + 1
    return result.reshape(x.shape)
''', "ex0_2_solution": STUB_2 + '''\
    two = torch.tensor(2, dtype=x.dtype, device=x.device)
    doubled = x.clone()
    doubled.mul_(two)
    assert doubled.shape == x.shape, "the shape must not change"
    return doubled
'''}
MAX = {"ex0_1_solution": STUB_1 + '''\
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"expected a tensor, got {type(x).__name__}")
    out = torch.empty(x.numel(), dtype=x.dtype, device=x.device)
    values = x.reshape(-1)
    for k in range(values.numel()):
        out[k] = values[k] + 1
    return out.reshape(x.shape)
''', "ex0_2_solution": STUB_2 + '''\
    twice = x.clone()
    factor = torch.tensor(2, dtype=x.dtype, device=x.device)
    twice.mul_(factor)
    assert twice.shape == x.shape, "the shape must not change"
    return twice
'''}
# honest answers, each written on its own; dev's loop shares an idiom with ana's, as honest answers do
HONEST = {
    "ben": (STUB_1 + "    out = x.clone()\n    out += 1\n    return out\n", STUB_2 + "    return x + x\n"),
    "cleo": (STUB_1 + "    ones = torch.ones_like(x)\n    total = torch.add(x, ones)\n    return total\n",
             STUB_2 + "    result = torch.zeros_like(x)\n    for i, value in enumerate(x.flatten()):\n"
                      "        result.view(-1)[i] = 2 * value\n    return result\n"),
    "dev": (STUB_1 + "    result = torch.empty(x.numel(), dtype=x.dtype, device=x.device)\n"
                     "    for index, value in enumerate(x.flatten().tolist()):\n        result[index] = value + 1\n"
                     "    return result.view(x.shape)\n",
            STUB_2 + "    return torch.mul(x, 2)\n"),
    # the same one-line answers: short exercises converge, and too short a passage is no evidence
    "eli": (STUB_1 + "    return x + 1\n", STUB_2 + "    return 2 * x\n"),
    "fay": (STUB_1 + "    return x + 1\n", STUB_2 + "    return 2 * x\n"),
}
STUBS_ONLY = ["stub_1", "stub_2", "stub_3"]
COPIED = "correct_full_with_dtype.py"  # the course's answer variant the copier of the real-course class copies
# ana's answer to 0.1 under two hostile lines
HOSTILE = '''\
    # </pre><script>alert("pwned")</script>
    page = "<img src=x onerror=alert(1)>" + "\\ud800\\x00"
''' + ANA["ex0_1_solution"][len(STUB_1):]


def write_submission(submitted: Path, student: str, release: dict, answers: dict | None = None,
                     raw: bytes | None = None, notebook: str = A, assignment: str = A) -> Path:
    """A student's notebook: the release with ``answers`` (grade id -> source) in its answer cells."""
    folder = submitted / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    nb = json.loads(json.dumps(release))
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if answers and gid in answers:
            cell["source"] = answers[gid]
    path = folder / f"{notebook}.ipynb"
    path.write_bytes(raw if raw is not None else nbformat.writes(nbformat.from_dict(nb)).encode())
    return path


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """The released fixture course with a class in submitted/."""
    root = fixture_course(tmp_path_factory.mktemp("similarity") / "course")
    release = json.loads((root / "notebooks" / A / f"{A}.ipynb").read_text())
    subs = root / "submitted"
    write_submission(subs, "ana", release, ANA)
    write_submission(subs, "max", release, MAX)
    for who, (one, two) in HONEST.items():
        write_submission(subs, who, release, {"ex0_1_solution": one, "ex0_2_solution": two})
    for who in STUBS_ONLY:
        write_submission(subs, who, release)
    text = nbformat.writes(nbformat.from_dict(release))
    write_submission(subs, "broken", release, raw=text[: len(text) // 2].encode())
    return root


def similar(root: Path, *args: str, capsys, monkeypatch) -> tuple[int, str, str]:
    """``autograder similarity`` in this process, in the course ``root``: (exit code, stdout, stderr)."""
    monkeypatch.setenv("AUTOGRADER_COURSE_ROOT", str(root))
    monkeypatch.setenv("PATH", os.environ["PATH"])  # the command line widens PATH: put it back afterwards
    capsys.readouterr()
    code = cli.main(["similarity", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def names(p: similarity.Pair) -> set[str]:
    return {p.a, p.b}


def test_planted_near_copies_rank_first_and_honest_answers_lower(klass):
    found = similarity.gather(klass, klass / "submitted", A)
    whole, each = similarity.rank(found, klass, A)
    assert names(whole[0]) == {"ana", "max"} and whole[0].score > 0.6, whole[0]
    scopes = {p.scope for p in each}
    assert scopes == {"ex0_1", "ex0_2"}
    for scope, pairs in [("", whole)] + [(s, [p for p in each if p.scope == s]) for s in sorted(scopes)]:
        planted, *honest = pairs
        assert names(planted) == {"ana", "max"}, (scope, planted)
        assert all(p.score < planted.score for p in honest), (scope, [(p.a, p.b, p.score) for p in pairs])
        assert all(names(p) != {"ana", "max"} for p in honest)
    # honest answers that share an idiom do show, lower down: the scores are not all or nothing
    assert any(0 < p.score < whole[0].score for p in whole[1:]), [(p.a, p.b, p.score) for p in whole]
    # the one-line answers everyone converges on are too short a passage to pair anyone
    assert not [p for p in whole + each if names(p) == {"eli", "fay"}]


def test_stub_text_is_left_out_so_stub_only_students_pair_with_nobody(klass):
    found = similarity.gather(klass, klass / "submitted", A)
    assert sorted(found.stub_only[A]) == STUBS_ONLY
    whole, each = similarity.rank(found, klass, A)
    assert not [p for p in whole + each if names(p) & set(STUBS_ONLY)]
    # in an answered cell, the stub's own lines are not compared either (shown, greyed)
    ana = next(s for s in found.students[A] if s.name == "ana")
    left_out = [line.strip() for line, keep in ana.exercises["ex0_1"].lines if not keep]
    assert left_out == ["def add_one(x):", '"""Exercise 0.1: return x + 1 as a new tensor."""']


def test_the_report_ranks_names_the_skipped_and_prints_one_line_per_pair(klass, capsys, monkeypatch):
    code, out, err = similar(klass, A, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0, err
    page = (klass / "reports" / f"{A}-similarity.html").read_text()
    lines = out.splitlines()
    assert lines[0].startswith(f"{A}: 7 notebook(s) compared, 3 with only the released stubs, 1 skipped")
    assert lines[0].endswith(f"{A}-similarity.html")
    pairs = lines[1:]
    assert pairs and all(" ~ " in line for line in pairs)
    assert "ana ~ max" in pairs[0]
    scores = [float(line.split()[0]) for line in pairs]
    assert scores == sorted(scores, reverse=True)
    assert "broken/00_fixture" in err and "could not be read" in err
    soup = BeautifulSoup(page, "html.parser")
    skipped = soup.find("h2", string=lambda s: s and s.startswith("Skipped")).find_next("ul").get_text()
    assert "broken/00_fixture" in skipped
    stubs = soup.find("h2", string=lambda s: s and s.startswith("Not compared")).find_next("ul").get_text()
    assert all(s in stubs for s in STUBS_ONLY)
    first = soup.find("section", id="pair-1")
    assert "ana" in first.h3.get_text() and "max" in first.h3.get_text()
    marked = " ".join(m.get_text() for m in first.find_all("mark"))
    assert "isinstance" in marked and "def add_one" not in marked
    assert "Similarity is not proof" in page


def test_the_report_escapes_what_students_wrote(klass, tmp_path, capsys, monkeypatch):
    """Answers and folder names are untrusted: a script in an answer is shown as text, never run."""
    release = json.loads((klass / "notebooks" / A / f"{A}.ipynb").read_text())
    subs = tmp_path / "submitted"
    evil = "<svg onload=alert(1)>"
    write_submission(subs, "ana", release, ANA)
    write_submission(subs, evil, release, {"ex0_1_solution": STUB_1 + HOSTILE})
    write_submission(subs, "huge", release, {"ex0_1_solution": STUB_1 + "    y = x\n" * 10_000})
    to = tmp_path / "out" / "similar.html"
    code, out, err = similar(klass, A, "--submissions", str(subs), "--to", str(to), capsys=capsys,
                             monkeypatch=monkeypatch)
    assert code == 0, err
    page = to.read_text(encoding="utf-8")
    assert "<script" not in page.lower() and "<svg" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in page
    assert "&lt;svg onload=alert(1)&gt;" in page
    assert "huge/00_fixture: the answer cell ex0_1_solution is longer than" in page
    soup = BeautifulSoup(page, "html.parser")
    shown = soup.find("section", id="pair-1").get_text()
    assert '</pre><script>alert("pwned")</script>' in shown and evil in shown
    assert evil in out.splitlines()[1] and "ana" in out.splitlines()[1]


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_it_writes_its_own_page_and_nothing_else(klass, capsys, monkeypatch):
    report = klass / "reports" / f"{A}-similarity.html"
    ours = ("reports/", ".autograder/written.json")  # the page, and the record of what was written for people
    before = {k: v for k, v in snapshot(klass).items() if not k.startswith(ours)}
    code, _, err = similar(klass, A, capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0, err
    code, _, err = similar(klass, A, capsys=capsys, monkeypatch=monkeypatch)  # over its own page: fine
    assert code == 0, err
    after = snapshot(klass)
    assert {k: v for k, v in after.items() if not k.startswith(ours)} == before
    assert sorted(k for k in after if k.startswith("reports/")) == [f"reports/{A}-similarity.html"]
    # a file it did not write last (the instructor's own notes, or its page annotated) is kept beside it first
    mine = klass / "reports" / "notes.html"
    mine.write_text("<p>the instructor's own notes</p>")
    report.write_text(report.read_text().replace("</body>", "<p>ana and ben: talked to both</p></body>"))
    for target in (mine, report):
        code, out, err = similar(klass, A, *(["--to", str(target)] if target == mine else []), capsys=capsys,
                                 monkeypatch=monkeypatch)
        assert code == 0 and "Traceback" not in err, err
        kept = [p for p in target.parent.iterdir() if p.name.startswith(target.stem + ".mine-")]
        assert len(kept) == 1 and f"{target} held a file this course had not written there: kept as {kept[0]}" \
            in out, out
        assert "talked to both" in kept[0].read_text() or "own notes" in kept[0].read_text()
        assert 'content="autograder similarity"' in target.read_text()


def test_user_mistakes_are_one_line(klass, tmp_path, capsys, monkeypatch):
    for args, words in [(["01_nope"], "no assignment named 01_nope"),
                        ([A, "--submissions", str(tmp_path / "none")], "no submissions folder"),
                        ([A, "--submissions", str(tmp_path)], f"no submission of {A}"),
                        ([A, "--top", "0"], "--top 0")]:
        code, out, err = similar(klass, *args, capsys=capsys, monkeypatch=monkeypatch)
        assert code == 2 and not out, (args, out)
        assert err.count("\n") == 1 and words in err, (args, err)


def test_the_course_answer_variants_are_honest_and_a_copy_among_them_ranks_first(course_dir, tmp_path):
    """The real course's first notebook: four students each answer with a different correct variant
    of ``tests/answers/01_tensors``; every variant keeps the stub's def and docstring lines, which count
    for nothing.  A fifth student copies one of them with new names and swapped lines."""
    notebook = "01_tensors"
    release = json.loads((course_dir / "notebooks" / notebook / f"{notebook}.ipynb").read_text())
    bank = ROOT / "tests" / "answers" / notebook
    variants = {d.name: sorted(d.glob("correct_*.py")) for d in sorted(bank.iterdir())}
    subs = tmp_path / "submitted"
    for i in range(4):
        answers = {f"{ex}_solution": files[i % len(files)].read_text() for ex, files in variants.items()}
        write_submission(subs, f"honest_{i}", release, answers, notebook=notebook, assignment=notebook)
    original = (bank / "ex1_3" / COPIED).read_text()
    body = original.split('"""\n', 1)[1]
    lines = body.splitlines(keepends=True)
    lines[0], lines[1] = lines[1], lines[0]  # ref = ... and T = ... are independent
    renamed = "".join(lines).replace("ref", "first").replace("padded", "out").replace("lengths", "sizes")
    copied = original[: len(original) - len(body)] + renamed
    holder = next(i for i in range(4) if variants["ex1_3"][i % len(variants["ex1_3"])].name == COPIED)
    write_submission(subs, "copier", release, {"ex1_3_solution": copied}, notebook=notebook, assignment=notebook)
    found = similarity.gather(course_dir, subs, notebook)
    whole, each = similarity.rank(found, course_dir, notebook)
    ex13 = [p for p in each if p.scope == "ex1_3"]
    assert names(ex13[0]) == {f"honest_{holder}", "copier"}, [(p.a, p.b, p.score) for p in ex13]
    assert ex13[0].score > 0.8
    assert all(p.score < ex13[0].score for p in each if p is not ex13[0])
    # the stub's lines that every variant starts with (its def and docstring lines) are never compared; a
    # helper of the learner's own is
    stub = {line.strip() for c in release["cells"] if c["cell_type"] == "code"
            and c.get("metadata", {}).get("nbgrader", {}).get("solution")
            for line in "".join(c["source"]).splitlines() if line.lstrip().startswith(("def ", '"""'))}
    assert stub
    for s in found.students[notebook]:
        for doc in s.exercises.values():
            assert all(not keep for line, keep in doc.lines if line.strip() in stub)


def test_the_command_line_runs_it(klass, tmp_path):
    """As an instructor runs it: its own process, the course as the working directory."""
    to = tmp_path / "cli.html"
    out = run_tool([sys.executable, "-m", "autograder", "similarity", A, "--top", "1", "--to", str(to)], klass,
                   timeout=600)
    assert out.returncode == 0, out.stderr
    assert to.read_text().count('<section id="pair-') == 2
    assert [line.split()[1:4] for line in out.stdout.splitlines()[1:]] == [["ana", "~", "max"]] * 2


EXAM = "13_debugging_exam"


def test_fixed_exams_copied_from_a_classmate_are_the_top_pairs(course_dir, tmp_path):
    """The debugging exam hands each student their own draw: a spec and a planted bug per part, the spec written
    into their copy. Honest students fix their own copy: their fixed exams share the lines every fix restores,
    which count for nothing, but not their specs. A copier hands in a classmate's fixed exam whole, another the
    same with names changed: they are the top pairs, far above every honest one. Two students of one draw who
    both fixed everything hand in the same script, as honest work does: both are compared (neither has "nothing
    of their own"), and the pair is not listed."""
    from autograder.grading.coursedata import NotebookData
    from autograder.values import course, variants

    secret = bytes(range(32))
    (course_dir / ".autograder").mkdir(exist_ok=True)
    (course_dir / ".autograder" / "variant_seeds.json").write_text(json.dumps({EXAM: secret.hex()}))
    data = NotebookData.load(course.Assignment(EXAM, course_dir), EXAM)
    ids = [f"s{i:03d}" for i in range(300)]
    drawn = {who: variants.draw(data.solution, secret, EXAM, EXAM, who) for who in ids}
    twins = next((a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if drawn[a] == drawn[b])
    bugs = [k for k in drawn[ids[0]] if k.endswith("/bug")]

    def apart(a, b):
        return all(drawn[a][k] != drawn[b][k] for k in bugs if len(variants.params(data.solution)[k]) > 2)

    holder = next(who for who in ids if who not in twins)
    copier, renamer = [who for who in ids if who not in twins and who != holder and apart(who, holder)][:2]
    honest = [who for who in ids if who not in {*twins, holder, copier, renamer}][:5]

    def fixed(who):
        """``who``'s copy with every bug fixed: the solution with their spec written in."""
        spec = variants.cell_values(data.solution, drawn[who])
        return {course.grade_id(c): variants.planted_source(c.source, [], data.markers, spec)
                for c in data.solution.cells if variants.plants(c)}

    subs = tmp_path / "submitted"

    def hand_in(who, answers):
        release = json.loads(nbformat.writes(data.for_student(who, secret).release))
        write_submission(subs, who, release, answers, notebook=EXAM, assignment=EXAM)

    for who in [holder, *honest, *twins]:
        hand_in(who, fixed(twins[0] if who in twins else who))
    hand_in(copier, fixed(holder))
    renamed = {gid: text.replace("running", "total").replace("order", "permutation").replace("decay", "decayed")
               for gid, text in fixed(holder).items()}
    hand_in(renamer, renamed)
    found = similarity.gather(course_dir, subs, EXAM)
    assert not found.stub_only and len(found.students[EXAM]) == 10, (found.stub_only, found.skipped)
    whole, _ = similarity.rank(found, course_dir, EXAM)
    assert names(whole[0]) == {holder, copier} and whole[0].score > 0.95, [(p.a, p.b, round(p.score, 2)) for p in whole]
    copies = [p.score for p in whole if names(p) <= {holder, copier, renamer}]
    # honest pairs: two students who each fixed their own copy (a copier's answer holds a classmate's spec, so it
    # may pair with anyone whose draw shares some of it)
    honest_pairs = [p.score for p in whole if not names(p) & {copier, renamer}]
    assert len(copies) == 3 and min(copies) > max(honest_pairs, default=0) + 0.3, \
        [(p.a, p.b, round(p.score, 2)) for p in whole]
    assert not [p for p in whole if names(p) == set(twins)]
