"""Numbered schema migrations. Append only: never edit a migration that has shipped."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the memory store
    """
    CREATE TABLE profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE memories (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('episodic', 'semantic')),
        category TEXT NOT NULL CHECK (category IN
            ('fact', 'preference', 'goal', 'project', 'conclusion', 'emotion', 'identifier')),
        content TEXT NOT NULL,
        summary TEXT,
        slot TEXT,
        entities TEXT NOT NULL DEFAULT '[]',
        importance INTEGER NOT NULL CHECK (importance BETWEEN 1 AND 5),
        confidence REAL NOT NULL DEFAULT 0.8 CHECK (confidence BETWEEN 0 AND 1),
        source TEXT NOT NULL CHECK (source IN ('user_explicit', 'user_implied', 'assistant', 'manual')),
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'merged', 'archived')),
        superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        review INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        status_changed_at REAL,
        last_accessed_at REAL,
        access_count INTEGER NOT NULL DEFAULT 0,
        expires_at REAL,
        event_at REAL,
        session_id TEXT,
        source_message_id INTEGER,
        vault_ids TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX memories_profile_status ON memories(profile_id, status);
    CREATE INDEX memories_slot ON memories(profile_id, slot) WHERE slot IS NOT NULL;
    CREATE INDEX memories_event_at ON memories(profile_id, event_at);
    CREATE TABLE memory_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        memory_id INTEGER,
        event TEXT NOT NULL CHECK (event IN
            ('added', 'updated', 'superseded', 'merged', 'archived', 'restored', 'deleted',
             'pinned', 'unpinned', 'accessed', 'imported', 'expired', 'purged')),
        at REAL NOT NULL,
        detail TEXT
    );
    CREATE INDEX memory_events_memory ON memory_events(profile_id, memory_id);
    CREATE TABLE vault (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        masked TEXT NOT NULL,
        nonce BLOB NOT NULL,
        ciphertext BLOB NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE vault_keys (
        profile_id TEXT PRIMARY KEY REFERENCES profiles(id) ON DELETE CASCADE,
        method TEXT NOT NULL,
        salt BLOB,
        wrapped_key BLOB NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE VIRTUAL TABLE memories_fts USING fts5(
        text, entities, tokenize = 'unicode61 remove_diacritics 0'
    );
    CREATE VIRTUAL TABLE memories_fts_vocab USING fts5vocab(memories_fts, 'row');
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        title TEXT NOT NULL DEFAULT '',
        temporary INTEGER NOT NULL DEFAULT 0,
        summary TEXT NOT NULL DEFAULT '',
        summary_upto INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
        content TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'partial', 'error')),
        injected_ids TEXT NOT NULL DEFAULT '[]',
        extracted INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
    );
    CREATE INDEX messages_session ON messages(profile_id, session_id, id);
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, tokenize = 'unicode61 remove_diacritics 0'
    );
    CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL,
        status TEXT NOT NULL DEFAULT 'running',
        counts TEXT NOT NULL DEFAULT '{}',
        duration_s REAL
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE job_steps (
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        step TEXT NOT NULL,
        last_success_at REAL NOT NULL,
        PRIMARY KEY (profile_id, step)
    );
    """,
    # 2: maintenance — deleting a memory looks up the rows that point to it (the foreign key's
    # ON DELETE SET NULL and MemoryStore.delete); without this index each purge scanned the table.
    """
    CREATE INDEX IF NOT EXISTS memories_superseded_by ON memories(superseded_by);
    """,
    # 3: the read path at 100k memories — pinned memories and a session's turns were found by
    # scanning every active row (13 and 11 ms a query at 50k).
    """
    CREATE INDEX IF NOT EXISTS memories_pinned ON memories(profile_id) WHERE pinned = 1;
    CREATE INDEX IF NOT EXISTS memories_session ON memories(profile_id, session_id, event_at)
        WHERE session_id IS NOT NULL;
    """,
    # 4: the write path keeps every clause as an episodic memory. `topic` is the slot family a
    # memory is mainly about (user.city, user.job …): a new statement supersedes the old ones of
    # a one-value topic. `memory_topics` holds every part of life it touches ("my partner Jules is
    # lactose intolerant": family and allergy), which the read path's topic cues and profile
    # route find it by. `derived_from` points a semantic fact at the episode it was distilled
    # from (the read path injects one of the two).
    """
    ALTER TABLE memories ADD COLUMN topic TEXT;
    ALTER TABLE memories ADD COLUMN derived_from INTEGER REFERENCES memories(id) ON DELETE SET NULL;
    CREATE INDEX IF NOT EXISTS memories_topic ON memories(profile_id, topic) WHERE topic IS NOT NULL;
    CREATE INDEX IF NOT EXISTS memories_derived_from ON memories(derived_from) WHERE derived_from IS NOT NULL;
    CREATE TABLE IF NOT EXISTS memory_topics (
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        topic TEXT NOT NULL,
        PRIMARY KEY (topic, memory_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS memory_topics_by_memory ON memory_topics(memory_id);
    CREATE INDEX IF NOT EXISTS memories_source_message ON memories(source_message_id)
        WHERE source_message_id IS NOT NULL;
    """,
    # 5: the read path's profile route asks for the next few plans on every personal request;
    # without this index that scanned every row in date order (1.3 ms a query at 10k).
    """
    CREATE INDEX IF NOT EXISTS memories_plans ON memories(profile_id, event_at)
        WHERE category = 'goal' AND status = 'active';
    """,
    # 6: other apps using the memory over MCP (assistant/mcp/): what each client may do, and
    # every call it made (which memory ids it was shown or wrote). In the profile's database,
    # so forget-me erases them with the rest; no memory text is kept here.
    """
    CREATE TABLE IF NOT EXISTS mcp_clients (
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        permission TEXT NOT NULL CHECK (permission IN ('revoked', 'read', 'propose', 'write')),
        first_seen REAL NOT NULL,
        last_seen REAL,
        PRIMARY KEY (profile_id, name)
    );
    CREATE TABLE IF NOT EXISTS mcp_access (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        client TEXT NOT NULL,
        tool TEXT NOT NULL,
        at REAL NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'refused', 'declined', 'failed')),
        memory_ids TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX IF NOT EXISTS mcp_access_at ON mcp_access(profile_id, at);
    """,
    # 7: importers (assistant/importers/, Memories.import_history): a hash of each conversation
    # (or memory-list line) already imported, so importing the same export again adds nothing.
    # No text: the hash, where it came from, when, and how many memories it gave.
    """
    CREATE TABLE IF NOT EXISTS imported_conversations (
        profile_id TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        source TEXT NOT NULL,
        imported_at REAL NOT NULL,
        memories INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (profile_id, key)
    );
    """,
    # 8 ("why this memory"): why each memory under a
    # reply was chosen — its routes, relevance against the threshold, what of the question
    # matched (memory/explain.py `Why`) — as JSON {memory id: why}. NULL for older replies.
    """
    ALTER TABLE messages ADD COLUMN injected_why TEXT;
    """,
]
