"""Tree simulation, traits, rendering, splits and the CUB loader (on a generated fixture)."""

import csv
import re

import dendropy
import numpy as np
import pytest
from PIL import Image

from semres.experiments.phylogeny import phylo

HAND_TREE = "((A:1,B:2):3,(C:4,D:5):6);"


def test_patristic_distances_match_a_hand_computed_tree():
    tree = dendropy.Tree.get(data=HAND_TREE, schema="newick")
    D = phylo.patristic_matrix(tree, ["A", "B", "C", "D"])
    by_hand = np.array([
        [0, 1 + 2, 1 + 3 + 6 + 4, 1 + 3 + 6 + 5],
        [3, 0, 2 + 3 + 6 + 4, 2 + 3 + 6 + 5],
        [14, 15, 0, 4 + 5],
        [15, 16, 9, 0],
    ])
    np.testing.assert_allclose(D, by_hand)
    with pytest.raises(ValueError, match="labels"):
        phylo.patristic_matrix(tree, ["A", "Z"])


def test_simulated_tree_is_ultrametric_with_positive_branches_and_seeded():
    tree = phylo.simulate_tree(20, seed=3)
    labels = phylo.tip_labels(tree)
    assert len(labels) == len(set(labels)) == 20
    depths = [leaf.distance_from_root() for leaf in tree.leaf_node_iter()]
    np.testing.assert_allclose(depths, depths[0], rtol=1e-9)
    D = phylo.patristic_matrix(tree)
    assert (D[~np.eye(20, dtype=bool)] > 0).all()  # no two species at distance 0
    np.testing.assert_array_equal(D, phylo.patristic_matrix(phylo.simulate_tree(20, seed=3)))
    assert not np.array_equal(D, phylo.patristic_matrix(phylo.simulate_tree(20, seed=4)))


def test_brownian_traits_covary_by_shared_history():
    tree = dendropy.Tree.get(data=HAND_TREE, schema="newick")
    n = 40_000  # traits are independent replicates, so their sample covariance estimates C
    x = phylo.brownian_traits(tree, n_traits=n, sigma=0.5, seed=0)
    shared = 0.25 * np.array([[4, 3, 0, 0], [3, 5, 0, 0], [0, 0, 10, 6], [0, 0, 6, 11]])
    cov = x @ x.T / n  # mean 0 at the root
    se = np.sqrt((np.outer(np.diag(shared), np.diag(shared)) + shared**2) / n)
    assert np.all(np.abs(cov - shared) < 5 * se)


def test_rendering_is_deterministic_and_follows_traits():
    t = np.zeros(phylo.N_TRAITS)
    a = phylo.render_species(t, 5, size=32, seed=7)
    assert a.shape == (5, 32, 32, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, phylo.render_species(t, 5, size=32, seed=7))
    assert not np.array_equal(a, phylo.render_species(t, 5, size=32, seed=8))
    assert not np.array_equal(a[0], a[1])  # individuals differ within a species
    # a red-bodied species vs a blue-bodied one: the body colour shows in the image
    red, blue = t.copy(), t.copy()
    red[:3] = [4, -4, -4]
    blue[:3] = [-4, -4, 4]
    r = phylo.render_species(red, 30, size=32, seed=1).astype(float)
    b = phylo.render_species(blue, 30, size=32, seed=1).astype(float)
    centre = (slice(None), slice(12, 20), slice(12, 20))
    assert r[centre][..., 0].mean() - r[centre][..., 2].mean() > \
        b[centre][..., 0].mean() - b[centre][..., 2].mean() + 40
    with pytest.raises(ValueError, match="traits"):
        phylo.render_species(np.zeros(3), 2)


def test_split_has_no_leakage():
    species = np.repeat(np.arange(20), 10)
    s = phylo.split_indices(species, ood_fraction=0.15, seed=1)
    parts = [set(s[k]) for k in ("train", "val", "test", "ood")]
    assert sum(map(len, parts)) == len(species) == len(set().union(*parts))
    ood_species = set(species[s["ood"]])
    assert len(ood_species) == 3
    for k in ("train", "val", "test"):
        assert not ood_species & set(species[s[k]])
    assert set(species[s["train"]]) == set(species[s["test"]]) == set(range(20)) - ood_species
    np.testing.assert_array_equal(s["test"], phylo.split_indices(species, seed=1)["test"])
    for bad, name in (({"ood_fraction": 1.2}, "ood_fraction"), ({"test_fraction": 1.0},
                      "test_fraction"), ({"val_fraction": 0.5, "test_fraction": 0.5}, "val_")):
        with pytest.raises(ValueError, match=name):  # test_fraction 1 trained on test images
            phylo.split_indices(species, **bad)


