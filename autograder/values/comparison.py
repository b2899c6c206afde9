"""The trusted comparison of a learner's observations with the reference's.

Runs in the grader's own process.  Its inputs are plain data produced by
:func:`autograder.probe.encode`; the tolerances and hints are taken from the
*reference* payload only, so a submission cannot loosen them.

The learner's payload is the adversary's data: whatever it holds, :func:`judge` returns a
verdict and never raises, and its messages quote nothing of it but numbers the judge
computed, shapes made of small integers, torch dtype names and the names of Python's own
exceptions.  Text the learner's code produced (an exception's message, a string it
returned, a type's name) could carry anything the kernel could read, hidden tests
included, so it never reaches a message a learner sees.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from autograder.values.messages import exception_name

MAX_ELEMENTS = 2_000_000


@dataclass
class Check:
    name: str
    passed: bool
    reason: str = ""
    hint: str = ""


@dataclass
class Verdict:
    exercise: str
    passed: bool
    checks: list[Check] = field(default_factory=list)
    error: str | None = None  # what stopped the hidden tests: "your function raised RuntimeError"
    where: str = ""  # where it was raised: "answer cell, line 4"
    stopped: str | None = None  # the check it stopped: the first one not reached

    def failures(self) -> list[Check]:
        """The checks that failed, but those never reached after the one the error stopped (its consequences)."""
        found, after = [], False
        for c in self.checks:
            after = after or c.name == self.stopped
            if not c.passed and (c.name == self.stopped or not (after and c.reason == "not reached")):
                found.append(c)
        return found

    def unreached(self) -> int:
        """How many checks after the stopped one were never reached."""
        return sum(not c.passed and c.reason == "not reached" for c in self.checks) - (self.stopped is not None)

    def reason(self, c: Check) -> str:
        """Why ``c`` failed, as a learner reads it: the error that stopped it, else the comparison's reason."""
        if c.name == self.stopped and self.error:
            return self.error + (f" ({self.where})" if self.where else "")
        return c.reason

    def message(self) -> str:
        """A learner-facing message: names checks and concepts, never test source or expected values."""
        if self.passed:
            return f"{self.exercise}: all {len(self.checks)} hidden checks passed"
        lines = [f"{self.exercise}: hidden tests failed"]
        if self.error and self.stopped is None:
            lines.append(f"  {self.error}" + (f" ({self.where})" if self.where else ""))
        failures = self.failures()
        for c in failures[:8]:
            line = f"  - check '{c.name}': {self.reason(c)}"
            if c.hint:
                line += f" (concept: {c.hint})"
            lines.append(line)
        more = len(failures) - 8
        if more > 0:
            lines.append(f"  ... and {more} more")
        if self.stopped is not None and self.unreached() > 0:
            lines.append(f"  ({self.unreached()} later checks not reached)")
        return "\n".join(lines)


KINDS = ("none", "bool", "int", "float", "str", "tensor", "list", "dict", "unsupported")
_DTYPE = re.compile(r"torch\.[a-z0-9]{2,16}")


def _kind(v: Any) -> str:
    return v if isinstance(v, str) and v in KINDS else "something else"


def _shape(v: Any) -> str:
    if isinstance(v, list) and len(v) <= 8 and all(type(x) is int and 0 <= x < 10**9 for x in v):
        return str(tuple(v))
    return "(malformed)"


