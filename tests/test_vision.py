"""The α-weighted loss, training with resumable checkpoints, and the exact measures.

The measures are checked against brute-force enumeration of every triplet on small sets and
against the Monte Carlo engine on a discrete space (the tree itself as the embedding).
"""

import itertools

import numpy as np
import pytest
import torch

from semres.experiments.phylogeny import phylo, vision
from semres.core.kernels import Constant
from semres.core.simulate import luce_success
from semres.core.spaces import Discrete


def _toy(seed=0):
    """9 images of 3 species with integer distances, so exact ties occur."""
    rng = np.random.default_rng(seed)
    species = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2])
    x = rng.integers(0, 4, (9, 2))
    E = np.abs(x[:, None] - x[None]).sum(-1).astype(float)  # L1: a metric with many ties
    D = np.array([[0, 2, 4], [2, 0, 4], [4, 4, 0]], dtype=float)
    return E, species, D


def _luce(g, correct):
    return (g * correct).sum() / g.sum() if g.sum() > 0 else correct.sum() / len(g)


def _brute_similarity(E, species, D, eps, probes, ties, references="all"):
    """Probe uniform, references i.i.d. uniform over the pool (weight 1/|pool|² each)."""
    n, out, weight = len(E), [], []
    for p in probes:
        refs = [x for x in range(n) if references == "all" or species[x] != species[p]]
        for a, b in itertools.product(refs, repeat=2):
            r = D[species[p], species[[a, b]]]
            if ties == "exclude" and r[0] == r[1]:
                continue
            out.append(_luce((E[p, [a, b]] <= eps).astype(float), (r == r.min()).astype(float)))
            weight.append(1 / len(refs) ** 2)
    return np.average(out, weights=weight)


def _brute_identification(E, species, eps):
    n, total, weight = len(E), 0.0, 0.0
    for x1 in range(n):
        mates = [q for q in range(n) if species[q] == species[x1] and q != x1]
        for q in mates:
            for x2 in range(n):
                w = 1 / len(mates) / n
                g = (E[q, [x1, x2]] <= eps).astype(float)
                total += w * _luce(g, np.array([1.0, 0.0]))
                weight += w
    return total / weight


@pytest.mark.parametrize("eps", [0.0, 1.0, 2.0, 3.5, 10.0])
def test_exact_curves_match_brute_force_enumeration(eps):
    E, species, D = _toy()
    for ties in ("exclude", "correct"):
        ps = vision.similarity_curve(E, species, D, [eps], ties=ties)[0]
        assert ps == pytest.approx(_brute_similarity(E, species, D, eps, range(9), ties),
                                   abs=1e-12)
        sub = vision.similarity_curve(E, species, D, [eps], probes=[5, 6, 7], ties=ties)[0]
        assert sub == pytest.approx(_brute_similarity(E, species, D, eps, [5, 6, 7], ties),
                                    abs=1e-12)
        other = vision.similarity_curve(E, species, D, [eps], ties=ties,
                                        references="other_species")[0]
        assert other == pytest.approx(
            _brute_similarity(E, species, D, eps, range(9), ties, "other_species"), abs=1e-12)
    pi = vision.identification_curve(E, species, [eps])[0]
    assert pi == pytest.approx(_brute_identification(E, species, eps), abs=1e-12)


def test_check_inputs_names_the_missing_tree():
    with pytest.raises(ValueError, match="newick"):
        vision.check_inputs(cub_dir="/data/CUB_200_2011", newick=None)
    vision.check_inputs()  # the embedded default needs nothing


def test_similarity_curve_rejects_unknown_reference_pool():
    E, species, D = _toy()
    with pytest.raises(ValueError, match="references"):
        vision.similarity_curve(E, species, D, [1.0], references="same_species")