def test_simulated_dataset_is_reproducible():
    a = phylo.simulate_dataset(8, 6, size=16, seed=2)
    b = phylo.simulate_dataset(8, 6, size=16, seed=2)
    np.testing.assert_array_equal(a.images, b.images)
    np.testing.assert_array_equal(a.distances, b.distances)
    assert a.images.shape == (48, 16, 16, 3)
    assert np.isclose(a.distances.max(), 2.0)  # crown depth rescaled to 1
    assert a.names == phylo.tip_labels(a.tree)


# --- the CUB path on a generated fixture -----------------------------------------------------

CLASSES = ["001.Black_footed_Albatross", "029.American_Crow", "030.Fish_Crow",
           "182.Yellow_Warbler"]


def _fixture(tmp_path, newick):
    root = tmp_path / "CUB_200_2011"
    rng = np.random.default_rng(0)
    for k, name in enumerate(CLASSES):
        folder = root / "images" / name
        folder.mkdir(parents=True)
        for i in range(4):
            pixels = rng.integers(0, 255, (30 + 5 * k, 40, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(folder / f"{name}_{i}.jpg")
    tree = tmp_path / "tree.nwk"
    tree.write_text(newick)
    return root, tree


# Yellow Warbler under its older name (a synonym), the others under current names
NEWICK = ("((Phoebastria_nigripes:3,Rhea_americana:3):1,"
          "((Corvus_brachyrhynchos:1,Corvus_ossifragus:1):1,Dendroica_petechia:2):2);")


def test_cub_loader_matches_tips_exactly(tmp_path):
    root, tree = _fixture(tmp_path, NEWICK)
    data = phylo.load_cub(root, tree, size=16, ood_fraction=0.0, val_fraction=0.0,
                          test_fraction=0.25)
    assert data.names == ["Phoebastria_nigripes", "Corvus_brachyrhynchos",
                          "Corvus_ossifragus", "Dendroica_petechia"]
    assert data.images.shape == (16, 16, 16, 3)
    np.testing.assert_array_equal(data.species, np.repeat(np.arange(4), 4))
    assert data.distances[1, 2] == 2  # the two crows are sisters
    assert data.distances[0, 1] == 3 + 1 + 2 + 1 + 1  # the crow is not the rhea's neighbour


def test_cub_loader_errors_name_what_is_missing(tmp_path):
    root, tree = _fixture(tmp_path, NEWICK)
    with pytest.raises(FileNotFoundError, match="CUB folder"):
        phylo.load_cub(tmp_path / "nowhere", tree)
    with pytest.raises(FileNotFoundError, match="Newick"):
        phylo.load_cub(root, tmp_path / "none.nwk")
    bad = tmp_path / "bad.nwk"
    bad.write_text("((A:1,B:2")
    with pytest.raises(ValueError, match="could not read Newick"):
        phylo.load_cub(root, bad)
    no_crow = tmp_path / "no_crow.nwk"
    no_crow.write_text(NEWICK.replace("Corvus_brachyrhynchos", "Rhea_pennata"))
    with pytest.raises(ValueError, match=re.escape("029.American_Crow (Corvus brachyrhynchos)")):
        phylo.load_cub(root, no_crow)
    (root / "images" / "201.Made_up_Bird").mkdir()
    with pytest.raises(ValueError, match="201.Made_up_Bird"):
        phylo.load_cub(root, tree)


def test_shipped_names_table_covers_cub_exactly():
    table = phylo.read_names()
    assert len(table) == 200
    numbers = sorted(int(k.split(".")[0]) for k in table)
    assert numbers == list(range(1, 201))
    names = [sci for sci, _ in table.values()]
    assert len(set(names)) == 200
    for folder, (sci, synonyms) in table.items():
        for name in [sci, *synonyms]:
            assert re.fullmatch(r"[A-Z][a-z]+ [a-z]+", name), (folder, name)
    # every row says how sure it is
    text = (phylo.resources.files("semres") / "data/cub_scientific_names.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    assert {r["confidence"] for r in rows} <= {"high", "medium", "low"}
    assert all(r["note"] for r in rows if r["confidence"] != "high")
