"""Domain errors. The gateway maps them to HTTP in one handler.

    RewardboxError
    ├── SubmissionError      the client's fault: 4xx, names the field and why
    └── SandboxError         ours: the job ends as sandbox_error, reward null
        └── BackendUnavailable   no backend can isolate (docker down, no bwrap)
"""

from __future__ import annotations


class RewardboxError(Exception):
    """Base of every rewardbox error."""


class SubmissionError(RewardboxError):
    """The submission is invalid; ``field`` is the dotted path of the culprit."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class SandboxError(RewardboxError):
    """Our fault: the sandbox or its executor failed (never the program's)."""


class BackendUnavailable(SandboxError):
    """No configured backend can isolate code on this host."""
