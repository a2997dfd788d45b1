"""Prometheus metrics of the gateway (``GET /metrics``).

Sandbox-side metrics (start times, run times, pool sizes) live in
``service.sandbox.metrics`` and are exported by whichever process runs the
sandboxes: the gateway in standalone mode, each worker (on
``REWARDBOX_WORKER_METRICS_PORT``) in Redis mode.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter("rewardbox_http_requests_total", "HTTP requests", ["route", "method", "status"])
LATENCY = Histogram(
    "rewardbox_http_request_duration_seconds",
    "HTTP request latency",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
)
QUEUE_DEPTH = Gauge("rewardbox_queue_depth", "Submissions waiting to start")
JOBS = Counter("rewardbox_jobs_total", "Judged submissions delivered, by verdict", ["verdict"])
CACHE = Counter("rewardbox_cache_lookups_total", "Result cache lookups", ["outcome"])


def count_result(result: dict[str, Any]) -> None:
    JOBS.labels(str(result.get("verdict", "unknown"))).inc()
