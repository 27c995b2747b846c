"""Who a clause is about, and whose memories a request may use."""

from __future__ import annotations

import pytest

from assistant.memory.people import ANYONE, about_someone_else, admits, people_asked, people_in


@pytest.mark.parametrize(
    "clause",
    [
        "我妹九月去东京读研",
        "我 roommate Kevin 在 Google 上班",  # code-switched: the relation in English
        "我的 boss 最近开始吃素",
        "旁边那个大哥看到一半睡着了还打呼",  # a stranger
        "my roommate Kevin works at Google",
        "the guy next to me was snoring",
        "她不会英文",
        # strangers, after a lead-in or with a word before them
        "the Uber driver told me all about his son's wedding",
        "Grab driver 跟我聊了 40 分钟他女儿的婚礼",
        "对了楼下那只流浪猫又生了一窝小猫",
        "a stray cat had kittens under our porch",
        "today my boss yelled at the whole team",
        "我的boss说下周要出差",  # no spaces round the English word
    ],
)
def test_a_clause_about_someone_else(clause: str) -> None:
    assert about_someone_else(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "我在武汉", "楼下新开了一家咖啡馆", "对了我在学游泳", "man, what a day", "I am the driver", "医生说是慢性胃炎，要我三餐规律", "my doctor says I'm anaemic", "I teach year 4",
        "朋友送了我一只柯基", "my brother got me a bike for my birthday",  # what the user was given is theirs
    ],
)
def test_a_clause_about_the_user(clause: str) -> None:
    assert not about_someone_else(clause)


def test_a_request_names_whom_it_is_about() -> None:
    assert people_asked("周末带爸妈去哪玩比较好") == {"parent"}
    assert people_asked("what should I cook for my sister?") == {"sibling"}
    assert people_asked("what should we cook tonight") == ANYONE
    assert people_asked("还有其他推荐吗") == frozenset()  # 其他 is "other", not "him"
    assert people_in("我 roommate 说她要 go keto") == {"home"}
    # a child or a partner said without the word for them
    assert people_asked("what chores can my youngest realistically do") == {"child"}
    assert "child" in people_asked("下周 parent-teacher meeting 要准备啥")
    assert people_asked("给孕妇煲个汤 放点什么好") == {"partner"}


def test_a_memory_about_someone_answers_only_a_request_about_them() -> None:
    sister = "我妹九月去东京读研"
    assert not admits(sister, people_asked("周末带爸妈去哪玩"))
    assert admits(sister, people_asked("我妹生日送什么"))
    assert admits(sister, people_asked("我们周末去哪"))
    assert not admits(sister, people_asked("推荐点零食"))
    assert admits("我住在武汉", frozenset())  # the user's own, always
    assert admits("她不会英文 and 膝盖不好", people_asked("plan a day out for my mom"))  # whoever "she" is


def test_a_breed_is_a_pet() -> None:
    assert people_in("取名叫可乐的柯基") == {"pet"}
    assert people_in("our greyhound Noodle") == {"pet"}



def test_words_for_a_group_said_another_way() -> None:
    assert people_asked("儿童节快到了，送什么礼物好") == {"child"}
    assert people_asked("周末带老人出去转转") == {"parent"}
    assert people_asked("周末家里聚餐，帮我想几个菜") == ANYONE  # a meal with others: any of them may matter


def test_taking_someone_somewhere_is_not_a_gift() -> None:
    assert about_someone_else("我哥送我妈去医院了")
    assert not about_someone_else("我哥送了我一台相机")


def test_a_pet_named_with_its_owner_is_the_owners() -> None:
    from assistant.memory.people import about_someone_else, admits, people_asked

    assert about_someone_else("哈哈 我同事家那只柯基叫旺财") and about_someone_else("唉，我朋友小王刚离婚")
    assert not admits("哈哈 我同事家那只柯基叫旺财", people_asked("家里猫掉毛好严重"))
    assert admits("哈哈 我同事家那只柯基叫旺财", people_asked("我同事的狗叫什么"))
    assert admits("我家狗子叫可乐", people_asked("狗粮推荐"))


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("my friend raj 刚拿到 johns hopkins 的 offer", ["raj"]),
        ("my boss Dana is vegan", ["Dana"]),
        ("Raj (my roommate) hates cilantro", ["Raj"]),
        ("my sister, Mei, lives in Ohio", ["Mei"]),
        ("我同事叫周婷", ["周婷"]),
        ("闺蜜Anna对花生过敏", ["Anna"]),
        ("my mom loves gardening", []),  # what she does, not her name
        ("my friend is coming over", []),
        ("我朋友刚拿到offer", []),  # no 叫: 刚拿到 is no name
        ("我朋友raj说他对nuts过敏", ["raj"]),  # no spaces round the English words
    ],
)
def test_a_person_named_by_who_they_are(text: str, names: list[str]) -> None:
    from assistant.memory.people import named_people

    assert named_people(text) == names


def test_a_pronoun_refers_back() -> None:
    from assistant.memory.people import refers_back

    assert refers_back("但是他对 nuts 过敏") and refers_back("she hates cilantro")
    assert not refers_back("他们走了") and not refers_back("the shell was empty")
    # someone else named first is whom the pronoun means
    assert not refers_back("my mom says she can't come") and not refers_back("我妈说她不来了")
    assert refers_back("他和他女朋友分手了")


@pytest.mark.parametrize(
    ("text", "alone"),
    [
        ("我闺蜜小雨海鲜过敏", True),
        ("我 roommate 说她要 go keto，家里以后不能囤零食了 lol", True),
        ("他说那边 rent 超贵，一个 studio 要 3000 新币", True),
        ("my roommate is going keto", True),
        ("他走了可能他手上的活都得我接", False),  # the user takes over the work
        ("my sister thinks I should move to Berlin", False),
        ("朋友送了我一只柯基", False),  # given to the user: the user's
        ("我对花生过敏", False),  # the user's own
        ("I'm allergic to peanuts", False),
    ],
)
def test_what_is_about_others_alone(text: str, alone: bool) -> None:
    from assistant.memory.people import about_others_only

    assert about_others_only(text) is alone


def test_a_request_that_names_them() -> None:
    from assistant.memory.people import names_them

    assert names_them("my friend raj hates cilantro", "cooking for Raj tonight, any ideas?")
    assert names_them("我闺蜜小雨海鲜过敏", "小雨来我家吃饭，做什么菜好")
    assert not names_them("我闺蜜小雨海鲜过敏", "我对什么过敏吗")
    assert not names_them("我哥今天搬家", "今天吃什么")  # one character is no word to name by


def test_someone_said_in_english_starts_a_chinese_clause() -> None:
    from assistant.memory.people import about_someone_else, user_takes_part

    assert about_someone_else("my dad 住院了") and about_someone_else("my roommate 说她要 go keto")
    assert not about_someone_else("my 新工作 starts monday")
    assert user_takes_part("对了我在南昌一家医院当护士") and not user_takes_part("好尴尬")
