"""``python -m semres.experiments.released``: :func:`semres.experiments.released.cli.main`."""

from .cli import main

raise SystemExit(main())
