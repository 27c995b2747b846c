"""Shared pieces of the rule extractors: sentences, language, filters and a candidate builder."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from assistant.memory.types import Candidate, Category, Kind, Source

MAX_CHARS = 20_000  # rules read at most this much of one message; longer text is pasted material
MAX_SENTENCE = 400  # longer "sentences" are pasted text, not something the user says about self
MAX_SENTENCES = 200  # a message with more sentences than this is pasted material; read its start


@dataclass(frozen=True)
class Sentence:
    """One sentence of a message, with its position so evidence stays an exact substring."""

    text: str
    start: int
    lang: str  # "zh" | "en"


# A full stop ends a sentence unless it ends a title or a common abbreviation ("my therapist,
# dr. levin, thinks …", "Mrs. Chen"), in any case.
_ABBREVIATION_STOP = r"(?<=\b(?i:st|dr|mr|ms|mt|jr|sr|vs))\.|(?<=\b(?i:mrs))\.|(?<=\b(?i:prof|appt|dept))\."
# (a full stop before a closing quote ends the sentence too: "… at Johns Hopkins.' 我自己是学 finance 的")
_SPLIT = re.compile(
    rf"(?:[^。！？!?；;\n.]|\.(?!\s|$|['’\"”](?:\s|$))|{_ABBREVIATION_STOP}|(?<=\b(?i:tl));(?=(?i:dr)\b))*"
    r"(?:[。！？!?；;\n]+|\.['’\"”]?(?=\s|$)|\Z)"
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]+")


def language(text: str) -> str:
    """Guess "zh" or "en" for one sentence: any real share of CJK characters makes it Chinese."""
    cjk = len(_CJK.findall(text))
    latin = sum(len(w) for w in _LATIN.findall(text))
    return "zh" if cjk and cjk * 3 >= latin else "en"


# The last ", is it …?" / " - can I …?" clause of an English sentence ending in "?".
_EN_TAIL_QUESTION = re.compile(
    r"(?i)(?:,|\s[-–—]|:)\s*((?:so |and |but )?(?:what|where|who|when|why|how|which|is|are|do|does|did|can|could|would|will|should|am|was|were)\b[^,:–—]*\?)$"
)


def sentences(text: str) -> Iterator[Sentence]:
    """Split a message into sentences (Chinese and English punctuation), stripped, with offsets."""
    text = text[:MAX_CHARS]
    count = 0
    for m in _SPLIT.finditer(text):
        if count >= MAX_SENTENCES:
            return
        raw = m.group(0)
        body = raw.lstrip()
        lead = len(raw) - len(body)
        body = body.rstrip("。！!；;\n. \t")
        if body and len(body) <= MAX_SENTENCE:
            count += 1
            lang = language(body)
            tail = _EN_TAIL_QUESTION.search(body) if lang == "en" and body.endswith("?") else None
            if tail is not None and tail.start() > 0:
                # "I'm vegetarian, is Worcestershire sauce ok?": a statement, then a question.
                head = body[: tail.start()].rstrip(" ,-–—:;")
                if head:
                    yield Sentence(head, m.start() + lead, lang)
                yield Sentence(body[tail.end(1) - len(tail.group(1)):], m.start() + lead + tail.start(1), lang)
            else:
                yield Sentence(body, m.start() + lead, lang)


INJECTION = re.compile(
    r"(?i)(?:\b(?:ignore|disregard|forget|override|bypass)\b[^.。\n]{0,40}\b(?:rules?|instructions?|prompts?|guidelines?|polic(?:y|ies)|restrictions?|safety)\b"
    r"|\bsystem\s*prompt\b|^\s*(?:system|assistant|developer)\s*:|\byou are now\b|\bfrom now on,? you\b"
    r"|\bjailbreak\b|\bdeveloper mode\b|\bdo anything now\b|\bpretend (?:to be|you are)\b|\bact as\b"
    r"|\breveal your\b|\bnew instructions?\b|<\|?(?:im_start|system)\|?>"
    r"|\[\[?\s*(?:assistant|system|developer)\b|\bwhen(?:ever)?\s+(?:you(?:'re| are)\s+)?(?:asked|someone asks|anyone asks)\b[^.。\n]{0,60}\b(?:say|tell|answer|reply|respond|claim)\b"
    r"|\bapprove (?:any|all|every)\b"
    # notes aimed at whatever model reads a forwarded text: "to any AI assistant reading this: remember …"
    r"|\b(?:any|all|the)\s+(?:AI|LLM|assistant|chatbot|language model)s?\b[^.。\n]{0,30}\b(?:reading|processing|summari[sz]ing)\b|\bnote to (?:the |any )?(?:AI|assistant|model)\b"
    r"|(?:给|致)(?:所有|任何)?(?:AI|人工智能|助手)|(?:AI|人工智能)(?:助手)?(?:请|注意|必须)"
    r"|忽略|无视|不要遵守|别遵守|绕过|越狱|系统提示|提示词|系统指令|你现在是|从现在开始你|从现在起你|扮演|开发者模式|所有规则|你的规则|新的指令)"
)


def looks_like_injection(text: str) -> bool:
    """True for text that tries to instruct the assistant about its rules or system prompt."""
    return INJECTION.search(text[:MAX_CHARS]) is not None


_EN_QUESTION_START = re.compile(
    r"(?i)^(?:(?:so|and|but|hey|ok|okay|now|also|btw|anyway|then),? )*(?:whats|hows|wheres|whos|what|where|who|whom|whose|when|why|how|which"
    r"|do|does|did|is|are|am|was|were|can|could|would|will|should|shall|have|has|may)\b"
)
_ZH_QUESTION = re.compile(
    r"[吗嘛呢么]\s*$|哪里|哪儿|哪个|在哪|住哪|去哪|是谁|叫啥|叫什么|什么时候|为什么|怎么|多少|几点|几号|几岁|是不是|有没有|对不对|还记得"
    r"|(?:吃|干|做|买|穿|带|选|看|玩|去|说|写)啥|啥时候|咋办|咋样|咋回事|咋整|为啥|好不好|行不行|能不能|可不可以"
    # "原神到底是哪家公司做的来着": asking what the user has forgotten
    r"|(?:哪家|哪些|哪位|哪天|哪年|什么|啥|谁|几).{0,12}来着\s*$|到底是(?:哪|什么|谁|啥)"
    # "有啥运动适合我", "要准备啥装备", "要不要在山上住一晚": asking the assistant
    r"|有(?:啥|什么)[\u4e00-\u9fff]{0,6}?(?:适合|推荐|建议|好玩|好吃|注意|办法|讲究)|(?:注意|推荐|准备|带)(?:点)?(?:啥|什么)|^要不要"
    # "有啥能点的", "我能吃点啥不会出事", "吃什么能缓解点", "我要提醒他啥"
    r"|^(?:那|还)?有(?:啥|什么)(?!不|就|事)|(?:吃|喝|用|买|带|穿|做|点|玩|看)点(?:啥|什么)|(?:什么|啥)(?:能|可以|比较)|(?<!没)(?<!没有)(?:啥|什么)(?:呀|啊|呢)?\s*$"
    # "附近有啥好的 gym", "剩下那盒给谁好": which one, to whom — the clause ends on what it asks for
    r"|有(?:啥|什么)好的\s*(?:[A-Za-z ]{0,20}|[\u4e00-\u9fff]{0,4})\s*$|(?:给|送|找|问|选)谁(?:好|合适|比较好)\s*$"
)


_FIRST_PERSON_STATEMENT = re.compile(r"(?i)\b(?:i|i'm|im|i've|we|we're)\s+(?!(?:wonder|guess|don't know|dont know)\b)[a-z]")


def is_question(s: Sentence) -> bool:
    """True for a question (which never becomes a memory by itself)."""
    if s.text.endswith(("?", "？")):
        # "three days into the new gig and i already love it??": a statement said with feeling
        return not (s.lang == "en" and s.text.endswith(("??", "?!", "!?")) and _EN_QUESTION_START.match(s.text) is None
                    and _FIRST_PERSON_STATEMENT.search(s.text) is not None)
    if s.lang == "zh":
        return _ZH_QUESTION.search(s.text) is not None
    return _EN_QUESTION_START.match(s.text) is not None


_HYPOTHETICAL = re.compile(
    r"(?i)\b(?:(?<!remind me )(?<!let me know )(?<!tell me )(?<!ask me )(?<!check )(?<!see )(?<!know )(?<!wonder )(?<!wondering )(?<!ask )(?<!asked )(?<!sorry )(?<!mind )(?<!apologies )(?<!apologize )(?<!apologise )(?!(?-i:IF)\b)if(?! (?:that|this) (?:matters|helps|makes a difference)| it matters| (?:that's|that is) (?:relevant|useful|helpful)| (?:at all )?possible\b| you (?:can|could)\b| needed\b| necessary\b)|suppose|supposing|imagine|hypothetically|what if|(?<!just )in case(?! (?:it|that|this) (?:matters|helps)| you(?:'re| were| are)? (?:wondering|curious|need|want))|assuming|unless)\b"
    r"|\bI (?:wish|would|'d)\b|\bI might\b|\bmaybe I\b|\bwould I\b"
    # "如果可以的话", "方便的话": a polite wish, no condition
    r"|如果(?!可以|方便|可能的话)|假如|要是|假设|万一|想象|倘若|如若|(?<!可以)(?<!方便)(?<!可能)的话|假使|设想|说不定|也许我|可能会"
)


def is_hypothetical(text: str) -> bool:
    """True for a conditional or imagined statement ("if I moved to Paris…", "如果我搬到…")."""
    return _HYPOTHETICAL.search(text) is not None


# Words that imagine rather than set a condition: "那假如我明年去日本留学" plans nothing, while
# "要是天气好周六去爬山" is a plan with a condition.
_IMAGINED = re.compile(r"(?i)\b(?:suppose|supposing|imagine|hypothetically|what if)\b|假如|假设|假使|设想|想象|倘若")


def is_imagined(text: str) -> bool:
    """True for a statement that only imagines ("suppose I quit", "假如我去留学")."""
    return _IMAGINED.search(text) is not None


_QUOTES = re.compile(r"\"[^\"]{0,400}\"|“[^”]{0,400}”|「[^」]{0,400}」|『[^』]{0,400}』")
_EN_REPORTED = re.compile(
    r"(?i)\b(?!I\b)(?:\w+)\s+(?:said|says|told me|tells me|thinks|claims|mentioned|wrote|texted)\b"
    r"|\baccording to\b"
)
_ZH_REPORTED = re.compile(r"(?<![我你])(?:说|告诉我|提到|听说|据说|觉得她|觉得他|以为)")
_ZH_NOT_REPORTED = re.compile(r"跟你说|和你说|对你说|告诉你|小说|说明|说话|说实话|说真的|说一下|说实在|说好|总的来说|一般来说|比如说|就是说|来说")


def is_reported(s: Sentence) -> bool:
    """True when the sentence reports someone else's words or facts, not the user's own."""
    if s.lang == "zh":
        return _ZH_REPORTED.search(_ZH_NOT_REPORTED.sub("", s.text)) is not None
    return _EN_REPORTED.search(s.text) is not None


def strip_quotes(text: str) -> str:
    """Blank out quoted passages (same length, so offsets still hold)."""
    return _QUOTES.sub(lambda m: " " * len(m.group(0)), text)


OVERRIDE = re.compile(
    r"(?i)\b(?:moved to|moving to|relocated to|now live|now living|live in \S+ now|switched to|switch(?:ed)? over to"
    r"|no longer|not anymore|anymore|changed to|now work|new job|now I'?m|I'?m now|these days I"
    r"|just joined|started (?:a new job|working)|from now on)\b"
    r"|不再|换成|改成|改为|搬到|搬去|搬家|现在住|现在在|换了|改了|已经不|不.{1,6}了$|跳槽|现在是|如今"
)


def has_override(text: str) -> bool:
    """True when the sentence replaces something said before ("moved to", "换成", "不再")."""
    return OVERRIDE.search(text) is not None


def slot_key(thing: str) -> str | None:
    """Normalise a short noun phrase to a slot suffix ("green tea" -> "green_tea"); None if too vague."""
    key = re.sub(r"(?i)^(?:the|a|an|some|my|your|all|any|to)\s+", "", thing.strip())
    key = re.sub(r"[\s\-]+", "_", key.lower()).strip("_.,!~。，！～")
    if not key or len(key) > 24 or key in _VAGUE or not re.fullmatch(r"[\w]+", key):
        return None
    if key.count("_") > 2:
        return None
    return key


_VAGUE = frozenset(
    "it this that these those you them him her me us everything anything something nothing one "
    "how what when where why who which if whatever "
    "stuff things thing so lot much way idea 它 这 那 这个 那个 你 他 她 他们 她们 东西 一切 这样 那样".split()
)

_PUNCT = " \t,.;:!?~，。；：！？～、…\"'“”‘’()（）"


def printable(text: str) -> str:
    """`text` with control characters and lone surrogates (which SQLite's UTF-8 cannot hold,
    e.g. undecodable terminal input) turned into spaces, and spaces folded."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def clean(value: str) -> str:
    """Trim spaces, punctuation and Chinese sentence particles from a captured value."""
    value = value.strip(_PUNCT).strip()  # str.strip() also takes U+2028 and other Unicode spaces
    value = re.sub(r"(?:了|的|啊|呀|哦|呢|吧|哈|啦|嘛|喔|噢)+$", "", value)
    return value.strip(_PUNCT).strip()


