"""Agent hooks: what agent hosts (Claude Code, Copilot CLI, Codex, Gemini CLI) are told as their agent works.

A host runs ``forewarn hook HOST`` at fixed points (a session starts, a tool is about to run or has run) with
the event as JSON on stdin, and adds what the command prints to the agent's context. ``hosts`` reads each
host's event shape into one ``HookEvent`` and writes the answer in the host's format; ``handler`` decides what
to say (a session briefing, a file's memories once a session, what the team knows about a failure) and what a
session taught (``capture``); ``session`` keeps each host session's state; ``server`` keeps the workspace open
between calls and ``client`` (the only part a hook call loads) asks it, starting it when none answers.
Nothing here ever fails the agent's tool call: any error is logged and answered with nothing.
"""
