"""semres.experiments.llm.lm_protocol: the whole protocol on a tiny Llama that passes its gate and
one that guesses, the n-sweep's interval over lists of names and the kernel read from choices."""

import numpy as np
import pandas as pd
import pytest
from tiny_lm import NAMES, YEARS

from semres.core import results
from semres.experiments.llm import lm, lm_protocol, near, settings, trials, verdicts


def _design_cfg():
    return settings.QUICK.replace(
        sweep_years=YEARS, gate_trials=0, reverse_trials=40, lm_dtype="float32",
        probe=(4, 1500, 1515, 1), probe_permutations=9, lm_ns=(2, 3), causal_trials=40,
        near_Ds=(3,), near_xs=(0, 1, 3), near_pairs=2, near_centres=(1507, 1510),
        near_near=0, near_far=3, lm_temperatures=(0.5, 1.0))


def test_a_model_that_passes_gets_the_whole_protocol_and_a_guesser_none(tok, trained, guesser):
    cfg = _design_cfg()
    out = lm_protocol.assess((trained, tok), device="cpu", seed=3, cfg=cfg, names=NAMES,
                             progress=False)
    assert out["gate"]["verdict"] == "passes"
    rows = out["rows"]
    assert set(rows.source) == {"gate", "reverse question", "n-sweep", near.SOURCE}
    assert rows.prompt.str.len().gt(0).all()
    results.validate(rows)
    sweep = lm_protocol.sweep_table(rows[rows.source.isin(["gate", "n-sweep"])])
    ide = sweep[sweep.task == "identification"].set_index("n")
    assert set(ide.index) == {2, 3} and ide.p[2] > 0.6  # the trained model identifies
    forms = verdicts.theorem3_forms(sweep, gof_boot=0, seed=0)  # the page's Theorem 3
    assert all(0 < f["b"] < 1 and np.isfinite(f["deviance"]) for f in forms.values())
    design = near.trial_table(rows)
    assert set(design.D) == {3} and design.pair.nunique() == 2
    # the probes the similarity verdict reads (x = 0 and 3) always; x = 1 only in stage 2
    assert {0, 3} <= set(design[design["where"] == "beyond"].x) <= {0, 1, 3}
    # the trained model knows only the listed years: it is judged, never crashes
    assert near.competence(design, near=1, far=3)["verdict"] in ("passes",
                                                                  "does not do the task")
    r = lm_protocol.analyse(out, temperatures=cfg.lm_temperatures, does_similarity=False,
                            seed=0)
    assert "kernel" not in r and r["uniform"]["trials"] > 0
    # the temperature sweep rescales the same scores: at T = 1 it is the Luce mass itself
    temps = lm_protocol.temperature_sweep(rows[rows.source.isin(["gate", "n-sweep"])],
                                          [1.0, 0.5])
    two = rows[(rows.n == 2) & (rows.task == "identification") & (rows.source == "gate")]
    assert temps.p_i.iloc[-1] == pytest.approx(lm_protocol.masses(two).mean())

    stopped = lm_protocol.assess((guesser, tok), device="cpu", seed=3, cfg=cfg, names=NAMES,
                                 progress=False)
    assert stopped["gate"]["verdict"] == "does not do the task"
    # no n-sweep without the gate; the near design runs for every model
    assert set(stopped["rows"].source) == {"gate", "reverse question", near.SOURCE}
    # the near design in two stages: the second only for a model that does similarity on the
    # first, whose verdict reads the probes at x = 0 and x = 3 beyond the pair (not x = 1)
    for a in (out, stopped):
        st, n_near = a["near_stages"], (a["rows"].source == near.SOURCE).sum()
        t = near.trial_table(a["rows"])
        does = near.competence(t[t.x != 1], near=0, far=3)["does"]
        assert st["stage 1"] == 2 * 2 * 2 * 2 and st["design"] == 2 * 2 * 2 * (3 + 1)
        assert n_near == st["stage 1"] + st["stage 2"]
        assert st["stage 2"] == (st["design"] - st["stage 1"] if does else 0)
    assert len(lm_protocol.all_rows({"a": out, "b": stopped})) == len(rows) + len(
        stopped["rows"])


def test_the_sweep_interval_counts_lists_of_names_not_names():
    """A design whose true variance is known: 10 lists of 8 of 60 names, asked 16 times each,
    every list with its own pull (sd 0.1): the mean's variance is 0.1² / 10 + trial noise. The
    sweep's standard error matches the spread of the mean over 200 simulated sweeps and its
    interval covers the truth; one that takes the 60 names as the units runs short."""
    tr = trials.balanced_trials("identification", 8, 10, 0, years=(1500, 1999),
                                n_names=len(settings.NAMES))
    lists = np.repeat(np.arange(10), 16)
    rng = np.random.default_rng(1)
    means, ses, covered, name_ses = [], [], [], []
    for _ in range(200):
        m = np.clip(0.6 + 0.1 * rng.standard_normal(10)[lists]
                    + 0.02 * rng.standard_normal(len(tr)), 0.01, 0.99)
        scores = np.where(tr.correct, np.log(m)[:, None], np.log((1 - m) / 7)[:, None])
        scored = lm.ScoredTrials(tr, settings.NAMES, ["p"] * len(tr), scores, "sim",
                                 np.ones(scores.shape, int))
        row = lm_protocol.sweep_table(lm.to_results(scored, source="n-sweep")).iloc[0]
        means.append(row.p)
        ses.append(row.se)
        covered.append(row.ci_low <= 0.6 <= row.ci_high)
        name_ses.append(lm_protocol.clustered_mean(
            lm_protocol.masses(lm.to_results(scored)), tr.names)["se"])
    spread = np.std(means)
    assert 0.7 < np.sqrt(np.mean(np.square(ses))) / spread < 1.4
    assert np.mean(covered) >= 0.88
    assert np.sqrt(np.mean(np.square(name_ses))) < np.sqrt(np.mean(np.square(ses)))


