"""semres.experiments.pareto.figures: the explorer's embedded numbers are the closed forms, with
static fallbacks (in a browser the sliders pick the right curve: that part needs Chromium, see
test_render.py). The chapter's other figures are drawn in its notebook."""

import json
import re

import matplotlib
import numpy as np
import pytest

from semres.core import theory
from semres.experiments.pareto.figures import front_explorer

matplotlib.use("Agg")


def _payload(text):
    return json.loads(re.search(r"const D = (\{.*?\});\n", text).group(1))


def test_embedded_curves_are_theorem_3_at_every_grid_point():
    exp = front_explorer(deltas=[0.0, 0.2], ns=[2, 5], n_b=11)
    data = _payload(exp._repr_html_())
    for j, n in enumerate(data["ns"]):
        for k, d in enumerate(data["deltas"]):
            p_s, p_i = theory.n_item(np.array(data["bs"]), n, d)
            np.testing.assert_allclose(data["ps"][j][k], p_s, atol=1e-4)
            np.testing.assert_allclose(data["pi"][j][k], p_i, atol=1e-4)
    # two items without noise: the universal front of Theorem 1
    p_s, p_i = np.array(data["ps"][0][0]), np.array(data["pi"][0][0])
    np.testing.assert_allclose(p_s, theory.front(p_i), atol=2e-4)


def test_static_fallbacks_png_and_noscript_image_with_alt_text():
    exp = front_explorer(n_b=11)
    assert exp._repr_png_().startswith(b"\x89PNG")
    text = exp._repr_html_()
    assert re.search(r'<noscript><img src="data:image/png;base64,[^"]+" alt="[^"]{40,}"', text)
    assert 'style="display:none' in text  # the interactive part shows only when its script runs
    assert "http" not in text.replace("http://www.w3.org", "")  # nothing fetched from a network


@pytest.mark.parametrize("kwargs, name", [(dict(deltas=[-0.1], ns=[2]), "delta must"),
                                          (dict(deltas=[0.0], ns=[1]), "n must")])
def test_bad_grid_raises_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        front_explorer(**kwargs)
