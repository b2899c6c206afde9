"""The one digest that names content (a submission, a solution, a cell, a set of inputs): SHA-256, in hex."""

from __future__ import annotations

import hashlib


def sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()
