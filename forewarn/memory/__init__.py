"""Memories: the store, the embedder, retrieval and lifecycle. Knows nothing of LSP."""
