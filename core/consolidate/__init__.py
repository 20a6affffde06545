"""Consolidation (issue 7, seed 001): triggers, the four phases as reviewable proposals,
atomic apply with rollback, the session cache and run metrics."""

from memdesk.core.consolidate.metrics import RunMetrics, metrics_summary
from memdesk.core.consolidate.pipeline import build_plan
from memdesk.core.consolidate.plan import (
    ACTIONS,
    ApplyResult,
    ConsolidationError,
    Plan,
    PlanStale,
    Proposal,
    apply,
    undo_apply,
)
from memdesk.core.consolidate.session_cache import SessionMemoryCache, SessionSummary
from memdesk.core.consolidate.settings import (
    ConsolidationSettings,
    consolidation_settings,
    parse_consolidation,
)
from memdesk.core.consolidate.state import ConsolidationState, load_state, save_state
from memdesk.core.consolidate.triggers import (
    TriggerDecision,
    is_explicit_request,
    should_consolidate,
)

__all__ = [
    "ACTIONS",
    "ApplyResult",
    "ConsolidationError",
    "ConsolidationSettings",
    "ConsolidationState",
    "Plan",
    "PlanStale",
    "Proposal",
    "RunMetrics",
    "SessionMemoryCache",
    "SessionSummary",
    "TriggerDecision",
    "apply",
    "build_plan",
    "consolidation_settings",
    "is_explicit_request",
    "load_state",
    "metrics_summary",
    "parse_consolidation",
    "save_state",
    "should_consolidate",
    "undo_apply",
]