def test_measures_agree_with_the_engine_when_the_tree_is_the_embedding():
    """A perfect model embeds every image at its species' point: E = D between species."""
    tree = phylo.simulate_tree(7, seed=1)
    D = phylo.patristic_matrix(tree)
    counts = np.array([3, 5, 2, 4, 6, 2, 3])
    species = np.repeat(np.arange(7), counts)
    E = D[species][:, species]
    space = Discrete(D, counts / counts.sum())
    for eps in np.quantile(D[D > 0], [0.1, 0.5, 0.9]):
        ps = vision.similarity_curve(E, species, D, [eps], ties="correct")[0]
        pi = vision.identification_curve(E, species, [eps])[0]
        sim = luce_success(space, Constant(eps), "similarity", 2, 200_000, seed=3)
        ide = luce_success(space, Constant(eps), "identification", 2, 200_000, seed=4)
        assert abs(ps - sim.mean) <= 4.5 * sim.stderr + 1e-9, (eps, ps, sim)
        assert abs(pi - ide.mean) <= 4.5 * ide.stderr + 1e-9, (eps, pi, ide)


def test_ball_stats_and_threshold_free_summaries():
    E, species, D = _toy()
    mean, var = vision.ball_stats(E, np.array([1.0, 2.0]))
    b = (E <= 2.0).mean(1)
    assert mean[1] == pytest.approx(b.mean()) and var[1] == pytest.approx(b.var())
    # triplet accuracy by enumeration
    hits = pairs = 0
    for p in range(9):
        others = [x for x in range(9) if species[x] != species[p]]
        for a, b_ in itertools.permutations(others, 2):
            if D[species[p], species[a]] < D[species[p], species[b_]]:
                pairs += 1
                hits += (E[p, a] < E[p, b_]) + 0.5 * (E[p, a] == E[p, b_])
    assert vision.triplet_accuracy(E, species, D) == pytest.approx(hits / pairs)
    # AUC by enumeration of (same, different) pair pairs
    iu = np.triu_indices(9, 1)
    same = (species[:, None] == species[None])[iu]
    d = E[iu]
    auc = np.mean([(s < t) + 0.5 * (s == t) for s in d[same] for t in d[~same]])
    assert vision.identification_auc(E, species) == pytest.approx(auc)
    # a perfect embedding identifies perfectly
    assert vision.identification_auc(D[species][:, species], species) == 1.0


def test_loss_mixes_cross_entropy_and_distance_mismatch():
    torch.manual_seed(0)
    species = torch.tensor([0, 0, 1, 2, 2, 1])
    D = torch.tensor([[0.0, 2, 4], [2, 0, 4], [4, 4, 0]])
    logits = torch.randn(6, 3)
    emb = torch.randn(6, 5, requires_grad=True)
    loss0, ce, l_sim = vision.phylo_loss(logits, emb, species, species, D, 0.0)
    assert loss0.item() == pytest.approx(torch.nn.functional.cross_entropy(logits, species).item())
    loss1, _, _ = vision.phylo_loss(logits, emb, species, species, D, 1.0)
    e = emb.detach().numpy()
    i, j = np.triu_indices(6, 1)
    de = np.linalg.norm(e[i] - e[j], axis=1)
    dp = D.numpy()[species.numpy()[i], species.numpy()[j]]
    manual = np.mean((de / de.mean() - dp / dp.mean()) ** 2)
    assert loss1.item() == pytest.approx(manual, rel=1e-5)
    half, _, _ = vision.phylo_loss(logits, emb, species, species, D, 0.5)
    assert half.item() == pytest.approx(0.5 * ce.item() + 0.5 * l_sim.item(), rel=1e-6)
    # an embedding whose distances are proportional to the tree's has zero mismatch
    pts = torch.tensor([[0.0, 0.0], [2.0, 0.0], [1.0, np.sqrt(15.0)]])  # pairwise 2, 4, 4
    _, _, zero = vision.phylo_loss(logits, 3 * pts[species], species, species, D, 1.0)
    assert zero.item() < 1e-8
    loss1.backward()  # duplicate embeddings must not give NaN gradients
    dup = emb.detach().clone()
    dup[1] = dup[0]
    dup.requires_grad_(True)
    vision.phylo_loss(logits, dup, species, species, D, 1.0)[0].backward()
    assert torch.isfinite(dup.grad).all()
    with pytest.raises(ValueError, match="alpha"):
        vision.phylo_loss(logits, emb, species, species, D, 1.5)


