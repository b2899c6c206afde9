"""``autograder collect``: fill ``submitted/`` from an LMS bulk download, on nbgrader's ``zip_collect``.

The download is collected by nbgrader's own ``zip_collect`` with :class:`LmsFileNames`, a
collector plugin that reads the file names of the common LMS downloads and maps LMS ids to
student ids through an optional roster (:mod:`autograder.roster`: a ``lms_id,student_id`` CSV or
Canvas's gradebook export):

* Canvas: ``lastfirst_[LATE_]USERID_SUBMISSIONID_NOTEBOOK[-N].ipynb`` (``-N``: a resubmission);
* Moodle: ``Full Name_PARTICIPANT_assignsubmission_file_/NOTEBOOK.ipynb`` (a folder per learner);
* Blackboard: ``ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_NOTEBOOK.ipynb``.

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
kept as the collector's time by :mod:`autograder.times`, outside the submission where no learner
can write it).  An
older one is not taken; a newer one replaces the earlier, which is moved aside, never deleted.

Nothing is dropped silently.  Each collect has its own folder,
``downloaded/ASSIGNMENT/kept-aside/NAME-TIME/``, that holds what it did not collect (a file
that is not a notebook, an archive inside the download, a name no pattern reads, an id the
roster lacks, a notebook of another name, an older duplicate, in ``not-taken/`` a submission
older than the one already collected), in ``replaced/`` the submissions it replaced, and
``collect-report.json``, which lists every file and what became of it; the download itself is
kept as ``downloaded/ASSIGNMENT/archive/NAME-TIME.zip``.  Earlier collects' folders stay until
the instructor removes them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin
from nbgrader.utils import parse_utc, unzip
from traitlets import Unicode

from . import course, release, roster, times
from .errors import UserError

PATTERNS = [
    ("canvas", re.compile(r"^(?P<name>[^_/]+)_(?:(?P<late>LATE)_)?(?P<lms_id>\d+)_(?P<sub>\d+)_(?P<file>.+?)(?:-(?P<n>\d+))?\.ipynb$")),
    ("moodle", re.compile(r"^(?:.*/)?(?P<name>[^/]+?)_(?P<lms_id>\d+)_assignsubmission_file_?/(?P<file>[^/]+?)\.ipynb$")),
    ("blackboard", re.compile(r"^(?P<assignment>[^/]+?)_(?P<lms_id>[^_/]+)_attempt_"
                              r"(?P<ts>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})_(?P<file>.+?)\.ipynb$")),
]


def parse(relpath: str) -> dict | None:
    """The LMS, learner id, notebook name and ordering of one downloaded file's path, or None."""
    name = relpath.replace(os.sep, "/")
    for lms, pattern in PATTERNS:
        m = pattern.match(name) or pattern.match(name.rsplit("/", 1)[-1])
        if m:
            d = m.groupdict()
            ts = None
            if d.get("ts"):
                ts = dt.datetime.strptime(d["ts"], "%Y-%m-%d-%H-%M-%S").strftime("%Y-%m-%d %H:%M:%S.000000 UTC")
            return {"lms": lms, "lms_id": d["lms_id"], "file": d["file"], "timestamp": ts,
                    "order": (ts or "", int(d.get("n") or 0), d.get("sub") or ""), "late": bool(d.get("late"))}
    return None


