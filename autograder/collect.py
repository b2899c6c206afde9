"""``autograder collect``: fill ``submitted/`` from an LMS bulk download, on nbgrader's ``zip_collect``.

The download is checked first (a malformed archive changes nothing), copied to nbgrader's
``downloaded/ASSIGNMENT/archive/`` and collected by nbgrader's own ``zip_collect`` with
:class:`LmsFileNames`, a collector plugin that reads the file names of the common LMS
downloads and maps LMS ids to student ids through an optional roster:

* Canvas: ``lastfirst_[LATE_]USERID_SUBMISSIONID_NOTEBOOK[-N].ipynb`` (``-N``: a resubmission);
* Moodle: ``Full Name_PARTICIPANT_assignsubmission_file_/NOTEBOOK.ipynb`` (a folder per learner);
* Blackboard: ``ASSIGNMENT_USERNAME_attempt_YYYY-MM-DD-HH-MM-SS_NOTEBOOK.ipynb``.

Nothing is dropped silently: a file that is not a notebook, a name no pattern reads, an id
the roster lacks, a notebook of another name, or an older duplicate is copied to
``downloaded/ASSIGNMENT/kept-aside/`` and listed with its reason.  Each collected submission
gets ``.collected_at``: the LMS's own time for it where the download carries one (Blackboard's
attempt time, else the archive entry's time), which grading records as the collector's time.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from nbgrader.plugins import FileNameCollectorPlugin
from traitlets import Unicode

from . import course, release
from .submission import COLLECTED_AT

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


def read_roster(path: str | None) -> dict[str, str] | None:
    """LMS id -> student id, from a CSV with the columns ``lms_id`` and ``student_id``."""
    if not path:
        return None
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and not {"lms_id", "student_id"} <= set(rows[0]):
        raise SystemExit(f"{path}: the roster needs the columns lms_id and student_id")
    return {r["lms_id"].strip(): r["student_id"].strip() for r in rows if r.get("lms_id")}


class LmsFileNames(FileNameCollectorPlugin):
    """nbgrader's collector plugin for LMS downloads (see the module's docstring)."""

    roster = Unicode("", help="CSV mapping LMS ids to student ids (columns lms_id, student_id)").tag(config=True)
    report = Unicode("", help="JSON file that lists every file and what became of it").tag(config=True)
    aside = Unicode("", help="folder for the files that are not collected").tag(config=True)
    notebooks = Unicode("", help="the assignment's notebook names, comma-separated").tag(config=True)

    _decided: dict | None = None

    def _decide(self, any_file: str) -> dict:
        """Read every extracted file once: who is who, and which duplicate is the newest."""
        top = Path(any_file)
        while top.parent.name != "extracted" and top.parent != top:
            top = top.parent
        base = top.parent
        roster = read_roster(self.roster or None)
        valid = set(filter(None, self.notebooks.split(",")))
        decided, best = {}, {}
        for p in sorted(base.rglob("*")):
            if not p.is_file():
                continue
            rel = str(p.relative_to(base))
            info = parse(rel)
            if p.suffix != ".ipynb":
                decided[str(p)] = {"file": rel, "kept_aside": "not a notebook"}
                continue
            if info is None:
                decided[str(p)] = {"file": rel, "kept_aside": "the file name follows no known LMS pattern"}
                continue
            student = roster.get(info["lms_id"]) if roster is not None else info["lms_id"]
            if student is None:
                decided[str(p)] = {"file": rel, "kept_aside": f"LMS id {info['lms_id']} is not in the roster"}
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
            rows = [{k: v for k, v in e.items() if k != "order"} | {"path": p} for p, e in self._decided.items()]
            Path(self.report).write_text(json.dumps(rows, indent=1))


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


def collect_command(args) -> int:
    root = course.find_root()
    download = Path(args.download).resolve()
    problem = check_archive(download)
    if problem:
        print(f"nothing collected: {problem}", file=sys.stderr)
        return 2
    assignment = course.Assignment(args.assignment, root)
    if not assignment.solution_dir.is_dir():
        print(f"unknown assignment {args.assignment!r}", file=sys.stderr)
        return 2
    base = root / course.config(root).ZipCollectApp.get("downloaded_directory", "downloaded") / args.assignment
    shutil.rmtree(base / "archive", ignore_errors=True)
    shutil.rmtree(base / "kept-aside", ignore_errors=True)
    (base / "archive").mkdir(parents=True)
    shutil.copy(download, base / "archive" / download.name)
    report = base / "collect-report.json"
    report.unlink(missing_ok=True)
    roster = str(Path(args.roster).resolve()) if args.roster else ""
    if roster:
        read_roster(roster)  # a malformed roster stops here, before anything moves
    cmd = [str(Path(sys.executable).parent / "nbgrader"), "zip_collect", args.assignment, "--force",
           "--collector=autograder.collect.LmsFileNames",
           f"--LmsFileNames.roster={roster}", f"--LmsFileNames.report={report}",
           f"--LmsFileNames.aside={base / 'kept-aside'}",
           f"--LmsFileNames.notebooks={','.join(assignment.notebooks())}"]
    out = subprocess.run(cmd, cwd=root, env=release.tool_env(), capture_output=True, text=True)
    if out.returncode != 0:
        print(f"nbgrader zip_collect failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}", file=sys.stderr)
        return 1
    rows = json.loads(report.read_text()) if report.is_file() else []
    times = entry_times(download)
    collected = [r for r in rows if "kept_aside" not in r]
    for r in collected:
        folder = course.folder(root, "submitted", r["student"], args.assignment)
        member = next((m for m in times if m.endswith(r["file"].split("/", 1)[-1])), None)
        when = r.get("timestamp") or (times[member] if member else None)
        if when and folder.is_dir():
            (folder / COLLECTED_AT).write_text(when)
    print(f"collected {len(collected)} notebook(s) of {len({r['student'] for r in collected})} student(s) "
          f"into {course.folder(root, 'submitted').relative_to(root)}/")
    aside = [r for r in rows if "kept_aside" in r]
    if aside:
        print(f"kept aside in {(base / 'kept-aside').relative_to(root)}/ ({len(aside)}):")
        for r in aside:
            print(f"  {r['file']}: {r['kept_aside']}")
    return 0
