"""Trainable agents (policies): agents that also generate with token ids and log-probs and
score given tokens (`gui_gym.agents.base.TrainableAgent`), so ``gui-bench run --agent NAME`` scores
them and ``gui-train --policy NAME`` trains them.

- `element` (`ElementPolicy`): a small torch network over the accessibility tree's candidate
  actions, learning on a CPU in minutes;
- `vlm` (`VLMPolicy`): a Qwen2.5-VL-family checkpoint prompted as the OpenAI agent is, with
  optional LoRA and generation on a vLLM server.

torch is imported by the policies, not by this package.
"""