class LmsFileNames(FileNameCollectorPlugin):
    """nbgrader's collector plugin for LMS downloads (see the module's docstring)."""

    roster = Unicode("", help="roster CSV mapping LMS ids to student ids (see autograder.roster)").tag(config=True)
    report = Unicode("", help="JSON file that lists every file and what became of it").tag(config=True)
    aside = Unicode("", help="folder for the files that are not collected").tag(config=True)
    notebooks = Unicode("", help="the assignment's notebook names, comma-separated").tag(config=True)
    extracted = Unicode("", help="the folder zip_collect extracted the download into").tag(config=True)

    _decided: dict | None = None

    def _decide(self, any_file: str) -> dict:
        """Read every extracted file once: who is who, and which duplicate is the newest."""
        if self.extracted:
            base = Path(self.extracted)
        else:
            top = Path(any_file)
            while top.parent.name != "extracted" and top.parent != top:
                top = top.parent
            base = top.parent
        students = roster.read(self.roster).student_of if self.roster else None
        valid = set(filter(None, self.notebooks.split(",")))
        decided, best = {}, {}
        for p in sorted(base.rglob("*")):
            if not p.is_file():
                continue
            rel = p.relative_to(base).as_posix()
            info = parse(rel)
            if p.suffix.lower() in (".zip", ".gz", ".tgz", ".tar", ".7z", ".rar"):
                decided[str(p)] = {"file": rel, "kept_aside": "an archive inside the download (not opened: "
                                                              "look inside it by hand)"}
                continue
            if p.suffix != ".ipynb":
                decided[str(p)] = {"file": rel, "kept_aside": "not a notebook"}
                continue
            if info is None:
                decided[str(p)] = {"file": rel, "kept_aside": "the file name follows no known LMS pattern"}
                continue
            student = students.get(info["lms_id"]) if students is not None else info["lms_id"]
            if student is None:
                decided[str(p)] = {"file": rel, "kept_aside": f"LMS id {info['lms_id']} is not in the roster"}
                continue
            if student.startswith(".") or "\\" in student:
                decided[str(p)] = {"file": rel, "kept_aside": f"{student!r} cannot be a student folder's name"}
                continue
            if valid and info["file"] not in valid:
                decided[str(p)] = {"file": rel, "kept_aside": f"no notebook of this assignment is named {info['file']}"}
                continue
            entry = {"file": rel, "student": student, "notebook": info["file"], "timestamp": info["timestamp"],
                     "lms": info["lms"], "late": info["late"], "order": info["order"]}
            decided[str(p)] = entry
            key = (student, info["file"])
            if key not in best or info["order"] >= decided[best[key]]["order"]:
                best[key] = str(p)
        for path, entry in decided.items():
            if "student" in entry and best[(entry["student"], entry["notebook"])] != path:
                entry["kept_aside"] = "an older submission of the same notebook (the newest counts)"
        return decided

    def collect(self, submitted_file: str) -> dict | None:
        if self._decided is None:
            self._decided = self._decide(submitted_file)
            self._write_report()
        entry = self._decided.get(submitted_file)
        if entry is None or "kept_aside" in entry:
            return None
        return {"student_id": entry["student"], "file_id": entry["notebook"] + ".ipynb",
                "timestamp": entry["timestamp"]}

    def _write_report(self) -> None:
        if self.aside:
            for path, entry in self._decided.items():
                if "kept_aside" in entry:
                    dest = Path(self.aside) / entry["file"]
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, dest)
        if self.report:
            rows = [{k: v for k, v in e.items() if k != "order"} for e in self._decided.values()]
            Path(self.report).write_text(json.dumps(rows, indent=1))


class LmsDownload(ExtractorPlugin):
    """nbgrader's extractor, opening the download itself but no archive inside it.

    nbgrader's own extractor also opens every archive found inside (``tree``): one student's damaged
    ``.zip`` would then stop the whole class's collect, and a student's archive would be unpacked
    into the download.  Here such an archive stays as it came, and is kept aside and listed."""

    def extract(self, archive_path: str, extracted_path: str) -> None:
        for zfile in sorted(Path(archive_path).glob("*.zip")):
            unzip(str(zfile), extracted_path, zip_ext=[".zip"], create_own_folder=True, tree=False)


def check_archive(path: Path) -> str | None:
    """Why ``path`` cannot be collected, or None."""
    if not path.is_file():
        return f"{path}: no such file"
    if not zipfile.is_zipfile(path):
        return f"{path} is not a zip archive (download the submissions again, as one .zip)"
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            names = z.namelist()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        return f"{path} is damaged: {exc}"
    if bad is not None:
        return f"{path} is damaged: {bad} does not read back"
    if any(n.startswith("/") or ".." in Path(n).parts for n in names):
        return f"{path} holds paths outside itself"
    return None


def entry_times(path: Path) -> dict[str, str]:
    """Each archive member's own time, as a UTC timestamp string (the LMS's submission time in its downloads)."""
    with zipfile.ZipFile(path) as z:
        return {i.filename: dt.datetime(*i.date_time).strftime("%Y-%m-%d %H:%M:%S.000000 UTC") for i in z.infolist()}


