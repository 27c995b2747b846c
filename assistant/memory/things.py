"""Things by their kind: what a later message says happened to "the old watch", "那只鹦鹉".

People rarely name a thing again when it goes. They say what kind of thing it was: "sold the
old tablet on ebay", "把那只虎皮鹦鹉托付给楼下王阿姨了", "原来那台给我妈了" (after a new
phone in the same message), "新表到了" (a new one of a kind they have one of). The write
path reads such a clause for

- the kinds of thing it names (a small vocabulary in Chinese and English, brands included
  where a brand is the kind: "my Garmin"),
- whether it says one went (sold, given away, rehomed, stolen, scrapped, died) or arrived
  (a new one of a kind a person has one of at a time: a phone, a watch, a car — not a pet or a
  second guitar),

and the memories of the user's that name a thing of that kind are what it ends.
"""

from __future__ import annotations

import re

# kind -> words for it (matched case-insensitively; English as whole words)
_KINDS: dict[str, tuple[str, str]] = {
    "phone": (r"phone|iphone|smartphone|pixel|galaxy", r"手机|苹果手机|华为P\d+|小米\d+|iPhone"),
    "watch": (r"watch|smartwatch|fitbit|garmin|forerunner|apple watch|fitness tracker",
              r"手表|手环|运动表|智能表|新表|旧表|那块表|这块表|表到了|佳明"),
    "laptop": (r"laptop|macbook|notebook computer|thinkpad|xps|chromebook|pc", r"笔记本电脑|电脑|笔记本|游戏本|MacBook"),
    "tablet": (r"tablet|ipad|kindle|e-?reader|wacom", r"平板|iPad|Kindle|数位板|阅读器"),
    "camera": (r"camera|dslr|mirrorless|canon|nikon|fuji|fujifilm", r"相机|单反|微单"),
    "car": (r"car|truck|suv|van|hatchback|sedan|civic|corolla|jetta|prius|tesla|model [3ysx]",
            r"车子|汽车|轿车|老车|新车|那辆车|这辆车|那台车|我的车|小车|电车|油车|捷达"),
    "scooter": (r"scooter|e-?bike|moped|motorbike|motorcycle", r"电驴|小电驴|电动车|电瓶车|摩托"),
    "instrument": (r"guitar|strat|telecaster|piano|keyboard|violin|cello|ukulele|drums?|drum kit|saxophone|sax|flute",
                   r"吉他|钢琴|电钢|小提琴|大提琴|古筝|琵琶|尤克里里|架子鼓|萨克斯|长笛|那把琴|这把琴|琴挂|琴卖|那台琴|琴"),
    "vacuum": (r"vacuum|hoover|roomba|dyson|shark|roborock|stick vac|cordless vac", r"吸尘器|扫地机|扫地机器人|戴森|追觅|科沃斯|石头扫地"),
    "sewing machine": (r"sewing machine|bernina|janome", r"缝纫机"),
    "coffee machine": (r"coffee machine|espresso machine|nespresso|breville|delonghi|de'longhi|moka pot", r"咖啡机"),
    "router": (r"router|wi-?fi router|mesh", r"路由器|路由"),
    "console": (r"nintendo switch|playstation|ps5|ps4|xbox|steam deck", r"游戏机"),
    "headphones": (r"headphones|earbuds|airpods|earphones", r"耳机"),
    "bike": (r"bike|bicycle|road bike", r"自行车|单车|公路车|山地车"),
    "dog": (r"dog|pup|puppy|doggo|corgi|shiba|greyhound|labrador|retriever|poodle|terrier|husky|old boy|old girl",
            r"狗|狗子|狗狗|柯基|柴犬|金毛|泰迪|哈士奇|拉布拉多|边牧|田园犬"),
    "cat": (r"cat|kitty|kitten", r"猫|猫咪|橘猫|布偶|英短|美短|狸花"),
    "small pet": (r"hamster|rabbit|bunny|guinea pig|ferret|parrot|budgie|turtle|tortoise|gecko",
                  r"仓鼠|兔子|兔兔|豚鼠|雪貂|鹦鹉|虎皮|玄凤|乌龟|守宫"),
}
_PETS = frozenset({"dog", "cat", "small pet"})
# Kinds one has one of at a time: a new one replaces the old ("新表到了", "16 Pro到手").
ONE_AT_A_TIME = frozenset({"phone", "watch", "laptop", "tablet", "camera", "car", "scooter", "vacuum", "router", "sewing machine", "coffee machine"})
# "the guy at the store moved everything to my new iPhone 15": whoever did it, the new one is the user's
MY_NEW = re.compile(r"(?i)\bmy (?:brand[- ])?new\b|新买的|新换的")


