"""The update decision: add, bump a duplicate, or supersede what the new memory replaces.

- A slotted fact (`user.city`) replaces the active facts of its slot that hold another value.
- Any memory of a one-value topic (where the user lives, works, what they eat, drive, use)
  replaces the older memories of that topic — episodes included — when it names a different
  value ("搬到苏州" after "我住在杭州"), or says the old value ended ("I quit", "不再吃素").
  A tentative clause ("thinking about moving to Denver") replaces nothing.
- A memory that repeats an active one (same text, or a near-identical vector) bumps it.

Superseded memories stay in history and come back on restore. A semantic fact's source
episode goes with it: when the fact is superseded, so is the episode it was distilled from.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Collection, Sequence
from datetime import timedelta, tzinfo

import numpy as np

from assistant.clock import from_ts, to_ts
from assistant.memory.changes import change_likelihood
from assistant.memory.episodes import dated, weekdays_of, weekly_routine
from assistant.memory.glossary import things_named
from assistant.memory.noise import CORRECTION
from assistant.memory.people import about_someone_else, people_in
from assistant.memory.service import MemoryService
from assistant.memory.similarity import floors, script
from assistant.memory.store import NewMemory
from assistant.memory.text import EN_STOP, has_cjk, match_expression, normalize, tokens
from assistant.memory.things import (
    MY_NEW,
    arrived_kinds,
    gone_kinds,
    handles_in,
    handles_renamed,
    is_pet,
    kinds_in,
)
from assistant.memory.topic_model import likely_topics
from assistant.memory.topics import (
    ABSTAINED,
    BY_SLOT,
    CHANGE,
    ENDED,
    HOMETOWN,
    LIVES_NOW,
    PARTNERED,
    RECOVERED,
    RESCHEDULED,
    REVERSED,
    SINGLE,
    TENTATIVE,
    TOPICS,
    Topic,
    cue_topics,
    names_a_partner,
    new_values,
    says_single,
    value_terms,
    value_words,
)
from assistant.memory.types import (
    Action,
    Candidate,
    Category,
    Change,
    Kind,
    Memory,
    Source,
    Status,
    Turn,
)

# A correction ("wait no its april 21") stands in for a statement of the last few days at
# least this near to it (rescaled similarity).
_CORRECTED_SIMILARITY = 0.3
_CORRECTS_WITHIN = 3 * 86400
# ... or, when it gives a name spelled again or a number of the same shape ("lol i was wrong,
# it's locker 181" a week after "my gym locker is 118"), a statement of these last weeks.
_RESPELLS_WITHIN = 30 * 86400
# A number with what names it: "CX 872", "初二", "7岁", "3rd grade" (its shape: the same with "#"
# for the number, as "CX #", "初#").
_NUMERAL = r"(?:\d+|[一二两三四五六七八九十]+)"
_NUMBERED = re.compile(
    rf"[A-Za-z]+\s?\d+[A-Za-z]*|\d+(?:st|nd|rd|th)?\s?[A-Za-z]+|{_NUMERAL}[\u4e00-\u9fff]|[\u4e00-\u9fff]{_NUMERAL}(?![\u4e00-\u9fff\d])"
)


def _shape(numbered: str) -> str:
    return re.sub(_NUMERAL, "#", numbered.casefold().replace(" ", ""))


# How alike a name spelled again is to the one it corrects (difflib's ratio: Caitlin/Kaitlyn 0.71,
# Monday/Sunday 0.67).
_RESPELLED = 0.7
# A change no rule placed ("switched to evening workouts now") replaces the older statement at
# least this near to it (rescaled similarity).
_CONTRADICTED_SIMILARITY = 0.35
# A message the change classifier (`changes.py`) finds this likely to tell of a change, when no
# rule found what it changed, replaces the older statement nearest to one of its clauses or to
# the whole message, at least `_CHANGED_SIMILARITY` near (rescaled).
_CHANGE_LIKELY = 0.7
_CHANGED_SIMILARITY = 0.3
# ... nearer by this much when both are of the same one-value part of life (where the user
# lives, works, what they eat, drive, use); of a part with many values at a time (pets,
# family, health, likes) only a statement at least `_MANY_VALUES_SIMILARITY` near is replaced:
# "we adopted a rescue greyhound" leaves the cat that died.
_SAME_PART = 0.2
_MANY_VALUES_SIMILARITY = 0.55
# A message at least this likely to tell of a change, near in meaning to nothing said before,
# replaces a statement the text classifier (`topic_model.py`) files under the same part of life
# as the message or one of its clauses (each at least `_PART_LIKELY`), of the newest
# `_PART_SCAN`; in a part with many values at a time, only one that shares a word with it. Not
# for plans, which have rules of their own (called off, moved, made instead).
_CHANGE_SURE = 0.8
# What a change by meaning leaves of the ended statement's message, in its part of life: the words
# the text classifier files at least this likely under a part with many values at a time.
_SPARED_PARTS = frozenset({"user.health", "user.allergy", "user.family", "user.pet"})
_SPARED_LIKELY = 0.3
_PART_LIKELY = 0.5
_PART_SCAN = 200
_PART_CHANGES = frozenset(t.slot for t in TOPICS if t.slot != "user.plan")
# the words every distilled fact starts with ("用户希望回答简短。", "User has a dog named Pico."):
# no word in common about a thing
_FACT_WORDS = frozenset({"用户", "user"})
# Not wanting any more ends something ("以前那些打打杀杀的不想看了"): no wish, nothing tentative.
_NO_LONGER_WANTS = re.compile(r"不想|不再想")
# A memory that the change classifier finds this likely to tell of a change itself is history
# ("we finally closed on the house in Denver"), not a state a later change ends.
_TELLS_A_CHANGE = 0.5
# ... not one said as an addition ("started swimming now too", "最近也开始跑步了"), nor one that
# qualifies the old ("I stopped drinking coffee after 3pm" leaves "I love coffee")
_ADDED = re.compile(
    r"(?i)\b(?:too|also|as well|another|a second|on top of|after|before|except|unless|only (?:on|at|in|when|if))\b"
    r"|也|又(?:开始|报了|养了|买了)|还(?:在|有|开始)|除了|只在|(?:点|号)(?:以后|之后|以前|之前)"
)
# Near-duplicates by rescaled similarity: above this a candidate repeats a memory.
DUPLICATE_SIMILARITY = 0.9
OVERRIDE_SIMILARITY = 0.5


def topic_of_slot(slot: str | None) -> Topic | None:
    """The topic a slotted fact belongs to (`user.employer` counts as work, `user.job`)."""
    if not slot:
        return None
    if slot.startswith("user.employer"):
        return BY_SLOT["user.job"]
    best: Topic | None = None
    for topic_slot, topic in BY_SLOT.items():
        if (slot == topic_slot or slot.startswith(topic_slot + ".")) and (best is None or len(topic_slot) > len(best.slot)):
            best = topic
    return best


def _same_value(memory: Memory, candidate: Candidate) -> bool:
    if normalize(memory.content) == normalize(candidate.content):
        return True
    value = (candidate.value or "").strip()
    return bool(value) and normalize(value) in normalize(memory.content) and memory.kind is Kind.SEMANTIC


def _naming_the_plan(candidate: Candidate, replaced: list[Memory]) -> Candidate:
    """A plan moved to another day ("trip 只能推迟到明年2月了") is still the plan it replaces:
    it keeps the names that one had and the things it named (Hokkaido, Niseko, Kevin, 滑雪) —
    not its day — so a question that names them finds it and the prompt says what it is."""
    return _carrying_names(candidate, [m for m in replaced if m.category is Category.GOAL and m.event_at])


def _given_again(name: str, correction: str) -> bool:
    """Whether a correction gives `name` anew: a number ("上三年级"), or a name it spells again
    ("Caitlin" in "it's Kaitlyn")."""
    if re.search(_NUMERAL, name):
        return True
    return any(_respelled(name.casefold(), w.casefold()) for w in _CAPITAL_WORD.findall(correction))


# A name as people capitalise it ("Kaitlyn", "Stephen").
_CAPITAL_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")


def _respelled(a: str, b: str) -> bool:
    """Whether two casefolded names are one spelled two ways ("caitlin", "kaitlyn")."""
    return difflib.SequenceMatcher(None, a, b).ratio() >= _RESPELLED


def _carrying_names(candidate: Candidate, before: list[Memory], *, corrected: bool = False) -> Candidate:
    """`candidate` with the names and things the memories it stands in for named (for a
    correction, not the numbers it corrects: "上三年级" is no name of "是四年级")."""
    said = normalize(candidate.content)
    names = [
        e for m in before for e in [*m.entities, *things_named(m.content)]
        if re.fullmatch(r"[a-z][a-z'\- ]{1,23}|[\u4e00-\u9fff]{2,4}", normalize(e)) and normalize(e) not in said
        and not (corrected and _given_again(e, candidate.content))
    ]
    fresh = {normalize(e): e for e in reversed(names) if normalize(e) not in {normalize(c) for c in candidate.entities}}
    if not fresh:
        return candidate
    return dataclasses.replace(candidate, entities=[*candidate.entities, *reversed(fresh.values())][:12])


# A routine's days changed: "现在改成周二四六", "switched to tue/thu", "now it's mondays instead"
_NEW_DAYS = re.compile(r"(?i)改成|改到|换成|换到|调成|调到|现在|\b(?:now|switched to|moved (?:it |them )?to|changed (?:it |them )?to|instead)\b")


def _the_routine_before(candidate: Candidate, old: Memory) -> Candidate:
    """A routine on new days ("现在改成周二四六") is the one it replaces ("我 gym 是每周一三五"):
    it takes that one's part of life when it names none, and the things it named."""
    if candidate.topic is None and old.topic:
        candidate = dataclasses.replace(candidate, topic=old.topic, topics=[old.topic, *candidate.topics])
    return _carrying_names(candidate, [old])