def make(
    s: Sentence,
    content: str,
    category: Category,
    *,
    slot: str | None = None,
    value: str | None = None,
    entities: list[str] | None = None,
    importance: int = 3,
    override: bool = False,
    explicit: bool = False,
    forget: bool = False,
    event_at: datetime | None = None,
    expires_at: datetime | None = None,
    confidence: float = 0.8,
) -> Candidate:
    """Build a rule candidate whose evidence is the sentence it came from."""
    ents: list[str] = []
    for e in entities or []:
        e = printable(e).strip(_PUNCT)
        if e and e not in ents:
            ents.append(e)
    return Candidate(
        content=content,
        category=category,
        kind=Kind.SEMANTIC,
        slot=slot,
        value=printable(value) if value is not None else None,
        entities=ents,
        importance=max(1, min(5, importance)),
        confidence=confidence,
        source=Source.USER_EXPLICIT,
        expires_at=expires_at,
        event_at=event_at,
        evidence=s.text,
        explicit=explicit,
        override=override or has_override(s.text),
        forget=forget,
        extractor="rules",
    )


# A few well-known places so "我住在杭州市西湖区" becomes 杭州 and "去上海出差" finds 上海.
ZH_CITIES = tuple(
    "北京 上海 天津 重庆 广州 深圳 杭州 南京 苏州 成都 武汉 西安 长沙 郑州 青岛 厦门 宁波 "
    "大连 沈阳 哈尔滨 长春 济南 合肥 福州 昆明 贵阳 南宁 南昌 太原 石家庄 兰州 银川 西宁 "
    "乌鲁木齐 拉萨 呼和浩特 海口 三亚 无锡 常州 佛山 东莞 珠海 温州 绍兴 嘉兴 金华 烟台 "
    "徐州 扬州 洛阳 桂林 丽江 大理 香港 澳门 台北 高雄 东京 大阪 京都 首尔 新加坡 曼谷 "
    "伦敦 巴黎 柏林 慕尼黑 纽约 旧金山 洛杉矶 西雅图 波士顿 芝加哥 多伦多 温哥华 悉尼 墨尔本 "
    "莫斯科 罗马 米兰 马德里 巴塞罗那 阿姆斯特丹 里斯本 迪拜 硅谷".split()
)
_ZH_CITY_RX = re.compile("|".join(sorted(ZH_CITIES, key=len, reverse=True)))
_ZH_PLACE_TAIL = re.compile(r"^[\u4e00-\u9fff]{2,6}?(?:省|市|县|区|州|镇|岛)")


