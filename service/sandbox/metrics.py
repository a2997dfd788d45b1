"""Sandbox metrics, exported by the process that runs the sandboxes."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

SANDBOX_START = Histogram(
    "rewardbox_sandbox_start_seconds",
    "Time to start a sandbox and reach its executor",
    ["backend", "language"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
SANDBOX_RUN = Histogram(
    "rewardbox_sandbox_job_seconds",
    "Time a job holds a sandbox (prepare, compile, tests, reset)",
    ["backend", "language"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
POOL_SIZE = Gauge("rewardbox_sandbox_pool_size", "Warm sandboxes per language", ["language"])
FAULT_RETRIES = Counter(
    "rewardbox_sandbox_fault_retries_total",
    "Jobs (RQ jobs in Redis mode, submissions in standalone mode) retried after a sandbox fault",
)
