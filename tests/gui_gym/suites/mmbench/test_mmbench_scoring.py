"""The official breakdowns on hand-computed records."""

from __future__ import annotations

import pytest

from gui_gym.suites.mmbench import breakdown, breakdown_tables
from gui_gym.suites.mmbench.scoring import l1_scores, l2_scores


def _l1(difficulty, platform, score, options_num):
    return {"task_id": f"t{id(object())}", "level": "L1", "difficulty": difficulty, "platform": platform,
            "score": score, "options_num": options_num}


L1_RECORDS = [
    _l1("easy", "os_web", 1.0, 4), _l1("easy", "os_web", 0.0, 4), _l1("easy", "os_web", 1.0, 2),
    _l1("easy", "os_mac", 1.0, 5),
    _l1("medium", "os_web", 0.0, 4), _l1("medium", "os_web", 0.0, 4),
]


def test_l1_normal_scores():
    scores = l1_scores(L1_RECORDS)
    assert scores["easy"]["os_web"] == {"score": pytest.approx(2 / 3), "sample_num": 3}
    assert scores["easy"]["os_mac"] == {"score": 1.0, "sample_num": 1}
    assert scores["easy"]["level_score"] == pytest.approx(0.75)          # (2/3 * 3 + 1 * 1) / 4
    assert scores["easy"]["level_sample_num"] == 4
    assert scores["medium"]["level_score"] == 0.0
    assert scores["total_sample_num"] == 6
    assert list(scores) == ["easy", "medium", "total_sample_num"]


def test_l1_weighted_scores():
    scores = l1_scores(L1_RECORDS, weighted=True)
    web = scores["easy"]["os_web"]
    assert web["score_weighted"] == pytest.approx((0.75 + 0 + 0.5) / 3)
    assert web["score_base"] == pytest.approx((0.75 + 0.75 + 0.5) / 3)
    assert web["score"] == pytest.approx(0.625)
    assert scores["easy"]["os_mac"]["score"] == pytest.approx(1.0)
    assert scores["easy"]["level_score"] == pytest.approx((0.625 * 3 + 1.0) / 4)


def _l2(gtype, platform, data_type, score, action_error=None):
    return {"task_id": "x", "level": "L2", "grounding_type": gtype, "platform": platform,
            "data_type": data_type, "score": score, "action_error": action_error}


L2_RECORDS = [
    _l2("basic", "os_web", "icon", 1.0), _l2("basic", "os_web", "icon", 0.0),
    _l2("basic", "os_web", "text", 1.0), _l2("basic", "os_web", "text", 1.0),
    _l2("basic", "os_web", "text", 0.0, action_error="expected a point"),
    _l2("basic", "os_ios", "text", 0.0),
    _l2("advanced", "os_web", "icon", 1.0), _l2("advanced", "os_web", "text", 1.0),
    _l2("advanced", "os_web", "text", 0.0), _l2("advanced", "os_web", "text", 0.0),
    _l2("advanced", "os_android", "text", 1.0),
    _l2("advanced", "os_android", "text", None),                        # never finished: left out
]


def test_l2_scores():
    scores = l2_scores(L2_RECORDS)
    web = scores["basic"]["os_web"]
    assert web == {"Total num": 5, "Icon num": 2, "Text num": 3, "Total accuracy": pytest.approx(60.0),
                   "Icon accuracy": pytest.approx(50.0), "Text accuracy": pytest.approx(200 / 3),
                   "Correct num": 3, "Wrong num": 1, "Error format num": 1}
    assert scores["basic"]["os_ios"]["Icon accuracy"] is None            # no icon target there
    assert scores["Basic accuracy"] == pytest.approx(50.0)               # (60 * 5 + 0 * 1) / 6
    assert scores["Advanced accuracy"] == pytest.approx(60.0)            # (50 * 4 + 100 * 1) / 5
    assert scores["Average accuracy"] == pytest.approx(55.0)
    assert list(scores)[:3] == ["Average accuracy", "Basic accuracy", "Advanced accuracy"]
    assert list(scores["advanced"]) == ["os_android", "os_web"]          # the official platform order


def test_sets_without_grounding_types_report_one_group():
    records = [{"task_id": "a", "platform": "mobile", "data_type": "text", "score": 1.0, "grounding_type": None},
               {"task_id": "b", "platform": "web", "data_type": "icon", "score": 0.0, "grounding_type": None}]
    scores = l2_scores(records)
    assert scores["All accuracy"] == pytest.approx(50.0) and scores["Average accuracy"] == pytest.approx(50.0)
    assert set(scores["all"]) == {"mobile", "web"}


def test_breakdown_and_tables():
    results = L1_RECORDS + L2_RECORDS
    scores = breakdown(results)
    assert set(scores) == {"L1", "L2", "skipped"} and scores["skipped"] == 1
    tables = breakdown_tables(results)
    assert "MMBench-GUI L1 (content understanding)" in tables
    easy = next(line for line in tables.splitlines() if line.startswith("easy"))
    assert easy.split() == ["easy", "100.0", "(1)", "66.7", "(3)", "75.0", "(4)"]     # os_mac, os_web, level
    assert "L1 options-weighted" in tables and "71.9 (4)" in tables
    row = next(line for line in tables.splitlines() if line.startswith("basic") and "os_web" in line)
    assert row.split() == ["basic", "os_web", "50.0", "(2)", "66.7", "(3)", "60.0", "(5)", "1"]
    assert "Average accuracy 55.0 | Basic accuracy 50.0 | Advanced accuracy 60.0" in tables
    assert "1 episode(s) without a score" in tables
    assert breakdown_tables([]) == "no MMBench-GUI episodes to report"


def test_official_l1_scores_are_nan_where_a_platform_lacks_a_difficulty():
    """open-compass/MMBench-GUI, its matrics.py:8-38 (normal) and 41-88 (weighted):
    every platform of the whole result is scored under every difficulty; os_mac has no medium
    question, so its medium cell is np.mean([]) = NaN on 0 samples, and the medium level score,
    np.sum over score * sample_num (NaN * 0 = NaN) / 2, is NaN. Easy is unaffected."""
    import math

    normal = l1_scores(L1_RECORDS, answers="official")
    assert math.isnan(normal["medium"]["os_mac"]["score"]) and normal["medium"]["os_mac"]["sample_num"] == 0
    assert math.isnan(normal["medium"]["level_score"]) and normal["medium"]["level_sample_num"] == 2
    assert normal["easy"]["level_score"] == pytest.approx(0.75) and normal["total_sample_num"] == 6
    weighted = l1_scores(L1_RECORDS, weighted=True, answers="official")["medium"]
    assert all(math.isnan(weighted["os_mac"][k]) for k in ("score", "score_weighted", "score_base"))
    assert math.isnan(weighted["level_score"])
    # ours by default leaves the empty cell out and reads the level from what was asked
    assert "os_mac" not in l1_scores(L1_RECORDS)["medium"] and l1_scores(L1_RECORDS)["medium"]["level_score"] == 0.0


def test_tables_say_how_answers_were_read():
    official = breakdown_tables(L1_RECORDS, answers="official")
    assert "answers read: official" in official and "NaN (0)" in official
    assert "answers read: meant" in breakdown_tables(L1_RECORDS)
    assert breakdown(L1_RECORDS, answers="official")["L1"]["answers"] == "official"
