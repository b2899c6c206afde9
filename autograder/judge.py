"""The trusted comparison of a learner's observations with the reference's.

Runs in the grader's own process.  Its inputs are plain data produced by
:func:`autograder.probe.encode`; the tolerances and hints are taken from the
*reference* payload only, so a submission cannot loosen them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

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
    error: str | None = None

    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def message(self) -> str:
        """A learner-facing message: names checks and concepts, never test source or expected values."""
        if self.passed:
            return f"{self.exercise}: all {len(self.checks)} hidden checks passed"
        lines = [f"{self.exercise}: hidden tests failed"]
        if self.error:
            lines.append(f"  your code raised {self.error}")
        for c in self.failures()[:8]:
            line = f"  - check '{c.name}': {c.reason}"
            if c.hint:
                line += f" (concept: {c.hint})"
            lines.append(line)
        more = len(self.failures()) - 8
        if more > 0:
            lines.append(f"  ... and {more} more")
        return "\n".join(lines)


def _float(v: Any) -> float:
    if isinstance(v, str):
        return float(v)  # 'nan', 'inf', '-inf'
    return float(v)


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
        return f"returned an object of type {str(got.get('type'))[:60]!r}, which is not a tensor or plain value"
    if rt == "tensor":
        if gt != "tensor":
            return f"expected a tensor, got {gt}"
        if list(got.get("shape", [])) != list(ref["shape"]):
            return f"shape {tuple(got.get('shape', []))} is not the expected shape"
        if spec.get("check_dtype", True) and got.get("dtype") != ref["dtype"]:
            return f"dtype {got.get('dtype')} is not the expected dtype"
        rd, gd = ref["data"], got.get("data")
        if not isinstance(gd, list) or len(gd) != len(rd) or len(rd) > MAX_ELEMENTS:
            return "data does not match the shape"
        floating = "float" in ref["dtype"] or "bfloat" in ref["dtype"]
        worst = 0.0
        bad = 0
        for a, b in zip(gd, rd):
            try:
                fa, fb = _float(a), _float(b)
            except (TypeError, ValueError):
                return "malformed tensor data"
            ok = _close(fa, fb, rtol, atol) if floating else fa == fb
            if not ok:
                bad += 1
                if math.isfinite(fa) and math.isfinite(fb):
                    worst = max(worst, abs(fa - fb))
                else:
                    worst = math.inf
        if bad:
            return f"{bad} of {len(rd)} values differ (largest difference {worst:.3g}, tolerance rtol={rtol:g}, atol={atol:g})"
        return ""
    if rt == "float":
        if gt not in ("float", "int"):
            return f"expected a number, got {gt}"
        try:
            if not _close(_float(got["v"]), _float(ref["v"]), rtol, atol):
                return f"value {got['v']!r} is not within tolerance (rtol={rtol:g}, atol={atol:g})"
        except (TypeError, ValueError, KeyError):
            return "malformed number"
        return ""
    if rt != gt:
        return f"expected a {rt}, got {gt}"
    if rt in ("int", "bool", "str"):
        if type(got.get("v")) is not type(ref["v"]) or got.get("v") != ref["v"]:
            shown = repr(got.get("v"))
            return f"value {shown[:60]} is not the expected one"
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


def judge(reference: dict | None, student: dict | None, exercise: str | None = None) -> Verdict:
    """Compare a student payload with the reference payload of the same exercise."""
    ex = exercise or (reference or {}).get("exercise") or "?"
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
        reason = compare(item["value"], got[name], spec)
        checks.append(Check(name, not reason, reason, spec.get("hint", "") if reason else ""))
    error = student.get("error")
    error = str(error)[:500] if error else None
    passed = bool(checks) and all(c.passed for c in checks) and not error
    return Verdict(ex, passed, checks, error)
