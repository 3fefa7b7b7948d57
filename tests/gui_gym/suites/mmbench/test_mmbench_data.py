"""MMBench-GUI records from the official layout; clear errors when the data is absent or wrong."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401
from gui_gym.errors import MissingResourceError, TaskConfigError
from gui_gym.suites.mmbench.data import SAMPLE_ROOT, load_l1, load_l2

L1_RECORD = {
    "index": 7, "image_path": "shot.png", "image_size": [100, 50], "platform": "os_mac", "app_name": "Notes",
    "groups": [
        {"question": "What is open?", "options": {"A": "Notes", "B": "Mail", "C": "Maps"}, "answer": "a",
         "explanation": "The title bar says Notes.", "difficulty": "easy"},
        {"question": "How many notes?", "options": {"A": "1", "B": "2", "C": None, "D": "3"}, "answer": "D",
         "explanation": "", "difficulty": "hard"},
    ],
}
L2_RECORD = {"index": 3, "image_path": "os_mac/shot.png", "instruction": "Click the search icon.",
             "bbox": [0.1, 0.2, 0.3, 0.4], "image_size": [100, 50], "data_type": "icon", "platform": "os_mac",
             "app_name": "Notes", "grounding_type": "basic"}


def write_layout(root, l1=(L1_RECORD,), l2=(L2_RECORD,)):
    folder = root / "MMBench-GUI"
    (folder / "offline_images" / "os_mac").mkdir(parents=True)
    (folder / "L1_annotations.json").write_text(json.dumps(list(l1)))
    (folder / "L2_annotations.json").write_text(json.dumps(list(l2)))
    return folder


@pytest.fixture
def no_data_env(monkeypatch):
    monkeypatch.delenv("GUI_GYM_MMBENCH_ROOT", raising=False)
    monkeypatch.delenv("LMUData", raising=False)


def test_l1_questions_one_per_group(tmp_path, no_data_env):
    folder = write_layout(tmp_path)
    questions = load_l1(tmp_path)
    assert [q.task_id for q in questions] == ["mmbench-l1.7.easy", "mmbench-l1.7.hard"]
    first, second = questions
    assert first.answer == "A" and first.options == {"A": "Notes", "B": "Mail", "C": "Maps"}
    assert second.options == {"A": "1", "B": "2", "D": "3"}                    # a null option is left out
    assert first.image == folder / "offline_images" / "os_mac" / "shot.png"
    assert (first.platform, first.app_name, first.explanation) == ("os_mac", "Notes", "The title bar says Notes.")
    assert [q.task_id for q in load_l1(folder)] == [q.task_id for q in questions]  # the MMBench-GUI folder itself


def test_l2_targets(tmp_path, no_data_env):
    folder = write_layout(tmp_path)
    (target,) = load_l2(tmp_path)
    assert target.task_id == "mmbench-l2.3"
    assert target.image == folder / "offline_images" / "os_mac" / "shot.png"   # already prefixed: kept
    assert target.bbox == (0.1, 0.2, 0.3, 0.4) and target.grounding_type == "basic" and target.data_type == "icon"


def test_env_vars_name_the_root(tmp_path, monkeypatch, no_data_env):
    write_layout(tmp_path)
    monkeypatch.setenv("LMUData", str(tmp_path))                               # VLMEvalKit's variable
    assert len(load_l2(None)) == 1
    monkeypatch.setenv("GUI_GYM_MMBENCH_ROOT", str(tmp_path / "elsewhere"))   # ours comes first
    with pytest.raises(MissingResourceError, match=r"elsewhere is not a folder"):
        load_l2(None)


def test_missing_data_says_where_to_get_it_and_where_to_put_it(tmp_path, no_data_env):
    with pytest.raises(MissingResourceError, match=(
            r"^MMBench-GUI data not found: no data_root was given and \$GUI_GYM_MMBENCH_ROOT or \$LMUData is not "
            r"set\. Download L1_annotations\.json, L2_annotations\.json and the offline images from "
            r"https://huggingface\.co/datasets/OpenGVLab/MMBench-GUI, lay them out as DATA_ROOT/MMBench-GUI/"
            r"\{L1_annotations\.json, L2_annotations\.json, offline_images/<platform>/\.\.\.\}, then pass "
            r"data_root=DATA_ROOT or set \$GUI_GYM_MMBENCH_ROOT; data_root='sample' runs the small sample")):
        load_l1(None)
    (tmp_path / "MMBench-GUI").mkdir()
    with pytest.raises(MissingResourceError, match=r"MMBench-GUI data not found: .*MMBench-GUI/L2_annotations\.json "
                                                   r"does not exist\. Download"):
        load_l2(tmp_path)
    with pytest.raises(MissingResourceError, match=r"MMBench-GUI data not found"):
        gym.make("GUI/MMBench-GUI-L1-v0")


@pytest.mark.parametrize("change, message", [
    (lambda r: r["groups"][0].update(answer="E"), r"record 0 group 0: answer 'E' is not one of the options \['A', 'B', 'C'\]"),
    (lambda r: r["groups"][0].update(options={"A": "x", "Z": "y"}), r"option keys must be letters A-F, received \['Z'\]"),
    (lambda r: r["groups"][0].update(options={"A": "x"}), r"expected at least 2 options"),
    (lambda r: r.pop("platform"), r"record 0: missing field 'platform'"),
    (lambda r: r.update(groups="q"), r"field 'groups' must be a list, received 'q'"),
])
def test_malformed_l1_records_name_the_record_and_field(tmp_path, change, message):
    record = json.loads(json.dumps(L1_RECORD))
    change(record)
    write_layout(tmp_path, l1=[record])
    with pytest.raises(TaskConfigError, match=message):
        load_l1(tmp_path)


@pytest.mark.parametrize("records, message", [
    ([dict(L2_RECORD, grounding_type="hard")], r"grounding_type must be one of \('basic', 'advanced'\), received 'hard'"),
    ([dict(L2_RECORD, data_type="widget")], r"data_type must be one of \('icon', 'text'\), received 'widget'"),
    ([L2_RECORD, L2_RECORD], r"task ids must be unique, these repeat: \['mmbench-l2\.3'\]"),
    ({"not": "a list"}, r"expected a JSON list of record objects, received dict"),
])
def test_malformed_l2_files_are_refused(tmp_path, records, message):
    folder = write_layout(tmp_path)
    (folder / "L2_annotations.json").write_text(json.dumps(records))
    with pytest.raises(TaskConfigError, match=message):
        load_l2(tmp_path)


def test_unreadable_json_is_refused(tmp_path):
    folder = write_layout(tmp_path)
    (folder / "L1_annotations.json").write_text("[{")
    with pytest.raises(TaskConfigError, match=r"L1_annotations\.json: expected a JSON list of records, could not read it"):
        load_l1(tmp_path)


def test_bundled_sample_is_in_the_official_layout_and_small():
    questions, targets = load_l1("sample"), load_l2("sample")
    assert len(questions) >= 15 and len(targets) >= 30
    assert {q.difficulty for q in questions} == {"easy", "medium", "hard"}
    assert {t.grounding_type for t in targets} == {"basic", "advanced"}
    assert {t.data_type for t in targets} <= {"icon", "text"}
    assert all(t.image.is_file() for t in targets) and all(q.image.is_file() for q in questions)
    assert any(max(t.bbox) > 1 for t in targets) and any(max(t.bbox) <= 1 for t in targets)  # pixels and normalized
    assert sum(p.stat().st_size for p in SAMPLE_ROOT.rglob("*") if p.is_file()) < 3_000_000