@pytest.fixture(scope="module")
def small_data():
    return phylo.simulate_dataset(6, 24, size=24, seed=0, ood_fraction=0.0)


def _model(data):
    n_classes = len(np.unique(data.species[data.split["train"]]))
    return vision.build_model(n_classes, widths=(8, 16), depths=(1, 1), seed=0)


def test_training_learns_and_resumes_exactly(small_data, tmp_path):
    kw = dict(batch_size=16, lr=1e-2, seed=1, progress=False)
    straight = _model(small_data)
    hist = vision.train(straight, small_data, 0.5, epochs=10, **kw)
    assert hist[-1]["loss"] < hist[0]["loss"]
    train = small_data.split["train"]
    with torch.no_grad():
        logits = straight.eval()(torch.from_numpy(small_data.images[train]))[0]
    train_acc = float((logits.argmax(1).numpy() == small_data.species[train]).mean())
    assert train_acc > 0.4  # chance is 1/6
    # interrupted after 3 epochs, resumed from the checkpoint: same weights at the end
    ckpt = tmp_path / "run.pt"
    vision.train(_model(small_data), small_data, 0.5, epochs=3, checkpoint=ckpt, **kw)
    resumed = _model(small_data)
    hist2 = vision.train(resumed, small_data, 0.5, epochs=10, checkpoint=ckpt, **kw)
    assert len(hist2) == 10 and hist2[-1]["loss"] == pytest.approx(hist[-1]["loss"], rel=1e-4)
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    emb = vision.embed(resumed, small_data.images[small_data.split["test"]])
    assert emb.shape == (len(small_data.split["test"]), 16)


def test_bad_arguments_raise(small_data):
    with pytest.raises(ValueError, match="num_classes"):
        vision.build_model(1)
    with pytest.raises(ValueError, match="epochs"):
        vision.train(_model(small_data), small_data, 0.5, epochs=0)
    with pytest.raises(ValueError, match="cannot be loaded offline"):
        vision.build_model(5, model="/nonexistent/resnet")


def _write_cub_images(images, classes, per_class, shape, step, noise):
    """A CUB-shaped ``images/<class folder>/*.jpg`` tree: one noisy grey level per class."""
    from PIL import Image

    rng = np.random.default_rng(0)
    for k, name in enumerate(classes):
        folder = images / name
        folder.mkdir(parents=True)
        for i in range(per_class):
            base = np.full(shape, step * k, dtype=np.uint8)
            Image.fromarray(base + rng.integers(0, noise, shape, dtype=np.uint8)).save(
                folder / f"{i}.jpg")


