"""The package's zones hold: each module imports only its own zone and the zones its zone's ``__init__``
lists in ``MAY_IMPORT``, and a learner's kernel imports the kernel side (and the values it reads) alone.

The rules live in the zones themselves (``autograder/ZONE/__init__.py``); this test reads them from there
and every import statement of every module, function-level ones included.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import autograder

PKG = Path(autograder.PACKAGE_DIR)
ZONES = sorted(p.parent.name for p in PKG.glob("*/__init__.py"))
TOP = {"__init__", "__main__", "cli"}  # the package's front: may import any zone


def zone_rule(zone: str) -> tuple[str, ...]:
    tree = ast.parse((PKG / zone / "__init__.py").read_text())
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "MAY_IMPORT":
            return tuple(ast.literal_eval(node.value))
    raise AssertionError(f"autograder/{zone}/__init__.py states no MAY_IMPORT")


def module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every ``autograder`` module a file imports, wherever the import statement stands."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "autograder"}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import (the zones import each other by full name)"
            if (node.module or "").split(".")[0] == "autograder":
                out.add(node.module)
    return out


def zone_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ZONES else "top"


def test_the_zones_are_the_package_folders_and_each_states_its_rule():
    assert set(ZONES) == {"values", "probe", "sandbox", "gradepath", "adapters", "grading", "hub", "commands"}
    loose = sorted(p.name for p in PKG.glob("*.py") if p.stem not in TOP)
    assert not loose, f"modules outside every zone: {loose}"
    for zone in ZONES:
        assert ast.get_docstring(ast.parse((PKG / zone / "__init__.py").read_text())), zone
        assert set(zone_rule(zone)) <= set(ZONES) - {zone}, zone


def test_every_module_imports_only_what_its_zone_may():
    wrong = []
    for path in sorted(PKG.rglob("*.py")):
        me = module_name(path)
        zone = zone_of(me)
        if zone == "top":
            continue
        allowed = {zone, *zone_rule(zone)}
        for dep in sorted(imported(path)):
            if dep != "autograder" and zone_of(dep) not in allowed:
                wrong.append(f"{me} imports {dep} ({zone} may import {', '.join(sorted(allowed))})")
    assert not wrong, "\n".join(wrong)


def test_the_kernel_side_imports_nothing_of_the_grader():
    assert zone_rule("probe") == ("values",)
    assert zone_rule("values") == ()


KERNEL = r"""
import json, sys
import autograder.probe.kernelinit
from autograder.probe import Observations, device_verdict, hidden_test, verdict_of
from autograder.probe import statedigest, devicerules, local_reference
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "autograder")))
"""


def test_what_a_kernel_imports_is_the_kernel_side_and_the_values_it_reads():
    """Run in a fresh interpreter as a kernel starts (its first import, then every kernel-side module)."""
    out = subprocess.run([sys.executable, "-c", KERNEL], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    assert "autograder.probe.kernelinit" in loaded
    outside = [m for m in loaded if zone_of(m) not in ("probe", "values") and m != "autograder"]
    assert not outside, outside


@pytest.mark.parametrize("zone", ["values", "probe", "sandbox"])
def test_a_low_zone_loads_no_higher_zone_when_imported(zone):
    """The rule holds at run time too: importing every module of a low zone loads none of the zones above it."""
    mods = [module_name(p) for p in sorted((PKG / zone).rglob("*.py")) if p.stem != "zygote"]
    code = ("import json, sys\n" + "".join(f"import {m}\n" for m in mods) +
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'autograder')))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    allowed = {zone, *zone_rule(zone)}
    assert not [m for m in loaded if m != "autograder" and zone_of(m) not in allowed]


def test_an_installed_copy_holds_every_zone():
    """A plain ``pip install .`` (a conda environment, a student pack) must ship the zones, not just the package
    folder: the build finds ``autograder`` and every subpackage."""
    import tomllib

    config = tomllib.loads((PKG.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert isinstance(config["packages"], dict), "a fixed package list leaves the zones out of a built copy"
    include = config["packages"]["find"]["include"]
    assert "autograder" in include and "autograder.*" in include
