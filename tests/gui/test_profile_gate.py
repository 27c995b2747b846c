"""The profile gate: forget-me waits for the work running on the profile and keeps new work
out until it is done; its own thread (a change listener) may call back in."""

from __future__ import annotations

import threading

from ui.profile_gate import ProfileGate


def _when(gate: ProfileGate, test: str) -> None:
    """Wait (on the gate's own condition, no sleep) until `test` holds for its state."""
    with gate._changed:
        assert gate._changed.wait_for(lambda: bool(getattr(gate, test)), timeout=10)


def test_forget_me_waits_for_running_work_and_new_work_waits_for_it() -> None:
    gate = ProfileGate()
    order: list[str] = []
    inside, release = threading.Event(), threading.Event()

    def running() -> None:
        with gate.shared():
            inside.set()
            assert release.wait(10)
            order.append("running work ends")

    def forget() -> None:
        with gate.alone():
            order.append("forget-me")
            with gate.shared():  # a listener of the change, on forget-me's thread
                order.append("its listener")

    def later() -> None:
        with gate.shared():
            order.append("work asked for meanwhile")

    threads = [threading.Thread(target=running)]
    threads[0].start()
    assert inside.wait(10)
    threads.append(threading.Thread(target=forget))
    threads[1].start()
    _when(gate, "_waiting")  # forget-me waits for the running work
    threads.append(threading.Thread(target=later))
    threads[2].start()
    release.set()
    for thread in threads:
        thread.join(10)
        assert not thread.is_alive()
    assert order == [
        "running work ends", "forget-me", "its listener", "work asked for meanwhile",
    ]
