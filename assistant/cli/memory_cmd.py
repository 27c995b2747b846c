"""`mnemo memory …`: list, search, add, edit, delete, pin, export, import, forget-me, remember."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from assistant.cli.common import (
    ask_passphrase,
    bounded_int,
    clean_arg,
    confirm,
    iso_time,
    memory_id,
    print_json,
    profile_from_env,
    read_text_arg,
    stderr_progress,
)
from assistant.clock import iso
from assistant.errors import InputError
from assistant.memory.api import Details, PassphraseNeeded, reasons, why_fields, why_of
from assistant.memory.types import Category, Hit, Memory, Status, Turn


def memory_dict(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id, "content": memory.content, "category": memory.category.value,
        "kind": memory.kind.value, "slot": memory.slot, "entities": memory.entities,
        "importance": memory.importance, "confidence": memory.confidence,
        "source": memory.source.value, "status": memory.status.value,
        "superseded_by": memory.superseded_by, "pinned": memory.pinned, "review": memory.review,
        "created_at": iso(memory.created_at), "updated_at": iso(memory.updated_at),
        "last_accessed_at": iso(memory.last_accessed_at), "access_count": memory.access_count,
        "expires_at": iso(memory.expires_at), "event_at": iso(memory.event_at),
        "session_id": memory.session_id, "source_message_id": memory.source_message_id,
        "vault_ids": memory.vault_ids,
    }


def _line(memory: Memory) -> str:
    flags = ("📌" if memory.pinned else "") + ("" if memory.status is Status.ACTIVE else f" [{memory.status.value}]")
    return f"#{memory.id:<5} {memory.category.value:<10} ★{memory.importance} {memory.content}{flags}"


def cmd_list(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        status = None if args.status == "all" else Status(args.status)
        category = Category(args.category) if args.category else None
        memories = profile.memories.list(status=status, category=category, limit=args.limit, offset=args.offset)
        if args.json:
            print_json([memory_dict(m) for m in memories])
        elif not memories:
            print("No memories yet." if status is Status.ACTIVE else "No memories match.")
        else:
            for memory in memories:
                print(_line(memory))
    return 0


def _hit_dict(hit: Hit, query: str, explain: bool) -> dict[str, Any]:
    if explain:  # the routes and score, with why in words and the threshold
        return {**memory_dict(hit.memory), **why_fields(why_of(hit, query))}
    return {**memory_dict(hit.memory), "score": hit.score, "routes": hit.routes}


def cmd_search(args: argparse.Namespace) -> int:
    query = read_text_arg(args.query)
    with profile_from_env() as profile:
        now = profile.clock.now()
        hits, block = profile.memories.injected(query, now, k=args.k)
        if args.json:
            print_json({"query": query, "injected": [_hit_dict(h, query, args.explain) for h in hits], "block": block})
        elif not hits:
            print("Nothing would be injected for this question.")
        else:
            for hit in hits:
                print(f"#{hit.memory.id:<5} score {hit.score:.3f}  via {','.join(hit.routes):<28} {hit.memory.content}")
                if args.explain:
                    print("".join(f"       {line}\n" for line in reasons(why_of(hit, query))), end="")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    text = read_text_arg(args.text)
    with profile_from_env() as profile:
        memory = profile.memories.add(
            text, Category(args.category), importance=args.importance, pinned=args.pin, expires_at=args.expires,
        )
        print_json(memory_dict(memory)) if args.json else print(f"Added #{memory.id}: {memory.content}")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        fields: dict[str, Any] = {}
        if args.content is not None:
            fields["content"] = read_text_arg(args.content)
        if args.category:
            fields["category"] = Category(args.category)
        if args.importance is not None:
            fields["importance"] = args.importance
        if args.expires is not None:
            fields["expires_at"] = None if args.expires == "never" else args.expires
        if not fields:
            raise InputError("nothing to change", "Give --content, --category, --importance or --expires.")
        memory = profile.memories.edit(args.id, **fields)
        print_json(memory_dict(memory)) if args.json else print(f"Updated #{memory.id}: {memory.content}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        memories = [profile.memories.get(i) for i in args.ids]
        if not args.json:
            for memory in memories:
                print(_line(memory))
        if not confirm(f"Delete {len(memories)} memor{'y' if len(memories) == 1 else 'ies'} for good?", assume_yes=args.yes):
            return 1
        profile.memories.delete([m.id for m in memories])
        profile.memories.checkpoint()
        print_json({"deleted": args.ids}) if args.json else print(f"Deleted {len(memories)}.")
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        profile.memories.pin(args.id, not args.unpin)
        print_json({"id": args.id, "pinned": not args.unpin}) if args.json else print(
            f"{'Unpinned' if args.unpin else 'Pinned'} #{args.id}."
        )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        details = profile.memories.details(args.id)
        if args.json:
            print_json(_details_dict(details))
        else:
            print(_line(details.memory))
            for event in details.history:
                origin = (event.get("detail") or {}).get("origin")
                print(f"  {iso(event['at'])}  {event['event']}" + (f" ({origin})" if origin else ""))
            for old in details.replaced:
                print(f"  replaced #{old.id}: {old.content}")
    return 0


def _details_dict(details: Details) -> dict[str, Any]:
    source = details.source
    return {
        **memory_dict(details.memory),
        "history": details.history,
        "replaced": [memory_dict(m) for m in details.replaced],
        "source_message": None if source is None else {
            "id": source.id, "session_id": source.session_id, "role": source.role,
            "content": source.content, "created_at": source.created_at,
        },
    }


def cmd_restore(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        profile.memories.restore([args.id])
        print_json({"id": args.id, "status": "active"}) if args.json else print(f"Restored #{args.id}.")
    return 0


def cmd_remember(args: argparse.Namespace) -> int:
    text = read_text_arg(args.text)
    with profile_from_env() as profile:
        now = profile.clock.now()
        result = profile.memories.remember([Turn("user", text, now)], now)
        deleted: list[int] = []
        for request in result.forget_requests:
            if not request.matches:
                if not args.json:
                    print(f"Nothing found to forget for “{request.target}”.")
                continue
            if not args.json:
                print(f"To forget (“{request.target}”):")
                for memory in request.matches:
                    print("  " + _line(memory))
            if confirm("Delete these?", assume_yes=args.yes):
                profile.memories.confirm_forget([m.id for m in request.matches])
                deleted.extend(m.id for m in request.matches)
        changes = [
            {"action": c.action.value, "id": c.memory_id, "content": c.content,
             "category": c.category.value if c.category else None, "replaced": c.replaced_id, "reason": c.reason}
            for c in result.changes
        ]
        if args.json:
            print_json({"changes": changes, "forgotten": deleted})
        elif not changes and not result.forget_requests:
            print("Nothing worth remembering in that.")
        else:
            for change in changes:
                extra = f" (replaces #{change['replaced']})" if change["replaced"] else ""
                print(f"{change['action']:<8} #{change['id'] or '-'} {change['content']}{extra}")
    return 0


def _include_vault(args: argparse.Namespace, items: int) -> bool:
    """Whether the export carries the vault: the flags say, else ask on a terminal."""
    if args.include_sensitive or not items:
        return bool(args.include_sensitive and items)
    if args.no_sensitive or args.yes:
        return False
    if not sys.stdin or not sys.stdin.isatty():
        print(f"note: {items} vault values (phone, card and ID numbers …) were left out; "
              "add --include-sensitive to export them encrypted with a passphrase.", file=sys.stderr)
        return False
    return confirm(f"Include the {items} vault values (encrypted with a passphrase you choose)?", assume_yes=False)


def cmd_export(args: argparse.Namespace) -> int:
    path = Path(clean_arg(args.path))
    with profile_from_env() as profile:
        include = _include_vault(args, len(profile.memories.vault_items()))
        passphrase = ask_passphrase(
            "to encrypt the vault values with", twice=True,
            missing="Vault values are exported only encrypted, and no passphrase was given.",
        ) if include else None
        count = profile.memories.export(path, include_sensitive=include, passphrase=passphrase,
                                        progress=None if args.json else stderr_progress("exporting"))
        if args.json:
            print_json({"exported": count, "path": str(path), "includes_sensitive": include})
        else:
            print(f"Exported {count} memories to {path}" + (" (vault values encrypted)." if include else "."))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    path = Path(clean_arg(args.path))
    with profile_from_env() as profile:
        progress = None if args.json else stderr_progress("importing")
        try:
            report = profile.memories.import_file(path, skip_sensitive=args.skip_sensitive, progress=progress)
        except PassphraseNeeded:
            passphrase = ask_passphrase(
                "of the export's vault values", twice=False,
                missing="The export's vault values are encrypted with a passphrase (or add --skip-sensitive).",
            )
            report = profile.memories.import_file(path, passphrase=passphrase, progress=progress)
        if args.json:
            print_json({"imported": report.imported, "skipped_duplicates": report.skipped_duplicates,
                        "vault_values": report.vault_values})
        else:
            print(f"Imported {report.imported} memories ({report.skipped_duplicates} already present"
                  + (f", {report.vault_values} vault values" if report.vault_values else "") + ").")
    return 0


def cmd_forget_me(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        memories = profile.memories.total()
        if not confirm(
            f"Erase EVERYTHING of profile {profile.name!r}: {memories} memories, the vault, all conversations, "
            "the index and logs? This cannot be undone.",
            assume_yes=args.yes,
        ):
            return 1
        report = profile.memories.forget_me()
        if args.json:
            print_json({"erased_memories": report.memories, "erased_messages": report.messages,
                        "files_removed": report.files_removed, "seconds": round(report.seconds, 3)})
        else:
            print(f"Erased {report.memories} memories and {report.messages} messages in {report.seconds:.2f} s. "
                  "The profile is empty.")
    return 0


def cmd_reveal(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        if not confirm(f"Show vault item {args.vault_id} in plain text?", assume_yes=args.yes):
            return 1
        value = profile.memories.reveal(args.vault_id)
        print_json({"vault_id": args.vault_id, "value": value}) if args.json else print(value)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    with profile_from_env() as profile:
        report = profile.memories.reindex(None if args.json else stderr_progress("indexing"))
        print_json(report.as_dict()) if args.json else print(f"Indexed {report.indexed} memories.")
    return 0


def _expiry(text: str) -> float | str:
    return "never" if text.strip() in ("", "never") else iso_time(text)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    memory = sub.add_parser("memory", help="see, search and change what Mnemo remembers")
    msub = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    def add(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = msub.add_parser(name, help=help_text)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.set_defaults(handler=handler)
        return p

    categories = [c.value for c in Category]
    p = add("list", cmd_list, "list memories")
    p.add_argument("--status", default="active", choices=[s.value for s in Status] + ["all"])
    p.add_argument("--category", choices=categories)
    p.add_argument("--limit", type=bounded_int(1, 1_000_000), default=100)
    p.add_argument("--offset", type=bounded_int(0, 10**12), default=0)
    p = add("search", cmd_search, "what would be injected for a question (the read path)")
    p.add_argument("query", help="the question ('-' reads standard input)")
    p.add_argument("-k", type=bounded_int(0, 50), default=None, help="at most this many (default from settings)")
    p.add_argument("--explain", action="store_true", help="say why each memory was chosen (routes, score, threshold)")
    p = add("add", cmd_add, "add a memory by hand")
    p.add_argument("text")
    p.add_argument("--category", default="fact", choices=categories)
    p.add_argument("--importance", type=int, default=3, choices=range(1, 6))
    p.add_argument("--pin", action="store_true")
    p.add_argument("--expires", type=iso_time, help="ISO 8601 time with offset")
    p = add("edit", cmd_edit, "change a memory")
    p.add_argument("id", type=memory_id)
    p.add_argument("--content")
    p.add_argument("--category", choices=categories)
    p.add_argument("--importance", type=int, choices=range(1, 6))
    p.add_argument("--expires", type=_expiry, help="ISO 8601 time with offset, or 'never'")
    p = add("delete", cmd_delete, "delete memories for good")
    p.add_argument("ids", type=memory_id, nargs="+")
    p.add_argument("--yes", action="store_true", help="do not ask")
    p = add("pin", cmd_pin, "pin (or --unpin) a memory")
    p.add_argument("id", type=memory_id)
    p.add_argument("--unpin", action="store_true")
    p = add("show", cmd_show, "one memory with its history and provenance")
    p.add_argument("id", type=memory_id)
    p = add("restore", cmd_restore, "make an archived or superseded memory active again")
    p.add_argument("id", type=memory_id)
    p = add("remember", cmd_remember, "run TEXT through the write path as a user message")
    p.add_argument("text", help="the message ('-' reads standard input)")
    p.add_argument("--yes", action="store_true", help="confirm forget requests")
    p = add("export", cmd_export, "export memories to a JSON file")
    p.add_argument("path")
    vault = p.add_mutually_exclusive_group()
    vault.add_argument("--include-sensitive", action="store_true",
                       help="include the vault values, encrypted with a passphrase (asked, or $MNEMO_EXPORT_PASSPHRASE)")
    vault.add_argument("--no-sensitive", action="store_true", help="leave the vault values out without asking")
    p.add_argument("--yes", action="store_true", help="do not ask (the vault is left out unless --include-sensitive)")
    p = add("import", cmd_import, "import memories from a JSON export")
    p.add_argument("path")
    p.add_argument("--skip-sensitive", action="store_true", help="import without the export's vault values")
    p = add("forget-me", cmd_forget_me, "erase everything of this profile")
    p.add_argument("--yes", action="store_true")
    p = add("reveal", cmd_reveal, "show one vault value in plain text")
    p.add_argument("vault_id", type=memory_id)
    p.add_argument("--yes", action="store_true")
    p = add("reindex", cmd_reindex, "rebuild the vector index from the database")
