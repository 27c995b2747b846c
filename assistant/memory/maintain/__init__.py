"""Memory lifecycle: expire, decay, merge, consolidate, purge, reconcile and compact.

Each step is a function `step(ctx) -> counts`, idempotent (a second run right after the
first changes nothing) and safe to interrupt (changes commit in small transactions; the
vector index is repaired by the reconcile step). `run_maintenance` runs them in order under a
cross-process lock and records the run in `jobs` and each step's last success in `job_steps`.
"""

from __future__ import annotations

from assistant.memory.maintain.compact import reconcile_and_compact
from assistant.memory.maintain.consolidate import consolidate
from assistant.memory.maintain.context import (
    LOCK_NAME,
    SUMMARY_SCHEMA,
    MaintenanceParts,
    StepContext,
    Summarize,
)
from assistant.memory.maintain.lifecycle import decay, expire, purge, retention
from assistant.memory.maintain.merge import MERGE_SIMILARITY, merge
from assistant.memory.maintain.runner import (
    STEPS,
    MaintenanceBusyError,
    MaintenanceReport,
    MaintenanceStopped,
    last_success,
    last_successes,
    maintenance_lock,
    recent_jobs,
    run_maintenance,
)

__all__ = [
    "LOCK_NAME", "MERGE_SIMILARITY", "STEPS", "SUMMARY_SCHEMA", "MaintenanceBusyError",
    "MaintenanceParts", "MaintenanceReport", "MaintenanceStopped", "StepContext", "Summarize", "consolidate", "decay",
    "expire", "last_success", "last_successes", "maintenance_lock", "merge", "purge",
    "recent_jobs", "reconcile_and_compact", "retention", "run_maintenance",
]
