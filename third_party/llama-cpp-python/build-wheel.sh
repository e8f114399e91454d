#!/usr/bin/env bash
# Build llama-cpp-python from its PyPI sdist with Forewarn's ggml CPU-kernel patch, once per machine.
#
#   third_party/llama-cpp-python/build-wheel.sh PYTHON            → prints the path of the patched wheel
#   third_party/llama-cpp-python/build-wheel.sh PYTHON --stock    → the same sdist unpatched, as PyPI ships it
#
# The patched wheel is versioned 0.3.36+forewarn.<key> (it still satisfies `llama-cpp-python==0.3.36`), the
# stock one plain 0.3.36 (what a user's `pipx install forewarn` compiles). Both are kept
# in $FOREWARN_WHEEL_CACHE (default ~/.cache/forewarn/wheels), in one folder per flavour: CMAKE_ARGS (a
# CUDA build is another wheel) and this CPU's flags (llama.cpp is compiled for the native CPU). The key
# hashes the patch and the flavour, so a later clone on the same machine reuses the wheel, a changed
# patch rebuilds it, and the new wheel replaces the old one of its flavour (24 MB each). The compile
# takes about 4 minutes on 2 cores. Everything but the path goes to stderr.
set -euo pipefail

VERSION=0.3.36
# sha256 of llama_cpp_python-0.3.36.tar.gz on PyPI: the patch is written against exactly this source
SDIST_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${1:?usage: build-wheel.sh PYTHON [--stock]}
stock=0
case "${2:-}" in
    "") ;;
    --stock) stock=1 ;;
    *) echo "build-wheel.sh: unknown option '$2' (only --stock)" >&2; exit 2 ;;
esac
patch_file="$here/ggml-cpu-kernels.patch"
cache=${FOREWARN_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forewarn/wheels}

cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m)
flavour=$({ echo "CMAKE_ARGS=${CMAKE_ARGS:-}"; echo "$cpu_flags"; } | sha256sum | cut -c1-10)
if ((stock)); then
    local_version="$VERSION"
    cache="$cache/stock-$flavour"
else
    # the key hashes the patch's hunks, not its explanatory header: rewording the header rebuilds nothing
    key=$({ sed -n '/^diff --git/,$p' "$patch_file"; echo "CMAKE_ARGS=${CMAKE_ARGS:-}"; echo "$cpu_flags"; } | sha256sum | cut -c1-10)
    local_version="$VERSION+forewarn.$key"
    cache="$cache/$flavour"
fi

shopt -s nullglob
cached=("$cache"/llama_cpp_python-"$local_version"-*.whl)
if ((${#cached[@]})); then
    echo "${cached[0]}"
    exit 0
fi

for tool in patch cc c++; do  # cmake itself comes from PyPI if missing (scikit-build-core)
    command -v "$tool" >/dev/null || { echo "build-wheel.sh needs \`$tool\` (on Debian: apt install patch build-essential)" >&2; exit 1; }
done
if ((stock)); then
    echo "building stock llama-cpp-python $local_version (once; ~5 min on 2 cores)" >&2
else
    echo "building llama-cpp-python $local_version with Forewarn's CPU-kernel patch (once; ~4 min on 2 cores)" >&2
fi
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf 'llama-cpp-python==%s --hash=sha256:%s\n' "$VERSION" "$SDIST_SHA256" > "$work/requirements.txt"
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    --require-hashes -r "$work/requirements.txt" -d "$work/sdist" >&2
tar -xzf "$work/sdist/llama_cpp_python-$VERSION.tar.gz" -C "$work"
src="$work/llama_cpp_python-$VERSION"

if ((!stock)); then
    # patch(1) skips the explanation at the top of the file; --forward refuses to apply it twice
    patch --quiet --forward --strip=1 --directory="$src/vendor/llama.cpp" < "$patch_file" >&2
    sed -i "s/^__version__ = \"$VERSION\"$/__version__ = \"$local_version\"/" "$src/llama_cpp/__init__.py"
    grep -q "^__version__ = \"$local_version\"$" "$src/llama_cpp/__init__.py" || {
        echo "could not set the version in $src/llama_cpp/__init__.py" >&2
        exit 1
    }
fi

"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$work/wheel" "$src" >&2
built=("$work"/wheel/llama_cpp_python-*.whl)
name=$(basename "${built[0]}")
# rename into place: a build killed half-way never leaves a wheel that looks finished
cp "${built[0]}" "$cache/.$name.tmp"
mv "$cache/.$name.tmp" "$cache/$name"
for old in "$cache"/llama_cpp_python-*.whl; do  # wheels of an earlier patch, same flavour
    [[ "$old" == "$cache/$name" ]] || rm -f "$old"
done
echo "$cache/$name"
