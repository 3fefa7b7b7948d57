"""WebJudge, Online-Mind2Web's LVLM judge of web trajectories: `judge.py` runs a protocol,
`official.py` and `keypoints.py` are two of them, `common.py` the records and answer readers
they share."""

from gui_gym.judges.webjudge.common import Verdict, WebTrajectory
from gui_gym.judges.webjudge.judge import WebJudge

__all__ = ["Verdict", "WebJudge", "WebTrajectory"]
