"""Import files a hostile tester would hand over, and exports that must not leak.

Each hostile file is refused at once with a clear reason (ImportFileError or InputError,
the kinds the CLI and the window show with a hint, never an "internal error"), and the
store is left as it was.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assistant.app import Profile
from assistant.errors import ImportFileError, InputError, MnemoError
from assistant.memory.store import NewMemory
from assistant.memory.transfer import (
    PassphraseNeeded,
    WrongPassphrase,
    export_memories,
    import_memories,
)
from assistant.memory.types import Category

HEAD = '{"format": "mnemo-export", "version": 1, "profile": "default", "memories": [\n'
GOOD = {"id": 1, "content": "I like tea", "category": "preference"}


def _write(path: Path, records: list[Any]) -> Path:
    path.write_text(HEAD + ",\n".join(json.dumps(r) for r in records) + "\n]}", encoding="utf-8")
    return path


def _untouched(profile: Profile, kept: int) -> None:
    assert [m.id for m in profile.store.list(status=None)] == [kept]


@pytest.fixture
def kept(tiny_profile: Profile) -> int:
    return tiny_profile.service.add(NewMemory("I live in Porto", Category.FACT)).id


HOSTILE_FIELDS: dict[str, tuple[dict[str, Any], str]] = {
    "3 MB slot": ({"slot": "user." + "x" * 3_000_000}, "'slot' is longer"),
    "7 MB vault value": ({"sensitive": [{"kind": "phone", "masked": "1***", "value": "9" * 7_000_000}]}, "'value' is longer"),
    "NUL in slot": ({"slot": "user.\u0000city"}, "'slot' holds a control character"),
    "NUL in an entity": ({"entities": ["Por\u0000to"]}, "'entities' must hold text"),
    "lone surrogate in entities": ({"entities": ["\ud800"]}, "'entities' must hold text"),
    "lone surrogate in slot": ({"slot": "user.\udfff"}, "'slot' holds"),
    "lone surrogate in summary": ({"summary": "ok \ud83d"}, "'summary' holds"),
    "lone surrogate in sensitive": ({"sensitive": [{"kind": "phone", "masked": "\udc80", "value": "1"}]}, "'masked' holds"),
    "superseded by itself": ({"superseded_by": 1}, "superseded by itself"),
    "an id past 2**53": ({"id": 2**55}, "'id' must be an integer"),
    "a timestamp in year 1 minus": ({"event_at": "0001-01-01T00:00:00+14:00"}, "'event_at'"),
    "a huge importance": ({"importance": 10**17}, "'importance'"),
    "a boolean id": ({"id": True}, "'id' must be an integer"),
    "too many entities": ({"entities": ["a"] * 51}, "'entities' must be a list"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_FIELDS))
def test_hostile_fields_are_refused_with_their_line(tmp_path: Path, tiny_profile: Profile, kept: int, case: str) -> None:
    fields, reason = HOSTILE_FIELDS[case]
    path = _write(tmp_path / "bad.json", [{"id": 5, "content": "first", "category": "fact"}, {**GOOD, **fields}])
    with pytest.raises(ImportFileError) as caught:
        import_memories(tiny_profile.service, tiny_profile.vault, path)
    assert reason in str(caught.value) and caught.value.line == 3, str(caught.value)
    _untouched(tiny_profile, kept)


def test_a_cycle_of_superseded_by_is_refused(tmp_path: Path, tiny_profile: Profile, kept: int) -> None:
    records = [{**GOOD, "id": i, "content": f"note {i}", "superseded_by": i % 3 + 1} for i in (1, 2, 3)]
    with pytest.raises(ImportFileError, match="cycle"):
        import_memories(tiny_profile.service, tiny_profile.vault, _write(tmp_path / "cycle.json", records))
    _untouched(tiny_profile, kept)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("[" * 1_000_000 + "]" * 1_000_000, "nested too deeply"),
        (HEAD + '{"id": 1, "content": "x", "category": "fact", "importance": ' + "9" * 5000 + "}\n]}", "longer than 18 digits"),
        (HEAD + '{"id": 1, "content": "x", "category": "fact", "confidence": NaN}\n]}', "NaN"),
    ],
    ids=["a million nested brackets", "a 5000-digit integer", "NaN"],
)
def test_hostile_json_is_refused(tmp_path: Path, tiny_profile: Profile, kept: int, body: str, reason: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ImportFileError, match=reason):
        import_memories(tiny_profile.service, tiny_profile.vault, path)
    _untouched(tiny_profile, kept)


def _refused_at_once(call: Callable[[], Any], within_s: float = 5.0) -> MnemoError:
    """Run `call` in a thread; it must raise a MnemoError well before `within_s`."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(within_s)
    assert not worker.is_alive(), "the import did not return (it blocks or reads without end)"
    assert outcome and isinstance(outcome[0], MnemoError), outcome
    return outcome[0]


def test_dev_zero_a_fifo_and_a_folder_are_refused_at_once(tmp_path: Path, tiny_profile: Profile, kept: int) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    for path, what in ((Path("/dev/zero"), "a device"), (fifo, "a device, pipe or socket"), (folder, "a folder")):
        error = _refused_at_once(lambda p=path: import_memories(tiny_profile.service, tiny_profile.vault, p))
        assert what in str(error), str(error)
    _untouched(tiny_profile, kept)