def test_real_path_runs_end_to_end_on_a_cub_shaped_fixture(tmp_path):
    """load_cub -> train_and_evaluate: the chapter's real path, on generated JPEGs."""
    classes = {"001.Black_footed_Albatross": "Phoebastria_nigripes",
               "002.Laysan_Albatross": "Phoebastria_immutabilis",
               "029.American_Crow": "Corvus_brachyrhynchos", "030.Fish_Crow": "Corvus_ossifragus",
               "107.Common_Raven": "Corvus_corax"}
    _write_cub_images(tmp_path / "images", classes, per_class=6, shape=(20, 24, 3), step=40,
                      noise=30)
    tree = tmp_path / "t.nwk"
    tree.write_text("((Phoebastria_nigripes:1,Phoebastria_immutabilis:1):3,"
                    "((Corvus_brachyrhynchos:1,Corvus_ossifragus:1):1,Corvus_corax:2):2);")
    data = phylo.load_cub(tmp_path, tree, size=16, ood_fraction=0.2, test_fraction=0.34)
    settings = {"epochs": 2, "batch_size": 8, "lr": 1e-2, "widths": (8, 16), "depths": (1, 1),
                "n_eps": 5, "max_probes": 10}
    out = vision.train_and_evaluate(data.images, data.species, data.distances, data.split, 0.5,
                                    0, settings, checkpoint_dir=tmp_path / "ckpt",
                                    progress=False)
    assert len(out["history"]) == 2 and not list((tmp_path / "ckpt").glob("*.pt"))
    # the accelerator's way, runs stacked two at a time, gives the same kind of result
    both = vision.train_and_evaluate_many(data.images, data.species, data.distances,
                                          data.split, [(0.0, 1), (1.0, 1), (0.5, 0)],
                                          {**settings, "runs_at_once": 2},
                                          checkpoint_dir=tmp_path / "ckpt", progress=False)
    assert [(r["alpha"], r["seed"]) for r in both] == [(0.0, 1), (1.0, 1), (0.5, 0)]
    assert [r["trained_with"] for r in both] == [2, 2, 1] and out["trained_with"] == 1
    assert both[2]["history"][-1]["loss"] == pytest.approx(out["history"][-1]["loss"], rel=1e-3)
    assert not list((tmp_path / "ckpt").glob("*.pt"))
    with pytest.raises(ValueError, match="runs_at_once"):
        vision.train_and_evaluate_many(data.images, data.species, data.distances, data.split,
                                       [(0.5, 0)], {**settings, "runs_at_once": 0})
    curve = out["curve"]
    assert curve["p_s"][-1] == pytest.approx(0.5) and curve["p_i"][-1] == pytest.approx(0.5)
    assert all(0 <= out["summary"][k] <= 1 for k in ("sim_accuracy", "id_auc",
                                                     "ood_sim_accuracy"))


def test_a_pretrained_checkpoint_loads_from_a_local_path(tmp_path):
    """The ``model=`` path (e.g. microsoft/resnet-50), driven by a tiny ResNet saved locally."""
    from transformers import ResNetConfig, ResNetModel

    ResNetModel(ResNetConfig(embedding_size=8, hidden_sizes=[8, 12], depths=[1, 1],
                             layer_type="basic")).save_pretrained(tmp_path / "tiny")
    net = vision.build_model(3, model=str(tmp_path / "tiny"))
    assert net.head.in_features == 12
    np.testing.assert_allclose(net.mean.flatten().numpy(), vision.IMAGENET_MEAN, rtol=1e-6)
    assert vision.embed(net, np.zeros((2, 32, 32, 3), np.uint8)).shape == (2, 12)


@pytest.mark.chapters
def test_chapter_runs_on_cub_shaped_data(tmp_path):
    """The chapter itself, real path: parameters cub_dir and newick on a generated fixture."""
    import pandas as pd

    from semres.build import runner

    classes = {"001.Black_footed_Albatross": "Phoebastria_nigripes",
               "002.Laysan_Albatross": "Phoebastria_immutabilis",
               "029.American_Crow": "Corvus_brachyrhynchos", "030.Fish_Crow": "Corvus_ossifragus",
               "107.Common_Raven": "Corvus_corax", "182.Yellow_Warbler": "Dendroica_petechia",
               "109.American_Redstart": "Setophaga_ruticilla"}
    _write_cub_images(tmp_path / "CUB_200_2011" / "images", classes, per_class=10,
                      shape=(40, 50, 3), step=30, noise=40)
    tree = tmp_path / "tree.nwk"
    tree.write_text("((Phoebastria_nigripes:2,Phoebastria_immutabilis:2):4,"
                    "(((Corvus_brachyrhynchos:1,Corvus_ossifragus:1):1,Corvus_corax:2):2,"
                    "(Dendroica_petechia:2,Setophaga_ruticilla:2):2):2);")
    build = tmp_path / "build"
    runner.run_chapter(runner.resolve("4"), "quick", build=build,
                       params={"cub_dir": str(tmp_path / "CUB_200_2011"), "newick": str(tree)})
    by_alpha = pd.read_csv(build / "results" / "04_resnet_phylogeny" / "by_alpha.csv")
    assert len(by_alpha) == 3 and by_alpha[["sim_accuracy", "id_auc"]].notna().all().all()


