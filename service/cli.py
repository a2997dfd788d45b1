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
    dataset: Annotated[str, typer.Argument(help="humaneval mbpp apps taco codecontests livecodebench open-r1 verl jsonl")],
    solutions: Annotated[str, typer.Option(help="canonical, or a samples file of {task_id, completion} lines")] = "canonical",
    data: Annotated[Path | None, typer.Option(help="the dataset's rows (JSON lines); humaneval ships with rewardbox")] = None,
    k: Annotated[str, typer.Option("-k", help="comma-separated k for pass@k (unbiased estimator, Chen et al. 2021)")] = "1",
    language: Annotated[str, typer.Option(help="language of the samples (not humaneval)")] = "python",
    backend: BackendOpt = None,
    workers: Annotated[int, typer.Option(help="parallel jobs (default: pool size, or CPUs for local)")] = 0,
    report: Annotated[Path | None, typer.Option(help="write REPORT.json and REPORT.md (per task) here")] = None,
) -> None:
    """Score a dataset's samples in the sandbox and print pass@k."""
    import os

    from service import evaluate

    try:
        ks = sorted({int(x) for x in k.split(",") if x.strip()})
        if not ks or min(ks) < 1:
            raise ValueError("-k needs positive integers")
        tasks = evaluate.load_tasks(dataset, data, solutions)
        jobs = [
            (tid, evaluate.to_submission(dataset, task, sample, language))
            for tid, task in tasks.items()
            for sample in task.samples
        ]
    except (OSError, ValueError, KeyError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    judge = _judge(backend)
    if workers <= 0:
        workers = judge.settings.pool_size if judge.backend.name == "docker" else (os.cpu_count() or 1)
    offered = judge.backend.offered_languages()
    warm = getattr(judge.backend, "warm", None)
    for name in {sub.language for _, sub in jobs} & set(offered):
        if warm is not None:
            warm(name)
    verdicts: dict[str, list[str]] = {tid: [] for tid in tasks}
    started = time.perf_counter()

    def score(submission: Submission) -> str:
        try:
            return judge.score(submission).verdict.value
        except SubmissionError as exc:
            return f"invalid: {exc}"

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress, ThreadPoolExecutor(workers) as pool:
        bar = progress.add_task(f"{dataset} ({judge.backend.name})", total=len(jobs))
        futures = [(tid, pool.submit(score, sub)) for tid, sub in jobs]
        for tid, future in futures:
            verdicts[tid].append(future.result())
            progress.advance(bar)
    elapsed = time.perf_counter() - started
    judge.backend.close()
    summary = evaluate.summarize(dataset, tasks, verdicts, ks, elapsed, judge.backend.name)
    if report is not None:
        report.with_suffix(".json").write_text(json.dumps(summary, indent=2))
        report.with_suffix(".md").write_text(evaluate.markdown(summary))
    print(json.dumps({key: value for key, value in summary.items() if key != "tasks"}))
    scores = ", ".join(f"pass@{x} = {summary[f'pass@{x}']:.4f}" for x in ks if f"pass@{x}" in summary)
    console.print(
        f"{scores}; {summary['accepted']}/{summary['samples']} samples accepted over {summary['problems']} problems, "
        f"{elapsed:.2f} s, {summary['problems_per_s']} samples/s"
    )


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
