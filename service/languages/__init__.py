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
    [limits]     optional overrides of the settings' defaults (same names)
"""

from __future__ import annotations

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
    limits: dict[str, Any] = field(default_factory=dict)

    @property
    def compiled(self) -> bool:
        return self.compile is not None


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
