"""verl 0.9.1's actor engine on a CPU, for the CPU twin of the verl GPU check.

verl picks its device through a platform plug-in registry (``verl.plugin.platform``; CUDA,
NPU and ROCm are built in) and falls back to CUDA where none is available, so on a machine
without an accelerator its FSDP engine asks CUDA for a device and fails. `use_cpu` makes verl's
own code run on the CPU instead, through the hooks verl offers plug-ins:

- `PlatformCPU`, set as verl's platform (``set_platform``): device ``cpu``, communication
  ``gloo``, memory counters of 0 (a CPU run measures no accelerator memory);
- verl's ``FSDPEngineWithLMHead`` registered for the ``cpu`` device (``EngineRegistry``: verl
  registers it for ``cuda`` and ``npu`` only). FSDP2 (``strategy=fsdp2``) shards on a CPU mesh;
  FSDP1 asks for an accelerator whatever the platform, so it stays GPU-only;

and, on any device, `transformers_compat`: ``Qwen2VLCausalLMOutputWithPast``, a name verl's
Qwen2-VL patch imports from transformers < 5.11, set to the output class transformers 5.x
returns (this venv has a newer transformers than verl asks for; with verl's own pins it is
there already and nothing is set).

Nothing here is installed into verl or transformers; it lasts for the process, so the check
runs in a process of its own (its test starts one).
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch
from verl.plugin.platform.platform_base import PlatformBase


class _CPUDeviceModule:
    """verl's ``device_module`` on a CPU: ``torch.cpu`` where it has the function, otherwise
    the accelerator-only calls verl makes (``empty_cache``, ``memory_reserved``,
    ``reset_peak_memory_stats``...) as no-ops reporting 0."""

    def get_device_name(self, *args: Any) -> str:
        return "CPU"  # verl's flops counter reads it

    def mem_get_info(self, *args: Any) -> tuple[int, int]:
        return 0, 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # dunder look-ups (abc's, pickle's) are not device calls
            raise AttributeError(name)
        own = getattr(torch.cpu, name, None)
        return own if own is not None else (lambda *args, **kwargs: 0)


class PlatformCPU(PlatformBase):
    """verl's platform interface on the CPU (gloo for its collectives)."""

    device_name = "cpu"
    vendor_name = "cpu"
    device_module = _CPUDeviceModule()

    def is_available(self) -> bool:
        return True

    def current_device(self) -> str:
        return "cpu"  # verl moves modules and tensors to ``get_device_id()``

    def device_count(self) -> int:
        return 1

    def set_device(self, device_index: Any) -> None:
        return None

    def synchronize(self, device_index: Any = None) -> None:
        return None

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def manual_seed_all(self, seed: int) -> None:
        torch.manual_seed(seed)

    def set_allocator_settings(self, settings: str) -> None:
        return None

    def empty_cache(self) -> None:
        return None

    def get_device_capability(self, device_index: int = 0) -> tuple[None, None]:
        return None, None

    def communication_backend_name(self) -> str:
        return "gloo"

    def visible_devices_envvar(self) -> str:
        return "CUDA_VISIBLE_DEVICES"

    def nvtx_range(self, msg: str) -> Any:
        return contextlib.nullcontext()

    def profiler_start(self) -> None:
        return None

    def profiler_stop(self) -> None:
        return None

    def ray_resource_name(self) -> str:
        return "CPU"

    def ray_noset_envvars(self) -> list[str]:
        return []

    def is_ipc_supported(self) -> bool:
        return False

    def cudart(self) -> None:
        return None


def use_cpu() -> None:
    """Run verl's platform-dependent code on the CPU for the rest of this process (module
    docstring)."""
    from verl.plugin.platform.platform_manager import set_platform
    from verl.workers.engine import EngineRegistry
    from verl.workers.engine.fsdp.transformer_impl import FSDPEngineWithLMHead

    set_platform(PlatformCPU())
    registry = EngineRegistry._engines["language_model"]
    if "cpu" not in registry.get("fsdp2", {}):
        EngineRegistry.register(model_type="language_model", backend=["fsdp", "fsdp2"], device="cpu")(
            FSDPEngineWithLMHead)


def transformers_compat() -> None:
    """The transformers name verl 0.9.1's Qwen2-VL patch imports (module docstring)."""
    import transformers.models.qwen2_vl.modeling_qwen2_vl as qwen2_vl

    if not hasattr(qwen2_vl, "Qwen2VLCausalLMOutputWithPast"):
        qwen2_vl.Qwen2VLCausalLMOutputWithPast = qwen2_vl.MultimodalCausalLMOutputWithPast