def replaces(topic: Topic, text: str, old: Memory, value: str | None = None) -> bool:
    """Whether a new statement `text` of a one-value `topic` replaces the older memory `old`."""
    if not topic.single or TENTATIVE.search(text):
        return False
    if topic.changes_only:
        return CHANGE.search(text) is not None
    if topic.slot == "user.city" and HOMETOWN.search(old.content) and not HOMETOWN.search(text):
        return False  # a move leaves where the user comes from
    if topic.slot == "user.city" and HOMETOWN.search(text) and not HOMETOWN.search(old.content) and not LIVES_NOW.search(text):
        return False  # "I grew up in Ohio" leaves where the user lives
    new = {normalize(value)} if value else new_values(text)
    before = value_words(old.content)
    if new and before:
        return not (new & before) or ENDED.search(text) is not None
    if has_cjk(text):
        return CHANGE.search(text) is not None or ENDED.search(text) is not None  # "现在在字节做后端": no name found, the word says it
    # an English statement that names no value needs a word of change, not of time: "I've taken
    # on a second team since last year" leaves "I work at Target"
    return (any(not _WEAK_CHANGE.fullmatch(m.group(0)) for m in CHANGE.finditer(text)) or ENDED.search(text) is not None
            or (topic.slot == "user.job" and _NEW_ROLE.search(text) is not None))


# The parts of life a statement filed under another topic can still change ("下周去字节报到"
# is a plan; "交完工牌那天哭了一场" may be filed nowhere).
_LIFE_PARTS = frozenset({"user.job", "user.school", "user.city"})
# An offer received is a choice ahead; an offer taken is the new job.
_OFFERED = re.compile(
    r"(?i)\b(?:got|get|getting|received|have|had|has)\s+(?:an?\s+|the\s+|two\s+|a few\s+|another\s+)?(?:job\s+)?offers?\b|\boffers?\s+from\b"
    r"|(?:发|给)了?(?:我)?\s?(?:个|一个)?\s?offer|(?:拿到|收到|拿了|有)了?.{0,8}offer"
)
_TOOK_IT = re.compile(r"(?i)\b(?:accepted|took|signed|taking|accepting)\b.{0,16}\boffers?\b|\bsigned (?:it|the contract)\b|接了|接受了|签了|入职|报到")
_WEAK_CHANGE = re.compile(r"(?i)now|since|these days|nowadays|new|started|starting|just started")
# ... but a new job, a first day are changes whatever the words around them ("started my new job
# at costco today")
_NEW_ROLE = re.compile(r"(?i)\bnew (?:job|role|position|gig|employer)\b|\bfirst (?:day|week|shift) at\b|\b(?:my|was my) last day\b")


# A new name: "现在叫布丁", "改名叫豆包", "we renamed him Tofu", "she's called Luna now"
_RENAMED = re.compile(
    r"(?:现在|改名|改)叫\s*(?P<zh>[\u4e00-\u9fff]{1,3}|[A-Za-z][a-z]+)"
    r"|(?i:\brenamed\s+(?:him|her|it|them)\s+)(?P<en>[A-Z][a-z]+)"
    r"|(?i:\b(?:is|'s)\s+(?:called|named)\s+)(?P<now>[A-Z][a-z]+)(?i:\s+now\b)"
)
_ZH_PARTY = re.compile(r"(?:和|跟|与)([\u4e00-\u9fff]{2,3}?)(?=分手|离婚|分开|断了|掰了|分了(?=$|[\s，,。！!~～…]|吧|啊|呀))")


# "the trip's off", "旅行取消了": a plan called off by its kind, not by what it was
_THE_TRIP = re.compile(r"(?i)\b(?:the |our |my )?(?:trip|holiday|vacation|getaway|flight)(?:'s|’s| is| has been| got)?\s+(?:off|cancell?ed|called off)\b"
                       r"|(?:旅行|旅游|行程|出行|度假)(?:计划)?(?:取消了|泡汤了|黄了|去不成了|去不了了)")
_TRAVEL = re.compile(r"(?i)\b(?:trip|fly|flying|flight|travel|hotel|airbnb|holiday|vacation|visit|visiting)\b|[A-Z][a-z]{3,}"
                     r"|旅|飞|机票|酒店|民宿|去[\u4e00-\u9fff]{2,4}玩")


# A plan made in place of another: "黄山不去了…改成在家打麻将了", "我们改去丽江了，时间不变",
# "we're doing Lisbon instead".
_INSTEAD = re.compile(r"(?i)\binstead\b|\brather than\b|改去|改成|改为|换成|换去|转去|改\s?(?=[A-Z])")
# a trip sent to another place: "we're going to Porto instead" (not "going to take the train instead")
_REDIRECTED = re.compile(r"(?i)\b(?:going|heading|flying|driving|off) to (?-i:[A-Z])[\w'-]*[^.!?]{0,20}\binstead\b|改去|换去|转去|改成去|换成去|改\s?(?-i:[A-Z])[a-z]+\s?了")
# A plan by what was booked for it: "booked flights to Lisbon for the easter break"
_BOOKED = re.compile(r"(?i)\b(?:trip|road ?trip|flights?|fly|flying|travel|hotel|airbnb|holiday|vacation|booked|tickets?|getaway)\b|旅|机票|酒店|民宿|门票|车票|自驾")
# How near a plan made "instead" must be to the plan it replaces (rescaled similarity).
_INSTEAD_SIMILARITY = 0.2
# The days of one trip: "4月30号出发" and "五一…去大理玩" are the same plan.
_ONE_TRIP_DAYS = 7 * 86400


