"""semres: the executable companion to "Bound by Semanticity" (Nurisso et al., ICLR 2026)."""

__version__ = "0.1.0"