def test_runs_trained_at_once_match_runs_trained_alone(tmp_path):
    """train_many maps one network over stacked weights; each run must still see its own
    seed's batches, its own α and its own optimiser, exactly as if trained alone."""
    # The yardstick below (1 against 2 threads) is itself chaotic: on some data sets one of
    # the two drifts by ~1 % and the other not (data seeds 0 and 3 here, 6 before the named
    # streams), whatever the code. This data set keeps both at rounding.
    small_data = phylo.simulate_dataset(6, 24, size=24, seed=1, ood_fraction=0.0)
    kw = dict(epochs=2, batch_size=16, lr=1e-2, progress=False)
    runs = [(0.0, 1), (0.5, 1), (1.0, 2)]

    def alone(alpha, seed, threads):
        net = _model(small_data)  # every run starts from the same weights here
        vision.train(net, small_data, alpha, seed=seed, threads=threads, **kw)
        return net

    together = [_model(small_data) for _ in runs]
    ckpt = tmp_path / "many.pt"
    vision.train_many(together, small_data, [a for a, _ in runs], [s for _, s in runs],
                      checkpoint=ckpt, **{**kw, "epochs": 1})  # interrupted after one epoch
    histories = vision.train_many(together, small_data, [a for a, _ in runs],
                                  [s for _, s in runs], checkpoint=ckpt, **kw)
    vec = lambda net: torch.nn.utils.parameters_to_vector(net.parameters()).detach()  # noqa
    start = vec(_model(small_data))
    for (alpha, seed), net in zip(runs, together):
        one, two = vec(alone(alpha, seed, 1)), vec(alone(alpha, seed, 2))
        # The α-mixed loss is chaotic in float rounding: the same run on 1 and on 2 threads
        # drifts apart by ~1 % of the distance travelled in two epochs. Trained together, a
        # run may differ from itself alone by no more than that yardstick (a wrong batch
        # order, α or optimiser state differs by the whole distance).
        travelled = (one - start).norm()
        assert (vec(net) - one).norm() <= 2 * (two - one).norm() + 1e-4 * travelled
    # the three runs differ from one another: α and the seed's batch order both act
    assert len({round(h[-1]["loss"], 6) for h in histories}) == 3
    with pytest.raises(ValueError, match="alpha"):
        vision.train_many(together, small_data, [0.5, 2.0, 0.5], [1, 1, 2], **kw)
    with pytest.raises(ValueError, match="one entry per run"):
        vision.train_many(together, small_data, [0.5], [1, 1, 2], **kw)


