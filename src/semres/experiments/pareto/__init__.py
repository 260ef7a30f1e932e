"""Chapter 1 (``01_pareto_front``): the two-item laws checked by Monte Carlo, and the front
explorer."""
