"""The renderer: seeded, valid layouts, pictures that agree with the recorded geometry, the
fast renderer, and the canvas's ball measures."""

import numpy as np
import pytest
from scipy import ndimage

from semres.core.seeds import named_seed
from semres.experiments.vlm_shapes import scenes as sc


def test_same_seed_same_scenes_and_pixels():
    a = sc.sample_scenes(20, range(2, 13), "similarity", seed=3)
    b = sc.sample_scenes(20, range(2, 13), "similarity", seed=3)
    c = sc.sample_scenes(20, range(2, 13), "similarity", seed=4)
    for x, y in zip(a, b):
        assert x.names == y.names
        np.testing.assert_array_equal(x.positions, y.positions)
        np.testing.assert_array_equal(x.probe, y.probe)
        assert sc.render(x, 64).tobytes() == sc.render(y, 64).tobytes()
    assert any(not np.array_equal(x.positions, z.positions) for x, z in zip(a, c))


@pytest.mark.parametrize("task", sc.TASKS)
def test_layout_constraints(task):
    for s in sc.sample_scenes(60, range(2, 13), task, seed=1):
        assert len(set(s.names)) == s.n and set(s.names) <= set(sc.SHAPES)
        pair = np.linalg.norm(s.positions[:, None] - s.positions[None], axis=2)
        assert pair[np.triu_indices(s.n, 1)].min() >= 1.3 * s.shape_size - 1e-12
        assert np.all((s.positions > 0) & (s.positions < 1))
        d = np.sort(s.distances)
        assert s.margin == pytest.approx(d[1] - d[0])
        if task == "similarity":  # the X keeps a shape's width from every shape (paper)
            assert d[0] >= s.shape_size
        else:
            assert d[0] == 0 and s.distances[s.target] == 0


def _components(img):
    """Centroids (unit coordinates) of black and of red pixels, recovered from the picture."""
    a = np.asarray(img).astype(float)
    dark = a.sum(axis=2) < 300
    red = (a[..., 0] > 120) & (a[..., 1] < 90)
    black = dark & ~red
    size = a.shape[0]
    lab, k = ndimage.label(black, structure=np.ones((3, 3)))
    cents = np.array(ndimage.center_of_mass(black, lab, range(1, k + 1)))[:, ::-1]
    rc = np.array(ndimage.center_of_mass(red))[::-1]
    return (cents + 0.5) / size, (rc + 0.5) / size, black, red


@pytest.mark.parametrize("task", sc.TASKS)
def test_correct_answer_agrees_with_the_pixels(task):
    """Read the shapes and the red X back off the image; the nearest black shape by pixels (or
    the one under the X) must be the recorded answer."""
    checked = 0
    for s in sc.sample_scenes(40, [3, 4, 6], task, seed=7):
        if task == "similarity" and s.margin < 0.5 * s.shape_size:
            continue  # pixel centroids of odd shapes sit a little off their box centres
        img = sc.render(s, 200)
        cents, red_c, black, red = _components(img)
        assert np.linalg.norm(red_c - s.probe) < 0.01  # the X is where the scene says
        # every black pixel belongs to a shape box (the X may cut a shape into pieces)
        owner = np.argmin(np.linalg.norm(cents[:, None] - s.positions[None], axis=2), axis=1)
        assert np.all(np.linalg.norm(cents - s.positions[owner], axis=1) < 0.5 * s.shape_size)
        assert set(owner) == set(range(s.n))
        ys, xs = np.nonzero(black)
        pix = (np.c_[xs, ys] + 0.5) / 200
        who = np.argmin(np.linalg.norm(pix[:, None] - s.positions[None], axis=2), axis=1)
        if task == "similarity":
            # mean position of each shape's pixels, then the nearest to the red X
            centre = np.array([pix[who == i].mean(axis=0) for i in range(s.n)])
            assert np.argmin(np.linalg.norm(centre - red_c, axis=1)) == s.target
        else:
            # the X lies on the target's own pixels: black pixels of that shape surround it
            near = np.linalg.norm(pix - red_c, axis=1) < 0.5 * s.shape_size
            assert near.any() and np.all(who[near] == s.target)
            assert s.margin == pytest.approx(np.sort(s.distances)[1])
        checked += 1
    assert checked >= 20


