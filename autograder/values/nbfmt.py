"""Keep committed notebooks diff-friendly: no outputs, stable ids and metadata."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import nbformat

KEEP_CELL_METADATA = ("nbgrader", "tags")
NOTEBOOK_METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}
_ID_RE = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def normalize(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb.nbformat, nb.nbformat_minor = 4, 5
    own = (nb.metadata.get("autograder") or {}) if isinstance(nb.metadata.get("autograder"), dict) else {}
    nb.metadata = nbformat.from_dict(NOTEBOOK_METADATA)
    if "support_files" in own:  # the files the notebook ships with (autograder.values.support)
        nb.metadata["autograder"] = {"support_files": own["support_files"]}
    seen: set[str] = set()
    for i, cell in enumerate(nb.cells):
        own_cell = cell.metadata.get("autograder") if isinstance(cell.metadata.get("autograder"), dict) else {}
        cell.metadata = nbformat.from_dict({k: cell.metadata[k] for k in KEEP_CELL_METADATA if k in cell.metadata})
        # a variant cell's parameters (autograder.values.variants), an answer cell's planted bugs
        kept = {k: own_cell[k] for k in ("variant", "plant") if k in own_cell}
        if kept:
            cell.metadata["autograder"] = kept
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        if "attachments" in cell and not cell.attachments:
            del cell["attachments"]
        src = cell.source.rstrip("\n") if isinstance(cell.source, str) else "".join(cell.source).rstrip("\n")
        cell.source = src
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        cid = cell.get("id")
        if gid and _ID_RE.match(gid):
            cid = gid
        if not cid or not _ID_RE.match(cid) or cid in seen:
            base = hashlib.sha1(f"{i}:{src}".encode()).hexdigest()[:8]
            cid = f"cell-{base}"
            while cid in seen:
                cid = f"cell-{hashlib.sha1(cid.encode()).hexdigest()[:8]}"
        cell.id = cid
        seen.add(cid)
    return nb


def dumps(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb, version=4) + "\n"


def format_file(path: os.PathLike, check: bool = False) -> bool:
    """Normalize a notebook in place; with ``check``, only report whether it would change."""
    path = Path(path)
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    after = dumps(normalize(nb))
    if after == before:
        return False
    if not check:
        path.write_text(after, encoding="utf-8")
    return True
