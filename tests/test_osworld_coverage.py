"""What OSWorld tasks need and what this install meets, on the 369 real tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from gui_gym.suites.osworld import coverage
from gui_gym.suites.osworld.context import FileCache
from gui_gym.suites.osworld.loader import load_tasks


@pytest.fixture(scope="module")
def specs(shared_data: Path):
    return load_tasks(shared_data / "osworld-verified")


def test_needs_of_a_real_calc_task(specs):
    spec = next(s for s in specs if s.id == "01b269ae-2111-4a07-81fd-3fcd711993b0")
    need = coverage.needs(spec)
    assert need.setup_types == {"download", "open", "activate_window", "sleep", "execute"}
    assert need.getters == {"vm_file", "cloud_file"} and need.metrics[0][0] == "compare_table"
    assert len(need.downloads) == 2 and not need.web
    assert coverage.unmet(spec) == {"setup": [], "getters": [], "metrics": [], "network": []}
    offline = coverage.unmet(spec, FileCache(Path("/nonexistent-cache"), allow_download=False), network=False)
    assert len(offline["network"]) == 2 and offline["network"][0].startswith("https://huggingface.co/")


def test_coverage_table_per_domain(specs):
    rows = coverage.coverage_table(specs)
    total = rows[-1]
    assert total["domain"] == "TOTAL" and total["tasks"] == 369
    assert sum(r["tasks"] for r in rows[:-1]) == 369
    assert total["runnable"] >= 180 and total["setup"] >= 350
    calc = next(r for r in rows if r["domain"] == "libreoffice_calc")
    assert calc["runnable"] >= 40
    assert all(r["runnable"] <= min(r["setup"], r["getters"], r["metrics"]) for r in rows)
    assert all(r["offline"] <= r["runnable"] for r in rows)
    missing = coverage.missing_counts(specs)
    assert missing["setup"]["googledrive"] == 8


def test_cli_prints_the_table(shared_data: Path, capsys):
    coverage.main([str(shared_data / "osworld-verified"), "--top", "3"])
    out = capsys.readouterr().out
    assert "369 tasks loaded" in out and "libreoffice_calc" in out and out.count("\n") > 12
    assert "TOTAL" in out and "missing metrics:" in out
