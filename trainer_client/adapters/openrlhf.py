"""OpenRLHF reward function file: ``--remote_rm_url path/to/this/openrlhf.py``.

OpenRLHF loads the file and calls ``reward_func(queries, prompts, labels)``
(``queries``: prompt + response texts; ``labels``: the dataset's label column,
here each row's test cases) and accepts a tensor of rewards or a dict with
``rewards``, ``scores`` and ``extra_logs``. The gateway's ``POST /openrlhf``
does the same over HTTP for ``--remote_rm_url http://...``.

A sandbox_error is NaN in the tensors (a tensor cannot hold None; NaN is "not
applicable" and cannot pass as a 0): mask it with ``rewards.isnan()``.
Service URL and key: REWARDBOX_URL, REWARDBOX_API_KEY.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from trainer_client.client import RewardClient
from trainer_client.rewards import score_completions, summary


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> dict[str, Any]:
    """-> {"rewards": Tensor[N], "scores": Tensor[N], "extra_logs": {name: Tensor[]}}"""
    import torch

    responses = [q[len(p):] if q.startswith(p) else q for q, p in zip(queries, prompts, strict=True)]
    language = str(kwargs.get("language", "python"))
    with RewardClient(os.environ.get("REWARDBOX_URL", "http://127.0.0.1:8000"),
                      api_key=os.environ.get("REWARDBOX_API_KEY")) as client:
        outcomes = score_completions(client, responses, list(labels), language=language)
    values = [o.reward if o.reward is not None else float("nan") for o in outcomes]
    rewards = torch.tensor(values, dtype=torch.float32)  # [N]
    extra_logs = {f"rewardbox/{k}": torch.tensor(v) for k, v in summary(outcomes).items()}
    return {"rewards": rewards, "scores": rewards.clone(), "extra_logs": extra_logs}