def zh_place(text: str) -> str | None:
    """Return the first city named at the start of `text` ("杭州市西湖区" -> "杭州")."""
    m = _ZH_CITY_RX.match(text)
    if m:
        return m.group(0)
    m = _ZH_PLACE_TAIL.match(text)
    if m:
        place = m.group(0)
        return place[:-1] if place.endswith("市") and len(place) > 2 else place
    return None


# Well-known cities outside China by their English names: "在 Vancouver 做 data scientist"
# says where, not for whom.
WORLD_CITIES = frozenset(
    "london paris berlin madrid barcelona lisbon porto rome milan amsterdam rotterdam brussels vienna zurich geneva munich "
    "hamburg frankfurt prague warsaw budapest dublin edinburgh manchester glasgow birmingham leeds bristol oslo stockholm "
    "copenhagen helsinki athens istanbul moscow dubai doha riyadh cairo lagos nairobi johannesburg "
    "toronto vancouver montreal calgary ottawa seattle portland boston chicago denver austin dallas houston atlanta miami "
    "phoenix philadelphia detroit minneapolis nashville brooklyn manhattan sf la nyc "
    "singapore tokyo osaka kyoto seoul busan taipei bangkok hanoi manila jakarta sydney melbourne brisbane perth auckland "
    "mumbai delhi bangalore bengaluru hyderabad chennai kolkata karachi tucson oakland sacramento "
    # the big Chinese cities as people write them in Latin letters ("我在Shanghai做设计")
    "beijing shanghai shenzhen guangzhou hangzhou chengdu wuhan nanjing suzhou chongqing tianjin xiamen qingdao "
    "xian changsha zhengzhou dalian shenyang harbin kunming hefei ningbo fuzhou jinan dongguan foshan wuxi "
    "macau taichung kaohsiung "
    # and more of the cities people move to and work in
    "columbus irvine pittsburgh baltimore cleveland cincinnati indianapolis milwaukee charlotte raleigh orlando tampa "
    "honolulu anchorage albuquerque boulder berkeley cambridge oxford liverpool sheffield newcastle nottingham cardiff belfast "
    "lyon marseille toulouse nice valencia seville naples florence venice turin cologne stuttgart dusseldorf "
    "krakow antwerp utrecht eindhoven gothenburg malmo bergen reykjavik tallinn riga vilnius bucharest sofia belgrade "
    "zagreb ljubljana bratislava kyiv lviv tbilisi yerevan baku almaty tashkent tehran beirut amman jeddah kuwait muscat "
    "casablanca marrakech tunis accra addis ababa kampala kigali dar es salaam lima bogota medellin quito santiago montevideo "
    "havana panama guadalajara monterrey cancun vancouver victoria halifax winnipeg edmonton quebec saskatoon "
    "yokohama nagoya sapporo fukuoka kobe incheon daegu chiang mai phuket bali denpasar surabaya cebu penang "
    "pune ahmedabad jaipur kochi goa colombo dhaka kathmandu lahore islamabad adelaide canberra hobart gold coast "
    "wellington christchurch queenstown".split()
) | {"new york", "san francisco", "los angeles", "san diego", "san jose", "kuala lumpur", "ho chi minh city",
     "mexico city", "sao paulo", "são paulo", "buenos aires", "rio de janeiro", "washington dc", "las vegas", "salt lake city",
     "cape town", "tel aviv", "abu dhabi", "new delhi", "hong kong"}


