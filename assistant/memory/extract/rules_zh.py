"""Chinese rules: one function per kind of fact, each reading one sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime

from assistant.memory.extract.common import (
    FAMILY_ZH,
    WORLD_CITIES,
    Sentence,
    StyleRule,
    clean,
    forget_slot,
    looks_like_injection,
    make,
    reply_styles,
    slot_key,
    world_city,
    zh_city_in,
    zh_place,
)
from assistant.memory.timewords import future_date
from assistant.memory.types import Candidate, Category

Rule = Callable[[Sentence, datetime], Iterator[Candidate]]

_CJK = r"\u4e00-\u9fff"
# a Latin name, with a second Latin word or a Chinese surname after it ("Chloe 陈"), or a Chinese one
_NAME = rf"[A-Za-z][A-Za-z.'\-]{{0,20}}(?: [A-Z][A-Za-z.'\-]{{0,20}}| ?[{_CJK}](?![{_CJK}]))?|[{_CJK}·]{{1,5}}"
_NAME_STOP = re.compile(r"(?:今年|今天|就行|就好|就可以|吧|吗|呢|是|在|也|和|跟|来自|住|，|,|啊|呀|哦|嘛|了).*$")
_NOT_NAMES = frozenset("外卖 车 人 醒 你 他 她 它 快递 救护车 上 来 过 好 出来 什么 啥 滴滴 出租车 师傅 服务员".split())
_ITEM = r"([^，。！？,.!?；;\s]{1,16})"


def _zh_name(raw: str) -> str | None:
    name = _NAME_STOP.sub("", raw).strip()
    if not name or name in _NOT_NAMES or "了" in raw[:2]:
        return None
    return name if not re.match(rf"[{_CJK}]", name) else name[:4]


def _name(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.search(rf"(?:我的名字(?:是|叫)|^(?:(?:你好|您好|嗨|哈喽|(?i:hi|hello|hey))[，,！!～~\s]*)?我(?:的名字)?叫|^叫我|我名叫|大家都叫我)\s*({_NAME})", s.text)
    name = _zh_name(m.group(1)) if m else None
    if name:
        yield make(s, f"用户的名字是{name}。", Category.FACT, slot="user.name", value=name,
                   entities=[name], importance=5)


def _a_name_not_a_place(m: re.Match[str], place: str) -> bool:
    """"我是Kevin" introduces Kevin: a bare Latin word after 是 is a place only when it is a city
    (not after 来自, "我来自Lyon", nor before 人, "我是Texas人")."""
    said = m.group(0)
    bare = m.group(1) is not None and re.match(r"我是", said) is not None and not re.search(r"(?:人|的)$", said)
    return bare and place.isascii() and place.lower() not in WORLD_CITIES


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
    if m and (place := _place_after(m.group(1) or m.group(2))) and not _a_name_not_a_place(m, place):
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
    if m and m.group(0).endswith(("做", "当")) and re.match(r"了|过|个|一|运动|饭|菜|作业|家务|瑜伽|实验|手术|检查|生意|志愿|义工|梦", t[m.end() :]):
        m = None
    if m:
        org = clean(m.group(1))
        if org and not org.startswith(("一家", "一个", "家里", "家")) and zh_city_in(org) != org and zh_place(org) != org:
            yield make(s, f"用户在{org}工作。", Category.FACT, slot="user.employer", value=org,
                       entities=[org], importance=4)
    m = re.search(rf"我(?:{_WHEN})*从([A-Za-z][\w&.\-]{{0,30}}|[{_CJK}]{{2,10}}?)(?:离职|辞职)", t)
    if m:
        yield make(s, f"用户已从{m.group(1)}离职。", Category.FACT, slot="user.employer",
                   entities=[m.group(1)], importance=4, override=True)


_REL = "|".join(sorted(FAMILY_ZH, key=len, reverse=True))
_PETS = "猫咪|小猫|猫|狗狗|小狗|狗|兔子|仓鼠|鹦鹉|乌龟|金鱼|鱼|柯基|柴犬|金毛|泰迪|哈士奇|布偶|英短|橘猫"
_COUNT = r"(?:一个|一只|一条|一头|两个|两只|三个|个|只|条|位)?"


_ROMANTIC = frozenset("男朋友 女朋友 男友 女友 对象".split())


_FAM = {**FAMILY_ZH, "妈": "mother", "爸": "father", "老婆大人": "wife"}
_REL_ANY = "|".join(sorted(_FAM, key=len, reverse=True))


def _rel_slot(rel: str) -> str:
    """Boyfriend, girlfriend and 对象 share one slot, so "分手了" can supersede whichever it was."""
    return "user.family.partner" if rel in _ROMANTIC else f"user.family.{_FAM[rel]}"


def _family(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"我(?:的|家)?({_REL})(?:的名字)?(?:叫|名叫|是)\s*({_NAME})", t)
    if m is None:
        m = re.search(rf"我有{_COUNT}({_REL})[，,]?(?:她|他)?(?:叫|名叫)\s*({_NAME})", t)
    name = _zh_name(m.group(2)) if m else None
    # "我儿子是四年级" tells a grade, not a name
    if m and name and not re.match(rf"(?:{_JOB_SUFFIX}|一名|一个|个|[^，,\s]{{0,6}}(?:{_JOB_SUFFIX}))", name) \
            and not re.search(rf"年级|岁|个月|幼儿园|小学|初中|高中|大学|^{_NUM}", name):
        rel = m.group(1)
        yield make(s, f"用户的{rel}叫{name}。", Category.FACT, slot=_rel_slot(rel),
                   value=name, entities=[name, rel], importance=4)
        return
    m = re.search(rf"我有{_COUNT}({_REL})", t)
    if m:
        rel = m.group(1)
        yield make(s, f"用户有{m.group(0)[2:]}。", Category.FACT, slot=_rel_slot(rel),
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
    m = re.search(r"我(?:现在|已经|一直|从来|从小)?(不吃|不能吃|不太能吃|不怎么能吃|不大能吃|吃不了|吃不得|不敢吃|不太吃|不碰|戒了|忌口)([^，。！？,.!?；;\s]{1,16})", t)
    if m and m.group(2) not in ("饭", "了", "早饭", "早餐", "午饭", "晚饭") and not m.group(2).startswith("素"):
        verb = "不吃" if m.group(1) in ("不碰", "戒了", "忌口") else m.group(1)
        # Keep the user's own detail ("一点点辣就满头大汗，川菜基本告别了"): later questions use those words.
        rest = clean(t[m.end() :])[:40]
        more = f"（{rest}）" if len(rest) >= 4 else ""
        for item in _items(m.group(2)):
            yield make(s, f"用户{verb}{item}{more}。", Category.PREFERENCE, slot=f"user.diet.avoid.{item}",
                       value="no", entities=[item], importance=4)
    m = re.search(r"我(?:对|吃)?([^，。！？,.!?；;\s我]{1,16}?)(?:严重|有点|有些)?过敏|我(?:有)?过敏(?!科|性|门诊|反应)(?:源是|的是)?([^，。！？,.!?；;\s我]{1,16})", t)
    if m:
        for item in _items(m.group(1) or m.group(2)):
            item = re.sub(r"^(?:对|吃|有)", "", item)
            if item and item not in ("会", "很", "有点"):
                yield make(s, f"用户对{item}过敏。", Category.FACT, slot=f"user.allergy.{item}",
                           value=item, entities=[item], importance=5)


_LANGS = {"中文": "Chinese", "汉语": "Chinese", "普通话": "Chinese", "英文": "English", "英语": "English",
          "日语": "Japanese", "日文": "Japanese", "粤语": "Cantonese", "韩语": "Korean"}  # fmt: skip
# the same languages named in English inside Chinese ("以后跟我聊天就用 English 吧")
_LANGS_EN = {"english": "English", "chinese": "Chinese", "mandarin": "Chinese", "japanese": "Japanese",
             "cantonese": "Cantonese", "korean": "Korean"}  # fmt: skip
_LANG_WORD = "中文|英文|英语|汉语|普通话|日语|日文|粤语|韩语|(?i:english|chinese|mandarin|japanese|cantonese|korean)"
_STYLE: tuple[StyleRule, ...] = (
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
    # the talk named first: "以后跟我聊天就用 English 吧", "回复我都用英文"
    m = m or re.search(rf"(?:回答|回复|回我|和我|跟我|交流|聊天|说话)[^，。,；;]{{0,6}}?(?:都|就|请|要)?(?:用|说)\s?({_LANG_WORD})(?![A-Za-z])", t)
    if m:
        word = m.group(1) or (m.group(2) if m.lastindex and m.lastindex >= 2 else None) or ""
        yield make(s, f"用户希望用{word}回复。", Category.PREFERENCE, slot="user.reply_style.language",
                   value=_LANGS.get(word) or _LANGS_EN[word.lower()], entities=[word], importance=4)
    yield from reply_styles(s, _STYLE)


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




_ID_KINDS = "订单号|订单编号|快递单号|运单号|物流单号|工单号|取件码|预订号|预约号|确认号|预订码|航班号|票号|会员号|发票号|案件号|保单号|流水号|单号|工单|订单|编号"


def _identifier(s: Sentence, now: datetime) -> Iterator[Candidate]:
    for m in re.finditer(rf"({_ID_KINDS})\s*(?:是|为|:|：|=|#)?\s*#?([A-Za-z0-9][A-Za-z0-9\-_/]{{2,40}})", s.text):
        ident = m.group(2).rstrip("-_/")
        if not re.search(r"\d", ident) or len(ident) < 4:
            continue
        kind = m.group(1)
        # Keep what the number is for ("京东买的空气净化器"): a later question names the thing, not the number.
        around = clean(re.sub(r"\s+", " ", (s.text[: m.start()] + "，" + s.text[m.end() :]).strip("，, ")))
        around = re.sub(r"[，,\s]*[，,][，,\s]*", "，", around)[:60]
        note = f"（{around}）" if len(around) >= 4 else ""
        yield make(s, f"用户的{kind}是{ident}{note}。", Category.IDENTIFIER, value=ident,
                   entities=[ident, kind], importance=4, confidence=0.9)


_FORGET_VERB = r"忘掉|忘记|忘了|删掉|删了|删除|清除|抹掉|去掉|清掉|(?i:delete|forget|remove|erase)\s*(?:掉|了)?"
_FORGET_TRIM = re.compile(r"^(?:算了\s*)?(?:关于|有关)?(?:我的|我)?|\s*(?:的|相关的|有关的)?(?:记忆|信息|内容|事情|那件事|这件事|那事|这事|事|资料|数据|这个|那个|那条|这条|那些|记录)?(?:吧|了|哈|啊|好吗|可以吗|吗)*$")


def _forget(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text.rstrip("？?！! ")
    m = re.match(rf"(?:算了\s*)?(?:请|麻烦|你)?(?:帮我|给我)?(?:把|将)(.{{1,30}}?)\s*(?:给)?(?:{_FORGET_VERB})(?:吧|了|掉|哈)*(?:$|[，,\s])", t)
    if m is None:
        # "跳槽那事你别记了 忘掉吧" / "地址那条别记着了": the target comes first.
        m = re.match(r"(?:算了\s*)?(.{1,20}?)(?:那事|那件事|这事|这件事|的事|那条|这条|那个)\s*(?:你)?(?:就)?(?:别|不要|不用)再?(?:记着|记住|记得|记|存)(?:了|着|啦)?(?:$|[，,\s])", t)
    if m is None:
        m = re.match(rf"(?:请|麻烦|你)?(?:帮我|给我)?(?:{_FORGET_VERB}|(?:别|不要|不用)再?(?:记着|记住|记得|记))(?:掉)?(?:关于|有关)?(.{{1,30}})$", t)
    if m is None:
        return
    target = _FORGET_TRIM.sub("", m.group(1)).strip()
    target = _FORGET_TRIM.sub("", target).strip()
    if not target or target in ("它", "这个", "那个", "吧", "了") or looks_like_injection(target):
        return
    slot = forget_slot(target)
    yield make(s, target, Category.FACT, slot=slot, importance=5, forget=True,
               explicit=True, confidence=0.9)


RULES: tuple[Rule, ...] = (
    _name, _city, _job, _family, _pet, _likes, _diet, _reply_style, _decision, _identifier,
)
EXPLICIT: tuple[Rule, ...] = (_forget, _remember)


# -- more of how people actually say things ------------------------------------------------

_NUM = r"(?:[一二两三四五六七八九十俩仨\d]{1,2})"
_KID_WORD = r"娃娃|娃|孩子|小孩|宝宝|小朋友|崽|儿子|女儿|闺女"
_KID_DETAIL = re.compile(r"(?:老大|老二|老三|大的|小的|大宝|二宝|儿子|女儿|闺女)[^，。,；;]{0,12}?(?:年级|岁|个月|幼儿园|小学|初中|高中|大学|初[一二三]|高[一二三])[^，。,；;]{0,4}")
_KID_FACT = re.compile(
    r"我(?:的|家)?(女儿|儿子|闺女|孩子|宝宝|娃)(?:今年|现在|目前)?(?:才|刚|已经)?"
    r"((?:满)?[一二两三四五六七八九十\d]{1,3}(?:岁半?|个月)|(?:(?:在)?(?:上|读)(?:了)?|是)[^，。,；;\s]{1,6}?(?:年级|幼儿园|小学|初中|高中|大学|大[一二三四]|初[一二三]|高[一二三]))"
)


def _kids(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我家有两个娃，老大上三年级，老二才两岁' / '家里俩孩子' / '我女儿今年五岁'."""
    t = s.text
    m = re.search(rf"(?:我(?:们)?(?:家|家里)?|家里|家中)(?:有|养了|养着|生了|是)?({_NUM}个?)({_KID_WORD})", t)
    if m and (re.match(r"(?:一|1)个?$", m.group(1)) is None or m.group(2) not in FAMILY_ZH):
        count, word = m.group(1), m.group(2)
        details = [d.group(0) for d in _KID_DETAIL.finditer(t)][:4]
        extra = "：" + "，".join(details) if details else ""
        yield make(s, f"用户有{count}{word}（孩子）{extra}。", Category.FACT, slot="user.family.child",
                   value=count, entities=[word, "孩子", *details[:2]], importance=4)
        return
    m = _KID_FACT.search(t)
    if m:
        rel, what = m.group(1), m.group(2)
        rel_key = FAMILY_ZH.get(rel, "child")
        grade = what.removeprefix("是")  # "我儿子是四年级": the value is 四年级
        yield make(s, f"用户的{rel}{what}。", Category.FACT, slot=f"user.family.{rel_key}.age",
                   value=grade, entities=[rel, grade], importance=4)


