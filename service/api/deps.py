"""Dependency aliases for handlers: SettingsDep, QueueDep, and API-key auth."""

from __future__ import annotations

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
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """401 unless auth is off or the bearer token is one of the keys
    (constant-time comparison against every key)."""
    keys = settings.api_key_list()
    if not keys:
        return
    presented = (credentials.credentials if credentials else "").encode()
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(presented, key.encode())
    if not matched:
        raise HTTPException(status_code=401, detail="missing or wrong API key", headers={"WWW-Authenticate": "Bearer"})
