"""Chapter 7 (``07_front_universality``): how universal the front is. Similarity shapes
(:mod:`.families`), step similarities (:mod:`.steps`), the certified two-item frontier
(:mod:`.certified`), the n-item floor bound and best similarity (:mod:`.floor_n`) with its
branch-and-bound certificate (:mod:`.branch`), ties on discrete spaces (:mod:`.ties`) and slot
codes (:mod:`.slots`)."""
