"""GET /v1/languages: the languages whose self-test passed."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from service.api.deps import QueueDep, SettingsDep
from service.judge.limits import resolve_limits
from service.languages import registry
from service.models.api import LanguageInfo
from service.models.submission import LimitsRequest

router = APIRouter(prefix="/v1", tags=["languages"])


@router.get("/languages", response_model=list[LanguageInfo])
async def languages(queue: QueueDep, settings: SettingsDep) -> list[LanguageInfo]:
    """Offered languages with their toolchain versions and default limits."""
    offered = await run_in_threadpool(queue.languages)
    answer = []
    for name, version in sorted(offered.items()):
        spec = registry().get(name)
        if spec is None:
            continue
        limits = resolve_limits(settings, spec, LimitsRequest())
        answer.append(LanguageInfo(name=name, version=version, compiled=spec.compiled, default_limits=vars(limits)))
    return answer
