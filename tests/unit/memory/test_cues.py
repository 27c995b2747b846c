from __future__ import annotations

import pytest

from assistant.memory.cues import (
    asks_about_plans,
    asks_for_identifier,
    asks_when,
    cue_slots,
    is_personal,
)


@pytest.mark.parametrize(
    ("query", "slot"),
    [
        ("can I eat satay sauce?", "user.allergy"),
        ("晚上想吃日料，有什么建议", "user.allergy"),
        ("周末附近有什么好玩的？", "user.city"),
        ("what's a good chew toy that's actually durable?", "user.pet"),
        ("what editor plugins should I try for python?", "user.tool"),
        ("can you suggest a workout routine for this week?", "user.health"),
        ("should I rent a car for the weekend?", "user.habit"),
        ("情人节给老婆准备点什么好", "user.family"),
        ("过年回老家要带点啥特产回去比较好", "user.hometown"),
        ("感冒发烧了 去诊所要注意啥", "user.allergy"),
        ("下个月要搬家，怎么让家里的小动物适应新环境", "user.pet"),
        ("双十一想买点数码产品，给点建议", "user.device"),
        ("春节要开长途回老家，路上要注意点啥", "user.vehicle"),
        ("I'm getting a 5k bonus next month, what should I do with it?", "user.finance"),
        ("明天要开三小时车 帮我弄个歌单", "user.likes"),  # the Chinese of "playlist"
        ("最近有什么好看的剧", "user.likes"),
        # how the user gets there, whose holiday, which computer, whose concert
        ("best way to get to the airport from my place?", "user.vehicle"),
        ("明天去机场 打车还是地铁", "user.vehicle"),
        ("春节回家的高铁票我该抢哪天的", "user.family"),
        ("what chores can my youngest realistically do", "user.family"),
        ("what's the easiest way to run a local llm on my machine?", "user.device"),
        ("最近有啥 concert 值得去看", "user.likes"),
    ],
)
def test_a_question_points_at_the_memories_it_needs(query: str, slot: str) -> None:
    assert slot in cue_slots(query)


@pytest.mark.parametrize("query", ["what is 17 times 23?", "翻译一下 hello", "怎么写周报比较有条理"])
def test_a_question_that_needs_no_memory_has_no_cue(query: str) -> None:
    assert cue_slots(query) == set()


def test_questions_about_what_lies_ahead() -> None:
    assert asks_about_plans("what's coming up next week?") and asks_about_plans("这周要准备些什么")
    assert not asks_about_plans("what is the capital of France?")
    # when a thing is: the recaller takes the user's plans only when the user is in the question
    # or it names the plan
    assert asks_when("when is the wedding?") and asks_when("how many weeks do i have left to finalize the guest list?")
    assert asks_when("婚礼是几号来着") and not asks_about_plans("秦朝是什么时候统一的")


def test_a_programming_question_is_not_about_the_users_tools() -> None:
    assert cue_slots("how do I reverse a string in python?") == set()


@pytest.mark.parametrize(
    "query",
    [
        "draft a one-line LinkedIn headline for me",
        "dessert ideas for a date night at home?",
        "what should I eat less of?",
        "帮我写个两三句的自我介绍",
        "想买张新的办公椅，怎么挑",
        "recommend a podcast for my commute",
        # Chinese asks for everyday advice without a subject, and English in a few short shapes
        "周五去露营要带点啥",
        "周五面试穿啥",
        "晚上聚餐点什么菜比较好",
        "下班后能喝奶茶不",
        "any brunch spots worth trying?",
        "best way to get to the airport from here?",
    ],
)
def test_personal_requests(query: str) -> None:
    assert is_personal(query)


@pytest.mark.parametrize(
    "query",
    [
        "17乘以23等于多少",
        "翻译一下 hello world",
        "what's the capital of Australia?",
        "convert 72 fahrenheit to celsius",
        "how do I reverse a string in python?",
        "把 'I'll be there in five minutes' 翻成中文",
        "Can you show me a Python function to convert Celsius to Fahrenheit?",
        "tell me a joke",
        "一英尺等于多少厘米",
        "'再见' 用法语怎么说",
        "JavaScript 里怎么把字符串转成数字比较好",
        "What suggestions did Ana give Tom for his knee?",
    ],
)
def test_questions_anyone_could_ask(query: str) -> None:
    assert not is_personal(query)


def test_a_question_for_a_number_the_user_gave() -> None:
    assert asks_for_identifier("那个净化器的单号发我一下")
    assert asks_for_identifier("what was my tracking number again?")
    assert not asks_for_identifier("周末去哪玩")