# What an injury or an illness stops the user doing, while it lasts.
_RESTRICTION = re.compile(
    r"(?i)\b(?:no (?:running|lifting|sport|sports|gym|exercise|training|swimming|cycling|climbing)|can't|cannot|not allowed|avoid|off (?:work|sport|running)|"
    r"cast|brace|crutches|sling|acting up|flared up|flare-up)\b|不能|不许|禁止|别(?:跑|动|提|搬)|石膏|拐杖|护具|又犯了|犯了"
)
# What a change of heart turns around: a dislike or a restriction ("我超讨厌K-pop", "only drink
# tea", "doing keto, no bread"); what a recovery ends: a condition, or what it kept the user from.
_DISLIKE = re.compile(
    r"(?i)\b(?:hate|hates|can't stand|cannot stand|dislike|don't like|do not like|not a fan|never|vegan|vegetarian|keto|"
    r"only (?:drink|drinks|eat|eats|use|wear|listen to|buy)|no (?:meat|dairy|bread|carbs|sugar|alcohol|caffeine|pasta|rice|coffee)|"
    r"paleo|low[- ]carb|off (?:dairy|sugar|gluten|carbs|meat|alcohol)|team \w+)\b"
    r"|讨厌|不喜欢|受不了|不吃|不碰|不喝|吃素|素食|生酮|低碳|戒糖|控糖|只吃|只喝|从不|从来不|(?i:low carb|keto)"
)
_CONDITION = re.compile(
    r"(?i)\b(?:allergic|allergy|intoleran(?:t|ce)|diabetes|diabetic|sugar|blood pressure|injur(?:y|ed)|torn|broken|sprain(?:ed)?|"
    r"frozen shoulder|can't|cannot|no (?:running|lifting|sport|dairy|stairs)|off (?:dairy|work|running)|reactive|reflux|eczema|asthma|"
    r"cataracts?|glaucoma|apnea|apnoea|hernia|cpap)\b"
    r"|过敏|不耐受|血糖|血压|糖尿病|受伤|骨折|扭伤|拉伤|突出|发炎|不能|别(?:跑|吃|喝|动)|少吃|忌口|近视|甲减|甲亢|白内障|青光眼|疝气|结石"
)
# A test anyone takes, whose result turns no condition of the user's around.
_ROUTINE_TEST = re.compile(r"(?i)\b(?:covid|pcr|rapid test|lateral flow|flu test|strep test|pregnancy test)\b|核酸|抗原|新冠|甲流|验孕")
# A habit: what the user does every day, every night, all day.
_HABIT = re.compile(
    r"(?i)\b(?:every ?day|every (?:night|morning|evening)|a day|all day|daily|per day|each (?:day|night|morning)|constantly|"
    r"every single day|nightly|like \d+ a day)\b|每天|天天|每晚|每早|一天(?:得|要|都)?|每日|整天|戒不掉"
)
# A birth, and the pregnancy it ends.
_BORN = re.compile(
    r"(?i)\b(?:(?:baby|bub)(?:'s| is) (?:here|born)|(?:she|he|they)(?:'s| is| are) born|was born|were born|(?:little (?:guy|girl|one)|baby|bub|twins) arrived|"
    r"gave birth|delivered (?:him|her|them|the baby)|welcomed (?:our )?(?:baby|son|daughter|little))\b"
    r"|出生了|生了(?:个|一个)?(?:儿子|女儿|男孩|女孩|宝宝|闺女)|顺产|剖腹产|(?:宝宝|娃|孩子)(?:出来|满月|出生)了?|坐月子"
)
# "she's here!! 7lb 2oz": here, in a message that tells a birth
_HERE = re.compile(r"(?i)\b(?:she|he|they)(?:'s| is| are) here\b")
_BIRTH_SIGN = re.compile(r"(?i)\b\d+\s?(?:lbs?|oz|pounds|kg)\b|\bborn\b|\bweeks? early\b|\bmidwife\b|\blabou?r\b|斤")
_PREGNANT = re.compile(
    r"(?i)\b(?:pregnant|pregnancy|expecting|weeks along|due date|due in|trimester|gestational|morning sickness|ivf)\b"
    r"|怀孕|孕期|孕\d+周|孕[一二三四五六七八九十]+周|预产期|孕吐|产检|孕妇|试管|怀了"
)
# A medicine by its name: the stems pharmacology gives a class ("lisinopril", "atorvastatin",
# "氯雷他定", "二甲双胍") and the brands everyone says ("Lipitor", "Zyrtec").
_DRUG = (
    r"(?i:\b[a-z]{2,}(?:pril|sartan|olol|statin|dipine|prazole|cillin|mycin|floxacin|tidine|oxetine|azepam|zolam|formin|lukast|profen"
    r"|triptan|gliptin|glutide|tadine|parin|cycline|thiazide|semide)\b"
    r"|\b(?:lipitor|crestor|zocor|vyvanse|concerta|strattera|ambien|lyrica|gabapentin|zoloft|prozac|lexapro|wellbutrin|synthroid|advil|tylenol|motrin|claritin|zyrtec|allegra|benadryl|xanax"
    r"|adderall|ritalin|ozempic|wegovy|mounjaro|insulin|levothyroxine|aspirin|ibuprofen|paracetamol|acetaminophen|prednisone"
    r"|cetirizine|hydroxyzine|melatonin|statins?|antihistamines?|antibiotics?|antidepressants?|inhaler)\b)"
    r"|鲁肽|糖肽|他定|利嗪|双胍|司匹林|洛芬|西林|拉唑|沙坦|氯地平|苯地平|他汀|甲状腺素|胰岛素|曲林|西汀|霉素|沙星|洛尔|唑仑|西泮|褪黑素"
)
# A medication changed for another: the message says so; the old one is any that was taken.
_MEDICATION_SWITCH = re.compile(
    r"(?i)\b(?:switched|changed|moved|put)\s+(?:me\s+)?(?:from\s+\S+\s+)?(?:to|onto|on)\s+(?:a\s+new\s+)?\w+"
    r"(?=[^.!?]{0,40}\b(?:instead|meds?|medication|pills?|tablets?|dose|prescription|mg)\b)"
    r"|\b(?:new|different)\s+(?:meds|medication|prescription|pills)\b|\bchanged\s+my\s+(?:meds|medication|prescription)\b"
    # a dose changed: "doc bumped my sertraline up to 100", "upped my dose to 20mg", "药量加到两片"
    r"|\b(?:bumped|upped|increased|raised|lowered|reduced|dropped|cut|tapered)\s+(?:me\s+)?(?:my\s+|the\s+)?(?:[a-z]+\s+){0,2}(?:up\s+|down\s+)?(?:to|from)\s+\d"
    r"|(?:药量|剂量|用量)(?:又)?(?:加|减|增|降)(?:到|成|了)|(?:加|减)(?:到|成)了?[一两二三四五六七八九十\d]+(?:片|粒|毫克|mg)"
    r"|换药|换了(?:个|种)?药|换成了?[\u4e00-\u9fff]{0,6}(?:药|片)|改(?:吃|用)了?[\u4e00-\u9fff]{0,6}(?:药|片)|停了[\u4e00-\u9fff]{0,6}(?:药|片)"
    # one medicine swapped for another by name: "doc swapped my blood pressure pill for amlodipine",
    # "给我换成西替利嗪了", "把我的 statin 换成 Crestor 了"
    r"|(?i:\bswapped\s+(?:me\s+)?(?:my\s+|the\s+)?(?:[\w-]+\s+){0,3}?(?:for|to|with)\s+|\b(?:switched|moved|changed|put)\s+(?:me\s+)?(?:to|onto|on)\s+)(?:" + _DRUG + r")"
    r"|(?:换成|改成|改用|换用|换到)了?\s?[\u4e00-\u9fff]{0,4}?(?:" + _DRUG + r")"
    r"|(?:" + _DRUG + r")\s?(?:换成|改成)"
)
# Off a medication: "officially off the sertraline", "stopped taking the pills", "停药 finally",
# "医生让我把降压药停了". What it names ends; a word for medication in general ("off my meds",
# "停药") ends every medication taken before. Not "医生说不能停药", "别断药", "don't stop the pills".
_MEDICATION_STOPPED = re.compile(
    r"(?i)\b(?:off|stopped(?:\s+taking)?|quit|tapered\s+off|tapering\s+off|came\s+off|done\s+with)\s+"
    r"(?:the\s+|my\s+|all\s+(?:the\s+|my\s+)?)?(?P<obj>[a-z][\w-]{2,})"
    r"|(?P<zh>停药|停了药|药停了|药(?:也)?停了|断药|不(?:用|再)?吃药了|药(?:也)?不吃了)"
)
_NOT_STOPPING = re.compile(
    r"(?i)\b(?:don't|do not|can't|cannot|never|not|shouldn't|won't|haven't|didn't)\s+(?:\w+\s+){0,2}(?:stop|quit|go off|come off)"
    r"|(?:不能|别|不要|不可以|不敢|没|不让)(?:\S{0,4})?[停断]"
)
_MEDICATION_WORDS = frozenset({"meds", "med", "medication", "medications", "medicine", "pills", "pill", "tablets", "prescription", "them", "it"})
# an antihistamine is told with the allergy, a pill "eaten" with the diet ("我在吃 Zocor 降血脂")
_MEDICATION_TOPICS = ("user.health", "user.allergy", "user.diet")
_TAKES = re.compile(r"(?i)\b(?:take|takes|taking|took|using)\b|\b(?:i'm|im|i am|been|still) on\b|吃|服用|在用")
_ALLERGIC_TO = re.compile(r"(?i)\ballerg(?:ic|y) to\b|对[^，。,]{0,10}过敏")
MEDICATION = re.compile(
    r"(?i)\b(?:meds?|medication|pills?|tablets?|prescribed|prescription|\d+\s?mg|taking|dose|capsules?)\b"
    r"|药|片|毫克|开了|胶囊|处方|" + _DRUG
)
_PET_KINDS = re.compile(r"\b(?:dog|cat|kitten|puppy|bunny|rabbit|hamster|parrot|turtle)\b|猫|狗|兔|仓鼠|鹦鹉|乌龟")
_KIND_OF = {"puppy": "dog", "狗": "dog", "kitten": "cat", "猫": "cat", "bunny": "rabbit", "兔": "rabbit", "仓鼠": "hamster", "鹦鹉": "parrot", "乌龟": "turtle"}
# the name a memory gives: "我家猫叫咪咪", "a cat named Luna", "she's called Pickles"
_GIVEN_NAME = re.compile(r"(?:叫|名叫|名字是)\s?([\u4e00-\u9fff]{1,3}|[A-Za-z][a-z]+)|(?i:\b(?:named|called)\s+)([A-Za-z][a-z]+)")
# A habit quit ("戒烟第30天", "3 months smoke free", "I've been sober since May"): what the user
# said of the habit before ends ("抽烟十年了，每天一包"). Not "trying to quit" (tentative).
_HABITS_QUIT = (
    (re.compile(r"(?i)戒烟|戒了烟|烟(?:已经|也)?戒了|不抽(?:烟)?了|\b(?:quit|stopped|gave up|kicked)\s+(?:smoking|cigarettes|the cigs|vaping)\b|smoke[- ]free|\bnon-?smoker\b"),
     re.compile(r"(?i)抽烟|吸烟|烟瘾|一包|\bsmok(?:e|es|ing|er)\b|cigarettes?|\bcigs\b|\bvap(?:e|ing)\b|pack a day")),
    (re.compile(r"(?i)戒酒|酒(?:已经|也)?戒了|不喝酒了|滴酒不沾|\b(?:quit|stopped|gave up)\s+(?:drinking|alcohol|booze)\b|\bsober\b|\bsobriety\b"),
     re.compile(r"(?i)喝酒|酗酒|啤酒|白酒|红酒|\bdrink(?:s|ing)?\b|\balcohol\b|\bbooze\b|\bbeers?\b|\bwine\b|\bipas?\b|\blagers?\b|\bpints?\b|"
                r"\bcocktails?\b|\bwhisk(?:e)?y\b|\bvodka\b|\bmargaritas?\b")),
)
# A pet that died, by its name: "豆豆走了" (of a pet, 走了 is a death), "we said goodbye to
# pepper", "Biscuit passed away", "had to put Max down".
# When and how a Chinese message says a pet died ("豆豆昨天走了", "我家狗去汪星了")
_WHEN_ZH = "(?:昨天|昨晚|今天|今早|前天|上周|早上|半夜)?"
_DIED_ZH = "(?:走了|去世了|没了|去汪星了|去喵星了|当小天使了|老死了|病死了)"
_PET_GONE = re.compile(
    r"(?i)\b(?:said goodbye to|had to put down|put down|buried)\s+(?:our|my)?\s*(?:(?:dog|cat|bunny|rabbit|hamster|boy|girl)\s+)?([a-z][a-z'-]{1,20})\b"
    r"|\blost\s+(?:our|my)\s+(?:old\s+)?(?:dog|cat|bunny|rabbit|hamster|parrot)\s+([a-z][a-z'-]{1,20})\b"
    r"|\b(?:had to )?put\s+([a-z][a-z'-]{1,20})\s+down\b"
    r"|\b([a-z][a-z'-]{1,20})\s+(?:passed away|died|crossed the rainbow bridge|is gone)\b"
    rf"|([\u4e00-\u9fff]{{2,3}}?){_WHEN_ZH}{_DIED_ZH}"
)
# A pet's death told by its kind alone ("we lost our cat on tuesday. 16 years.", "我家狗昨天走了"):
# not one lost for an hour and found
_PET_KIND_GONE = re.compile(
    r"(?i)\b(?:lost|said goodbye to|had to put down|put down|buried)\s+(?:our|my)\s+(?:old\s+|sweet\s+|beloved\s+|little\s+)?"
    r"(?:dog|cat|bunny|rabbit|hamster|parrot|pup|puppy|kitty|kitten)\b(?!\s+(?-i:[A-Z]))(?![^.!?]*\b(?:found|back|home|for (?:an?|\d+|two|three|hours?))\b)"
    r"|\b(?:our|my)\s+(?:old\s+)?(?:dog|cat|bunny|rabbit|hamster|parrot)\s+(?:passed away|died|crossed the rainbow bridge|was put down|had to be put down)\b"
    rf"|(?:我家|我的|家里的?|我们家的?)(?:猫|狗|兔子|仓鼠|鹦鹉)(?:咪|子)?{_WHEN_ZH}{_DIED_ZH}"
)
_NOT_PET_NAMES = frozenset({"my", "our", "the", "a", "an", "him", "her", "them", "it", "he", "she", "they", "we", "i", "weight", "touch", "track", "power", "everything", "money", "job",
                            # people: "my grandma passed away" ends no memory of her cat
                            "grandma", "grandpa", "granny", "gran", "nan", "mom", "mum", "dad", "mother", "father", "uncle",
                            "aunt", "friend", "neighbour", "neighbor", "husband", "wife", "brother", "sister", "son", "daughter",
                            # nor a word that follows the kind ("we lost our cat on tuesday", "… last week")
                            "last", "yesterday", "today", "tonight", "recently", "earlier", "suddenly", "finally", "peacefully",
                            "overnight", "after", "before"})


