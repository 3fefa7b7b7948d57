"""JSON-lines records: any Unicode text a record holds (line and paragraph separators, NEL,
vertical tab, form feed, lone surrogates) keeps the record on one line for every line
splitter, reads back equal, and a file written before the writer escaped them still reads whole;
a last line cut short by a killed writer is left out, any other bad line is named."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gui_gym.errors import TaskConfigError
from gui_gym.records import append_jsonl, iter_jsonl, json_line, load_episode, read_jsonl, read_trajectory

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character `str.splitlines()` breaks at."""
ANY_TEXT = st.text(st.characters(exclude_categories=()) | st.sampled_from(LINE_BREAKS), max_size=40)
"""Any code point, lone surrogates included, with the line breaks drawn often."""
RECORDS = st.dictionaries(ANY_TEXT, st.none() | st.integers() | ANY_TEXT | st.lists(ANY_TEXT, max_size=3), max_size=3)
"""A record as the writers make them: text keys, text values, lists of text."""


@settings(max_examples=300, database=None, suppress_health_check=[HealthCheck.too_slow])  # the machine is shared
@given(RECORDS)
@example({"answer": "no idea\u2028sorry"})
@example({LINE_BREAKS: LINE_BREAKS, "\\": "\\\u2028", "\ud800": "\udfff"})
def test_any_record_is_one_line_for_every_splitter_and_reads_back_equal(record):
    line = json_line(record)
    assert line.endswith("\n") and line[:-1].splitlines() == [line[:-1]] and line.count("\n") == 1
    line.encode("utf-8")  # nothing left that UTF-8 cannot hold
    assert json.loads(line) == record


def test_records_append_and_read_back_in_order(tmp_path):
    path = tmp_path / "calls.jsonl"
    assert read_jsonl(path) == []
    records = [{"call": 1, "answer": "no idea\u2028sorry"}, {"call": 2, "b": 1, "a": "\x85\u2029"}]
    for record in records:
        append_jsonl(path, record, sort_keys=True)
    assert read_jsonl(path) == records
    assert path.read_text(encoding="utf-8").splitlines()[1] == '{"a": "\\u0085\\u2029", "b": 1, "call": 2}'
    assert [number for number, _ in iter_jsonl(path)] == [1, 2]


def test_a_file_written_with_raw_separators_still_reads_whole(tmp_path):
    """What every writer wrote before: json.dumps(ensure_ascii=False) leaves U+2028 raw."""
    steps = [{"event": "reset", "task_id": "demo.read-code", "instruction": "read\u2029it"},
             {"step": 1, "action": "no idea\u2028sorry", "parsed_action": {"kind": "answer", "text": "no idea\u2028sorry"},
              "info": {"success": False}, "thought": "\x85"}]
    (tmp_path / "traj.jsonl").write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in steps),
                                         encoding="utf-8")
    assert "\u2028" in (tmp_path / "traj.jsonl").read_text(encoding="utf-8")
    assert read_trajectory(tmp_path) == steps
    episode = load_episode(tmp_path, screenshots=False)
    assert episode.instruction == "read\u2029it" and len(episode) == 1
    assert episode.final_answer == "no idea\u2028sorry" and episode.steps[0].thought == "\x85"


def test_a_last_line_cut_short_is_left_out_and_logged(tmp_path, caplog):
    path = tmp_path / "traj.jsonl"
    path.write_text('{"step": 0}\n\n{"step": 1}\n{"step": 2, "act', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="gui_gym.records.jsonl"):
        assert read_jsonl(path) == [{"step": 0}, {"step": 1}]
    assert "line 4 was cut short" in caplog.text
    with pytest.raises(TaskConfigError, match=r"traj.jsonl line 4 is not JSON"):
        list(iter_jsonl(path, cut_short_ok=False))  # a file written by hand: nothing was cut short


def test_a_bad_line_before_the_last_is_named(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"a": 1}\n{"a": \n{"a": 3}\n', encoding="utf-8")
    with pytest.raises(TaskConfigError, match=r"runs.jsonl line 2 is not JSON"):
        read_jsonl(path)
    path.write_text('{"a": 1}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(TaskConfigError, match=r"runs.jsonl line 2: expected a JSON object, received '\[1, 2\]'"):
        read_jsonl(path)
    assert read_trajectory(tmp_path) == []  # the lenient reader of a folder: no traj.jsonl, no records
