"""The LMS bulk downloads: which LMS wrote a download and whose each file is, and unpacking one within bounds.

nbgrader's ``zip_collect`` takes two plugins, one to unpack a download and one to say whose each file is;
:class:`LmsDownload` and :class:`LmsFileNames` are the course's (``autograder collect`` sets them), for the
file names of the common LMS downloads:

* Canvas: ``lastfirst_[LATE_]USERID_SUBMISSIONID_NOTEBOOK[-N].ipynb`` (``-N``: a resubmission);
* Moodle: ``Full Name_PARTICIPANT_assignsubmission_file_/NOTEBOOK.ipynb`` (a folder per learner);
* Blackboard: ``ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_NOTEBOOK.ipynb``.

A learner submits only for themself.  Each download is read in one LMS's layout, the one its entries follow
(:func:`layout`), and the learner's id comes only from what that LMS itself writes: Moodle's folder, Canvas's
and Blackboard's file names at the top of the download (:func:`parse`); LMS ids become student ids through an
optional LMS roster (:mod:`autograder.adapters.lms_roster`), and every id passes
:func:`autograder.adapters.lms_roster.check_id`.  A file whose name is not one of the assignment's notebooks is
taken as the notebook whose cells it carries (:func:`autograder.adapters.submitted.renamed_notebook`).

A download is unpacked as plain ``0644`` files of the instructor (never the archive's setuid, setgid or
executable modes), within bounds checked on the archive's headers before anything is touched
(:func:`bounds`, :func:`check_archive`) and again on the bytes actually written (:func:`extract`): at most
:data:`MAX_TOTAL_BYTES` unpacked, :data:`MAX_FILES` files, and :data:`MAX_RATIO` times the archive's own size.
What the collect does with what these say (staging, newest wins, what is kept aside) is
:mod:`autograder.commands.collect`'s.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import zipfile
from pathlib import Path

from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin
from traitlets import Unicode

from autograder.adapters import lms_roster
from autograder.adapters.submitted import notebook_ids, renamed_notebook
from autograder.grading.steps.read import read_submission
from autograder.values import course

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

    roster = Unicode("", help="roster CSV mapping LMS ids to student ids (see autograder.adapters.lms_roster)").tag(config=True)
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
        students = lms_roster.read(self.roster).student_of if self.roster else None
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
            bad = lms_roster.check_id(info["lms_id"])
            if bad:
                decided[str(p)] = {"file": rel, "kept_aside": f"LMS id {info['lms_id']!r} cannot be used: {bad}"}
                continue
            student = students.get(info["lms_id"]) if students is not None else info["lms_id"]
            if student is None:
                decided[str(p)] = {"file": rel, "kept_aside": f"LMS id {info['lms_id']} is not in the roster"}
                continue
            bad = lms_roster.check_id(student)
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
