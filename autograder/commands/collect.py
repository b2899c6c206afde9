"""``autograder collect``: fill ``submitted/`` from an LMS bulk download, on nbgrader's ``zip_collect``.

The download is collected by nbgrader's own ``zip_collect`` with the course's two plugins for LMS downloads
(:mod:`autograder.adapters.lms`): :class:`~autograder.adapters.lms.LmsDownload` unpacks it within bounds (a
download past them is not collected at all, "nothing collected: ...", and the course stays as it was), and
:class:`~autograder.adapters.lms.LmsFileNames` says whose each file is and which notebook, from what the LMS
itself wrote (Canvas's, Moodle's or Blackboard's layout), through an optional LMS roster
(:mod:`autograder.adapters.lms_roster`: a ``lms_id,student_id`` CSV or Canvas's gradebook export).  Without a roster
the LMS's own ids become the student ids, and the summary says so in a WARNING line.

A collect is all or nothing.  The archive, the assignment and the roster are checked before
anything is touched.  ``zip_collect`` then runs with its folders pointed into a staging folder
inside the course (``downloaded/ASSIGNMENT/.collecting-NAME/``: nbgrader's
``ZipCollectApp.downloaded_directory`` and ``CourseDirectory.submitted_directory``), and only
when everything there is known are the results moved into place, each by one rename on the
same file system.  Whatever fails (zip_collect, a folder in the way, a full disk) undoes the
renames already done and removes the staging folder: the course is left exactly as it was.

Across downloads the newest submission wins: a student's submission in the download is
compared with the one already in ``submitted/STUDENT/ASSIGNMENT/`` by their times (the LMS's own
time where the download carries one, Blackboard's attempt time, else the archive entry's time,
kept as the collector's time by :mod:`autograder.adapters.times`, outside the submission where no learner
can write it).  An
older one is not taken; a newer one replaces the earlier, which is moved aside, never deleted.  Within one
download, a learner's newest file of a notebook counts; of two files of one submission, the one named after
the notebook.  Whether a file reads as a notebook does not change which is the newest: a newest
submission that does not read is collected all the same (``grade`` then fails each exercise with the reason),
and the summary names it in a WARNING line and the report marks it ``unreadable``.

Nothing is dropped silently.  Each collect has its own folder,
``downloaded/ASSIGNMENT/kept-aside/NAME-TIME/``, that holds what it did not collect (a file
that is not a notebook, an archive inside the download, a name no pattern reads, an id the
roster lacks, a notebook that is none of the assignment's by its name or by its cells, an older
duplicate, in ``not-taken/`` a submission older than the one already collected), in
``replaced/`` the submissions it replaced, and ``collect-report.json``, which lists every file and
what became of it; the download itself is kept as ``downloaded/ASSIGNMENT/archive/NAME-TIME.zip``, once: a
download the archive holds already (the same bytes) is not copied again, nor is one nothing was collected from
(what it held is kept aside), and a submission that is the same as the one collected is not copied into
``not-taken/``.  Earlier collects' folders stay until the instructor removes them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from nbgrader.utils import parse_utc

from autograder.adapters import generate, lms_roster, times
from autograder.adapters.lms import LMS_NAMES, check_archive, entry_times
from autograder.values import course
from autograder.values.errors import UserError


def _recorded_time(root: Path, assignment: str, student: str, folder: Path) -> tuple[str, dt.datetime | None] | None:
    """When the submission already in ``folder`` came in, by evidence a penalty may rest on
    (:mod:`autograder.adapters.times`): its text and its UTC time (None when unknown or unreadable); None when
    there is no submission there."""
    if not folder.is_dir():
        return None
    when, source = times.submission_time(root, assignment, student, folder)
    if when is None or source not in times.TRUSTED:
        return "an unknown time", None
    try:
        return when, parse_utc(when)
    except (ValueError, OverflowError):
        return when, None


def _archived_copy(folder: Path, download: Path) -> Path | None:
    """The download as an earlier collect kept it in ``folder`` (the same bytes), or None."""
    size, digest = download.stat().st_size, None
    for kept in sorted(folder.glob("*.zip")) if folder.is_dir() else ():
        if kept.is_file() and not kept.is_symlink() and kept.stat().st_size == size:
            digest = digest or hashlib.sha256(download.read_bytes()).hexdigest()
            if hashlib.sha256(kept.read_bytes()).hexdigest() == digest:
                return kept
    return None


def _same_files(a: Path, b: Path) -> bool:
    """Whether two submission folders hold the same notebooks, byte for byte."""
    names = sorted(p.name for p in a.glob("*.ipynb"))
    return names == sorted(p.name for p in b.glob("*.ipynb")) and all(
        (a / n).read_bytes() == (b / n).read_bytes() for n in names)


class _Journal:
    """The folders made and the renames done by one collect, so that a failure can undo them all."""

    def __init__(self) -> None:
        self.made: list[Path] = []
        self.moved: list[tuple[Path, Path]] = []

    def mkdirs(self, path: Path) -> None:
        missing = []
        while not path.exists():
            missing.append(path)
            path = path.parent
        for p in reversed(missing):
            p.mkdir()
            self.made.append(p)

    def move(self, src: Path, dst: Path) -> None:
        """One atomic rename (all paths are inside the course, on one file system); never over a file."""
        if dst.exists() or dst.is_symlink():
            raise FileExistsError(f"{dst} is in the way")
        self.mkdirs(dst.parent)
        os.rename(src, dst)
        self.moved.append((src, dst))

    def undo(self, staging: Path) -> list[str]:
        """Put everything back; what could not be put back, said in words."""
        left = []
        for src, dst in reversed(self.moved):
            try:
                src.parent.mkdir(parents=True, exist_ok=True)
                os.rename(dst, src)
            except OSError as exc:
                left.append(f"{src} is at {dst} ({exc.strerror or exc})")
        shutil.rmtree(staging, ignore_errors=True)
        for p in reversed(self.made):
            try:
                p.rmdir()
            except OSError:
                pass  # why: a folder that is not empty holds something that must stay (or was put back into it)
        return left


def _stamp(base: Path, name: str) -> str:
    """``NAME-YYYYmmdd-HHMMSS`` (UTC), with a counter when that collect's folder already exists."""
    stem = f"{name}-{dt.datetime.now(dt.timezone.utc):%Y%m%d-%H%M%S}"
    n, out = 1, stem
    while any(p.exists() for p in (base / "kept-aside" / out, base / "archive" / f"{out}.zip",
                                   base / f".collecting-{out}")):
        n += 1
        out = f"{stem}-{n}"
    return out


