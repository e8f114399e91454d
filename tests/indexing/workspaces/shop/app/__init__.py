"""The shop application."""
