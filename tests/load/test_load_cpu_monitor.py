"""watchers.cpu_monitor: a run shorter than one sample interval still gets its client CPU (client_bound reads it)."""

import asyncio
import time

from llamatest.load.engine import watchers


class _Clock:
    def __init__(self):
        self.t0 = time.perf_counter()

    def now(self) -> float:
        return time.perf_counter() - self.t0


async def _monitor_for(seconds: float) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    task = asyncio.create_task(watchers.cpu_monitor(_Clock(), out))
    await asyncio.sleep(seconds)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return out


def test_a_run_shorter_than_the_interval_gets_one_sample_at_its_end():
    out = asyncio.run(_monitor_for(0.4))
    assert len(out) == 1
    assert 0.35 <= out[0][0] < watchers.CPU_INTERVAL_S and out[0][1] >= 0.0


def test_a_tail_too_short_for_a_percentage_is_left_out():
    assert asyncio.run(_monitor_for(watchers.CPU_TAIL_MIN_S / 5)) == []