def _compiled(table: dict[str, tuple[str, str]]) -> dict[str, re.Pattern[str]]:
    """Each kind's English words (whole words, a plural too) and Chinese ones as one pattern."""
    return {kind: re.compile(rf"(?i:\b(?:{en})s?\b)|{zh}", re.ASCII) for kind, (en, zh) in table.items()}


_KIND_RX = _compiled(_KINDS)

# A thing that went: sold, given away, rehomed, stolen, scrapped, broken beyond repair; a pet
# that died or was given a new home.
GONE = re.compile(
    r"(?i)\b(?:sold|selling it|gave (?:it|him|her|them) (?:away|to)|gave away|went to (?:a|my|our|the)|rehome[ds]?|rehoming|donated|"
    r"(?:got|was|been) stolen|stolen|totall?ed|written off|wrote (?:it|her|him) off|scrapped|died on|finally died|gave up the ghost|"
    r"retired|traded (?:it )?in|passed away|put (?:him|her|it) down|buried|crossed the rainbow bridge|said goodbye|euthani[sz]ed|euthanasia|"
    r"returned (?:it|them)|handed (?:it|them) down|passed (?:it|them) (?:on|down)|got rid of|gave my old)\b"
    r"|送给|送人|送走|送回|托付|转送|转卖|退货|退掉了|留给|给了?我(?:爸|妈|姐|哥|弟|妹|老婆|老公|儿子|女儿|朋友)(?:了|用|玩)|挂(?:了)?闲鱼|出掉了|转手|卖了|卖掉|被偷|偷了|丢了|扔了"
    r"|报废|退役|修不起|没气了|去世|走了|彩虹桥|汪星|喵星|埋在|埋了|送养|领养走|安乐|飞走了|跑丢了|走丢了|老死了|病死了",
    re.ASCII,
)
# A new one of a kind: "the Fender arrived", "新表到了", "刚入了个小米14", "16 Pro到手",
# "picked up my first car", "got a used corolla". Not "my sister got a new phone" (about
# someone else, checked by the caller) nor "also got a second one".
ARRIVED = re.compile(
    r"(?i)\b(?:arrived|came today|showed up|picked up (?:my|a|the|our)|got (?:a|an|my|the|our) (?:new|used|first|refurbished)|"
    r"bought (?:a|an|my|the|our)|went (?:mirrorless|electric)|upgraded to|switched to|caved and bought|just got (?:a|an|the|my)|"
    r"treated myself to (?:a|an|the)|finally (?:got|bought) (?:a|an|the|my)|my (?:brand[- ])?new)\b"
    r"|到了|到手|入了|入手|新买的|刚买了|新入|换新|买了(?:一?[台部块辆个把])|收到了?(?:一?[台部块辆个把])|换了(?:一?[台部块辆个把])|提车|提了(?:一?辆)",
    re.ASCII,
)
_MORE = re.compile(r"(?i)\b(?:also|another|second|too|as well|extra|spare|backup)\b|也|还|又|另一|第二|多了")
# a present for someone else: "给我妈买了个新手机", "got a new phone for my mom", "bought my dad a laptop"
_FOR_SOMEONE = re.compile(
    r"(?i)\bfor (?:my|our|his|her|their) (?!own\b)\w+|\bbought (?:my|our|him|her|them) (?:\w+ )?(?:a|an|the)\b|\b(?:gift|present)\b"
    r"|(?:给|帮|替)(?:我)?(?:爸|妈|爸妈|老爸|老妈|爷爷|奶奶|姥姥|姥爷|外婆|外公|老婆|老公|儿子|女儿|孩子|弟弟|妹妹|哥哥|姐姐|朋友|男朋友|女朋友|他|她)"
    r"|送(?:给)?(?:我)?(?:爸|妈|老婆|老公|儿子|女儿|孩子|朋友|他|她)|礼物"
)
# "the old one", "原来那台", "旧的": a thing named by the clause before
_THE_OLD_ONE = re.compile(r"(?i)\bthe old (?:one|thing)\b|\bold one\b|旧的|原来那|之前那|以前那|老的那")


