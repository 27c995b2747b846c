"""The people (and pets) in what the user says, by who they are to the user.

One table serves the write path and the read path:

- `about_someone_else`: a clause whose subject is another person ("我妹九月去东京读研", "my
  roommate Kevin works at Google", "旁边那个大哥看到一半睡着了") is not about the user's own
  city, job or diet, however its words read;
- `people_in` / `people_asked`: a request about some of them wants what was said about
  *them*: "周末带爸妈去哪玩" brings the mother's birthday, not the sister's plans or the
  boss's diet. A request that names nobody in particular ("we", "一起", "guests", "him")
  may use what was said about anyone.
"""

from __future__ import annotations

import functools
import re

from assistant.memory.text import has_han

# group -> (English words, Chinese words). English words count as whole words (plural -s
# allowed), Chinese ones anywhere.
PEOPLE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "partner": (
        ("wife", "husband", "partner", "spouse", "fiance", "fiancé", "fiancee", "fiancée", "boyfriend", "girlfriend",
         "bf", "gf", "hubby", "wifey", "ex"),
        ("老婆", "老公", "妻子", "丈夫", "媳妇", "爱人", "对象", "男朋友", "女朋友", "男友", "女友", "男票", "女票",
         "前任", "前男友", "前女友", "孕妇"),
    ),
    "child": (
        # "my youngest", "a parent-teacher meeting", "家长会": a child, though none is named
        ("son", "daughter", "kid", "kiddo", "child", "children", "baby", "toddler", "teen", "teenager",
         "youngest", "oldest", "eldest", "parent-teacher"),
        ("儿子", "女儿", "闺女", "孩子", "娃", "宝宝", "儿童", "小孩", "小朋友", "家长会"),
    ),
    "parent": (
        ("mom", "mum", "mother", "dad", "father", "parent", "folks", "elderly"),
        ("爸爸", "妈妈", "老爸", "老妈", "父母", "父亲", "母亲", "爸", "妈", "老人", "长辈"),
    ),
    "sibling": (
        ("sister", "brother", "sis", "bro"),
        ("哥哥", "姐姐", "弟弟", "妹妹", "哥", "姐", "弟", "妹"),
    ),
    "grandparent": (
        ("grandma", "grandpa", "grandmother", "grandfather", "gran", "granny", "nan", "nana", "grandparent"),
        ("爷爷", "奶奶", "外公", "外婆", "姥姥", "姥爷"),
    ),
    "relative": (
        ("aunt", "auntie", "uncle", "cousin", "niece", "nephew", "in-law", "in-laws"),
        ("舅舅", "姑姑", "姨妈", "叔叔", "婶婶", "表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹",
         "侄子", "侄女", "外甥", "亲戚", "公公", "婆婆", "岳父", "岳母", "丈母娘"),
    ),
    "friend": (
        ("friend", "bestie", "buddy", "mate", "pal"),
        ("朋友", "闺蜜", "同学", "哥们", "发小", "好友", "兄弟"),
    ),
    "work": (
        ("boss", "manager", "colleague", "coworker", "co-worker", "client", "teammate"),
        ("老板", "领导", "同事", "客户", "上司", "组长"),
    ),
    "home": (
        ("roommate", "flatmate", "housemate", "neighbour", "neighbor", "landlord", "landlady"),
        ("室友", "舍友", "邻居", "房东"),
    ),
    "pet": (
        ("dog", "cat", "puppy", "kitten", "pet", "rabbit", "hamster", "parrot"),
        ("狗子", "猫咪", "狗", "猫", "宠物", "兔子", "仓鼠", "鹦鹉"),
    ),
    "care": (
        ("teacher", "doctor", "nanny", "cleaner", "tutor"),
        ("老师", "医生", "保姆", "阿姨"),
    ),
}


def _words(index: int, groups: tuple[str, ...] | None = None) -> str:
    found = [w for g, words in PEOPLE.items() if groups is None or g in groups for w in words[index]]
    return "|".join(re.escape(w) for w in sorted(set(found), key=len, reverse=True))


