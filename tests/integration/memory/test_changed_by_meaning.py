"""A change no rule recognises, found by the change classifier (`memory/changes.py`): it
replaces the user's older statement nearest to it in meaning, and nothing when the message
changes nothing of theirs."""

from __future__ import annotations

from datetime import timedelta

from assistant.app import Profile
from assistant.clock import ManualClock
from assistant.memory.types import Action, Change, Status, Turn


def say(profile: Profile, clock: ManualClock, text: str) -> list[Change]:
    clock.advance(timedelta(days=9))
    return profile.writer.remember([Turn("user", text, clock.now())], clock.now(), confirm_forget=True).changes


def active(profile: Profile) -> str:
    return "\n".join(m.content for m in profile.store.list(status=Status.ACTIVE, limit=200))


def test_a_change_no_rule_recognises_replaces_the_nearest_statement(profile: Profile, clock: ManualClock) -> None:
    # (a pair of updates-a, which the classifier is fitted on: this tests the write path's use
    # of it; how far it reaches messages it never saw, the blind pair files measure)
    say(profile, clock, "我不吃辣 一点都不行 胃不好")
    changes = say(profile, clock, "在重庆待了半年 火锅必须红汤 清汤那是给人吃的吗😂")
    assert "我不吃辣" not in active(profile)
    assert "胃不好" in active(profile)  # what else was told beside it stays
    assert any("我不吃辣" in m.content for m in profile.store.list(status=Status.SUPERSEDED))  # history keeps it
    update = next(c for c in changes if c.action is Action.UPDATE)
    assert update.reason == "a change nearest in meaning"
    # undone like any update: the new statement goes and what it replaced is current again
    profile.memories.undo(update)
    assert update.replaced_id is not None
    assert profile.store.get_many([update.replaced_id])[update.replaced_id].status is Status.ACTIVE
    assert "清汤那是给人吃的吗" not in active(profile)
    # all it replaced, the fact distilled from the statement with it
    assert not profile.store.list(status=Status.SUPERSEDED)
    assert "用户不吃辣" in active(profile)


def test_the_message_as_the_user_typed_it_tells_the_change(profile: Profile, clock: ManualClock) -> None:
    # (written for this test: in no pair file) "咖啡戒了" is not kept as a statement of its own; the
    # message as typed tells the change, and as a whole it is nearest to the habit it ends
    say(profile, clock, "每天早上喝两杯美式")
    changes = say(profile, clock, "咖啡戒了 心慌受不了 早上喝点啥提神")
    assert "两杯美式" not in active(profile)
    assert any("两杯美式" in m.content for m in profile.store.list(status=Status.SUPERSEDED))
    assert any(c.action is Action.UPDATE and c.reason == "a change nearest in meaning" for c in changes)


def test_someone_elses_change_or_one_only_considered_replaces_nothing(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我在读研 导师特别push")
    say(profile, clock, "我表妹答辩过了 请我吃饭")
    say(profile, clock, "I'm a paralegal at Halden & Co, my dog Rex is 3")
    say(profile, clock, "thinking about what a new firm would pay, any idea?")
    stored = active(profile)
    assert all(fact in stored for fact in ("我在读研", "导师特别push", "Halden", "Rex"))
    assert not profile.store.list(status=Status.SUPERSEDED, limit=10)


def test_a_plain_statement_replaces_nothing(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "I work as a dental hygienist in Bristol")
    say(profile, clock, "my partner Sam is a chef, we have two cats")
    assert not profile.store.list(status=Status.SUPERSEDED, limit=10)


def test_a_change_the_embedding_model_cannot_place_replaces_the_statement_of_its_part_of_life(
    profile: Profile, clock: ManualClock
) -> None:
    # (written for this test: in no pair file) the bundled English model finds nothing of the
    # courier job near the new one in Chinese; the text classifier files both under work, and
    # the message is sure to tell of a change. Where the user lives, and their pet, stay.
    say(profile, clock, "我在顺丰送快递，干了五年了")
    say(profile, clock, "我住在宁波鄞州，家里养了只柯基叫豆包")
    changes = say(profile, clock, "上周正式去了中通的分拨中心上班，夜班有点熬人")
    stored = active(profile)
    assert "顺丰" not in stored
    assert all(fact in stored for fact in ("鄞州", "豆包", "中通"))
    assert any("顺丰" in m.content for m in profile.store.list(status=Status.SUPERSEDED))
    assert any(c.action is Action.UPDATE for c in changes)


def test_a_sure_change_of_a_part_with_many_values_needs_a_word_in_common(profile: Profile, clock: ManualClock) -> None:
    # a pet is one of several: the one named goes, the other stays (the text classifier files
    # both under pets; the cat shares no word with the message)
    say(profile, clock, "家里养了只柯基叫豆包")
    say(profile, clock, "还有一只橘猫叫年糕")
    say(profile, clock, "豆包走了，家里空落落的")
    stored = active(profile)
    assert "年糕" in stored
    assert "养了只柯基叫豆包" not in stored


def test_the_words_every_fact_starts_with_are_no_word_in_common(profile: Profile, clock: ManualClock) -> None:
    # (written for this test) "嗯 这就对了" agrees with the assistant's restatement, which gives the fact
    # "用户只用中文。"; sharing only "用户" with "用户希望回答简短。" does not make it a change of that
    now = clock.now()
    turns = [
        Turn("user", "以后回答我简短点 别整那么多一二三四的 直接说结论就行 还有别夹英文", now, session_id="s"),
        Turn("assistant", "好的，以后简短直接，只用中文。", now + timedelta(seconds=5), session_id="s"),
        Turn("user", "嗯 这就对了", now + timedelta(seconds=20), session_id="s"),
    ]
    for i in (0, 2):
        clock.set(turns[i].at)
        profile.writer.remember(turns[: i + 1], turns[i].at, confirm_forget=True)
    assert "用户希望回答简短" in active(profile)
    assert not profile.store.list(status=Status.SUPERSEDED, limit=10)


def test_a_wish_beside_a_change_sets_aside_only_its_own_clause(profile: Profile, clock: ManualClock) -> None:
    # (written for this test) "想去领养一只猫" is only a wish; the rest of the message tells a change
    say(profile, clock, "我对猫毛过敏，一碰就打喷嚏")
    say(profile, clock, "去医院做了脱敏治疗，现在抱猫一点事都没有，医生说过敏已经好了！想去领养一只猫")
    assert "猫毛过敏" not in active(profile)
    assert any("猫毛过敏" in m.content for m in profile.store.list(status=Status.SUPERSEDED))


def test_what_the_same_message_said_of_a_one_value_part_goes_with_the_statement_it_ends(
    profile: Profile, clock: ManualClock
) -> None:
    # (written for this test: in no pair file) the new home is told by what it is like; the
    # classifier's path ends the statement of where the user lived, and the rest of that message
    # about the same home goes with it. The cat, of a part with many values, stays.
    say(profile, clock, "我住在墨尔本的 Box Hill，楼下就是超市，买菜方便，家里养了只猫叫年糕")
    say(profile, clock, "Doncaster 这边的 townhouse 大多了 就是离 train 站远")
    stored = active(profile)
    assert all(old not in stored for old in ("Box Hill", "楼下就是超市", "买菜方便"))
    assert all(new in stored for new in ("年糕", "Doncaster"))
    superseded = "\n".join(m.content for m in profile.store.list(status=Status.SUPERSEDED))
    assert "买菜方便" in superseded  # history keeps it
