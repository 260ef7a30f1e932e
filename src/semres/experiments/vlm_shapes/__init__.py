"""Chapter 6's experiment (``06_vlm_shapes``): vision-language models on canvases of shapes and
a red X, and the spatial resolution their answers carry, read through a Luce choice rule with a
per-answer response bias and through Theorem 3 against the number of shapes.

:mod:`.settings` holds the task's design and the profiles; :mod:`.scenes` draws and renders the
canvases; :mod:`.vlm` builds, loads and scores a VLM (the tiny LLaVA trained here by
:mod:`.training`, or a hub model); :mod:`.luce` fits a spatial scale to a model's answers;
:mod:`.nsweep` fits Theorem 3 to p(n); :mod:`.authors` runs the same analyses on the paper's two
models (through :mod:`semres.experiments.released`) and on any results files; :mod:`.verdicts`
holds the rules, :mod:`.page` (with :mod:`.page_sentences` and :mod:`.page_figures`) what the
page publishes.
"""
