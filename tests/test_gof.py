"""semres.core.fits goodness of fit: each test rejects a wrong model and accepts a right one, at
its nominal rate.

Calibration: over N simulated data sets a right model must be accepted at alpha = 0.05 in a
share within 4 binomial standard errors of 0.95 (sqrt(0.95 * 0.05 / N)); a wrong model must be
rejected at MISFIT_P in every one of several seeds.
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from semres.core import fits
from semres.report.verdicts import misfit_warning
from semres.core.seeds import named_seed

X = np.linspace(-2, 2, 12)


def _logistic(theta, x=X):
    return 1 / (1 + np.exp(-(theta[0] + theta[1] * x)))


def _fit_logistic(n, k, x=X):
    def nll(th):
        p = np.clip(_logistic(th, x), 1e-12, 1 - 1e-12)
        return -np.sum(k * np.log(p) + (n - k) * np.log1p(-p))

    return _logistic(minimize(nll, np.zeros(2), method="BFGS").x, x)


def _fit_constant(n, k):
    return np.full(len(n), k.sum() / n.sum())


def _sequential_p(stat, sims, hits=10):
    """Besag and Clifford's p-value read off a full bootstrap's draws in order: hits / l at the
    l-th draw that reaches ``stat`` the ``hits``-th time, else (1 + reached) / (1 + B)."""
    reached = np.asarray(sims) >= stat - 1e-9 * max(1.0, abs(stat))
    at = np.flatnonzero(np.cumsum(reached) == hits)
    return hits / (at[0] + 1) if at.size else (1 + reached.sum()) / (1 + len(sims))


def _accept_band(sims):
    se = math.sqrt(0.95 * 0.05 / sims)
    return 0.95 - 4 * se, 0.95 + 4 * se


def test_binomial_deviance_matches_a_hand_computation_and_is_zero_for_the_saturated_fit():
    n, k, p = np.array([10.0, 20.0]), np.array([3.0, 20.0]), np.array([0.5, 0.9])
    hand = 2 * (3 * math.log(3 / 5) + 7 * math.log(7 / 5) + 20 * math.log(20 / 18))
    assert fits.binomial_deviance(n, k, p) == pytest.approx(hand, rel=1e-12)
    assert fits.binomial_deviance(n, k, k / n) == pytest.approx(0.0, abs=1e-12)


def test_binomial_deviance_rejects_a_constant_fit_to_a_logistic_curve_and_accepts_the_logistic():
    n = np.full(len(X), 60.0)
    truth = _logistic((0.2, 0.8))
    for seed in range(5):
        k = np.random.default_rng(seed).binomial(60, truth).astype(float)
        wrong = fits.gof_binomial(n, k, _fit_constant(n, k), 1)
        assert wrong["gof_test"] == "binomial deviance, chi-square reference"
        assert wrong["gof_df"] == len(X) - 1 and wrong["misfit"] and wrong["gof_p"] < 1e-6
        right = fits.gof_binomial(n, k, _fit_logistic(n, k), 2)
        assert not right["misfit"] and right["gof_df"] == len(X) - 2


def test_binomial_deviance_accepts_the_right_model_at_its_nominal_rate():
    sims, n = 200, np.full(len(X), 60.0)
    truth = _logistic((0.2, 0.8))
    rng = np.random.default_rng(11)
    ps = []
    for _ in range(sims):
        k = rng.binomial(60, truth).astype(float)
        ps.append(fits.gof_binomial(n, k, _fit_logistic(n, k), 2)["gof_p"])
    lo, hi = _accept_band(sims)
    assert lo <= np.mean(np.array(ps) >= 0.05) <= hi


def test_sparse_or_fractional_cells_get_no_chi_square_reference():
    n = np.full(len(X), 3.0)
    k = np.random.default_rng(0).binomial(3, 0.5, len(X)).astype(float)
    sparse = fits.gof_binomial(n, k, _fit_constant(n, k), 1)
    assert math.isnan(sparse["gof_p"]) and "fewer than 5" in sparse["gof_test"]
    assert not sparse["misfit"] and sparse["gof_stat"] > 0
    frac = fits.gof_binomial(np.full(4, 100.0), np.array([50.5, 40.2, 60.0, 55.0]),
                             np.full(4, 0.51), 1)
    assert math.isnan(frac["gof_p"]) and "fractional" in frac["gof_test"]


def test_parametric_bootstrap_rejects_a_wrong_model_on_sparse_cells():
    x = np.linspace(-3, 3, 40)
    n = np.full(len(x), 4.0)  # 4 trials a cell: the chi-square reference does not hold
    truth = _logistic((0.0, 1.5), x)
    for seed in range(3):
        k = np.random.default_rng(seed).binomial(4, truth).astype(float)
        wrong = fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant,
                                   fits.MIN_GOF_BOOT, seed)
        assert wrong["misfit"] and wrong["gof_p"] == pytest.approx(1 / 1001)
        assert "parametric bootstrap" in wrong["gof_test"]
        assert wrong["gof_resolution"] == pytest.approx(1 / 1001) and "p < 0.001" in \
            wrong["gof_test"]
        # with fewer than 1 / MISFIT_P refits the smallest p-value is above MISFIT_P: the
        # rule is then p <= 1/(B + 1), and the test says so
        few = fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 99, seed)
        assert few["gof_p"] == pytest.approx(1 / 100) and few["misfit"]
        assert few["gof_resolution"] == pytest.approx(1 / 100) and "smallest possible value" in \
            few["gof_test"]


def test_parametric_bootstrap_accepts_the_right_model_at_its_nominal_rate():
    sims, n = 200, np.full(30, 3.0)
    rng = np.random.default_rng(5)
    ps = []
    for j in range(sims):
        k = rng.binomial(3, 0.3, 30).astype(float)
        ps.append(fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 99, j)["gof_p"])
    lo, hi = _accept_band(sims)
    assert lo <= np.mean(np.array(ps) >= 0.05) <= hi


def test_parametric_bootstrap_is_seeded_and_checks_its_arguments():
    n, k = np.full(10, 5.0), np.arange(10.0) % 5
    a = fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 50, 3)
    assert a == fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 50, 3)
    with pytest.raises(ValueError, match="n_boot"):
        fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 0, 3)
    with pytest.raises(ValueError, match="n_params"):
        fits.gof_binomial(n, k, _fit_constant(n, k), 10)
    with pytest.raises(ValueError, match="correct"):
        fits.gof_binomial(n, k + 6, _fit_constant(n, k), 1)


def _line_fit(x, y, se):
    A = np.c_[np.ones_like(x), x] / se[:, None]
    coef = np.linalg.lstsq(A, y / se, rcond=None)[0]
    return coef[0] + coef[1] * x


def test_chi_square_rejects_a_line_through_a_parabola_and_accepts_it_through_a_line():
    x = np.linspace(0, 1, 25)
    se = np.full(len(x), 0.05)
    for seed in range(5):
        noise = np.random.default_rng(seed).normal(0, 0.05, len(x))
        curved = 4 * (x - 0.5) ** 2 + noise
        wrong = fits.gof_chi2(curved, _line_fit(x, curved, se), se, 2)
        assert wrong["misfit"] and wrong["gof_df"] == 23
        straight = 1 + 2 * x + noise
        assert not fits.gof_chi2(straight, _line_fit(x, straight, se), se, 2)["misfit"]
    with pytest.raises(ValueError, match="se"):
        fits.gof_chi2(x, x, np.zeros_like(x), 1)


def test_chi_square_accepts_the_right_model_at_its_nominal_rate():
    sims, x = 200, np.linspace(0, 1, 25)
    se = np.linspace(0.02, 0.1, len(x))  # unequal errors, weighted correctly
    rng = np.random.default_rng(2)
    ps = [fits.gof_chi2(y, _line_fit(x, y, se), se, 2)["gof_p"]
          for y in (1 + 2 * x + rng.normal(0, se) for _ in range(sims))]
    lo, hi = _accept_band(sims)
    assert lo <= np.mean(np.array(ps) >= 0.05) <= hi


def test_misfit_warning_names_the_test_and_none_says_why():
    bad = {"misfit": True, "gof_test": "chi-square", "gof_stat": 90.0, "gof_df": 10.0,
           "gof_p": 1e-12}
    assert "does not describe its data" in misfit_warning("the kernel", bad)
    assert misfit_warning("the kernel", {"misfit": False}) is None
    none = fits.gof_none("no standard errors")
    assert set(none) == set(fits.GOF_KEYS) and none["gof_test"].startswith("none")
    # an untested fit is neither a pass nor a misfit
    assert none["misfit"] is None and math.isnan(none["gof_p"])


def test_untested_rows_read_as_untested_in_a_table(tmp_path):
    import pandas as pd

    y = np.array([0.1, 0.2, 0.3, 0.5])
    rows = [fits.gof_chi2(y, y, np.full(4, 0.1), 1), fits.gof_none("not kept"),
            fits.gof_chi2(y + 1, y, np.full(4, 0.1), 1)]
    table = fits.gof_frame(rows)
    assert table.misfit.isna().tolist() == [False, True, False]
    assert table.gof_tested.tolist() == [True, False, True]
    assert int(table.misfit.sum()) == 1  # the untested row counts neither way
    table.to_csv(tmp_path / "t.csv", index=False)
    back = pd.read_csv(tmp_path / "t.csv")
    assert back.misfit.isna().tolist() == [False, True, False]  # empty, not False


def test_a_bootstrap_p_value_reports_its_resolution_and_the_rule_it_allows():
    # 1000 refits resolve p = 1/1001 < 0.001: the usual rule
    p, res = fits.gof_p_bootstrap(10.0, np.zeros(1000))
    assert p == res == pytest.approx(1 / 1001)
    assert fits.gof_result("t", 10.0, 3, p, res)["misfit"] is True
    assert fits.misfit_rule(res) == "p < 0.001"
    # 50 refits cannot reach p < 0.001: the rule becomes p <= 1/51 and says so
    p, res = fits.gof_p_bootstrap(10.0, np.zeros(50))
    assert p == res == pytest.approx(1 / 51)
    assert fits.gof_result("t", 10.0, 3, p, res)["misfit"] is True
    assert "smallest possible value" in fits.misfit_rule(res) and "50 refits" in fits.misfit_rule(res)
    p, res = fits.gof_p_bootstrap(1.0, np.r_[np.zeros(49), 2.0])  # one refit reached it
    assert p == pytest.approx(2 / 51) and fits.gof_result("t", 1.0, 3, p, res)["misfit"] is False
    with pytest.raises(ValueError, match="resolution"):
        fits.misfit_rule(-1)
    with pytest.raises(ValueError, match="simulated"):
        fits.gof_p_bootstrap(1.0, [])


def test_named_seeds_differ_by_name_and_repeat_by_seed():
    a = np.random.default_rng(named_seed(3, "gof")).random()
    assert a == np.random.default_rng(named_seed(3, "gof")).random()
    assert a != np.random.default_rng(named_seed(3, "other")).random()
    ss = np.random.SeedSequence(3)
    assert (np.random.default_rng(named_seed(ss, "gof")).random()
            != np.random.default_rng(ss).random())


# ---------------------------------------------------------------- the fits of
# semres.experiments.llm.years

def _two_ref_counts(p_of_offset, seed, centres=10, prompts=20, fractional=False):
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for D in (20, 60):
        off = np.arange(-150, 151, 15.0)
        p = p_of_offset(off, D)
        for c in range(centres):
            k = p * prompts if fractional else rng.binomial(prompts, p)
            rows.append(pd.DataFrame({"centre": float(c), "D": float(D), "offset": off,
                                      "trials": float(prompts), "correct": k.astype(float)}))
    return pd.concat(rows, ignore_index=True)


def test_two_reference_fit_accepts_its_own_curve_and_rejects_a_step():
    from semres.core import kernels
    from semres.experiments.llm import two_reference as years

    right = lambda off, D: years.two_reference(off, D, kernels.Exponential(40.0, 0.05))  # noqa
    step = lambda off, D: np.where(np.abs(np.abs(off) - D) < 40, 0.97, 0.5)  # noqa: E731
    for seed in range(2):
        ok = years.fit_two_reference(_two_ref_counts(right, seed), 0, seed, gof_boot=200)
        assert not ok["misfit"] and ok["gof_p"] > 1e-3 and ok["gof_df"] == 40 - 2
        bad = years.fit_two_reference(_two_ref_counts(step, seed), 0, seed,
                                      gof_boot=fits.MIN_GOF_BOOT)
        assert bad["misfit"], bad
    assert set(fits.GOF_KEYS) <= set(ok) and "p_fit" not in ok


def test_two_reference_fit_on_expected_masses_uses_the_parametric_bootstrap():
    from semres.core import kernels
    from semres.experiments.llm import two_reference as years

    right = lambda off, D: years.two_reference(off, D, kernels.Exponential(40.0, 0.05))  # noqa
    fit = years.fit_two_reference(_two_ref_counts(right, 0, fractional=True), 0, 0, gof_boot=50)
    assert "parametric bootstrap" in fit["gof_test"]
    # the expected masses lie on the curve: no sampled answers could fit it better
    assert fit["gof_stat"] < 1e-6 and fit["gof_p"] == 1.0
    bare = years.fit_two_reference(_two_ref_counts(right, 0, fractional=True), 0, 0, gof_boot=0)
    assert "fractional" in bare["gof_test"] and math.isnan(bare["gof_p"])


def test_kernel_fits_accept_their_shape_and_reject_a_power_law_given_standard_errors():
    from semres.experiments.llm import kernel_fits as years

    fit = years.fit_shape
    d = np.arange(0, 200.0)
    expo = np.exp(-d / 20) + 0.05
    power = (1 + d / 3) ** -1.5 + 0.02
    for seed in range(3):
        rng = np.random.default_rng(seed)
        se_e, se_p = 0.01 * expo, 0.01 * power  # 1% errors
        ok = fit(d, expo * (1 + 0.01 * rng.normal(size=d.size)), se=se_e)
        assert ok["gof_test"] == "chi-square of standardised residuals" and not ok["misfit"]
        assert fit(d, power * (1 + 0.01 * rng.normal(size=d.size)), se=se_p)["misfit"]
    assert fit(d, expo)["gof_test"] == "none: no standard errors given"
    with pytest.raises(ValueError, match="se"):
        fit(d, expo, se=np.ones(3))


def test_sparse_counts_get_a_refitted_bootstrap_and_dense_ones_chi_square():
    """One rate fitted to rows of two options: on dense rows (200 answers each) the chi-square
    reference holds; on sparse rows (6 answers each) it does not, and the parametric bootstrap
    with refits takes over, giving a p-value that is uniform under the model (its rejection
    rate at 5 % stays near 5 %)."""
    from semres.core import fits

    def refit(counts):
        p = counts[:, 0].sum() / counts.sum()
        return np.tile([p, 1 - p], (len(counts), 1))

    rng = np.random.default_rng(0)
    dense = np.c_[rng.binomial(200, 0.3, 12)]
    dense = np.c_[dense, 200 - dense]
    g = fits.gof_counts(dense, refit(dense), 1, refit, 99, 1)
    assert g["gof_test"].endswith("chi-square reference")
    rejected = []
    for k in range(60):
        k_ok = rng.binomial(6, 0.3, 12)
        sparse = np.c_[k_ok, 6 - k_ok]
        g = fits.gof_counts(sparse, refit(sparse), 1, refit, 99, k)
        assert "parametric bootstrap" in g["gof_test"] and "cells expect fewer" in g["gof_test"]
        rejected.append(g["gof_p"] < 0.05)
    assert np.mean(rejected) < 0.2
    # a misfit is found: rows alternate between two rates a single rate cannot describe
    k_ok = np.where(np.arange(12) % 2, rng.binomial(6, 0.05, 12), rng.binomial(6, 0.95, 12))
    bad = np.c_[k_ok, 6 - k_ok]
    assert fits.gof_counts(bad, refit(bad), 1, refit, 99, 2)["gof_p"] <= 0.01
    # without a refit, sparse cells get the statistic and no reference
    assert np.isnan(fits.gof_counts(bad, refit(bad), 1)["gof_p"])


def test_the_bootstrap_refits_only_draws_that_could_reach_the_statistic():
    """Draws already below the observed deviance at the fit are not refitted (a refit cannot
    raise the deviance): the p-value is the (sequential) one refitting every draw gives, computed
    here by refitting all of them from the same random draws, on fits that pass and fits that
    fail."""
    from semres.core import fits

    calls = []

    def refit(counts):
        calls.append(1)
        p = counts[:, 0].sum() / counts.sum()
        return np.tile([p, 1 - p], (len(counts), 1))

    rng = np.random.default_rng(3)
    rates = [np.full(12, 0.3), np.where(np.arange(12) % 2, 0.2, 0.45),
             np.where(np.arange(12) % 2, 0.05, 0.95)]
    for r, rate in enumerate(rates):
        k_ok = rng.binomial(6, rate)
        counts = np.c_[k_ok, 6 - k_ok].astype(float)
        q = refit(counts)
        calls.clear()
        got = fits.gof_counts(counts, q, 1, refit, 199, r)
        refitted = len(calls)
        stat = fits.multinomial_deviance(counts, q)
        draws = np.random.default_rng(r)  # every draw refitted, in the same order
        sims = []
        for _ in range(199):
            sim = np.array([draws.multinomial(6, q[i] / q[i].sum()) for i in range(12)], float)
            sims.append(fits.multinomial_deviance(sim, refit(sim)))
        assert got["gof_p"] == pytest.approx(_sequential_p(stat, sims), rel=1e-12)
        if r == 0:
            assert not got["misfit"] and refitted > 0  # a good fit: draws reach it
    assert got["misfit"] and refitted < 20  # the clear misfit: almost no refit


def test_the_binomial_bootstrap_refits_only_what_could_reach_the_statistic():
    """The same for binomial cells (a rate per cell from one slope): the p-value equals the
    (sequential) one from refitting every draw, here recomputed with the same draws."""
    from scipy.optimize import minimize_scalar

    from semres.core import fits

    x = np.linspace(0, 1, 10)
    n = np.full(10, 8.0)
    calls = []

    def refit(t, k):
        calls.append(1)
        def rates(a):
            return 1 / (1 + np.exp(-a * (x - 0.5)))

        r = minimize_scalar(lambda a: fits.binomial_deviance(t, k, rates(a)), bounds=(-20, 20),
                            method="bounded")
        return rates(r.x)

    rng = np.random.default_rng(5)
    for seed, truth in enumerate([1 / (1 + np.exp(-4 * (x - 0.5))), np.where(x < 0.5, 0.9, 0.1),
                                  0.5 + 0.45 * np.cos(6 * x)]):
        k = rng.binomial(8, truth).astype(float)
        p = refit(n, k)
        calls.clear()
        got = fits.gof_bootstrap(n, k, p, 1, refit, 199, seed)
        refitted = len(calls)
        draws = np.random.default_rng(seed)
        sims = []
        for _ in range(199):
            ks = draws.binomial(np.round(n).astype(np.int64), p).astype(float)
            sims.append(fits.binomial_deviance(n, ks, refit(n, ks)))
        assert got["gof_p"] == pytest.approx(
            _sequential_p(fits.binomial_deviance(n, k, p), sims), rel=1e-12)
        if seed == 0:
            assert not got["misfit"] and refitted > 0
    assert got["misfit"] and refitted < 20


def test_a_bootstrap_of_999_refits_none_reaching_the_statistic_is_a_misfit():
    # its smallest p-value is 1/1000 = 0.001, which "p < 0.001" can never meet: the rule for
    # coarse bootstraps (p at its smallest possible value) must apply, as it does below 999
    from semres.core import fits

    p, res = fits.gof_p_bootstrap(50.0, np.zeros(999))
    assert p == pytest.approx(0.001) and fits.gof_result("t", 50.0, 10, p, res)["misfit"]
    p, res = fits.gof_p_bootstrap(50.0, np.zeros(1999))
    assert fits.gof_result("t", 50.0, 10, p, res)["misfit"]  # p = 0.0005 < 0.001
    p, res = fits.gof_p_bootstrap(50.0, np.r_[np.zeros(997), 60.0, 70.0])
    assert not fits.gof_result("t", 50.0, 10, p, res)["misfit"]  # p = 0.003


def _full_bootstrap(n, k, n_boot, seed):
    """Every draw of :func:`fits.gof_bootstrap` with a constant rate, refitted: (statistic,
    refitted deviances, the deviances it keeps: at the fit where that is short of the
    statistic, else refitted)."""
    p = _fit_constant(n, k)
    stat = fits.binomial_deviance(n, k, p)
    rng = np.random.default_rng(seed)
    whole = np.round(n).astype(np.int64)
    sims, kept = [], []
    for _ in range(n_boot):
        ks = rng.binomial(whole, p).astype(float)
        sims.append(fits.binomial_deviance(n, ks, _fit_constant(n, ks)))
        at_fit = fits.binomial_deviance(n, ks, p)
        kept.append(at_fit if at_fit < stat - 1e-9 * stat else min(at_fit, sims[-1]))
    return stat, np.array(sims), np.array(kept)


def test_the_sequential_p_value_gives_the_full_bootstraps_verdict_and_p_within_its_precision():
    """Besag and Clifford's stop against the full 999 refits from the same draws, on sparse cells
    whose rate is constant (the fit is right), drifts a little (p anywhere) or a lot (a misfit):
    the verdict is always the full one's; a test that stopped reads p to its stated precision,
    its log within 4 / sqrt(10) of the full p's every time and within 1 / sqrt(10) (about one
    standard error, sqrt((1 - p) / 10) at most) in most; one that did not stop gives the full
    p exactly."""
    n, x, hits = np.full(30, 3.0), np.linspace(-1, 1, 30), fits.SEQUENTIAL_HITS
    stopped, full_runs, close = 0, 0, []
    for j in range(45):
        slope = (0.0, 0.8, 3.0)[j % 3]
        k = np.random.default_rng(j).binomial(3, 1 / (1 + np.exp(-slope * x))).astype(float)
        got = fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 999, j)
        stat, sims, kept = _full_bootstrap(n, k, 999, j)
        p_full, res = fits.gof_p_bootstrap(stat, sims)
        assert got["misfit"] == fits.gof_result("t", stat, 29, p_full, res)["misfit"]
        assert got["gof_resolution"] == pytest.approx(1 / 1000)
        if "sequential" in got["gof_test"]:
            stopped += 1
            drawn = int(got["gof_test"].split("stopped after ")[1].split(" ")[0])
            assert got["gof_p"] == pytest.approx(hits / drawn) == _sequential_p(stat, sims, hits)
            assert abs(math.log(got["gof_p"] / p_full)) <= 4 / math.sqrt(hits)
            close.append(abs(math.log(got["gof_p"] / p_full)) <= 1 / math.sqrt(hits))
            assert got["gof_null_mean"] == pytest.approx(kept[:drawn].mean())
        else:
            full_runs += 1
            assert "(999 refits;" in got["gof_test"] and got["gof_p"] == pytest.approx(p_full)
    assert stopped >= 15 and full_runs >= 10 and np.mean(close) >= 0.6


def test_a_clear_misfit_runs_every_refit():
    """A misfit never reaches the stop: all 999 draws run (the deviance's null mean is theirs),
    the p-value is the full bootstrap's smallest, 1 / 1000, and the test says 999 refits; the
    same for counts."""
    n = np.full(40, 4.0)
    k = np.random.default_rng(1).binomial(4, _logistic((0.0, 1.5), np.linspace(-3, 3, 40)))
    k = k.astype(float)
    got = fits.gof_bootstrap(n, k, _fit_constant(n, k), 1, _fit_constant, 999, 4)
    stat, sims, kept = _full_bootstrap(n, k, 999, 4)
    assert got["misfit"] and got["gof_p"] == pytest.approx(1 / 1000)
    assert "(999 refits;" in got["gof_test"] and "sequential" not in got["gof_test"]
    assert got["gof_null_mean"] == pytest.approx(kept.mean())

    def refit(counts):
        p = counts[:, 0].sum() / counts.sum()
        return np.tile([p, 1 - p], (len(counts), 1))

    bad = np.c_[k, 4 - k]
    g = fits.gof_counts(bad, refit(bad), 1, refit, 999, 5)
    assert g["misfit"] and g["gof_p"] == pytest.approx(1 / 1000) and "(999 refits;" in g["gof_test"]


def test_the_stop_never_settles_a_verdict_the_full_bootstrap_could_reverse():
    """With so many refits that 10 exceedances still leave the full p below MISFIT_P, the stop
    waits for enough of them: a fit whose full p is 0.0005 (24 of 49,999 draws reaching it)
    is a misfit however the draws fall."""
    assert fits._stop_at(999) == fits.SEQUENTIAL_HITS
    for n_boot in (999, 9_999, 49_999, 99_999):
        stop = fits._stop_at(n_boot)
        assert (1 + stop) / (1 + n_boot) >= fits.MISFIT_P  # the full p once the stop is reached
        p_stopped = stop / n_boot  # the smallest p a stop can report
        assert not fits.gof_result("t", 1.0, 1, p_stopped, 1 / (1 + n_boot))["misfit"]
    stat = 10.0
    sims = np.r_[np.full(24, 11.0), np.zeros(49_999 - 24)]
    p, res = fits.gof_p_bootstrap(stat, sims)
    assert fits.gof_result("t", stat, 1, p, res)["misfit"]
    assert fits._stop_at(49_999) > 24  # so the sequential run would not have stopped
