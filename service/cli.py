"""``rewardbox``: serve, worker, score, eval, languages, selftest, cleanup."""

from __future__ import annotations

import json
import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from service.core.errors import RewardboxError, SubmissionError
from service.core.settings import Settings, get_settings
from service.models.submission import Submission
from service.models.verdict import Verdict

app = typer.Typer(help="rewardbox: code-execution rewards for RL post-training.", no_args_is_help=True)
console = Console(stderr=True)
BackendOpt = Annotated[str | None, typer.Option(help="auto | docker | local (default: REWARDBOX_BACKEND or auto)")]


def _settings(backend: str | None) -> Settings:
    settings = get_settings()
    if backend:
        settings = settings.model_copy(update={"backend": backend})
    return settings


def _judge(backend: str | None):  # noqa: ANN202
    from service.judge.judge import Judge
    from service.sandbox import create_backend

    settings = _settings(backend)
    try:
        sandbox = create_backend(settings)
    except RewardboxError as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    return Judge(sandbox, settings)


@app.command()
def score(file: Path, backend: BackendOpt = None) -> None:
    """Score one submission (JSON file, or - for stdin) and print the result as JSON."""
    text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    try:
        submission = Submission.model_validate_json(text)
    except ValidationError as exc:
        for err in exc.errors():
            console.print(f"[red]invalid submission:[/] {'.'.join(map(str, err['loc']))}: {err['msg']}")
        raise typer.Exit(2) from None
    judge = _judge(backend)
    try:
        result = judge.score(submission)
    except SubmissionError as exc:
        console.print(f"[red]invalid submission:[/] {exc}")
        raise typer.Exit(2) from None
    finally:
        judge.backend.close()
    print(result.model_dump_json(indent=2))


@app.command()
def languages(backend: BackendOpt = None) -> None:
    """List the languages whose self-test passes on this backend."""
    judge = _judge(backend)
    try:
        offered = judge.backend.offered_languages()
    finally:
        judge.backend.close()
    print(json.dumps({"backend": judge.backend.name, "languages": offered}, indent=2))


@app.command()
def selftest(backend: BackendOpt = None) -> None:
    """Run every language's echo self-test; exit 1 if any fails."""
    from service.languages import registry

    judge = _judge(backend)
    try:
        offered = judge.backend.offered_languages()
    finally:
        judge.backend.close()
    missing = sorted(set(judge.backend.candidate_languages() if judge.backend.name == "local" else registry()) - set(offered))
    for name, version in sorted(offered.items()):
        console.print(f"[green]ok[/]   {name}: {version}")
    for name in missing:
        console.print(f"[red]FAIL[/] {name}")
    raise typer.Exit(1 if missing else 0)


@app.command(name="eval")
def eval_(
    dataset: Annotated[str, typer.Argument(help="humaneval")],
    solutions: Annotated[str, typer.Option(help="canonical, or a samples file of {task_id, completion} lines")] = "canonical",
    backend: BackendOpt = None,
    workers: Annotated[int, typer.Option(help="parallel jobs (default: pool size, or CPUs for local)")] = 0,
    output: Annotated[Path | None, typer.Option(help="write per-problem results (JSON lines) here")] = None,
) -> None:
    """Score a dataset's solutions and print pass@1."""
    import os

    from service.datasets import humaneval

    if dataset != "humaneval":
        console.print(f"[red]error:[/] unknown dataset {dataset!r} (available: humaneval)")
        raise typer.Exit(2)
    problems = humaneval.load_problems()
    try:
        items = humaneval.samples(solutions, problems)
    except (OSError, ValueError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    judge = _judge(backend)
    settings = judge.settings
    if workers <= 0:
        workers = settings.pool_size if judge.backend.name == "docker" else (os.cpu_count() or 1)
    submissions = [humaneval.to_submission(problems[s["task_id"]], s["completion"]) for s in items]
    judge.backend.offered_languages()
    if hasattr(judge.backend, "warm"):
        judge.backend.warm("python")
    results: list = [None] * len(submissions)
    started = time.perf_counter()
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress, ThreadPoolExecutor(workers) as pool:
        task = progress.add_task(f"humaneval ({judge.backend.name})", total=len(submissions))
        futures = {pool.submit(judge.score, sub): i for i, sub in enumerate(submissions)}
        for future in futures:
            results[futures[future]] = future.result()
            progress.advance(task)
    elapsed = time.perf_counter() - started
    judge.backend.close()
    accepted = sum(r.verdict == Verdict.accepted for r in results)
    errors = sum(r.verdict == Verdict.sandbox_error for r in results)
    if output:
        with output.open("w") as handle:
            for item, result in zip(items, results, strict=True):
                handle.write(json.dumps({"task_id": item["task_id"], **result.model_dump(mode="json")}) + "\n")
    summary = {
        "dataset": dataset,
        "backend": judge.backend.name,
        "problems": len(results),
        "accepted": accepted,
        "sandbox_errors": errors,
        "pass@1": accepted / len(results) if results else 0.0,
        "wall_time_s": round(elapsed, 3),
        "problems_per_s": round(len(results) / elapsed, 1) if elapsed else None,
    }
    print(json.dumps(summary))
    console.print(f"pass@1 = {accepted}/{len(results)} accepted, {elapsed:.2f} s, {summary['problems_per_s']} problems/s")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default REWARDBOX_HOST, 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default REWARDBOX_PORT, 8000)")] = None,
    backend: BackendOpt = None,
) -> None:
    """Run the HTTP gateway. Without REWARDBOX_REDIS_URL it judges in-process (standalone)."""
    import uvicorn

    from service.api.main import create_app

    settings = _settings(backend)
    application = create_app(settings)
    uvicorn.run(
        application,
        host=host or settings.host,
        port=port or settings.port,
        log_level="warning",
        access_log=False,
        limit_concurrency=2048,
    )


@app.command()
def worker(
    burst: Annotated[bool, typer.Option(help="exit when the queue is empty")] = False,
    backend: BackendOpt = None,
) -> None:
    """Take jobs from Redis (REWARDBOX_REDIS_URL) and judge them in sandboxes."""
    from service.worker.main import run_worker

    run_worker(_settings(backend), burst=burst)


@app.command()
def cleanup() -> None:
    """Remove sandbox containers left behind (e.g. by a killed worker)."""
    from service.sandbox.docker_backend import remove_stale_containers

    console.print(f"removed {remove_stale_containers()} container(s)")


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    app()


if __name__ == "__main__":
    main()
