"""The α-weighted loss's terms, training with resumable checkpoints, stacked runs against runs
trained alone, and the runs the chapter caches, on the simulated data and on a CUB-shaped
fixture."""

import joblib
import numpy as np
import pandas as pd
import pytest
import torch
from PIL import Image

from semres.experiments.phylogeny import phylo, vision


def test_check_inputs_names_the_missing_tree():
    with pytest.raises(ValueError, match="newick"):
        vision.check_inputs(cub_dir="/data/CUB_200_2011", newick=None)
    vision.check_inputs()  # the embedded default needs nothing


def test_loss_terms_are_cross_entropy_and_the_distance_mismatch():
    torch.manual_seed(0)
    species = torch.tensor([0, 0, 1, 2, 2, 1])
    D = torch.tensor([[0.0, 2, 4], [2, 0, 4], [4, 4, 0]])
    logits = torch.randn(6, 3)
    emb = torch.randn(6, 5, requires_grad=True)
    ce, l_sim = vision._loss_terms(logits, emb, species, species, D)
    assert ce.item() == pytest.approx(torch.nn.functional.cross_entropy(logits, species).item())
    e = emb.detach().numpy()
    i, j = np.triu_indices(6, 1)
    de = np.linalg.norm(e[i] - e[j], axis=1)
    dp = D.numpy()[species.numpy()[i], species.numpy()[j]]
    manual = np.mean((de / de.mean() - dp / dp.mean()) ** 2)
    assert l_sim.item() == pytest.approx(manual, rel=1e-5)
    # an embedding whose distances are proportional to the tree's has zero mismatch
    pts = torch.tensor([[0.0, 0.0], [2.0, 0.0], [1.0, np.sqrt(15.0)]])  # pairwise 2, 4, 4
    _, zero = vision._loss_terms(logits, 3 * pts[species], species, species, D)
    assert zero.item() < 1e-8
    l_sim.backward()  # duplicate embeddings must not give NaN gradients
    dup = emb.detach().clone()
    dup[1] = dup[0]
    dup.requires_grad_(True)
    vision._loss_terms(logits, dup, species, species, D)[1].backward()
    assert torch.isfinite(dup.grad).all()


def _train(model, data, alpha, *, seed=0, **kw):
    """One run of ``train_many``: its history."""
    return vision.train_many([model], data, [alpha], [seed], **kw)[0]


@pytest.fixture(scope="module")
def small_data():
    return phylo.simulate_dataset(6, 24, size=24, seed=0, ood_fraction=0.0)


def _model(data):
    n_classes = len(np.unique(data.species[data.split["train"]]))
    return vision.build_model(n_classes, widths=(8, 16), depths=(1, 1), seed=0)


def test_training_learns_and_resumes_exactly(small_data, tmp_path):
    kw = dict(batch_size=16, lr=1e-2, seed=1, progress=False)
    straight = _model(small_data)
    hist = _train(straight, small_data, 0.5, epochs=10, **kw)
    assert hist[-1]["loss"] < hist[0]["loss"]
    # the loss trained on is (1 - alpha) ce + alpha l_sim, each a mean over the epoch's batches
    assert hist[0]["loss"] == pytest.approx(0.5 * hist[0]["ce"] + 0.5 * hist[0]["l_sim"], rel=1e-5)
    train = small_data.split["train"]
    with torch.no_grad():
        logits = straight.eval()(torch.from_numpy(small_data.images[train]))[0]
    train_acc = float((logits.argmax(1).numpy() == small_data.species[train]).mean())
    assert train_acc > 0.4  # chance is 1/6
    # interrupted after 3 epochs, resumed from the checkpoint: same weights at the end
    ckpt = tmp_path / "run.pt"
    _train(_model(small_data), small_data, 0.5, epochs=3, checkpoint=ckpt, **kw)
    resumed = _model(small_data)
    hist2 = _train(resumed, small_data, 0.5, epochs=10, checkpoint=ckpt, **kw)
    assert len(hist2) == 10 and hist2[-1]["loss"] == pytest.approx(hist[-1]["loss"], rel=1e-4)
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    emb = vision.embed(resumed, small_data.images[small_data.split["test"]])
    assert emb.shape == (len(small_data.split["test"]), 16)


