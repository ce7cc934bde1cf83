"""An export to a benchmark's own files is all or nothing (exporting.write_staged).

A NesTools export writes two files; before, a failure on the second (a folder of its name in
the way, a full disk, a cancel) left the first one written over the previous export, and the
OSError reached the CLI as a traceback. Each test asserts on the export folder's bytes."""

from __future__ import annotations

import json
import os
import stat

import pytest

from reviewer.errors import OutputError
from reviewer.jobs import Cancelled, JobContext
from reviewer.store import exporting
from tests.store import records as R


def _snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def nestools(store, tmp_path):
    data = R.nestools_like(tmp_path / "src", 30)
    store.import_dataset(data, format="nestools", name="nt")
    return data


def test_a_cancel_midway_leaves_the_previous_export_as_it_was(store, nestools, tmp_path):
    out = tmp_path / "out"
    first = store.export_dataset("nt", out)
    assert sorted(p.name for p in first) == ["test_api_ids.jsonl", "test_data.jsonl"]
    item = store.find_item("nt", "3")
    store.set_gold(item.id, [{"api_name": "edited", "parameters": {}}], "carol", item.version)
    before = _snapshot(out)
    def cancel(_progress):  # the writer reports once both files are written (in the staging folder)
        raise Cancelled()

    with pytest.raises(Cancelled):
        exporting.export_dataset(store.engine, store.dataset("nt").id, out, JobContext(on_progress=cancel))
    assert _snapshot(out) == before  # the edit is not half in: neither file changed
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []  # no staging folder left


def test_a_file_that_cannot_be_replaced_stops_the_export_before_any_file_moves(store, nestools, tmp_path):
    out = tmp_path / "out"
    store.export_dataset("nt", out)
    (out / "test_api_ids.jsonl").unlink()
    (out / "test_api_ids.jsonl").mkdir()  # in the way of the second file
    before = _snapshot(out)
    with pytest.raises(OutputError) as err:
        store.export_dataset("nt", out)
    assert str(out / "test_api_ids.jsonl") in str(err.value) and "nothing was exported" in str(err.value)
    assert _snapshot(out) == before and (out / "test_api_ids.jsonl").is_dir()


def test_a_failed_export_into_a_new_folder_leaves_no_folder(store, nestools, tmp_path, monkeypatch):
    out = tmp_path / "new" / "out"

    def full_disk(folder):
        (folder / "test_data.jsonl").write_text("partial")
        raise OSError(28, "No space left on device", str(folder / "test_api_ids.jsonl"))

    with pytest.raises(OutputError, match="No space left on device; nothing was exported") as err:
        exporting.write_staged(out, full_disk)
    assert str(out / "test_api_ids.jsonl") in str(err.value)  # the file's place in the export, not the staging one
    assert not out.exists()


def test_exported_files_get_the_users_usual_permissions_and_replace_the_old_ones(store, nestools, tmp_path):
    out = tmp_path / "out"
    (out).mkdir()
    (out / "test_data.jsonl").write_text("old\n")
    (out / "notes.txt").write_text("the user's own file\n")
    written = store.export_dataset("nt", out)
    umask = os.umask(0)
    os.umask(umask)
    for path in written:
        assert path.parent == out and path.is_file()
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    exported = [json.loads(line) for line in (out / "test_data.jsonl").read_text().splitlines()]
    assert exported == [json.loads(line) for line in nestools.read_text().splitlines()]  # the old file replaced
    assert (out / "notes.txt").read_text() == "the user's own file\n"  # left alone


def test_a_jsonl_export_onto_a_folder_says_so_and_leaves_it(store, nestools, tmp_path):
    target = tmp_path / "out.jsonl"
    target.mkdir()
    (target / "inside.txt").write_text("kept\n")
    with pytest.raises(OutputError, match=f"cannot write {target}: .*nothing was exported"):
        store.export_jsonl("nt", target)
    assert _snapshot(target) == {"inside.txt": b"kept\n"}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left



def test_a_cancelled_jsonl_export_leaves_the_previous_file_as_it_was(store, tmp_path):
    """The File menu's JSONL export ran to the end whatever the user pressed, then said
    "Cancelled: nothing was imported or written" beside a complete new file."""
    data = R.nestools_like(tmp_path / "src", 2500)
    store.import_dataset(data, format="nestools", name="nt")
    target = tmp_path / "out.jsonl"
    target.write_text("the previous export\n")
    seen = []

    def cancel_while_writing(p):
        seen.append(p.message)
        if "written" in p.message:
            raise Cancelled()

    with pytest.raises(Cancelled):
        store.export_jsonl("nt", target, ctx=JobContext(on_progress=cancel_while_writing))
    assert seen[-1] == "1,000 of 2,500 items written"
    assert target.read_text() == "the previous export\n"
    assert not any(p.name.startswith(".out.jsonl") for p in tmp_path.iterdir())  # no temporary file left
