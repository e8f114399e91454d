"""Forewarn: a local language server that remembers what a team learned the hard way about its code."""

__version__ = "0.1.0"