def run(args) -> int:
    """Collect one download, all or nothing (see the module's docstring)."""
    root = course.find_root()
    download = Path(args.download).resolve()
    problem = check_archive(download)
    if problem:
        raise UserError(f"nothing collected: {problem}")
    try:
        course.assignment_names(root, [args.assignment])
    except UserError as exc:
        raise UserError(f"nothing collected: {exc}; give --assignment one of them") from None
    assignment = course.Assignment(args.assignment, root)
    roster_path = str(Path(args.roster).resolve()) if args.roster else ""
    if roster_path:
        lms_roster.read(roster_path)  # a roster that cannot be read stops here, before anything is touched
    downloaded = course.config(root).ZipCollectApp.get("downloaded_directory", "downloaded")
    base = root / downloaded / args.assignment
    name = _stamp(base, download.stem)
    staging = base / f".collecting-{name}"
    journal = _Journal()
    try:
        summary = _collect(root, download, args.assignment, assignment.notebooks(), roster_path, base, name,
                           staging, journal)
    except BaseException as exc:  # why: whatever failed, the course goes back to exactly how it was
        left = journal.undo(staging)
        if left:
            raise UserError("collect failed and could not put back everything: " + "; ".join(left), 1) from exc
        if isinstance(exc, OSError):
            raise UserError(f"nothing collected, the course is as it was: {exc}", 1) from exc
        raise
    shutil.rmtree(staging, ignore_errors=True)
    _print_summary(root, summary)
    return 0


