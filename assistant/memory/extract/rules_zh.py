"""Chinese rules: one function per kind of fact, each reading one sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

from assistant.memory.extract.common import (
    FAMILY_ZH,
    Sentence,
    clean,
    forget_slot,
    looks_like_injection,
    make,
    slot_key,
    zh_city_in,
    zh_place,
)
from assistant.memory.timewords import future_date
from assistant.memory.types import Candidate, Category

Rule = Callable[[Sentence, datetime], Iterator[Candidate]]

_CJK = r"\u4e00-\u9fff"
_NAME = rf"[A-Za-z][A-Za-z.'\-]{{0,20}}(?: [A-Z][A-Za-z.'\-]{{0,20}})?|[{_CJK}·]{{1,5}}"
_NAME_STOP = re.compile(r"(?:今年|今天|就行|就好|就可以|吧|吗|呢|是|在|也|和|跟|来自|住|，|,|啊|呀|哦|嘛|了).*$")
_NOT_NAMES = frozenset("外卖 车 人 醒 你 他 她 它 快递 救护车 上 来 过 好 出来 什么 啥 滴滴 出租车 师傅 服务员".split())
_ITEM = r"([^，。！？,.!?；;\s]{1,16})"


def _zh_name(raw: str) -> str | None:
    name = _NAME_STOP.sub("", raw).strip()
    if not name or name in _NOT_NAMES or "了" in raw[:2]:
        return None
    return name if not re.match(rf"[{_CJK}]", name) else name[:4]


def _name(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.search(rf"(?:我的名字(?:是|叫)|^(?:你好|您好|嗨|哈喽)?[，,]?我(?:的名字)?叫|^叫我|我名叫|大家都叫我)\s*({_NAME})", s.text)
    name = _zh_name(m.group(1)) if m else None
    if name:
        yield make(s, f"用户的名字是{name}。", Category.FACT, slot="user.name", value=name,
                   entities=[name], importance=5)


def _place_after(text: str) -> str | None:
    place = zh_place(text)
    if place is None:
        m = re.match(r"[A-Z][A-Za-z.\-]{1,30}(?: [A-Z][A-Za-z.\-]{1,30}){0,2}", text)
        place = m.group(0) if m else None
    return place


def _city(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    # "我上个月从北京搬到杭州了": a move names the old and the new place.
    m = re.search(r"我(?:们|们家|家)?.{0,8}?从(.{2,10}?)搬(?:家)?(?:到|去|回)(?:了)?(.{2,12})", t)
    if m and (place := _place_after(m.group(2))):
        yield make(s, f"用户住在{place}。", Category.FACT, slot="user.city",
                   value=place, entities=[place], importance=4, override=True)
        return
    m = re.search(r"我(?:们)?(?:已经|现在)?(?:不(?:再)?住在|不在)(.{2,8}?)(?:住|生活)?了", t)
    if m and (place := _place_after(m.group(1))):
        yield make(s, f"用户不再住在{place}。", Category.FACT, slot="user.city",
                   entities=[place], importance=4, override=True)
        return
    m = re.search(r"我(?:们|们家|家)?(?:现在|目前|一直|已经|还|也|刚|刚刚|去年|今年)?(?:住在|住|生活在|定居在|定居|搬到了|搬到|搬去了|搬去|搬家到|在)(?:了)?", t)
    if m:
        place = _place_after(t[m.end() :])
        verb = m.group(0)
        rest = t[m.end() + len(place) :] if place else ""
        works_there = verb.endswith("在") and not verb.endswith("住在") and not verb.endswith("生活在")
        if place and not (works_there and not re.match(r"(?:住|生活|定居|安家)", rest)):
            # Keep the district the user gave ("北京海淀区"): the slot value stays the city.
            detail = re.match(r"市?([\u4e00-\u9fff]{1,5}?[区县镇])", rest)
            where = place + (detail.group(1) if detail else "")
            yield make(s, f"用户住在{where}。", Category.FACT, slot="user.city", value=place,
                       entities=[place, where] if detail else [place], importance=4)
    m = re.search(r"我(?:是|来自|老家(?:是|在))(.{2,8}?)(?:人|的)?$|我是(.{2,6}?)人", t)
    if m and (place := _place_after(m.group(1) or m.group(2))):
        yield make(s, f"用户来自{place}。", Category.FACT, slot="user.hometown", value=place,
                   entities=[place], importance=3)


_JOB_SUFFIX = (
    "工程师|程序员|码农|老师|教师|医生|大夫|护士|律师|会计|学生|设计师|产品经理|项目经理|经理|"
    "研究员|科学家|记者|作家|厨师|司机|建筑师|分析师|教授|讲师|公务员|销售|运营|架构师|咨询师|顾问|"
    "自由职业者|创业者|老板|翻译|编辑|摄影师|警察|军人|农民|主播|实习生|研究生|博士生|大学生|"
    "中学生|高中生|初中生|小学生|全职妈妈|全职爸爸|家庭主妇|数据科学家|药剂师|公务员|快递员|外卖员|"
    "店长|主管|总监|测试|前端|后端|开发|HR|hr"
)


def _job(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    job: str | None = None
    m = re.search(rf"(?:我|[，,])(?:现在|目前|以前|已经)?是(?:一名|一个|个|名|一位|位)?([{_CJK}A-Za-z]{{0,8}}(?:{_JOB_SUFFIX}))", t)
    if m is None:
        m = re.search(rf"我(?:现在|目前)?(?:的工作是|的职业是|是做|做|干|当)([{_CJK}A-Za-z]{{1,8}}?)(?:的|工作)?$", t)
        if m and m.group(1) in ("饭", "菜", "梦", "作业", "饭的", "家务"):
            m = None
    if m:
        job = clean(m.group(1))
    if job and not job.startswith(("不", "在")):
        yield make(s, f"用户的职业是{job}。", Category.FACT, slot="user.job", value=job,
                   entities=[job], importance=4)
    m = re.search(rf"我(?:现在|目前|一直|刚)?在([A-Za-z][\w&.\- ]{{0,30}}?|[{_CJK}A-Za-z]{{2,12}}?)(?:工作|上班|实习|任职|当|做)", t)
    if m is None:
        m = re.search(rf"我(?:刚|已经|最近)?(?:入职了?|跳槽到了?|加入了?|去了)([A-Za-z][\w&.\-]{{0,30}}|[{_CJK}]{{2,10}}?)(?:公司|了|$|，|,)", t)
    if m:
        org = clean(m.group(1))
        if org and not org.startswith(("一家", "一个", "家里", "家")) and zh_city_in(org) != org and zh_place(org) != org:
            yield make(s, f"用户在{org}工作。", Category.FACT, slot="user.employer", value=org,
                       entities=[org], importance=4)
    m = re.search(rf"我(?:已经)?从([A-Za-z][\w&.\-]{{0,30}}|[{_CJK}]{{2,10}}?)(?:离职|辞职)", t)
    if m:
        yield make(s, f"用户已从{m.group(1)}离职。", Category.FACT, slot="user.employer",
                   entities=[m.group(1)], importance=4, override=True)


_REL = "|".join(sorted(FAMILY_ZH, key=len, reverse=True))
_PETS = "猫咪|小猫|猫|狗狗|小狗|狗|兔子|仓鼠|鹦鹉|乌龟|金鱼|鱼|柯基|柴犬|金毛|泰迪|哈士奇|布偶|英短|橘猫"
_COUNT = r"(?:一个|一只|一条|一头|两个|两只|三个|个|只|条|位)?"


def _family(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"我(?:的|家)?({_REL})(?:的名字)?(?:叫|名叫|是)\s*({_NAME})", t)
    if m is None:
        m = re.search(rf"我有{_COUNT}({_REL})[，,]?(?:她|他)?(?:叫|名叫)\s*({_NAME})", t)
    name = _zh_name(m.group(2)) if m else None
    if m and name and not re.match(rf"(?:{_JOB_SUFFIX}|一名|一个|个)", name):
        rel = m.group(1)
        yield make(s, f"用户的{rel}叫{name}。", Category.FACT, slot=f"user.family.{FAMILY_ZH[rel]}",
                   value=name, entities=[name, rel], importance=4)
        return
    m = re.search(rf"我有{_COUNT}({_REL})", t)
    if m:
        rel = m.group(1)
        yield make(s, f"用户有{m.group(0)[2:]}。", Category.FACT, slot=f"user.family.{FAMILY_ZH[rel]}",
                   entities=[rel], importance=4)


def _pet(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"我(?:家|们家)?(?:的)?(?:养了|有|养的|养着)?{_COUNT}({_PETS})[，,]?(?:的名字)?(?:叫|名叫)\s*({_NAME})", t)
    name = _zh_name(m.group(2)) if m else None
    if m and name:
        kind = m.group(1)
        yield make(s, f"用户养了一只{kind}，叫{name}。", Category.FACT, slot=f"user.pet.{name}",
                   value=name, entities=[name, kind], importance=3)
        return
    m = re.search(rf"我(?:家|们家)?(?:养了|养着|有){_COUNT}({_PETS})", t)
    if m:
        kind = m.group(1)
        yield make(s, f"用户养了{kind}。", Category.FACT, slot=f"user.pet.{kind}", value=kind,
                   entities=[kind], importance=3)


_ADV = r"(?:很|非常|特别|超|最|挺|真的|也|还|一直|超级|蛮|比较|可|贼|太)*"
_VERB = r"(?:吃|喝|看|玩|听|去|做|打)?"
_PRONOUNS = frozenset("你 您 他 她 它 你们 他们 她们 这个 那个 这样 那样 这 那".split())


def _likes(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"我最喜欢的([{_CJK}]{{1,6}}?)是{_ITEM}", t)
    if m:
        what, thing = m.group(1), clean(m.group(2))
        yield make(s, f"用户最喜欢的{what}是{thing}。", Category.PREFERENCE,
                   slot=f"user.favorite.{what}", value=thing, entities=[thing])
        return
    neg = re.search(rf"我{_ADV}(?:不喜欢|不爱|讨厌|受不了|反感|不再喜欢|不怎么喜欢|不太喜欢|烦){_VERB}{_ITEM}", t)
    pos = None if neg else re.search(rf"我{_ADV}(?:喜欢|爱|热爱|喜爱|迷上了|爱上了){_VERB}{_ITEM}", t)
    m = neg or pos
    if m is None:
        return
    thing = clean(m.group(1))
    if not thing or thing in _PRONOUNS or thing[0] in "你他她它" or re.match(r"(?:上你|和你|跟你)", thing):
        return
    key = slot_key(thing) if len(thing) <= 8 else None
    verb_text = m.group(0)[: m.start(1) - m.start(0)]
    if neg:
        content = f"用户{'不再' if t.rstrip().endswith('了') or '不再' in verb_text else '不'}喜欢{thing}。"
    else:
        content = f"用户喜欢{thing}。"
    yield make(s, content, Category.PREFERENCE, slot=f"user.likes.{key}" if key else None,
               value="no" if neg else "yes", entities=[thing], importance=3)


def _items(text: str) -> list[str]:
    return [clean(p) for p in re.split(r"和|、|跟|还有|以及|及|,|，|或者|或", text) if clean(p)]


def _diet(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"我(?:现在|已经|一直|从小)?(?:是|吃)(?:个|一个|一名)?(素食者|素食主义者|纯素食者|纯素|素|清真|全素)", t)
    if m:
        diet = "素食" if "素" in m.group(1) else m.group(1)
        yield make(s, f"用户{'吃素' if diet == '素食' else '饮食：' + diet}。", Category.PREFERENCE,
                   slot="user.diet", value=diet, entities=[diet], importance=4)
    m = re.search(r"我(?:现在|已经|一直|从来|从小)?(?:不吃|不能吃|不碰|戒了|忌口)([^，。！？,.!?；;\s]{1,16})", t)
    if m and m.group(1) not in ("饭", "了", "早饭", "早餐", "午饭", "晚饭") and not m.group(1).startswith("素"):
        for item in _items(m.group(1)):
            yield make(s, f"用户不吃{item}。", Category.PREFERENCE, slot=f"user.diet.avoid.{item}",
                       value="no", entities=[item], importance=4)
    m = re.search(r"我(?:对|吃)?([^，。！？,.!?；;\s我]{1,16}?)(?:严重|有点|有些)?过敏|我(?:有)?过敏(?:源是|的是)?([^，。！？,.!?；;\s]{1,16})", t)
    if m:
        for item in _items(m.group(1) or m.group(2)):
            item = re.sub(r"^(?:对|吃|有)", "", item)
            if item and item not in ("会", "很", "有点"):
                yield make(s, f"用户对{item}过敏。", Category.FACT, slot=f"user.allergy.{item}",
                           value=item, entities=[item], importance=5)


_LANGS = {"中文": "Chinese", "汉语": "Chinese", "普通话": "Chinese", "英文": "English", "英语": "English",
          "日语": "Japanese", "日文": "Japanese", "粤语": "Cantonese", "韩语": "Korean"}  # fmt: skip
_STYLE: tuple[tuple[str, str, str, str], ...] = (
    (r"(?:回答|回复|答案|说话|解释)(?:要|请|尽量|都|可以)?(?:简短|简洁|短一?点|短些|精简|简单一?点)|简短(?:一?点|些)|(?:别|不要)(?:太)?(?:啰嗦|长篇大论|写太长|说太多)|少说(?:点)?废话|言简意赅", "length", "short", "用户希望回答简短。"),
    (r"(?:回答|解释)(?:要|请|尽量)?(?:详细|具体)(?:一?点|些)?|(?:详细|具体)(?:一?点|些)(?:回答|解释)?$", "length", "detailed", "用户希望回答详细一些。"),
    (r"(?:别|不要|不用|不许|少|禁止)(?:再)?(?:用|发|加|带|放)?(?:表情|emoji|颜文字)", "emoji", "no", "用户不希望回复里用表情。"),
    (r"多(?:用|加|发)(?:点|一些)?(?:表情|emoji)", "emoji", "yes", "用户喜欢回复里用表情。"),
    (r"(?:别|不要|不用)(?:用)?(?:markdown|Markdown|MD格式)|纯文本", "format", "plain", "用户希望用纯文本回复。"),
    (r"(?:用|按)(?:列表|要点|分点)|分点(?:回答|列出)", "format", "bullets", "用户喜欢分点回答。"),
    (r"(?:正式|严肃|礼貌)一?(?:点|些)", "tone", "formal", "用户希望语气正式一些。"),
    (r"(?:随意|轻松|口语化|随便)一?(?:点|些)", "tone", "casual", "用户希望语气轻松随意。"),
)


def _reply_style(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?:用|说|讲)(中文|英文|英语|汉语|普通话|日语|日文|粤语|韩语)(?:来)?(?:回答|回复|回我|和我|跟我|交流|聊天|说话|写)|(?:回答|回复)(?:都)?(?:请)?用(中文|英文|英语|汉语|日语|粤语|韩语)", t)
    if m:
        word = m.group(1) or m.group(2)
        yield make(s, f"用户希望用{word}回复。", Category.PREFERENCE, slot="user.reply_style.language",
                   value=_LANGS[word], entities=[word], importance=4)
    done: set[str] = set()
    for rx, aspect, value, content in _STYLE:
        if aspect not in done and re.search(rx, t):
            done.add(aspect)
            yield make(s, content, Category.PREFERENCE, slot=f"user.reply_style.{aspect}",
                       value=value, importance=4)


def _entities(text: str) -> list[str]:
    found = re.findall(r"[A-Za-z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#]|[A-Za-z]*\d[A-Za-z0-9\-]*", text)
    city = zh_city_in(text)
    return ([city] if city else []) + [f for f in found if len(f) > 1][:8]


def _remember(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.match(r"(?:请|麻烦|你|那你|好的?[，,]?)?(?:能|可以|能不能|可不可以)?(?:要|帮我|给我|替我|得)?(?:记住|记一下|记下来|记下|记着|记好|记得|备忘|别忘了|不要忘了|不要忘记|别忘记)(?:了|一下|好)?(?:[:：，,]|这件事[:：，,]?)?\s*(.+)$", s.text)
    if m is None:
        return
    what = clean(re.sub(r"(?:好吗|可以吗|行吗|吗)[？?]?$", "", m.group(1)))
    if len(what) < 2 or looks_like_injection(what):
        return
    yield make(s, what + "。", Category.FACT, entities=_entities(what), importance=4,
               explicit=True, confidence=0.9)


_UNDECIDED = re.compile(r"没(?:有)?(?:决定|定|想好)|未定|还在考虑|要不要|不确定|犹豫|纠结")


def _decision(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    if _UNDECIDED.search(t):
        return
    m = re.search(r"(?:就|最后|最终|已经|还是)?(?:定(?:了|下来)?(?:用|为|成|在)|决定(?:了)?|敲定(?:了)?|拍板(?:了)?|选定(?:了)?|(?:我们|团队|大家|最后|最终|我)(?:选了|选择了|采用了|改用了?|换成了?)|(?:我们|团队|大家|最后|最终)用了)(.{1,60})$", t)
    if m is None:
        m = re.search(r"(?:结论是|最终方案是|方案定为)(.{1,60})$", t)
    if m is None:
        return
    what = clean(m.group(1))
    head = m.group(0)[: m.start(1) - m.start(0)]
    if head.startswith(("就定", "定", "最后定", "最终定")) and head.endswith("用"):
        what = "用" + what
    verb = re.search(r"(换成|改用|选了|选择了|采用了|用了)了?$", head)
    if verb:
        what = verb.group(1) + what
    if not what:
        return
    yield make(s, f"决定：{what}。", Category.CONCLUSION, entities=_entities(what), importance=4,
               override=bool(re.search(r"换成|改用|改成", head)))


_PLAN_CUE = re.compile(r"要|去|得|准备|打算|计划|约了|有个|有一个|出差|开会|考试|面试|航班|飞|回|截止|交|参加|见|搬|出发|旅游|旅行|生日|婚礼|聚会|体检|复查|手术|上学|开学|入职|报到|演出|发布")
_EVENT_ZH = re.compile(r"出差|开会|会议|考试|面试|航班|飞机|截止|婚礼|手术|体检|入职|发布|上线|答辩")


def _plan(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    if not _PLAN_CUE.search(t):
        return
    when = future_date(t, now)
    if when is None:
        return
    places: list[str] = []
    m = re.search(rf"(?:去|到|飞|回|飞往|前往)([{_CJK}]{{2,6}}?|[A-Z][A-Za-z]+)(?:出差|开会|玩|旅游|旅行|见|看|参加|办|找|上|面试|读书|$|，|,|。)", t)
    city = zh_city_in(t)
    if city:
        places.append(city)
    if m and m.group(1) not in places:
        places.append(m.group(1))
    day = when[0].strftime("%Y-%m-%d")
    if when[1].date() != when[0].date():
        day += "至" + when[1].strftime("%Y-%m-%d")
    ev = _EVENT_ZH.search(t)
    yield make(s, f"用户计划（{day}）：{t}。", Category.GOAL,
               entities=places + ([ev.group(0)] if ev else []), importance=4 if ev or places else 3,
               event_at=when[0], expires_at=when[1] + timedelta(days=1))


_ID_KINDS = "订单号|订单编号|快递单号|运单号|物流单号|工单号|取件码|预订号|预约号|确认号|预订码|航班号|票号|会员号|发票号|案件号|保单号|流水号|单号|工单|订单|编号"


def _identifier(s: Sentence, now: datetime) -> Iterator[Candidate]:
    for m in re.finditer(rf"({_ID_KINDS})\s*(?:是|为|:|：|=|#)?\s*#?([A-Za-z0-9][A-Za-z0-9\-_/]{{2,40}})", s.text):
        ident = m.group(2).rstrip("-_/")
        if not re.search(r"\d", ident) or len(ident) < 4:
            continue
        kind = m.group(1)
        yield make(s, f"用户的{kind}是{ident}。", Category.IDENTIFIER, value=ident,
                   entities=[ident, kind], importance=4, confidence=0.9)


_FORGET_VERB = r"忘掉|忘记|忘了|删掉|删了|删除|清除|抹掉|去掉|清掉"
_FORGET_TRIM = re.compile(r"^(?:关于|有关)?(?:我的|我)?|(?:的|相关的|有关的)?(?:记忆|信息|内容|事情|事|资料|数据|这件事|这个)?(?:吧|了|哈|啊|好吗|可以吗|吗)*$")


def _forget(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text.rstrip("？?！! ")
    m = re.match(rf"(?:请|麻烦|你)?(?:帮我|给我)?(?:把|将)(.{{1,30}}?)(?:给)?(?:{_FORGET_VERB})(?:吧|了|掉|哈)*$", t)
    if m is None:
        m = re.match(rf"(?:请|麻烦|你)?(?:帮我|给我)?(?:{_FORGET_VERB}|(?:别|不要|不用)再?(?:记着|记住|记得|记))(?:掉)?(?:关于|有关)?(.{{1,30}})$", t)
    if m is None:
        return
    target = _FORGET_TRIM.sub("", m.group(1)).strip()
    target = _FORGET_TRIM.sub("", target).strip()
    if not target or target in ("它", "这个", "那个", "吧", "了") or looks_like_injection(target):
        return
    yield make(s, target, Category.FACT, slot=forget_slot(target), importance=5, forget=True,
               explicit=True, confidence=0.9)


RULES: tuple[Rule, ...] = (
    _name, _city, _job, _family, _pet, _likes, _diet, _reply_style, _decision, _plan, _identifier,
)
EXPLICIT: tuple[Rule, ...] = (_forget, _remember)
