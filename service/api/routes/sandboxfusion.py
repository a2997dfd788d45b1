"""POST /run_code: SandboxFusion's request and response, so verl's and SkyRL's
built-in SandboxFusion integrations work by pointing their URL here.

Request (SandboxFusion ``RunCodeRequest``): ``code``, ``language``,
``stdin``, ``compile_timeout`` and ``run_timeout`` (seconds),
``memory_limit_MB`` (-1 = server default), ``files`` ({path: base64}),
``fetch_files`` ([path]). Response (``RunCodeResponse``): ``status``
(Success | Failed | SandboxError), ``message``, ``compile_result`` and
``run_result`` ({status: Finished | TimeLimitExceeded | Error,
execution_time, return_code, stdout, stderr}), ``executor_pod_name``,
``files`` ({path: base64}); ours also has ``file_errors`` ({path: why}) for
fetch_files not returned (missing, a symbolic link, not a regular file).
"""

from __future__ import annotations

import base64
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from service.api import scoring
from service.api.deps import QueueDep, SettingsDep
from service.models.submission import LimitsRequest, RunRequest

router = APIRouter(tags=["compatibility"])

# SandboxFusion's language names -> ours
LANGUAGES = {
    "python": "python", "python3": "python", "cpp": "cpp", "c": "c", "java": "java", "go": "go",
    "nodejs": "javascript", "javascript": "javascript", "js": "javascript", "typescript": "typescript",
    "ts": "typescript", "rust": "rust", "bash": "bash",
}  # fmt: skip


class RunCodeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    code: str = Field(..., examples=['print("Hello, world!")'])
    language: str = Field("python", examples=["python"])
    stdin: str | None = Field(None, examples=[""])
    compile_timeout: float = Field(10, gt=0, description="seconds", examples=[10])
    run_timeout: float = Field(10, gt=0, description="seconds", examples=[10])
    memory_limit_MB: int = Field(-1, description="MiB; -1 = the server default", examples=[-1])  # noqa: N815
    files: dict[str, str] = Field(default_factory=dict, description="{path: base64 content}")
    fetch_files: list[str] = Field(default_factory=list, description="paths to return after the run")


def _command_result(verdict: str, record: dict[str, Any], time_s: float | None) -> dict[str, Any]:
    status = "Finished"
    if verdict == "time_limit_exceeded":
        status = "TimeLimitExceeded"
    elif verdict not in ("accepted", "runtime_error", "wrong_answer"):
        status = "Error"
    return {
        "status": status,
        "execution_time": time_s,
        "return_code": record.get("exit_code"),
        "stdout": record.get("stdout", ""),
        "stderr": record.get("stderr", ""),
    }


def _to_response(result: dict[str, Any]) -> dict[str, Any]:
    if result["status"] == "sandbox_error":
        return {"status": "SandboxError", "message": result.get("error") or "sandbox error", "compile_result": None,
                "run_result": None, "executor_pod_name": None, "files": {}, "file_errors": {}}
    compiled = result.get("compile") or {}
    compile_result = None
    if compiled.get("status") in ("ok", "error"):
        ok = compiled["status"] == "ok"
        compile_result = {"status": "Finished" if ok else "Error", "execution_time": compiled.get("time_s"),
                          "return_code": 0 if ok else 1, "stdout": "", "stderr": compiled.get("log", "")}
    if result["verdict"] == "compile_error":
        return {"status": "Failed", "message": "compile error", "compile_result": compile_result, "run_result": None,
                "executor_pod_name": None, "files": {}, "file_errors": {}}
    run_result = _command_result(result["verdict"], result, result.get("wall_time_s"))
    success = result["verdict"] == "accepted"
    return {
        "status": "Success" if success else "Failed",
        "message": "" if success else (result.get("reason") or result["verdict"]),
        "compile_result": compile_result,
        "run_result": run_result,
        "executor_pod_name": None,
        "files": result.get("files", {}),
        "file_errors": result.get("file_errors", {}),
    }


def _run(queue: Any, settings: Any, request: RunRequest) -> scoring.Item:
    items = scoring.prepare(queue, settings, "run", [request])
    scoring.enqueue(queue, items)
    scoring.wait(queue, items, scoring.sync_timeout_s(settings, items))
    return items[0]


@router.post("/run_code")
async def run_code(queue: QueueDep, settings: SettingsDep, body: RunCodeRequest) -> dict[str, Any]:
    """SandboxFusion-compatible plain execution."""
    language = LANGUAGES.get(body.language.lower())
    if language is None:
        raise HTTPException(status_code=422, detail=[{"field": "language", "reason": f"unsupported language {body.language!r}"}])
    files = {}
    for path, content in body.files.items():
        try:
            files[path] = base64.b64decode(content, validate=True).decode("utf-8")
        except ValueError:  # binascii.Error, non-ASCII text, UnicodeDecodeError
            raise HTTPException(
                status_code=422, detail=[{"field": f"files.{path}", "reason": "must be base64 of UTF-8 text"}]
            ) from None
    limits = LimitsRequest(
        time_limit_s=body.run_timeout,
        wall_time_limit_s=body.run_timeout,
        compile_time_limit_s=body.compile_timeout,
        memory_limit_mb=body.memory_limit_MB if body.memory_limit_MB > 0 else None,
    )
    request = RunRequest(
        language=language, code=body.code, files=files, stdin=body.stdin or "", limits=limits, fetch_files=body.fetch_files
    )
    item = await run_in_threadpool(_run, queue, settings, request)
    if item.error is not None:
        raise HTTPException(status_code=422, detail=[item.error])
    if item.result is None:
        raise HTTPException(status_code=504, detail=f"no result in time; poll GET /v1/jobs/{item.id}")
    return _to_response(item.result)
