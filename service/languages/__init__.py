"""Language registry: one ``<name>.toml`` spec per language, found by glob.

Adding a language means adding its spec here and its image folder under
``sandbox_images/``; nothing central is edited. Spec fields:

    name         language id used on the wire
    source_file  name the submitted code is written to
    compile      argv run once per submission (absent: interpreted)
    run          argv run once per test
    version      argv printing the toolchain version
    harness      true if call/assert tests are supported (python harness)
    warm_script  true if stdio runs may use the warm python harness instead of ``run``
    selftest     an echo program; the language is offered only if it passes
    source_name_pattern  regex whose first group names the source file (Java's
                 public class); the extension of ``source_file`` is kept
    mle_markers  stderr texts of a failed run that mean the runtime's own heap
                 limit was hit (JVM, V8): memory_limit_exceeded
    host_paths   extra host paths the local backend mounts read-only
    [env]        environment for compile and run (e.g. Go's cache in /tmp)
    [limits]     optional overrides of the settings' defaults (same names)

argv templates may use {source} (file name), {stem} (file name without
extension), {memory_limit_mb} and {heap_mb} (the memory limit less 64 MiB of
runtime overhead, at least 32).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

SPEC_DIR = Path(__file__).parent


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    source_file: str
    run: tuple[str, ...]
    version: tuple[str, ...]
    selftest: str
    compile: tuple[str, ...] | None = None
    harness: bool = False
    warm_script: bool = False
    source_name_pattern: str | None = None
    mle_markers: tuple[str, ...] = ()
    host_paths: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)

    @property
    def compiled(self) -> bool:
        return self.compile is not None

    def source_file_for(self, code: str) -> str:
        """The file name ``code`` must have (Java: its public class)."""
        if self.source_name_pattern:
            match = re.search(self.source_name_pattern, code)
            if match:
                return match.group(1) + Path(self.source_file).suffix
        return self.source_file


RUNTIME_OVERHEAD_MB = 64


def render_argv(template: tuple[str, ...], source_file: str, memory_limit_mb: int) -> list[str]:
    """Fill an argv template's placeholders (see the module docstring)."""
    values = {
        "source": source_file,
        "stem": Path(source_file).stem,
        "memory_limit_mb": memory_limit_mb,
        "heap_mb": max(32, memory_limit_mb - RUNTIME_OVERHEAD_MB),
    }
    return [arg.format(**values) for arg in template]


def _load(path: Path) -> LanguageSpec:
    data = tomllib.loads(path.read_text())
    try:
        return LanguageSpec(
            name=data["name"],
            source_file=data["source_file"],
            run=tuple(data["run"]),
            version=tuple(data["version"]),
            selftest=data["selftest"].lstrip("\n"),
            compile=tuple(data["compile"]) if "compile" in data else None,
            harness=bool(data.get("harness", False)),
            warm_script=bool(data.get("warm_script", False)),
            source_name_pattern=data.get("source_name_pattern"),
            mle_markers=tuple(data.get("mle_markers", ())),
            host_paths=tuple(data.get("host_paths", ())),
            env={k: str(v) for k, v in data.get("env", {}).items()},
            limits=dict(data.get("limits", {})),
        )
    except KeyError as exc:
        raise ValueError(f"{path.name}: missing field {exc}") from None


@lru_cache
def registry() -> dict[str, LanguageSpec]:
    """Every language spec on disk, by name (offered or not)."""
    specs = {}
    for path in sorted(SPEC_DIR.glob("*.toml")):
        spec = _load(path)
        specs[spec.name] = spec
    return specs