def observed_number(v: Any) -> float:
    """A float from an observed number ('nan', 'inf' and '-inf' as strings); huge ints saturate."""
    if isinstance(v, str):
        if v not in ("nan", "inf", "-inf"):
            raise ValueError("not a number")
        return float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("not a number")
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def compare(ref: Any, got: Any, spec: dict) -> str:
    """Return '' when ``got`` matches ``ref``, else a reason (no expected values in it)."""
    if not isinstance(got, dict) or not isinstance(ref, dict):
        return "malformed observation"
    rt, gt = ref.get("t"), got.get("t")
    rtol, atol = spec.get("rtol", 0.0), spec.get("atol", 0.0)
    if rt == "unsupported":
        return "reference could not be recorded"
    if gt == "unsupported":
        return "returned an object that is not a tensor or plain value"
    if rt == "tensor":
        if gt != "tensor":
            return f"expected a tensor, got {_kind(gt)}"
        if not isinstance(got.get("shape"), list) or list(got["shape"]) != list(ref["shape"]):
            return f"shape {_shape(got.get('shape'))} is not the expected shape"
        if spec.get("check_dtype", True) and got.get("dtype") != ref["dtype"]:
            dtype = got.get("dtype")
            shown = dtype if isinstance(dtype, str) and _DTYPE.fullmatch(dtype) else "(malformed)"
            return f"dtype {shown} is not the expected dtype"
        rd, gd = ref["data"], got.get("data")
        if not isinstance(gd, list) or len(gd) != len(rd) or len(rd) > MAX_ELEMENTS:
            return "data does not match the shape"
        floating = "float" in ref["dtype"] or "bfloat" in ref["dtype"]
        worst = 0.0
        bad = 0
        for a, b in zip(gd, rd):
            try:
                fa, fb = observed_number(a), observed_number(b)
            except (TypeError, ValueError):
                return "malformed tensor data"
            # integers exactly, as integers (a float loses them past 2**53)
            ok = _close(fa, fb, rtol, atol) if floating else (type(a) is int and a == b)
            if not ok:
                bad += 1
                if math.isfinite(fa) and math.isfinite(fb):
                    worst = max(worst, abs(fa - fb))
                else:
                    worst = math.inf
        if bad:
            worst = worst if math.isfinite(worst) else math.inf
            return f"{bad} of {len(rd)} values differ (largest difference {worst:.3g}, tolerance rtol={rtol:g}, atol={atol:g})"
        return ""
    if rt == "float":
        if gt not in ("float", "int"):
            return f"expected a number, got {_kind(gt)}"
        try:
            value = observed_number(got["v"])
            if not _close(value, observed_number(ref["v"]), rtol, atol):
                return f"value {value:.6g} is not within tolerance (rtol={rtol:g}, atol={atol:g})"
        except (TypeError, ValueError, KeyError):
            return "malformed number"
        return ""
    if rt != gt:
        return f"expected a {_kind(rt)}, got {_kind(gt)}"
    if rt in ("int", "bool", "str"):
        if type(got.get("v")) is not type(ref["v"]) or got.get("v") != ref["v"]:
            v = got.get("v")
            shown = f" {v}" if type(v) is bool or (type(v) is int and abs(v) < 10**15) else ""
            return f"value{shown} is not the expected one"
        return ""
    if rt == "none":
        return ""
    if rt == "list":
        gv, rv = got.get("v"), ref["v"]
        if not isinstance(gv, list) or len(gv) != len(rv):
            return f"expected {len(rv)} items, got {len(gv) if isinstance(gv, list) else 'none'}"
        for i, (a, b) in enumerate(zip(rv, gv)):
            r = compare(a, b, spec)
            if r:
                return f"item {i}: {r}"
        return ""
    if rt == "dict":
        gv, rv = got.get("v"), ref["v"]
        if not isinstance(gv, dict) or sorted(gv) != sorted(rv):
            return "keys differ from the expected ones"
        for k in rv:
            r = compare(rv[k], gv[k], spec)
            if r:
                return f"key {k!r}: {r}"
        return ""
    return "unknown observation kind"


def judge(reference: dict | None, student: dict | None, raised: tuple[str, str] | None = None) -> Verdict:
    """Compare a student payload with the reference payload of the same exercise; ``raised``: the cause and
    place of the error the payload records, as the grader read them (:func:`autograder.values.messages.raised`),
    else the error is named alone."""
    ex = (reference or {}).get("exercise") or "?"
    if reference is None:
        return Verdict(ex, False, error="the reference solution recorded nothing (grader fault)")
    if reference.get("error"):
        return Verdict(ex, False, error=f"the reference solution failed: {reference['error']} (grader fault)")
    if not isinstance(student, dict):
        return Verdict(ex, False, error="the hidden tests did not run (the cell did not finish)")
    got_items = student.get("observations") if isinstance(student.get("observations"), list) else []
    got: dict[str, Any] = {}
    for item in got_items:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"] not in got:
            got[item["name"]] = item.get("value")
    checks = []
    for item in reference.get("observations", []):
        name, spec = item["name"], item.get("spec", {})
        if name not in got:
            checks.append(Check(name, False, "not reached", spec.get("hint", "")))
            continue
        try:
            reason = compare(item["value"], got[name], spec)
        except (RecursionError, ValueError, TypeError, OverflowError, KeyError, AttributeError, IndexError):
            reason = "malformed observation"
        checks.append(Check(name, not reason, reason, spec.get("hint", "") if reason else ""))
    error, where, stopped = student.get("error"), "", None
    if error:
        error, where = raised if raised else (f"your code raised {exception_name(error)}", "")
        stopped = next((c.name for c in checks if c.reason == "not reached"), None)
    passed = bool(checks) and all(c.passed for c in checks) and not error
    return Verdict(ex, passed, checks, error or None, where, stopped)
