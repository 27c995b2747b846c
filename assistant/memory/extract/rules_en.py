"""English rules: one function per kind of fact, each reading one sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

from assistant.memory.extract.common import (
    EN_NAME,
    EN_PLACE,
    FAMILY_EN,
    Sentence,
    clean,
    forget_slot,
    looks_like_injection,
    make,
    slot_key,
)
from assistant.memory.timewords import future_date
from assistant.memory.types import Candidate, Category

Rule = Callable[[Sentence, datetime], Iterator[Candidate]]

_NOT_NAMES = frozenset(
    "I Is Was And But Not Just So Very Also Still The A An My Your His Her Their Our It This That "
    "Is Likes Loves Has Had Will Would Can Could Should Who What When Where Why How Here There".split()
)
_ORG = r"[A-Z][\w&.\-]{0,30}(?:\s+[A-Z][\w&.\-]{0,30}){0,3}|[a-z]+[A-Z]\w{0,30}|[\u4e00-\u9fff]{2,10}"
_THING = r"(.{1,48}?)(?=\s+(?:but|and then|(?i:and\s+(?:i|i'm|i've|my|we|we're))\b|because|since|so|when|though|a lot|very much|too|anymore|any more|these days|now)\b|\s*[,;:!]|$)"


def _name_ok(name: str) -> bool:
    return name.split()[0] not in _NOT_NAMES


def _name(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.search(rf"(?i:\bmy name(?:'s| is)\s+|\bi'?m called\s+|\bi am called\s+|\bi go by\s+|\bcall me\s+(?=[A-Z])|^(?:hi|hello|hey)(?: there)?[,!]?\s+(?:i'?m|i am|this is)\s+(?=[A-Z]))({EN_NAME})\b", s.text)
    if m is None:
        m = re.search(r"(?i:\bmy name(?:'s| is)\s+)([a-z][a-z'\-]{1,30})\b", s.text)
    if m is None or not _name_ok(m.group(1).capitalize()):
        return
    name = " ".join(w[:1].upper() + w[1:] for w in m.group(1).split())
    yield make(s, f"User's name is {name}.", Category.FACT, slot="user.name", value=name,
               entities=[name], importance=5)


def _city(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?i:\bi\s+(?:no longer|don't|do not)\s+live\s+in\s+)(" + EN_PLACE + ")", t)
    if m:
        place = m.group(1)
        yield make(s, f"User no longer lives in {place}.", Category.FACT, slot="user.city",
                   entities=[place], importance=4, override=True)
        return
    m = re.search(r"(?i:\b(?:i|we)(?:'m|'ve|'re| am| have| are)?\s+(?:now\s+|currently\s+|still\s+|just\s+|recently\s+|finally\s+|already\s+)?(?:live|living|reside|residing|based|located|moved|relocated|settled|staying)\s+(?:down\s+)?(?:in|to)\s+)(" + EN_PLACE + ")", t)
    if m:
        city = m.group(1)
        yield make(s, f"User lives in {city}.", Category.FACT, slot="user.city", value=city,
                   entities=[city], importance=4)
    m = re.search(r"(?i:\bi(?:'m| am| was)\s+(?:originally\s+)?(?:from|born in)\s+|\bi grew up in\s+)(" + EN_PLACE + ")", t)
    if m:
        home = m.group(1)
        yield make(s, f"User is from {home}.", Category.FACT, slot="user.hometown", value=home,
                   entities=[home], importance=3)


_JOBS = frozenset(
    "engineer developer programmer coder designer teacher doctor nurse lawyer accountant student "
    "researcher scientist manager consultant writer journalist artist photographer chef cook "
    "driver pilot architect analyst professor lecturer dentist pharmacist therapist psychologist "
    "banker trader marketer freelancer founder ceo cto cfo entrepreneur musician translator editor "
    "tester administrator mechanic electrician plumber carpenter farmer officer firefighter soldier "
    "vet veterinarian intern retiree surgeon physician paramedic librarian cashier waiter waitress "
    "barista baker salesperson recruiter director owner lead specialist technician assistant "
    "secretary clerk economist statistician mathematician physicist chemist biologist pm".split()
)


def _job(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    job: str | None = None
    m = re.search(r"(?i:\b(?:i|i'm|i am)\s+(?:now\s+|currently\s+)?(?:work(?:ing)?|employed)\s+(?:(?:at|for)\s+[\w&.\-]+(?:\s+[A-Z][\w&.\-]*){0,3}\s+)?as\s+(?:an?\s+)?)([a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,3}?)(?=\s+(?:at|for|in|with|and|but)\b|[,.;!]|$)", t, re.IGNORECASE)
    if m:
        job = m.group(1)
    else:
        m = re.search(r"(?i:\b(?:i'm|i am|my job is|my job's)\s+(?:now\s+|currently\s+|still\s+)?an?\s+)([a-z\-]+(?:\s+[a-z\-]+){0,2})", t)
        words = m.group(1).split() if m else []
        while words and words[-1].lower() not in _JOBS:
            words.pop()
        job = " ".join(words) or None
    if job:
        job = job.lower()
        yield make(s, f"User works as {'an' if job[0] in 'aeiou' else 'a'} {job}.", Category.FACT,
                   slot="user.job", value=job, entities=[job], importance=4)
    m = re.search(r"(?i:\b(?:i|we)(?:'m| am| are|'ve| have)?\s+(?:now\s+|currently\s+|still\s+|just\s+|recently\s+)?(?:work(?:ing)?\s+(?:at|for)|employed\s+(?:at|by)|joined|started\s+(?:a new job\s+)?at)\s+)(" + _ORG + ")", t)
    if m and m.group(1).split()[0] not in _NOT_NAMES:
        org = m.group(1)
        yield make(s, f"User works at {org}.", Category.FACT, slot="user.employer", value=org,
                   entities=[org], importance=4, override="joined" in m.group(0).lower())
    m = re.search(r"(?i:\bi\s+(?:quit|left)\s+(?:my\s+job\s+at\s+)?)(" + _ORG + ")", t)
    if m and m.group(1).split()[0] not in _NOT_NAMES:
        yield make(s, f"User no longer works at {m.group(1)}.", Category.FACT, slot="user.employer",
                   entities=[m.group(1)], importance=4, override=True)


_REL = "|".join(sorted(FAMILY_EN, key=len, reverse=True))
_PETS = r"dog|puppy|cat|kitten|rabbit|bunny|hamster|parrot|bird|fish|turtle|tortoise|guinea pig|lizard|snake|horse|ferret"


def _family(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"(?i:\bmy\s+(?:(?:little|older|younger|big|baby|eldest|oldest|youngest)\s+)?({_REL})(?:'s name is|s? name is| is called| is named| named| called|,)?\s+)({EN_NAME})\b", t)
    if m and _name_ok(m.group(2)):
        rel, name = FAMILY_EN[m.group(1).lower()], m.group(2)
        yield make(s, f"User's {m.group(1).lower()} is named {name}.", Category.FACT,
                   slot=f"user.family.{rel}", value=name, entities=[name], importance=4)
        return
    m = re.search(rf"(?i:\b(?:i|we)\s+(?:have|'ve got|have got)\s+(?:a|an|one|two|three|\d)\s+(?:(?:little|baby|teenage|grown)\s+)?({_REL})s?\b(?:\s+(?:named|called)\s+)?)({EN_NAME})?", t)
    if m:
        rel, name = FAMILY_EN[m.group(1).lower()], m.group(2)
        content = f"User has a {m.group(1).lower()}" + (f" named {name}." if name else ".")
        yield make(s, content, Category.FACT, slot=f"user.family.{rel}", value=name,
                   entities=[name] if name else [], importance=4)


def _pet(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"(?i:\b(?:my|our)\s+({_PETS})(?:'s name is| is called| is named| named| called|,)?\s+)({EN_NAME})\b", t)
    if m is None:
        m = re.search(rf"(?i:\b(?:i|we)\s+(?:have|'ve got|have got|got|adopted)\s+(?:a|an|one|two|\d)\s+(?:\w+\s+)?({_PETS})s?(?:\s+(?:named|called)\s+)?)({EN_NAME})?", t)
    if m is None or (m.group(2) and not _name_ok(m.group(2))):
        return
    kind, name = m.group(1).lower(), m.group(2)
    slot = f"user.pet.{(name or kind).lower().replace(' ', '_')}"
    content = f"User has a {kind}" + (f" named {name}." if name else ".")
    yield make(s, content, Category.FACT, slot=slot, value=name or kind,
               entities=[e for e in (name, kind) if e], importance=3)


def _likes(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?i:\bmy\s+favou?rite\s+(\w+(?:\s\w+)?)\s+is\s+)(.{1,40}?)\s*$", t)
    if m:
        what, thing = m.group(1).lower(), clean(m.group(2))
        key = slot_key(what)
        yield make(s, f"User's favorite {what} is {thing}.", Category.PREFERENCE,
                   slot=f"user.favorite.{key}" if key else None, value=thing, entities=[thing])
        return
    neg = re.search(r"(?i:\bi\s+(?:really\s+|just\s+|still\s+|absolutely\s+)?(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't really like|no longer like|don't love|don't enjoy|am not a fan of|'m not a fan of|'m not into|am not into)\s+)" + _THING, t)
    pos = re.search(r"(?i:\bi\s+(?:really\s+|absolutely\s+|totally\s+|also\s+|do\s+|just\s+|still\s+|now\s+|kind of\s+|kinda\s+)?(?:love|like|enjoy|adore|prefer)\s+|\bi'?m\s+(?:a\s+(?:big\s+|huge\s+)?fan\s+of|into|crazy about)\s+)" + _THING, t)
    m = neg or pos
    if m is None:
        return
    thing = clean(m.group(1))
    key = slot_key(thing)
    if not thing or (key is None and slot_key(thing.split()[0]) is None):
        return
    anymore = re.search(r"(?i)\b(?:anymore|any more|no longer)\b", t) is not None
    if neg:
        content = f"User doesn't like {thing}" + (" anymore." if anymore else ".")
    else:
        content = f"User likes {thing}."
    yield make(s, content, Category.PREFERENCE, slot=f"user.likes.{key}" if key else None,
               value="no" if neg else "yes", entities=[thing], importance=3,
               override=bool(neg and anymore))


_DIETS = r"vegetarian|vegan|pescatarian|pescetarian|halal|kosher|gluten[- ]free|lactose[- ]intolerant|diabetic|celiac|coeliac|on a keto diet|keto|on a diet"


def _split_items(text: str) -> list[str]:
    return [clean(p) for p in re.split(r"\s*(?:,|\band\b|\bor\b|&)\s*", text) if clean(p)]


def _diet(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"(?i:\bi(?:'m| am)\s+(?:now\s+|a\s+|also\s+|strictly\s+|still\s+)*(?:a\s+)?(?:strict\s+)?)({_DIETS})\b", t)
    if m:
        diet = m.group(1).lower()
        yield make(s, f"User is {diet}.", Category.PREFERENCE, slot="user.diet", value=diet,
                   entities=[diet], importance=4)
    m = re.search(r"(?i:\bi\s+(?:don't|do not|never|no longer|can't|cannot|can not)\s+eat\s+)" + _THING, t)
    if m:
        for item in _split_items(m.group(1)):
            key = slot_key(item)
            yield make(s, f"User doesn't eat {item}.", Category.PREFERENCE,
                       slot=f"user.diet.avoid.{key}" if key else None, value="no",
                       entities=[item], importance=4)
    m = re.search(r"(?i:\bi(?:'m| am)\s+(?:very\s+|severely\s+|also\s+|a (?:bit|little)\s+)?allergic\s+to\s+)" + _THING, t)
    items = _split_items(m.group(1)) if m else []
    m2 = re.search(r"(?i:\bi\s+have\s+(?:an?\s+|a severe\s+)?)([a-z]+(?:\s[a-z]+)?)\s+allerg(?:y|ies)\b", t)
    if m2:
        items.append(m2.group(1))
    for item in items:
        key = slot_key(item.lower())
        key = key[:-1] if key and key.endswith("s") and not key.endswith("ss") and len(key) > 3 else key
        yield make(s, f"User is allergic to {item}.", Category.FACT,
                   slot=f"user.allergy.{key}" if key else None, value=item, entities=[item],
                   importance=5)


_STYLE: tuple[tuple[str, str, str, str], ...] = (
    (r"\b(?:keep|make)\s+(?:your\s+|the\s+|it\s+|them\s+)?(?:answers?|replies|reply|responses?|it|them)?\s*(?:short|brief|concise|shorter|to the point)|\bbe\s+(?:more\s+)?(?:brief|concise)\b|\b(?:shorter|short|brief|concise)\s+(?:answers|replies|responses)\b", "length", "short", "User prefers short answers."),
    (r"\b(?:more\s+)?detailed\s+(?:answers|explanations|replies|responses)\b|\bgo into (?:more )?detail\b|\b(?:longer|in-depth)\s+(?:answers|replies)\b", "length", "detailed", "User prefers detailed answers."),
    (r"\b(?:don't|do not|never|stop|no more|please don't|without)\s+(?:use\s+|using\s+|put(?:ting)?\s+|send(?:ing)?\s+|add(?:ing)?\s+)?(?:any\s+)?emojis?\b|\bno\s+emojis?\b", "emoji", "no", "User doesn't want emojis in replies."),
    (r"\b(?:use|add)\s+(?:more\s+)?emojis?\b", "emoji", "yes", "User likes emojis in replies."),
    (r"\b(?:no|without|don't use|stop using)\s+markdown\b|\bplain text only\b", "format", "plain", "User wants plain-text replies without markdown."),
    (r"\b(?:use|with|in)\s+bullet(?:\s+points|s)\b", "format", "bullets", "User likes replies in bullet points."),
    (r"\b(?:be|sound|talk|speak|write)\s+(?:to me\s+)?(?:more\s+)?(formal|formally|casual|casually|friendly|polite|politely|direct|directly|blunt|bluntly)\b", "tone", "", ""),
)


def _reply_style(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?i:\b(?:answer|reply|respond|talk|speak|write|chat)\s+(?:to\s+me\s+|with\s+me\s+)?(?:me\s+)?(?:only\s+|always\s+)?in\s+)(English|Chinese|Mandarin|Cantonese|Japanese|Korean|French|German|Spanish|Italian|Portuguese|Russian|Dutch|中文|英文)", t)
    if m:
        lang = m.group(1).capitalize()
        yield make(s, f"User wants replies in {lang}.", Category.PREFERENCE,
                   slot="user.reply_style.language", value=lang, entities=[lang], importance=4)
    done: set[str] = set()
    for rx, aspect, value, content in _STYLE:
        m = re.search("(?i)" + rx, t)
        if m and aspect not in done:
            done.add(aspect)
            if aspect == "tone":
                value = re.sub(r"(?:al)?ly$", "", m.group(1).lower()) if m.group(1).lower() != "friendly" else "friendly"
                value = {"form": "formal", "casu": "casual", "polite": "polite", "direct": "direct", "blunt": "blunt"}.get(value, value)
                content = f"User prefers a {value} tone."
            yield make(s, content, Category.PREFERENCE, slot=f"user.reply_style.{aspect}",
                       value=value, importance=4)


def _entities(text: str) -> list[str]:
    found = re.findall(r"\b(?:[A-Z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#](?:\s+[A-Z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#])*|[A-Za-z]*\d[A-Za-z0-9\-]*)\b|[\u4e00-\u9fff]{2,8}", text)
    return [f for f in found if f not in _NOT_NAMES and len(f) > 1][:8]


def _remember(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.match(r"(?i:(?:please\s+|pls\s+|hey,?\s+|ok,?\s+|okay,?\s+|also,?\s+|and\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:remember|don't forget|do not forget|note|keep in mind|make a note|take (?:a )?note|save|memori[sz]e|jot down)(?:\s+(?:this|that|for me|this for me))?\s*(?:that\b|:|,|-|：)?\s*)(.+)$", s.text)
    if m is None:
        return
    what = clean(m.group(1).rstrip("?"))
    if len(what) < 3 or re.match(r"(?i)(?:when|how|what|the time|me\b|it\b|this\b|that\b|to\s+(?:remind|tell))", what):
        return
    if looks_like_injection(what):
        return
    content = what[0].upper() + what[1:] + "."
    yield make(s, content, Category.FACT, entities=_entities(what), importance=4, explicit=True,
               confidence=0.9)


def _decision(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?i:\b(?:we|i|the team|they)(?:'ve| have|'re| are|'ll| will)?\s+(?:finally\s+|eventually\s+|just\s+|now\s+|officially\s+)?(decided|agreed|chose|went with|settled on|picked|opted for|going with|go with|switched to|migrated to|standardi[sz]ed on|committed to)\s+(?:to\s+|on\s+)?)(.{2,120})$", t)
    if m is None:
        m = re.search(r"(?i:\b(let's go with|let's use|(?:the\s+)?(?:final\s+)?decision(?: is|:)|decided:)\s*)(.{2,120})$", t)
    if m is None:
        return
    verb, what = m.group(1).lower(), clean(m.group(2))
    if not what:
        return
    content = f"Decided to {what}." if verb in ("decided", "agreed") else f"Decision: {verb} {what}."
    yield make(s, content, Category.CONCLUSION, entities=_entities(what), importance=4,
               override=verb in ("switched to", "migrated to"))


_PLAN = re.compile(r"(?i)\b(?:i|we)(?:'m|'ll|'re|'ve| am| will| are| have| shall)?\s+(?:\w+\s+)?(?:going|gonna|will|plan|planning|have to|need to|must|fly|flying|leave|leaving|travel|traveling|travelling|go|visit|visiting|meet|meeting|start|starting|move|moving|head|heading|take|taking|attend|attending|see|seeing|return|returning|drive|driving|got|getting|pick|present|presenting|fly out|off to|due)\b")
_EVENT = re.compile(r"(?i)\b(appointment|meeting|flight|interview|exam|deadline|trip|wedding|party|birthday|dentist|surgery|presentation|demo|launch|conference|concert|vacation|holiday|due)\b")
_MONTHS_DAYS = re.compile(r"(?i)^(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*|next|this|the|tomorrow|today|tonight|on|in|my|we|our)\b|^\d")


def _plan(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    if not (_PLAN.search(t) or _EVENT.search(t)):
        return
    when = future_date(t, now)
    if when is None:
        return
    places = [p for p in re.findall(r"\b(?:to|in|at|for|from)\s+(" + EN_PLACE + ")", t) if not _MONTHS_DAYS.match(p)]
    places += [e for e in _entities(t) if e not in places and not _MONTHS_DAYS.match(e)]
    ev = _EVENT.search(t)
    day = when[0].strftime("%a %Y-%m-%d")
    if when[1].date() != when[0].date():
        day += " to " + when[1].strftime("%a %Y-%m-%d")
    yield make(s, f"User's plan for {day}: {t}.", Category.GOAL,
               entities=places + ([ev.group(1).lower()] if ev else []),
               importance=4 if ev or places else 3, event_at=when[0],
               expires_at=when[1] + timedelta(days=1))


_ID_KINDS = r"order|ticket|tracking|booking|reservation|confirmation|case|reference|ref|invoice|incident|claim|policy|membership|customer|account|parcel|shipment|support ticket|PNR"


def _identifier(s: Sentence, now: datetime) -> Iterator[Candidate]:
    for m in re.finditer(rf"(?i:\b({_ID_KINDS})\s*(?:number|no\.?|num|#|id|code|ref(?:erence)?)?\s*(?:is|was|:|=|#)?\s*#?)([A-Za-z0-9][A-Za-z0-9\-_/]{{2,40}})", s.text):
        ident = m.group(2).rstrip("-_/")
        if not re.search(r"\d", ident) or len(ident) < 4:
            continue
        kind = m.group(1).lower()
        label = kind if kind in ("ticket", "pnr") else f"{kind} number"
        yield make(s, f"User's {label} is {ident}.", Category.IDENTIFIER, value=ident,
                   entities=[ident, kind], importance=4, confidence=0.9)


def _forget(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.match(r"(?i:(?:please\s+|pls\s+|ok,?\s+|okay,?\s+|hey,?\s+|and\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+you\s+to\s+|i'd like you to\s+)?(?:(forget|stop remembering|unlearn)\s+|(?:delete|erase|remove|wipe|clear|drop)\s+(?=(?:what|everything|anything|all|the memor|my\b|that\b)))(?:about\s+)?(?:(?:what|everything|anything|all)\s+(?:you\s+(?:know|remember|have|'ve got|saved|stored)\s+)?(?:about\s+)?)?(?:the\s+memor(?:y|ies)\s+(?:about|of)\s+)?)(.+)$", s.text)
    if m is None:
        return
    target = clean(re.sub(r"(?i)\s*(?:please|for me|from (?:your )?memory)\s*$", "", m.group(2).rstrip("?")))
    target = re.sub(r"(?i)^(?:about\s+)?(?:my|the|that|the fact that)\s+", "", target)
    if not target or target.lower() in ("it", "this", "that", "about it", "everything", "me") or looks_like_injection(target):
        return
    yield make(s, target, Category.FACT, slot=forget_slot(target), importance=5, forget=True,
               explicit=True, confidence=0.9)


RULES: tuple[Rule, ...] = (
    _name, _city, _job, _family, _pet, _likes, _diet, _reply_style, _decision, _plan, _identifier,
)
EXPLICIT: tuple[Rule, ...] = (_forget, _remember)
