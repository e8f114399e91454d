"""Forewarn for coding agents: an MCP server (``forewarn mcp``) on the workspace engine.

``render`` turns memories into compact Markdown packed into a token budget (pure, no I/O); ``server`` declares
the tools and resources on the official MCP SDK and maps Forewarn's errors onto MCP tool errors.
"""
