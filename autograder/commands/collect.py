"""``autograder collect``: fill ``submitted/`` from an LMS bulk download, on nbgrader's ``zip_collect``.

The download is collected by nbgrader's own ``zip_collect`` with :class:`LmsFileNames`, a
collector plugin that reads the file names of the common LMS downloads and maps LMS ids to
student ids through an optional LMS roster (:mod:`autograder.adapters.roster`: a ``lms_id,student_id`` CSV or
Canvas's gradebook export):

* Canvas: ``lastfirst_[LATE_]USERID_SUBMISSIONID_NOTEBOOK[-N].ipynb`` (``-N``: a resubmission);
* Moodle: ``Full Name_PARTICIPANT_assignsubmission_file_/NOTEBOOK.ipynb`` (a folder per learner);
* Blackboard: ``ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_NOTEBOOK.ipynb``.

A learner submits only for themself.  Each download is read in one LMS's layout, the one its
entries follow (:func:`layout`), and the learner's id comes only from what that LMS itself writes:
Moodle's folder, Canvas's and Blackboard's file names at the top of the download.  A file a
learner named inside their Moodle folder (``Ann Lee_2001_assignsubmission_file_/`` holding
``smithbob_2002_999_01_tensors.ipynb``) is Ann's, whatever its name says, and its name only says
which notebook it is; a file that does not follow the download's layout at the LMS's level is kept aside.  A
file whose name is not one of the assignment's notebooks (``01_tensors (1).ipynb``, ``01_tensors-Copy1.ipynb``,
``01_Tensors.ipynb``) is taken as the notebook whose cells it carries, by the rule ``grade`` applies to a
submission folder (:func:`autograder.grading.submission.renamed_notebook`), and stored under that notebook's
name; a file whose cells are none of the assignment's notebooks is kept aside.  Every id,
from a file name or through the roster, passes :func:`autograder.adapters.roster.check_id` before it becomes
a folder or a row (one plain name, no control character, comma or formula start, NFKC form); a
file with an id that fails is kept aside with the reason.  Without a roster the LMS's own ids
(Canvas and Moodle user ids, Blackboard user names) become the student ids, and the summary
says so in a WARNING line.

The download is unpacked by :class:`LmsDownload` as plain ``0644`` files of the instructor
(never the archive's setuid, setgid or executable modes), within bounds checked on the archive's
headers before anything is touched and again on the bytes actually written: at most
``MAX_TOTAL_BYTES`` (2 GiB) unpacked, ``MAX_FILES`` (20000) files, and ``MAX_RATIO`` (200)
times the archive's own size.  A download past one of them is not collected at all
("nothing collected: ..."), and the course stays as it was.

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
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin
from nbgrader.utils import parse_utc
from traitlets import Unicode

from autograder.adapters import generate, roster, times
from autograder.grading.submission import notebook_ids, read_submission, renamed_notebook
from autograder.values import course
from autograder.values.errors import UserError

#: extraction bounds: a download larger, fuller or more compressed than these is not collected at all
MAX_TOTAL_BYTES = 2 * 1024**3
MAX_FILES = 20000
MAX_RATIO = 200

CANVAS = re.compile(r"^(?P<name>[^_/]+)_(?:(?P<late>LATE)_)?(?P<lms_id>\d+)_(?P<sub>\d+)_(?P<file>.+?)(?:-(?P<n>\d+))?\.ipynb$")
MOODLE_FOLDER = re.compile(r"^(?P<name>[^/]+?)_(?P<lms_id>\d+)_assignsubmission_file_?$")
BLACKBOARD = re.compile(r"^(?P<assignment>[^/]+?)_(?P<lms_id>[^_/]+)_attempt_"
                        r"(?P<ts>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})_(?P<file>.+?)\.ipynb$")
LAYOUTS = {"moodle": "a folder per learner, Full Name_PARTICIPANT_assignsubmission_file_/NOTEBOOK.ipynb",
           "canvas": "files at the top, lastfirst_[LATE_]USERID_SUBMISSIONID_NOTEBOOK.ipynb",
           "blackboard": "files at the top, ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_NOTEBOOK.ipynb"}
LMS_NAMES = {"moodle": "Moodle", "canvas": "Canvas", "blackboard": "Blackboard"}


def parse(relpath: str, lms: str) -> dict | None:
    """The learner id, notebook name and ordering of one file of a download in ``lms``'s layout, or None.

    ``relpath`` is the file's path inside the download.  Only the part the LMS itself writes names
    the learner: Moodle's folder (the file inside it is named by the learner, and says only which
    notebook it is), Canvas's and Blackboard's file names at the top of the download."""
    parts = relpath.replace(os.sep, "/").split("/")
    if lms == "moodle":
        folder = MOODLE_FOLDER.match(parts[0]) if len(parts) == 2 else None
        if folder is None or not parts[1].endswith(".ipynb") or parts[1] == ".ipynb":
            return None
        d = {"lms_id": folder["lms_id"], "file": parts[1][: -len(".ipynb")]}
    else:
        m = (CANVAS if lms == "canvas" else BLACKBOARD).match(parts[0]) if len(parts) == 1 else None
        if m is None:
            return None
        d = m.groupdict()
    ts = None
    if d.get("ts"):
        ts = dt.datetime.strptime(d["ts"], "%Y-%m-%d-%H-%M-%S").strftime("%Y-%m-%d %H:%M:%S.000000 UTC")
    return {"lms": lms, "lms_id": d["lms_id"], "file": d["file"], "timestamp": ts,
            "order": (ts or "", int(d.get("n") or 0), _number(d.get("sub") or "")), "late": bool(d.get("late"))}


def _number(text: str) -> tuple[int, str]:
    """An LMS's id as it orders: by number where it is one (``10001`` after ``9004``), else as text."""
    return (int(text), text) if text.isdigit() else (-1, text)


