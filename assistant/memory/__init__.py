"""The memory core: store, vault, index, embedder, extract, write, recall, inject, maintain, forget."""
