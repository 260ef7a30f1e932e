"""semres.core.fits: a fit on the edge of its range says so."""

import numpy as np
import pytest
from scipy.optimize import curve_fit

from semres.core import fits
from semres.core.seeds import int_seed, named_seed


def _fit_exp(d, g, upper):
    (a, lam), _ = curve_fit(lambda x, a, lam: a * np.exp(-x / lam), d, g, p0=(1.0, 1.0),
                            bounds=([0, 1e-3], [10, upper]))
    return {"amplitude": a, "lambda": lam}


def test_a_curve_that_wants_a_larger_scale_pins_the_bound_and_one_inside_does_not():
    d = np.linspace(0, 10, 40)
    inside = _fit_exp(d, np.exp(-d / 3.0), upper=100)
    pinned = _fit_exp(d, np.exp(-d / 3.0), upper=1.5)  # the true scale, 3, lies outside
    bounds_in = {"lambda": (1e-3, 100)}
    bounds_pin = {"lambda": (1e-3, 1.5)}
    assert not fits.bound_report(inside, bounds_in, log=("lambda",))["at_bound"]
    report = fits.bound_report(pinned, bounds_pin, log=("lambda",))
    assert report == {"at_bound": True, "bound_params": "lambda=upper"}
    assert "(lambda at its upper bound)" in fits.censored_warning("the scale", report)
    assert fits.censored_warning("the scale", {"at_bound": False}) is None


def test_infinite_bounds_are_never_hit_and_lower_bounds_are_named():
    assert not fits.bound_report({"x": 1e9}, {"x": (0, np.inf)})["at_bound"]
    assert fits.bound_report({"x": 0.0}, {"x": (0, np.inf)})["bound_params"] == "x=lower"
    assert fits.bootstrap_at_bound([True, False, False, False]) == 0.25


def test_bootstrap_map_gives_the_same_resamples_on_any_number_of_processes():
    """Intervals must not depend on the machine's cores: the draws are made first, in order."""
    import joblib

    from semres.core.fits import resamples, bootstrap_map

    data = np.random.default_rng(3).normal(size=50)

    def stat(idx):
        return float(data[idx].mean())

    with joblib.parallel_config(n_jobs=1):
        serial = bootstrap_map(stat, len(data), 40, seed=7)
        assert bootstrap_map(stat, len(data), 40, seed=8) != serial
    with joblib.parallel_config(n_jobs=2):
        parallel = bootstrap_map(stat, len(data), 40, seed=7)
    assert serial == parallel == [stat(i) for i in resamples(len(data), 40, 7)]
    assert len(set(serial)) > 30  # distinct resamples, not one repeated


def test_named_seed_takes_integer_keys_and_int_seed_gives_one_word():
    import numpy as np

    root = np.random.SeedSequence(5)
    a, b = named_seed(root, "batch order", 1), named_seed(root, "batch order", 2)
    assert a.generate_state(2).tolist() != b.generate_state(2).tolist()
    assert a.generate_state(2).tolist() == named_seed(root, "batch order", 1) \
        .generate_state(2).tolist()
    # without keys, the stream is the one it always was
    assert named_seed(3, "x").entropy == named_seed(3, "x", *()).entropy
    assert (named_seed(3, "x").generate_state(1)[0]
            != named_seed(3, "y").generate_state(1)[0])
    word = int_seed(root, "initial weights")
    assert isinstance(word, int) and 0 <= word < 2**32
    assert word == int_seed(root, "initial weights") != int_seed(root, "other")
    with pytest.raises(ValueError, match="name"):
        named_seed(root, "")
