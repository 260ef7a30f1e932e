"""The learned similarity's distance profile and its fit by a linear decay to a floor."""

import numpy as np
import torch

from semres.experiments.toy import profile_fit
from semres.experiments.toy.evaluation import stimulus_distances


def _profile(G, distances):
    return profile_fit.profile_on_basis(G, profile_fit.profile_basis(distances))


def test_default_grid_fit_is_fine():
    d, _ = _profile(np.zeros((50, 50)), stimulus_distances(50))
    eps_true, delta_true = np.array([0.0537, 0.1234, 0.3071]), np.array([0.0, 0.05, 0.2])
    h = profile_fit.linear_profile(d, eps_true[:, None], delta_true[:, None])
    eps, delta = profile_fit.fit_linear_profile(d, h)
    assert np.abs(eps - eps_true).max() < 2e-4 and np.abs(delta - delta_true).max() < 2e-3


def test_profile_fit_reports_its_bounds():
    """A real decay is estimated inside the range; a flat profile (no resolution) is censored."""
    d, _ = _profile(np.zeros((50, 50)), stimulus_distances(50))
    h = profile_fit.linear_profile(d, 0.2, 0.1)
    eps, delta = profile_fit.fit_linear_profile(d, h)
    assert abs(eps - 0.2) < 2e-4
    assert not profile_fit.profile_fit_report(d, eps, delta)["at_bound"]
    eps, delta = profile_fit.fit_linear_profile(d, np.ones_like(d))
    report = profile_fit.profile_fit_report(d, eps, delta)
    assert report["at_bound"] and report["bound_params"]


def test_profile_of_kernel_matrix_is_the_kernel():
    D = stimulus_distances(20, "segment")
    G = 3.0 * profile_fit.linear_profile(D, 0.3, 0.1)  # scale must not matter
    d, h = _profile(G, D)
    assert np.allclose(h, profile_fit.linear_profile(d, 0.3, 0.1))


def test_profile_fit_gof_accepts_a_linear_profile_and_rejects_a_step():
    dist = stimulus_distances(50, "circle")
    rng = np.random.default_rng(1)
    for profile in ("linear", "step"):
        h = (profile_fit.linear_profile(dist, 0.2, 0.1) if profile == "linear"
             else np.where(dist <= 0.12, 1.0, 0.1))
        noise = rng.normal(0, 0.01, dist.shape)
        G = h + (noise + noise.T) / 2
        np.fill_diagonal(G, 1.0)
        d, prof = _profile(torch.tensor(G), dist)
        eps, delta = profile_fit.fit_linear_profile(d, prof)
        gof = profile_fit.profile_fit_test(G, dist, eps, delta)["gof"]
        assert gof["gof_df"] == 25 - 2
        assert gof["misfit"] == (profile == "step"), (profile, gof)


def test_misfit_size_is_near_one_for_a_line_and_large_for_a_step():
    """Pooled over noisy networks, a linear profile misses its line only by the pairs'
    scatter (dispersion near 1, RMS gap near the sampling one); a step misses it by far more,
    while the line still removes most of a flat profile's squared gap."""
    dist = stimulus_distances(50, "circle")
    rng = np.random.default_rng(2)
    sizes = {}
    for profile in ("linear", "step"):
        terms = []
        for _ in range(4):
            h = (profile_fit.linear_profile(dist, 0.2, 0.1) if profile == "linear"
                 else np.where(dist <= 0.12, 1.0, 0.1))
            noise = rng.normal(0, 0.01, dist.shape)
            G = h + (noise + noise.T) / 2
            np.fill_diagonal(G, 1.0)
            d, prof = _profile(torch.tensor(G), dist)
            eps, delta = profile_fit.fit_linear_profile(d, prof)
            terms.append(profile_fit.profile_fit_test(G, dist, eps, delta))
        sizes[profile] = profile_fit.profile_misfit_size(terms)
    line, step = sizes["linear"], sizes["step"]
    assert 0.5 < line["dispersion"] < 2 and line["gof_p"] > 1e-3 and line["fits"] == 4
    assert line["rms_gap"] < 2 * line["rms_sampling"]
    assert step["dispersion"] > 20 and step["rms_gap"] > 5 * step["rms_sampling"]
    assert step["explained_null"] > 0.5 and step["gof_p"] < 1e-3
    dead = profile_fit.profile_fit_test(np.zeros((50, 50)), dist, 0.2, 0.1)
    assert list(dead) == ["gof"] and dead["gof"]["misfit"] is None
