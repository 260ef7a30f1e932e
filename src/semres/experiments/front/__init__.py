"""Chapters 1 and 2: the two-item Pareto front, the n-item bound and the front explorer."""
