"""The language server: pygls handlers, protocol converters, per-folder sessions and LSP settings."""
