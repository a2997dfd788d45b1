"""The gateway over HTTP, standalone and with Redis + a worker: real
processes, a real redis-server, the real app, the docker backend."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import httpx
import pytest

from service.datasets import humaneval
from tests.conftest import require_backend
from tests.integration.stack import RedisServer, Stack, free_port, rewardbox, stack_env, wait_ready

PY = {"language": "python", "code": "a, b = map(int, input().split())\nprint(a + b)\n",
      "tests": [{"input": "1 2\n", "expected_output": "3\n"}, {"input": "5 5\n", "expected_output": "11\n"}]}
CPP = {"language": "cpp", "code": "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<'\\n';}\n",
       "tests": [{"input": "1 2\n", "expected_output": "3\n"}, {"input": "40 2\n", "expected_output": "42\n"}]}


@pytest.fixture(scope="module", autouse=True)
def _docker_required() -> None:
    require_backend("docker")


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    stack = Stack(tmp_path_factory.mktemp("standalone"), None)
    yield stack
    stack.close()


@pytest.fixture(scope="module")
def redis_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("redis")
    stack = Stack(tmp, RedisServer(tmp))
    yield stack
    stack.close()


def _essence(result: dict) -> tuple:
    return (result["status"], result["verdict"], result["reward"], [t["verdict"] for t in result["tests"]],
            [t["stdout"] for t in result["tests"]])


def test_standalone_and_redis_give_the_same_results(standalone: Stack, redis_stack: Stack) -> None:
    for body, verdict, passed in ((PY, "wrong_answer", 1), (CPP, "accepted", 2)):
        alone = standalone.client.post("/v1/score", json=body)
        queued = redis_stack.client.post("/v1/score", json=body)
        assert alone.status_code == queued.status_code == 200, (alone.text, queued.text)
        assert _essence(alone.json()) == _essence(queued.json())
        assert alone.json()["verdict"] == verdict and alone.json()["passed"] == passed


def test_languages_and_health(redis_stack: Stack) -> None:
    languages = {item["name"]: item for item in redis_stack.client.get("/v1/languages").json()}
    assert {"python", "c", "cpp"} <= set(languages)
    assert languages["python"]["version"].startswith("Python 3")
    assert redis_stack.client.get("/healthz").json() == {"status": "ok"}
    metrics = redis_stack.client.get("/metrics").text
    assert "rewardbox_http_requests_total" in metrics and "rewardbox_queue_depth" in metrics


def test_bad_input_is_422_naming_the_field(standalone: Stack) -> None:
    missing = standalone.client.post("/v1/score", json={"language": "python", "code": "x", "tests": [{"input": ""}]})
    assert missing.status_code == 422
    assert missing.json()["detail"][0]["field"].endswith("expected_output")
    unknown = standalone.client.post("/v1/score", json={**PY, "language": "cobol"})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["field"] == "language"
    too_long = standalone.client.post("/v1/score", json={**PY, "limits": {"time_limit_s": 10_000}})
    assert too_long.status_code == 422 and too_long.json()["detail"][0]["field"] == "limits.time_limit_s"
    secret = "print('SECRET-CODE-MARKER')"
    leaked = standalone.client.post("/v1/score", json={"language": "cobol", "code": secret, "tests": [{"expected_output": ""}]})
    assert "SECRET-CODE-MARKER" not in leaked.text
    assert "SECRET-CODE-MARKER" not in standalone.gateway.tail()


KEY = "test-key-0123456789abcdef"
OTHER_KEY = "other-key-0123456789abcdef"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A standalone gateway with API keys, a small body limit, a queue of depth
    2 and the result cache on."""
    tmp = tmp_path_factory.mktemp("guarded")
    env = stack_env(REWARDBOX_MAX_BODY_BYTES="65536", REWARDBOX_API_KEYS=f"{OTHER_KEY},{KEY}",
                    REWARDBOX_MAX_QUEUE_DEPTH="2", REWARDBOX_STANDALONE_THREADS="1", REWARDBOX_RATE_LIMIT_PER_MINUTE="40")
    port = free_port()
    gateway = rewardbox(["serve", "--port", str(port)], env, tmp / "gw.log")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60,
                          headers={"Authorization": f"Bearer {KEY}"}) as client:
            wait_ready(client, proc=gateway)
            yield client
    finally:
        gateway.kill(signal.SIGTERM)