def layout(relpaths: list[str]) -> str | None:
    """Which LMS wrote the download whose files are ``relpaths``: the one whose own structure (Moodle's
    folders, Canvas's or Blackboard's top-level file names) the most files follow; None when none does.
    A learner names files only inside that structure, never at its level, and so cannot change it."""
    counts = {lms: sum(parse(r, lms) is not None for r in relpaths) for lms in LAYOUTS}
    best = max(counts, key=lambda lms: counts[lms])  # ties: Moodle's folders first, then Canvas
    return best if counts[best] else None


class LmsFileNames(FileNameCollectorPlugin):
    """nbgrader's collector plugin for LMS downloads (see the module's docstring)."""

    roster = Unicode("", help="roster CSV mapping LMS ids to student ids (see autograder.adapters.roster)").tag(config=True)
    report = Unicode("", help="JSON file that lists every file and what became of it").tag(config=True)
    aside = Unicode("", help="folder for the files that are not collected").tag(config=True)
    notebooks = Unicode("", help="the assignment's notebook names, comma-separated").tag(config=True)
    extracted = Unicode("", help="the folder zip_collect extracted the download into").tag(config=True)
    course_root = Unicode("", help="the course's folder, whose solutions/ recognise a renamed notebook by its cells"
                          ).tag(config=True)
    assignment = Unicode("", help="the assignment collected (a renamed notebook is recognised by its cells)"
                         ).tag(config=True)

    _decided: dict | None = None
    lms: str = ""

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
        ids = {}
        if self.course_root and self.assignment:
            every = notebook_ids(course.Assignment(self.assignment, Path(self.course_root)))
            ids = {nb: i for nb, i in every.items() if not valid or nb in valid}
        files = sorted(p for p in base.rglob("*") if p.is_file())
        rels = {p: p.relative_to(base).as_posix() for p in files}
        inside = {p: rel.split("/", 1)[-1] for p, rel in rels.items()}  # the path inside the download
        self.lms = layout([inside[p] for p in files]) or ""
        decided, best = {}, {}
        for p in files:
            rel = rels[p]
            if p.suffix.lower() in (".zip", ".gz", ".tgz", ".tar", ".7z", ".rar"):
                decided[str(p)] = {"file": rel, "kept_aside": "an archive inside the download (not opened: "
                                                              "look inside it by hand)"}
                continue
            if p.suffix != ".ipynb":
                decided[str(p)] = {"file": rel, "kept_aside": "not a notebook"}
                continue
            info = parse(inside[p], self.lms) if self.lms else None
            if info is None:
                why = (f"the file name follows no known LMS pattern at the level that LMS writes (this download "
                       f"is {LMS_NAMES[self.lms]}'s: {LAYOUTS[self.lms]})" if self.lms
                       else "the file name follows no known LMS pattern")
                decided[str(p)] = {"file": rel, "kept_aside": why}
                continue
            bad = roster.check_id(info["lms_id"])
            if bad:
                decided[str(p)] = {"file": rel, "kept_aside": f"LMS id {info['lms_id']!r} cannot be used: {bad}"}
                continue
            student = students.get(info["lms_id"]) if students is not None else info["lms_id"]
            if student is None:
                decided[str(p)] = {"file": rel, "kept_aside": f"LMS id {info['lms_id']} is not in the roster"}
                continue
            bad = roster.check_id(student)
            if bad:
                decided[str(p)] = {"file": rel, "kept_aside": f"{student!r} cannot be a student id: {bad}"}
                continue
            notebook, renamed = info["file"], None
            if valid and notebook not in valid:
                notebook = renamed_notebook(p, ids) if ids else None
                if notebook is None:
                    decided[str(p)] = {"file": rel, "kept_aside": _not_recognised(p, info["file"])}
                    continue
                renamed = info["file"]
            entry = {"file": rel, "student": student, "notebook": notebook, "timestamp": info["timestamp"],
                     "lms": info["lms"], "late": info["late"], "order": info["order"],
                     "rank": (info["order"], renamed is None)}  # at one time: the file named after it, as in grade
            if renamed is not None:
                entry["renamed"] = renamed
            else:
                problem = _unreadable(p)
                if problem:
                    entry["unreadable"] = problem
            decided[str(p)] = entry
            key = (student, notebook)
            if key not in best or entry["rank"] >= decided[best[key]]["rank"]:
                best[key] = str(p)
        for path, entry in decided.items():
            if "student" not in entry or best[(entry["student"], entry["notebook"])] == path:
                continue
            taken = decided[best[(entry["student"], entry["notebook"])]]
            entry["kept_aside"] = ("an older submission of the same notebook (the newest counts)"
                                   if entry["order"] < taken["order"] else
                                   f"another file of {entry['notebook']}.ipynb in the same submission is taken: "
                                   f"{taken['file']}")
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
            rows = [{k: v for k, v in e.items() if k not in ("order", "rank")} for e in self._decided.values()]
            Path(self.report).write_text(json.dumps({"lms": self.lms or None, "files": rows}, indent=1))


