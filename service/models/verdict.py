"""The verdict vocabulary, one str enum used by every layer."""

from __future__ import annotations

from enum import Enum


class Verdict(str, Enum):
    """Outcome of one test or of a whole submission.

    Every member but ``sandbox_error`` is the program's own doing;
    ``sandbox_error`` is ours (infrastructure), and its reward is ``null``.
    """

    accepted = "accepted"
    wrong_answer = "wrong_answer"
    time_limit_exceeded = "time_limit_exceeded"
    memory_limit_exceeded = "memory_limit_exceeded"
    output_limit_exceeded = "output_limit_exceeded"
    runtime_error = "runtime_error"
    compile_error = "compile_error"
    skipped = "skipped"
    sandbox_error = "sandbox_error"
