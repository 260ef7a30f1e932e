"""Fake results of chapter 4's runs, shared by the phylogeny tests."""

import numpy as np

from semres.experiments.phylogeny import alpha_effects


def runs(lifts, seeds=3, auc_drop=0.05):
    """Fake results of train_and_evaluate_many: α lifts the curve and the triplet accuracy and
    lowers the AUC by ``auc_drop`` per unit α (a trade), with a little noise per seed."""
    rng = np.random.default_rng(0)
    out = []
    for a, lift in lifts.items():
        for s in range(seeds):
            pi = np.linspace(0.55, 0.95, 6) - 0.1 * a + 0.002 * s
            curve = {"eps": np.arange(6.0), "p_s": 0.6 + lift + 0.01 * rng.random(6),
                     "p_s_all": 0.6 + lift, "p_i": pi, "p_s_ood": 0.55 + lift,
                     "p_s_theory": 0.7 + lift, "p_i_theory": pi, "mean_b": np.linspace(0, 1, 6),
                     "var_b": 0.0}
            summary = {"sim_accuracy": 0.6 + lift + 0.002 * s,
                       "id_auc": 0.9 - auc_drop * a + 0.002 * s,
                       "ood_sim_accuracy": 0.55 + lift}
            out.append({"alpha": a, "seed": s, "curve": curve, "summary": summary,
                        "history": [{"val_accuracy": 0.8 - 0.6 * (a == 1.0)}],
                        "train_seconds": 2.0, "trained_with": 1})
    return out


def effects(results):
    tradeoff, by_alpha = alpha_effects.result_tables(results)
    lo, ce, one = alpha_effects.compared_alphas(by_alpha.alpha.unique())
    targets = {a: r for a, r in ((ce, "cross-entropy on"), (one, "cross-entropy off"))
               if a is not None}
    return tradeoff, by_alpha, alpha_effects.effects(by_alpha, tradeoff, lo, targets,
                                                     alpha_effects.METRICS)