def _collect(root: Path, download: Path, assignment: str, notebooks: list[str], roster_path: str, base: Path,
             name: str, staging: Path, journal: _Journal) -> dict:
    """Collect into ``staging`` with nbgrader's zip_collect, then move the results into place."""
    journal.mkdirs(staging)
    rel = staging.relative_to(root).as_posix()
    archive = staging / assignment / "archive"
    archive.mkdir(parents=True)
    staged_zip = archive / f"{download.stem}.zip"  # nbgrader extracts only what ends in .zip
    shutil.copyfile(download, staged_zip)
    aside = staging / "kept-aside"
    report_rows = staging / "files.json"
    cmd = [str(Path(sys.executable).parent / "nbgrader"), "zip_collect", assignment, "--force",
           "--collector=autograder.adapters.lms.LmsFileNames", "--extractor=autograder.adapters.lms.LmsDownload",
           f"--ZipCollectApp.downloaded_directory={rel}",
           f"--CourseDirectory.submitted_directory={rel}/submitted",
           f"--LmsFileNames.roster={roster_path}", f"--LmsFileNames.report={report_rows}",
           f"--LmsFileNames.aside={aside}", f"--LmsFileNames.extracted={staging / assignment / 'extracted'}",
           f"--LmsFileNames.notebooks={','.join(notebooks)}", f"--LmsFileNames.course_root={root}",
           f"--LmsFileNames.assignment={assignment}"]
    out = subprocess.run(cmd, cwd=root, env=generate.tool_env(), capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stdout[-2000:] + "\n" + out.stderr[-2000:]).strip()
        print(tail, file=sys.stderr)
        last = tail.splitlines()[-1] if tail else f"exit status {out.returncode}"
        raise UserError(f"nothing collected, the course is as it was: nbgrader zip_collect failed ({last}); "
                        "its output is above", 1)
    found = json.loads(report_rows.read_text()) if report_rows.is_file() else {}
    rows, lms = found.get("files", []), found.get("lms")
    member_times = entry_times(download)
    staged = staging / "submitted"

    # when each staged submission came in: the LMS's own time where its file name says, else the archive's
    arrived: dict[str, str] = {}
    for r in rows:
        if "kept_aside" in r:
            continue
        member = r["file"].split("/", 1)[-1]
        when = r.get("timestamp") or member_times.get(member)
        if when and (r["student"] not in arrived or parse_utc(when) > parse_utc(arrived[r["student"]])):
            arrived[r["student"]] = when

    # the newest submission wins, across downloads: compare with what submitted/ already holds
    dated = (base / "kept-aside" / name).relative_to(root).as_posix()
    taken, replaced, not_taken, same = [], [], {}, {}
    for folder in sorted(staged.glob(f"*/{assignment}")):
        student = folder.parent.name
        current = course.folder(root, "submitted", student, assignment)
        before = _recorded_time(root, assignment, student, current)
        new = parse_utc(arrived[student]) if arrived.get(student) else None
        if before is None:
            taken.append(student)
        elif before[1] is not None and new is not None and new < before[1]:
            not_taken[student], same[student] = f"older than the submission already collected on {before[0]}", False
        elif before[1] is not None and new == before[1] and _same_files(folder, current):
            not_taken[student], same[student] = f"the same as the submission already collected on {before[0]}", True
        else:
            taken.append(student)
            replaced.append({"student": student, "collected_at": before[0],
                             "kept_in": f"{dated}/replaced/{student}/{assignment}"})
    for student, why in not_taken.items():
        if same[student]:  # the collected submission is this one: no second copy of it
            kept_in = course.folder(root, "submitted", student, assignment).relative_to(root).as_posix()
        else:
            shutil.move(str(staged / student / assignment), str(aside / "not-taken" / student / assignment))
            kept_in = f"{dated}/not-taken/{student}/{assignment}"
        for r in rows:
            if r.get("student") == student and "kept_aside" not in r:
                r["kept_aside"] = why
                r["kept_in"] = kept_in
    for r in rows:
        if "kept_aside" in r and "kept_in" not in r:
            r["kept_in"] = f"{dated}/{r['file']}"
    # the download is kept once: not again when the archive holds the same file, nor when nothing was taken from it
    # (what it held that was not taken is kept aside, each file with its reason)
    earlier = _archived_copy(base / "archive", download)
    archive = None if earlier is not None or not taken else base / "archive" / f"{name}.zip"
    summary = {"download": str(download), "assignment": assignment, "collect": name,
               "roster": roster_path or None, "lms": lms, "collected_at": dt.datetime.now(dt.timezone.utc).isoformat(),
               "archive": (archive or earlier).relative_to(root).as_posix() if (archive or earlier) else None,
               "taken": taken, "replaced": replaced, "files": rows, "kept_aside_in": dated}
    aside.mkdir(exist_ok=True)
    (aside / "collect-report.json").write_text(json.dumps(summary, indent=1))

    # everything is known: move the results into place, each move one rename
    for entry in replaced:
        journal.move(course.folder(root, "submitted", entry["student"], assignment),
                     aside / "replaced" / entry["student"] / assignment)
    for student in taken:
        journal.move(staged / student / assignment, course.folder(root, "submitted", student, assignment))
    if archive is not None:
        journal.move(staged_zip, archive)
    journal.move(aside, base / "kept-aside" / name)
    # the LMS's time for each submission now in place, kept where no learner can write (autograder.adapters.times)
    for student in taken:
        if arrived.get(student):
            times.record(root, assignment, student, course.folder(root, "submitted", student, assignment),
                         arrived[student], times.COLLECTOR)
    return summary