# Who can be a clause's subject: not the doctor or the teacher, who mostly report about the
# user ("医生说是慢性胃炎，要我三餐规律", "my doctor says I'm anaemic").
_SUBJECTS = tuple(g for g in PEOPLE if g != "care")
_EN = _words(0, _SUBJECTS)
_ZH = _words(1, _SUBJECTS)
# A breed names a pet ("pet supplies" finds "朋友送了我一只柯基") but starts no clause of its own:
# "我家狗子叫可乐，柯基，两岁了" is one dog.
_BREEDS = (
    r"corgi|labrador|retriever|poodle|terrier|husky|beagle|shiba|dachshund|pug|collie|spaniel|greyhound|tabby",
    r"柯基|柴犬|金毛|泰迪|哈士奇|布偶|英短|橘猫",
)
_BY_GROUP = {
    group: re.compile(
        rf"(?i)\b(?:{_words(0, (group,))}{'|' + _BREEDS[0] if group == 'pet' else ''})s?\b"
        rf"|{_words(1, (group,))}{'|' + _BREEDS[1] if group == 'pet' else ''}",
        re.ASCII,
    )
    for group in PEOPLE
}

# Any of them, a breed too: "我养了只玄凤鹦鹉" ends on one.
BEINGS = re.compile(rf"(?i)\b(?:{_words(0)}|{_BREEDS[0]})s?\b|{_words(1)}|{_BREEDS[1]}", re.ASCII)

# The subject of a clause, when it is not the user. The patterns here take ASCII word
# boundaries: "我的boss说" has one between 的 and boss, and one between boss and 说.
# What may come before the subject: "and", "btw", "today", "对了", "今天"…
# (and a cry: "哈哈 我同事家那只柯基叫旺财", "lol my sister just got engaged")
_LEAD_EN = r"(?:(?:and|but|so|also|btw|oh|plus|then|anyway|today|yesterday|this morning|last night|lol|haha+|omg|ugh|wow)[\s,!.]+){0,2}"
_LEAD_ZH = r"(?:对了|还有|另外|然后|而且|不过|但是|今天|昨天|今早|昨晚|刚才|刚刚|哈哈+|唉+|哎+|啊+|呃|天哪|[，,！!\s])*"
_OTHER_EN = re.compile(
    rf"(?i)^{_LEAD_EN}(?:(?:my|our)\s+(?:[\w'-]+\s+){{0,2}}?(?:{_EN})s?\b"
    r"|(?:he|she|they|he's|she's|they're|his|her|their)\b"
    # strangers: "the Uber driver", "a guy at the gym", "a stray cat"
    r"|(?:(?:the|this|that|some|a|an|my|our)\s+(?:[\w'-]+\s+)?|[\w'-]+\s+)(?:guy|girl|woman|man|lady|dude|person|stranger|driver|waiter|waitress|cashier)\b"
    r"|(?:the|this|that|some|a|an)\s+(?:kid|stray)\b|stray (?:cat|dog)s?\b)",
    re.ASCII,
)
_OTHER_ZH = re.compile(
    rf"^{_LEAD_ZH}(?:(?:我|我们)?(?:的|家|家的)?\s*(?:{_ZH}|(?i:(?:{_EN})s?)\b)"
    r"|(?:他|她|他们|她们|它)"
    # strangers: "旁边那个大哥", "隔壁老王", "楼下的小孩", "那个司机", "Grab 司机", "楼下那只流浪猫"
    r"|(?:旁边|隔壁|对面|前面|后面|前排|后排|楼上|楼下|路边|小区里?)?(?:的)?(?:那|这)?(?:个|位|只|条)?"
    r"(?:大哥|大姐|大叔|大爷|大妈|小哥|小姐姐|男的|女的|哥们|老外|司机|师傅|店员|服务员|小孩|老[王李张刘陈杨赵黄周吴]"
    r"|流浪猫|流浪狗|野猫|野狗|(?i:[a-z]+\s?)(?:driver|司机)))",
    re.ASCII,
)

