"""Things by their kind: which kinds a clause names, and whether it says one went or came."""

from __future__ import annotations

import pytest

from assistant.memory.things import arrived_kinds, gone_kinds, kinds_in


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("my laptop's an old Dell XPS 13", {"laptop"}),
        ("我戴的是小米手环7", {"watch"}),
        ("we have a ferret called Ziggy", {"small pet"}),
        ("我家那只老柯基", {"dog"}),
        ("每天骑小电驴上班", {"scooter"}),
        ("I play an old Squier strat", {"instrument"}),
        # ordinary words are no kinds
        ("trying to keep fit and play golf", set()),
        ("the band played till midnight", set()),
        ("we had fish for dinner", set()),
    ],
)
def test_kinds_in(text: str, kinds: set[str]) -> None:
    assert kinds_in(text) == kinds


@pytest.mark.parametrize(
    ("clause", "message", "kinds"),
    [
        ("sold the old tablet on ebay", "sold the old tablet on ebay", {"tablet"}),
        ("把那只虎皮鹦鹉托付给楼下王阿姨了", "搬家带不走 把那只虎皮鹦鹉托付给楼下王阿姨了", {"small pet"}),
        ("电驴被偷了", "电驴被偷了 以后坐地铁", {"scooter"}),
        # "the old one" takes its kind from the message
        ("旧的挂闲鱼了", "新表到了 Coros Pace 3 续航好强 旧的挂闲鱼了", {"watch"}),
        ("原来那台给我妈了", "刚入了个小米手机 原来那台给我妈了", {"phone"}),
        ("airpods丢了", "airpods丢了 好心疼", {"headphones"}),
        ("把旧自行车转卖了", "把旧自行车转卖了", {"bike"}),
        ("returned it, the watch was too big", "returned it, the watch was too big", {"watch"}),
        # a kind with nothing gone
        ("my phone is so slow", "my phone is so slow", set()),
        ("给我妈买手机", "给我妈买手机", set()),
    ],
)
def test_gone_kinds(clause: str, message: str, kinds: set[str]) -> None:
    assert gone_kinds(clause, message) == kinds


@pytest.mark.parametrize(
    ("clause", "kinds"),
    [
        ("framework laptop arrived!!", {"laptop"}),
        ("生日收到了一块华为手表", {"watch"}),
        ("picked up my first car today! 2016 Golf", {"car"}),
        ("just got a Pixel 9, the camera is wild", {"phone"}),
        ("treated myself to a kindle", {"tablet"}),
        # one of a kind people have several of, a second one, a present, no arrival
        ("new headphones arrived", set()),
        ("the new puppy arrived", set()),
        ("我也买了个新的平板", set()),
        ("got a new phone for my mom", set()),
        ("给我妈买了个新手机", set()),
        ("my laptop keeps crashing", set()),
    ],
)
def test_arrived_kinds(clause: str, kinds: set[str]) -> None:
    assert arrived_kinds(clause) == kinds
