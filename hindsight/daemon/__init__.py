"""The language server, its protocol converters and the command line."""
