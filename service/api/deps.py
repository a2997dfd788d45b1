"""Dependency aliases for handlers: SettingsDep, QueueDep, and API-key auth."""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.core.settings import Settings
from service.queue.base import JobQueue

_bearer = HTTPBearer(auto_error=False, description="API key, when the server has REWARDBOX_API_KEYS set.")


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_queue(request: Request) -> JobQueue:
    queue: JobQueue = request.app.state.queue
    return queue


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
QueueDep = Annotated[JobQueue, Depends(get_queue)]


def require_api_key(
    request: Request,
    settings: SettingsDep,
    queue: QueueDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """401 unless auth is off or the bearer token is one of the keys
    (constant-time comparison against every key); then 429 past the key's
    rate limit (per client address when auth is off)."""
    keys = settings.api_key_list()
    client = request.client.host if request.client else "unknown"
    if keys:
        presented = (credentials.credentials if credentials else "").encode()
        matched = False
        for key in keys:
            matched |= hmac.compare_digest(presented, key.encode())
        if not matched:
            raise HTTPException(status_code=401, detail="missing or wrong API key", headers={"WWW-Authenticate": "Bearer"})
        # the key itself never becomes a Redis key or a log line
        client = "key-" + hashlib.sha256(presented).hexdigest()[:16]
    if settings.rate_limit_per_minute:
        retry_after = queue.rate_hit(client, settings.rate_limit_per_minute)
        if retry_after is not None:
            raise HTTPException(
                status_code=429,
                detail=f"rate limit of {settings.rate_limit_per_minute} requests per minute reached",
                headers={"Retry-After": str(retry_after)},
            )
