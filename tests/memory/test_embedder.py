"""The llama.cpp embedder on the real converted model, checked against an independent NumPy BERT."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from forewarn import paths
from forewarn.config import EmbedderSettings
from forewarn.memory import llama_contexts, model_install
from forewarn.memory.embedder import Embedder, EmbedderUnavailable, open_embedder
from tests.memory.reference_bert import reference_model

MIN_COSINE = 0.999  # issue 3: Forewarn's vectors must match the reference forward pass this closely

TEXTS = [
    "def snake_case_name(value: int) -> int:\n    return value * 2  # doubles the input",
    "const useTerminalStore = create((set) => ({ lines: [], push: (l) => set((s) => ({ lines: [...s.lines, l] })) }));",
    "The migration silently drops the index when the column is renamed; recreate it by hand afterwards.",
    "useTerminalStore",
    "snake_case_name",
    "HTTPServerError404",
    "Café crème, naïve façade, Ångström, São Paulo, Übergrößenträger",
    "日本語のテキストと中文文本が混ざっている",
    "emoji 🚀🔥 in a commit message ✅ — with an em dash",
    "a",
    "?",
    "",
    "SELECT id, text FROM memories WHERE status = 'active' ORDER BY created_at DESC LIMIT 10;",
    " ".join(
        [
            "We tried caching the parsed templates per request, but the cache key ignored the locale, so users "
            "saw each other's translations; the fix keys on (template, locale, version) and was measured."
        ]
        * 6
    ),
]


def require_model() -> None:
    if model_install.installed_manifest(verify=False) is None:
        pytest.fail(
            f"the embedding model is not installed in {paths.models_dir()}: run `make model` "
            f"(or `forewarn model install`) before the tests"
        )


@pytest.fixture(scope="module")
def embedder() -> Iterator[Embedder]:
    require_model()
    emb = open_embedder(EmbedderSettings())
    yield emb
    emb.close()


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.atleast_2d(a).astype(np.float64)
    b = np.atleast_2d(b).astype(np.float64)
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_matches_independent_numpy_forward_pass(embedder: Embedder) -> None:
    reference = reference_model()
    ours = embedder.embed_documents(TEXTS)
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    for text, vec in zip(TEXTS, ours, strict=True):
        expected = reference.embed(text)
        cos = float(cosines(vec, expected)[0])
        assert cos >= MIN_COSINE, f"cosine {cos:.5f} < {MIN_COSINE} for {text[:60]!r}"


def test_tokens_match_the_shipped_tokenizer(embedder: Embedder) -> None:
    """The GGUF's WordPiece vocabulary (phantom-space form) tokenizes exactly as the original tokenizer.json."""
    reference = reference_model()
    for text in TEXTS:
        assert embedder.tokenize(text) == reference.token_ids(text), text[:60]
    assert embedder.count_tokens("useTerminalStore") == len(reference.token_ids("useTerminalStore"))


def test_packed_batch_equals_one_by_one(embedder: Embedder) -> None:
    together = embedder.embed_documents(TEXTS)
    alone = np.stack([embedder.embed_documents([t])[0] for t in TEXTS])
    assert cosines(together, alone).min() >= 0.9999


def long_code(n_lines: int) -> str:
    lines = [f"    total_{i} = compute_score(records[{i}], weight={i % 7}) + offset_{i % 13}" for i in range(n_lines)]
    return "def aggregate(records):\n" + "\n".join(lines)


def test_long_input_is_split_into_windows_not_dropped(embedder: Embedder, caplog: pytest.LogCaptureFixture) -> None:
    text = long_code(160)
    tokens = embedder.tokenize(text)
    assert 3000 <= len(tokens) < 4000
    before_splits, before_sequences = embedder.stats.split_texts, embedder.stats.sequences
    with caplog.at_level(logging.INFO, logger="forewarn.memory.embedder"):
        vec = embedder.embed_documents([text])[0]
    assert np.isfinite(vec).all() and abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5
    assert embedder.stats.split_texts == before_splits + 1
    n_windows = embedder.stats.sequences - before_sequences
    assert n_windows >= len(tokens) // embedder.n_ctx + 1
    assert any("overlapping windows" in r.getMessage() for r in caplog.records)

    windows = embedder._windows(tokens)
    assert len(windows) == n_windows
    assert all(len(w) <= embedder.n_ctx and w[0] == tokens[0] and w[-1] == tokens[-1] for w in windows)
    body = tokens[1:-1]
    size = embedder.n_ctx - 2
    step = size - int(size * 0.125)
    for k, window in enumerate(windows):  # window k holds body[k*step : k*step+size]: consecutive, overlapping
        assert window[1:-1] == body[k * step : k * step + size]
    assert (len(windows) - 1) * step + len(windows[-1]) - 2 == len(body)  # the last window reaches the end