def test_body_limit_is_413(guarded: httpx.Client) -> None:
    response = guarded.post("/v1/score", json={**PY, "code": "#" * 100_000})
    assert response.status_code == 413 and "max_body_bytes" in response.text


def test_api_keys(guarded: httpx.Client) -> None:
    assert guarded.post("/v1/score", json=PY).status_code == 200
    for headers in ({"Authorization": "Bearer wrong-key-0123456789abcdef"}, {"Authorization": ""}):
        response = guarded.post("/v1/score", json=PY, headers=headers)
        assert response.status_code == 401 and response.headers["WWW-Authenticate"] == "Bearer"
    # health and metrics stay open for probes and scrapers
    assert httpx.get(str(guarded.base_url.join("/healthz"))).status_code == 200


def test_rate_limit_per_key(guarded: httpx.Client) -> None:
    other = {"Authorization": f"Bearer {OTHER_KEY}"}
    statuses = [guarded.get("/v1/languages", headers=other).status_code for _ in range(45)]
    if 429 not in statuses:  # the minute turned over mid-burst: the next burst must hit it
        statuses = [guarded.get("/v1/languages", headers=other).status_code for _ in range(45)]
    assert 429 in statuses
    refused = guarded.get("/v1/languages", headers=other)
    assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 60
    assert guarded.get("/v1/languages").status_code == 200  # another key has its own budget


def test_rate_limit_window_is_shared_through_redis(redis_stack: Stack) -> None:
    from service.core.settings import Settings
    from service.queue.redis_queue import RedisQueue

    assert redis_stack.redis is not None
    gateways = [RedisQueue(Settings(redis_url=redis_stack.redis.url)) for _ in range(2)]
    try:
        answers = [gateways[i % 2].rate_hit("key-test", limit=10, window_s=3600) for i in range(12)]
    finally:
        for gateway in gateways:
            gateway.close()
    assert answers[:10] == [None] * 10  # two gateways, one budget
    assert all(a is not None and 1 <= a <= 3600 for a in answers[10:])


def test_identical_submissions_come_from_the_cache(guarded: httpx.Client) -> None:
    body = {**PY, "code": PY["code"] + "# cache test\n"}
    first = guarded.post("/v1/score", json=body).json()
    second = guarded.post("/v1/score", json=body).json()
    assert first["cached"] is False and second["cached"] is True
    assert {**first, "cached": True} == second


def test_full_queue_is_429_and_queues_nothing(guarded: httpx.Client) -> None:
    slow = {"language": "python", "code": "import time; time.sleep(1.5)", "tests": [{"expected_output": ""}]}
    distinct = [{**slow, "code": slow["code"] + f"  # {i}"} for i in range(4)]
    first = guarded.post("/v1/jobs", json={"submissions": distinct[:2]})  # fills the queue (one thread)
    assert first.status_code == 202
    refused = guarded.post("/v1/jobs", json={"submissions": distinct[2:]})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert "queue is full" in refused.json()["detail"]


def test_batch_items_fail_alone(redis_stack: Stack) -> None:
    sleeper = {"language": "python", "code": "import time; time.sleep(30)",
               "tests": [{"expected_output": ""}], "limits": {"time_limit_s": 1, "wall_time_limit_s": 1}}
    batch = [PY, {**PY, "language": "cobol"}, sleeper, CPP, {"language": "python"}]
    response = redis_stack.client.post("/v1/score/batch", json={"submissions": batch})
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert len(results) == 5
    assert results[0]["verdict"] == "wrong_answer" and results[0]["passed"] == 1
    assert results[1] == {"status": "invalid", "error": {"field": "language", "reason": results[1]["error"]["reason"]}}
    assert results[2]["verdict"] == "time_limit_exceeded"
    assert results[3]["verdict"] == "accepted" and results[3]["passed"] == 2
    assert results[4]["status"] == "invalid" and results[4]["error"]["field"] == "code"


