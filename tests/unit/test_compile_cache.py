"""The compile cache a reference run leaves: each graded run gets a private copy, links left out."""

from pathlib import Path

from autograder.grading import workfolder


def test_each_run_gets_a_private_copy_without_links(tmp_path):
    store = tmp_path / "store"
    (store / "inductor" / "ab").mkdir(parents=True)
    (store / "inductor" / "ab" / "kernel.py").write_text("compiled")
    (store / "inductor" / "link").symlink_to("/etc/passwd")
    work = tmp_path / "work"
    work.mkdir()
    (work / workfolder.COMPILE_CACHE).mkdir()
    (work / workfolder.COMPILE_CACHE / "planted-by-the-submission").write_text("x")
    workfolder.seed_compile_cache(work, store)
    copy = work / workfolder.COMPILE_CACHE
    assert (copy / "inductor" / "ab" / "kernel.py").read_text() == "compiled"
    assert not (copy / "inductor" / "link").exists() and not (copy / "inductor" / "link").is_symlink()
    assert not (copy / "planted-by-the-submission").exists()
    (copy / "inductor" / "ab" / "kernel.py").write_text("poisoned")
    assert (store / "inductor" / "ab" / "kernel.py").read_text() == "compiled"
    env = workfolder.compile_cache_env(work)
    assert env["TORCHINDUCTOR_CACHE_DIR"].startswith(str(copy)) and env["TRITON_CACHE_DIR"].startswith(str(copy))


def test_no_store_means_an_empty_cache(tmp_path):
    workfolder.seed_compile_cache(tmp_path, None)
    assert not (tmp_path / workfolder.COMPILE_CACHE).exists()
    workfolder.seed_compile_cache(tmp_path, Path(tmp_path / "missing"))
    assert not (tmp_path / workfolder.COMPILE_CACHE).exists()


def test_the_reference_keeps_its_cache_whole_or_not_at_all(tmp_path, monkeypatch):
    """The store is replaced at once by what the reference's run made, links left out; a copy that fails
    leaves the store as it was, with nothing half-copied beside it."""
    import pytest

    store = tmp_path / "compile" / "nb-abc"
    (store / "inductor").mkdir(parents=True)
    (store / "inductor" / "old.py").write_text("old")
    work = tmp_path / "work"
    made = work / workfolder.COMPILE_CACHE / "inductor"
    made.mkdir(parents=True)
    (made / "new.py").write_text("new")
    (made / "link").symlink_to("/etc/passwd")
    workfolder.keep_compile_cache(work, store)
    assert sorted(p.name for p in (store / "inductor").iterdir()) == ["new.py"]
    assert sorted(p.name for p in store.parent.iterdir()) == ["nb-abc"]

    (made / "newer.py").write_text("newer")

    def full_disk(src, dest, **kw):
        Path(dest).mkdir()
        (Path(dest) / "half").write_text("x")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(workfolder.shutil, "copytree", full_disk)
    with pytest.raises(OSError):
        workfolder.keep_compile_cache(work, store)
    assert sorted(p.name for p in (store / "inductor").iterdir()) == ["new.py"]
    assert sorted(p.name for p in store.parent.iterdir()) == ["nb-abc"]


def test_a_store_that_cannot_be_put_back_is_kept_beside_it(tmp_path, monkeypatch):
    """Where the new cache cannot take the store's place and the earlier store cannot go back either, the
    earlier store stays beside it, under this process's name: nothing is removed that is not replaced."""
    import os

    import pytest

    store = tmp_path / "compile" / "nb-abc"
    (store / "inductor").mkdir(parents=True)
    (store / "inductor" / "old.py").write_text("old")
    work = tmp_path / "work"
    (work / workfolder.COMPILE_CACHE / "inductor").mkdir(parents=True)
    (work / workfolder.COMPILE_CACHE / "inductor" / "new.py").write_text("new")
    real_replace = os.replace

    def stuck(src, dest):
        if Path(dest) == store:
            raise OSError(5, "Input/output error")
        real_replace(src, dest)

    monkeypatch.setattr(workfolder.os, "replace", stuck)
    with pytest.raises(OSError):
        workfolder.keep_compile_cache(work, store)
    monkeypatch.setattr(workfolder.os, "replace", real_replace)
    kept = store.with_name(f"{store.name}.{os.getpid()}.old")
    assert sorted(p.name for p in store.parent.iterdir()) == [kept.name]
    assert (kept / "inductor" / "old.py").read_text() == "old"
