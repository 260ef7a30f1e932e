"""Chapter 5: language models date events; the name tasks, the scorer and the year probe."""
