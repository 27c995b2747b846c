"""Requests to forget, found in what the user says ("forget my address", "以后别再提我前男友了").

A forget request is never stored: not as a memory, not as a vector, not as injected text. The
write path hands its target to the forget flow (find the matching memories, confirm, delete)
and keeps nothing of the clause, nor of the other clauses of the message that name the target.

The detector is wider than the rule extractors' "forget …" patterns: imperative forms of
forget/delete/erase/stop remembering/don't bring up in both languages, with or without a
polite frame, the target before the verb (把…忘了) or after it. A statement that the user
forgot something ("I forgot my keys", "我忘了带伞") is not a request.
"""

from __future__ import annotations

import re

from assistant.memory.extract.common import clean

_EN_VERB = (
    r"forget|unlearn|stop remembering|don't remember|do not remember|delete|erase|remove|wipe|clear|drop|scrub|purge|scratch|"
    r"(?:never|don't|do not|stop)\s+(?:mention(?:ing)?|bring(?:ing)?\s+up|talk(?:ing)?\s+about|ask(?:ing)?\s+(?:me\s+)?about|remind(?:ing)?\s+me\s+of)|"
    # "would you mind not keeping that thing about my mom's health", "stop saving that"
    r"(?:mind\s+)?(?:not|don't|do not|stop|quit)\s+(?:keep(?:ing)?|stor(?:e|ing)|sav(?:e|ing)|record(?:ing)?|remember(?:ing)?|hold(?:ing)?\s+on\s+to)"
    r"(?=\s+(?:that|this|it|those|these|the|my|any|anything|everything|about|what|stuff|info)\b)"
)
# "I don't want that remembered", "I'd rather it not be stored": the target comes first.
_EN_NOT_WANTED = re.compile(
    r"(?i)^(?:i\s+)?(?:don't|do not|dont)\s+want\s+(?P<target>.{1,40}?)\s+(?:remembered|stored|saved|kept|on record|in (?:your )?memory)\b"
    r"|^i'?d\s+rather\s+(?:you\s+)?(?P<target2>.{1,40}?)\s+(?:not\s+be\s+(?:stored|saved|kept|remembered)|(?:didn't|did not)\s+(?:keep|store|save|remember))"
)
_EN_REQUEST = re.compile(
    r"(?i)^(?:(?:please|pls|plz|ok|okay|hey|and|actually|also|oh|btw|so|wait|hmm|just|now|then)[\s,]+)*"
    r"(?:(?:can|could|would|will)\s+(?:you|u|ya)\s+(?:please\s+|pls\s+|just\s+)?|i\s+(?:want|need|would like|'d like)\s+you\s+to\s+|i'd\s+like\s+you\s+to\s+|you\s+(?:should|can|must)\s+|let's\s+)?"
    rf"(?:{_EN_VERB})\b\s*(?P<target>.*)$"
)
_EN_TARGET_LEAD = re.compile(
    r"(?i)^(?:(?:about|all about|everything|anything|all|whatever|what)\s+)*(?:(?:you\s+(?:know|remember|have|'ve got|saved|stored|learned)|i\s+(?:told|said to)\s+you|i\s+(?:said|told you|mentioned|wrote))\s+)?"
    r"(?:about|regarding|on|of)?\s*(?:the\s+(?:memor(?:y|ies)|notes?|info|information|stuff|thing|things|part|bit|fact)\s+(?:about|on|regarding|of|that)\s+)?(?:the fact that\s+)?"
)
_EN_TARGET_TAIL = re.compile(
    r"(?i)(?:[\s,]+(?:please|pls|plz|for me|from (?:your )?memory|forever|for good|completely|entirely|ok|okay|now|too|as well|thanks|thx|again|anymore|ever again))+\W*$"
)
_ZH_VERB = r"忘掉|忘记|忘了|忘|删掉|删了|删除|清除|清掉|抹掉|去掉|移除|(?i:delete|forget|remove|erase)"
_ZH_REQUEST = (
    # 把…忘了 / 将…删掉
    re.compile(rf"(?:^|[，,\s])(?:请|麻烦|你)?(?:帮我|给我)?(?:就)?(?:把|将)(?P<target>.{{1,40}}?)(?:都|全|全部|统统|通通|一起|全都)?(?:给)?(?:{_ZH_VERB})(?:掉|了|吧|哈|啊|呗|好吗|可以吗|行吗|\s)*$"),
    # X那事别记了 / X的事忘了吧
    re.compile(r"^(?P<target>.{1,30}?)(?:那个事|这个事|那事|那件事|这事|这件事|的事|的事情|那条|这条|那个|的那些|相关的|有关的)(?:你)?(?:就)?(?:都|全)?(?:别|不要|不用)?(?:再)?(?:记着|记住|记得|记|存|提|忘了|忘掉|删了|删掉)(?:了|吧|啦|哈)*$"),
    # 以后别再提X了 / 不要再记着X / 别记X
    re.compile(r"(?:以后|今后|从今往后|从现在起)?(?:你)?(?:就)?(?:别|不要|不用|不许|甭|(?<![我你他她])不想(?:让你|你)?)(?:再)?(?:跟我|和我|对我)?\s*(?:提|提起|提到|说起|记着|记住|记得|记|存|留着|保存|问|(?i:bring up|mention))(?:起|到)?\s*(?P<target>.{1,40}?)(?:了|啦|吧|哈|啊|的事|的事情|好吗|好不好|行吗|可以吗|\s)*$"),
    # 之前说的X那个……当我没说过 / X就当没说
    re.compile(r"^(?P<target>.{1,30}?)(?:那个|那件事|的事|那事)?(?:…|\.{2,}|，|,|\s)*(?:能不能|可不可以|你)?(?:就)?当(?:我)?没说(?:过)?"),
    # 忘掉X / 删除X
    re.compile(rf"^(?:请|麻烦|你)?(?:帮我|给我)?(?:{_ZH_VERB})(?:掉)?(?:关于|有关)?(?P<target>.{{1,40}})$"),
    # the target first and the verb bare: "旧号码你忘了吧", "那个地址就删了吧" (the asking particle
    # makes it a request; "钥匙忘了" is what the user forgot)
    re.compile(r"^(?![我你他她])(?!.*(?:是不是|是否|有没有|会不会))(?P<target>[^，,。！!？?]{1,30}?)(?:你|就|都|也|给我)*(?:忘了|忘掉|忘记|删了|删掉|别记了|不用记了)(?:吧|好吗|呗|啦)+$"),
    # "不太想留着": the wish alone, its target told beside it ("刚才吃药那个事你别记了 删掉吧 不太想留着")
    re.compile(r"^(?P<target>)(?:我)?(?:不太|不|不是很)想(?:让你)?(?:留着|记着|存着|被记住)(?:了|吧|啦)*$"),
    # code-switched, the target first: "之前说的 salary 数字 forget it 吧"
    re.compile(r"^(?![我你他她])(?P<target>.{1,30}?)\s*(?i:forget|delete|erase|remove)\s+(?i:it|that|this|them)\b(?:\s*(?:吧|了|啊|哈|呗|好吗|ok|okay|please|pls))*$"),
)
_LATIN_TAIL = re.compile(r"(?<=[\u4e00-\u9fff])[\s,，。.!！~～]*(?i:(?!(?:forget|delete|erase|remove)\b)[a-z][a-z\s'’,.!?~]{0,40})$")
_ZH_STATEMENT = re.compile(r"^我(?:又|还|都|也|竟然|居然|差点)?(?:忘了|忘记了?|忘带|删了)|不小心删|忘了带|忘记带|忘了拿")
_ZH_TRIM = re.compile(
    r"^(?:算了\s*)?(?:之前|上次|刚才|以前)?(?:跟你|和你|对你)?(?:说的|讲的|提的)?(?:都|全)?(?:跟|和|与)?(?:关于|有关)?(?:我的|我)?"
    r"|(?:有关的|相关的|有关|相关|的事情|的事|那件事|这件事|那事|这事|那些|这些|那条|这条|那个|这个|的记忆|的信息|的内容|的一切|一切|所有|全部|都|的)+$"
)
# "forget I ever said that", "forget what I told you": nothing named
_SAID_THAT = re.compile(r"(?i)^(?:that\s+|what\s+)?i\s+(?:ever\s+|just\s+)?(?:said|told you|mentioned|wrote)(?:\s+(?:that|this|it|earlier|before|to you))*$")
_OBJECT_PRONOUN = re.compile(r"(?i)^(?:me|us|you|him|her|them)\b")
_VAGUE = frozenset("it this that everything anything something me all 它 这个 那个 这 那 吧 了 一切 所有".split())