def world_city(text: str) -> bool:
    """Whether `text` is, all of it, a well-known city's English name."""
    return " ".join(text.lower().split()) in WORLD_CITIES


def zh_city_in(text: str) -> str | None:
    """Return the first well-known city mentioned anywhere in `text`."""
    m = _ZH_CITY_RX.search(text)
    return m.group(0) if m else None


# The letters of a name in a Latin script, accented ones too (Tomás, Zoë, Łukasz, Søren): the
# capitals a name starts with, and the small letters it goes on with (Latin Extended-A mixes
# both, so it is in both).
NAME_UPPER = "A-ZÀ-ÖØ-ÞĀ-ž"
NAME_LOWER = "a-zß-öø-ÿĀ-ž"
# (not "Priya's" in "my sister Priya's coming": O'Brien keeps its apostrophe, a clitic does not)
EN_NAME = (
    rf"[{NAME_UPPER}](?:[{NAME_LOWER}{NAME_UPPER}\-]|'(?![sSdD]\b|ll\b|re\b|ve\b)){{0,30}}"
    rf"(?:\s+[{NAME_UPPER}](?:[{NAME_LOWER}{NAME_UPPER}\-]|'(?![sSdD]\b|ll\b|re\b|ve\b)){{0,30}}){{0,2}}"
)
EN_PLACE = r"[A-Z][\w'\-.]{0,30}(?:(?:\s+(?:de|la|del|am|upon|sur))?\s+[A-Z][\w'\-.]{0,30}){0,3}|[\u4e00-\u9fff]{2,8}"

