"""Workspace indexing: scanning, tree-sitter chunks, tags, imports, the file graph and PageRank.

Knows nothing of LSP.
"""
