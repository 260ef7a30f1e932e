"""Chapter 2's experiment (``02_many_items``): Theorem 3 for n items, the optimal resolution
b*(n) against the paper's values, the non-monotonic p_S^n, and their Monte Carlo check on the
circle and the segment.

:mod:`.settings` holds the profiles, the check's cells and the paper's quoted values,
:mod:`.method` Theorem 3's heterogeneous form on the segment, :mod:`.verdicts` the rules that
compare this build with the paper, :mod:`.page` the figures and what the page glues.
"""
