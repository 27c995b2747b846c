"""The vector index, in one place: Chroma is derived data, SQLite is the truth.

- `chroma`: `ChromaIndex`, one collection per embedding model, in this process; the
  `VectorIndex` protocol; which Chroma failures mean damaged files.
- `healing`: `HealingIndex`, which replaces damaged files by an index rebuilt from SQLite.
- `keeper`: `IndexKeeper`, which opens the index of the embedder's model, keeps it equal to
  the active memories (`reconcile`), rebuilds it and switches models.
- `child`: the one child-process mechanism (a fork server, `Served`), and `ChildIndex`,
  the window's index served by a child.
- `scrub`: `IndexScrubber`, which copies the kept vectors into a fresh folder in children
  so a deleted vector leaves the disk.
- `probe`: after a crash, the folder is opened in a child first (a damaged HNSW file can
  crash the process that loads it).
"""
