"""Session records: `.hippo/sessions/<safe id>.json`, one per session that belongs to the workspace.

Two kinds share one shape (version 1): "derived" records, which ingest writes from the index, and
"declared" ones, which `git hippo session start/end` writes. Declared records win: ingest never
overwrites them. The agent-hook path reads records, so the readers here use plain dicts and the
pydantic model (`SessionRecord`, in `record_model`) is imported only by the validating functions.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hippo_git.files import write_json_atomic

if TYPE_CHECKING:
    from hippo_git.index.record_model import SessionRecord

RECORD_VERSION = 1
RECORDS_DIR = Path(".hippo") / "sessions"
DERIVED = "derived"
DECLARED = "declared"
TASK_CHARS = 300


def __getattr__(name: str) -> Any:
    # `from hippo_git.index.records import SessionRecord` works without paying for pydantic
    # until someone actually asks for the model.
    if name == "SessionRecord":
        from hippo_git.index.record_model import SessionRecord

        return SessionRecord
    raise AttributeError(name)


def safe_id(session_id: str) -> str:
    """A file name for a session id: `/` (and `\\`) become `~`; never hidden, never empty."""
    name = session_id.replace("/", "~").replace("\\", "~").replace("\0", "")
    if not name or name.startswith("."):
        name = "~" + name
    return name[:200]


def records_dir(root: Path) -> Path:
    return root / RECORDS_DIR


def record_path(root: Path, session_id: str) -> Path:
    return records_dir(root) / f"{safe_id(session_id)}.json"


def read_record(root: Path, session_id: str) -> dict[str, Any] | None:
    """One record as a plain dict, or None when absent or unreadable."""
    return _read(record_path(root, session_id))


def read_records(root: Path) -> list[dict[str, Any]]:
    """Every readable record in the workspace as plain dicts (unparseable files are skipped)."""
    folder = records_dir(root)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            data = _read(folder / name)
            if data is not None and isinstance(data.get("id"), str):
                out.append(data)
    return out


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_record_dict(root: Path, data: dict[str, Any]) -> Path:
    """Write a record atomically (temp file + rename); returns its path."""
    path = record_path(root, str(data["id"]))
    write_json_atomic(path, data)
    return path


def is_declared(data: dict[str, Any] | None) -> bool:
    return data is not None and data.get("kind") == DECLARED


# --- validating (pydantic, imported lazily) -------------------------------------------------------


def validate_record(data: dict[str, Any]) -> SessionRecord:
    """Check a record against the contract; raises HippoError naming the problem."""
    from pydantic import ValidationError

    from hippo_git.errors import HippoError
    from hippo_git.index.record_model import SessionRecord

    try:
        return SessionRecord.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "record"
        raise HippoError(f"session record {data.get('id')!r}: {where}: {first['msg']}") from None


def load_record(root: Path, session_id: str) -> SessionRecord | None:
    """A validated record, or None when there is none (an invalid one raises HippoError)."""
    data = read_record(root, session_id)
    return None if data is None else validate_record(data)


def write_record(root: Path, record: SessionRecord) -> Path:
    """Write a validated record atomically."""
    return write_record_dict(root, record.model_dump(mode="json"))
