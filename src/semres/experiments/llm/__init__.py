"""Chapter 5 (``05_llm_years``): language models and years."""