def test_an_export_never_replaces_a_device_a_fifo_or_a_folder(tmp_path: Path, tiny_profile: Profile) -> None:
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(fifo)
    for path in (fifo, folder, link):
        with pytest.raises(MnemoError):
            export_memories(tiny_profile.service, tiny_profile.vault, path)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and folder.is_dir() and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.json", "link.json", "pipe.json"], "no .part left"


def test_a_missing_file_is_a_clear_error(tmp_path: Path, tiny_profile: Profile) -> None:
    with pytest.raises(InputError, match="does not exist"):
        import_memories(tiny_profile.service, tiny_profile.vault, tmp_path / "nowhere.json")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path, tiny_profile: Profile, monkeypatch: pytest.MonkeyPatch) -> None:
    import assistant.memory.transfer_read as transfer_read

    monkeypatch.setattr(transfer_read, "MAX_FILE_BYTES", 1000)
    path = _write(tmp_path / "big.json", [{**GOOD, "id": i, "content": f"note {i}"} for i in range(1, 200)])
    with pytest.raises(ImportFileError, match="the limit is"):
        transfer_read.read_export_bytes(path, transfer_read.MAX_FILE_BYTES)


def _export_mode_while_writing(tiny_profile: Profile, path: Path, **kwargs: Any) -> set[int]:
    """The permission bits of every file the export creates in path's folder, seen while it
    writes (a progress callback looks) and after."""
    seen: set[int] = set()

    def look(_done: int, _total: int) -> None:
        for entry in path.parent.iterdir():
            seen.add(stat.S_IMODE(entry.stat().st_mode))

    export_memories(tiny_profile.service, tiny_profile.vault, path, progress=look, **kwargs)
    seen.add(stat.S_IMODE(path.stat().st_mode))
    return seen


def test_exports_are_owner_only_from_the_first_byte(tmp_path: Path, tiny_profile: Profile) -> None:
    item = tiny_profile.vault.put("phone", "13812345678", "138****5678", 1.0)
    tiny_profile.service.add(NewMemory(f"my phone 138****5678 [vault #{item}]", Category.IDENTIFIER, vault_ids=[item]))
    old = os.umask(0o022)
    try:
        (tmp_path / "plain").mkdir()
        (tmp_path / "sealed").mkdir()
        plain = _export_mode_while_writing(tiny_profile, tmp_path / "plain" / "export.json")
        sealed = _export_mode_while_writing(
            tiny_profile, tmp_path / "sealed" / "export.json", include_sensitive=True, passphrase="a long passphrase"
        )
    finally:
        os.umask(old)
    assert plain == {0o600} and sealed == {0o600}, (plain, sealed)
    text = (tmp_path / "sealed" / "export.json").read_text(encoding="utf-8")
    assert "13812345678" not in text and '"sealed"' in text


def test_a_sealed_export_needs_its_passphrase(tmp_path: Path, tiny_profile: Profile, open_tiny: Callable[[], Profile]) -> None:
    item = tiny_profile.vault.put("phone", "13812345678", "138****5678", 1.0)
    tiny_profile.service.add(NewMemory(f"my phone 138****5678 [vault #{item}]", Category.IDENTIFIER, vault_ids=[item]))
    path = tmp_path / "export.json"
    export_memories(tiny_profile.service, tiny_profile.vault, path, include_sensitive=True, passphrase="a long passphrase")
    with pytest.raises(InputError, match="passphrase"):
        export_memories(tiny_profile.service, tiny_profile.vault, tmp_path / "x.json", include_sensitive=True)
    tiny_profile.forget_me()
    service, vault = tiny_profile.service, tiny_profile.vault
    with pytest.raises(PassphraseNeeded):
        import_memories(service, vault, path)
    with pytest.raises(WrongPassphrase):
        import_memories(service, vault, path, passphrase="not the passphrase")
    assert service.store.total() == 0 and vault.items() == []
    report = import_memories(service, vault, path, passphrase="a long passphrase")
    assert report.imported == 1 and report.vault_values == 1
    memory = service.store.list()[0]
    assert memory.vault_ids and vault.get(memory.vault_ids[0]) == "13812345678"
    assert f"[vault #{memory.vault_ids[0]}]" in memory.content


def test_a_sealed_value_moved_to_another_memory_is_refused(tmp_path: Path, tiny_profile: Profile) -> None:
    for n in (1, 2):
        item = tiny_profile.vault.put("phone", f"1381234567{n}", f"138****567{n}", 1.0)
        tiny_profile.service.add(NewMemory(f"phone {n} [vault #{item}]", Category.IDENTIFIER, vault_ids=[item]))
    path = tmp_path / "export.json"
    export_memories(tiny_profile.service, tiny_profile.vault, path, include_sensitive=True, passphrase="a long passphrase")
    lines = path.read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[1]), json.loads(lines[2].lstrip(","))
    first["sensitive"][0]["sealed"], second["sensitive"][0]["sealed"] = second["sensitive"][0]["sealed"], first["sensitive"][0]["sealed"]
    lines[1], lines[2] = json.dumps(first), "," + json.dumps(second)
    path.write_text("\n".join(lines), encoding="utf-8")
    tiny_profile.forget_me()
    with pytest.raises(ImportFileError, match="altered") as caught:
        import_memories(tiny_profile.service, tiny_profile.vault, path, passphrase="a long passphrase")
    assert caught.value.line == 2
    assert tiny_profile.store.total() == 0