def test_ps_at_matched_pi_interpolates_each_sweep_and_the_match_is_shared():
    import pandas as pd

    pi = np.linspace(0.6, 0.95, 8)
    rows = [pd.DataFrame({"alpha": a, "seed": s, "eps": np.arange(8.0), "p_i": pi + shift,
                          "p_s": 0.5 + lift + pi / 4})
            for a, shift, lift in ((0.0, 0.0, 0.0), (0.5, -0.05, 0.1)) for s in (0, 1)]
    tr = pd.concat(rows, ignore_index=True)
    out = vision.ps_at_matched_pi(tr, 0.8)
    # alpha = 0.5: 0.1 higher at the same eps and shifted 0.05 left in p_I, so at matched p_I
    # it lies 0.1 + 0.05 / 4 higher (by hand: 0.6 + 0.85 / 4 against 0.5 + 0.8 / 4)
    assert np.allclose(out[out.alpha == 0.0].p_s, 0.7)
    assert np.allclose(out[out.alpha == 0.5].p_s, 0.8125)
    shuffled = vision.ps_at_matched_pi(tr.sample(frac=1.0, random_state=0), 0.8)
    # ordered by eps, so the order of the rows does not matter
    assert np.allclose(shuffled.sort_values(["alpha", "seed"]).p_s, out.p_s)
    beyond = vision.ps_at_matched_pi(tr, 0.93)  # only the alpha = 0 sweeps reach 0.93
    assert beyond[beyond.alpha == 0.5].p_s.isna().all()
    assert beyond[beyond.alpha == 0.0].p_s.notna().all()
    # the match: alpha = 0 peaks at its largest p_I (0.95), moved into the shared [0.6, 0.9]
    assert vision.common_pi(tr, [0.0, 0.5]) == pytest.approx(0.9)
    with pytest.raises(ValueError, match="p_i"):
        vision.ps_at_matched_pi(tr, 1.5)


def test_ps_at_matched_pi_reads_the_efficient_branch_of_a_sweep_that_turns_back():
    import pandas as pd

    # along eps, p_I rises from 0.6 to a peak of 0.9 and falls back to 0.6: p_I = 0.75 is
    # crossed twice, at p_S 0.55 on the way up and 0.70 on the way down
    sweep = pd.DataFrame({"alpha": 0.0, "seed": 0, "eps": np.arange(5.0),
                          "p_i": [0.6, 0.75, 0.9, 0.75, 0.6],
                          "p_s": [0.5, 0.55, 0.6, 0.70, 0.65]})
    assert vision.ps_at_matched_pi(sweep, 0.75).p_s.iloc[0] == pytest.approx(0.70)
    # between points: up at 0.8 (1/3 of 0.75 -> 0.9: 0.5667), down (2/3 of 0.70 -> 0.60: 0.6333)
    assert vision.ps_at_matched_pi(sweep, 0.8).p_s.iloc[0] == pytest.approx(0.70 - 0.1 / 3)
    # sorting the points by p_I instead (the old reading) mixes the branches: at p_I = 0.675
    # it pairs 0.6 (p_S 0.65) with 0.75 (p_S 0.55) and reads 0.60, below both crossings
    assert vision.ps_at_matched_pi(sweep, 0.675).p_s.iloc[0] == pytest.approx(0.675)
    assert vision.ps_at_matched_pi(sweep, 0.95).p_s.isna().all()  # beyond the peak


def test_effects_use_welch_t_intervals_over_seeds():
    import pandas as pd
    from scipy.stats import t

    by_alpha = pd.DataFrame({"alpha": [0.0] * 3 + [0.5] * 3, "seed": [0, 1, 2] * 2,
                             "acc": [0.60, 0.62, 0.61, 0.70, 0.74, 0.72]})
    pi = np.linspace(0.6, 0.95, 8)
    tr = pd.concat([pd.DataFrame({"alpha": a, "seed": s, "eps": np.arange(8.0), "p_i": pi,
                                  "p_s": 0.5 + pi / 4 + lift + 0.01 * s})
                    for a, lift in ((0.0, 0.0), (0.5, 0.1)) for s in range(3)])
    eff = vision.effects(by_alpha, tr, 0.0, {0.5: "cross-entropy on"}, {"acc": "accuracy"})
    acc = eff[eff.column == "acc"].iloc[0]
    se = np.sqrt(0.01 ** 2 / 3 + 0.02 ** 2 / 3)
    df = se ** 4 / ((0.01 ** 2 / 3) ** 2 / 2 + (0.02 ** 2 / 3) ** 2 / 2)
    assert acc.effect == pytest.approx(0.11) and acc.df == pytest.approx(df)
    # Student's t on about 2.9 degrees of freedom: 3.2, not 2
    assert acc.ci_high - acc.effect == pytest.approx(t.ppf(0.975, df) * se)
    assert acc.ci_high - acc.effect > 3 * se and acc.detected
    matched = eff[eff.column == "p_s_matched"].iloc[0]
    assert matched.effect == pytest.approx(0.1) and matched.p_i == pytest.approx(0.95)