@pytest.mark.slow
def test_humaneval_over_http_batch_and_jobs(redis_stack: Stack) -> None:
    problems = humaneval.load_problems()
    subs = [humaneval.to_submission(p, p["canonical_solution"]).model_dump(mode="json") for p in problems.values()]
    response = redis_stack.client.post("/v1/score/batch", json={"submissions": subs}, timeout=600)
    assert response.status_code == 200
    assert sum(r["verdict"] == "accepted" for r in response.json()["results"]) == 164
    created = redis_stack.client.post("/v1/jobs", json={"submissions": subs})
    assert created.status_code == 202
    job_id = created.json()["id"]
    deadline = time.monotonic() + 300
    while True:
        state = redis_stack.client.get(f"/v1/jobs/{job_id}").json()
        if state["status"] in ("completed", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert state["status"] == "completed" and state["done"] == state["total"] == 164
    assert sum(r["verdict"] == "accepted" for r in state["results"]) == 164


def test_unknown_job_is_404(standalone: Stack) -> None:
    assert standalone.client.get("/v1/jobs/doesnotexist").status_code == 404


def test_single_job_and_run(standalone: Stack) -> None:
    created = standalone.client.post("/v1/jobs", json=PY)
    job_id = created.json()["id"]
    for _ in range(300):
        state = standalone.client.get(f"/v1/jobs/{job_id}").json()
        if state["status"] == "completed":
            break
        time.sleep(0.05)
    assert state["result"]["verdict"] == "wrong_answer"
    ran = standalone.client.post("/v1/run", json={"language": "python", "code": "print(input()[::-1])", "stdin": "abc\n"})
    assert ran.status_code == 200
    body = ran.json()
    assert body["stdout"] == "cba\n" and body["exit_code"] == 0 and body["verdict"] == "accepted"
    assert body["peak_memory_kb"] > 0 and body["wall_time_s"] > 0


def test_killed_worker_loses_no_job(redis_stack: Stack) -> None:
    slow = {"language": "python", "code": "import time; time.sleep(2); print('done')",
            "tests": [{"expected_output": "done"}], "limits": {"time_limit_s": 5, "wall_time_limit_s": 8}}
    job_id = redis_stack.client.post("/v1/jobs", json=slow).json()["id"]
    deadline = time.monotonic() + 30
    while redis_stack.client.get(f"/v1/jobs/{job_id}").json()["status"] != "running":
        assert time.monotonic() < deadline, "job never started"
        time.sleep(0.05)
    victim = redis_stack.workers.pop(0)
    victim.kill(signal.SIGKILL)  # mid-job, no chance to clean up
    redis_stack.add_worker()
    deadline = time.monotonic() + 90
    while True:
        state = redis_stack.client.get(f"/v1/jobs/{job_id}").json()
        if state["status"] in ("completed", "failed"):
            break
        assert time.monotonic() < deadline, f"job stuck in {state['status']}"
        time.sleep(0.2)
    result = state["result"]
    # retried on the new worker (accepted), or, retries spent, ours: never a program verdict
    assert result["verdict"] in ("accepted", "sandbox_error")
    assert result["verdict"] == "accepted" or result["reward"] is None


def test_redis_outage_is_503_and_recovers(redis_stack: Stack) -> None:
    assert redis_stack.redis is not None
    redis_stack.redis.stop()
    try:
        ready = redis_stack.client.get("/readyz")
        assert ready.status_code == 503 and "Redis" in ready.json()["detail"]
        time.sleep(2.5)  # past the gateway's short language cache
        scored = redis_stack.client.post("/v1/score", json=PY)
        assert scored.status_code == 503 and "Redis" in scored.json()["detail"]
        assert "Retry-After" in scored.headers
    finally:
        redis_stack.redis.start()
    wait_ready(redis_stack.client, timeout_s=60, proc=redis_stack.gateway)
    again = redis_stack.client.post("/v1/score", json=PY)
    assert again.status_code == 200 and again.json()["verdict"] == "wrong_answer"
