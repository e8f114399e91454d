"""Client for the card payment provider."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def retry(call: Callable[[], T], attempts: int = 3, backoff: float = 0.5) -> T:
    for attempt in range(attempts):
        try:
            return call()
        except ConnectionError:
            if attempt == attempts - 1:
                raise
            time.sleep(backoff * 2**attempt)
    raise AssertionError("unreachable")


def charge_card(token: str, cents: int, idempotency_key: str | None = None) -> dict[str, object]:
    key = idempotency_key or str(uuid.uuid4())
    return retry(lambda: _post("/v1/charges", {"source": token, "amount": cents}, key))


def _post(path: str, body: dict[str, object], idempotency_key: str) -> dict[str, object]:
    raise ConnectionError(f"no network in the demo ({path})")
