"""Remote reward-model endpoints in the trainers' own shapes.

- ``POST /openrlhf`` — OpenRLHF's ``--remote_rm_url``: ``{"query": [...],
  "prompts": [...], "labels": [...]}`` -> ``{"rewards": [...], "scores":
  [...], "extra_logs": {...}}``. ``query`` is prompt + response; the response is
  what follows the prompt. ``labels`` hold each row's test cases (any format
  service.datasets knows, as a JSON string or object).
- ``POST /slime`` — slime's remote RM: ``{"prompt", "response", "label"}`` ->
  ``{"score", "verdict", ...}``.

The code is taken from the response by trainer_client.extraction's policy; a
response without code scores ``no_code_reward`` (0.0); a sandbox_error scores
null (not applicable, never 0).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from service.api import scoring
from service.api.deps import QueueDep, SettingsDep
from trainer_client.extraction import extract_code

router = APIRouter(tags=["compatibility"])
NO_CODE_REWARD = 0.0


class OpenRLHFRequest(BaseModel):
    query: list[str] = Field(..., description="prompt + response, one per sample")
    prompts: list[str] = Field(default_factory=list, description="the prompts, same order")
    labels: list[Any] = Field(..., description="test cases per sample (JSON string or object)")
    language: str = Field("python", description="rewardbox extension: the language of the code")


class SlimeRequest(BaseModel):
    prompt: str = ""
    response: str
    label: Any = Field(..., description="test cases (JSON string or object)")
    language: str = "python"


def _score(queue: Any, settings: Any, responses: list[str], labels: list[Any], language: str) -> list[dict[str, Any]]:
    """One answer per response: the result, or a no_code / invalid marker."""
    from service.datasets.registry import to_submission

    raw: list[Any] = []
    slots: list[int | None] = []
    answers: list[dict[str, Any]] = []
    for response, label in zip(responses, labels, strict=True):
        code = extract_code(response, language)
        if code is None:
            answers.append({"status": "no_code", "reward": NO_CODE_REWARD, "verdict": "no_code"})
            slots.append(None)
            continue
        try:
            row = json.loads(label) if isinstance(label, str) else label
            raw.append(to_submission(row, code, language=language).model_dump(mode="json"))
        except (ValueError, TypeError, KeyError) as exc:
            answers.append({"status": "invalid", "reward": None, "verdict": "invalid", "error": str(exc)[:300]})
            slots.append(None)
            continue
        answers.append({})
        slots.append(len(raw) - 1)
    if raw:
        items = scoring.prepare(queue, settings, "score", [scoring.parse("score", r) for r in raw])
        scoring.enqueue(queue, items)
        scoring.wait(queue, items, scoring.sync_timeout_s(settings, items))
        for index, slot in enumerate(slots):
            if slot is not None:
                answers[index] = scoring.item_json(items[slot])
    return answers


@router.post("/openrlhf")
async def openrlhf(queue: QueueDep, settings: SettingsDep, body: OpenRLHFRequest) -> dict[str, Any]:
    """OpenRLHF remote reward model."""
    if len(body.labels) != len(body.query) or (body.prompts and len(body.prompts) != len(body.query)):
        raise HTTPException(status_code=422, detail=[{"field": "labels", "reason": "query, prompts and labels differ in length"}])
    responses = [
        q[len(p):] if body.prompts and q.startswith(p) else q
        for q, p in zip(body.query, body.prompts or [""] * len(body.query), strict=True)
    ]
    answers = await run_in_threadpool(_score, queue, settings, responses, list(body.labels), body.language)
    rewards = [a.get("reward") for a in answers]
    n = max(1, len(answers))
    extra_logs = {
        "rewardbox/accepted_rate": sum(a.get("verdict") == "accepted" for a in answers) / n,
        "rewardbox/no_code_rate": sum(a.get("verdict") == "no_code" for a in answers) / n,
        "rewardbox/sandbox_error_rate": sum(r is None for r in rewards) / n,
    }
    return {"rewards": rewards, "scores": rewards, "extra_logs": extra_logs}


@router.post("/slime")
async def slime(queue: QueueDep, settings: SettingsDep, body: SlimeRequest) -> dict[str, Any]:
    """slime remote reward model: one sample."""
    answer = (await run_in_threadpool(_score, queue, settings, [body.response], [body.label], body.language))[0]
    return {
        "score": answer.get("reward"),
        "verdict": answer.get("verdict"),
        "passed": answer.get("passed", 0),
        "total": answer.get("total", 0),
        "status": answer.get("status"),
    }
