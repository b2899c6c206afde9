"""The one rule for files written for people (:func:`autograder.values.files.write_for_people`), on its own."""

from __future__ import annotations

import os

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


@pytest.mark.skipif(os.geteuid() != 0, reason="a link made by another account: needs root to make one")
def test_a_page_is_never_written_through_a_folder_link_another_account_made(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "reports").symlink_to(elsewhere)
    os.lchown(tmp_path / "reports", 54321, 54321)  # a student's link, where a page is written
    with pytest.raises(files.UserError, match="a link another account made"):
        files.write_for_people(tmp_path / "reports" / "01.html", "page", tmp_path)
    assert not list(elsewhere.iterdir())
    os.lchown(tmp_path / "reports", 0, 0)  # the instructor's own link is theirs to follow
    assert files.write_for_people(tmp_path / "reports" / "01.html", "page", tmp_path) is None
    assert (elsewhere / "01.html").read_text() == "page"
