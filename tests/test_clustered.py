"""Intervals over names, on synthetic trials whose true mean is known."""

import numpy as np
import pytest

from semres.core.clustered import clustered_mean, shared_members


def _dyads(rng, names: int, trials: int, mean: float, name_sd: float, noise_sd: float):
    """Trials listing two distinct names: value = mean + each name's own effect + noise.
    The names' effects are drawn afresh, so the design's true mean is ``mean``."""
    effect = rng.normal(0, name_sd, names)
    members = np.argsort(rng.random((trials, names)), axis=1)[:, :2]
    x = mean + effect[members].sum(1) + rng.normal(0, noise_sd, trials)
    return x, members


@pytest.mark.parametrize("names", [6, 60])
def test_interval_over_names_covers_where_the_naive_one_does_not(names):
    rng = np.random.default_rng(0)
    hits, naive, sims = 0, 0, 400
    for _ in range(sims):
        x, members = _dyads(rng, names, 600, 0.6, 0.05, 0.2)
        c = clustered_mean(x, members)
        hits += c["ci_low"] <= 0.6 <= c["ci_high"]
        half = 1.96 * c["se_iid"]
        naive += c["p"] - half <= 0.6 <= c["p"] + half
    # 95 % nominal; Monte Carlo error of a coverage over 400 runs is about 0.011. With only 6
    # names a sandwich estimator runs short (the known small-cluster bias: about 0.88 here),
    # the book's pools hold 60
    assert hits / sims > (0.85 if names == 6 else 0.92), hits / sims
    assert naive / sims < (0.4 if names == 6 else 0.85), naive / sims


def test_without_shared_names_it_is_the_ordinary_interval():
    rng = np.random.default_rng(1)
    x = rng.normal(0.5, 0.1, 200)
    members = np.arange(400).reshape(200, 2)  # every trial its own two names
    c = clustered_mean(x, members, p0=0.45)
    assert c["se"] == pytest.approx(c["se_iid"], rel=0.02)
    assert c["names"] == 400 and c["p_value"] < 1e-6


def test_shared_members_and_errors():
    s = shared_members(np.array([[0, 1], [1, 2], [3, 4]])).toarray()
    assert (s == np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]])).all()
    with pytest.raises(ValueError, match="members"):
        clustered_mean([0.1, 0.2, 0.3], np.array([[0, 1]]))
    with pytest.raises(ValueError, match="values"):
        clustered_mean([0.1], np.array([[0, 1]]))
    with pytest.raises(ValueError, match="level"):
        clustered_mean([0.1, 0.2], np.array([[0, 1], [1, 2]]), level=1.5)


def test_the_gate_keeps_its_power_and_size_when_names_repeat():
    """The gate's design (pairs asked about both people, both orders) at its size, with a
    per-name competence effect: one-sided test at 5 % over 60 names."""
    from semres.experiments.llm import competence as lm

    rng = np.random.default_rng(2)
    m = 4 * int(np.ceil(lm.gate_size() / 4))
    out = {}
    for mean in (0.5, 0.55):
        passed = 0
        for _ in range(300):
            skill = rng.normal(0, 0.03, 60)
            pairs = np.argsort(rng.random((m // 4, 60)), axis=1)[:, :2]
            members = np.repeat(pairs, 4, axis=0)
            asked = members[np.arange(m), np.tile([0, 1, 1, 0], m // 4)]
            p = np.clip(mean + skill[asked], 0, 1)
            x = rng.binomial(1, p).astype(float)  # the worst case: answers all or nothing
            passed += clustered_mean(x, members, p0=0.5)["p_value"] < 0.05
        out[mean] = passed / 300
    assert out[0.5] < 0.08 and out[0.55] > 0.72, out
