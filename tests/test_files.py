"""The one rule for files written for people (:func:`autograder.values.files.write_for_people`), on its own."""

from __future__ import annotations

import pytest

from autograder.values import files


def test_its_own_file_is_replaced_a_persons_is_kept_and_a_failed_write_leaves_all_as_it_was(tmp_path, monkeypatch):
    page = tmp_path / "reports" / "01.html"
    assert files.write_for_people(page, "one", tmp_path) is None
    assert files.write_for_people(page, "two", tmp_path) is None and page.read_text() == "two"
    page.write_text("my notes")
    aside = files.write_for_people(page, "three", tmp_path)
    assert aside is not None and aside.read_text() == "my notes" and page.read_text() == "three"

    page.write_text("my notes again")
    real = files.write_atomic

    def full_disk(path, data):
        if path == page:
            raise OSError(28, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(files, "write_atomic", full_disk)
    with pytest.raises(OSError):
        files.write_for_people(page, "four", tmp_path)
    assert page.read_text() == "my notes again"
    assert sorted(p.name for p in page.parent.iterdir()) == sorted([page.name, aside.name])
