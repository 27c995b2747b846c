"""`mnemo maintain`: run the memory maintenance now (expire, decay, merge, consolidate, purge, reconcile)."""

from __future__ import annotations

import argparse
from typing import Any

from assistant.cli.common import print_json, profile_from_env
from assistant.clock import iso
from assistant.memory.api import MAINTENANCE_STEPS as STEPS
from assistant.memory.api import MaintenanceReport

_WORDS = {
    "expire": "expired plans archived",
    "decay": "faded memories archived",
    "merge": "duplicates merged",
    "consolidate": "episodes consolidated",
    "purge": "old retired memories deleted for good",
    "reconcile": "index repairs",
}


def _headline(name: str, counts: dict[str, int]) -> int:
    if name in {"expire", "decay"}:
        return counts.get("archived", 0)
    if name == "merge":
        return counts.get("merged", 0)
    if name == "consolidate":
        return counts.get("sources", 0)
    if name == "purge":
        return counts.get("purged", 0)
    return counts.get("indexed", 0) + counts.get("removed", 0)


def print_report(report: MaintenanceReport) -> None:
    prefix = "would be " if report.dry_run else ""
    print(("Dry run — nothing changed." if report.dry_run else "Maintenance done.") + f" ({report.duration_s:.2f}s)")
    for name, counts in report.steps.items():
        details = ", ".join(f"{k}={v}" for k, v in counts.items())
        print(f"  {name:<12} {_headline(name, counts):>6} {prefix}{_WORDS[name]}  ({details})")


def cmd_maintain(args: argparse.Namespace) -> int:
    steps = [s.strip() for s in args.steps.split(",") if s.strip()] if args.steps else None
    with profile_from_env() as profile:
        if args.history:
            jobs = profile.memories.maintenance_history(args.history)
            if args.json:
                print_json([{**j, "started_at": iso(j["started_at"]), "finished_at": iso(j["finished_at"])} for j in jobs])
            else:
                for job in jobs:
                    print(f"#{job['id']:<5} {iso(job['started_at'])}  {job['status']:<24} {job['duration_s'] or 0:.2f}s  {job['kind']}")
            return 0
        report = profile.memories.maintain(dry_run=args.dry_run, steps=steps)
        if args.json:
            out: dict[str, Any] = report.as_dict()
            print_json(out)
        else:
            print_report(report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("maintain", help="run the memory maintenance now: " + ", ".join(STEPS))
    p.add_argument("--dry-run", action="store_true", help="show what would change; change nothing")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--steps", help="comma-separated subset of: " + ", ".join(STEPS))
    p.add_argument("--history", type=int, nargs="?", const=10, default=0, metavar="N",
                   help="list the last N runs instead of running")
    p.set_defaults(handler=cmd_maintain)
