"""What a graded run's outputs may hold once they leave the kernel.

Everything a learner's kernel prints is data from the adversary.  It has to be stored
(``autograded/``, the result cache), rendered for the instructor (the formgrader, feedback
HTML) and must never stop the batch.  This module turns an executed notebook into one that

* always serialises: strings without lone surrogates or NULs, numbers that JSON and
  Python's int-to-string limit accept, bounded nesting, string keys;
* carries no active content: only plain text, PNG and JPEG outputs are kept (HTML,
  JavaScript, SVG, Markdown, LaTeX and widget views are dropped, leaving their plain-text
  form), output metadata is dropped, and learner-written Markdown is shown as text;
* is bounded in size: a total output budget per notebook, on top of the per-cell one
  applied while it runs (:mod:`autograder.grading.execute`).
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import math

import nbformat

SAFE_MIME = ("text/plain", "image/png", "image/jpeg")
MAX_DEPTH = 32
MAX_INT_DIGITS = 400
MAX_STRING = 4 << 20


def safe_text(text: object, limit: int = MAX_STRING) -> str:
    """A string that encodes as UTF-8 and JSON: lone surrogates and NUL become U+FFFD."""
    if not isinstance(text, str):
        text = str(text) if isinstance(text, (int, float, bool)) else repr(type(text))
    if len(text) > limit:
        text = text[:limit] + "\n... (cut)"
    text = text.encode("utf-8", "replace").decode("utf-8", "replace") if _has_surrogate(text) else text
    return text.replace("\x00", "\ufffd")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def json_safe(value: object, depth: int = 0) -> object:
    """A copy of ``value`` made of JSON types only, each of which serialises."""
    if depth > MAX_DEPTH:
        return "(nested too deep)"
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) < 10 ** MAX_INT_DIGITS else "(integer too large)"
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, (list, tuple)):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {safe_text(k, 200): json_safe(v, depth + 1) for k, v in value.items()}
    return safe_text(repr(type(value)))


def too_deep(value: object, limit: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` deep (without recursing)."""
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return False


def _lines(value: object) -> str:
    if isinstance(value, list):
        return "".join(safe_text(v) for v in value if isinstance(v, str))
    return safe_text(value) if isinstance(value, str) else ""


def _image(data: object) -> str | None:
    text = _lines(data).strip()
    try:
        base64.b64decode(text.replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return None
    return text


def clean_bundle(data: object) -> dict:
    """Only the safe MIME types of a display bundle; a note where active content was dropped."""
    data = data if isinstance(data, dict) else {}
    out: dict = {}
    for mime in SAFE_MIME:
        if mime in data:
            value = _lines(data[mime]) if mime == "text/plain" else _image(data[mime])
            if value is not None:
                out[mime] = value
    dropped = sorted(str(k)[:60] for k in data if k not in out)
    if not out:
        out["text/plain"] = f"[output of type {', '.join(dropped) or 'unknown'} not kept: active content]"
    return out


def clean_output(out: object) -> dict | None:
    """One output in a form that serialises and renders inertly, or None for a malformed one."""
    if not isinstance(out, dict):
        return None
    kind = out.get("output_type")
    if kind == "stream":
        name = out.get("name") if out.get("name") in ("stdout", "stderr") else "stdout"
        return nbformat.v4.new_output("stream", name=name, text=_lines(out.get("text")))
    if kind in ("display_data", "execute_result"):
        return nbformat.v4.new_output("display_data", data=clean_bundle(out.get("data")))
    if kind == "error":
        tb = out.get("traceback") if isinstance(out.get("traceback"), list) else []
        return nbformat.v4.new_output("error", ename=safe_text(out.get("ename", "Error"), 200),
                                      evalue=safe_text(out.get("evalue", ""), 4000),
                                      traceback=[safe_text(t, 20000) for t in tb[:200]])
    return None


def size(out: dict) -> int:
    return len(json.dumps(out))


def clean_notebook(nb: nbformat.NotebookNode, max_total_bytes: int) -> nbformat.NotebookNode:
    """``nb`` with every output cleaned, and no more than ``max_total_bytes`` of them in all."""
    used = 0
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        kept = []
        for out in cell.get("outputs") or []:
            clean = clean_output(out)
            if clean is None:
                continue
            n = size(clean)
            if used + n > max_total_bytes:
                kept.append(nbformat.v4.new_output(
                    "stream", name="stdout",
                    text=f"[output dropped: the notebook's outputs passed {max_total_bytes >> 10} KiB]\n"))
                break
            used += n
            kept.append(clean)
        cell.outputs = kept
    return nb


def inert_markdown(source: str) -> str:
    """Learner-written Markdown shown as text: no HTML, no script, whatever it holds."""
    return html.escape(safe_text(source), quote=False)
