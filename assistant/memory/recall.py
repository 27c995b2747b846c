"""The read path: find the few memories that matter for a question, fast.

Routes — semantic (vector index), keyword (FTS5, exact identifiers first), entity, time words
and pinned — feed one candidate set; each candidate gets one fused score from similarity,
keyword coverage, entity match, importance, recency and access history (weights in
settings). A candidate must be *relevant* (similarity/keyword/entity/identifier/time) above
a calibrated threshold to be injected; importance and recency only order relevant ones.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from assistant.clock import to_ts
from assistant.config import RecallWeights
from assistant.memory.context import session_neighbours, spread
from assistant.memory.cues import (
    ALWAYS_SLOTS,
    PROFILE_SLOTS,
    asks_about_plans,
    asks_for_identifier,
    asks_for_preferences,
    asks_when,
    cue_slots,
    cue_topics,
    is_personal,
)
from assistant.memory.cues import matches as cue_matches
from assistant.memory.episodes import weekly_routine
from assistant.memory.people import (
    BEINGS,
    FIRST_PERSON,
    about_others_only,
    admits,
    asks_of_self,
    names_them,
    people_asked,
    people_in,
)
from assistant.memory.service import MemoryService
from assistant.memory.similarity import floors, script
from assistant.memory.text import has_cjk, identifiers, idf, match_expression, normalize, tokens
from assistant.memory.topics import cue_topics as clause_topics
from assistant.memory.types import Category, Hit, Kind, Memory, Status

log = logging.getLogger("mnemo.recall")

@dataclass
class RecallOptions:
    k: int = 5
    threshold: float = 0.42
    relative_cut: float = 0.55  # drop hits scoring below this share of the best one
    weights: RecallWeights = field(default_factory=RecallWeights)
    recency_half_life_days: float = 60.0
    candidates: int = 100
    routes: frozenset[str] = frozenset(
        {"semantic", "keyword", "identifier", "entity", "cue", "time", "plans", "pinned", "context", "profile"}
    )
    # Ordering: each route's evidence scaled to this query's candidates, mixed half and half
    # (absolute scores mix badly: a model's cosine range and a query's keyword coverage move
    # independently); then a share of the best session neighbour's score (see context.py).
    order_similarity: float = 0.5
    order_keyword: float = 0.5
    neighbours: tuple[float, ...] = (0.35, 0.30)
    # Context is worth its cost around the leading candidates only (LoCoMo dev turn
    # recall@10: 0.752 at 30, 0.773 at 60, 0.780 at 100, 0.785 at 200; 57 → 115 ms/question).
    context_candidates: int = 60
    # A named entity orders weakly: in a conversation every turn of the person a question
    # names matches it (LoCoMo dev turn recall@10 0.678 at the gate's weight 0.25, 0.715 at 0).
    order_entity: float = 0.05
    cue_weight: float = 0.45  # a topic cue alone clears the threshold: "can I eat satay?" → allergies
    # A fact distilled from what the user said orders above an episode that is about as close:
    # "用户对海鲜过敏" before "上次吃了虾进了急诊" (similarity is rescaled over the candidates, so
    # among a few close ones the least close scores 0 however close it is).
    order_semantic: float = 0.3
    # Who the user is (cues.PROFILE_SLOTS) is relevant to any personal request ("draft a
    # LinkedIn headline for me" needs the job, "dessert ideas for date night" the partner's
    # intolerance); it orders below what the request itself points at.
    profile_weight: float = 0.45
    order_profile: float = 0.15
    profile_per_topic: int = 2
    profile_k: int = 3  # at most this many of them below the relative cut
    identifiers: int = 10  # a question for "the number" looks at the newest this many identifiers
    profile_plans: int = 3  # the next few plans ...
    profile_plans_days: float = 60.0  # ... within this many days
    # A memory in the review queue (another app's proposal, an import) waits for the user's
    # yes before it goes in a prompt; a forget request looks at it all the same.
    with_review: bool = False
    # Where the model cannot judge a pair of scripts (similarity.py: the bundled English model
    # on Chinese), the words must carry what its similarity would have: a keyword's weight
    # grows by this much times the missing trust ("新路由器怎么设置" finds "刚买了个小米路由器").
    keyword_untrusted: float = 0.5
    # A Chinese bigram that no memory holds is mostly one made across two words ("器怎", "置比"):
    # it counts at this share of the rarest term's weight (an English word at 0.5, see below).
    absent_cjk: float = 0.1
    # What was said about someone else ("我闺蜜小雨海鲜过敏", "my roommate is going keto") counts
    # at this share for a request that is about the user alone ("我对什么过敏吗？", "snacks for
    # movie night"); in full when the request names them or asks about others (people.py).
    others_weight: float = 0.5
    others_keyword: float = 0.6


@dataclass
class _Features:
    similarity: float = 0.0  # rescaled above the model's floor (absolute: gates injection)
    raw_similarity: float | None = None  # cosine (relative: orders candidates)
    trust: float = 1.0  # how much the model's similarity means for this pair of scripts
    word_trust: float = 1.0  # ... and how much of their words it sees (similarity.Floors.words_zh)
    keyword: float = 0.0
    entity: float = 0.0
    identifier: float = 0.0
    time: float = 0.0
    cue: float = 0.0
    profile: float = 0.0
    routes: set[str] = field(default_factory=set)


@dataclass
class RecallTrace:
    """What one recall did, for `mnemo memory search` and the benchmarks."""

    candidates: int = 0
    elapsed_ms: float = 0.0
    embed_ms: float = 0.0
    vector_ms: float = 0.0


# A distilled fact about someone else: "User's brother is named Marcus; …", "用户的姐姐在深圳当律师。"
_FACT_OF = re.compile(r"(?:User's|用户的)\s*")


def _of_another(content: str) -> bool:
    lead = _FACT_OF.match(content)
    return lead is not None and BEINGS.match(content, lead.end()) is not None


@dataclass
class _Query:
    """One recall's request and what its routes found so far."""

    text: str
    now: datetime
    feats: dict[int, _Features] = field(default_factory=dict)
    trace: RecallTrace = field(default_factory=RecallTrace)
    vector: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.now_ts = to_ts(self.now)
        self.terms = list(dict.fromkeys(tokens(self.text, query=True)))
        self.asked = people_asked(self.text)  # whose memories besides the user's it may use
        # "which city do I live in?", "我自己下周有啥安排": the user's own, no one else's
        self.of_self = not self.asked and asks_of_self(self.text)

    def feat(self, memory_id: int) -> _Features:
        return self.feats.setdefault(memory_id, _Features())


