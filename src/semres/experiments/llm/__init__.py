"""Chapter 5 (``05_llm_years``): language models and years.

The paper's year task put to models that run offline: an exponential similarity with a noise
floor on the shared engine; small causal LMs through a competence gate, the near design and the
paper's protocol; a sentence encoder whose kernel of years is read directly; and any model's
answers from result files, the authors' released ones included.

Modules: :mod:`.settings` (the profiles, the people and questions, what the paper reports);
the science, :mod:`.trials` (the paper's tests as trials), :mod:`.language` (the sentence
encoder and its kernel), :mod:`.kernel_fits` (shapes fitted to a kernel),
:mod:`.two_reference` (the paper's resolution design), :mod:`.answers` (Theorem 3 and the
design from anyone's answers), :mod:`.models` (the causal LMs that ship), :mod:`.lm` (the
option scorer), :mod:`.competence` (the gate, the question asked backwards, the probe),
:mod:`.near` (the near design) and :mod:`.lm_protocol` (the protocol on a causal LM);
:mod:`.verdicts` (the decisions, each threshold named); :mod:`.tables` and :mod:`.figures`
(what the chapter saves and draws). The chapter writes every sentence.
"""