def _unreadable(path: Path) -> str | None:
    """Why a file does not read as a notebook, as ``grade`` reads it (``could not be read (...)``,
    ``has no cell list``, ...), on one line; None when it reads."""
    problem = read_submission(path).problem
    return " ".join(problem.removeprefix("the submitted notebook ").split()) if problem else None


def _not_recognised(path: Path, name: str) -> str:
    """Why a file of the download named ``name`` is none of the assignment's notebooks."""
    problem = _unreadable(path)
    if problem:
        return (f"no notebook of this assignment is named {name}, and it does not read as a notebook: "
                f"it {problem}")
    return f"no notebook of this assignment is named {name}, and its cells are not those of one of its notebooks"


class LmsDownload(ExtractorPlugin):
    """nbgrader's extractor, opening the download itself but no archive inside it, within bounds.

    nbgrader's own extractor also opens every archive found inside (``tree``): one student's damaged
    ``.zip`` would then stop the whole class's collect, and a student's archive would be unpacked
    into the download.  Here such an archive stays as it came, and is kept aside and listed.  Every
    file is written as a plain ``0644`` file of this user (never the archive's modes: no setuid,
    setgid or executable bit), and the bounds of :func:`bounds` hold for the bytes actually written,
    whatever the archive's headers claim."""

    def extract(self, archive_path: str, extracted_path: str) -> None:
        for zfile in sorted(Path(archive_path).glob("*.zip")):
            extract(zfile, Path(extracted_path) / zfile.stem)


def bounds(infos: list[zipfile.ZipInfo], archive_size: int) -> str | None:
    """Why an archive with these members is too big to extract (see the module's docstring), or None."""
    files = [i for i in infos if not i.is_dir()]
    total = sum(i.file_size for i in files)
    if len(files) > MAX_FILES:
        return f"it holds {len(files)} files, more than the {MAX_FILES} a download may hold"
    if total > MAX_TOTAL_BYTES:
        return f"it unpacks to {total} bytes, more than the {MAX_TOTAL_BYTES} a download may unpack to"
    if total > MAX_RATIO * max(archive_size, 1):
        return (f"it unpacks to {total} bytes from {archive_size}, more than {MAX_RATIO} times its size "
                "(a zip bomb, or not an LMS download)")
    return None


def extract(archive: Path, dest: Path) -> None:
    """Unpack ``archive`` into ``dest``: plain 0644 files and 0755 folders, within the bounds."""
    size = archive.stat().st_size
    limit = min(MAX_TOTAL_BYTES, MAX_RATIO * max(size, 1))
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    written = 0
    with zipfile.ZipFile(archive) as z:
        infos = z.infolist()
        problem = bounds(infos, size)
        if problem:
            raise ValueError(f"nothing collected: {archive.name}: {problem}")
        for info in infos:
            target = (root / info.filename).resolve()
            if target == root or root not in target.parents:
                raise ValueError(f"nothing collected: {archive.name} holds a path outside itself: {info.filename}")
            if info.is_dir():
                target.mkdir(mode=0o755, parents=True, exist_ok=True)
                continue
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
            with os.fdopen(fd, "wb") as out, z.open(info) as src:
                os.fchmod(out.fileno(), 0o644)  # whatever the umask or an earlier file of that name
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    if written > limit:
                        raise ValueError(f"nothing collected: {archive.name} unpacks to more than {limit} bytes "
                                         f"(at most {MAX_TOTAL_BYTES}, and {MAX_RATIO} times its size)")
                    out.write(chunk)


def check_archive(path: Path) -> str | None:
    """Why ``path`` cannot be collected, or None."""
    if not path.is_file():
        return f"{path}: no such file"
    if not zipfile.is_zipfile(path):
        return f"{path} is not a zip archive (download the submissions again, as one .zip)"
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            too_big = bounds(z.infolist(), path.stat().st_size)
            if too_big:
                return f"{path}: {too_big}"
            bad = z.testzip()
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
           "--collector=autograder.commands.collect.LmsFileNames", "--extractor=autograder.commands.collect.LmsDownload",
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