# Words that ask about others without saying which: any of them may matter.
_ANYONE = re.compile(
    r"(?i)\b(?:we|us|our|ours|together|family|guests?|everyone|him|her|his|she|he|they|them|their|date night|anniversary|"
    r"party|potluck|get-together|hosting)\b"
    r"|我们|咱们|一起|家人|家里人|全家|一家|客人|大家|聚餐|聚会|请客|家宴|(?<![其吉])他|她|(?<!其)它|约会",
    re.ASCII,
)

ANYONE = frozenset(PEOPLE)

# The user speaking of themself.
FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|im|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|our|ours|us)\b|我|咱", re.ASCII)




# What someone gives the user is the user's: "朋友送了我一只柯基", "my brother got me a bike".
# ("我哥送我妈去医院" is the brother's: what follows 送我 there is a person, not a thing)
_TO_THE_USER = re.compile(
    r"(?i)\b(?:gave|got|bought|sent|lent|left) me\b|(?:送|给|借|留)了我|(?:送|给|借|留)我(?:一|个|只|条|件|本|台|辆|张|套|束|份)",
    re.ASCII,
)


# A person (or pet) named beside the word for who they are: "my friend raj", "my boss Dana",
# "Raj (my roommate)", "我同事叫周婷", "朋友 raj", "闺蜜Anna". An English name after the word
# may be lower case (people type that way); a few words that follow it are no name.
_NOT_A_NAME = frozenset(
    "a an and the is was who just got has had have from at in on of to for with said says told tells wants will "
    "can could does did lives works moved just also really still always never is's and's "
    "here there too again back now today yesterday then so but or".split()
)
_ALL_EN = _words(0)
_ALL_ZH = _words(1)
_INTRODUCED = re.compile(
    rf"(?i)\b(?:my|our)\s+(?:(?:best|old|close|little|big|younger|older|new)\s+)?(?:{_ALL_EN})s?,?\s+(?:named\s+|called\s+)?(?P<en>[A-Za-z][a-z]{{1,14}})\b"
    rf"|\b(?P<cap>[A-Z][a-z]{{1,14}})\s+\((?:my|our)\s+(?:{_ALL_EN})\)"
    rf"|(?:{_ALL_ZH})(?:(?:叫|名叫|名字叫)\s*(?P<zh>[\u4e00-\u9fff]{{2,3}})|(?:叫|名叫)?\s*(?P<lat>[A-Za-z][A-Za-z]{{1,14}})(?![A-Za-z]))",
    re.ASCII,
)
# "他", "she", "him": a clause that speaks of someone named before it
_PRONOUN = re.compile(r"(?i)\b(?:he|she|him|his|her|he's|she's|hers)\b|[他她](?!们)", re.ASCII)


def named_people(text: str) -> list[str]:
    """The names `text` gives people (and pets) it introduces by who they are, in order."""
    out: list[str] = []
    for m in _INTRODUCED.finditer(text):
        name = next(g for g in m.group("en", "cap", "zh", "lat") if g)
        folded = name.casefold()
        # a lower-case word that reads as a verb or an adverb is what they do: "my mom loves it"
        verb_like = name.islower() and re.search(r"(?:s|ed|ing|ly)$", name) is not None
        if folded not in _NOT_A_NAME and folded not in _ALL_EN.split("|") and not verb_like:
            out.append(name)
    return out


# A Chinese name said right after who the person is, without 叫: "我闺蜜小雨海鲜过敏" (two
# characters, after a word of two or more: "我哥今天…" names no one 今天).
_ROLE_THEN_NAME = re.compile(
    "(?:" + "|".join(re.escape(w) for w in sorted({w for _en, zh in PEOPLE.values() for w in zh if len(w) >= 2}, key=len, reverse=True))
    + r")([\u4e00-\u9fff]{2})"
)


def names_them(memory_text: str, query: str) -> bool:
    """Whether `query` names a person `memory_text` speaks of: "cooking for raj tonight" and
    "my friend raj hates cilantro", "小雨来我家吃饭" and "我闺蜜小雨海鲜过敏"."""
    folded = query.casefold()
    if any(name.casefold() in folded for name in named_people(memory_text)):
        return True
    return any(m.group(1) in query for m in _ROLE_THEN_NAME.finditer(memory_text))


