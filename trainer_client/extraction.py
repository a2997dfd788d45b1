"""Completion -> code: which part of a model's answer is the program.

Policy (``extract_code``): the LAST fenced block whose info string names the
requested language (```python, ```py, ```cpp, ```c++, ...); else the last
fenced block of any language; else None — a completion with no code block
gets the ``no_code`` outcome (its own configurable reward, distinct from a
wrong answer). ``policy="raw"`` takes the whole completion as code (for
models prompted to answer with bare code), ``"last_block"`` skips the
language preference. Unterminated final fences (a completion cut at the
token limit) count as blocks.
"""

from __future__ import annotations

import re
from typing import Literal

Policy = Literal["language_then_last", "last_block", "raw"]

ALIASES = {
    "python": {"python", "py", "python3"},
    "cpp": {"cpp", "c++", "cxx", "cc"},
    "c": {"c"},
    "java": {"java"},
    "javascript": {"javascript", "js", "node"},
    "typescript": {"typescript", "ts"},
    "go": {"go", "golang"},
    "rust": {"rust", "rs"},
    "bash": {"bash", "sh", "shell"},
}

_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([^\n`]*)\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """All fenced code blocks as (info string lower-cased, code), in order."""
    return [(m.group(2).strip().lower(), m.group(3)) for m in _FENCE.finditer(text)]


def extract_code(completion: str, language: str | None = None, policy: Policy = "language_then_last") -> str | None:
    """The program in ``completion`` per ``policy`` (see module docstring), or None."""
    if policy == "raw":
        return completion if completion.strip() else None
    blocks = [(info, code) for info, code in fenced_blocks(completion) if code.strip()]
    if not blocks:
        return None
    if policy == "language_then_last" and language is not None:
        names = ALIASES.get(language, {language})
        matching = [code for info, code in blocks if info.split()[0:1] and info.split()[0] in names]
        if matching:
            return matching[-1]
    return blocks[-1][1]


def completion_text(completion: object) -> str:
    """TRL gives a completion as text (standard) or as a list of messages
    (conversational: [{"role": "assistant", "content": ...}]); returns the text."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        parts = [m.get("content", "") for m in completion if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        return "\n".join(p for p in parts if isinstance(p, str))
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    raise TypeError(f"unsupported completion type {type(completion).__name__}")
