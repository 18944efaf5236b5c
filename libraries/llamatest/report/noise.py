"""The log block of the noise sent beside a load run: one row per kind, its documented answer and what it got."""

from __future__ import annotations

from llamatest.htmllog import details, escape, labelled, table


def noise_html(name: str, block: dict) -> str:
    """The verdict of ``load.analysis.noise.verdict`` as a table, the kinds skipped and the problems; open when the
    noise was not answered as documented."""
    rows = [[kind, row["sent"], row["as_documented"], row["expected"],
             "; ".join(f"{n} × {what}" for what, n in row["got"].items())] for kind, row in block["kinds"].items()]
    rows += [[kind, 0, 0, "skipped", reason] for kind, reason in block["skipped"].items()]
    parts = [table(["kind", "sent", "as documented", "documented answer", "got"], rows),
             table(["", ""], [["GET /health afterwards", block["health_status"]],
                              ["media fetches asked", block["fetches"]["asked"]],
                              ["fetches the sink counted", block["fetches"]["counted"]]])]
    if block["problems"]:
        parts.append(labelled("problems", "".join(f"<div>{escape(p)}</div>" for p in block["problems"])))
    verdict = "as documented" if block["ok"] else "NOT as documented"
    return details(f"noise beside load run '{name}': {sum(r['sent'] for r in block['kinds'].values())} hostile "
                   f"requests, {verdict}", "".join(parts), open_=not block["ok"])
