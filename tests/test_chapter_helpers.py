"""semres.core.book: the helpers every chapter leans on."""

import pandas as pd
import pytest

from semres.core import book


def test_save_table_writes_atomically_under_the_results_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMRES_RESULTS_DIR", str(tmp_path))
    path = book.save_table(pd.DataFrame({"a": [1, 2]}), "09_x", "t")
    assert path == tmp_path / "09_x" / "t.csv"
    assert pd.read_csv(path)["a"].tolist() == [1, 2]
    assert [p.name for p in path.parent.iterdir()] == ["t.csv"]  # no temporary left behind


def test_cache_lives_under_the_build_dir_keyed_by_the_code(tmp_path, monkeypatch):
    from semres.core import fingerprint, theory

    monkeypatch.setenv("SEMRES_BUILD_DIR", str(tmp_path))
    assert book.cache().location == str(tmp_path / "cache")
    assert book.cache().cache(theory.front)(0.75) == theory.front(0.75)
    (entry,) = (tmp_path / "cache").rglob("output.pkl")
    assert entry.relative_to(tmp_path / "cache").parts[0] == fingerprint.digest(theory.front)


def test_torch_device_auto_follows_cuda_availability_and_rejects_bad_names(monkeypatch):
    import torch

    assert book.torch_device("cpu").type == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert book.torch_device("auto").type == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert book.torch_device("auto").type == "cpu"
    with pytest.raises(ValueError, match="device"):
        book.torch_device("warp-drive")
