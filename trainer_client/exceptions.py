"""Exceptions of the rewardbox client.

    RewardboxClientError
    ├── TransportError          could not talk to the service (retried)
    │   └── RequestTimeout      no answer within the Timeout (retried)
    └── HTTPStatusError         the service answered with an error status
        ├── ClientError         4xx: the request is wrong; never retried
        │   ├── AuthenticationError   401: missing or wrong API key
        │   ├── PayloadTooLarge       413: body or batch above the server's bounds
        │   └── InvalidSubmission     422: ``.details`` = [{"field", "reason"}]
        ├── Overloaded          429/503: retried after Retry-After
        └── ServerError         other 5xx

A ``sandbox_error`` is not an exception: it is a result whose reward is None.
"""

from __future__ import annotations

from typing import Any


class RewardboxClientError(Exception):
    """Base of every client error."""


class TransportError(RewardboxClientError):
    """The connection failed (refused, reset, DNS...)."""


class RequestTimeout(TransportError):
    """No answer within the configured Timeout."""


class HTTPStatusError(RewardboxClientError):
    def __init__(self, status_code: int, detail: Any, retry_after_s: float | None = None) -> None:
        super().__init__(f"HTTP {status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail
        self.retry_after_s = retry_after_s


class ClientError(HTTPStatusError):
    """4xx: fix the request; retrying cannot help."""


class AuthenticationError(ClientError):
    pass


class PayloadTooLarge(ClientError):
    pass


class InvalidSubmission(ClientError):
    @property
    def details(self) -> list[dict[str, str]]:
        return self.detail if isinstance(self.detail, list) else [{"field": "body", "reason": str(self.detail)}]


class Overloaded(HTTPStatusError):
    """429/503: the service is busy or degraded; retried after Retry-After."""


class ServerError(HTTPStatusError):
    pass


def error_for(status_code: int, detail: Any, retry_after_s: float | None) -> HTTPStatusError:
    if status_code == 401:
        return AuthenticationError(status_code, detail)
    if status_code == 413:
        return PayloadTooLarge(status_code, detail)
    if status_code == 422:
        return InvalidSubmission(status_code, detail)
    if status_code in (429, 503):
        return Overloaded(status_code, detail, retry_after_s)
    if 400 <= status_code < 500:
        return ClientError(status_code, detail)
    return ServerError(status_code, detail)
