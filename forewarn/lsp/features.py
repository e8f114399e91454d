"""The language server's protocol features: thin handlers that locate the folder, call its session off the event
loop, and map the result with ``convert`` (and ``for_agents`` for a client that is not an interactive editor)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from forewarn.lsp import commands, convert, for_agents
from forewarn.lsp.server import ForewarnServer


def register(server: ForewarnServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: ForewarnServer, params: types.InitializeParams) -> None:
        ls.init_options = params.initialization_options
        ls.agent.introduce(params)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: ForewarnServer, params: types.InitializedParams) -> None:
        await ls.start()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: ForewarnServer, params: types.DidChangeConfigurationParams) -> None:
        await ls.reload_settings(params.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(ls: ForewarnServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            path = to_fs_path(folder.uri)
            if path and (session := ls.sessions.pop(str(Path(path).resolve()), None)) is not None:
                session.cancel()
                await ls.write(session.close)
        for folder in params.event.added:
            path = to_fs_path(folder.uri)
            if path:
                ls.spawn(ls.index(await ls.open_folder(folder.uri, Path(path).resolve())))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ForewarnServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.opened(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ForewarnServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.debounce_change(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: ForewarnServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.saved(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ForewarnServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget_document(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: ForewarnServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.queue_watched([change.uri for change in params.changes])

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: ForewarnServer, params: types.HoverParams) -> types.Hover | None:
        await ls.ready.wait()
        if (found := ls.locate(params.text_document.uri)) is None:
            return None
        session, rel = found
        line, char = params.position.line + 1, params.position.character
        encoding = str(getattr(ls.workspace.position_encoding, "value", None) or "utf-16")  # what `char` counts
        view = await ls.read(session.symbol_info, rel, line, char, ls.buffer_text(params.text_document.uri), encoding)
        shown = convert.hover_view(view, line, rel)
        return shown if ls.interactive() else for_agents.agent_hover(shown)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
    )
    async def code_action(
        ls: ForewarnServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | list[types.Command] | None:
        await ls.ready.wait()
        if (found := ls.locate(params.text_document.uri)) is None:
            return None
        session, rel = found
        line = params.range.start.line + 1
        # an edited, unsaved buffer: the definition there is the buffer's; a remember names and anchors its saved one
        place = await ls.read(session.saved_place, rel, line, ls.buffer_text(params.text_document.uri))
        symbol = place.symbol
        prompts = convert.client_prompts(ls.capability("experimental"))
        orphans = await ls.read(session.orphans, rel) if symbol is not None else []
        actions = convert.code_actions(
            params.text_document.uri,
            params.range,  # the buffer's lines: forewarn.remember finds where they are saved
            symbol,
            params.context.diagnostics,
            prompts=prompts,
            orphans=orphans,
        )
        if place.line is None:  # unsaved code: nothing saved to remember a gotcha on (save first)
            actions = [a for a in actions if a.command is None or a.command.command != convert.CMD_REMEMBER]
        if ls.capability("text_document.code_action.code_action_literal_support") is None:
            return convert.bare_commands(actions)  # an old client that only understands Commands
        return actions

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(ls: ForewarnServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        return await commands.workspace_symbols(ls, params.query)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: ForewarnServer, params: Any) -> None:
        ls.begin_shutdown()