def test_long_input_pooling_matches_reference() -> None:
    """Windows are pooled by length-weighted mean, as an independent pass over the same windows computes it."""
    require_model()
    reference = reference_model()
    with open_embedder(EmbedderSettings(n_ctx=128)) as emb:
        text = long_code(30)
        vec = emb.embed_documents([text])[0]
        windows = emb._windows(emb.tokenize(text))
    assert len(windows) >= 4
    expected = sum(reference.embed_ids(w) * len(w) for w in windows)
    assert float(cosines(vec, expected)[0]) >= MIN_COSINE


def test_query_and_document_prefixes() -> None:
    require_model()
    with open_embedder(EmbedderSettings(query_prefix="search_query: ", document_prefix="search_document: ")) as emb:
        q = emb.embed_query("csrf token check")
        assert q.shape == (384,)
        np.testing.assert_allclose(q, emb.embed_texts(["search_query: csrf token check"])[0], atol=1e-6)
        d = emb.embed_documents(["csrf token check"])[0]
        np.testing.assert_allclose(d, emb.embed_texts(["search_document: csrf token check"])[0], atol=1e-6)
        assert float(q @ d) < 0.9999


def test_dimensions_truncate_and_renormalise(embedder: Embedder) -> None:
    with open_embedder(EmbedderSettings(dimensions=128)) as small:
        assert small.dim == 128 and small.model_id == embedder.model_id + "+dim=128"
        got = small.embed_documents(TEXTS[:4])
    full = embedder.embed_documents(TEXTS[:4])[:, :128]
    expected = full / np.linalg.norm(full, axis=1, keepdims=True)
    assert got.shape == (4, 128)
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_thread_safe(embedder: Embedder) -> None:
    serial = embedder.embed_documents(TEXTS)
    results: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            order = TEXTS[k:] + TEXTS[:k]
            results[k] = np.roll(embedder.embed_documents(order), k, axis=0)
        except BaseException as exc:  # surfaced below: a thread's exception would otherwise vanish
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for got in results.values():
        assert cosines(got, serial).min() >= 0.9999


def test_contexts_side_by_side_give_the_same_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two single-threaded contexts split a call's batches between them: the same vectors as one context, the
    second context made only once a call has more than one batch and freed once the pool stays idle, and closing
    waits for work in flight."""
    require_model()
    monkeypatch.setattr(llama_contexts, "EXTRA_IDLE_S", 0.05)
    one = open_embedder(EmbedderSettings(n_threads=1))
    two = open_embedder(EmbedderSettings(n_threads=2))
    try:
        assert (one.workers, two.workers) == (1, 2) and two.info()["contexts"] == 2
        pool = two._pool
        assert pool is not None
        two.embed_query("one short text is one batch")
        assert pool.contexts == 1  # a process that only embeds queries holds one context
        texts = [f"{t} ({i})" for i in range(6) for t in TEXTS]  # many batches of up to 512 tokens
        serial = one.embed_documents(texts)
        parallel = two.embed_documents(texts)
        assert two.stats.batches > 2 and pool.contexts == 2
        assert cosines(parallel, serial).min() >= 0.9999
        assert pool._trim is not None
        pool._trim.join(10)  # the idle pool gives the extra context's memory back
        assert pool.contexts == 1
        assert cosines(two.embed_documents(texts), serial).min() >= 0.9999 and pool.contexts == 2
        started = threading.Event()
        done: list[np.ndarray] = []
        refused: list[EmbedderUnavailable] = []

        def embed() -> None:
            started.set()
            try:
                done.append(two.embed_documents(texts))
            except EmbedderUnavailable as exc:  # closed before the call began: refused whole, never half done
                refused.append(exc)

        worker = threading.Thread(target=embed)
        worker.start()
        started.wait()
        two.close()  # either waits for the call in flight or refuses it cleanly; never frees a context in use
        worker.join()
        assert len(done) + len(refused) == 1 and all("closed" in str(e) for e in refused)
        assert not done or cosines(done[0], serial).min() >= 0.9999
        with pytest.raises(EmbedderUnavailable, match="closed"):
            two.embed_query("after close")
    finally:
        one.close()
        two.close()


def test_model_id_device_and_info(embedder: Embedder) -> None:
    manifest = model_install.installed_manifest(verify=False)
    assert manifest is not None
    assert embedder.model_id == manifest["model_id"]
    assert embedder.model_id.startswith("all-MiniLM-L6-v2@")
    assert embedder.device == "cpu" and embedder.n_ctx == 512 and embedder.pooling == "mean"
    info = embedder.info()
    assert info["dim"] == 384 and info["n_threads"] >= 1


def test_nothing_is_written_to_stdout_while_loading_and_embedding() -> None:
    """The daemon's stdout is the LSP stream: llama.cpp must not print to fd 1, even from C."""
    require_model()
    code = (
        "from forewarn.config import EmbedderSettings\n"
        "from forewarn.memory.embedder import open_embedder\n"
        "e = open_embedder(EmbedderSettings())\n"
        "e.embed_documents(['hello world', 'x ' * 1500])\n"
        "e.embed_query('where is the csrf check')\n"
        "e.close()\n"
        "import sys; sys.stderr.write('done')\n"
    )
    env = dict(os.environ, FOREWARN_LOG_LEVEL="DEBUG")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert done.stderr.endswith(b"done")
    assert done.stdout == b"", f"written to fd 1: {done.stdout[:300]!r}"