def _print_summary(root: Path, summary: dict) -> None:
    rows = summary["files"]
    if not summary["roster"]:
        lms = LMS_NAMES.get(summary.get("lms") or "", "the LMS")
        print(f"WARNING: no --roster given: {lms}'s own LMS ids are used as student ids "
              "(give --roster with your LMS roster, lms_id,student_id, to map them to your student ids)")
    collected = [r for r in rows if "kept_aside" not in r]
    print(f"collected {len(collected)} notebook(s) of {len(summary['taken'])} student(s) "
          f"into {course.folder(root, 'submitted').relative_to(root)}/")
    for r in collected:
        if "renamed" in r:
            print(f"  {r['file']}: taken as {r['student']}'s {r['notebook']}.ipynb "
                  "(renamed; recognised by its cells)")
    replaced_in = {e["student"]: e["kept_in"] for e in summary["replaced"]}
    for r in collected:
        if "unreadable" in r:
            kept = (f"; the submission it replaced is kept in {replaced_in[r['student']]}"
                    if r["student"] in replaced_in else "")
            print(f"WARNING: {r['file']} does not read as a notebook (it {r['unreadable']}): collected all "
                  f"the same, as {r['student']}'s newest {r['notebook']}.ipynb: grade fails each of its exercises "
                  f"with this reason{kept}")
    where = summary["kept_aside_in"]
    if summary["replaced"]:
        print(f"replaced {len(summary['replaced'])} older submission(s), kept in {where}/replaced/:")
        for e in summary["replaced"]:
            print(f"  {e['student']}: collected on {e['collected_at']}")
    aside = [r for r in rows if "kept_aside" in r]
    if aside:
        print(f"not collected, kept in {where}/ ({len(aside)}):")
        for r in aside:
            print(f"  {r['file']}: {r['kept_aside']}")
    if summary["archive"] is None:
        print("the download is not kept: nothing was collected from it (what it held is kept aside, as listed)")
    elif not summary["archive"].endswith(f"/{summary['collect']}.zip"):
        print(f"the download is the one already kept as {summary['archive']}: not kept again")
    print(f"report: {where}/collect-report.json")