# "the therapy stuff from the other day": when it was said is no part of what to forget
_EN_WHEN_SAID = re.compile(
    r"(?i)\s+(?:(?:from|of)\s+)?(?:the other day|before|earlier|yesterday|last (?:time|week|night|month)|our last (?:chat|conversation))\W*$"
)


def _en_target(raw: str) -> str:
    target = re.split(r"(?i)\s*(?:[;(?,]|\s-\s|\bbut\b|\bkeep\b|\bthough\b|\btho\b|\bthanks\b|\bthx\b|\bthank you\b)", raw, maxsplit=1)[0]
    # "that thing about my mom's health", "the weight thing I told you", "the Bunny stuff"
    target = _EN_WHEN_SAID.sub("", target.strip())
    thing = re.match(r"(?i)^(?:all\s+)?(?:that|the|this|those)\s+(?:(?P<what>.{1,30}?)\s+)?(?:thing|things|stuff|part|bit|info)\b(?:\s+(?:about|on|with)\s+(?P<about>.+?))?(?:\s+(?:i|that i)\s+(?:told|said|mentioned)\b.*)?$", target.strip())
    if thing is not None and (thing.group("what") or thing.group("about")):
        target = thing.group("about") or thing.group("what") or ""
    target = _EN_TARGET_TAIL.sub("", target.strip().rstrip("?!.,"))
    target = _EN_TARGET_LEAD.sub("", target)
    target = re.sub(r"(?i)^(?:my|the|that|those|these|his|her|their|our)\s+", "", target)
    target = re.sub(r"(?i)(?<=\w)\s+(?:thing|things|stuff|part|bit|info)$", "", target)  # "what i said about the divorce stuff"
    return clean(target)