def test_model_info_json_parses() -> None:
    require_model()
    done = subprocess.run(
        [sys.executable, "-m", "forewarn.cli.main", "model", "info", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["available"] is True and report["problem"] is None
    assert report["dim"] == 384 and report["device"] in ("cpu", "gpu")
    assert report["model_id"].startswith("all-MiniLM-L6-v2@")
    assert "gpu_offload_supported" in report and report["llama_cpp_system_info"]
    # `make install` builds llama-cpp-python with third_party/llama-cpp-python's kernel patch
    assert "+forewarn." in report["llama_cpp_build"], report["llama_cpp_build"]


def test_model_info_reports_the_problem(tmp_path: Path) -> None:
    env = dict(os.environ, **{paths.MODELS_ENV: str(tmp_path / "empty-models")})
    done = subprocess.run(
        [sys.executable, "-m", "forewarn.cli.main", "model", "info", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["available"] is False and "forewarn model install" in report["problem"]


# -- unavailable models: a clear reason, never a crash -----------------------------------------------------


def test_missing_installed_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(paths.MODELS_ENV, str(tmp_path / "no-models"))
    with pytest.raises(EmbedderUnavailable, match=r"not installed.*forewarn model install"):
        open_embedder(EmbedderSettings())


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match="does not exist"):
        open_embedder(EmbedderSettings(model=str(tmp_path / "nomic-embed-text.gguf")))


def test_disabled() -> None:
    with pytest.raises(EmbedderUnavailable, match="disabled"):
        open_embedder(EmbedderSettings(enabled=False))


def test_file_that_is_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"PK\x03\x04 this is a zip, not a model" * 10)
    with pytest.raises(EmbedderUnavailable, match="not a GGUF file"):
        open_embedder(EmbedderSettings(model=str(path)))


def test_truncated_gguf(tmp_path: Path) -> None:
    require_model()
    source = model_install.model_dir() / model_install.GGUF_FILE
    path = tmp_path / "truncated.gguf"
    path.write_bytes(source.read_bytes()[: source.stat().st_size // 2])
    with pytest.raises(EmbedderUnavailable, match="could not load") as info:
        open_embedder(EmbedderSettings(model=str(path)))
    assert "truncated.gguf" in info.value.reason


def test_installed_model_with_wrong_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_model()
    models = tmp_path / "models"
    shutil.copytree(model_install.model_dir(), models / model_install.DEFAULT_MODEL_NAME)
    gguf_path = models / model_install.DEFAULT_MODEL_NAME / model_install.GGUF_FILE
    with open(gguf_path, "r+b") as fh:  # flip bytes in the tensor data, as a bad disk would
        fh.seek(gguf_path.stat().st_size - 1000)
        fh.write(b"\xff" * 16)
    monkeypatch.setenv(paths.MODELS_ENV, str(models))
    with pytest.raises(EmbedderUnavailable, match=r"corrupt.*install --force"):
        open_embedder(EmbedderSettings())


def test_gguf_that_is_not_an_embedding_model(tmp_path: Path) -> None:
    """A GGUF whose graph does not pool (a plain LM, or pooling switched off) is refused with the reason."""
    import gguf

    require_model()
    path = tmp_path / "no-pooling.gguf"
    shutil.copyfile(model_install.model_dir() / model_install.GGUF_FILE, path)
    reader = gguf.GGUFReader(str(path), "r+")
    field = reader.fields["bert.pooling_type"]
    field.parts[field.data[0]][0] = 0  # LLAMA_POOLING_TYPE_NONE
    del reader
    with pytest.raises(EmbedderUnavailable, match="not a sentence-embedding model"):
        open_embedder(EmbedderSettings(model=str(path)))
    # forcing a pooling makes the same file usable: the escape hatch the message names
    with open_embedder(EmbedderSettings(model=str(path), pooling="mean")) as forced:
        assert forced.model_id.endswith("+pool=mean")
        assert forced.embed_query("hello").shape == (384,)


def test_any_gguf_by_path_gets_a_content_model_id(tmp_path: Path) -> None:
    require_model()
    path = tmp_path / "my-embedder.gguf"
    shutil.copyfile(model_install.model_dir() / model_install.GGUF_FILE, path)
    manifest = model_install.installed_manifest(verify=False)
    assert manifest is not None
    with open_embedder(EmbedderSettings(model=str(path), n_ctx=128)) as emb:
        assert emb.model_id == f"my-embedder@{manifest['sha256'][:12]}+ctx=128"
        assert emb.n_ctx == 128
        before = emb.stats.split_texts
        emb.embed_documents(["word " * 300])
        assert emb.stats.split_texts == before + 1
