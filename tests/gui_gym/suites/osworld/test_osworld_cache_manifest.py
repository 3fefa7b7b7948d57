"""The carried file cache: ``gui-bench osworld fetch`` fills it from a real HTTP server on
loopback and writes the manifest; ``--verify`` checks a copy offline and names every missing,
truncated or altered file; OSWorld's own cache layout is read as it is."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest

from gui_gym.benchmarks.cli import main
from gui_gym.errors import TaskConfigError
from gui_gym.suites.osworld.cache_manifest import MANIFEST, cache_entries, read_manifest, sha256, verify
from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.coverage import unmet
from gui_gym.suites.osworld.loader import load_tasks
from tests.fakes.file_site import serve_folder

TASK = "0a0b0c0d-0000-4000-8000-000000000001"


@pytest.fixture
def site(tmp_path: Path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "sheet.xlsx").write_bytes(b"a workbook" * 100)
    (root / "gold.xlsx").write_bytes(b"the expected workbook")

    with serve_folder(root) as site:
        yield site


@pytest.fixture
def tasks(tmp_path: Path, site) -> Path:
    """An OSWorld task folder with one task that downloads its workbook and its gold file."""
    base, _ = site
    folder = tmp_path / "evaluation_examples"
    (folder / "examples" / "libreoffice_calc").mkdir(parents=True)
    task = {"id": TASK, "snapshot": "libreoffice_calc", "instruction": "sum the column",
            "config": [{"type": "download", "parameters": {"files": [
                {"url": f"{base}/sheet.xlsx", "path": "/home/user/Desktop/sheet.xlsx"}]}}],
            "evaluator": {"func": "compare_table", "result": {"type": "vm_file", "path": "/home/user/Desktop/sheet.xlsx",
                                                              "dest": "sheet.xlsx"},
                          "expected": {"type": "cloud_file", "path": f"{base}/gold.xlsx", "dest": "gold.xlsx"}}}
    (folder / "examples" / "libreoffice_calc" / f"{TASK}.json").write_text(json.dumps(task))
    (folder / "test_all.json").write_text(json.dumps({"libreoffice_calc": [TASK]}))
    return folder


def test_the_entries_are_where_the_episode_looks_in_osworld_s_layout(tasks, site, tmp_path):
    base, _ = site
    cache = FileCache(tmp_path / "cache")
    entries = cache_entries(load_tasks(tasks)[0], cache)
    assert [(e.url, e.path) for e in entries] == [
        (f"{base}/sheet.xlsx", tmp_path / "cache" / TASK / f"{uuid.uuid5(uuid.NAMESPACE_URL, f'{base}/sheet.xlsx')}_sheet.xlsx"),
        (f"{base}/gold.xlsx", tmp_path / "cache" / TASK / "gold.xlsx")]


def test_fetch_fills_the_cache_and_verify_checks_a_copy_offline(tasks, site, tmp_path, capsys):
    base, server = site
    cache = tmp_path / "cache"
    assert main(["osworld", "fetch", "--tasks-root", str(tasks), "--cache", str(cache)]) == 0
    assert "2 file(s) (1021 bytes)" in capsys.readouterr().out
    records = read_manifest(cache)
    assert {r["url"] for r in records} == {f"{base}/sheet.xlsx", f"{base}/gold.xlsx"}
    gold = next(r for r in records if r["url"].endswith("gold.xlsx"))
    assert gold == {"task_id": TASK, "url": f"{base}/gold.xlsx", "path": f"{TASK}/gold.xlsx", "size": 21,
                    "sha256": sha256(cache / TASK / "gold.xlsx")}

    server.shutdown()  # the copy is checked where there is no network
    copy = tmp_path / "carried"
    shutil.copytree(cache, copy)
    assert main(["osworld", "fetch", "--cache", str(copy), "--verify", "--tasks-root", str(tasks)]) == 0
    assert "2 file(s) in the manifest, 0 problem(s)" in capsys.readouterr().out

    (copy / TASK / "gold.xlsx").write_bytes(b"the expected workbooK")  # same size, one byte changed
    sheet = next(copy.glob(f"{TASK}/*_sheet.xlsx"))
    sheet.write_bytes(sheet.read_bytes()[:10])
    assert main(["osworld", "fetch", "--cache", str(copy), "--verify"]) == 1
    printed = capsys.readouterr().out
    assert f"BAD {TASK}/gold.xlsx: its SHA-256 differs from the manifest's" in printed
    assert f"BAD {sheet.relative_to(copy)}: 10 bytes, the manifest says 1000" in printed

    (copy / TASK / "gold.xlsx").unlink()
    assert f"{TASK}/gold.xlsx: missing ({base}/gold.xlsx)" in verify(copy)


def test_fetch_names_what_it_could_not_download_and_keeps_the_rest(tasks, site, tmp_path, capsys):
    base, _ = site
    (Path(tasks) / "examples" / "libreoffice_calc" / f"{TASK}.json").write_text(
        (Path(tasks) / "examples" / "libreoffice_calc" / f"{TASK}.json").read_text().replace("gold.xlsx\", \"dest", "absent.xlsx\", \"dest"))
    assert main(["osworld", "fetch", "--tasks-root", str(tasks), "--cache", str(tmp_path / "c")]) == 1
    printed = capsys.readouterr().out
    assert f"FAILED {TASK}: cannot download {base}/absent.xlsx" in printed
    assert [r["url"] for r in read_manifest(tmp_path / "c")] == [f"{base}/sheet.xlsx"]


def test_an_osworld_cache_without_manifest_is_checked_against_the_tasks(tasks, site, tmp_path):
    """OSWorld's own ``cache/`` folder has no manifest: verify says so; fetch adds one and takes
    the files already there without downloading them."""
    base, server = site
    osworld_cache = tmp_path / "osworld" / "cache"
    spec = load_tasks(tasks)[0]
    for entry in cache_entries(spec, FileCache(osworld_cache)):
        entry.path.parent.mkdir(parents=True, exist_ok=True)
        entry.path.write_bytes(b"from OSWorld's run")
    assert verify(osworld_cache) == [f"{osworld_cache} has no {MANIFEST} (fill it with `gui-bench osworld fetch "
                                     f"--cache {osworld_cache}`)"]
    server.shutdown()  # nothing is downloaded: the files are there
    assert main(["osworld", "fetch", "--tasks-root", str(tasks), "--cache", str(osworld_cache)]) == 0
    assert {r["size"] for r in read_manifest(osworld_cache)} == {len(b"from OSWorld's run")}
    assert verify(osworld_cache, [spec]) == []
    cache = FileCache(osworld_cache, allow_download=False)
    assert unmet(spec, cache, network=False)["network"] == []  # the gold file of a cloud_file getter counts too


def test_a_manifest_that_is_not_one_is_refused(tmp_path):
    (tmp_path / MANIFEST).write_text(json.dumps({"url": "x"}))
    with pytest.raises(TaskConfigError, match="expected a list of url/path/size/sha256 records"):
        read_manifest(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps([{"url": "u", "path": "../../etc/passwd", "size": 1, "sha256": "0"}]))
    assert verify(tmp_path) == ["../../etc/passwd: a path outside the cache"]
