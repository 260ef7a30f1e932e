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


def test_the_cluster_bootstrap_variance_matches_a_known_one():
    """40 clusters of 10 rows, a cluster effect (sd 0.3) and row noise (sd 1): the mean's
    variance is (40 * 100 * 0.09 + 400) / 400² = 0.00475. Over 300 simulated data sets, the
    Monte Carlo variance of the mean and the bootstrap's mean variance (times G / (G - 1),
    the plug-in factor) each lie within 3 of their standard errors of it."""
    from semres.core.clustered import cluster_bootstrap
    from semres.core.seeds import named_seed

    def bootstrap_se(x, clusters, seed):
        return cluster_bootstrap(lambda w: (w @ x) / w.sum(), clusters, 200, seed).std(ddof=1)

    rng = np.random.default_rng(11)
    g, per, sims = 40, 10, 300
    truth = (g * per ** 2 * 0.09 + g * per) / (g * per) ** 2
    clusters = np.repeat(np.arange(g), per)
    means, var_boot = [], []
    for i in range(sims):
        x = 0.3 * rng.standard_normal(g)[clusters] + rng.standard_normal(g * per)
        means.append(x.mean())
        var_boot.append(bootstrap_se(x, clusters, named_seed(0, "test bootstrap", i)) ** 2
                        * g / (g - 1))
    mc = np.var(means, ddof=1)
    assert abs(mc - truth) < 3 * truth * np.sqrt(2 / (sims - 1)), (mc, truth)
    boot = np.mean(var_boot)
    assert abs(boot - truth) < 3 * np.std(var_boot) / np.sqrt(sims) + 0.05 * truth, (boot, truth)
    # a bootstrap that ignored the clusters (every row its own) runs far short
    assert bootstrap_se(x, np.arange(g * per), named_seed(0, "naive")) ** 2 < 0.5 * truth


def test_the_bootstrap_is_seeded_and_refuses_bad_arguments():
    from semres.core.clustered import cluster_bootstrap, psd
    from semres.core.seeds import named_seed

    x = np.arange(12.0)
    cl = np.repeat(np.arange(4), 3)
    a = cluster_bootstrap(lambda w: w @ x / w.sum(), cl, 20, named_seed(1, "a"))
    b = cluster_bootstrap(lambda w: w @ x / w.sum(), cl, 20, named_seed(1, "a"))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="seed"):
        cluster_bootstrap(lambda w: 0.0, cl, 20, None)
    with pytest.raises(ValueError, match="n_boot"):
        cluster_bootstrap(lambda w: 0.0, cl, 1, 0)
    with pytest.raises(ValueError, match="clusters"):
        cluster_bootstrap(lambda w: 0.0, np.zeros(5), 10, 0)
    # the eigenvalue fix: a matrix with a negative eigenvalue becomes PSD, no variance shrinks
    m = np.array([[1.0, 2.0], [2.0, 1.0]])
    fixed = psd(m)
    assert np.linalg.eigvalsh(fixed).min() > -1e-12
    assert (np.diag(fixed) >= np.diag(m) - 1e-12).all()
    with pytest.raises(ValueError, match="cov"):
        psd(np.ones(3))
