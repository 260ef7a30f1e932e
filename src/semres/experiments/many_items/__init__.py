"""Chapter 2 (``02_many_items``): Theorem 3 for n items, b*(n) against the paper's values, the
non-monotonic p_S^n, and their Monte Carlo check."""