def _recorded_time(root: Path, assignment: str, student: str, folder: Path) -> tuple[str, dt.datetime | None] | None:
    """When the submission already in ``folder`` came in, by evidence a penalty may rest on
    (:mod:`autograder.times`): its text and its UTC time (None when unknown or unreadable); None when
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


def collect_command(args) -> int:
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
        roster.read(roster_path)  # a roster that cannot be read stops here, before anything is touched
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
           "--collector=autograder.collect.LmsFileNames", "--extractor=autograder.collect.LmsDownload",
           f"--ZipCollectApp.downloaded_directory={rel}",
           f"--CourseDirectory.submitted_directory={rel}/submitted",
           f"--LmsFileNames.roster={roster_path}", f"--LmsFileNames.report={report_rows}",
           f"--LmsFileNames.aside={aside}", f"--LmsFileNames.extracted={staging / assignment / 'extracted'}",
           f"--LmsFileNames.notebooks={','.join(notebooks)}"]
    out = subprocess.run(cmd, cwd=root, env=release.tool_env(), capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stdout[-2000:] + "\n" + out.stderr[-2000:]).strip()
        print(tail, file=sys.stderr)
        last = tail.splitlines()[-1] if tail else f"exit status {out.returncode}"
        raise UserError(f"nothing collected, the course is as it was: nbgrader zip_collect failed ({last}); "
                        "its output is above", 1)
    rows = json.loads(report_rows.read_text()) if report_rows.is_file() else []
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
    taken, replaced, not_taken = [], [], {}
    for folder in sorted(staged.glob(f"*/{assignment}")):
        student = folder.parent.name
        current = course.folder(root, "submitted", student, assignment)
        before = _recorded_time(root, assignment, student, current)
        new = parse_utc(arrived[student]) if arrived.get(student) else None
        if before is None:
            taken.append(student)
        elif before[1] is not None and new is not None and new < before[1]:
            not_taken[student] = f"older than the submission already collected on {before[0]}"
        elif before[1] is not None and new == before[1] and _same_files(folder, current):
            not_taken[student] = f"the same as the submission already collected on {before[0]}"
        else:
            taken.append(student)
            replaced.append({"student": student, "collected_at": before[0],
                             "kept_in": f"{dated}/replaced/{student}/{assignment}"})
    for student, why in not_taken.items():
        shutil.move(str(staged / student / assignment), str(aside / "not-taken" / student / assignment))
        for r in rows:
            if r.get("student") == student and "kept_aside" not in r:
                r["kept_aside"] = why
                r["kept_in"] = f"{dated}/not-taken/{student}/{assignment}"
    for r in rows:
        if "kept_aside" in r and "kept_in" not in r:
            r["kept_in"] = f"{dated}/{r['file']}"
    summary = {"download": str(download), "assignment": assignment, "collect": name,
               "roster": roster_path or None, "collected_at": dt.datetime.now(dt.timezone.utc).isoformat(),
               "archive": (base / "archive" / f"{name}.zip").relative_to(root).as_posix(),
               "taken": taken, "replaced": replaced, "files": rows, "kept_aside_in": dated}
    aside.mkdir(exist_ok=True)
    (aside / "collect-report.json").write_text(json.dumps(summary, indent=1))

    # everything is known: move the results into place, each move one rename
    for entry in replaced:
        journal.move(course.folder(root, "submitted", entry["student"], assignment),
                     aside / "replaced" / entry["student"] / assignment)
    for student in taken:
        journal.move(staged / student / assignment, course.folder(root, "submitted", student, assignment))
    journal.move(staged_zip, base / "archive" / f"{name}.zip")
    journal.move(aside, base / "kept-aside" / name)
    # the LMS's time for each submission now in place, kept where no learner can write (autograder.times)
    for student in taken:
        if arrived.get(student):
            times.record(root, assignment, student, course.folder(root, "submitted", student, assignment),
                         arrived[student], times.COLLECTOR)
    return summary


def _print_summary(root: Path, summary: dict) -> None:
    rows = summary["files"]
    collected = [r for r in rows if "kept_aside" not in r]
    print(f"collected {len(collected)} notebook(s) of {len(summary['taken'])} student(s) "
          f"into {course.folder(root, 'submitted').relative_to(root)}/")
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
    print(f"report: {where}/collect-report.json")
