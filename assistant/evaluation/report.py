"""Results as text: Markdown tables for the terminal and docs, and one SVG plot.

The plot is written by hand (no plotting library in the runtime): recall@k curves of the
hybrid read path against the two baselines, one panel per split.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from assistant.evaluation.locomo import METRICS


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(value: object) -> str:
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def locomo_markdown(result: Mapping[str, Mapping[str, Any]]) -> str:
    """One table per split: overall per method, then each category per method."""
    parts: list[str] = []
    for split, by_method in result.items():
        rows: list[list[object]] = []
        for method, m in by_method.items():
            rows.append([method, "overall", *(m["overall"][k] for k in METRICS)])
        for method, m in by_method.items():
            for category, values in m["by_category"].items():
                rows.append([method, category, *(values[k] for k in METRICS)])
        vector = by_method.get("vector", {}).get("overall", {}).get("turn_recall@10", 0.0)
        hybrid = by_method.get("hybrid", {}).get("overall", {}).get("turn_recall@10", 0.0)
        ratio = f" — hybrid/vector turn recall@10 = {hybrid / vector:.2f}×" if vector else ""
        parts.append(f"**{split}**{ratio}\n\n" + table(["method", "category", *METRICS], rows))
    return "\n\n".join(parts)


def eval_markdown(summary: Mapping[str, Any]) -> str:
    keys = ("probes", "probe_pass_rate", "expect_recall", "forbid_leak_rate", "mean_injected",
            "sensitive_leaks", "garbage_rate", "stored_per_message")
    audits = [k for k in summary if k.startswith(("missed_", "leaked_"))]  # runner.MISSED_WHERE, LEAKED_FROM
    latency = ("recall_ms_p50", "recall_ms_p95")
    return table(["metric", "value"], [[k, summary[k]] for k in (*keys, *audits, *latency) if k in summary])


def latency_markdown(result: Mapping[str, Any]) -> str:
    rows: list[list[object]] = []
    for size in result["sizes"]:
        rows.append([
            size["memories"], size["recall_ms"]["p50"], size["recall_ms"]["p95"], size["recall_ms"]["p99"],
            size["bare_ms"]["p50"], size["bare_ms"]["p95"], size["bare_ms"]["p99"],
            size["write_per_s"], size["bare_write_per_s"],
            size.get("write_path_ms", {}).get("p50", ""), size.get("write_path_ms", {}).get("p95", ""),
            size["peak_rss_mb"], size.get("vectors", ""),
        ])
    header = ["memories", "recall p50 ms", "p95", "p99", "bare embed+vector p50 ms", "p95", "p99",
              "writes/s", "bare embed+index/s", "write path per message p50 ms", "p95", "peak RSS MB", "vectors"]
    start = result.get("startup", {})
    lines = [table(header, rows)]
    if start:
        lines.append("")
        lines.append(table(["start-up", "seconds", "peak RSS MB"], [
            ["profile open + model loaded + first recall", start.get("ready_s", ""), start.get("peak_rss_mb", "")],
            ["bare: model loaded + one embedding", start.get("bare_ready_s", ""), start.get("bare_peak_rss_mb", "")],
        ]))
    return "\n".join(lines)


_COLOURS = {"hybrid": "#d62728", "vector": "#1f77b4", "bm25": "#2ca02c"}


def recall_svg(curves: Mapping[str, Mapping[str, Sequence[float]]], title: str = "LoCoMo turn recall@k") -> str:
    """Recall@k curves (k = 1…n) per method, one panel per split."""
    panel_w, panel_h, pad = 360, 260, 48
    width = pad + len(curves) * (panel_w + pad)
    height = panel_h + 2 * pad + 30
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">{escape(title)}</text>',
    ]
    for p, (split, methods) in enumerate(curves.items()):
        x0, y0 = pad + p * (panel_w + pad), pad
        n = max((len(v) for v in methods.values()), default=1)

        def xy(k: int, value: float, x0: int = x0, y0: int = y0, n: int = n) -> tuple[float, float]:
            return x0 + (k - 1) / max(1, n - 1) * panel_w, y0 + (1 - value) * panel_h

        out.append(f'<rect x="{x0}" y="{y0}" width="{panel_w}" height="{panel_h}" fill="none" stroke="#888"/>')
        out.append(f'<text x="{x0 + panel_w / 2}" y="{y0 - 8}" text-anchor="middle">{escape(split)}</text>')
        for tick in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
            _, ty = xy(1, tick)
            out.append(f'<line x1="{x0}" y1="{ty:.1f}" x2="{x0 + panel_w}" y2="{ty:.1f}" stroke="#eee"/>')
            out.append(f'<text x="{x0 - 6}" y="{ty + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
        for k in (1, 5, 10, 15, 20):
            if k <= n:
                tx, _ = xy(k, 0.0)
                out.append(f'<text x="{tx:.1f}" y="{y0 + panel_h + 16}" text-anchor="middle">{k}</text>')
        out.append(f'<text x="{x0 + panel_w / 2}" y="{y0 + panel_h + 32}" text-anchor="middle">k</text>')
        for i, (method, values) in enumerate(methods.items()):
            colour = _COLOURS.get(method, "#555")
            points = " ".join(f"{a:.1f},{b:.1f}" for a, b in (xy(k, v) for k, v in enumerate(values, 1)))
            out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
            lx, ly = x0 + panel_w - 90, y0 + panel_h - 60 + 16 * i
            out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 18}" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
            out.append(f'<text x="{lx + 24}" y="{ly + 4}">{escape(method)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
