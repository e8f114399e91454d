#!/usr/bin/env bash
# Build llama-cpp-python from its PyPI sdist with Hindsight's ggml CPU-kernel patch, once per machine.
#
#   third_party/llama-cpp-python/build-wheel.sh PYTHON    → prints the path of the wheel
#
# The wheel is versioned 0.3.36+hindsight.<key> (it still satisfies `llama-cpp-python==0.3.36`) and kept
# in $HINDSIGHT_WHEEL_CACHE (default ~/.cache/hindsight/wheels), in one folder per flavour: CMAKE_ARGS (a
# CUDA build is another wheel) and this CPU's flags (llama.cpp is compiled for the native CPU). The key
# hashes the patch and the flavour, so a later clone on the same machine reuses the wheel, a changed
# patch rebuilds it, and the new wheel replaces the old one of its flavour (24 MB each). The compile
# takes about 4 minutes on 2 cores. Everything but the path goes to stderr.
set -euo pipefail

VERSION=0.3.36
# sha256 of llama_cpp_python-0.3.36.tar.gz on PyPI: the patch is written against exactly this source
SDIST_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${1:?usage: build-wheel.sh PYTHON}
patch_file="$here/ggml-cpu-kernels.patch"
cache=${HINDSIGHT_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hindsight/wheels}

cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m)
flavour=$({ echo "CMAKE_ARGS=${CMAKE_ARGS:-}"; echo "$cpu_flags"; } | sha256sum | cut -c1-10)
key=$({ cat "$patch_file"; echo "CMAKE_ARGS=${CMAKE_ARGS:-}"; echo "$cpu_flags"; } | sha256sum | cut -c1-10)
local_version="$VERSION+hindsight.$key"
cache="$cache/$flavour"

shopt -s nullglob
cached=("$cache"/llama_cpp_python-"$local_version"-*.whl)
if ((${#cached[@]})); then
    echo "${cached[0]}"
    exit 0
fi

for tool in patch cc c++; do  # cmake itself comes from PyPI if missing (scikit-build-core)
    command -v "$tool" >/dev/null || { echo "build-wheel.sh needs \`$tool\` (on Debian: apt install patch build-essential)" >&2; exit 1; }
done
echo "building llama-cpp-python $local_version with Hindsight's CPU-kernel patch (once; ~4 min on 2 cores)" >&2
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf 'llama-cpp-python==%s --hash=sha256:%s\n' "$VERSION" "$SDIST_SHA256" > "$work/requirements.txt"
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    --require-hashes -r "$work/requirements.txt" -d "$work/sdist" >&2
tar -xzf "$work/sdist/llama_cpp_python-$VERSION.tar.gz" -C "$work"
src="$work/llama_cpp_python-$VERSION"

# patch(1) skips the explanation at the top of the file; --forward refuses to apply it twice
patch --quiet --forward --strip=1 --directory="$src/vendor/llama.cpp" < "$patch_file" >&2
sed -i "s/^__version__ = \"$VERSION\"$/__version__ = \"$local_version\"/" "$src/llama_cpp/__init__.py"
grep -q "^__version__ = \"$local_version\"$" "$src/llama_cpp/__init__.py" || {
    echo "could not set the version in $src/llama_cpp/__init__.py" >&2
    exit 1
}

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