_FORGET_SLOTS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rx, re.IGNORECASE), slot)
    for rx, slot in (
        (r"address|住址|地址|住的地方", "user.address"),
        (r"\b(?:city|where i live|live in|hometown)\b|住在|住哪|城市|所在地", "user.city"),
        (r"\b(?:employer|company|where i work)\b|公司|单位|雇主", "user.employer"),
        (r"\b(?:job|work|occupation|profession|career)\b|工作|职业", "user.job"),
        (r"\b(?:phone|mobile|cell)\b|电话|手机", "user.phone"),
        (r"\be-?mail\b|邮箱|邮件地址", "user.email"),
        (r"\bbirthday\b|生日", "user.birthday"),
        (r"\ballerg|过敏", "user.allergy"),
        (r"\bdiet\b|饮食|忌口", "user.diet"),
        (r"\b(?:pets?|dog|cat)\b|宠物|猫|狗", "user.pet"),
        (r"\bname\b|名字|姓名|叫什么", "user.name"),
        (r"\bage\b|\bhow old\b|年龄|岁数", "user.age"),
    )
)
FAMILY_ZH = {
    "女儿": "daughter", "闺女": "daughter", "儿子": "son", "老婆": "wife", "妻子": "wife",
    "太太": "wife", "媳妇": "wife", "老公": "husband", "丈夫": "husband", "爱人": "partner",
    "对象": "partner", "男朋友": "boyfriend", "女朋友": "girlfriend", "男友": "boyfriend",
    "女友": "girlfriend", "爸爸": "father", "父亲": "father", "老爸": "father", "妈妈": "mother",
    "母亲": "mother", "老妈": "mother", "哥哥": "brother", "弟弟": "brother", "姐姐": "sister",
    "妹妹": "sister", "孩子": "child", "宝宝": "child", "爷爷": "grandfather", "奶奶": "grandmother",
    "外公": "grandfather", "外婆": "grandmother", "姥姥": "grandmother", "姥爷": "grandfather",
    "男票": "boyfriend", "女票": "girlfriend", "bf": "boyfriend", "gf": "girlfriend", "BF": "boyfriend", "GF": "girlfriend",
}  # fmt: skip
FAMILY_EN = {
    "mom": "mother", "mum": "mother", "mother": "mother", "mama": "mother", "dad": "father",
    "father": "father", "papa": "father", "wife": "wife", "husband": "husband", "partner": "partner",
    "girlfriend": "girlfriend", "boyfriend": "boyfriend", "fiance": "fiance", "fiancé": "fiance",
    "fiancee": "fiance", "fiancée": "fiance", "son": "son", "daughter": "daughter",
    "sister": "sister", "brother": "brother", "kid": "child", "child": "child", "baby": "child",
    "grandma": "grandmother", "grandmother": "grandmother", "grandpa": "grandfather",
    "grandfather": "grandfather", "aunt": "aunt", "uncle": "uncle", "cousin": "cousin",
}  # fmt: skip


