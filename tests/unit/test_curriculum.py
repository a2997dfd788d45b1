"""Pass-rate curriculum: hand-computed weights, movement toward the domain
within reach, the floor, determinism."""

from __future__ import annotations

import pytest

from trainer_client.curriculum import Curriculum, CurriculumSampler


def test_weights_by_hand() -> None:
    c = Curriculum(["easy", "hard", "mid"], decay=0.8, floor=0.05, prior=0.5)
    assert c.weights() == pytest.approx({"easy": 1 / 3, "hard": 1 / 3, "mid": 1 / 3})  # equal priors
    c.update("easy", [1.0, 1.0, 1.0, 1.0])  # p = 0.8 * 0.5 + 0.2 * 1.0 = 0.6
    c.update("hard", [0.0, 0.0])  # p = 0.8 * 0.5 + 0.2 * 0.0 = 0.4
    c.update("mid", [1.0, 0.0])  # p = 0.8 * 0.5 + 0.2 * 0.5 = 0.5
    assert c.pass_rate == pytest.approx({"easy": 0.6, "hard": 0.4, "mid": 0.5})
    # s = 0.6 * 0.4 = 0.24, 0.4 * 0.6 = 0.24, 0.5 * 0.5 = 0.25; sum 0.73; spread = 1 - 3 * 0.05 = 0.85
    # easy/hard: 0.05 + 0.85 * 0.24 / 0.73 = 0.3294521; mid: 0.05 + 0.85 * 0.25 / 0.73 = 0.3410959
    w = c.weights()
    assert w["easy"] == pytest.approx(0.3294521, abs=1e-6)
    assert w["hard"] == pytest.approx(0.3294521, abs=1e-6)
    assert w["mid"] == pytest.approx(0.3410959, abs=1e-6)
    assert sum(w.values()) == pytest.approx(1.0)


def test_weights_move_toward_the_domain_within_reach_and_respect_the_floor() -> None:
    c = Curriculum(["solved", "unsolved", "within"], decay=0.8, floor=0.05)
    history = []
    for _ in range(30):
        c.update_many(["solved"] * 4 + ["unsolved"] * 4 + ["within"] * 4,
                      [1.0] * 4 + [0.0] * 4 + [1.0, 0.0, 1.0, 0.0])
        w = c.weights()
        history.append(w)
        assert min(w.values()) >= 0.05 - 1e-12
        assert sum(w.values()) == pytest.approx(1.0)
    within = [w["within"] for w in history]
    assert all(b > a for a, b in zip(within, within[1:], strict=False))  # rises every update
    # after 30 updates p_solved = 1 - 0.5 * 0.8^30 = 0.99938, s = 0.00062 -> 0.05 + 0.85 * 0.00062 / 0.25124 = 0.0521
    assert history[-1]["solved"] == pytest.approx(0.0521, abs=2e-4)
    assert history[-1]["unsolved"] == pytest.approx(0.0521, abs=2e-4)
    assert history[-1]["within"] > 0.89  # -> 1 - 2 * 0.05 = 0.9
    # sampling follows the weights
    draws = c.sample(2000)
    assert draws.count("within") > 1600 and draws.count("solved") > 40 and draws.count("unsolved") > 40


def test_floor_holds_at_the_extremes() -> None:
    c = Curriculum(["a", "b", "c", "d"], decay=0.0, floor=0.1)
    c.update("a", [1.0])  # p = 1 exactly (decay 0): s = 0
    c.update("b", [0.0])  # p = 0: s = 0
    c.update("c", [1.0, 0.0, 0.0, 0.0])  # p = 0.25: s = 0.1875
    c.update("d", [1.0, 1.0, 1.0, 0.0])  # p = 0.75: s = 0.1875
    # spread = 1 - 4 * 0.1 = 0.6; c, d: 0.1 + 0.6 * 0.5 = 0.4; a, b: exactly the floor
    assert c.weights() == pytest.approx({"a": 0.1, "b": 0.1, "c": 0.4, "d": 0.4})
    c.update("c", [1.0])
    c.update("d", [0.0])
    assert c.weights() == pytest.approx({k: 0.25 for k in "abcd"})  # no signal anywhere: uniform
    with pytest.raises(ValueError):
        Curriculum(["a", "b", "c", "d"], floor=0.3)  # 4 * 0.3 > 1


def test_none_rewards_do_not_count() -> None:
    c = Curriculum(["a"], decay=0.5)
    c.update("a", [None, None])
    assert c.pass_rate["a"] == 0.5 and c.scored["a"] == 0
    c.update("a", [None, 1.0])  # one scored sample, a pass: p = 0.5 * 0.5 + 0.5 * 1 = 0.75
    assert c.pass_rate["a"] == 0.75 and c.scored["a"] == 1


def test_deterministic_given_a_seed() -> None:
    def run(seed: int) -> list[object]:
        c = Curriculum(["x", "y", "z"], seed=seed)
        out: list[object] = []
        for step in range(10):
            keys = c.sample(8)
            out.extend(keys)
            c.update_many(keys, [float((i + step) % 3 == 0) for i in range(8)])
        return out

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_sampler_for_the_grpo_loop() -> None:
    domains = ["py", "py", "cpp", "cpp", "cpp"]
    s1 = CurriculumSampler(domains, seed=4)
    s2 = CurriculumSampler(domains, seed=4)
    for _ in range(5):
        picks = s1.sample(6)
        assert picks == s2.sample(6)
        assert all(0 <= i < 5 for i in picks)
        rewards: list[float | None] = [1.0 if domains[i] == "py" else 0.0 for i in picks]
        s1.update(picks, rewards)
        s2.update(picks, rewards)
    # py always passes, cpp never: both moved off the prior 0.5
    assert s1.curriculum.pass_rate["py"] > 0.5 > s1.curriculum.pass_rate["cpp"]
    with pytest.raises(ValueError):
        CurriculumSampler(["a", "b"], Curriculum(["a"]))
