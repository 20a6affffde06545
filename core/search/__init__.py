"""Search over memory entries: tantivy full text (Chinese + English), offline semantic
embeddings with a content-hash vector cache, hybrid ranking, duplicates/contradictions."""

from memdesk.core.search.hits import Hit
from memdesk.core.search.service import MODES, SearchService, SyncReport
from memdesk.core.search.settings import SearchSettings, SearchSettingsError

__all__ = [
    "MODES",
    "Hit",
    "SearchService",
    "SearchSettings",
    "SearchSettingsError",
    "SyncReport",
]
