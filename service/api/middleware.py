"""ASGI middleware: request body bound (413) and request metrics."""

from __future__ import annotations

import json
import time
from typing import Any

from service.api import metrics

Scope = dict[str, Any]


class BodyLimit:
    """Refuse bodies above ``max_bytes`` with 413, by Content-Length or as they stream."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._refuse(send)
                return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"detail": f"request body exceeds max_body_bytes={self.max_bytes}"}).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass


class Metrics:
    """Count requests by route template, method and status; time them."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def watch(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            metrics.REQUESTS.labels(path, scope.get("method", ""), str(status)).inc()
            metrics.LATENCY.labels(path).observe(time.perf_counter() - started)