def test_bad_arguments_raise(small_data):
    with pytest.raises(ValueError, match="num_classes"):
        vision.build_model(1)
    with pytest.raises(ValueError, match="epochs"):
        _train(_model(small_data), small_data, 0.5, epochs=0)
    with pytest.raises(ValueError, match="alpha"):
        _train(_model(small_data), small_data, 1.5, epochs=1)
    with pytest.raises(ValueError, match="cannot be loaded offline"):
        vision.build_model(5, model="/nonexistent/resnet")


def _write_cub_images(images, classes, per_class, shape, step, noise):
    """A CUB-shaped ``images/<class folder>/*.jpg`` tree: one noisy grey level per class."""
    rng = np.random.default_rng(0)
    for k, name in enumerate(classes):
        folder = images / name
        folder.mkdir(parents=True)
        for i in range(per_class):
            base = np.full(shape, step * k, dtype=np.uint8)
            Image.fromarray(base + rng.integers(0, noise, shape, dtype=np.uint8)).save(
                folder / f"{i}.jpg")


def test_real_path_runs_end_to_end_on_a_cub_shaped_fixture(tmp_path):
    """load_cub -> train_and_evaluate_many: the chapter's real path, on generated JPEGs."""
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
    (out,) = vision.train_and_evaluate_many(data.images, data.species, data.distances,
                                            data.split, [(0.5, 0)], settings,
                                            checkpoint_dir=tmp_path / "ckpt", progress=False)
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
    np.testing.assert_allclose(net.mean.flatten().numpy(), vision.IMAGENET[0], rtol=1e-6)
    assert vision.embed(net, np.zeros((2, 32, 32, 3), np.uint8)).shape == (2, 12)


@pytest.mark.chapters
def test_chapter_runs_on_cub_shaped_data(tmp_path):
    """The chapter itself, real path: parameters cub_dir and newick on a generated fixture."""
    from semres.pipeline import runner  # the whole build, for this one slow test

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
        _train(net, small_data, alpha, seed=seed, threads=threads, **kw)
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


def test_runs_are_the_same_wherever_they_train(small_data, monkeypatch):
    """On a CPU the runs go to the cores a finished lane frees (semres.core.book.spread): each
    trains single-threaded in its own process or in the chapter's, and every curve, summary and
    history (but the epochs' seconds) is the same as when all train here, in order."""
    from semres.core import book

    settings = dict(epochs=2, batch_size=16, lr=1e-2, widths=(8, 16), depths=(1, 1), n_eps=5,
                    max_probes=20)
    runs = [(0.0, 0), (0.5, 0), (1.0, 1), (0.5, 2)]

    def measured(cores):
        monkeypatch.setattr(book, "cores", lambda: cores)
        out = vision.train_and_evaluate_many(small_data.images, small_data.species,
                                             small_data.distances, small_data.split, runs,
                                             settings, progress=False, seed=3)
        for run in out:
            for key in ("seconds", "train_seconds"):
                run.pop(key)
            for epoch in run["history"]:
                epoch.pop("seconds")
        return out

    here, spread = measured(1), measured(2)
    assert joblib.hash(here) == joblib.hash(spread)
    assert [(r["alpha"], r["seed"]) for r in spread] == runs


def test_multi_tensor_optimiser_changes_no_number(small_data, monkeypatch):
    """AdamW's multi-tensor kernels (``foreach``, for speed) train the same weights, bit for
    bit, as its per-tensor loop."""
    import torch

    adamw = torch.optim.AdamW

    def trained(foreach):
        monkeypatch.setattr(torch.optim, "AdamW",
                            lambda *a, **k: adamw(*a, **{**k, "foreach": foreach}))
        model = vision.build_model(len(np.unique(small_data.species[small_data.split["train"]])),
                                   widths=(8, 16), depths=(1, 1), seed=4)
        _train(model, small_data, 0.5, epochs=2, batch_size=16, lr=1e-2, seed=4,
                     progress=False)
        return model.state_dict()

    loop, multi = trained(False), trained(True)
    assert all(torch.equal(loop[k], multi[k]) for k in loop)


@pytest.mark.parametrize("at_once", [0, -1])
def test_runs_at_once_below_one_is_refused_by_name(at_once):
    with pytest.raises(ValueError, match="runs_at_once"):
        vision.train_and_evaluate_many(np.zeros((2, 3, 8, 8)), np.array([0, 1]), np.ones((2, 2)),
                                       {"train": [0], "test": [1]}, [(0.0, 0), (0.5, 0)],
                                       {"runs_at_once": at_once})