def _kernel_rows(years, lists, probes, log_g, rng, list_sd, name_sd, noise_sd):
    """Similarity trials whose option scores are log g(distance) plus a pull per list and
    option (every question about the list shares it), a pull per name (shared across the
    lists that name it) and noise: a known cluster structure."""
    u = list_sd * rng.standard_normal(lists.shape)
    v = name_sd * rng.standard_normal(len(years))
    out = []
    for li, names in enumerate(lists):
        for pr in probes[li]:
            s = (log_g(np.abs(years[names] - pr)) + u[li] + v[names]
                 + noise_sd * rng.standard_normal(len(names)))
            out.append({"task": "similarity", "options": "|".join(f"p{k}" for k in names),
                        "scores": "|".join(f"{x:.8f}" for x in s),
                        "position": "|".join(str(int(y)) for y in years[names]),
                        "probe": float(pr)})
    return pd.DataFrame(out)


def test_the_kernel_standard_errors_match_the_spread_of_the_kernel():
    """40 lists of 4 of 60 names, 8 probes each, a known kernel and known pulls per list and
    name: over 60 simulated data sets (the design fixed), the kernel's standard errors (the
    wider of the list bootstrap and the positive semi-definite name sandwich) match the
    Monte Carlo spread of log g. The mean variance ratio over the bins lies within 3 of its
    standard errors, sqrt(2 / 59) = 0.18, of 1 (the old shared-name matrix gave ratios near
    0.1-0.25 and negative variances); no bin beyond the reference has a standard error of 0;
    the heteroskedasticity-robust one (every pair of options independent) runs short."""
    rng = np.random.default_rng(5)
    years = rng.integers(1500, 2000, 60)
    lists = np.array([rng.choice(60, 4, replace=False) for _ in range(40)])
    probes = rng.integers(1500, 2000, (40, 8))
    log_g = lambda d: np.log(np.exp(-d / 40) + 0.1)  # noqa: E731
    est, var, hc = [], [], []
    for i in range(60):
        k = lm_protocol.kernel_replicates(
            _kernel_rows(years, lists, probes, log_g, rng, 0.3, 0.2, 0.3), seed=i, n_boot=150)[0]
        assert (k.log_g_se.iloc[1:] > 0).all() and k.log_g_se.iloc[0] == 0
        assert (k.log_g_ci_low < k.log_g).iloc[1:].all()
        est.append(k.log_g.to_numpy()[1:])
        var.append(k.log_g_se.to_numpy()[1:] ** 2)
        hc.append(k.log_g_se_hc.to_numpy()[1:] ** 2)
    mc = np.var(est, axis=0, ddof=1)
    ratio = float(np.mean(np.mean(var, axis=0) / mc))
    assert abs(ratio - 1) < 3 * np.sqrt(2 / 59), ratio
    assert float(np.mean(np.mean(hc, axis=0) / mc)) < 0.6


def test_the_kernel_trend_runs_the_fit_when_it_decays_and_agrees_with_the_near_design():
    rng = np.random.default_rng(6)
    years = rng.integers(1500, 2000, 60)
    lists = np.array([rng.choice(60, 4, replace=False) for _ in range(40)])
    probes = rng.integers(1500, 2000, (40, 8))
    rows = _kernel_rows(years, lists, probes, lambda d: np.log(np.exp(-d / 40) + 0.1), rng,
                        0.3, 0.2, 0.3)
    kern, reps = lm_protocol.kernel_replicates(rows, seed=0, n_boot=100)
    tr = lm_protocol.kernel_fits.decay_trend(kern.distance, kern.g, replicates=reps)
    assert tr["decays"] and tr["ci_high"] < 0
    flat = _kernel_rows(years, lists, probes, lambda d: np.zeros_like(d, float), rng,
                        0.3, 0.2, 0.3)
    kf, rf = lm_protocol.kernel_replicates(flat, seed=0, n_boot=100)
    assert not lm_protocol.kernel_fits.decay_trend(kf.distance, kf.g, replicates=rf)["decays"]


def test_the_temperature_rescales_any_model_s_option_scores():
    """Result files' rows as a causal LM's: at T = 1 the mass is the softmax of the scores, as T
    falls it goes to the greedy answer."""
    rows = pd.DataFrame({"model": "m", "task": ["identification"] * 4 + ["similarity"] * 4,
                         "n": 2, "options": ["A|B", "B|A", "C|D", "D|C"] * 2,
                         "correct": ["A", "A", "C", "C"] * 2,
                         "scores": ["0|-1", "-1|0", "0|-1", "-1|0"] * 2})
    t = lm_protocol.temperature_sweep(rows, [1.0, 1e-3]).set_index("temperature")
    p1 = 1 / (1 + np.exp(-1))
    assert t.p_i[1.0] == pytest.approx(p1) and t.p_s[1.0] == pytest.approx(p1)
    assert t.p_i[1e-3] == pytest.approx(1.0)