def test_identification_scene_by_hand():
    """A hand-made scene: the X on the star, the answer is the star, the margin is the distance
    to the nearest other shape, and the question asks for the shape at the X."""
    s = sc.layout_scene("identification", ["square", "heart", "star"],
                        [[0.2, 0.2], [0.8, 0.3], [0.5, 0.7]], at=2)
    assert s.answer == "star" and s.target == 2
    np.testing.assert_array_equal(s.probe, [0.5, 0.7])
    assert s.margin == pytest.approx(min(np.hypot(0.3, 0.5), np.hypot(0.3, 0.4)))
    assert "at the X" in s.question
    a = np.asarray(sc.render(s, 120)).astype(int)
    red = (a[..., 0] > 120) & (a[..., 1] < 90)
    ys, xs = np.nonzero(red)
    assert abs((xs.mean() + 0.5) / 120 - 0.5) < 0.01 and abs((ys.mean() + 0.5) / 120 - 0.7) < 0.01


def test_map_scenes_keep_the_layout_and_clearance():
    scenes = sc.map_scenes(12)
    assert 0 < len(scenes) < 144
    for s in scenes:
        assert s.names == tuple(sc.MAP_LAYOUT)
        assert s.distances.min() >= s.shape_size
        assert s.answer == s.names[int(np.argmin(s.distances))]


def test_bad_arguments_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n must"):
        sc.sample_scene(rng, 1, "similarity")
    with pytest.raises(ValueError, match="n must"):
        sc.sample_scene(rng, len(sc.SHAPES) + 1, "similarity")
    with pytest.raises(ValueError, match="task"):
        sc.sample_scene(rng, 3, "colour")
    with pytest.raises(ValueError, match="size"):
        sc.render(sc.sample_scene(rng, 3, "similarity"), 8)
    with pytest.raises(ValueError, match="probe"):
        sc.layout_scene("similarity", ["square", "star"], [[0.2, 0.2], [0.8, 0.8]])
    with pytest.raises(ValueError, match="at"):
        sc.layout_scene("identification", ["square", "star"], [[0.2, 0.2], [0.8, 0.8]], at=2)


@pytest.mark.parametrize("task", sc.TASKS)
def test_ball_measure_matches_sampled_scenes(task):
    """b_p from the lattice against Monte Carlo: other shapes' centres drawn by the scene
    sampler, counted within eps of the probe (the sampler's mutual spacing makes the two differ
    a little, so the tolerance is a few hundredths)."""
    scenes = sc.sample_scenes(1500, 3, task, seed=21)
    eps = np.array([0.0, 0.1, 0.2, 0.3, 0.5, 2.0])
    d = np.array([np.delete(s.distances, s.target) if task == "identification"
                  else s.distances for s in scenes])
    mc = (d.ravel()[:, None] <= eps).mean(axis=0)
    probes = np.array([s.probe for s in scenes])
    b = sc.ball_measures(probes, eps, task).mean(axis=0)
    assert b[0] == 0 and b[-1] == pytest.approx(1)
    np.testing.assert_allclose(b, mc, atol=0.03)
    assert np.all(np.diff(b) >= 0)


def test_the_canvas_ball_is_a_clipped_disc():
    inside = sc.canvas_ball(np.array([[0.5, 0.5]]), 0.2)
    corner = sc.canvas_ball(np.array([[0.0, 0.0]]), 0.2)
    assert inside[0] == pytest.approx(np.pi * 0.04, rel=1e-4)
    assert corner[0] == pytest.approx(np.pi * 0.04 / 4, rel=1e-3)
    rng = np.random.default_rng(0)
    x = sc.Canvas().sample(rng, 5)
    assert x.shape == (5, 2) and sc.Canvas().distance(x, x).max() == 0