def forget_slot(target: str) -> str | None:
    """Map a forget request's target ("my address", "我的工作") to the slot it names, if any."""
    for word, rel in (*FAMILY_EN.items(), *FAMILY_ZH.items()):
        if re.search(rf"(?i)\b{word}s?\b" if word.isascii() else word, target):
            return f"user.family.{rel}"
    for rx, slot in _FORGET_SLOTS:
        if rx.search(target):
            return slot
    return None


# A reply-style rule: (pattern, aspect, value, memory text); `reply_styles` reads a table of them.
StyleRule = tuple[str, str, str, str]


# "再正式一点", "make it shorter": the last answer revised, once, not how to answer from now on
# (unless the sentence says so: "以后都正式一点", "always keep it short").
_REVISE = re.compile(r"(?i)^(?:我\s?)?(?:再|改得|改成|写得|弄得|稍微|这段|这句|这个)|\bmake (?:it|this|that)\b")
_FROM_NOW = re.compile(r"(?i)以后|今后|每次|一直|总是|平时|\b(?:from now on|always|in general|every time|going forward)\b")


def reply_styles(
    s: Sentence, table: Sequence[StyleRule], *, flags: str = "",
    tone: Callable[[re.Match[str]], tuple[str, str]] | None = None,
) -> Iterator[Candidate]:
    """One preference per aspect of the reply (length, emoji, format, tone) the sentence asks
    for, the first rule of the table that matches it; `tone` words the tone rule's match."""
    if _REVISE.search(s.text) and not _FROM_NOW.search(s.text):
        return
    done: set[str] = set()
    for rx, aspect, value, content in table:
        m = re.search(flags + rx, s.text) if aspect not in done else None
        if m is None:
            continue
        done.add(aspect)
        if aspect == "tone" and tone is not None:
            value, content = tone(m)
        yield make(s, content, Category.PREFERENCE, slot=f"user.reply_style.{aspect}", value=value, importance=4)