def _on_the_day_of(candidate: Candidate, plans: list[Memory], tz: tzinfo | None) -> Candidate:
    """`candidate`, a plan made instead of `plans`, on their day (when they name one trip's days)."""
    days = [m.event_at for m in plans if m.category is Category.GOAL and m.event_at is not None]
    if not days or max(days) - min(days) > _ONE_TRIP_DAYS:
        return candidate
    start = from_ts(min(days), tz)
    ends = [m.expires_at for m in plans if m.category is Category.GOAL and m.expires_at is not None]
    end = from_ts(max(ends), tz) - timedelta(days=1) if ends else start
    end = max(end, start)
    return dataclasses.replace(
        candidate, event_at=start, expires_at=end + timedelta(days=1), category=Category.GOAL,
        content=dated(candidate.content, (start, end)), topic=candidate.topic or "user.plan",
    )


_ENDED_NAME_MAX = 6
# What is left of an end statement once its name and its end words are gone: a few words, the
# way people add a feeling or a reason ("Iceland is off :( my partner's visa is stuck").
_LEFT_WORDS = 3
# "my left foot" ends nothing
_NOT_AN_END = re.compile(r"(?i)\bleft\s+(?:foot|hand|side|leg|arm|eye|ear|knee|shoulder|wrist|ankle|hip|turn|lane|over|behind)\b")
# An end that says who the user is now ("officially retired", "graduated!", "我毕业了"), not what is off.
_A_STATE_NOW = re.compile(r"(?i)\b(?:retired|graduated|recovered|healed|cleared me|all[- ]clear|single|divorced)\b|退休|毕业|康复|痊愈|单身|离婚")
_LEFT_CJK = 6
_FILLER = re.compile(r"(?i)\b(?:ok|okay|so|well|yeah|sadly|finally|officially|totally|just|already|also|now|too|lol|haha|ugh|welp|anyway)\b|[我了的吧啦呀啊哦嘛也都就已经终于还是算]")


def ended_names(said: str) -> set[str]:
    """The named things an end statement is about ("Iceland is off" → {"iceland"}, "quit blue
    bottle" → {"blue bottle"}), or none when it says more than that the thing ended."""
    said = _NOT_AN_END.sub(" ", said)
    if about_someone_else(said) or ENDED.search(said) is None or _A_STATE_NOW.search(said):
        return set()
    rest = _FILLER.sub(" ", ENDED.sub(" ", said))
    latin = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'\-]+", rest) if w.lower() not in EN_STOP]
    cjk = re.findall(r"[\u4e00-\u9fff]", rest)
    # a value of its own: a capitalised or known name ("Iceland", "Spotify", "苏州")
    named = {normalize(part) for w in value_words(rest) for part in re.split(r"[\u4e00-\u9fff]+", w) if len(part.strip()) >= 2}
    named |= {w for w in value_words(rest) if re.fullmatch(r"[\u4e00-\u9fff]{2,}", w)}
    named = {n.strip() for n in named if n.strip() and not n.strip().isdigit() and n.strip() not in EN_STOP}
    named |= {m.group(1) for m in _ZH_PARTY.finditer(said)}  # "我跟阿杰分手了"
    if named:
        left = [w for w in latin if not any(w in n.split() for n in named)]
        left_cjk = [c for c in cjk if not any(c in n for n in named)]
        return named if len(left) <= _LEFT_WORDS and len(left_cjk) <= _LEFT_CJK else set()
    # no name: the few words the statement is made of ("ok keto is over", "quit blue bottle")
    words = [w for w in latin if w not in _NOT_NAMES]
    if 1 <= len(words) <= 2 and len(words) == len(latin) and not cjk:
        return {" ".join(words)}
    return set()


# Words that name no one thing: the people and kinds an end statement may mention in passing.
_NOT_NAMES = frozenset(
    "thing things stuff plan plans idea trip the job work diet subscription membership account app thing's "
    "partner boyfriend girlfriend husband wife visa money time week month year day today weeks months years days".split()
)


def _names_it(content: str, name: str) -> bool:
    """Whether `content` names `name` as a word (a Latin name) or anywhere (a Chinese one)."""
    if name.isascii():
        return re.search(rf"(?i)(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", content) is not None
    return name in content


_DATE_WORDS = re.compile(
    r"(?i)^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?$|^\d+(?:st|nd|rd|th)?$|^(?:mon|tues|wednes|thurs|fri|satur|sun)day$"
)


_GOING_TO = re.compile(r"(?i)\b(?:to|in|at)\s+(?:the\s+)?(?!(?:the|my|our|a|an)\b)[a-z]{3,}|去[\u4e00-\u9fff]{2}")


def _names_a_thing(text: str) -> bool:
    """Whether a statement names something of its own besides days ("the Lake District" does,
    "April 14 … the 19th" does not)."""
    if _REDIRECTED.search(text) or _GOING_TO.search(text):
        return True  # "改去新疆伊犁", "heading to the coast instead"
    return any(not _DATE_WORDS.match(w) for word in value_words(text) for w in word.split())


def _pets_gone(text: str) -> set[str]:
    """The names of the pets `text` says have died, casefolded."""
    found = {g.casefold() for m in _PET_GONE.finditer(text) for g in m.groups() if g}
    # a kind is no name: "my sister's dog died" names no pet "dog"
    return {
        name for name in found
        if name not in _NOT_PET_NAMES and name not in EN_STOP and not kinds_in(name) and len(name) >= 2 and name[0] not in "我你他她它咱"
        and not name.startswith(("大家", "大伙"))  # "大黄走了" is a dog; "大家都走了" no one
    }


_GENERIC_TERMS = frozenset(
    "医生 大夫 复查 结果 以后 现在 今天 昨天 每天 天天 一天 每晚 一个 个月 已经 整整 最近 感觉 "
    "doctor said says with that this just really every daily night today week month year days weeks months years".split()
)


def _tentative(text: str) -> bool:
    """Whether `text` only considers, wishes or plans ("想去领养一只猫", "thinking of moving")."""
    return TENTATIVE.search(_NO_LONGER_WANTS.sub(" ", text)) is not None


def _terms(text: str) -> set[str]:
    """Words two statements can share about one thing: Chinese bigrams, English words of four
    letters or more (a plural as its singular), not the generic ones."""
    out = set()
    for token in tokens(text, query=True):
        if token.isascii():
            if len(token) >= 4 and token not in EN_STOP:
                out.add(token[:-1] if token.endswith("s") and len(token) > 4 else token)
        elif len(token) >= 2:
            out.add(token)
    return out - _GENERIC_TERMS


def _the_users(text: str) -> bool:
    """Whether `text` is about the user's own life: said of the user, or of their pet ("狗子送回
    老家给爸妈养了", "our dog Waffles is 14 now"), not of another person ("my sister sold her car")."""
    return not about_someone_else(text) or any(is_pet(kind) for kind in kinds_in(text[:10]))


def _names(text: str) -> set[str]:
    """The people a statement names ("Tamsin", "阿杰"), normalized."""
    found = {w for w in value_words(text) if w[:1].isalpha()}
    found |= {m.group(1) for m in _ZH_PARTY.finditer(text)}
    return {normalize(n) for n in found if len(n) >= 2}


def _said_before(memory: Memory, at: float, taken: Collection[int]) -> bool:
    """Whether `memory` is the user's own, said before `at`, and not already taken."""
    return memory.id not in taken and memory.created_at < at and memory.source is not Source.ASSISTANT


