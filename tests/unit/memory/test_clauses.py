"""Splitting a message into clauses: zh, en and mixed text, offsets exact."""

from __future__ import annotations

import pytest

from assistant.memory.clauses import split_clauses, subjectless


def texts(message: str) -> list[str]:
    return [c.text for c in split_clauses(message)]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("我叫王磊，住在武汉，对海鲜过敏。", ["我叫王磊", "住在武汉", "对海鲜过敏"]),
        ("Hi! I'm Priya Raman, I teach chemistry at a school in Leeds.",
         ["Hi", "I'm Priya Raman", "I teach chemistry at a school in Leeds"]),
        # a space around a Latin word in Chinese text is not a cut
        ("我现在在一家叫 Lumora 的电商公司做 QA engineer", ["我现在在一家叫 Lumora 的电商公司做 QA engineer"]),
        # the days of "周一、三、五" are one clause; a list of things is still cut
        ("我周一、三、五去游泳", ["我周一、三、五去游泳"]),
        ("我喜欢苹果、香蕉", ["我喜欢苹果", "香蕉"]),
        ("My doctor says I have 轻度脂肪肝 (mild fatty liver)，要我每周运动150分钟",
         ["My doctor says I have 轻度脂肪肝 (mild fatty liver)", "要我每周运动150分钟"]),
        # what follows a comma and "so please" is addressed to the assistant
        ("I'm a resident in Cincinnati, so please forgive me if I disappear",
         ["I'm a resident in Cincinnati", "please forgive me if I disappear"]),
        # a name starts a new statement
        ("sorry if I'm slow to reply, Biscuit (my beagle) keeps stealing my socks",
         ["sorry if I'm slow to reply", "Biscuit (my beagle) keeps stealing my socks"]),
        # a day alone goes with what happens then
        ("婚礼终于定了！10 月 2 号，在苏州的园林酒店，大概请 150 个人", ["婚礼终于定了", "10 月 2 号，在苏州的园林酒店", "大概请 150 个人"]),
        ("我们要去成都玩, next friday", ["我们要去成都玩, next friday"]),
        ("on March 3rd, I start at Google", ["on March 3rd, I start at Google"]),
        # what is told, then what is only imagined
        ("also he's a huge f1 fan so maybe i'll bribe him with a meme", ["also he's a huge f1 fan", "maybe i'll bribe him with a meme"]),
        # a request typed straight after a statement, after an emoji or with no stop at all
        ("senior at UC Davis doing enology 🍇 can u explain malolactic fermentation", ["senior at UC Davis doing enology 🍇", "can u explain malolactic fermentation"]),
        ("got promoted 🎉 how do i ask for a raise", ["got promoted 🎉", "how do i ask for a raise"]),
        ("i work night shifts at a bakery can you suggest a sleep schedule", ["i work night shifts at a bakery", "can you suggest a sleep schedule"]),
        ("I wonder if you can help", ["I wonder if you can help"]),
        ("my doctor said I can eat eggs", ["my doctor said I can eat eggs"]),
    ],
)
def test_clauses(message: str, expected: list[str]) -> None:
    assert texts(message) == expected


def test_clauses_about_someone_else_stay_together() -> None:
    assert texts("娃今年上一年级了，叫小满，数学还行。推荐几本课外书吧") == ["娃今年上一年级了，叫小满，数学还行", "推荐几本课外书吧"]
    assert texts("我家狗子叫可乐，柯基，两岁了") == ["我家狗子叫可乐，柯基，两岁了"]
    assert texts("我老婆是护士，在协和上班") == ["我老婆是护士，在协和上班"]


def test_a_name_or_an_age_after_a_pet_or_a_person_just_brought_in_is_theirs() -> None:
    # "叫黄豆" alone read as the user's name; "今年五岁" as the user's age
    assert texts("我养了只玄凤鹦鹉，叫黄豆") == ["我养了只玄凤鹦鹉，叫黄豆"]
    assert texts("我有个女儿，叫朵朵，今年五岁") == ["我有个女儿，叫朵朵，今年五岁"]
    assert texts("家里有只猫，三岁了，叫咪咪") == ["家里有只猫，三岁了，叫咪咪"]
    assert texts("我家养了两只狗，大黄和小白") == ["我家养了两只狗，大黄和小白"]
    assert texts("家里有只仓鼠叫芒果 两岁了 女儿天天抱")[0] == "家里有只仓鼠叫芒果 两岁了"
    # the user's own name and age stay the user's
    assert texts("我今年三十岁，叫李明") == ["我今年三十岁", "叫李明"]
    assert texts("我叫王磊，住在武汉") == ["我叫王磊", "住在武汉"]


def test_a_question_is_not_joined_to_a_statement_about_someone_else() -> None:
    assert texts("她不会英文，走不了太多路，有什么适合她的活动？")[-1] == "有什么适合她的活动？"


def test_a_compound_subject_is_one_clause() -> None:
    assert texts("My wife Priya and I just closed on a townhouse in Boulder") == [
        "My wife Priya and I just closed on a townhouse in Boulder"
    ]


def test_offsets_point_into_the_message() -> None:
    message = "hey! 我叫林晓雨，住在成都，对花生过敏。I also run marathons, and I love it here"
    for clause in split_clauses(message):
        assert message[clause.start : clause.end] == clause.text


def test_the_users_own_clauses_continue_the_subject() -> None:
    clauses = split_clauses("我叫王磊，住在武汉，对海鲜过敏")
    assert subjectless(clauses) == [False, True, True]
