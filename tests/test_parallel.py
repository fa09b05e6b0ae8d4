"""map_files: the same results as a plain loop, in order, whichever process did the work."""

from __future__ import annotations

import os
import time

import pytest

from fablint.parallel import PARALLEL_MIN_BYTES, map_files

PARENT = os.getpid()
LARGE = PARALLEL_MIN_BYTES * 10


def _work(pid: int) -> None:
    # The parent is slow on purpose: the forked worker surely takes chunks too, however
    # loaded the machine.
    time.sleep(0.01 if pid == PARENT else 0.001)


def _slow_square(item: int) -> tuple[int, int]:
    pid = os.getpid()
    _work(pid)
    return item * item, pid


def _fails_in_worker(item: int) -> int:
    _work(os.getpid())
    if os.getpid() != PARENT:
        raise ValueError(f"bad item {item}")
    return item


def _dies_in_worker(item: int) -> int:
    _work(os.getpid())
    if os.getpid() != PARENT:
        os._exit(3)
    return item


def test_results_in_order_from_every_process() -> None:
    items = list(range(200))
    out = map_files(_slow_square, items, jobs=2, total_bytes=LARGE)
    assert [square for square, _ in out] == [i * i for i in items]
    pids = {pid for _, pid in out}
    assert PARENT in pids, "the parent works too"
    assert len(pids) == 2, "and so does one forked worker"


def test_small_input_stays_in_process() -> None:
    out = map_files(_slow_square, list(range(10)), jobs=2, total_bytes=1000)
    assert [square for square, _ in out] == [i * i for i in range(10)]
    assert {pid for _, pid in out} == {PARENT}


@pytest.mark.parametrize("items", [[], [3], [3, 4]])
def test_few_items(items: list[int]) -> None:
    out = map_files(_slow_square, items, jobs=4, total_bytes=LARGE)
    assert [square for square, _ in out] == [i * i for i in items]


def test_a_worker_error_is_raised_in_the_parent() -> None:
    with pytest.raises(ValueError, match="bad item"):
        map_files(_fails_in_worker, list(range(30)), jobs=2, total_bytes=LARGE)


def test_a_worker_that_dies_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="without its results"):
        map_files(_dies_in_worker, list(range(30)), jobs=2, total_bytes=LARGE)