# --- the chapter's decisions, sentences and figures -----------------------------------------

def _runs(lifts, seeds=3, auc_drop=0.05):
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


def _effects(results):
    tradeoff, by_alpha = vision.result_tables(results)
    lo, ce, one = vision.compared_alphas(by_alpha.alpha.unique())
    targets = {a: r for a, r in ((ce, "cross-entropy on"), (one, "cross-entropy off"))
               if a is not None}
    return tradeoff, by_alpha, vision.effects(by_alpha, tradeoff, lo, targets, vision.METRICS)


def test_result_tables_and_the_compared_alphas():
    tradeoff, by_alpha = vision.result_tables(_runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1}))
    assert list(tradeoff.columns) == vision.TRADEOFF_COLUMNS and len(tradeoff) == 9 * 6
    assert len(by_alpha) == 9 and {"mean_p_i", "best_p_s", "final_val_accuracy"} <= set(
        by_alpha.columns)
    assert vision.compared_alphas([0.5, 0.0, 1.0, 0.9]) == (0.0, 0.9, 1.0)
    assert vision.compared_alphas([0.0, 1.0]) == (0.0, None, 1.0)
    assert vision.compared_alphas([0.0, 0.5]) == (0.0, 0.5, None)
    assert vision.compared_alphas([1.0]) == (1.0, None, None)


def test_the_verdict_reads_a_detected_trade_and_says_nothing_on_one_seed():
    results = _runs({0.0: 0.0, 0.5: 0.05, 1.0: 0.1})
    _, by_alpha, effects = _effects(results)
    assert vision.traded(effects, 0.5) and vision.traded(effects, 1.0)
    assert vision.describe_effect(effects, "sim_accuracy", 0.5).startswith("rises (+0.050")
    assert vision.describe_effect(effects, "id_auc", 0.5).startswith("falls (-0.025")
    assert vision.describe_effect(effects, "nothing", 0.5) == "not measured"
    verdict = vision.alpha_verdict(effects, by_alpha, 3)
    assert verdict.startswith("raising α from 0 to 0.5, with the classifier still trained, "
                              "traded identification for generalization")
    assert "at equal ε-quantiles p_I falls" in verdict and "at α = 1" in verdict
    assert "no conclusion" in vision.alpha_verdict(effects, by_alpha, 1)
    # no trade with the cross-entropy on, one at α = 1: the verdict says so
    _, by_alpha, effects = _effects(_runs({0.0: 0.0, 0.5: 0.0, 1.0: 0.1}, auc_drop=0.0))
    assert not vision.traded(effects, 0.5)
    assert "no detected trade" in vision.alpha_verdict(effects, by_alpha, 3)
    shown = vision.effects_display(effects, 0.0)
    assert list(shown.columns) == ["measure", "α = 0 → 0.5", "α = 0 → 1"]
    assert all(c.endswith("]") or c.endswith(" *") for c in shown.iloc[:, 1])