# What the user goes by somewhere, by its kind: a new one replaces the old ("changed my handle to
# tidepool_" after "my username on the forum is moonpie_88", "ins改成@lily.cooks了", "新号码尾号9902").
_HANDLES: dict[str, tuple[str, str]] = {
    "handle": (r"handle|username|user name|screen ?name|gamertag|display name", r"网名|昵称|用户名|游戏ID"),
    "instagram": (r"instagram|insta|ig", r"ins|小红书号|抖音号"),
    "email": (r"e-?mail|email address", r"邮箱"),
    "phone number": (r"phone number|cell number|mobile number|number ends|sim", r"手机号|电话号码|号码|尾号"),
    "title": (r"job title|title", r"职位|头衔|职称|title"),
    "english name": (r"english name", r"英文名"),
    "channel": (r"blog|channel|podcast", r"公众号|频道|博客|播客"),
}
_HANDLE_RX = _compiled(_HANDLES)
_RENAMED_TO = re.compile(
    r"(?i)\b(?:changed|switched|updated)\b.{0,20}\b(?:to|is)\b|\bis now\b|\bare now\b|\bnew (?:one|handle|number|email|sim)\b|\bgot promoted\b"
    r"|改成|改名(?:叫|为|成)?|换成|变成|改叫|换了|新(?:号码|号|邮箱)|以后叫我|叫我.{1,12}吧|升职"
)


def handles_renamed(clause: str) -> set[str]:
    """The kinds of name or handle a clause says the user now has another of."""
    if not _RENAMED_TO.search(clause):
        return set()
    kinds = {kind for kind, rx in _HANDLE_RX.items() if rx.search(clause)}
    if not kinds and re.search(r"以后叫我|叫我.{1,12}吧", clause):
        kinds = {"english name"}  # "以后叫我Vivian吧" after "我英文名叫Cindy"
    return kinds


def handles_in(text: str) -> set[str]:
    return {kind for kind, rx in _HANDLE_RX.items() if rx.search(text)}


def kinds_in(text: str) -> set[str]:
    """The kinds of thing `text` names."""
    return {kind for kind, rx in _KIND_RX.items() if rx.search(text)}


def gone_kinds(clause: str, message: str) -> set[str]:
    """The kinds of thing the clause says went; "旧的挂闲鱼了" takes its kind from the message."""
    if not GONE.search(clause):
        return set()
    kinds = kinds_in(clause)
    if not kinds and _THE_OLD_ONE.search(clause):
        kinds = kinds_in(message)
    return kinds


def arrived_kinds(clause: str) -> set[str]:
    """The one-at-a-time kinds a clause says a new one of arrived."""
    if not ARRIVED.search(clause) or _MORE.search(clause) or _FOR_SOMEONE.search(clause):
        return set()
    # the thing that came is the first one named: "just got a Pixel 9, the camera is wild" is a phone
    found = [(m.start(), kind) for kind, rx in _KIND_RX.items() if kind in ONE_AT_A_TIME and (m := rx.search(clause))]
    return {min(found)[1]} if found else set()


def is_pet(kind: str) -> bool:
    return kind in _PETS


__all__ = ["ARRIVED", "GONE", "MY_NEW", "ONE_AT_A_TIME", "arrived_kinds", "gone_kinds", "handles_in", "handles_renamed", "is_pet", "kinds_in"]
