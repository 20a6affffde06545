"""Full-text index over entries with tantivy (BM25), under `index_dir/text`.

The index is derived data: if it cannot be opened (corrupt files, an older schema) it is
deleted and rebuilt from the entries by the caller, never an error to the user.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path

import tantivy
from memdesk.core.atomic import atomic_write_bytes
from memdesk.core.entry import Entry
from memdesk.core.jsonfile import read_json
from memdesk.core.search.tokenizer import ANALYZER_NAME, build_tantivy_analyzer, query_terms

# Bump when the schema or the analyzer changes: an older index is rebuilt.
# 2: the `context` field (neighbours in the session and the session date).
SCHEMA_VERSION = 2
_WRITER_HEAP = 64_000_000
# Explicit query syntax; anything else is read as plain words (so "pytest -x" is not
# parsed as "pytest, excluding x").
_SYNTAX = re.compile(r'\b(?:AND|OR|NOT)\b|"')
FILTER_FIELDS: tuple[str, ...] = ("kind", "scope", "status", "confidence")
# BM25 weight of each searched field in lenient queries. An entry's own words count most;
# its neighbours' words (neighbours.py) lift it above entries that match nowhere near
# the question (LoCoMo dev recall_any@10, full text: 0.728 / 0.760 / 0.775 at 0.3 / 0.5 /
# 0.8, while @1 falls from 0.376 to 0.303 at 0.8: half weight keeps the entry that says
# it all itself first).
FIELD_BOOSTS: tuple[tuple[str, float], ...] = (("body", 1.0), ("tags", 0.5), ("context", 0.5))
ContextOf = Callable[[Entry], str]


class TextIndexError(Exception):
    """The index on disk is unusable; rebuild it."""


class TextIndexBusy(Exception):
    """Another process (the TUI, another CLI call) holds the index writer lock."""


@dataclass
class TextHit:
    entry_id: str
    score: float


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", tokenizer_name=ANALYZER_NAME)
    builder.add_text_field("tags", tokenizer_name=ANALYZER_NAME)
    builder.add_text_field("context", tokenizer_name=ANALYZER_NAME)
    for name in FILTER_FIELDS:
        builder.add_text_field(name, tokenizer_name="raw")
    return builder.build()


class TextIndex:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.schema = _schema()
        self.rebuilt = False  # True when an unusable index was thrown away on open
        self.lock_wait = 3.0  # seconds to wait for another process's writer
        self.index = self._open()

    # -- opening -----------------------------------------------------------------
    def _open(self) -> tantivy.Index:
        marker = self.path / "memdesk-schema.json"
        try:
            if self.path.exists():
                stored = read_json(marker) if marker.exists() else {}
                if stored.get("version") != SCHEMA_VERSION:
                    raise TextIndexError(f"schema {stored.get('version')} != {SCHEMA_VERSION}")
            return self._create_or_reuse(marker)
        except (OSError, ValueError, TextIndexError):
            shutil.rmtree(self.path, ignore_errors=True)
            self.rebuilt = True
            return self._create_or_reuse(marker)

    def _create_or_reuse(self, marker: Path) -> tantivy.Index:
        self.path.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        index.register_tokenizer(ANALYZER_NAME, build_tantivy_analyzer())
        index.reload()
        _ = index.searcher().num_docs  # touch the segments: corrupt files fail here
        marker_text = json.dumps({"version": SCHEMA_VERSION}).encode("utf-8")
        atomic_write_bytes(marker, marker_text, durable=False)  # never through a link
        return index

    # -- writing -----------------------------------------------------------------
    def apply(
        self,
        upserts: Sequence[Entry],
        deletes: Iterable[str] = (),
        *,
        fresh: Set[str] = frozenset(),
        context_of: ContextOf | None = None,
    ) -> None:
        """Add or replace `upserts`, remove `deletes`, in one commit. Ids in `fresh` are
        known not to be in the index yet (no delete needed). `context_of(entry)` is the
        text of its `context` field (none when not given)."""
        # Bulk loads index on two threads; a single update stays on one.
        writer = self._writer(2 if len(upserts) > 1000 else 1)
        try:
            for entry_id in deletes:
                writer.delete_documents_by_term("id", entry_id)
            for entry in upserts:
                if entry.id not in fresh:
                    writer.delete_documents_by_term("id", entry.id)
                context = context_of(entry) if context_of is not None else ""
                writer.add_document(self._document(entry, context))
            writer.commit()
            writer.wait_merging_threads()
        except BaseException:
            writer.rollback()
            raise
        finally:
            del writer  # releases the index lock
        self.index.reload()

    def _writer(self, threads: int) -> tantivy.IndexWriter:
        """The writer lock, waiting up to `lock_wait` seconds for another process."""
        deadline = time.monotonic() + self.lock_wait
        while True:
            try:
                return self.index.writer(_WRITER_HEAP, threads)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise TextIndexBusy(
                        "the search index is being written by another process"
                    ) from exc
                time.sleep(0.05)

    def clear(self) -> None:
        writer = self._writer(1)
        writer.delete_all_documents()
        writer.commit()
        writer.wait_merging_threads()
        del writer
        self.index.reload()

    @staticmethod
    def _document(entry: Entry, context: str) -> tantivy.Document:
        doc = tantivy.Document()
        doc.add_text("id", entry.id)
        doc.add_text("body", entry.search_text())
        doc.add_text("tags", " ".join(entry.tags))
        doc.add_text("context", context)
        for name in FILTER_FIELDS:
            doc.add_text(name, getattr(entry, name))
        return doc

    # -- reading -----------------------------------------------------------------
    def num_docs(self) -> int:
        return self.index.searcher().num_docs

    def parse(self, text: str) -> tantivy.Query | None:
        """Explicit syntax is honoured when it parses; otherwise (and always for plain
        words) a lenient OR of the query's terms. None when nothing is searchable."""
        if _SYNTAX.search(text):
            try:
                return self.index.parse_query(text, ["body", "tags"])
            except ValueError:
                pass  # e.g. `foo AND (`: fall back to the words in it
        terms = query_terms(text)
        if not terms:
            return None
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term in terms:
            for field, boost in FIELD_BOOSTS:
                if len(term.tokens) == 1:
                    query = tantivy.Query.term_query(self.schema, field, term.tokens[0])
                else:
                    query = tantivy.Query.phrase_query(self.schema, field, list(term.tokens))
                if boost != 1.0:
                    query = tantivy.Query.boost_query(query, boost)
                clauses.append((tantivy.Occur.Should, query))
        return tantivy.Query.boolean_query(clauses)

    def search(
        self, text: str, *, limit: int = 50, filters: Mapping[str, Iterable[str]] | None = None
    ) -> list[TextHit]:
        query = self.parse(text)
        if query is None:
            return []
        must: list[tuple[tantivy.Occur, tantivy.Query]] = [(tantivy.Occur.Must, query)]
        for field, values in (filters or {}).items():
            values = list(values)
            if not values:
                continue
            if field not in FILTER_FIELDS:
                raise ValueError(f"cannot filter on {field!r}; allowed: {FILTER_FIELDS}")
            must.append(
                (tantivy.Occur.Must, tantivy.Query.term_set_query(self.schema, field, values))
            )
        combined = must[0][1] if len(must) == 1 else tantivy.Query.boolean_query(must)
        searcher = self.index.searcher()
        result = searcher.search(combined, limit, count=False)
        return [
            TextHit(searcher.doc(address)["id"][0], float(score)) for score, address in result.hits
        ]
