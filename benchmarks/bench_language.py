"""Throughput of chapter 5's building blocks; prints figures, asserts nothing.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_language.py

Targets (2-core CPU): embedding is the only heavy step (the default profile embeds ~42k short
sentences once, then reads them from the cache); scoring trials from the embedding table and
measuring the kernel take seconds; a kernel-shape fit takes tens of milliseconds and a
two-reference fit well under a second, so the window-by-window bootstraps stay within seconds.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from semres.experiments.llm import kernel_fits, language, settings, trials  # noqa: E402
from semres.experiments.llm import two_reference  # noqa: E402


def timed(label, fn, count, unit):
    start = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - start
    print(f"{label:<44s} {dt:7.2f} s   {count / dt:10.0f} {unit}/s")
    return out


def main():
    import torch

    print(f"torch threads: {torch.get_num_threads()}")
    sentences = [settings.ITEM_TEMPLATE.format(name=n, year=y)
                 for n in settings.NAMES[:4] for y in range(1500, 1750)]
    timed("embed all-MiniLM-L6-v2 (no cache)",
          lambda: language.embed_sentences(sentences, cache=False), len(sentences), "sentences")

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SEMRES_BUILD_DIR"] = tmp
        emb = language.year_embeddings(settings.NAMES[:6], range(1500, 1750))
        timed("year_embeddings again (cache hit)",
              lambda: language.year_embeddings(settings.NAMES[:6], range(1500, 1750)),
              len(sentences), "sentences")
    prof = timed("measure_kernel (5 phrasings x 6 names)",
                 lambda: language.measure_kernel(emb), 5 * 6 * 250 * 250, "pairs")
    for shape in kernel_fits.SHAPES:
        timed(f"fit_shape {shape} (d <= 249)",
              lambda: kernel_fits.fit_shape(prof.distance, prof.similarity(), shape), 1, "fits")
    timed("compare_shapes (5 folds x 4 shapes)",
          lambda: kernel_fits.compare_shapes(prof, seed=0), 24, "fits")
    timed("resolution_by_window (3 windows x 20 refits)",
          lambda: kernel_fits.resolution_by_window(prof, [100, 150, 200], 20, 0), 63, "fits")
    rows = []
    for D in (5, 20, 50):
        tr = trials.resolution_trials(D, range(1600, 1650, 5), range(-100, 100, 5), 10, D,
                                      n_names=6, n_templates=1)
        centre = tr.years.mean(1)
        rows.append(two_reference.two_reference_counts(centre, np.full(len(tr), D),
                                                        tr.probe - centre,
                                                        language.encoder_mass(emb, tr)))
    counts = pd.concat(rows, ignore_index=True)
    timed("fit_two_reference + 50 centre resamples",
          lambda: two_reference.fit_two_reference(counts, 50, 0), 51, "fits")
    for n in (2, 6):
        tr = trials.draw_trials("similarity", n, 20_000, 0, years=(1500, 1749), n_names=6)
        timed(f"encoder_mass similarity n={n}", lambda: language.encoder_mass(emb, tr), 20_000,
              "trials")
    print(f"mean cosine difference at d = 1, 10, 100: "
          f"{np.round(prof.mean_cosine()[[1, 10, 100]], 4)}")


if __name__ == "__main__":
    main()