def test_scenes_are_drawn_from_a_named_stream():
    """A stream named from the chapter's seed (its ``stream("fit_scenes")``) is used as it is;
    a bare integer is a root, from which the stream "scenes" is named, never a generator's
    seed by itself."""
    stream = named_seed(0, "fit_scenes")
    a = sc.sample_scenes(5, 4, "similarity", stream)
    rng = np.random.default_rng(named_seed(0, "fit_scenes"))
    b = [sc.sample_scene(rng, 4, "similarity") for _ in range(5)]
    assert all(np.array_equal(x.positions, y.positions) for x, y in zip(a, b))
    c = sc.sample_scenes(5, 4, "similarity", 0)
    d = sc.sample_scenes(5, 4, "similarity", named_seed(0, "scenes"))
    assert all(np.array_equal(x.positions, y.positions) for x, y in zip(c, d))
    raw = np.random.default_rng(0)
    assert not np.array_equal(c[0].positions, sc.sample_scene(raw, 4, "similarity").positions)


def _old_sample_scene(rng, n, task, s=sc.SHAPE_SIZE):
    """The sampler as first written (numpy norms, names drawn as strings): the fast one must
    consume the stream alike and give the same scenes bit for bit."""
    for _ in range(1000):
        pos = np.empty((0, 2))
        for c in rng.uniform(0.6 * s, 1 - 0.6 * s, size=(64, 2)):
            if len(pos) == 0 or np.min(np.linalg.norm(pos - c, axis=1)) >= 1.3 * s:
                pos = np.vstack([pos, c])
                if len(pos) == n:
                    break
        if len(pos) < n:
            continue
        names = tuple(str(x) for x in rng.choice(sc.SHAPES, n, replace=False))
        if task == "identification":
            return names, pos, pos[int(rng.integers(n))]
        cand = rng.uniform(0.3 * s, 1 - 0.3 * s, size=(256, 2))
        ok = np.min(np.linalg.norm(cand[:, None] - pos[None], axis=2), axis=1) >= s
        if ok.any():
            return names, pos, cand[np.argmax(ok)]


@pytest.mark.parametrize("task", sc.TASKS)
def test_fast_sampler_draws_the_scenes_of_the_plain_one(task):
    a, b = np.random.default_rng(8), np.random.default_rng(8)
    for n in [2, 12, 7, 12, 3] * 20:
        s = sc.sample_scene(a, n, task)
        names, pos, probe = _old_sample_scene(b, n, task)
        assert s.names == names
        assert np.array_equal(s.positions, pos) and np.array_equal(s.probe, probe)
    assert a.random() == b.random()  # the stream was left at the same place


@pytest.mark.parametrize("supersample", [4, 2, 1])
def test_render_arrays_are_render_bit_for_bit(supersample):
    """The one-byte drawing (red in full, green around the X) gives render()'s RGB canvases
    exactly, X near the edges and on shapes included."""
    lst = (sc.sample_scenes(40, range(2, 13), "similarity", 5)
           + sc.sample_scenes(40, range(2, 13), "identification", 6)
           + [sc.layout_scene("similarity", ("moon", "ring"), [(0.2, 0.2), (0.5, 0.5)],
                              probe=p) for p in [(0.01, 0.99), (0.999, 0.001), (0.8, 0.3)]])
    for size in (96, 50):
        got = sc.render_arrays(lst, size, supersample)
        want = np.stack([np.asarray(sc.render(s, size, supersample)) for s in lst])
        assert got.dtype == np.uint8 and np.array_equal(got, want.transpose(0, 3, 1, 2))
    with pytest.raises(ValueError, match="size"):
        sc.render_arrays(lst[:1], 8)

