"""Chapter 1's experiment (``01_pareto_front``): the two-item laws of Theorems 1-2, checked by
Monte Carlo on a circle, a segment, a sphere and a discrete space with ties, and the interactive
front explorer the chapter ends with.

:mod:`.settings` holds the profiles and the check's design, :mod:`.method` the discrete space,
:mod:`.verdicts` which Monte Carlo cells decide which result, :mod:`.page` the figures and what
the page glues, :mod:`.page_explorer` the explorer. The engine itself is
:mod:`semres.core.simulate`, the closed forms :mod:`semres.core.theory`.
"""
