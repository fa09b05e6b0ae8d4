"""Running per-file work on every core, without the garbage collector getting in the way."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_all_start_methods, get_context
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

PARALLEL_MIN_BYTES = 4 * 1024 * 1024
"""Below this much input, worker start-up costs more than it saves."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building many long-lived objects.

    Parsing allocates millions of small containers that all stay alive; every automatic
    collection would walk the whole growing heap, which made large fabrics quadratic.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def cpu_count(requested: int | None = None) -> int:
    if requested is not None and requested > 0:
        return requested
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _run_batch(job: tuple[Callable[[T], R], list[T]]) -> list[R]:
    func, batch = job
    with gc_paused():
        return [func(item) for item in batch]


def map_files(
    func: Callable[[T], R], items: list[T], *, jobs: int | None = None, total_bytes: int = 0
) -> list[R]:
    """``[func(item) for item in items]``, in worker processes when it pays off.

    Items are dealt round-robin into one batch per worker so that each result crosses the
    process boundary once; results come back in the order of ``items``.
    """
    workers = min(cpu_count(jobs), len(items))
    if workers <= 1 or total_bytes < PARALLEL_MIN_BYTES or "fork" not in get_all_start_methods():
        return _run_batch((func, items))
    batches = [items[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        done = list(pool.map(_run_batch, [(func, batch) for batch in batches]))
    out: list[R] = [None] * len(items)  # type: ignore[list-item]
    for offset, results in enumerate(done):
        out[offset::workers] = results
    return out