def refers_back(clause: str) -> bool:
    """Whether a clause speaks of someone by a pronoun ("但是他对 nuts 过敏", "she hates cilantro")
    before it names anyone else ("my mom says she…" speaks of the mother, not of who came before)."""
    pronoun = _PRONOUN.search(clause)
    if pronoun is None:
        return False
    before = clause[: pronoun.start()]
    return not any(rx.search(before) for rx in _BY_GROUP.values())


def _subject(text: str) -> re.Match[str] | None:
    """Another person (or a pet) as the subject that starts `text`; in Chinese text also one
    said in English ("my dad 住院了", "my roommate 说她要 go keto")."""
    if has_han(text):
        return _OTHER_ZH.match(text) or _OTHER_EN.match(text)
    return _OTHER_EN.match(text)


@functools.lru_cache(maxsize=8192)
def about_someone_else(clause: str) -> bool:
    """True when the clause's subject is another person (or a pet), not the user."""
    text = clause.strip()
    return _subject(text) is not None and _TO_THE_USER.search(text) is None


# The user in a clause about someone else, as its subject or object ("他走了可能他手上的活都得我接",
# "my sister thinks I should move"); not "our" or "we", which a story about others says too.
_USER_TAKES_PART = re.compile(r"(?i)\b(?:i|i'm|im|i've|i'll|i'd|me|myself)\b|我(?!们)|咱", re.ASCII)


def user_takes_part(text: str) -> bool:
    """Whether the user is a subject or object in `text` ("对了我在南昌当护士", "she told me")."""
    return _USER_TAKES_PART.search(text) is not None


@functools.lru_cache(maxsize=8192)
def about_others_only(clause: str) -> bool:
    """True when the clause is about someone else and the user takes no part in it
    ("我闺蜜小雨海鲜过敏", "my roommate is going keto")."""
    text = clause.strip()
    subject = _subject(text)
    if subject is None or _TO_THE_USER.search(text) is not None:
        return False
    return _USER_TAKES_PART.search(text, subject.end()) is None


# A request about the user alone: "which city do I live in?", "what am I allergic to", "我自己下周
# 有啥安排", "我在哪个城市工作来着" — not one the user's people may share ("what should I cook").
_OF_SELF = re.compile(
    r"(?i)\b(?:myself|me personally)\b|\b(?:do|did) i (?:live|work|study|own|take|drive|use|weigh|go to)\b|\b(?:am|was) i\b"
    r"|\bwhat i'?m\b|\bwhere i (?:live|work|am)\b"
    r"|\b(?:my bio|about me)\b|我自己|我本人|我(?:在|住|是)哪|我(?:是|在)(?:做)?什么(?:工作|的)|我叫什么|我多大|个人简介|自我介绍"
)


def asks_of_self(query: str) -> bool:
    return _OF_SELF.search(query) is not None


@functools.lru_cache(maxsize=8192)
def people_in(text: str) -> frozenset[str]:
    """The groups of people (and pets) `text` names anywhere."""
    return frozenset(group for group, rx in _BY_GROUP.items() if rx.search(text))


def people_asked(query: str) -> frozenset[str]:
    """Whose memories a request may use besides the user's own: the groups it names, every
    group when it names others without saying who ("we", "一起", "him"), none otherwise."""
    if _ANYONE.search(query):
        return ANYONE
    return people_in(query)


def admits(memory_text: str, asked: frozenset[str]) -> bool:
    """Whether a memory may answer a request that asks about `asked` (see `people_asked`):
    the user's own always, another person's when the request is about them."""
    if not about_someone_else(memory_text):
        return True
    if not asked:
        return False
    named = people_in(memory_text)  # none: "她不会英文" — whoever she is, the request is about someone
    # a pet a person is named with is theirs: "我同事家那只柯基叫旺财" answers no question about the user's cat
    owners = named - {"pet"}
    return asked == ANYONE or not named or bool(asked & (owners or named))


__all__ = ["ANYONE", "BEINGS", "asks_of_self", "FIRST_PERSON", "PEOPLE", "about_others_only", "about_someone_else", "admits", "named_people", "names_them", "people_asked", "people_in", "refers_back", "user_takes_part"]
