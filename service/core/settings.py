"""Settings: one pydantic-settings object, env prefix ``REWARDBOX_``.

Every default is a named value with its unit; ``get_settings()`` builds it
once (cached) and a bad value fails at start-up with the field and reason.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PLACEHOLDER_KEYS = {"changeme", "change-me", "secret", "password", "test", "apikey", "api-key", "xxx"}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="REWARDBOX_", extra="ignore")

    # --- sandbox -----------------------------------------------------------
    backend: Literal["auto", "docker", "local"] = Field(
        "auto", description="auto = docker if the engine answers, else local (bubblewrap)."
    )
    pool_size: int = Field(2, ge=1, le=256, description="Warm containers per language (docker backend).")
    fresh_container_per_job: bool = Field(False, description="Start a new container for every job (slow, maximal isolation).")
    image_prefix: str = Field("rewardbox/sandbox-", description="Sandbox images are <prefix><language>:latest.")
    runtime_dir: Path = Field(Path("/run/rewardbox"), description="Host folder for executor sockets (docker backend).")
    docker_runtime: str | None = Field(None, description='Container runtime, e.g. "runsc" for gVisor; default runc.')
    container_cpus: float = Field(1.0, gt=0, description="CPUs per sandbox container.")
    container_pids_limit: int = Field(128, ge=16, description="Max processes per sandbox container.")
    container_memory_overhead_mb: int = Field(
        128, ge=32, description="Container memory above the job limit, MiB."
    )
    workdir_size_mb: int = Field(256, ge=8, description="Size of the sandbox's tmpfs work dir, MiB.")
    tmp_size_mb: int = Field(64, ge=8, description="Size of the sandbox's /tmp, MiB.")
    local_max_processes: int = Field(256, ge=8, description="RLIMIT_NPROC for the local backend, processes.")

    # --- default limits (per test) and server maxima ------------------------
    time_limit_s: float = Field(2.0, gt=0, description="Default CPU time per test, seconds.")
    wall_time_limit_s: float = Field(5.0, gt=0, description="Default wall time per test, seconds.")
    memory_limit_mb: int = Field(256, gt=0, description="Default peak resident memory per test, MiB.")
    output_limit_bytes: int = Field(64 * 1024 * 1024, gt=0, description="Default stdout cap per test, bytes.")
    stderr_limit_bytes: int = Field(1024 * 1024, gt=0, description="Stderr kept per test, bytes (more is dropped, not fatal).")
    compile_time_limit_s: float = Field(30.0, gt=0, description="Default compile wall time, seconds.")
    compile_memory_limit_mb: int = Field(1024, gt=0, description="Compiler memory, MiB.")
    compile_log_limit_bytes: int = Field(64 * 1024, gt=0, description="Compiler output kept, bytes.")
    max_time_limit_s: float = Field(30.0, gt=0, description="Largest CPU time a request may ask for, seconds.")
    max_wall_time_limit_s: float = Field(60.0, gt=0, description="Largest wall time a request may ask for, seconds.")
    max_memory_limit_mb: int = Field(2048, gt=0, description="Largest memory a request may ask for, MiB.")
    max_output_limit_bytes: int = Field(256 * 1024 * 1024, gt=0, description="Largest stdout cap a request may ask for, bytes.")
    max_compile_time_limit_s: float = Field(120.0, gt=0, description="Largest compile time a request may ask for, seconds.")
    report_output_bytes: int = Field(8192, ge=0, description="stdout/stderr kept per test in the result, bytes.")

    # --- bounds on requests ----------------------------------------------------
    max_tests: int = Field(1000, ge=1, description="Tests per submission.")
    max_code_bytes: int = Field(1024 * 1024, ge=1, description="Size of code plus files, bytes.")

    # --- queue / gateway ---------------------------------------------------------
    redis_url: str | None = Field(None, description="Redis URL; unset = standalone mode (in-process queue).")
    queue_name: str = Field("rewardbox", description="RQ queue name.")
    result_ttl_s: int = Field(3600, ge=1, description="How long job results are kept, seconds.")
    cache_ttl_s: int = Field(3600, ge=0, description="Result cache lifetime, seconds; 0 disables the cache.")
    max_queue_depth: int = Field(10000, ge=1, description="Queued submissions above which new work gets 429.")
    max_batch_size: int = Field(1024, ge=1, description="Submissions per batch request.")
    max_body_bytes: int = Field(64 * 1024 * 1024, ge=1024, description="Largest HTTP request body, bytes.")
    api_keys: str | None = Field(None, description="Comma-separated API keys; unset = no auth (local use).")
    rate_limit_per_minute: int = Field(
        0, ge=0, description="Requests per API key (or client address without auth) per minute; 0 = unlimited."
    )
    job_retries: int = Field(2, ge=0, le=10, description="Retries of a job whose worker died or whose sandbox failed.")
    worker_lease_s: int = Field(6, ge=2, description="A worker that misses its heartbeat this long is dead, seconds.")
    standalone_threads: int = Field(0, ge=0, description="Judging threads in standalone mode; 0 = pool_size.")
    sync_timeout_s: float = Field(600.0, gt=0, description="Longest a synchronous request waits for results, seconds.")
    host: str = Field("127.0.0.1", description="Address `rewardbox serve` binds.")
    port: int = Field(8000, ge=1, le=65535, description="Port `rewardbox serve` binds.")
    worker_metrics_port: int | None = Field(None, description="Port for a worker's own /metrics; unset = none.")

    def api_key_list(self) -> list[str]:
        return [k.strip() for k in (self.api_keys or "").split(",") if k.strip()]

    @model_validator(mode="after")
    def _no_placeholder_keys(self) -> Settings:
        for key in self.api_key_list():
            if key.lower() in PLACEHOLDER_KEYS or len(key) < 16:
                raise ValueError("api_keys: refusing a placeholder or short key (use 16+ random characters)")
        return self

    @model_validator(mode="after")
    def _defaults_within_maxima(self) -> Settings:
        pairs = [
            ("time_limit_s", "max_time_limit_s"),
            ("wall_time_limit_s", "max_wall_time_limit_s"),
            ("memory_limit_mb", "max_memory_limit_mb"),
            ("output_limit_bytes", "max_output_limit_bytes"),
            ("compile_time_limit_s", "max_compile_time_limit_s"),
        ]
        for default, maximum in pairs:
            if getattr(self, default) > getattr(self, maximum):
                raise ValueError(f"{default}={getattr(self, default)} exceeds {maximum}={getattr(self, maximum)}")
        return self


@lru_cache
def get_settings() -> Settings:
    """The process's settings, built from the environment once."""
    return Settings()
