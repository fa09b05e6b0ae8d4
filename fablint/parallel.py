"""Running per-file work on every core, without the garbage collector getting in the way."""

from __future__ import annotations

import gc
import os
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess
    from multiprocessing.sharedctypes import Synchronized

T = TypeVar("T")
R = TypeVar("R")

PARALLEL_MIN_BYTES = 4 * 1024 * 1024
"""Below this much input, worker start-up costs more than it saves."""

CHUNK_ITEMS = 4
"""Items a process takes at a time. Small, so that the processes finish together (a process
that falls behind, say because another program shares its core, simply takes fewer chunks);
taking a chunk costs a few microseconds."""


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
            if gc.get_freeze_count() == 0:
                # Promote what the paused work built straight to the oldest generation: the
                # first young collection after enabling would otherwise walk all of it (half
                # a second after a 1,024-switch parse). Unfrozen at once, so cycles among it
                # are still collected by the next full collection; skipped when the program
                # keeps objects frozen itself.
                gc.freeze()
                gc.unfreeze()
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


def _take(counter: Synchronized[int]) -> int:
    """The index of the next chunk nobody has taken."""
    with counter.get_lock():
        index = counter.value
        counter.value = index + 1
    return index


def _worker(func: Callable[[T], R], chunks: list[list[T]], counter: Synchronized[int],
            results: Connection) -> None:
    """A forked worker: it already has ``func`` and the items (the parent's memory), so only
    results cross back, a chunk at a time as they are done (so that pickling them is spread
    over the run rather than left to its end). ``(-1, None)`` ends the stream, ``(-1, error)``
    hands an exception to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which stops us
    gc.disable()
    try:
        while (index := _take(counter)) < len(chunks):
            results.send((index, [func(item) for item in chunks[index]]))
    except Exception as exc:  # handed to the parent, which raises it
        exc.add_note("in a worker process:\n" + traceback.format_exc())
        results.send((-1, exc))
    else:
        results.send((-1, None))
    results.close()


class _Results:
    """Chunk results, from this process and from the workers' streams."""

    def __init__(self, chunks: int) -> None:
        self.chunks: list[list[Any] | None] = [None] * chunks
        self.streams: dict[Connection, BaseProcess] = {}

    def receive(self, wait: bool) -> None:
        """Take what the workers have sent; with ``wait``, everything until they end."""
        for stream, worker in list(self.streams.items()):
            while wait or stream.poll():
                try:
                    index, payload = stream.recv()
                except EOFError:
                    raise RuntimeError(f"a worker process ended (exit code {worker.exitcode}) "
                                       "without its results") from None
                if index >= 0:
                    self.chunks[index] = payload
                    continue
                del self.streams[stream]
                if payload is not None:
                    raise payload
                break


def map_files(
    func: Callable[[T], R], items: list[T], *, jobs: int | None = None, total_bytes: int = 0,
    before_fork: Callable[[], object] | None = None,
) -> list[R]:
    """``[func(item) for item in items]``, in ``jobs`` processes when it pays off.

    This process is one of them: it would only wait otherwise. The others are forked, so they
    start with everything imported and have the items without their being sent; every process
    takes small chunks from a shared counter until none are left. Nothing but results crosses
    between processes; they come back in the order of ``items``. ``before_fork`` runs here
    first when workers are forked: what it builds, they share instead of each building it.
    """
    processes = min(cpu_count(jobs), len(items))
    if processes <= 1 or total_bytes < PARALLEL_MIN_BYTES:
        return _run_batch((func, items))
    import multiprocessing  # only a run that forks pays for the import

    if "fork" not in multiprocessing.get_all_start_methods():
        return _run_batch((func, items))
    context = multiprocessing.get_context("fork")
    if before_fork is not None:
        before_fork()
    with gc_paused():
        chunks = [items[i:i + CHUNK_ITEMS] for i in range(0, len(items), CHUNK_ITEMS)]
        counter = context.Value("q", 0)
        results = _Results(len(chunks))
        workers: list[tuple[BaseProcess, Connection]] = []
        finished = False
        try:
            for _ in range(processes - 1):
                receiver, sender = context.Pipe(duplex=False)
                worker = context.Process(target=_worker, args=(func, chunks, counter, sender),
                                         daemon=True)
                workers.append((worker, receiver))
                worker.start()
                sender.close()  # the worker's copy stays open: recv() sees it end if it dies
                results.streams[receiver] = worker
            while (index := _take(counter)) < len(chunks):
                results.chunks[index] = [func(item) for item in chunks[index]]
                results.receive(wait=False)
            results.receive(wait=True)
            finished = True
        finally:
            for worker, receiver in workers:
                receiver.close()
                if not finished and worker.is_alive():
                    worker.terminate()
                if worker.pid is not None:
                    worker.join()
    out: list[R] = []
    for chunk in results.chunks:
        assert chunk is not None
        out.extend(chunk)
    return out