def test_sentences_and_points():
    results = _runs({0.0: 0.0, 0.5: 0.05})
    tradeoff, by_alpha, effects = _effects(results)
    assert "3 seeds a side" in vision.welch_words(effects, 3)
    one = _effects(_runs({0.0: 0.0, 0.5: 0.05}, seeds=1))[2]
    assert vision.welch_words(one, 1) == "with one seed per α there is no interval"
    assert vision.replicates_sentence(1, False).startswith("The 1 seed per α")
    assert "CUB-200-2011" in vision.replicates_sentence(3, True)
    words = vision.run_sentences(results, 0.1, by_alpha.train_seconds.sum())
    assert words == {"at_once": "one at a time", "run_source": words["run_source"]}
    assert words["run_source"].startswith("were loaded from the cache")
    assert vision.run_sentences(results, 100.0, 12.0)["run_source"] == "were trained in this build"
    points = vision.peak_points(tradeoff)
    assert [p[0] for p in points] == ["ResNet, α = 0", "ResNet, α = 0.5"]
    assert all(len(p) == 5 and 0 < p[1] < 1 for p in points)


def test_deviation_lines_name_what_differs_from_the_paper():
    data = phylo.simulate_dataset(8, 6, size=16, seed=2)
    cfg = {"widths": (8, 16), "depths": (1, 1)}
    data_line, model_line = vision.deviation_lines(data, cfg)
    assert data_line.startswith("data: a simulated tree of 8 species") and "8, 16" in model_line
    assert vision.deviation_lines(data, cfg, model="microsoft/resnet-50")[1] == ""
    assert "from `/x`" in vision.deviation_lines(data, cfg, cub_dir="/x", newick="t.tre")[0]


def test_figures_draw():
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    tradeoff, by_alpha = vision.result_tables(_runs({0.0: 0.0, 1.0: 0.1}, seeds=2))
    by_alpha["final_val_accuracy"] = 0.5
    for fig in (vision.fig_tradeoff(tradeoff), vision.fig_summaries(by_alpha),
                phylo.fig_tree_gallery(phylo.simulate_dataset(8, 6, size=16, seed=2))):
        assert fig.axes
        plt.close(fig)


def test_a_family_of_claims_widens_each_interval_to_keep_its_error_rate():
    """Three effects of size 0 measured with 3 seeds a side: read alone, at least one of the
    three 95 % intervals misses 0 about 1 - 0.95³ of the time; widened for the family, at
    most 5 % (Monte Carlo over 4,000 families)."""
    import types

    from scipy.stats import t as student

    rng = np.random.default_rng(0)
    alone, family = [], []
    for _ in range(4000):
        est = rng.normal(0, 1, 3)  # the effect's estimate in units of its standard error
        se = np.sqrt(rng.chisquare(4, 3) / 4)  # with its estimated standard error, df 4
        rows = [types.SimpleNamespace(effect=e, se=s, df=4.0) for e, s in zip(est, se)]
        alone.append(any(abs(r.effect) > student.ppf(0.975, 4) * r.se for r in rows))
        family.append(any(not (vision.family_ci(r, 3)[0] <= 0 <= vision.family_ci(r, 3)[1])
                          for r in rows))
    assert np.mean(alone) > 0.12 and np.mean(family) < 0.05 + 3 * np.sqrt(0.05 * 0.95 / 4000)
    with pytest.raises(ValueError, match="claims"):
        vision.family_ci(rows[0], 0)


def test_the_matched_effect_is_a_curve_over_the_shared_range():
    import pandas as pd

    # two α, two seeds each: the higher α sits 0.05 above in p_S at every p_I
    rows = []
    for a, shift in ((0.0, 0.0), (0.9, 0.05)):
        for seed in (0, 1):
            p_i = np.linspace(0.5, 1.0, 11)
            rows += [{"alpha": a, "seed": seed, "eps": e, "p_i": x,
                      "p_s": 0.5 + shift + 0.1 * (1 - x) + 0.001 * seed}
                     for e, x in enumerate(p_i[::-1])]
    curve = vision.matched_curve(pd.DataFrame(rows), 0.0, 0.9, points=5)
    assert len(curve) == 5 and np.allclose(curve.effect, 0.05)
    assert curve.p_i.min() == pytest.approx(0.5) and curve.p_i.max() == pytest.approx(1.0)
    assert "+0.050" in vision.matched_words(curve, 0.75)
