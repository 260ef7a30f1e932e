"""Chapter 1 (``01_pareto_front``): the two-item laws of Theorems 1-2 checked by Monte Carlo on
a circle, a segment, a sphere and a discrete space with ties, and the front explorer."""
