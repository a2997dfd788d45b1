"""Limits resolve in layers: settings default -> language override -> request.

A request may lower a limit, never raise it past the server's maximum.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.core.errors import SubmissionError
from service.core.settings import Settings
from service.languages import LanguageSpec
from service.models.submission import LimitsRequest


@dataclass(frozen=True)
class Limits:
    time_limit_s: float
    wall_time_limit_s: float
    memory_limit_mb: int
    output_limit_bytes: int
    compile_time_limit_s: float


_MAXIMA = {
    "time_limit_s": "max_time_limit_s",
    "wall_time_limit_s": "max_wall_time_limit_s",
    "memory_limit_mb": "max_memory_limit_mb",
    "output_limit_bytes": "max_output_limit_bytes",
    "compile_time_limit_s": "max_compile_time_limit_s",
}


def resolve_limits(settings: Settings, language: LanguageSpec, request: LimitsRequest) -> Limits:
    """Raises SubmissionError naming ``limits.<field>`` when a request asks
    for more than the server's maximum."""
    values = {}
    for name, max_name in _MAXIMA.items():
        maximum = getattr(settings, max_name)
        value = language.limits.get(name, getattr(settings, name))
        asked = getattr(request, name)
        if asked is not None:
            if asked > maximum:
                raise SubmissionError(f"limits.{name}", f"{asked} exceeds the server maximum {maximum}")
            value = asked
        values[name] = min(value, maximum)
    # A wall limit below the CPU limit would kill busy programs early.
    if request.wall_time_limit_s is None:
        values["wall_time_limit_s"] = max(values["wall_time_limit_s"], values["time_limit_s"] * 2 + 1)
        values["wall_time_limit_s"] = min(values["wall_time_limit_s"], settings.max_wall_time_limit_s)
    elif values["wall_time_limit_s"] < values["time_limit_s"]:
        raise SubmissionError("limits.wall_time_limit_s", "must be at least limits.time_limit_s")
    return Limits(**values)