# What a target's "的事" ends: "买房的事 deal fell through" is about buying the house.
_ZH_THING_END = re.compile(r"(?:的事情|的事|那件事|这件事|那个事|那条|这条)")


def _zh_target(raw: str) -> str:
    end = _ZH_THING_END.search(raw, 1)  # not at its start: "那条狗的事" is about the dog
    target = raw[: end.start()] if end is not None else raw
    target = re.sub(r"[吧啊呀呢哈嘛啦]+$", "", target.strip())  # "忘掉我住哪吧"
    for _ in range(3):
        target = _ZH_TRIM.sub("", clean(target)).strip()
    return target


def forget_target(clause: str) -> str | None:
    """The target of a forget request in `clause`; "" for one with no usable target
    ("forget it"); None when the clause is not a forget request."""
    text = clause.strip().rstrip("。！!？?~～ ")
    if not text:
        return None
    if re.search(r"[\u4e00-\u9fff]", text):
        text = re.sub(r"(?i)^(?:(?:please|pls|plz|ok|okay|hey|also|btw|oh|actually|and|so|hmm|um)[\s,]+)+", "", text)  # "please forget 我的地址"
        if _ZH_STATEMENT.search(text):
            return None
        # "把我前任的事都删了吧 not worth it": an English afterthought is no part of the request
        bare = _LATIN_TAIL.sub("", text)
        for candidate in dict.fromkeys((text, bare)):
            for rx in _ZH_REQUEST:
                m = rx.search(candidate)
                if m:
                    target = _zh_target(m.group("target"))
                    return "" if target in _VAGUE else target
        return None
    m = _EN_REQUEST.match(text)
    if m is None:
        wanted = _EN_NOT_WANTED.match(text)
        if wanted is None:
            return None
        target = _en_target(wanted.group("target") or wanted.group("target2") or "")
        return "" if target.lower() in _VAGUE or not target else target
    target = _en_target(m.group("target"))
    if _OBJECT_PRONOUN.match(target):
        return None  # "don't keep me waiting"
    return "" if target.lower() in _VAGUE or not target or _SAID_THAT.match(target) else target


# Where a request may start inside a clause: "I switched teams 🙌 so please forget everything
# about Grayson", "I got a new phone number, please forget my old number", "搬家了，把旧地址忘了吧".
_REQUEST_START = re.compile(r"[,，;；]\s*|(?i:\b(?:so|and|but|also|then|now)\s+)(?=(?i:please|pls|can you|could you|forget|delete|erase|remove))|(?=(?i:\bplease\b|\bpls\b))")


def find_forget_request(clause: str) -> str | None:
    """The target of a forget request anywhere in `clause` (see `forget_target`)."""
    target = forget_target(clause)
    if target is not None:
        return target
    for m in _REQUEST_START.finditer(clause):
        if m.end() < len(clause) and (target := forget_target(clause[m.end():])) is not None:
            return target
    return None


def is_forget_request(clause: str) -> bool:
    return find_forget_request(clause) is not None


__all__ = ["find_forget_request", "forget_target", "implied_target", "is_forget_request", "vault_kinds_named"]


# What a forget request's target calls each kind of vaulted value ("my old number", "我的地址").
_VAULT_KIND_WORDS = (
    ("phone", r"(?i)\b(?:phone|cell|mobile|number)\b|手机|电话|号码"),
    ("address", r"(?i)\baddress\b|地址|住址"),
    ("email", r"(?i)\be-?mail\b|邮箱"),
    ("passport", r"(?i)\bpassport\b|护照"),
    ("id_number", r"(?i)\bid\b|身份证"),
    ("bank_card", r"(?i)\bcard\b|银行卡|卡号"),
    ("password", r"(?i)\bpass(?:word|code)\b|密码"),
    ("ssn", r"(?i)\bssn\b|social security"),
    ("license_plate", r"(?i)\bplate\b|车牌"),
)


def vault_kinds_named(target: str) -> set[str]:
    """The kinds of vaulted values a forget request's target names."""
    return {kind for kind, rx in _VAULT_KIND_WORDS if re.search(rx, target)}


_THING = re.compile(
    r"(?i)\bthe\s+(?P<what>[A-Za-z][\w'-]{1,20}(?:\s+[\w'-]{1,20})?)\s+(?:thing|stuff|part|bit)\b"
    r"|(?P<zh>[\u4e00-\u9fffA-Za-z]{2,10}?)(?:那件事|那事|的事|那个)"
)


def implied_target(message: str) -> str:
    """What a vague request ("forget I ever said that") points at, from the rest of the message:
    "ok the Bunny thing is cringe, forget I ever said that" → "Bunny"."""
    m = _THING.search(message)
    if m is None:
        return ""
    if m.group("zh"):
        return _zh_target(m.group("zh"))  # "刚才吃药那个事" → 吃药
    return clean(m.group("what") or "")
