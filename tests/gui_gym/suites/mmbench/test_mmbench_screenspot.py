"""The grounding env reads ScreenSpot, ScreenSpot-v2 ([x, y, w, h]) and ScreenSpot-Pro
([x1, y1, x2, y2]) files and scores them."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from PIL import Image

import gui_gym  # noqa: F401
from gui_gym.errors import MissingResourceError
from gui_gym.suites.mmbench.screenspot import load_screenspot, load_screenspot_pro

PRO_RECORDS = [
    {"img_filename": "photoshop_windows/canvas.png", "bbox": [100, 50, 300, 150], "instruction": "select the brush tool",
     "id": "ps_1", "application": "photoshop", "platform": "windows", "img_size": [1920, 1080], "ui_type": "icon",
     "group": "Creative"},
    {"img_filename": "photoshop_windows/canvas.png", "bbox": [1000, 500, 1200, 540], "instruction": "open the Layers menu",
     "id": "ps_2", "application": "photoshop", "platform": "windows", "img_size": [1920, 1080], "ui_type": "text",
     "group": "Creative"},
]


@pytest.fixture
def pro_root(tmp_path):
    (tmp_path / "annotations").mkdir()
    (tmp_path / "images" / "photoshop_windows").mkdir(parents=True)
    Image.new("RGB", (1920, 1080), (40, 40, 40)).save(tmp_path / "images" / "photoshop_windows" / "canvas.png")
    (tmp_path / "annotations" / "photoshop_windows.json").write_text(json.dumps(PRO_RECORDS))
    return tmp_path


def test_screenspot_pro_records(pro_root):
    first, second = load_screenspot_pro(pro_root)
    assert first.task_id == "screenspot-pro.photoshop_windows.ps_1"
    assert first.bbox == (100, 50, 300, 150) and first.data_type == "icon" and second.data_type == "text"
    assert (first.platform, first.app_name, first.extra["group"]) == ("windows", "photoshop", "Creative")


@pytest.mark.parametrize("output, context, reward", [
    ("(300, 150)", {}, 1.0),                              # the bottom-right corner: a hit
    ("(301, 150)", {}, 0.0),
    ("(0.1, 0.1)", {}, 1.0),                              # normalized: (192, 108)
    ("(100, 100)", {"coordinates": "relative1000"}, 1.0),  # 0-1000: (192, 108)
    ("Action: click(start_box='(196,112)')", {}, 1.0),    # smart_resize: 1920x1080 is seen as 1932x1092
    ("the brush", {}, 0.0),
])
def test_l2_env_scores_a_screenspot_pro_file(pro_root, output, context, reward):
    env = gym.make("GUI/MMBench-GUI-L2-v0", format="screenspot_pro", data_root=pro_root, format_context=context)
    obs, info = env.reset(options={"task_id": "screenspot-pro.photoshop_windows.ps_1"})
    assert obs["screenshot"].shape == (1080, 1920, 3) and obs["instruction"] == "select the brush tool"
    _, got, terminated, truncated, info = env.step(output)
    assert (got, terminated, truncated) == (reward, True, False)
    assert (info["action_error"] is not None) == (output == "the brush")
    env.close()


def test_oracle_solves_screenspot_pro_and_the_report_breaks_it_down(pro_root):
    env = gym.make("GUI/MMBench-GUI-L2-v0", format="screenspot_pro", data_root=pro_root)
    base = env.unwrapped
    results = []
    for task_id in base.task_ids:
        env.reset(options={"task_id": task_id})
        _, reward, _, _, _ = env.step(base.oracle_action())
        results.append({"task_id": task_id, "score": reward})
    assert [r["score"] for r in results] == [1.0, 1.0]
    assert base.suite.describe(results[0]["task_id"])["group"] == "Creative"
    table = base.suite.report(results)
    assert "all        windows   100.0 (1)  100.0 (1)  100.0 (2)  0" in table
    assert "Average accuracy 100.0 | All accuracy 100.0" in table
    env.close()


def _screenspot_root(root, version):
    images = root / ("screenspotv2_image" if version == "screenspot_v2" else "screenspot_imgs")
    images.mkdir()
    Image.new("RGB", (200, 100)).save(images / "phone.png")
    suffix = "_v2" if version == "screenspot_v2" else ""
    record = {"img_filename": "phone.png", "bbox": [10, 20, 30, 40], "instruction": "open settings",
              "data_type": "icon", "data_source": "android"}
    (root / f"screenspot_mobile{suffix}.json").write_text(json.dumps([record]))
    (root / f"screenspot_web{suffix}.json").write_text(json.dumps([dict(record, data_type="text", data_source="shop")]))
    return root


@pytest.mark.parametrize("version", ["screenspot", "screenspot_v2"])
def test_screenspot_xywh_boxes(tmp_path, version):
    root = _screenspot_root(tmp_path, version)
    mobile, web = load_screenspot(root, version)
    prefix = version.replace("_", "-")
    assert (mobile.task_id, web.task_id) == (f"{prefix}.mobile.0000", f"{prefix}.web.0000")
    assert mobile.bbox == (10, 20, 40, 60) and mobile.platform == "mobile" and mobile.app_name == "android"
    env = gym.make("GUI/MMBench-GUI-L2-v0", format=version, data_root=root)
    for point, reward in (("(40, 60)", 1.0), ("(41, 60)", 0.0), ("(10,20)", 1.0)):
        env.reset(options={"task_id": mobile.task_id})
        assert env.step(point)[1] == reward
    env.close()


def test_v1_and_v2_files_are_told_apart(tmp_path):
    root = _screenspot_root(tmp_path, "screenspot_v2")
    with pytest.raises(MissingResourceError, match=r"screenspot data not found: no screenspot_<split>\.json file in"):
        load_screenspot(root, "screenspot")


def test_missing_screenspot_data_says_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.delenv("GUI_GYM_SCREENSPOT_PRO_ROOT", raising=False)
    with pytest.raises(MissingResourceError, match=r"screenspot_pro data not found: no data_root was given and "
                                                   r"\$GUI_GYM_SCREENSPOT_PRO_ROOT is not set\. Download it from "
                                                   r"https://huggingface\.co/datasets/likaixin/ScreenSpot-Pro, put "
                                                   r"annotations/\*\.json and images/ in one folder"):
        load_screenspot_pro(None)
    with pytest.raises(MissingResourceError, match=r"no annotations/\*\.json in"):
        load_screenspot_pro(tmp_path)


def test_grounding_types_are_mmbench_only(tmp_path):
    with pytest.raises(ValueError, match=r"mode must be one of \('all',\) for format 'screenspot', received 'basic'"):
        gym.make("GUI/MMBench-GUI-L2-v0", format="screenspot", mode="basic", data_root=tmp_path)
    with pytest.raises(ValueError, match=r"format must be one of \('mmbench', 'screenspot', 'screenspot_v2', "
                                         r"'screenspot_pro'\), received 'refcoco'"):
        gym.make("GUI/MMBench-GUI-L2-v0", format="refcoco")
