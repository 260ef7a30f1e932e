"""What every experiment stands on: the theory, the Monte Carlo engine, fits and intervals,
the results schema, figures, settings, seeds and the cache."""
