"""Synthetic but varied memories for benchmarks (English and Chinese, many topics)."""

from __future__ import annotations

import random

_PEOPLE = ["my sister", "my boss", "Anna", "my son Leo", "our neighbour", "Dr. Wu", "my dad", "Priya", "Tom", "my wife"]
_PLACES = ["Berlin", "Hangzhou", "Lisbon", "Osaka", "Denver", "Chengdu", "Toronto", "Nairobi", "Lyon", "Xi'an"]
_THINGS = ["sourdough", "climbing", "PostgreSQL", "jazz", "the Kindle", "oat milk", "Rust", "watercolour", "tennis", "ramen",
           "the garden", "a used Corolla", "the piano", "Kubernetes", "bird watching", "marathon training"]
_EN = [
    "I started {t} last {m} and {p} thinks it's great",
    "{p} is moving to {c} in {m}",
    "we decided to go with {t} for the new project",
    "I really don't enjoy {t} anymore",
    "{p} recommended a place in {c} for {t}",
    "remember that {p} hates {t}",
    "my flight to {c} got moved to {m}",
    "I spent the weekend on {t} with {p}",
]
_ZH_PLACES = ["北京", "杭州", "成都", "上海", "深圳", "西安", "南京", "厦门", "武汉", "苏州"]
_ZH_THINGS = ["跑步", "咖啡", "钢琴", "摄影", "火锅", "登山", "Python", "羽毛球", "书法", "烘焙", "游泳", "茶"]
_ZH_PEOPLE = ["我妈", "我老婆", "小王", "我同事", "我儿子", "张老师", "我哥", "室友"]
_ZH = [
    "我最近在学{t}，{p}说挺适合我",
    "{p}下个月要去{c}出差",
    "我们最后决定用{t}",
    "我现在不太喜欢{t}了",
    "{p}推荐我去{c}看看",
    "记住{p}不吃{t}",
    "周末和{p}一起去{c}玩了",
]
_MONTHS = ["January", "March", "May", "July", "September", "November"]


def memories(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if rng.random() < 0.5:
            text = rng.choice(_EN).format(p=rng.choice(_PEOPLE), c=rng.choice(_PLACES), t=rng.choice(_THINGS), m=rng.choice(_MONTHS))
        else:
            text = rng.choice(_ZH).format(p=rng.choice(_ZH_PEOPLE), c=rng.choice(_ZH_PLACES), t=rng.choice(_ZH_THINGS))
        out.append(f"{text} (#{i})" if rng.random() < 0.3 else text)
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    pool = [
        "what does {p} think about {t}?", "any plans in {c}?", "what did we decide for the project?",
        "{p}最近怎么样", "我在{c}有什么安排", "推荐点和{t}有关的", "where is {p} moving?", "上次说的{t}是什么",
    ]
    return [
        rng.choice(pool).format(p=rng.choice(_PEOPLE + _ZH_PEOPLE), c=rng.choice(_PLACES + _ZH_PLACES), t=rng.choice(_THINGS + _ZH_THINGS))
        for _ in range(n)
    ]