def _relative_job(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我老婆是护士' / '我老公在银行上班' / '我妈以前是小学老师'."""
    t = s.text
    m = re.search(rf"我(?:的|家)?({_REL_ANY})(?:现在|目前|以前|之前|也)?是(?:一名|一个|个|名|一位|位)?([{_CJK}A-Za-z]{{0,8}}?(?:{_JOB_SUFFIX}))", t)
    if m:
        rel, job = m.group(1), m.group(2)
        yield make(s, f"用户的{rel}是{job}。", Category.FACT, slot=f"{_rel_slot(rel)}.job", value=job,
                   entities=[rel, job], importance=4)
        return
    m = re.search(rf"我(?:的|家)?({_REL_ANY})(?:现在|目前|一直)?在([{_CJK}A-Za-z]{{2,10}}?)(上班|工作|当[{_CJK}]{{1,6}}|做[{_CJK}]{{1,6}})", t)
    if m and m.group(2) not in ("家", "家里"):
        rel, org, what = m.group(1), m.group(2), clean(m.group(3))
        yield make(s, f"用户的{rel}在{org}{what}。", Category.FACT, slot=f"{_rel_slot(rel)}.job", value=org,
                   entities=[rel, org], importance=4)


def _breakup(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我和阿杰分手了' / '跟男朋友分了' / '我们离婚了': the partner slot no longer holds."""
    t = s.text
    m = re.search(rf"我?(?:和|跟|与)?(?:我)?(?:的)?({_REL}|[{_CJK}A-Za-z]{{1,6}}?)?(?:已经|早就|前阵子|上周|昨天|刚|刚刚)?(分手|分了|离婚|离了婚|掰了|吹了)", t)
    if m is None or not re.search(r"我|我们|和|跟|与", t[: m.start(2)] or "我"):
        return
    who = m.group(1) or ""
    if who in ("我", "我们", "们"):
        who = ""
    if re.search(r"想|要|会|打算|准备|考虑|舍不得|不愿|该不该|没有?|怕|劝|如果|让", t[: m.start(2)]):
        return
    if who in FAMILY_ZH:
        slot = _rel_slot(who)
    elif m.group(2).startswith("离"):
        slot = "user.family.spouse"
    else:
        slot = "user.family.partner"
    with_whom = f"和{who}" if who else ""
    yield make(s, f"用户已经{with_whom}{'离婚' if m.group(2).startswith('离') else '分手'}了，现在单身。",
               Category.FACT, slot=slot, value="none", entities=[who] if who else [], importance=4,
               override=True)


_ORG = rf"[{_CJK}A-Za-z][{_CJK}A-Za-z0-9&]{{0,11}}?"
# Common surnames: "我是王磊" names the user, "我是程序员" does not (_NOT_NAME_ENDS).
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢"
    "姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤欧"
)
_NOT_NAME_ENDS = frozenset("员师生人家长者工手控迷粉党族哥姐弟妹")
_WHEN = r"现在|目前|已经|下周|下个月|上个月|上周|这个月|去年|今年|年初|年后|最近|马上|刚刚|刚|也"
_BAD_JOB = frozenset("饭 菜 梦 作业 家务 饭菜 运动 瑜伽 志愿者 义工 生意 手术 检查 实验".split())


def _work_role(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我在一家银行做柜员' / '去一家保险公司做理赔' / '我在医院当护士' / '转岗做理赔了'."""
    t = s.text
    change = re.search(r"辞职|离职|跳槽|换工作|转岗|转行|改行|switch|入职|新工作|开始", t) is not None
    m = re.search(
        rf"(?:我|[，,\s]|^)(?:{_WHEN})*(?:开始)?(?:在|去|到|进|跳槽到|跳到|switch\s*到|换到|转到|入职)了?\s*"
        rf"(?:一家|一个|家|个)?(?:({_ZH_CITY_OR})的\s*)?({_ORG})\s*(?:做|当|干|负责)(?!了|过|个|一|点|些)\s*"
        # "做 data scientist": a Latin title of several words; "一家做汽车零部件的公司" is what the company does
        rf"([A-Za-z][A-Za-z&/\- ]{{0,30}}[A-Za-z]|[{_CJK}A-Za-z][{_CJK}A-Za-z ]{{0,10}}?)(?=$|[，,。！!\s的了]|工作|岗位)",
        t,
    )
    if m and (re.match(r"[一这那每某]?[家个所]$", m.group(2)) or re.match(r"的(?:公司|厂|企业|店|单位|工作室)", t[m.end(3):])):
        m = None  # "在一家做汽车零部件的公司": what the company does, not the user's job
    if m:
        org, job = clean(m.group(2)), clean(m.group(3))
        if org and job and job not in _BAD_JOB and (zh_city_in(org) == org or world_city(org)) and not re.match(r"(?:去|到|进|跳|switch|换|转|入)", m.group(0).lstrip("我，, ")):
            # "我在上海做产品经理": the place is a city, the job is still the job.
            yield make(s, f"用户的工作是{job}（在{org}）。", Category.FACT, slot="user.job", value=job,
                       entities=[job, org], importance=4, override=change)
            return
        if org and job and job not in _BAD_JOB and org not in ("家", "家里", "这", "那") and zh_city_in(org) != org:
            over = change or bool(re.match(r"(?:去|到|进|跳|switch|换|转|入)", m.group(0).lstrip("我，, ")))
            yield make(s, f"用户的工作是{job}。", Category.FACT, slot="user.job", value=job,
                       entities=[org, job], importance=4, override=over)
            yield make(s, f"用户在{org}工作。", Category.FACT, slot="user.employer", value=org,
                       entities=[org] + ([m.group(1)] if m.group(1) else []), importance=4, override=over)
            return
    m = re.search(rf"(?:转岗|转行|改行|调岗|转)(?:去|到)?(?:做|当|干)了?\s*([{_CJK}A-Za-z]{{1,8}}?)(?=$|[，,。！!\s的了])", t)
    if m and (job := clean(m.group(1))) and job not in _BAD_JOB:
        yield make(s, f"用户现在做{job}。", Category.FACT, slot="user.job", value=job,
                   entities=[job], importance=4, override=True)
        return
    m = re.search(r"(?:^|我|[，,]\s*)(?:现在|目前)?(?:是)?(?:做|干|搞)\s*([A-Za-z][A-Za-z ]{1,28}[A-Za-z]|[\u4e00-\u9fff]{2,8}?)\s*(?:的|这行|这一行)(?:$|[，,\s])", t)
    if m and (job := clean(m.group(1))) and job not in _BAD_JOB and not re.search(r"饭|菜|作业|家务|梦", job):
        yield make(s, f"用户的职业是{job}。", Category.FACT, slot="user.job", value=job,
                   entities=[job], importance=4)
    m = re.search(rf"我\s*(?:switch|跳槽|跳|换工作|换)\s*(?:到|去)了?\s*({_ORG})(?=了|$|[，,\s])", t)
    if m and (org := clean(m.group(1))) and zh_city_in(org) != org:
        yield make(s, f"用户跳槽到了{org}，现在在{org}工作。", Category.FACT, slot="user.employer",
                   value=org, entities=[org], importance=4, override=True)


_ZH_CITY_OR = "北京|上海|深圳|广州|杭州|成都|南京|武汉|西安|苏州|天津|重庆|长沙|厦门|青岛|[\u4e00-\u9fff]{2,3}市"
_PROG = r"Go|Golang|Rust|Python|Java|JavaScript|TypeScript|JS|TS|C\+\+|C#|Kotlin|Swift|PHP|Ruby|Scala|Dart|Lua|Elixir|Haskell|Zig|Objective-C|SQL"


def _code_language(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'主要写 Go' / '平时用Python' / '现在天天写Rust': the programming language used at work."""
    m = re.search(rf"(?:主要|平时|一般|日常|天天|每天|现在|目前|工作中?|工作上)(?:都)?(?:在)?(?:写|用|是)\s*({_PROG})(?![A-Za-z+#])", s.text)
    if m:
        lang = m.group(1)
        yield make(s, f"用户工作中主要写{lang}（编程语言）。", Category.FACT, slot="user.job.language",
                   value=lang, entities=[lang], importance=4)


_PHONE = (
    r"iPhone\s*(?:\d{1,2}|SE|X[RS]?)?(?:\s*(?:Pro|Max|Plus|mini))*|苹果手机|苹果\d{1,2}|华为\s*(?:Mate|P|nova)?\s*\d{0,3}(?:\s*Pro)?|"
    r"小米\s*\d{1,2}(?:\s*(?:Pro|Ultra))?|红米\s*\w{0,8}|OPPO\s*\w{0,8}|vivo\s*\w{0,8}|荣耀\s*\w{0,8}|三星\s*\w{0,8}|Galaxy\s*\w{0,8}|"
    r"Pixel\s*\d{0,2}|一加\s*\d{0,2}|魅族\s*\d{0,2}|安卓手机|小米手机|华为手机"
)


_OTHER = re.compile(rf"我|{_REL_ANY}|他们|她们|他|她|同事|朋友|同学|老板|室友|舍友|闺蜜|兄弟")
_NOT_DONE = re.compile(r"想|要不要|打算|准备|考虑|纠结|犹豫|该不该|不如|还是别|没")


def _about_someone_else(prefix: str) -> bool:
    """True when the last person named before the verb is not the user ("我老公换了个华为")."""
    people = _OTHER.findall(prefix)
    return bool(people) and people[-1] != "我"


def _phone(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'换了个iPhone 15' / '我用的是安卓手机，小米14' / '新买了华为Mate 60'."""
    t = s.text
    m = re.search(rf"(?:换了|换成了?|换到|换回了?|入手了?|新买了|买了|刚买了|新入了)(?:个|一个|一台|部|一部|台|新的)?\s*({_PHONE})", t)
    if m and not _about_someone_else(t[: m.start()]) and not _NOT_DONE.search(t[: m.start()]):
        phone = m.group(1).strip()
        if "手机" in phone or re.search(r"手机|机子|iPhone|小米|华为|苹果|安卓", t):
            yield make(s, f"用户的手机换成了{phone}。", Category.FACT, slot="user.device.phone", value=phone,
                       entities=[phone, "手机"], importance=3, override=True)
            return
    m = re.search(rf"我(?:现在|目前|一直)?(?:的手机是|手机是|手机用的是|用的是|用的|用|拿的是)\s*(?:安卓|苹果)?(?:手机)?[，,\s]*({_PHONE})", t)
    if m:
        phone = m.group(1).strip()
        yield make(s, f"用户的手机是{phone}。", Category.FACT, slot="user.device.phone", value=phone,
                   entities=[phone, "手机"], importance=3)


_TOOLS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("notes", "记笔记（笔记/知识库软件）", ("笔记", "知识库"),
     r"印象笔记|Evernote|Obsidian|Notion|OneNote|有道云笔记|语雀|Logseq|Bear|飞书文档|幕布|Roam(?: Research)?|思源笔记|Joplin"),
    ("browser", "上网（浏览器）", ("浏览器",), r"Chrome|Safari|Edge|Firefox|火狐|Arc|夸克浏览器|QQ浏览器"),
    ("editor", "写代码（编辑器/IDE）", ("编辑器", "IDE"),
     r"VS ?Code|Vim|Neovim|Emacs|Cursor|IntelliJ(?: IDEA)?|PyCharm|GoLand|Sublime(?: Text)?|Zed"),
    ("music", "听歌（音乐App）", ("音乐", "听歌"), r"网易云音乐|网易云|QQ音乐|Apple Music|Spotify|酷狗|酷我"),
    ("input", "打字（输入法）", ("输入法",), r"搜狗输入法|微信输入法|百度输入法|讯飞输入法|Gboard|Rime"),
)


def _tools(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我记笔记一直用印象笔记' / '换成 Obsidian 了，之前用印象笔记': one slot per kind of tool."""
    t = s.text
    for key, label, words, apps in _TOOLS:
        sw = re.search(rf"(?:换成|换到|换了|改用|转到|转用|迁到|迁移到|搬到|switch\s*(?:到|to)|切到|切换到)了?\s*({apps})", t)
        if sw and (_about_someone_else(t[: sw.start()]) or _NOT_DONE.search(t[: sw.start()])):
            continue
        if sw:
            new = sw.group(1)
            rest = t[: sw.start()] + " " + t[sw.end() :]
            was = next((o.group(0) for o in re.finditer(apps, rest) if o.group(0) != new), None)
            tail = f"，不再用{was}" if was else ""
            yield make(s, f"用户现在用{new}{label}{tail}。", Category.PREFERENCE, slot=f"user.tool.{key}",
                       value=new, entities=[new, *words] + ([was] if was else []), importance=4, override=True)
            continue
        use = re.search(rf"我(?:现在|目前|平时|一般|一直|都)?(?:[{_CJK}]{{1,4}})?(?:一直|都|主要|平时)?(?:用|使用|用的是|在用)\s*({apps})", t)
        if use and not re.search(r"不(?:再)?用|没用过|不想用", t):
            app = use.group(1)
            yield make(s, f"用户用{app}{label}。", Category.PREFERENCE, slot=f"user.tool.{key}",
                       value=app, entities=[app, *words], importance=3)


def _only(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我喝咖啡只喝美式，不加糖不加奶' / '米饭只吃糙米' / '最好是浅烘的豆子'."""
    t = s.text
    m = re.search(rf"(?:我(?:平时)?)?(?:(喝|吃|用|听|看|穿|抽)([{_CJK}A-Za-z]{{1,6}}?)(?:的话|都|一般|基本)?)?只(?:喝|吃|用|听|看|穿|抽|要|点)(?!了|过|一|两|几|半|[\d])\s*([{_CJK}A-Za-z0-9 ]{{1,10}}?)(?=$|[，,。！!；;\s的])", t)
    if m and _about_someone_else(t[: m.start()]):
        m = None
    if m and (thing := clean(m.group(3))) and thing not in ("一点", "一口", "一次", "一顿", "两顿", "三顿", "一杯"):
        about = m.group(2) or ""
        nxt = re.match(r"[，,\s]*([^，,。！!；;\s]{2,8})", t[m.end() :])
        more = "，" + nxt.group(1) if nxt and re.match(r"不加|不放|不要|少|去|加|要", nxt.group(1)) else ""
        verb = m.group(0)[m.group(0).find("只") :][:2]
        head = f"{m.group(1)}{about}" if about else ""
        yield make(s, f"用户{head}{verb}{thing}{more}。", Category.PREFERENCE,
                   slot=f"user.likes.{slot_key(about) or slot_key(thing) or 'only'}", value=thing,
                   entities=[thing] + ([about] if about else []), importance=3)
        return
    m = re.search(rf"(?:^|[，,\s]|我)(?:还是|比较)?(?:最好是|最好|更喜欢|更爱|偏好|偏爱|倾向于?)\s*([{_CJK}A-Za-z]{{1,6}}?)的([{_CJK}A-Za-z]{{1,6}})$", t)
    if m and future_date(t, now) is None:
        what, kind = m.group(1), m.group(2)
        yield make(s, f"用户偏好{what}的{kind}。", Category.PREFERENCE,
                   slot=f"user.likes.{slot_key(kind) or 'style'}.{slot_key(what) or 'x'}", value=what,
                   entities=[what, kind], importance=3)


# What each intolerance rules out, in the words a later question would use ("拿铁可以喝吗").
_INTOLERANT_FOODS = {
    "乳糖": "牛奶、酸奶、奶酪芝士、奶油、冰淇淋、拿铁等奶咖奶茶",
    "麸质": "小麦面粉、面包、面条、蛋糕、啤酒",
    "酒精": "酒、啤酒、红酒",
    "果糖": "水果、果汁、蜂蜜",
}


def _intolerance(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我乳糖不耐受' / '乳糖不耐，喝牛奶就拉肚子' / '我对麸质不耐受'."""
    m = re.search(rf"(?:我|对)?([{_CJK}]{{2,3}}?)不耐(?:受)?", s.text)
    if m is None:
        return
    what = m.group(1).lstrip("对")
    foods = _INTOLERANT_FOODS.get(what)
    if foods is None and not re.search(r"喝|吃|拉肚子|肚子|过敏|胀气", s.text):
        return
    note = f"，吃喝含{what}的东西（{foods}）会不舒服" if foods else ""
    yield make(s, f"用户{what}不耐受{note}。", Category.FACT, slot=f"user.diet.intolerance.{what}",
               value=what, entities=[what] + ([foods.split("、")[0]] if foods else []), importance=5)


_REGIONS = (
    "东北|西北|华北|华南|华东|华中|西南|江南|江浙|潮汕|闽南|川渝|苏北|苏南|胶东|岭南|"
    "黑龙江|吉林|辽宁|内蒙古|河北|河南|山东|山西|陕西|甘肃|青海|宁夏|新疆|西藏|四川|贵州|云南|"
    "湖南|湖北|江西|安徽|江苏|浙江|福建|广东|广西|海南|台湾"
)


def _home_region(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我是东北的' / '我老家四川的' / '我东北人' — regions and provinces, not only cities."""
    t = s.text
    m = re.search(rf"我(?:是|来自|老家(?:是|在)?|家乡(?:是|在)|老家那边是)?\s*(?:地道的|正宗的)?({_REGIONS})(?:省)?(?:人|的|那边的|那边|$)", t)
    if m and not re.search(r"不$|不是$", t[: m.start()]) and not re.match(r"我(?:在|去|到)", m.group(0)):
        region = m.group(1)
        if re.match(r"我(?:是|来自|老家|家乡)", m.group(0)) or m.group(0).endswith("人"):
            yield make(s, f"用户是{region}人，家乡（老家）在{region}。", Category.FACT, slot="user.hometown",
                       value=region, entities=[region], importance=3)


def _salary(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'我月薪28k' / '我的 salary 是月薪 28k' / '年薪三十万'."""
    m = re.search(r"我(?:的)?\s*(?:工资|薪水|薪资|salary|收入|月薪|年薪|到手)\s*(?:是|有|大概|才|就|也就)?\s*(月薪|年薪|税前|税后|到手)?\s*(\d[\d.,]{0,8}\s*(?:[kKwW]|万|千|块|元)?|[一二两三四五六七八九十百千万]{1,6}(?:万|千|块|元)?)", s.text)
    if m:
        amount = m.group(2).strip()
        kind = f"（{m.group(1)}）" if m.group(1) else ""
        yield make(s, f"用户的工资收入{kind}是{amount}。", Category.FACT, slot="user.salary", value=amount,
                   entities=[amount], importance=3)


# What may come before "我是…" in an introduction: a greeting, or a few words and a pause
# ("问下 我是王磊", "对了，我是阿雯").
_LEAD_IN = r"(?:(?:嗨|你好|您好|哈喽|大家好|hi|hello|hey)[，,！!～~\s]*|[\u4e00-\u9fff]{1,4}[，,！!～~\s]+)?"


def _name_more(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'全名叫贺雯雯' / '嗨 我是阿雯': a full name, or a nickname the user introduces themself by."""
    m = re.search(rf"全名(?:叫|是)\s*({_NAME})|^{_LEAD_IN}我是([阿小][{_CJK}]{{1,2}})(?=$|[，,。！!～~\s])", s.text, re.I)
    name = _zh_name(m.group(1) or m.group(2)) if m else None
    if name is None:
        # "你好 我是王磊": a surname and a given name, all the clause says; a form's "姓名周子航"
        m = re.search(rf"^{_LEAD_IN}我是\s*([{_SURNAMES}][{_CJK}]{{1,2}})(?:啦|呀|哦)?$"
                      rf"|(?:^|[\s，,：:；;])(?:姓名|(?i:full name|name))\s*[:：]?\s*([{_SURNAMES}][{_CJK}]{{1,2}})(?=$|[\s，,。；;])", s.text, re.I)
        name = m.group(1) or m.group(2) if m else None
        if name and (name[-1] in _NOT_NAME_ENDS or name in _NOT_NAMES):
            name = None
    if name is None:
        # "Hi，我是Kevin，在Shopee做…": a Latin given name (not "我是Java工程师", nor a city)
        m = re.search(rf"^{_LEAD_IN}我是\s*((?-i:[A-Z][a-z]{{1,15}}(?: [A-Z][a-z]{{1,15}})?))(?=$|[，,。！!～~\s])", s.text, re.I)
        name = m.group(1) if m and m.group(1).lower() not in WORLD_CITIES else None
    if name:
        yield make(s, f"用户的名字是{name}。", Category.FACT, slot="user.name", value=name, entities=[name], importance=5)


def _age(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """'今年刚满40' / '我今年28岁': the user's own age (not '我女儿今年七岁')."""
    m = re.match(r"(?:我)?(?:今年|现在)(?:刚|才|已经)?满?(\d{1,2}|[一二两三四五六七八九十]{1,3})(?:岁|周岁)?(?:了|啦)?$", s.text)
    if m:
        age = m.group(1)
        yield make(s, f"用户今年{age}岁。", Category.FACT, slot="user.age", value=age, entities=[age], importance=3)


RULES = (*RULES, _kids, _relative_job, _breakup, _work_role, _code_language, _phone, _tools, _only,
         _intolerance, _home_region, _salary, _name_more, _age)