class Recaller:
    """Runs the read path over one profile's MemoryService.

    Args:
        service: the store, index and embedder of the profile.
        options: weights, threshold and k.
        past_range: turns time words in a query ("last week", "上次") into a time range.
    """

    def __init__(
        self,
        service: MemoryService,
        options: RecallOptions | None = None,
        past_range: Callable[[str, datetime], tuple[datetime, datetime] | None] | None = None,
    ) -> None:
        self.service = service
        self.options = options or RecallOptions()
        self._past_range = past_range
        self._df_cache: dict[str, int] = {}
        self._df_total = 0
        self._total: int | None = None
        self._total_age = 0
        self._total_newest = 0
        self.last_trace = RecallTrace()

    def recall(self, query: str, now: datetime, k: int | None = None, *, threshold: float | None = None) -> list[Hit]:
        """The memories to inject for `query` at time `now`, best first (at most k)."""
        started = time.perf_counter()
        opts = self.options
        k = opts.k if k is None else k
        threshold = opts.threshold if threshold is None else threshold
        q = _Query(" ".join(str(query).split())[:2000], now)
        if not q.text or k <= 0:
            self.last_trace = q.trace
            return []
        self._found_by_meaning(q)
        self._found_by_words(q)
        self._found_by_profile(q)
        live = {i: m for i, m in self.service.store.get_many(q.feats).items() if _usable(m, q.now_ts, opts.with_review)}
        q.trace.candidates = len(live)
        self._measure(q, live)
        if "cue" in opts.routes:
            self._found_by_cues(q, live)
        plans_asked = asks_about_plans(q.text)
        if "plans" in opts.routes and (plans_asked or asks_when(q.text)):
            upcoming = self.service.store.upcoming(q.now_ts, q.now_ts + 45 * 86400)
            outsiders = self._outsiders([m for m in upcoming if not admits(m.content, q.asked)])
            # "when is the wedding?" asks about the plan it names; "秦朝是什么时候统一的" about none
            named_only = not plans_asked and FIRST_PERSON.search(q.text) is None
            for memory in upcoming:
                if named_only and not (memory.id in live and (q.feats[memory.id].keyword > 0 or q.feats[memory.id].entity > 0)):
                    continue
                if _usable(memory, q.now_ts, opts.with_review) and memory.id not in outsiders:
                    live.setdefault(memory.id, memory)
                    f = q.feat(memory.id)
                    f.time = f.cue = 1.0
                    f.routes.add("plans")
            # the week's routines, for a question about the week ("what does my week look like,
            # anything regular?" → "pottery classes on wednesday nights"): no day ahead dates them
            if _WEEK_ASK.search(q.text) and _ROUTINE_MATCH:
                found = self.service.store.get_many([i for i, _ in self.service.store.keyword_search(_ROUTINE_MATCH, _ROUTINE_CANDIDATES)])
                for memory in found.values():
                    if memory.category is not Category.GOAL and weekly_routine(memory.content) and _usable(memory, q.now_ts, opts.with_review):
                        live.setdefault(memory.id, memory)
                        f = q.feat(memory.id)
                        f.cue = 1.0
                        f.routes.add("plans")
            # a plan further ahead that the question names ("滑雪的行程是什么时候" → "滑雪改到明年1月10号了")
            for memory_id, memory in live.items():
                f = q.feat(memory_id)
                if memory.event_at is not None and memory.event_at >= q.now_ts and f.keyword > 0 and "plans" not in f.routes:
                    f.time = 1.0
                    f.routes.add("plans")
        relevance, order = self._rank(live, q.feats, q.now_ts)
        if "context" in opts.routes and opts.neighbours:
            # Context is worth its cost only around the leading candidates.
            lead = sorted(order, key=lambda i: -order[i])[: opts.context_candidates]
            extra = self._add_neighbours(
                lead, live, q.feats, q.terms, q.vector if "semantic" in opts.routes else None, q.now_ts, script(q.text)
            )
            # The neighbours spread too: the turn that answers is often the one next to the
            # turn that names the subject, and it must borrow that turn's score.
            relevance, order = self._rank(live, q.feats, q.now_ts, context_ids=lead + extra)
        if opts.others_weight < 1:
            self._others_aside(q, live, relevance, order)
        hits = [
            Hit(memory=live[i], score=round(order[i], 4), routes=sorted(q.feats[i].routes),
                similarity=q.feats[i].similarity, keyword=q.feats[i].keyword,
                relevance=round(relevance[i], 4), threshold=threshold)
            for i in live if relevance[i] >= threshold
        ]
        hits.sort(key=lambda h: (-h.score, h.memory.id))
        chosen = self._choose(self._in_own_words(hits, q.now_ts), k)
        self.service.store.note_access((h.memory.id for h in chosen), q.now_ts)
        q.trace.elapsed_ms = (time.perf_counter() - started) * 1000
        self.last_trace = q.trace
        return chosen

    def _others_aside(self, q: _Query, live: dict[int, Memory], relevance: dict[int, float], order: dict[int, float]) -> None:
        """Scale down what was said about other people alone, for a request that is not about them.

        Kept in full: a memory the request names (an entity, a name the user gave them), shares
        most of its words with ("给朵朵准备点带去学校的水果零食吧"), dates in the time it asks about, or
        one of an event still ahead (the brother's wedding where the user gives the toast)."""
        opts = self.options
        aside: list[int] = []
        for i, memory in live.items():
            f = q.feats[i]
            if f.entity or f.identifier:
                continue
            if not q.of_self and (f.keyword >= opts.others_keyword or (f.time and "plans" not in f.routes)):
                continue  # a request about the user alone shares words with theirs by chance
            # (with `of_self` nobody else is asked about: a fact about the brother is set aside too)
            if q.of_self and _of_another(memory.content):
                pass
            elif not about_others_only(memory.content) or admits(memory.content, q.asked):
                continue
            if names_them(memory.content, q.text):
                continue  # "what should I get raj?" is about "my friend raj"
            aside.append(i)
        # the brother's wedding ahead is the user's too; a colleague's honeymoon is not, though the
        # plans route dates it in the time asked about
        ahead = [i for i in aside if q.feats[i].time or (live[i].event_at or 0) >= q.now_ts]
        theirs_too = set(ahead) - self._outsiders([live[i] for i in ahead])
        weight = 0.0 if q.of_self else opts.others_weight
        for i in aside:
            if i in theirs_too:
                continue
            relevance[i] *= weight
            order[i] *= weight

    def _outsiders(self, memories: list[Memory]) -> set[int]:
        """Of `memories`, the ids of what someone outside the family does without the user ("我同事
        Jason 下个月去 Bali 度蜜月"): not when the same message tells the user's part in it ("my best
        mate Callum is getting married … I'll need speech help", "老郑下个月调去深圳分公司了 他走了…
        活都得我接"), nor when it moves the user's plan ("室友那天临时要加班 改到下周五了")."""
        from assistant.memory.topics import RESCHEDULED

        found = [
            m for m in memories
            if (named := people_in(m.content)) and not named - _NOT_FAMILY and about_others_only(m.content)
            and not RESCHEDULED.search(m.content)
        ]
        messages = sorted({m.source_message_id for m in found if m.source_message_id is not None})
        theirs: set[int] = set()  # the messages in which the user takes part
        for sibling in self.service.store.from_messages(messages) if messages else []:
            # the user outside the subject ("我同事 Jason 下个月去 Bali 度蜜月" is not the user's trip)
            if not about_others_only(sibling.content):
                theirs.add(sibling.source_message_id or 0)
        return {m.id for m in found if m.source_message_id not in theirs}

    def _found_by_meaning(self, q: _Query) -> None:
        """The semantic route: the nearest vectors."""
        if "semantic" not in self.options.routes:
            return
        t0 = time.perf_counter()
        q.vector = self.service.embedder.embed_one(q.text)
        t1 = time.perf_counter()
        for memory_id, sim in self.service.index.query(q.vector, self.options.candidates, self.service.store.profile_id):
            f = q.feat(memory_id)
            f.raw_similarity = sim
            f.routes.add("semantic")
        q.trace.embed_ms = (t1 - t0) * 1000
        q.trace.vector_ms = (time.perf_counter() - t1) * 1000

    def _found_by_words(self, q: _Query) -> None:
        """The keyword, identifier, time-word and pinned routes."""
        opts, store = self.options, self.service.store
        if "keyword" in opts.routes and (match := match_expression(q.terms)):
            for memory_id, _score in store.keyword_search(match, opts.candidates):
                q.feat(memory_id).routes.add("keyword")
        if "identifier" in opts.routes:
            for ident in identifiers(q.text):
                for memory_id in store.containing(ident):
                    f = q.feat(memory_id)
                    f.identifier = 1.0
                    f.routes.add("identifier")
            if asks_for_identifier(q.text):  # "what was that order number?": every one the user gave
                for memory in store.list(category=Category.IDENTIFIER, limit=opts.identifiers):
                    f = q.feat(memory.id)
                    f.cue = 1.0
                    f.routes.add("identifier")
        if "time" in opts.routes and self._past_range is not None:
            span = self._past_range(q.text, q.now)
            if span is not None:
                for memory_id in store.in_time_range(to_ts(span[0]), to_ts(span[1])):
                    f = q.feat(memory_id)
                    f.time = 1.0
                    f.routes.add("time")
        if "pinned" in opts.routes:
            for memory_id in store.pinned_ids():
                q.feat(memory_id).routes.add("pinned")

    def _found_by_profile(self, q: _Query) -> None:
        """The profile route: who the user is, for a request about their own situation."""
        opts = self.options
        if "profile" not in opts.routes:
            return
        personal = is_personal(q.text)
        profile = self._profile(PROFILE_SLOTS if personal else ALWAYS_SLOTS, asked=q.asked)
        if personal:  # what lies ahead is part of who the user is now (not a colleague's honeymoon)
            upcoming = self.service.store.upcoming(q.now_ts, q.now_ts + opts.profile_plans_days * 86400, limit=opts.profile_plans)
            outsiders = self._outsiders(upcoming)
            profile += [m.id for m in upcoming if m.id not in outsiders]
        for memory_id in profile:
            f = q.feat(memory_id)
            f.profile = 1.0
            f.routes.add("profile")

    def _measure(self, q: _Query, live: dict[int, Memory]) -> None:
        """Every candidate's similarity, keyword coverage and entity match."""
        opts = self.options
        if q.vector is not None:
            # Candidates found by words alone get their similarity too: without it they all
            # rank as the least similar, whatever their real closeness (LoCoMo dev turn
            # recall@10 0.715 → 0.752; docs/benchmarks.md). Their similarity gates them too.
            self._measure_similarity([i for i in live if q.feats[i].raw_similarity is None], q.vector, q.feats)
            self._calibrate(live, q.feats, script(q.text))
        if live and q.terms and "keyword" in opts.routes:
            self._keyword_coverage(q.terms, live, q.feats)
        if "entity" in opts.routes:
            folded = normalize(q.text)
            for memory_id, memory in live.items():
                if any(len(e) >= 2 and normalize(e) in folded for e in memory.entities):
                    f = q.feats[memory_id]
                    f.entity = 1.0
                    f.routes.add("entity")

    def _found_by_cues(self, q: _Query, live: dict[int, Memory]) -> None:
        """The cue route: the slots and topics the request's words point at ("can I eat satay?")."""
        store = self.service.store
        slots = cue_slots(q.text)
        wants_preferences = asks_for_preferences(q.text)
        if slots:
            for memory in store.active_by_slot_prefixes(sorted(slots)) + store.active_by_topics(cue_topics(slots)):
                if memory.id not in live and _usable(memory, q.now_ts, self.options.with_review):
                    live[memory.id] = memory
                    q.feat(memory.id)
        for memory_id, memory in live.items():
            if not admits(memory.content, q.asked):
                continue  # "dinner ideas for me": not what the boss eats
            if _only_an_end(memory):
                continue  # "Iceland is off" answers a question that names Iceland, not every trip question
            if cue_matches(memory, slots) or (wants_preferences and memory.category.value == "preference"):
                q.feats[memory_id].cue = 1.0
                q.feats[memory_id].routes.add("cue")
        if q.terms and slots:
            self._keyword_coverage(q.terms, {i: m for i, m in live.items() if q.feats[i].keyword == 0}, q.feats)

    def _in_own_words(self, hits: list[Hit], now_ts: float) -> list[Hit]:
        """Each distilled fact as the user said it: the episode it came from stands in for it
        ("我住在武汉光谷这边" for "用户住在武汉。", "I'm a PM at Salesforce" for "User works as a PM."),
        at the better of the two scores, when the episode is still live, short, and tells no
        history ("我上个月从北京搬到杭州了" names the city left: there the fact says what holds now)."""
        sources = {h.memory.derived_from for h in hits if h.memory.kind is Kind.SEMANTIC and h.memory.derived_from is not None}
        if not sources:
            return hits
        by_id = {h.memory.id: h for h in hits}
        episodes = {
            i: m for i, m in self.service.store.get_many(sources - set(by_id)).items()
            if _usable(m, now_ts, self.options.with_review)
        }
        episodes.update({i: by_id[i].memory for i in sources & set(by_id)})
        episodes = {i: m for i, m in episodes.items() if own_words(m.content)}
        out: list[Hit] = []
        placed: set[int] = set()
        for hit in hits:
            source = hit.memory.derived_from if hit.memory.kind is Kind.SEMANTIC else None
            episode = episodes.get(source) if source is not None else None
            if episode is None and hit.memory.id not in episodes:
                out.append(hit)
            elif episode is not None and episode.id not in placed:
                placed.add(episode.id)
                own = by_id.get(episode.id)
                if own is not None and own.score >= hit.score:
                    out.append(own)
                else:
                    routes = sorted(set(hit.routes) | set(own.routes if own else []))
                    out.append(dataclasses.replace(hit, memory=episode, routes=routes))
            elif episode is None and hit.memory.id not in placed:
                # an episode whose fact is among the hits waits for it, and takes its place then
                if not any(h.memory.derived_from == hit.memory.id and h.memory.kind is Kind.SEMANTIC for h in hits):
                    out.append(hit)
        out.sort(key=lambda h: (-h.score, h.memory.id))
        return out

    def _choose(self, hits: list[Hit], k: int) -> list[Hit]:
        """The best `k` of the relevant hits: one per slot, no repeats, none far below the best
        (but for a few of who the user is: the request is about them)."""
        opts = self.options
        covered = _covered(hits[: 3 * k])
        chosen: list[Hit] = []
        seen_slots: set[str] = set()
        seen_text: set[str] = set()
        weak_profile = 0
        for hit in hits:
            weak = bool(chosen) and hit.score < chosen[0].score * opts.relative_cut
            if weak and ("profile" not in hit.routes or weak_profile >= opts.profile_k):
                continue
            memory = hit.memory
            key = normalize(memory.content)
            if (memory.slot and memory.slot in seen_slots) or key in seen_text or memory.id in covered:
                continue
            if memory.slot:
                seen_slots.add(memory.slot)
            seen_text.add(key)
            weak_profile += weak
            chosen.append(hit)
            if len(chosen) >= k:
                break
        return chosen

    def _relevance(self, f: _Features) -> float:
        w = self.options.weights
        return (
            w.similarity * f.similarity + (w.keyword + self.options.keyword_untrusted * (1 - f.word_trust)) * f.keyword + w.entity * f.entity
            + self.options.cue_weight * f.cue + 0.6 * f.identifier + 0.25 * f.time
        )

    def _rank(
        self, live: dict[int, Memory], feats: dict[int, _Features], now_ts: float, context_ids: list[int] | None = None
    ) -> tuple[dict[int, float], dict[int, float]]:
        """(relevance that gates injection, score that orders), both with context spread."""
        opts, w = self.options, self.options.weights
        ids = list(live)
        sims = [raw for i in ids if (raw := feats[i].raw_similarity) is not None]
        low, high = (min(sims), max(sims)) if sims else (0.0, 0.0)
        best_kw = max((feats[i].keyword for i in ids), default=0.0)
        relevance: dict[int, float] = {}
        order: dict[int, float] = {}
        for i in ids:
            f, memory = feats[i], live[i]
            raw = f.raw_similarity
            sim = f.trust * (raw - low) / (high - low) if raw is not None and high > low else 0.0
            kw = f.keyword / best_kw if best_kw > 0 else 0.0
            relevance[i] = self._relevance(f)
            age_days = max(0.0, (now_ts - (memory.event_at or memory.created_at)) / 86400)
            recency = math.exp(-age_days * math.log(2) / opts.recency_half_life_days)
            access = min(1.0, math.log1p(memory.access_count) / math.log(20))
            order[i] = (
                opts.order_similarity * sim + opts.order_keyword * kw
                + opts.order_entity * f.entity + opts.cue_weight * f.cue + 0.6 * f.identifier + 0.25 * f.time
                + w.importance * (memory.importance - 1) / 4 + w.recency * recency + w.access * access
                + w.pinned * float(memory.pinned)
                + opts.order_semantic * float(memory.kind is Kind.SEMANTIC)
                + opts.order_profile * f.profile
            )
        if context_ids:
            near = session_neighbours(self.service.db, self.service.profile_id, context_ids, len(opts.neighbours))
            relevance = spread(relevance, near, opts.neighbours)
            order = spread(order, near, opts.neighbours)
        # Being part of who the user is makes a memory relevant to a personal request; it does
        # not make the turns said next to it relevant.
        for i in ids:
            relevance[i] += opts.profile_weight * feats[i].profile
        return relevance, order

    def _profile(self, slots: tuple[str, ...], *, asked: frozenset[str]) -> list[int]:
        """The newest few memories of each part of who the user is, semantic facts first.

        Args:
            asked: whose memories besides the user's own the request may use (`people_asked`).
        """
        store = self.service.store
        topics = cue_topics(set(slots))
        found = store.active_by_slot_prefixes(list(slots), limit=60) + store.active_by_topics(topics, limit=80)
        per_topic: dict[str, list[Memory]] = {}
        seen: set[int] = set()
        for memory in sorted(found, key=lambda m: (m.kind is not Kind.SEMANTIC, -(m.event_at or m.created_at))):
            key = next((s for s in slots if memory.slot and (memory.slot == s or memory.slot.startswith(s + "."))), None)
            key = key or next((t for t in memory.topics if t in topics), None)
            if memory.id in seen or key is None or not admits(memory.content, asked) or _only_an_end(memory):
                continue
            seen.add(memory.id)
            per_topic.setdefault(key, []).append(memory)
        return [m.id for key, group in per_topic.items() for m in _best_of_topic(key, group, self.options.profile_per_topic)]

    def _add_neighbours(
        self, lead: list[int], live: dict[int, Memory], feats: dict[int, _Features], terms: list[str],
        vector: np.ndarray | None, now_ts: float, query_script: str,
    ) -> list[int]:
        """Bring the session neighbours of the leading episodic candidates into the candidate set; their ids."""
        reach = len(self.options.neighbours)
        near = session_neighbours(self.service.db, self.service.profile_id, lead, reach)
        extra = sorted({j for pairs in near.values() for j, _ in pairs} - set(live))
        if not extra:
            return []
        found = self.service.store.get_many(extra)
        added = {i: m for i, m in found.items() if m.expires_at is None or m.expires_at > now_ts}
        if not added:
            return []
        live.update(added)
        for i in added:
            feats.setdefault(i, _Features()).routes.add("context")
        if vector is not None:
            self._measure_similarity(list(added), vector, feats)
            self._calibrate(added, feats, query_script)
        if terms:
            self._keyword_coverage(terms, added, feats)
        return list(added)

    def _measure_similarity(self, ids: list[int], vector: np.ndarray, feats: dict[int, _Features]) -> None:
        """Cosine similarity of `ids` to the query from their stored vectors."""
        if not ids:
            return
        for i, vec in self.service.index.vectors(ids).items():
            feats[i].raw_similarity = float(np.dot(vec, vector))

    def _calibrate(self, live: dict[int, Memory], feats: dict[int, _Features], query_script: str) -> None:
        """Each candidate's similarity on the calibrated scale of its pair of scripts (an
        English model finds any two Chinese texts alike: see similarity.py)."""
        fl = floors(self.service.embedder)
        for i, memory in live.items():
            raw = feats[i].raw_similarity
            if raw is not None:
                other = script(memory.content)
                feats[i].similarity = fl.rescale(raw, query_script, other)
                feats[i].trust = fl.trust(query_script, other)
                feats[i].word_trust = fl.words_trust(query_script, other)

    def _keyword_coverage(self, terms: list[str], live: dict[int, Memory], feats: dict[int, _Features]) -> None:
        """IDF-weighted share of the query's terms that each candidate contains."""
        store = self.service.store
        # Counting a profile's rows is a scan (11 ms at 100k); IDF only needs it roughly, so
        # it is recounted every 32 recalls or when many rows were added since (the newest id).
        self._total_age += 1
        newest = store.newest_id()
        if self._total is None or self._total_age > 32 or newest - self._total_newest > max(20, self._total // 10):
            self._total, self._total_age, self._total_newest = max(1, store.total()), 0, newest
        total = self._total
        if abs(total - self._df_total) > max(50, self._df_total // 10):
            self._df_cache.clear()
            self._df_total = total
        weights: dict[str, float] = {}
        for term in terms[:24]:
            if term not in self._df_cache:
                self._df_cache[term] = store.doc_freq(term)
            df = self._df_cache[term]
            # A term no memory holds still counts (the query asks about it), at half the
            # weight of the rarest term, so one generic word cannot veto the rest.
            weights[term] = idf(df, total) if df else (self.options.absent_cjk if has_cjk(term) else 0.5) * idf(1, total)
        denominator = sum(weights.values())
        if denominator <= 0:
            return
        present = store.term_hits([t for t in weights if self._df_cache[t] > 0], list(live))
        for memory_id in live:
            got = sum(weights[t] for t, ids in present.items() if memory_id in ids)
            if got > 0:
                feats[memory_id].keyword = got / denominator
                feats[memory_id].routes.add("keyword")


# A question about the user's week, and the words its routines are told with (the best few
# matches are enough: a user has few routines, and each match costs a read and a regex).
_ROUTINE_CANDIDATES = 30
_WEEK_ASK = re.compile(r"(?i)\b(?:week|weekly|regular|routine|schedule|usually)\b|周|日程|安排|哪几天|星期|礼拜")
_ROUTINE_MATCH = match_expression(tokens(
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays mon tue wed thu fri weekly weeknights weekends every "
    "每周 周一 周二 周三 周四 周五 周六 周日 周末 工作日 星期 礼拜"
))


# How the user wants to be answered is often several wishes in one breath ("以后简短点，直接给
# 结论，不要emoji"): a few more of them reach the prompt, the wishes before the complaints
# ("看着累") that came with them.
_STYLE_PER_TOPIC = 4
_STYLE_WISH = re.compile(
    r"(?i)\b(?:please|pls|keep|don't|dont|do not|no|always|never|just|prefer|use|give me|reply|answer|write|stop)\b"
    r"|以后|不要|别|请|直接|简短|简洁|只要|用中文|用英文|说重点|少点|多点|少用|多用"
)


def _best_of_topic(topic: str, group: list[Memory], n: int) -> list[Memory]:
    """The first `n` of a topic's memories (semantic, then newest), those whose own words are
    about it before those that only continue a clause that was ("现在在成都，火锅串串天天吃，胖了
    三斤": the city is 成都, not the hotpot)."""
    if topic == "user.reply_style":
        n = max(n, _STYLE_PER_TOPIC)
    if len(group) <= n:
        return group
    own = [m for m in group if any(t.slot == topic for t in clause_topics(m.content))]
    if topic == "user.reply_style":
        # a wish said after the first ("以后简短点，直接给结论") has no style word of its own
        wishes = [m for m in group if m.kind is Kind.SEMANTIC or _STYLE_WISH.search(m.content)]
        return (wishes + [m for m in own if m not in wishes] + [m for m in group if m not in own and m not in wishes])[:n]
    return (own + [m for m in group if m not in own])[:n]


# Whose events ahead are not the user's: friends, people at work, at home.
_NOT_FAMILY = frozenset({"friend", "work", "home", "pet"})


def _only_an_end(memory: Memory) -> bool:
    """An episode that only says a named thing ended ("quit blue bottle", "Iceland is off"): no
    part of who the user is now, though a request that names the thing still finds it."""
    return memory.kind is Kind.EPISODIC and _ends_only(memory.content)


@functools.lru_cache(maxsize=8192)
def _ends_only(content: str) -> bool:
    from assistant.memory.topics import ENDED
    from assistant.memory.update import ended_names

    return ENDED.search(content) is not None and _NEW_ONE.search(content) is None and bool(ended_names(content))


# What took the ended thing's place: "gave up on it and switched to a Framework 13", "sold the
# civic, got an ebike", "咖啡戒了 改喝茶" — what the user has now, not only what ended.
_NEW_ONE = re.compile(
    r"(?i)\b(?:switch(?:ed|ing) to|moved to|joined|start(?:ed|ing) (?:at|as)|got (?:a|an|me a|myself a)|bought|replaced (?:it |them )?with|instead)\b"
    r"|换成|换了个|改用|改喝|改吃|改学|改成|入职|加入了|买了"
)


def _usable(memory: Memory, now_ts: float, with_review: bool) -> bool:
    """Active, not expired, and (unless `with_review`) not waiting in the review queue: what
    another app proposed or an import brought is not put in a prompt before the user accepts it."""
    live = memory.status is Status.ACTIVE and (memory.expires_at is None or memory.expires_at > now_ts)
    return live and (with_review or not memory.review)


# An episode that tells what was before ("我上个月从北京搬到杭州了", "quit Blue Bottle, starting at
# Shopify") names what no longer holds: the fact distilled from it says what does.
_TELLS_HISTORY = re.compile(
    r"(?i)\b(?:moved|moving|relocated|came|transferred|switched|back|over)\b[^.!?]{0,30}\bfrom\b|\bfrom\s+\S+(?:\s+\S+)?\s+to\b"
    r"|\bused to\b|\bex\b|\bformer(?:ly)?\b|\bprevious(?:ly)?\b|从.{1,12}?(?:搬|到|来|回|换|转|跳)|离开|以前|之前|原来|前任"
)
_OWN_WORDS_CHARS = 160


def tells_history(text: str) -> bool:
    """Whether a text tells what was before or what ended ("moved from Boston", "以前吃素", "keto is over")."""
    from assistant.memory.topics import ENDED

    return _TELLS_HISTORY.search(text) is not None or ENDED.search(text) is not None


def own_words(episode: str) -> bool:
    """Whether an episode can stand in for the fact distilled from it (see `_in_own_words`)."""
    return len(episode) <= _OWN_WORDS_CHARS and not tells_history(episode)


def _covered(hits: list[Hit]) -> set[int]:
    """Of an episode and the fact distilled from it, the one not to inject: the fact, unless the
    episode tells what was before (`own_words`)."""
    by_id = {h.memory.id: h.memory for h in hits}
    out: set[int] = set()
    for hit in hits:
        episode = by_id.get(hit.memory.derived_from) if hit.memory.derived_from is not None else None
        if episode is None:
            if hit.memory.derived_from is not None:
                out.add(hit.memory.derived_from)
            continue
        out.add(hit.memory.id if own_words(episode.content) else episode.id)
    return out