class UpdateDecision:
    """Decides and commits one candidate against what the profile already holds."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        # the plans the message being written called off, by its time: what a later clause
        # "改成…" makes instead is on their day
        self._called_off: tuple[float | None, list[Memory]] = (None, [])

    def decide(
        self,
        candidate: Candidate,
        at: float,
        turn: Turn | None,
        *,
        vector: np.ndarray | None = None,
        derived_from: int | None = None,
        keep: Collection[int] = (),
        corrects: bool = False,
    ) -> Change:
        """Store `candidate` (or bump its twin) and supersede what it replaces.

        Args:
            at: the time it was said (seconds since the epoch).
            vector: its embedding when already computed (an episode's), else computed here.
            derived_from: the episode a semantic candidate was distilled from.
            keep: ids never replaced (the memories the same message just stored).
            corrects: it is what a correcting message says instead ("wait no its april 21"):
                it replaces the statement of the last few days nearest to it in meaning.
        """
        topic = BY_SLOT.get(candidate.topic or "") or topic_of_slot(candidate.slot)
        found = self._twin_or_replaced(candidate, at, vector, keep)
        if isinstance(found, Change):
            return found
        replaced = found
        said = candidate.evidence or candidate.content
        tz = turn.at.tzinfo if turn is not None and turn.at is not None else None  # of the days a plan takes on

        def taken() -> set[int]:
            return {m.id for m in replaced} | set(keep) | ({derived_from} if derived_from else set())

        whole = turn.content if turn is not None and isinstance(turn.content, str) else said
        # "上海那边有家公司给我发了offer" is a choice to make, not a new job ("… signed it today" is)
        offered = topic is not None and topic.slot == "user.job" and _OFFERED.search(said) is not None and _TOOK_IT.search(whole) is None
        if topic is not None and topic.single and not offered:
            replaced += self._stale_in_topic(topic, candidate, taken())
            replaced += self._ended_just_now(topic, candidate, keep, taken())
        if (topic is None or topic.slot == "user.plan") and (CHANGE.search(said) or ENDED.search(said)) and not about_someone_else(said):
            # "下周去字节报到" is a plan and a new job, "交完工牌那天哭了一场" filed nowhere: the job it
            # starts or ends is the one before
            for part in cue_topics(said):
                if part is not topic and part.slot in _LIFE_PARTS:
                    replaced += self._stale_in_topic(part, dataclasses.replace(candidate, value=None), taken())
        if topic is not None and not topic.single and ENDED.search(said):
            replaced += self._ended_in_topic(topic, said, taken())
        if ENDED.search(said) and not TENTATIVE.search(said):
            off = self._plans_called_off(said, at, taken())
            replaced += off
            if off:
                self._called_off = (at, off)
            replaced += self._ended_by_name(said, at, taken())
        # a plan made "instead" of another ("改去新疆伊犁", "doing Big Bend instead")
        instead = candidate.kind is Kind.EPISODIC and _INSTEAD.search(said) is not None and not TENTATIVE.search(said)
        if instead and candidate.event_at is None:
            instead_of, ended_already = self._instead_of(said, at, taken())
            if instead_of:
                replaced += [] if ended_already else instead_of
                candidate = _on_the_day_of(candidate, instead_of, tz)
        if (instead and not weekly_routine(said)
                and not any(m.category is Category.GOAL or m.topic == "user.plan" for m in replaced)):
            # "doing a cheap camping trip in Big Bend instead", "I'm now flying out April 14 instead":
            # the plan it stands in for is the nearest one said before
            nearest = self._nearest_plan(candidate, vector, at, taken())
            replaced += nearest
            if nearest and not _names_a_thing(said):
                candidate = _carrying_names(candidate, nearest)  # "I'm now flying out April 14 instead": still Lisbon
        if candidate.kind is Kind.EPISODIC and _NEW_DAYS.search(said) and weekly_routine(said) and not TENTATIVE.search(said):
            before = self._routine_before(weekdays_of(said), candidate.topic, at, taken())
            if before is not None:
                replaced.append(before)
                candidate = _the_routine_before(candidate, before)
        if SINGLE.search(said):
            replaced += self._former_partners(at, taken())
        if topic is not None and topic.slot == "user.health" and RECOVERED.search(said):
            replaced += self._health_before(_RESTRICTION, at, taken())
        if not TENTATIVE.search(said) and not about_someone_else(said):
            # "皮试结果阴性 以后阿莫西林都能用" after "我对青霉素过敏"; "打脸了 天天单曲循环" after
            # "我超讨厌K-pop"; "整整一个月没碰珍珠了" after "每天都要喝两杯奶茶": the condition,
            # the dislike or the habit it turns around
            for turn_rx, kind in ((RECOVERED, _CONDITION), (REVERSED, _DISLIKE), (ABSTAINED, _HABIT)):
                if kind is _CONDITION and _ROUTINE_TEST.search(whole):
                    continue  # "核酸阴性", "flu test came back negative": no condition of theirs turned around
                # (a span of time without it may be split off: "卸载了 已经一个月了")
                if turn_rx.search(said) or (kind is _HABIT and turn_rx.search(whole) and not TENTATIVE.search(whole)):
                    replaced += self._turned_around(whole, at, taken(), kind)
        born = _BORN.search(said) is not None or (_HERE.search(said) is not None and _BIRTH_SIGN.search(whole) is not None)
        if born and not TENTATIVE.search(said) and not (people_in(said) - {"child", "partner"}):
            # "she's here!! 7lb 2oz", "宝宝昨天出生了": the pregnancy told before is over (not a
            # sister's baby, nor one due)
            replaced += self._turned_around(whole, at, taken(), _PREGNANT)
        if (gone := _pets_gone(said)) and _the_users(said):
            replaced += self._of_pets_named(gone, taken())
        elif (kind_gone := _PET_KIND_GONE.search(said)) and (names := self._named_kind(kind_gone.group(0), "")):
            replaced += self._of_pets_named(names, taken())
        if candidate.event_at is not None and RESCHEDULED.search(said):
            replaced += self._rescheduled(whole, to_ts(candidate.event_at), at, taken())
        replaced += self._going_with(replaced, at, set(keep))
        if PARTNERED.search(said) and not TENTATIVE.search(said) and not about_someone_else(said):
            # after what goes with the rest: "single dad" goes, "my daughter Mila is 6" beside it stays
            replaced += self._said_single(at, taken())
        if (not replaced and candidate.kind is Kind.EPISODIC and candidate.category is not Category.GOAL
                and (CHANGE.search(said) or ENDED.search(said)) and not _ADDED.search(said) and not TENTATIVE.search(said)
                and not about_someone_else(said)):
            # "switched to evening workouts now" after "I'm a morning workout person", "现在专门找恐怖片
            # 看" after "我不看恐怖片的": a change said of what no topic or rule caught replaces the
            # statement nearest to it in meaning
            turned = self._contradicted(candidate, vector, at, taken())
            replaced += turned + self._going_with(turned, at, taken(), same_topic=False)
        if corrects and not TENTATIVE.search(said):
            # "sorry typo, it's Kaitlyn": the statement it corrects goes, with what was distilled
            # from it and the other parts of its plan — not the rest of that message ("she's
            # turning 30 in june" stays)
            wrong = self._corrected(candidate, vector, at, taken())
            if wrong:
                # a new day moves the whole plan; a detail given again ("是 CX 880") leaves its
                # other parts and is on its day
                moved = candidate.event_at is not None
                replaced += wrong + self._going_with(wrong, at, taken(), same_topic=False, same_plan=moved)
                if not moved:
                    candidate = _on_the_day_of(candidate, wrong, tz)
                candidate = _carrying_names(candidate, wrong, corrected=True)
                if candidate.topic is None and wrong[0].topic:
                    candidate = dataclasses.replace(candidate, topic=wrong[0].topic, topics=[wrong[0].topic, *candidate.topics])
        if (renamed := _RENAMED.search(said)) is not None and turn is not None and isinstance(turn.content, str):
            # "仓鼠改名了，Mochi 太普通，现在叫布丁": what named it by its old name goes (not the rest
            # of what was said with it, "我们家新来了一只仓鼠")
            new_name = normalize(renamed.group("zh") or renamed.group("en") or renamed.group("now") or "")
            old_names = {n for n in _names(turn.content) if n != new_name} or self._named_kind(turn.content, new_name)
            replaced += self._of_pets_named(old_names, taken(), people=True)
        if not TENTATIVE.search(said) and not _NOT_STOPPING.search(said) and not about_someone_else(said):
            replaced += self._habit_quit(said, at, taken())
        if not TENTATIVE.search(said) and (_the_users(said) or MY_NEW.search(said)):
            # "sold the old tablet on ebay", "那只鹦鹉托付给楼下王阿姨了", "新表到了": the thing of
            # that kind the user had before
            things = self._things_of(gone_kinds(said, whole) | arrived_kinds(said), said, at, taken())
            replaced += things + self._going_with(things, at, taken())
            if handles := handles_renamed(said):
                # "changed my handle to tidepool_", "ins改成@lily.cooks了", "以后叫我Vivian吧"
                replaced += [m for m in self._active_before(at, taken())
                             if handles & handles_in(m.content) and not about_someone_else(m.content)]
        if (stopped := _MEDICATION_STOPPED.search(said)) is not None and not TENTATIVE.search(said) \
                and not _NOT_STOPPING.search(said):
            replaced += self._medication_stopped(stopped, at, taken(), in_health=topic is not None and topic.slot == "user.health")
        # after the rest: the condition told beside the old medication ("最近老失眠") still holds
        health = (topic is not None and topic.slot == "user.health") or _MEDICATION_SWITCH.search(said) is not None
        if health and turn is not None and isinstance(turn.content, str) \
                and _MEDICATION_SWITCH.search(turn.content) and not TENTATIVE.search(said):
            replaced += self._health_before(MEDICATION, at, taken(), _MEDICATION_TOPICS)

        # the same plan on another day — not one called off, nor one sent elsewhere ("改到 4 月 17
        # 号…地点也换成苏州了"), whose old place is what the user no longer goes to
        message = turn.content if turn is not None else said
        if candidate.event_at is not None and candidate.kind is Kind.EPISODIC and RESCHEDULED.search(said) \
                and not ENDED.search(message) and not _INSTEAD.search(message):
            candidate = _naming_the_plan(candidate, replaced)
        memory = self.service.add(
            self._new_memory(candidate, at, turn, topic, derived_from), replacing=[m.id for m in replaced], now=at, vector=vector
        )
        if replaced:
            return Change(Action.UPDATE, memory.id, memory.content, memory.category, replaced_id=replaced[0].id, reason="replaces an older memory")
        return Change(Action.ADD, memory.id, memory.content, memory.category)

    def _twin_or_replaced(
        self, candidate: Candidate, at: float, vector: np.ndarray | None, keep: Collection[int]
    ) -> Change | list[Memory]:
        """The memory the candidate repeats (bumped; a NOOP change), else what it replaces in
        its own slot (or, told "actually …", the nearest memory of its category)."""
        store = self.service.store
        if candidate.slot:
            replaced = []
            for memory in store.active_by_slot(candidate.slot):
                if _same_value(memory, candidate):
                    store.bump(memory.id, at, importance=candidate.importance)
                    return Change(Action.NOOP, memory.id, memory.content, memory.category, reason="already known")
                if memory.id not in keep:
                    replaced.append(memory)
            return replaced
        similar = self.similar(candidate.content, vector, limit=3)
        for memory, sim in similar:
            if sim >= DUPLICATE_SIMILARITY or normalize(memory.content) == normalize(candidate.content):
                store.bump(memory.id, at, importance=candidate.importance)
                return Change(Action.NOOP, memory.id, memory.content, memory.category, reason="near-duplicate")
        if candidate.override:
            return [m for m, sim in similar if sim >= OVERRIDE_SIMILARITY and m.category is candidate.category and m.id not in keep][:1]
        return []

    def _routine_before(self, days: frozenset[int], topic: str | None, at: float, taken: set[int]) -> Memory | None:
        """The newest weekly routine of the last 60 days on other days than `days`, of the same
        part of life when both name one (swimming moved to Tuesdays leaves the pottery class)."""
        if not days:
            return None
        for memory in self.service.store.list(order="created_at DESC", limit=200):
            if memory.created_at < at - 60 * 86400:
                break
            if memory.id in taken or memory.created_at >= at or memory.category is Category.GOAL:
                continue
            if topic and memory.topic and memory.topic != topic:
                continue
            if weekly_routine(memory.content) and (old := weekdays_of(memory.content)) and old != days:
                return memory
        return None

    def _stale_in_topic(self, topic: Topic, candidate: Candidate, taken: set[int]) -> list[Memory]:
        """What a new statement of a one-value topic makes stale."""
        # Where the user lives is part of any memory that places them ("我在南宁一家设计院实习"):
        # a move makes those stale too. Other topics count a memory's main topic only.
        main_only = topic.slot != "user.city"
        said = candidate.evidence or candidate.content
        found = self.service.store.active_by_topics([topic.slot], main_only=main_only) + self._slotted(topic)
        if CHANGE.search(said) is None and ENDED.search(said) is None:
            # "Vancouver 住了六年" after "just moved to Toronto from Vancouver": a value the
            # user's current memories already name as the old one is told of, not moved to
            new = {normalize(candidate.value)} if candidate.value else new_values(said)
            if new and any(new & value_words(m.content) for m in found):
                return []
        out: list[Memory] = []
        for memory in found:
            if memory.id not in taken and replaces(topic, said, memory, candidate.value):
                out.append(memory)
                taken.add(memory.id)
        return out

    def _ended_just_now(self, topic: Topic, candidate: Candidate, keep: Collection[int], taken: set[int]) -> list[Memory]:
        """"I gave notice at Deloitte. starting at Stripe on March 2": the end the same message
        told is history once the new value is said (other clauses of the message stay)."""
        said = candidate.evidence or candidate.content
        if ENDED.search(said) or not (candidate.value or new_values(said)):
            return []
        out: list[Memory] = []
        for memory in self.service.store.active_by_topics([topic.slot], main_only=True):
            if memory.id in keep and memory.id not in taken - set(keep) and ENDED.search(memory.content) \
                    and replaces(topic, said, memory, candidate.value):
                out.append(memory)
        return out

    def _ended_in_topic(self, topic: Topic, said: str, taken: set[int]) -> list[Memory]:
        """"我和阿杰分手了", "Tamsin and I broke up", "half marathon is off": what named the same
        person or thing in that part of life ends."""
        names = _names(said)
        terms = {t for t in value_terms(ENDED.sub(" ", said), topic) if len(t) >= 3}
        out: list[Memory] = []
        for memory in self.service.store.active_by_topics([topic.slot]) + self._slotted(topic):
            if memory.id in taken:
                continue
            if any(name in normalize(memory.content) for name in names) or terms & set(tokens(memory.content)):
                out.append(memory)
                taken.add(memory.id)
        return out

    def _ended_by_name(self, said: str, at: float, taken: set[int]) -> list[Memory]:
        """"Iceland is off", "ok keto is over", "Spotify我退订了", "quit blue bottle": a statement
        that only says a named thing ended ends what was said of that thing before, whatever
        part of life it was filed under. Not a longer statement that qualifies it ("stopped
        drinking coffee after 3pm" leaves "I love coffee"), nor a name many memories share."""
        names = ended_names(said)
        if not names:
            return []
        store = self.service.store
        match = match_expression(sorted({t for name in names for t in tokens(name)}))
        if match is None:
            return []
        found = store.get_many([i for i, _ in store.keyword_search(match, 2 * _ENDED_NAME_MAX)])
        out: list[Memory] = []
        for name in names:
            holding = [
                m for m in found.values()
                if m.id not in taken and m.created_at < at and m.status is Status.ACTIVE and _names_it(m.content, name)
            ]
            if len(holding) > _ENDED_NAME_MAX:
                continue  # a word too many memories share names no one thing
            out += holding
            taken.update(m.id for m in holding)
        return out

    def _health_before(self, said: re.Pattern[str], at: float, taken: set[int], topics: tuple[str, ...] = ("user.health",)) -> list[Memory]:
        """Active health memories from before `at` that match `said`: what the injury kept the
        user from ("physio cleared me" ends "no running for 6 weeks", "医生说不能久坐"), or the
        medication taken before ("医生给我换药了 现在改成曲唑酮", "doc switched me to sertraline");
        a medication may be told with the allergy it is for ("春天天天吃氯雷他定")."""
        out: list[Memory] = []
        for memory in self.service.store.active_by_topics(list(topics), main_only=True):
            if (memory.topic != "user.health" and not _TAKES.search(memory.content)) or _ALLERGIC_TO.search(memory.content):
                continue  # "我对青霉素过敏" names a medicine the user must not take
            if memory.id not in taken and memory.created_at < at and said.search(memory.content):
                out.append(memory)
                taken.add(memory.id)
        return out

    def _medication_stopped(self, stopped: re.Match[str], at: float, taken: set[int], *, in_health: bool) -> list[Memory]:
        """The health memories a stop ends: for medication in general ("停药", "off my meds"), every
        medication taken before (not the condition it was for: "医生说我有轻度高血压" stays); for a
        thing named, the memories naming it ("off the sertraline" ends
        "I'm on sertraline 50mg"; "quit smoking" ends "I smoke half a pack a day"; "took the day
        off work" ends nothing: no medication is named "work", and the clause is not about health)."""
        obj = (stopped.group("obj") or "").lower()
        if stopped.group("zh") or obj in _MEDICATION_WORDS:
            return self._health_before(MEDICATION, at, taken, _MEDICATION_TOPICS)
        if obj in EN_STOP:
            return []
        wanted = set(tokens(obj))
        out: list[Memory] = []
        for memory in self.service.store.active_by_topics(["user.health"]):
            # a medication by its name, whatever the clause's topic; anything else the clause
            # must be about health to end
            named = wanted & set(tokens(memory.content)) and (in_health or MEDICATION.search(memory.content))
            if memory.id not in taken and memory.created_at < at and named:
                out.append(memory)
                taken.add(memory.id)
        return out

    def _named_kind(self, message: str, new_name: str) -> set[str]:
        """The old name of the pet a rename names only by its kind ("给猫改名了 现在叫年糕" after
        "我家猫叫咪咪"): the names pet memories give an animal of that kind."""
        kinds = {_KIND_OF.get(k, k) for k in _PET_KINDS.findall(message.casefold())}
        names: set[str] = set()
        for memory in self.service.store.active_by_topics(["user.pet"]):
            if kinds & {_KIND_OF.get(k, k) for k in _PET_KINDS.findall(memory.content.casefold())}:
                names |= {normalize(m.group(1) or m.group(2)) for m in _GIVEN_NAME.finditer(memory.content)} - {new_name}
        return names

    def _habit_quit(self, said: str, at: float, taken: set[int]) -> list[Memory]:
        """What the user said before of a habit `said` tells they quit."""
        out: list[Memory] = []
        for quit, habit in _HABITS_QUIT:
            if not quit.search(said):
                continue
            for memory in self._active_before(at, taken):
                if habit.search(memory.content) and not quit.search(memory.content) and not about_someone_else(memory.content):
                    out.append(memory)
                    taken.add(memory.id)
        return out

    def _turned_around(self, message: str, at: float, taken: set[int], kind: re.Pattern[str]) -> list[Memory]:
        """What a recovery, a change of heart or a habit dropped ends: the user's statements of
        `kind` (conditions, dislikes and restrictions, habits) from before `at` that share a word
        with the message; failing that, those of the only message of that kind in the last year."""
        found = [
            m for m in self._active_before(at, taken)
            if m.category is not Category.GOAL and kind.search(m.content) and not about_someone_else(m.content)
            and (kind is not _CONDITION or m.topic in (None, "user.health", "user.allergy", "user.diet"))
        ]
        terms = _terms(message)
        out = [m for m in found if terms & _terms(m.content)]
        if not out:
            recent = [m for m in found if m.created_at >= at - 365 * 86400]
            # one message's statements, with the facts distilled from them
            out = recent if len({m.created_at for m in recent}) == 1 else []
        taken.update(m.id for m in out)
        return out

    def _things_of(self, kinds: set[str], said: str, at: float, taken: set[int]) -> list[Memory]:
        """The user's memories from before `at` that name a thing of one of `kinds` (not a pet
        the memory calls by another name than `said` does: "Biscuit died" ends nothing of
        "our dog Max")."""
        if not kinds:
            return []
        found = [
            m for m in self._active_before(at, taken)
            if m.category is not Category.GOAL and _the_users(m.content) and kinds & kinds_in(m.content)
        ]
        called = {m.id: {normalize(g.group(1) or g.group(2)) for g in _GIVEN_NAME.finditer(m.content)} for m in found}
        named = _names(said) & {name for names in called.values() for name in names}
        out = [m for m in found if not named or named & called[m.id]]
        taken.update(m.id for m in out)
        return out

    def _of_pets_named(self, names: set[str], taken: set[int], *, people: bool = False) -> list[Memory]:
        """"豆豆走了", "we said goodbye to pepper on sunday": what was said of that pet ends (with
        `people`, of that person too: a child's new name)."""
        store = self.service.store
        out: list[Memory] = []
        found = store.active_by_topics(["user.pet"]) + store.active_by_slot_prefix("user.pet")
        if people:
            found += store.active_by_topics(["user.family"]) + store.active_by_slot_prefix("user.family")
        for memory in found:
            text = memory.content.casefold()
            if memory.id not in taken and any(re.search(rf"(?<![a-z]){re.escape(name)}(?![a-z])", text) for name in names):
                out.append(memory)
                taken.add(memory.id)
        return out

    def _said_single(self, at: float, taken: set[int]) -> list[Memory]:
        """"跟小周领证了", "Priya moved in last week": what the user said of being single."""
        out = [m for m in self._active_before(at, taken) if says_single(m.content) and not about_someone_else(m.content)]
        taken.update(m.id for m in out)
        return out

    def _active_before(self, at: float, taken: set[int]) -> list[Memory]:
        """The active memories from before `at` not taken yet (of the newest 1000: what a
        statement turns around by its kind was said in the last months, not years of history)."""
        return [m for m in self.service.store.list(status=Status.ACTIVE, limit=1000) if m.id not in taken and m.created_at < at]

    def _former_partners(self, at: float, taken: set[int]) -> list[Memory]:
        """"been single since feb": whoever was the partner is no longer."""
        store = self.service.store
        out: list[Memory] = []
        for memory in store.active_by_topics(["user.family"]) + store.active_by_slot_prefix("user.family"):
            if memory.id not in taken and memory.created_at < at and names_a_partner(memory.content):
                out.append(memory)
                taken.add(memory.id)
        return out

    def _plans_called_off(self, said: str, at: float, taken: set[int]) -> list[Memory]:
        """"黄山不去了", "tough mudder's off sadly": the plan that named the same thing is off;
        "welp trip's off" names no thing but the trip: the one trip ahead is off."""
        terms = {t for t in value_terms(ENDED.sub(" ", said)) if len(t) >= 3 or not t.isascii()}
        named = self._upcoming_naming(terms, at, taken)
        if any(m.event_at for m in named) or not _THE_TRIP.search(said):
            return named
        ahead = [m for m in self.service.store.upcoming(at, at + 400 * 86400, limit=30)
                 if m.id not in taken and m.created_at < at and m.category is Category.GOAL]
        trips = [m for m in ahead if _TRAVEL.search(m.content)]
        days = {m.event_at for m in (trips or ahead)}
        if len(days) != 1:
            return named  # which of several trips? nothing more is ended on a guess
        taken.update(m.id for m in trips or ahead)
        return named + (trips or ahead)

    def _instead_of(self, said: str, at: float, taken: set[int]) -> tuple[list[Memory], bool]:
        """The plan a statement of what is done instead replaces, and whether it is already
        replaced: the one the same message called off ("黄山不去了，…改成在家打麻将了"), else, for
        a trip sent elsewhere ("我们改去丽江了"), the one trip ahead."""
        when, off = self._called_off
        if when == at:
            return off, True
        if not _REDIRECTED.search(said):
            return [], False
        ahead = [m for m in self.service.store.upcoming(at, at + 400 * 86400, limit=30)
                 if m.id not in taken and m.created_at < at and m.category is Category.GOAL and m.event_at is not None]
        trips = [m for m in ahead if _TRAVEL.search(m.content)]
        days = [m.event_at for m in trips if m.event_at is not None]
        if not days or max(days) - min(days) > _ONE_TRIP_DAYS:
            return [], False  # which of several trips? nothing is replaced on a guess
        taken.update(m.id for m in trips)
        return trips, False

    def _rescheduled(self, message: str, new_day: float, at: float, taken: set[int]) -> list[Memory]:
        """"they bumped me to the 19th": the plan the message is about moves, the old day goes;
        "酒店说10月没档期了，改到11月8号" names nothing of it: the one plan ahead moves."""
        terms = {t for t in value_terms(message) if len(t) >= 3 or not t.isascii()}
        named = self._upcoming_naming(terms, at, taken, other_day=new_day)
        if named:
            return named
        ahead = [m for m in self.service.store.upcoming(at, at + 400 * 86400, limit=30)
                 if m.id not in taken and m.created_at < at and m.category is Category.GOAL and m.event_at != new_day]
        days = {m.event_at for m in ahead}
        if len(days) != 1:
            return []  # which of several plans? nothing is moved on a guess
        taken.update(m.id for m in ahead)
        return ahead

    def _nearest_plan(self, candidate: Candidate, vector: np.ndarray | None, at: float, taken: set[int]) -> list[Memory]:
        """The plan said before that a plan made "instead" stands in for: the plan of the nearest
        day within a week of its own ("I'm now flying out April 14 instead" after "heading to
        Lisbon April 12-19"); for a trip, the newest trip of the last few months ("doing a road
        trip to the Lake District instead"); else the plan of those months nearest in meaning."""
        def plan(memory: Memory) -> bool:
            return (memory.id not in taken and at - 120 * 86400 <= memory.created_at < at
                    and (memory.category is Category.GOAL or "user.plan" in (memory.topic, *memory.topics) or _BOOKED.search(memory.content) is not None))

        recent = [m for m in self.service.store.list(order="created_at DESC", limit=60) if plan(m) and not weekly_routine(m.content)]
        found: Memory | None = None
        if candidate.event_at is not None:
            day = to_ts(candidate.event_at)
            near = [m for m in recent if m.event_at is not None and m.category is Category.GOAL and abs(m.event_at - day) <= _ONE_TRIP_DAYS]
            found = min(near, key=lambda m: abs((m.event_at or 0) - day), default=None)
        if found is None and _BOOKED.search(candidate.content):
            found = next((m for m in recent if _BOOKED.search(m.content)), None)
        if found is None:
            ids = {m.id for m in recent}
            found = next((m for m, sim in self.similar(candidate.content, vector, limit=8) if sim >= _INSTEAD_SIMILARITY and m.id in ids), None)
        if found is None:
            return []
        taken.add(found.id)
        return [found]

    def _upcoming_naming(self, terms: set[str], at: float, taken: set[int], other_day: float | None = None) -> list[Memory]:
        out: list[Memory] = []
        for memory in self.service.store.upcoming(at - 86400, at + 400 * 86400, limit=30):
            if memory.id in taken or memory.created_at >= at or (other_day is not None and memory.event_at == other_day):
                continue
            if terms & set(tokens(memory.content)):
                out.append(memory)
                taken.add(memory.id)
        return out

    def _corrected(self, candidate: Candidate, vector: np.ndarray | None, at: float, taken: set[int]) -> list[Memory]:
        """The statement a correction stands in for: of those said in the last few days, the one
        nearest to it in meaning ("it's Kaitlyn, with a K and a y" → "my sister's name is
        Caitlin"), when near enough; for one that names a day ("sorry 说错了，是周四上午11点"), the
        newest plan of those days."""
        def recent(memory: Memory, within: float = _CORRECTS_WITHIN) -> bool:
            return _said_before(memory, at, taken) and at - within <= memory.created_at

        weeks = [m for m in self.service.store.list(order="created_at DESC", limit=60) if recent(m, _RESPELLS_WITHIN)]
        latest = [m for m in weeks if recent(m)]
        if candidate.event_at is not None:
            plans = [m for m in latest if m.category is Category.GOAL and m.event_at is not None]
            if plans:
                return [plans[0]]
        # a name spelled again ("it's Kaitlyn, with a K" after "Caitlin", "Stephen" after "Steven")
        names = {w.casefold() for w in _CAPITAL_WORD.findall(candidate.content) if not _DATE_WORDS.match(w)} - EN_STOP
        for memory in weeks:
            said = {w.casefold() for w in _CAPITAL_WORD.findall(memory.content)} - names
            if any(_respelled(a, b) for a in names for b in said):
                return [memory]
        # a number or a code given again ("是初三" after "上初二", "是 CX 880" after "CX 872")
        shapes = {_shape(n): n for n in _NUMBERED.findall(candidate.content)}
        for memory in weeks:
            if any(_shape(n) in shapes and shapes[_shape(n)] != n for n in _NUMBERED.findall(memory.content)):
                return [memory]
        for memory, sim in self.similar(CORRECTION.sub(" ", candidate.content), None, limit=12):
            if not recent(memory):
                continue
            return [memory] if sim >= _CORRECTED_SIMILARITY else []
        return []

    def _contradicted(self, candidate: Candidate, vector: np.ndarray | None, at: float, taken: set[int]) -> list[Memory]:
        """The older statement a change replaces by meaning alone: the nearest memory of an earlier
        message, when near enough, not a plan, and naming none of the change's values (then it
        says the same thing again: "已经在 Singapore 安顿好了" after "公司 transfer 我去 Singapore")."""
        for memory, sim in self.similar(candidate.content, vector, limit=8):
            if not _said_before(memory, at, taken):
                continue
            if sim < _CONTRADICTED_SIMILARITY or memory.category is Category.GOAL or memory.slot == "user.name":
                return []
            if value_words(candidate.content) & value_words(memory.content):
                return []
            taken.add(memory.id)
            return [memory]
        return []

    def changed_by_meaning(
        self, message: str, said: Sequence[tuple[int, str, str | None, np.ndarray | None]], at: float, keep: Collection[int]
    ) -> tuple[int, list[Memory]] | None:
        """What a message that tells of a change no rule recognised replaces ("在重庆待了半年 火锅
        必须红汤" after "我不吃辣"): the older statement of the user's nearest in meaning to the
        message or one of its clauses, with what goes with it.

        Args:
            message: what the user said in the message, in their words (not quoted or pasted text).
            said: the memories the message just stored, as (id, content, topic, vector or None).
            keep: ids never replaced (what the message just stored).

        Returns the id of the memory that replaces them and what it replaced (superseded), or None.
        """
        # what the user said of themselves, or the message as they typed it: the classifier learned
        # from whole messages ("it's been a month since we said goodbye and the lead is still hanging
        # by the door"), and a message's stored clauses may leave out the words that tell the change
        # A tentative word sets aside its own clause, not the message: "医生说我已经好了！想做个戚风
        # 蛋糕庆祝一下" tells of a change; "想再养两只鸭子" does not.
        said = [s for s in said if not _tentative(s[1])]
        told = ("。" if has_cjk(message) else ". ").join(content for _, content, _, _ in said)
        own = [s for s in said if not about_someone_else(s[1])]
        if not own:
            return None
        tentative = _tentative(message)
        likelihood = change_likelihood(told) if tentative else max(change_likelihood(told), change_likelihood(message))
        if likelihood < _CHANGE_LIKELY:
            return None
        # each clause, and the message as a whole: a change told by its consequences may be nearer,
        # in all its words, to what it ends than any one clause is ("回国第一个月 倒时差+适应北京的
        # 干燥" after "我在Dubai工作"); what replaces is then the message's first clause. A message
        # of one clause is searched once.
        queries = list(own)
        if all(content.strip() != message.strip() for _, content, _, _ in own) and not tentative:
            queries.append((own[0][0], message, None, None))
        best: tuple[float, int, Memory] | None = None
        for new_id, content, topic, vector in queries:
            for memory, sim in self.similar(content, vector, limit=8):
                if not _said_before(memory, at, keep) or memory.slot == "user.name" \
                        or about_someone_else(memory.content) or HOMETOWN.search(memory.content):
                    continue
                part = BY_SLOT.get(memory.topic or "")
                if part is not None and not part.single and sim < _MANY_VALUES_SIMILARITY:
                    continue
                score = sim + (_SAME_PART if part is not None and part.single and memory.topic == topic else 0.0)
                # the classifier (a store read and a prediction) last, for a statement that would be chosen
                if score >= _CHANGED_SIMILARITY and (best is None or score > best[0]) and not self._tells_a_change(memory):
                    best = (score, new_id, memory)
        if best is None and likelihood >= _CHANGE_SURE and not _ADDED.search(message):
            best = self._changed_in_part(queries, at, keep)
        if best is None:
            return None
        _, new_id, old = best
        # the rest of what the same message said of a one-value part goes with it ("我在北京 住天通苑
        # 每天挤5号线" ends whole when the user has moved); of a part with many values, only the one
        part = BY_SLOT.get(old.topic or "")
        one_value = part is not None and part.single
        replaced = [old, *self._going_with([old], at, set(keep), same_topic=one_value, spare_conditions=one_value)]
        for memory in replaced:
            self.service.supersede(memory.id, new_id)
        return new_id, replaced

    def _changed_in_part(
        self, queries: Sequence[tuple[int, str, str | None, np.ndarray | None]], at: float, keep: Collection[int]
    ) -> tuple[float, int, Memory] | None:
        """What a message sure to tell of a change replaces when no statement is near it in
        meaning — the embedding model may not read the language ("进了比亚迪坪山那边，宿舍条件好多了"
        after "我在富士康龙华厂区干了八年" is nowhere near it for the bundled English model): of the
        user's statements the text classifier (`topic_model.py`) files under the same part of life
        as the message or one of its clauses, the one sharing most words with it, then one that
        part is its own topic of (a statement of the job, not a note about a long day at work),
        then the newest. In a part with many values at a time (pets, family, health) only a
        statement that shares a word with it: "豆包走了" ends the corgi 豆包, not the cat. Not a
        plan, a name, where they grew up, nor what tells of a change itself."""
        before = [
            m for m in self._active_before(at, set(keep))[:_PART_SCAN]
            if m.source is not Source.ASSISTANT and m.category is not Category.GOAL and m.slot != "user.name"
            and not about_someone_else(m.content) and not HOMETOWN.search(m.content)
        ]
        if not before:
            return None
        guesses = likely_topics([content for _, content, _, _ in queries] + [m.content for m in before])
        asked, held = guesses[: len(queries)], guesses[len(queries) :]
        held_terms = [_terms(m.content) for m in before]
        best: tuple[tuple[int, bool, float], int, Memory] | None = None
        for (new_id, content, _, _), (part, likelihood) in zip(queries, asked, strict=True):
            if part not in _PART_CHANGES or likelihood < _PART_LIKELY:
                continue
            words = _terms(content) - _FACT_WORDS
            for memory, terms, (slot, held_likelihood) in zip(before, held_terms, held, strict=True):
                if slot != part or held_likelihood < _PART_LIKELY:
                    continue
                of_part = memory.topic == part or (memory.slot or "").startswith(part)
                key = (len(words & terms), of_part, memory.created_at)
                if not BY_SLOT[part].single and key[0] == 0:
                    continue
                if (best is None or key > best[0]) and not self._tells_a_change(memory):
                    best = (key, new_id, memory)
        return None if best is None else (0.0, best[1], best[2])

    def _tells_a_change(self, memory: Memory) -> bool:
        """Whether the memory (or the episode it was distilled from) tells of a change itself:
        what happened stays history ("we finally closed on the house in Denver"); only what is
        so can stop being so."""
        told = [memory.content]
        if memory.derived_from:
            told += [m.content for m in self.service.memories([memory.derived_from])]
        return any(change_likelihood(t) >= _TELLS_A_CHANGE for t in told)

    def _going_with(
        self, replaced: list[Memory], at: float, keep: set[int], *, same_topic: bool = True, same_plan: bool = True,
        spare_conditions: bool = False,
    ) -> list[Memory]:
        """What goes with the replaced memories: the same message's words about the same part
        of life ("I'm doing 16:8 fasting, only eating 12 to 8" ends with "不搞 fasting 了"; with
        `same_topic` False only the other parts of the same plan, with `same_plan` False not
        those either), and a fact with the episode it was distilled from, either way (a stale
        episode brings the old fact back, and a fact outlives nothing its episode said). With
        `spare_conditions`, not the words the text classifier reads as of a part with many values
        at a time ("我不吃辣 一点都不行 胃不好": the stomach outlives the diet)."""
        store = self.service.store
        out: list[Memory] = []
        taken = {m.id for m in replaced} | keep
        if replaced:
            topics = {m.topic for m in replaced if m.topic}
            days = {m.event_at for m in replaced if m.category is Category.GOAL}  # a plan's other parts
            homes = any(HOMETOWN.search(m.content) for m in replaced)
            siblings = store.siblings(replaced)
            spared: set[int] = set()
            if spare_conditions and same_topic:
                same = [m for m in siblings if m.topic in topics and m.id not in taken]
                spared = {
                    m.id for m, (slot, likely) in zip(same, likely_topics([m.content for m in same]) if same else [], strict=True)
                    if slot in _SPARED_PARTS and slot not in topics and likely >= _SPARED_LIKELY
                }
            for memory in siblings:
                if memory.id in spared:
                    continue
                one_plan = same_plan and memory.category is Category.GOAL and memory.event_at in days
                if memory.topic == "user.city" and not homes and HOMETOWN.search(memory.content):
                    continue  # "I grew up in Ohio. I live in Boston.": a move leaves where they grew up
                if memory.id not in taken and ((same_topic and memory.topic in topics) or one_plan) and memory.created_at != at:
                    out.append(memory)
                    taken.add(memory.id)
        everything = replaced + out
        episodes = {m.derived_from for m in everything if m.derived_from} - taken
        out += [m for m in store.get_many(episodes).values() if m.status is Status.ACTIVE]
        taken |= {m.id for m in out}
        # a fact distilled from a replaced episode about another part of life stays: "I live in
        # Leeds with my dog Pico" gave "User has a dog named Pico", which a move leaves true
        gone = {m.id for m in replaced + out}
        parts = {m.topic for m in replaced + out}
        out += [m for m in store.linked(list(gone)) if m.id not in taken
                and not (m.derived_from in gone and m.topic is not None and None not in parts and m.topic not in parts)]
        return out

    @staticmethod
    def _new_memory(candidate: Candidate, at: float, turn: Turn | None, topic: Topic | None, derived_from: int | None) -> NewMemory:
        return NewMemory(
            content=candidate.content,
            category=candidate.category,
            kind=candidate.kind,
            slot=candidate.slot,
            entities=candidate.entities,
            importance=candidate.importance,
            confidence=candidate.confidence,
            source=candidate.source,
            review=candidate.confidence < 0.5,
            expires_at=to_ts(candidate.expires_at) if candidate.expires_at else None,
            event_at=to_ts(candidate.event_at) if candidate.event_at else at,
            session_id=turn.session_id if turn else None,
            source_message_id=turn.message_id if turn else None,
            vault_ids=candidate.vault_ids,
            topic=topic.slot if topic is not None else candidate.topic,
            topics=candidate.topics,
            derived_from=derived_from,
        )

    def _slotted(self, topic: Topic) -> list[Memory]:
        """The active slotted facts of a topic that carry no topic tag (stored before topics)."""
        prefixes = ["user.employer", "user.job"] if topic.slot == "user.job" else [topic.slot]
        found = [m for p in prefixes for m in self.service.store.active_by_slot_prefix(p)]
        if topic.slot == "user.diet":
            found = [m for m in found if m.slot == "user.diet"]  # user.diet.avoid.* hold more than one value
        return [m for m in found if m.topic is None]

    def similar(self, content: str, vector: np.ndarray | None, limit: int) -> list[tuple[Memory, float]]:
        """Active memories nearest to `content`, with rescaled similarity."""
        service = self.service
        if service.index.count() == 0:
            return []
        fl = floors(service.embedder)
        query = vector if vector is not None else service.embedder.embed_one(content)
        hits = service.index.query(query, limit, service.profile_id)
        found = service.store.get_many([i for i, _ in hits])
        out = []
        for memory_id, sim in hits:
            memory = found.get(memory_id)
            if memory is not None and memory.status is Status.ACTIVE:
                out.append((memory, fl.rescale(sim, script(content), script(memory.content))))
        return out


__all__ = ["DUPLICATE_SIMILARITY", "MEDICATION", "OVERRIDE_SIMILARITY", "UpdateDecision", "replaces", "topic_of_slot"]
