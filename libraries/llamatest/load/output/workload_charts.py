"""The chart of a multi-turn run: ``turns.png`` (drawn like ``charts.py``'s, 800 x 450 px).

Left, TTFT against prompt tokens, one point per request, coloured by turn; right, per turn, the mean prompt
tokens and the mean of them the server took from its prompt cache. Runs without turns get no chart.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llamatest.load.output.charts import _figure, _save


def turns_chart(summary: Mapping[str, Any], outdir: str | Path) -> Path | None:
    turns = (summary.get("workload") or {}).get("turns")
    if not turns:
        return None
    fig, axes = _figure(1, 2)
    scatter, bars = axes[0]
    for t in turns:
        points = [(n_in, ttft) for _, n_in, _, ttft in t["points"] if n_in is not None and ttft is not None]
        if points:
            scatter.scatter([p[0] for p in points], [p[1] for p in points], s=12, label=f"turn {t['turn'] + 1}")
    scatter.set_xlabel("prompt tokens")
    scatter.set_ylabel("TTFT (ms)")
    scatter.set_title("TTFT against prompt length")
    scatter.legend(fontsize="small")
    x = [t["turn"] + 1 for t in turns]
    bars.bar([i - 0.2 for i in x], [t["prompt_tokens_mean"] or 0 for t in turns], width=0.4, label="prompt")
    bars.bar([i + 0.2 for i in x], [t["cached_tokens_mean"] or 0 for t in turns], width=0.4, label="cached")
    bars.set_xticks(x)
    bars.set_xlabel("turn")
    bars.set_ylabel("mean tokens per request")
    bars.set_title("prompt tokens and cached tokens")
    bars.legend(fontsize="small")
    fig.tight_layout()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return _save(fig, outdir / "turns.png")
