"""English rules: one function per kind of fact, each reading one sentence."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime

from assistant.memory.extract.common import (
    EN_NAME,
    EN_PLACE,
    FAMILY_EN,
    NAME_LOWER,
    NAME_UPPER,
    Sentence,
    StyleRule,
    clean,
    forget_slot,
    looks_like_injection,
    make,
    reply_styles,
    slot_key,
)
from assistant.memory.types import Candidate, Category

Rule = Callable[[Sentence, datetime], Iterator[Candidate]]

_NOT_NAMES = frozenset(
    "I Is Was And But Not Just So Very Also Still The A An My Your His Her Their Our It This That "
    "Is Likes Loves Has Had Will Would Can Could Should Who What When Where Why How Here There".split()
)
_ORG = r"[A-Z][\w&.\-]{0,30}(?:\s+[A-Z][\w&.\-]{0,30}){0,3}|[a-z]+[A-Z]\w{0,30}|[\u4e00-\u9fff]{2,10}"
_FILLER = r"(?:tbh|ngl|lol|haha+|btw|honestly|etc|tho|lately|to be honest|for real|fwiw|imo)"
# A liked or owned thing ends where the sentence goes on ("…, but", "… and I", "… lol").
_THING = (
    r"(.{1,48}?)(?=\s+(?:but|and then|(?i:and\s+(?:i|i'm|i've|my|we|we're))\b|because|since|so|when|though|a lot|very much|too|"
    rf"anymore|any more|these days|now|{_FILLER})\b|\s*[,;:!]|$)"
)
_PRONOUNS = {"my": "their", "our": "their", "i": "they", "i'm": "they're", "im": "they're", "me": "them",
             "we": "they", "we're": "they're", "myself": "themselves", "mine": "theirs", "us": "them",
             "i've": "they've", "i'll": "they'll", "i'd": "they'd", "we've": "they've"}
_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "am": "is"}


def _3p(text: str) -> str:
    """Rewrite first-person words as third person ("my back" -> "their back")."""
    return re.sub(r"(?i)\b(?:i'm|i've|i'll|i'd|we're|we've|my|our|i|im|me|we|myself|mine|us)\b",
                  lambda m: _PRONOUNS[m.group(0).lower()], text)


def _verb_s(verb: str) -> str:
    """Third-person singular of a verb phrase's first word ("take the bus" -> "takes the bus")."""
    head, _, rest = verb.partition(" ")
    low = head.lower()
    if low in _IRREGULAR:
        head = _IRREGULAR[low]
    elif re.search(r"(?:s|sh|ch|x|z|o)$", low):
        head += "es"
    elif re.search(r"[^aeiou]y$", low):
        head = head[:-1] + "ies"
    else:
        head += "s"
    return f"{head} {rest}".strip()


def _clause(text: str) -> str:
    """The first clause of `text`: up to a comma, semicolon or a new "but/because/so I …" clause."""
    m = re.match(r"(.{0,160}?)(?=\s*[,;:(]|\s+(?:but|because|cause|cuz|since|so|although|though|while|whereas|lol|haha+|tbh|btw)\b|$)", text)
    return clean(m.group(1) if m else text[:160])


def _name_ok(name: str) -> bool:
    return name.split()[0] not in _NOT_NAMES


# Capitalised words that follow "I'm" without being a name ("I'm English", "I'm Back").
_NOT_SELF_NAMES = frozenset(
    "American British English Canadian Australian French German Italian Spanish Chinese Japanese Korean "
    "Indian Irish Scottish Welsh Dutch Swedish Norwegian Danish Finnish Mexican Brazilian Russian Polish "
    "Greek Turkish Portuguese Swiss Austrian Belgian Asian European African Latino Latina Jewish Muslim "
    "Christian Catholic Protestant Hindu Buddhist Atheist Vegan Vegetarian Sorry Fine Good Okay OK Back Done "
    "Here Home Ready Free Busy Sure Happy Tired Gonna Going Always Never Currently Now Really Totally Kinda "
    "Late Off On Out In At Almost Only Pretty Super Glad Excited Bored Hungry Stuck Lost New Right Wrong "
    "Single Married Divorced Retired Pregnant Remote Online Offline Monday Tuesday Wednesday Thursday Friday "
    "Saturday Sunday".split()
)


# Words for how someone is that "hi i'm …" takes in lower case ("hi i'm sick", "hey im ok").
_LOWER_STATES = frozenset(
    "sick sad ill mad upset awake alone ok okay early up down broke scared afraid cold hot sore well unwell old young "
    "tall short ready stressed anxious nervous calm great good bad fine new here back home".split()
)


# One capitalised word of a name: "Marcus", "Zoë", "Łukasz"
_CAPITALISED = rf"[{NAME_UPPER}][{NAME_LOWER}'\-]{{1,30}}"


def _name(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.search(rf"(?i:\bmy name(?:'s| is)\s+|\bi'?m called\s+|\bi am called\s+|\bi go by\s+|\b(?:call|calls|called)\s+me\s+(?=[A-Z])|^(?:hi|hello|hey|yo)(?: there| all| everyone)?[,!]?\s+(?:i'?m|i am|this is|it's)\s+(?=[A-Z]))({EN_NAME})\b", s.text)
    if m is None:
        m = re.search(r"(?i:\bmy name(?:'s| is)\s+)([a-z][a-z'\-]{1,30})\b", s.text)
    if m is None:
        # "Quick context before I ask: name's Tomás" (not "the dog's name is Rex")
        m = re.search(rf"(?:^|[:,;!.]\s*|\b(?i:and|so|btw|oh|hi|hey|hello)\s+)(?i:name's|name is)\s+([{NAME_UPPER}][\w'\-]{{1,30}})\b", s.text)
    if m is None:
        # "hi i'm priya", "im priya, nice to meet you", "i'm priya, just set this up": a name typed
        # in lower case, where only an introduction puts it
        m = re.search(
            r"(?i:^(?:(?:hi|hello|hey|yo)[,!]?\s+)(?:i'm|i am|im)\s+([a-z][a-z'\-]{2,20})\b(?=\s*(?:[,.!~]|$))"
            r"|^(?:i'm|i am|im)\s+([a-z][a-z'\-]{2,20}),?\s+(?=nice to meet|new here|first time|just (?:set|signed|started|installed|downloaded|joined)))",
            s.text,
        )
        if m is not None:
            word = next(g for g in m.groups() if g)
            if word.capitalize() in _NOT_SELF_NAMES or word.casefold() in _LOWER_STATES or re.search(r"(?:ed|ing|ly|y|ful|less|ous|ive)$", word.casefold()):
                m = None
    if m is None:
        # "I'm Marcus btw", "I'm Sofia, nice to meet you", "Marcus here": a capitalised word alone.
        m = re.search(rf"(?:^|(?<=[\s,!(]))(?i:i'm|i am|im)\s+({_CAPITALISED}(?:\s+{_CAPITALISED})?)(?=\s*(?:[,.!;)~]|$)|\s+(?:btw|by the way|here|from|and|lol|nice|fyi|again|now)\b)", s.text)
        if m is None:
            m = re.search(rf"^(?:(?i:hi|hello|hey|yo)[,!]?\s+)?({_CAPITALISED})\s+here(?=\s*(?:[,!.:;\-–—(]|[\U0001F300-\U0001FAFF\u2600-\u27BF]|$))", s.text)
            if m and m.group(1) in ("Everyone", "Everybody", "Nobody", "Somebody", "Someone", "Anyone", "Nothing", "Everything", "Mine", "Yours", "Ours"):
                m = None
        if m is None:
            # "just Sam is fine", "Sam works too" after a name was taken back
            m = re.search(rf"^(?i:just\s+)({_CAPITALISED})\s+(?:is fine|works|please|is good)\b", s.text)
        if m is not None and (m.group(1).split()[0] in _NOT_SELF_NAMES or m.group(1).split()[0] in _NOT_NAMES):
            m = None
    found = next((g for g in m.groups() if g), None) if m is not None else None
    if found is None or not _name_ok(found.capitalize()):
        return
    name = " ".join(w[:1].upper() + w[1:] for w in found.split())
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
    m = re.search(r"(?i:(?:\b(?:i|we)(?:'m|'ve|'re| am| have| are)?\s+|^(?:(?:so|and|also|btw|update:?|news:?)\s*,?\s*)?)(?:now\s+|currently\s+|still\s+|just\s+|recently\s+|finally\s+|already\s+|officially\s+)*(?:live|living|reside|residing|based|located|moved|moving|relocated|relocating|settled|staying)\s+(?:down\s+|back\s+|over\s+|out\s+)?(?:in|to|into)\s+)(" + EN_PLACE + ")", t)
    moved_now = False
    if m is None:
        # "we're in Amsterdam now", "I'm now in Berlin": a present-tense "in X" marked as new.
        m = re.search(r"(?i:\b(?:i|we)(?:'m|'re| am| are)\s+(now\s+|finally\s+|officially\s+)?(?:over\s+|out\s+|up\s+|down\s+)?in\s+)(" + EN_PLACE + r")(?i:(\s+now\b|\s+for good\b|\s+permanently\b))?", t)
        if m and not (m.group(1) or m.group(3)):
            m = None
        elif m:
            moved_now = True
    if m:
        city = m.group(2) if moved_now else m.group(1)
        if city.split()[0] not in _NOT_NAMES:
            yield make(s, f"User lives in {city}.", Category.FACT, slot="user.city", value=city,
                       entities=[city], importance=4,
                       override=moved_now or re.search(r"(?i)\b(?:moved|moving|relocat\w*)\b", m.group(0)) is not None)
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


_JOBS = _JOBS | frozenset(
    "auditor attorney paralegal cop midwife caregiver counselor counsellor coach trainer instructor tutor "
    "dev swe sre devops hygienist optometrist receptionist bartender server courier welder contractor "
    "realtor agent broker underwriter actuary adviser advisor planner strategist producer animator "
    "illustrator copywriter executive supervisor foreman janitor housekeeper nanny babysitter homemaker "
    "postdoc resident medic emt radiologist anesthesiologist dietitian nutritionist physiotherapist physio "
    "chiropractor linguist historian curator archivist worker employee associate nurse rn np pa dba "
    "sysadmin admin coordinator investigator detective paramedic sailor captain guard teller".split()
)
_JOB_END = r"(?=\s+(?:at|for|in|with|and|but|now|these days|nowadays|currently|full[- ]time|part[- ]time|right now|since|lol|tbh|btw|so|because|on|from|starting|next|this|last)\b|[,.;!?)]|$)"


def _job_words(raw: str) -> str | None:
    """Keep a job phrase up to its last job noun ("ER nurse and we were" -> "ER nurse")."""
    words = raw.split()
    while words and words[-1].lower() not in _JOBS:
        words.pop()
    return " ".join(words) or None


def _job(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    job: str | None = None
    new_job = False
    m = re.search(r"(?i:\b(?:i|i'm|i am|i've|i have|i'll|i will|i'll be|^)\s*(?:now\s+|currently\s+|just\s+|finally\s+|officially\s+)?(?:work(?:ing)?|employed|(?:be\s+)?(?:start|starting|started|begin|beginning|began)(?:\s+(?:a\s+)?(?:new\s+)?(?:job|work|role|position))?|(?:been\s+|got\s+|was\s+|get\s+)?hired|(?:got|landed|took|taken|accepted|have|started)\s+(?:a|an|my|the)\s+(?:new\s+)?(?:job|role|position|gig))\s+(?:(?:at|for)\s+[\w&.\-]+(?:\s+[A-Z][\w&.\-]*){0,3}\s+)?as\s+(?:an?\s+)?)([A-Za-z][A-Za-z\-]*(?:\s+[A-Za-z][A-Za-z\-]*){0,3}?)" + _JOB_END, t)
    if m:
        job = m.group(1)
        new_job = re.search(r"(?i)start|began|begin|hired|got|landed|took|taken|accepted|new", m.group(0)) is not None
    else:
        m = re.search(r"(?i:\b(?:i'm|i am|im|i've been|i have been|i became|i've become|i'll be|my (?:new\s+)?(?:job|role|position|title) is|my (?:new\s+)?(?:job|role|position|title)'s|i (?:got|was|just got|have been|'ve been) promoted to)\s+(?:now\s+|currently\s+|still\s+|officially\s+|just\s+)?(?:an?\s+)?)([A-Za-z\-]+(?:\s+[A-Za-z\-]+){0,3})", t)
        if m and (re.search(r"(?i)\b(?:an?|promoted to|my (?:new\s+)?(?:job|role|position|title))\s+\S*$", t[: m.start(1)]) or re.search(r"(?i)\bpromoted\b|\b(?:job|role|position|title)\b", m.group(0))):
            job = _job_words(m.group(1))
            new_job = re.search(r"(?i)promoted|became|become|\bnew\b|'ll be|will be", m.group(0)) is not None
    new_job = new_job or re.search(r"(?i)\b(?:now|these days|nowadays|anymore)\b", t) is not None
    if job:
        job = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in job.split())
        yield make(s, f"User works as {'an' if job[0].lower() in 'aeiou' else 'a'} {job}.", Category.FACT,
                   slot="user.job", value=job, entities=[job], importance=4, override=new_job)
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
_PETS = "|".join(sorted((
    "dog|puppy|cat|kitten|rabbit|bunny|hamster|parrot|bird|fish|turtle|tortoise|guinea pig|lizard|snake|horse|ferret|"
    "golden retriever|labrador retriever|retriever|labrador|lab|terrier|poodle|german shepherd|shepherd|bulldog|"
    "french bulldog|frenchie|beagle|husky|corgi|spaniel|cocker spaniel|collie|border collie|dachshund|pug|chihuahua|"
    "shiba inu|shiba|greyhound|whippet|goldendoodle|labradoodle|doodle|schnauzer|rottweiler|boxer|pitbull|pit bull|"
    "maine coon|siamese|persian|ragdoll|tabby|bengal|sphynx|budgie|cockatiel|gecko|axolotl|chinchilla|pony"
).split("|"), key=len, reverse=True))


_AGE_TAIL = r"(?:\s*\(([^()]{1,60})\)|,\s+((?:an?|my|our)\s+[^,;.!?]{1,40}?|\d+\s*(?:yrs?|years?|months?|mo)(?:\s+old)?)(?=[,;.!?]|$))?"


def _tail(rest: str, name: str) -> str:
    """What the sentence says next about a named person or pet, in the third person ("" if nothing)."""
    rest = rest.strip()
    m = re.match(r"(?i)(?:,\s*|and\s+|who\s+|who's\s+|which\s+)?(.*)$", rest)
    body = m.group(1) if m else rest
    body = re.sub(r"(?i)\s+(?:lol|haha+|tbh|btw|lmao|😂|🙂)\s*$", "", body)
    body = clean(body[:160])
    if len(body.split()) < 2:
        return ""
    if not re.match(r"(?i)(?:she|he|they|her|his|their|our|my|the|we|i|it|its|both)\b", body):
        body = f"{name} {body}" if not body.startswith("'") else f"{name}{body}"
    return _3p(body)


# "me and my sister, Lisbon, May 3-10": a list of the plan's parts, not the sister's name
_LISTED = re.compile(r"(?i)\s*,\s*(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|next\b|this\b|tomorrow\b)")


def _family(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"(?i:\bmy\s+(?:(?:little|older|younger|big|baby|eldest|oldest|youngest|twin|step|new)\s+)?({_REL})(?:'s name is|s? name is| is called| is named| named| called|,)?\s+)({EN_NAME})\b", t)
    if m and _name_ok(m.group(2)) and not _LISTED.match(t[m.end():]):
        rel, name = FAMILY_EN[m.group(1).lower()], m.group(2)
        tail = _tail(t[m.end():], name)
        content = f"User's {m.group(1).lower()} is named {name}" + (f"; {tail}." if tail else ".")
        yield make(s, content, Category.FACT, slot=f"user.family.{rel}", value=name,
                   entities=[name, *_entities(tail)], importance=4)
        return
    m = re.search(rf"(?i:\b(?:i|we)(?:\s+|(?=')))(?i:have|'ve got|have got|'ve|got)\s+(?i:a|an|one|two|three|four|\d)\s+(?i:(?:little|baby|teenage|grown|young|adult)\s+)?(?i:({_REL})s?)\b(?:(?i:\s+(?:named|called)\s+|,\s*))?({EN_NAME})?", t)
    if m and (m.group(2) is None or _name_ok(m.group(2))):
        rel, name = FAMILY_EN[m.group(1).lower()], m.group(2)
        content = f"User has a {m.group(1).lower()}" + (f" named {name}." if name else ".")
        yield make(s, content, Category.FACT, slot=f"user.family.{rel}", value=name,
                   entities=[name] if name else [], importance=4)
        return
    # "my daughter is obsessed with dinosaurs", "my son just started kindergarten"
    m = re.search(rf"(?i:\bmy\s+(?:(?:little|older|younger|big|baby|eldest|oldest|youngest|twin|teenage)\s+)?({_REL})\s+)((?i:is|'s|has|just|loves?|likes?|hates?|adores|started|starts|plays|goes|turned|turns|wants|can't|cannot|won't|keeps|still|always|never)\b.{{3,150}})$", t)
    if m:
        rel = FAMILY_EN[m.group(1).lower()]
        body = clean(_3p(m.group(2)))
        if len(body.split()) >= 2 and not re.match(r"(?i)(?:is|'s)\s+(?:here|back|home|coming|out|away|asleep|sick|busy|mad|angry|annoyed|tired)\b", body):
            yield make(s, f"User's {m.group(1).lower()} {body}.", Category.FACT, slot=None, value=None,
                       entities=[m.group(1).lower(), *_entities(body)], importance=3)


def _pet(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(rf"(?i:\b(?:my|our)\s+(?:(?:new|old|little|big|sweet|rescue|senior|baby|\d+[- ]year[- ]old)\s+)?({_PETS})(?:'s name is| is called| is named| named| called|,)?\s+)({EN_NAME})\b" + _AGE_TAIL, t)
    if m is None:
        m = re.search(rf"(?i:\b(?:i|we)(?:\s+|(?=')))(?i:have|'ve got|have got|'ve|got|adopted|just got|just adopted)\s+(?i:a|an|one|two|three|\d)\s+(?i:(?:[\w\-]+\s+){{0,3}}?({_PETS})s?)(?:(?i:\s+(?:named|called)\s+|,\s*))?({EN_NAME})?" + _AGE_TAIL, t)
    if m is None or (m.group(2) and not _name_ok(m.group(2))):
        return
    kind, name = m.group(1).lower(), m.group(2)
    detail = m.group(3) or m.group(4)
    second = re.match(r"\s+and\s+(" + EN_NAME + r")\b", t[m.end():]) if name and not detail else None
    if second and _name_ok(second.group(1)):
        # "two cats, Miso and Tofu": one memory per pet.
        other = second.group(1)
        yield make(s, f"User has a {kind} named {other}.", Category.FACT, slot=f"user.pet.{other.lower().replace(' ', '_')}",
                   value=other, entities=[other, kind], importance=3)
    slot = f"user.pet.{(name or kind).lower().replace(' ', '_')}"
    content = f"User has a {kind}" + (f" named {name}" if name else "") + (f" ({_3p(clean(detail))})" if detail else "") + "."
    yield make(s, content, Category.FACT, slot=slot, value=name or kind,
               entities=[e for e in (name, kind) if e], importance=3)


_TOOLS: dict[str, str] = {}
for _cat, _names in (
    ("editor", "vs code|vscode|visual studio code|visual studio|vim|neovim|nvim|emacs|sublime text|sublime|intellij|pycharm|webstorm|goland|clion|rider|atom|zed|cursor|xcode|notepad++|nano|helix|android studio|eclipse"),
    ("browser", "chrome|google chrome|firefox|safari|edge|brave|arc|opera|vivaldi|chromium"),
    ("os", "windows|macos|mac|macbook|linux|ubuntu|fedora|arch|arch linux|debian|linux mint|chromeos|nixos"),
    ("phone", "iphone|android|pixel|galaxy|samsung"),
    ("shell", "bash|zsh|fish|powershell|nushell"),
    ("notes", "notion|obsidian|evernote|onenote|logseq|bear|apple notes|roam"),
    ("terminal", "iterm|iterm2|alacritty|kitty|wezterm|warp|ghostty"),
    ("language", "python|javascript|typescript|java|golang|go|rust|c++|c#|ruby|php|kotlin|swift|scala|elixir|haskell|clojure|dart|julia|lua|perl|zig"),
    ("email", "gmail|outlook|proton mail|protonmail|thunderbird|fastmail"),
    ("music", "spotify|apple music|tidal|youtube music|deezer"),
    ("cloud", "aws|azure|gcp|google cloud"),
):
    for _n in _names.split("|"):
        _TOOLS[_n] = _cat
_TOOL_RX = r"(?<![\w+#])((?i:" + "|".join(re.escape(n) for n in sorted(_TOOLS, key=len, reverse=True)) + r"))(?![\w+#])"
# Tool names that are also ordinary words count only when capitalised ("I use Go", not "I go").
_AMBIGUOUS_TOOLS = frozenset("go arch edge bear warp kitty fish nano atom cursor zed arc galaxy pixel rust mac windows roam swift dart lua julia helix ms bash".split())


def _tool_ok(name: str) -> bool:
    return name.lower() not in _AMBIGUOUS_TOOLS or name[:1].isupper()


def _tool_name(raw: str) -> str | None:
    m = re.match(r"(?i)(?:the\s+|an?\s+)?" + _TOOL_RX, raw.strip())
    return m.group(1) if m else None


def _tool(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """Tools the user uses; a switch names both with the same slot so the new one supersedes."""
    t = s.text
    m = re.search(r"(?i:\b(?:switched|switching|switch|moved|migrated|changed|converted|went|gone|jumped|transitioned)\s+(?:over\s+|back\s+|completely\s+|fully\s+)?(?:from\s+(?:the\s+|an?\s+)?" + _TOOL_RX + r"\s+)?to\s+(?:the\s+|an?\s+)?" + _TOOL_RX + ")", t)
    old = new = None
    if m:
        old, new = m.group(1), m.group(2)
    else:
        m = re.search(r"(?i:\b(?:ditched|dropped|replaced|left|quit|abandoned|traded)\s+" + _TOOL_RX + r"\s+(?:for|with|in favou?r of)\s+" + _TOOL_RX + ")", t)
        if m:
            old, new = m.group(1), m.group(2)
    if new and _tool_ok(new):
        cat = _TOOLS[new.lower()]
        content = f"User uses {new}" + (f" now (switched from {old})." if old else " now.")
        yield make(s, content, Category.PREFERENCE, slot=f"user.tool.{cat}", value=new,
                   entities=[new], importance=4, override=True)
        return
    m = re.search(r"(?i:\b(?:i|we)(?:'m|'re| am| are)?\s+(?:\w+\s+)?(?:use|using|run|running|code in|coding in|write|writing|program in|programming in|work in|main|daily[- ]drive|daily[- ]driving|live in)\s+(?:the\s+|an?\s+)?)" + _TOOL_RX, t)
    if m is None:
        m = re.search(r"(?i:\bi(?:'m| am)\s+(?:an?\s+)?(?:(?:die[- ]?hard|big|huge|long[- ]?time|loyal|happy|devoted|lifelong|hardcore|proud)\s+)*)" + _TOOL_RX + r"(?i:\s+(?:user|person|guy|girl|fan|loyalist|diehard))\b", t)
    if m and _tool_ok(m.group(1)) and not re.search(r"(?i)\b(?:don't|do not|never|no longer|stopped|hate|tried)\b", t[max(0, m.start() - 30): m.end()] + " "):
        name = m.group(1)
        cat = _TOOLS[name.lower()]
        yield make(s, f"User uses {name}.", Category.PREFERENCE, slot=f"user.tool.{cat}", value=name,
                   entities=[name], importance=3)


_BODY = r"(?i:(?:left\s+|right\s+|lower\s+|upper\s+)?(?:acl|mcl|pcl|meniscus|knee|ankle|wrist|back|arm|leg|foot|hand|shoulder|hip|hamstring|calf|neck|elbow|finger|thumb|toe|collarbone|rib|achilles|rotator cuff|groin|quad|shin|spine|disc|tendon|ligament)s?)"
_CONDITIONS = r"(?i:asthma|diabetes|type [12] diabetes|adhd|add|anxiety|depression|migraines?|epilepsy|celiac(?: disease)?|coeliac(?: disease)?|ibs|crohn's|arthritis|high blood pressure|hypertension|insomnia|eczema|psoriasis|dyslexia|autism|tinnitus|sleep apnea|pcos|endometriosis|colou?r[- ]?blindness|a (?:bad|weak|dodgy|bum) (?:back|knee|hip|shoulder|ankle)|a heart condition|lupus|ms|multiple sclerosis|long covid)"
_STATES = r"(?i:colou?r[- ]?blind|deaf|hard of hearing|dyslexic|autistic|asthmatic|epileptic|pregnant|blind in one eye|short[- ]sighted|near[- ]sighted|nearsighted|far[- ]sighted|left[- ]handed|a wheelchair user|in a wheelchair|on crutches|sober|in recovery)"


def _health(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?i:(?:\bi\s+(?:just\s+|recently\s+|finally\s+)?|^(?:(?:update|news|so|ugh|well)\s*[:,]?\s*)?(?:just\s+)?)(?:tore|torn|ruptured|broke|broken|sprained|fractured|injured|hurt|pulled|twisted|dislocated|strained|busted|blew out|blown out|messed up|screwed up)\s+(?:my\s+)?)(" + _BODY + r")\b(.{0,80})", t)
    if m:
        part = m.group(1)
        verb = re.search(r"(?i)(tore|torn|ruptured|broke|broken|sprained|fractured|injured|hurt|pulled|twisted|dislocated|strained|busted|blew out|blown out|messed up|screwed up)\s+(?:my\s+)?" + re.escape(part), m.group(0))
        how = _clause(m.group(2))
        verb_s = verb.group(1).lower() if verb else "injured"
        verb_s = {"torn": "tore", "broken": "broke", "blown out": "blew out"}.get(verb_s, verb_s)
        content = f"User {verb_s} their {part}" + (f" {_3p(how)}" if how and len(how) > 2 else "") + " (injury)."
        yield make(s, content, Category.FACT, slot=f"user.health.injury.{slot_key(part) or 'body'}",
                   value=part, entities=[part, "injury"], importance=4, override=True)
    m = re.search(r"(?i:\bi\s+(?:have|'ve got|have got|got|was diagnosed with|got diagnosed with|'ve been diagnosed with|have been diagnosed with|suffer from|live with|deal with|struggle with)\s+(?:(?:mild|severe|chronic|bad|really bad|diagnosed)\s+)?)(" + _CONDITIONS + r")\b", t)
    if m is None:
        m = re.search(r"(?i:\bi(?:'m| am)\s+(?:(?:also|actually|partially|completely|totally|mildly|slightly|legally|now)\s+)?)(" + _STATES + r")\b", t)
        if m:
            state = m.group(1)
            rest = _clause(t[m.end():].lstrip(" ,;:-"))
            key = slot_key(re.sub(r"(?i)^(?:a|an|in|on)\s+", "", state))
            yield make(s, f"User is {state}" + (f" ({_3p(rest)})" if rest and len(rest) > 2 else "") + ".",
                       Category.FACT, slot=f"user.health.{key}" if key else None, value=state,
                       entities=[state], importance=4)
        return
    cond = m.group(1)
    key = slot_key(re.sub(r"(?i)^a\s+", "", cond))
    yield make(s, f"User has {cond}.", Category.FACT, slot=f"user.health.{key}" if key else None,
               value=cond, entities=[cond], importance=4)


def _hobby(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """"I play bass in a jazz trio on weekends", "I've been learning Japanese", "I do pottery"."""
    t = s.text
    m = re.search(r"(?i:\bi(?:'ve| have)?\s+(?:also\s+|still\s+|regularly\s+|sometimes\s+|often\s+|usually\s+|really\s+|just\s+|recently\s+|been\s+|started\s+|am\s+|'m\s+)*(play(?:ing)?|practi[cs]e|practi[cs]ing|learn(?:ing)?|study(?:ing)?|collect(?:ing)?|do|doing)\s+)((?:the\s+)?[A-Za-z][\w\-]*(?:\s+[A-Za-z][\w\-]*)?)(.{0,100})", t)
    if m is None:
        return
    verb = m.group(1).lower()
    thing = re.sub(r"(?i)^the\s+", "", m.group(2))
    first = thing.split()[0].lower()
    if first in _VAGUE_HOBBY or slot_key(first) is None:
        return
    if verb in ("do", "doing") and not re.search(r"(?i)\b(?:every|on weekends|weekly|a week|for fun|as a hobby|in my (?:free|spare) time|regularly)\b", t):
        return
    if verb.startswith(("play",)) and first in ("it", "with", "around", "along", "a", "an", "some"):
        return
    rest = _clause(m.group(3))
    base = {"playing": "play", "practicing": "practice", "practising": "practise", "learning": "learn",
            "studying": "study", "collecting": "collect", "doing": "do"}.get(verb, verb)
    phrase = f"{thing} {rest}".strip() if rest else thing
    if verb.endswith("ing"):
        head = ("has been " if re.search(r"(?i)\bbeen\b", m.group(0)) else "is ") + verb
    else:
        head = _verb_s(base)
    content = f"User {head} {_3p(phrase)}."
    yield make(s, content, Category.PREFERENCE, slot=f"user.likes.{slot_key(first)}", value=thing,
               entities=[thing, *_entities(rest)], importance=3)


_VAGUE_HOBBY = frozenset(
    "it this that them a an some something anything everything nothing what with around along to my your "
    "the stuff things lot lots whatever more less well fine good ok okay games game no".split()
)
_HABIT_VERBS = r"drink|eat|take|use|wear|buy|order|read|watch|listen to|play|go|walk|bike|cycle|ride|run|swim|cook|fly|travel|shop|work|sleep|wake up|get up|go to bed|do|commute|drive|take the \w+|work out|exercise|train|meditate|skip|avoid"


def _habit(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """Routines and standing habits: "I only drink decaf after noon", "I don't drive", "I bike everywhere"."""
    t = s.text
    m = re.search(r"(?i:\bi\s+(?:(only|usually|always|mostly|normally|typically|generally|never|rarely|often|sometimes|just|basically)\s+)(" + _HABIT_VERBS + r")\b)(.{0,120})", t)
    neg = None
    if m is None:
        neg = re.search(r"(?i:\bi\s+(don't|do not|never|no longer|can't|cannot|can not)\s+(drive|drink|smoke|cook|swim|fly|own a car|have a car|ride a bike|drink alcohol|drink coffee|drink caffeine|do caffeine|use social media)\b)(.{0,80})", t)
    if neg:
        what = neg.group(2).lower()
        how = {"don't": "doesn't", "do not": "doesn't", "never": "never", "no longer": "no longer",
               "can't": "can't", "cannot": "can't", "can not": "can't"}[neg.group(1).lower()]
        rest = _clause(neg.group(3))
        verb = what if how != "no longer" else _verb_s(what)
        content = f"User {how} {verb}" + (f" {_3p(rest)}" if rest and not rest.lower().startswith(("and ", "or ")) else "") + "."
        yield make(s, content, Category.PREFERENCE, slot=f"user.habit.{slot_key(what) or 'other'}",
                   value="no", entities=[what], importance=4)
        for m2 in re.finditer(r"(?i:\b(?:never|don't|do not)\s+(?:got|get|have|had)\s+(?:a\s+|my\s+)?)(driver'?s licen[cs]e|driving licen[cs]e|licen[cs]e|car|passport)\b", t):
            yield make(s, f"User has no {m2.group(1).lower()}.", Category.FACT, slot=f"user.has.{slot_key(m2.group(1)) or 'other'}",
                       value="no", entities=[m2.group(1)], importance=3)
        return
    if m is None:
        m = re.search(r"(?i:\bi\s+(?:usually\s+|mostly\s+|always\s+|just\s+|only\s+)?()(bike|cycle|walk|drive|take the \w+|commute|ride (?:my|a|the) \w+|run|swim|work remotely|work from home|wfh)\b)((?:\s+(?:or|and)\s+(?:bike|cycle|walk|drive|take the \w+|ride \w+))*\s+(?:everywhere|to work|to school|to the office|daily|every day|every morning|each day|most days|all the time)\b.{0,60})", t)
    if m is None:
        return
    adv = (m.group(1) or "").lower()
    verb = m.group(2)
    rest = _clause(m.group(3))
    rest = re.sub(r"(?i)\b(or|and)\s+(" + _HABIT_VERBS + r")\b", lambda x: f"{x.group(1)} {_verb_s(x.group(2))}", rest)
    content = "User " + (f"{adv} " if adv else "") + _verb_s(verb) + (f" {_3p(rest)}" if rest else "") + "."
    key = slot_key(verb)
    yield make(s, content, Category.PREFERENCE, slot=None, value=verb,
               entities=[key or verb, *_entities(rest)], importance=3)


_MONTH_RX = r"(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATE_RX = rf"(?:{_MONTH_RX}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_RX}|\d{{1,2}}/\d{{1,2}})"


def _finished(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """Books, shows and games the user just finished, with how they liked them."""
    t = s.text
    m = re.search(r"(?i:(?:\bi\s+|^)(?:(?:just|recently|finally|also)\s+)*(finished|read|reread|re-read|watched|rewatched|binged|listened to|started reading|started watching|beat|completed))\s+((?:[A-Z0-9][\w'’:\-]*)(?:\s+(?:of|the|a|an|and|in|on|to|for|[A-Z0-9][\w'’:\-]*)){0,7})", t)
    if m is None:
        return
    title = re.sub(r"\s+(?:of|the|a|an|and|in|on|to|for)$", "", m.group(2)).strip()
    core = re.sub(r"^(?:The|A|An)\s+", "", title)
    if not core or core.split()[0] in _NOT_NAMES or len(title) < 3:
        return
    rest = t[m.end():]
    liked = re.search(r"(?i)\b(?:loved|enjoyed|liked|adored|amazing|great|fantastic|brilliant|awesome|so good|really good|incredible)\b", rest)
    disliked = re.search(r"(?i)\b(?:hated|disliked|boring|meh|terrible|awful|didn't like|did not like|overrated|disappointing)\b", rest)
    verb = m.group(1).lower().replace("re-read", "reread")
    verb = {"read": "read", "beat": "beat"}.get(verb, verb)
    opinion = " and didn't like it" if disliked else " and loved it" if liked else ""
    key = slot_key(title)
    yield make(s, f"User {verb} {title}{opinion}.", Category.PREFERENCE,
               slot=f"user.likes.{key}" if key and opinion else None,
               value=("no" if disliked else "yes") if opinion else None, entities=[title], importance=3)


def _dates(s: Sentence, now: datetime) -> Iterator[Candidate]:
    """Birthdays and anniversaries: "our anniversary is june 14", "my mom's birthday is 3rd of May"."""
    for m in re.finditer(rf"(?i:\b(my|our)\s+(?:({_REL})(?:'s|s)?\s+)?(birthday|bday|b-day|anniversary|wedding anniversary|name day)(?:'s|\s+is|\s+falls on|\s+was)\s+(?:on\s+)?(?:the\s+)?)({_DATE_RX})\b", s.text):
        whose = m.group(2).lower() if m.group(2) else None
        what = m.group(3).lower().replace("bday", "birthday").replace("b-day", "birthday")
        date = m.group(4)
        date = re.sub(r"(?i)\b[a-z]+\b", lambda x: x.group(0).capitalize() if re.fullmatch(_MONTH_RX, x.group(0), re.I) else x.group(0), date)
        if whose:
            rel = FAMILY_EN[whose]
            yield make(s, f"User's {whose}'s {what} is {date}.", Category.FACT, slot=f"user.family.{rel}.{slot_key(what)}",
                       value=date, entities=[whose, what, date], importance=4)
        else:
            partner = re.search(rf"(?i:\bmy\s+(wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?)(?:'s name is|s? name is| is called| is named|,)?\s+)({EN_NAME})", s.text)
            with_whom = f" (with their {partner.group(1).lower()} {partner.group(2)})" if partner and what != "birthday" and m.group(1).lower() == "our" else ""
            yield make(s, f"User's {what}{with_whom} is {date}.", Category.FACT, slot=f"user.{slot_key(what)}",
                       value=date, entities=[what, date, *([partner.group(2)] if partner is not None and with_whom else [])], importance=4)


def _age(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.search(r"(?i:\bi(?:'m| am|m)\s+(?:now\s+|just\s+|almost\s+|nearly\s+)?|\bi\s+(?:just\s+)?turned\s+)(\d{1,2})(?i:\s*(?:years?|yrs?|y/?o)(?:\s+old)?)?(?=\s*[,.!;)]|\s*$|\s+(?:now|btw|and|but|in case|if|so|lol|this|next|last|today|soon)\b|\s*(?i:years?|yrs?|y/?o))", s.text)
    if m and 10 <= int(m.group(1)) <= 99:
        age = m.group(1)
        yield make(s, f"User is {age} years old.", Category.FACT, slot="user.age", value=age,
                   entities=[], importance=3)


def _likes(s: Sentence, now: datetime) -> Iterator[Candidate]:
    t = s.text
    m = re.search(r"(?i:\bmy\s+favou?rite\s+(\w+(?:\s\w+)?)\s+is\s+)(.{1,40}?)\s*$", t)
    if m:
        what, thing = m.group(1).lower(), clean(m.group(2))
        if not thing:
            return
        key = slot_key(what)
        yield make(s, f"User's favorite {what} is {thing}.", Category.PREFERENCE,
                   slot=f"user.favorite.{key}" if key else None, value=thing, entities=[thing])
        return
    neg = re.search(r"(?i:\bi\s+(?:really\s+|just\s+|still\s+|absolutely\s+)?(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't really like|no longer like|don't love|don't enjoy|am not a fan of|'m not a fan of|'m not into|am not into)\s+)" + _THING, t)
    pos = re.search(r"(?i:\bi\s+(?:really\s+|absolutely\s+|totally\s+|also\s+|do\s+|just\s+|still\s+|now\s+|kind of\s+|kinda\s+)?(?:love|like|enjoy|adore|prefer)\s+|\bi'?m\s+(?:(?:really|so|totally|very|super|pretty|also|still|now|quite|big|hugely|kinda|kind of|seriously|completely)\s+)*(?:a\s+(?:big\s+|huge\s+|massive\s+)?fan\s+of|into|crazy about|obsessed with|passionate about|hooked on|addicted to|nuts about|mad about)\s+)" + _THING, t)
    if neg is None and pos is None:
        # Subject left out, as people type: "prefer hiking trips tbh", "also hate anything with oat milk".
        lead = r"^(?i:(?:(?:also|and|but|plus|honestly|tbh|ngl|oh|so|really|totally|absolutely|seriously)\s*,?\s+)*)"
        neg = re.search(lead + r"(?i:(?:hate|dislike|detest|can't stand|cannot stand|don't like|don't really like|not a fan of|not into)\s+)" + _THING, t)
        pos = None if neg else re.search(lead + r"(?i:(?:love|prefer|enjoy|adore|big fan of|huge fan of|really into|obsessed with)\s+)" + _THING, t)
    m = neg or pos
    if m is None:
        return
    thing = clean(re.sub(r"(?i)^(?:anything|everything|stuff|things|food|foods|drinks?)\s+(?:with|that has|that have|containing|made with|made from)\s+", "", m.group(1)))
    thing = clean(re.sub(r"(?i)\s+" + _FILLER + r"$", "", thing))
    thing = _3p(thing)
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
    m = re.search(rf"(?i:\bi(?:'m| am)\s+(?:now\s+|a\s+|also\s+|strictly\s+|still\s+|mostly\s+|fully\s+|basically\s+|pretty much\s+)*(?:a\s+)?(?:strict\s+)?)((?:type [12]\s+|pre-?)?(?:{_DIETS}))\b", t)
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


_STYLE: tuple[StyleRule, ...] = (
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
    yield from reply_styles(s, _STYLE, flags="(?i)", tone=_tone)


def _tone(m: re.Match[str]) -> tuple[str, str]:
    word = m.group(1).lower()
    value = re.sub(r"(?:al)?ly$", "", word) if word != "friendly" else "friendly"
    value = {"form": "formal", "casu": "casual", "polite": "polite", "direct": "direct", "blunt": "blunt"}.get(value, value)
    return value, f"User prefers a {value} tone."


def _entities(text: str) -> list[str]:
    found = re.findall(r"\b(?:[A-Z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#](?:\s+[A-Z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#])*|[A-Za-z]*\d[A-Za-z0-9\-]*)\b|[\u4e00-\u9fff]{2,8}", text)
    return [f for f in found if f not in _NOT_NAMES and len(f) > 1][:8]


def _remember(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.match(r"(?i:(?:please\s+|pls\s+|hey,?\s+|ok,?\s+|okay,?\s+|also,?\s+|and\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:remember|don't forget|do not forget|note|keep in mind|make a note|take (?:a )?note|save|memori[sz]e|jot down)(?:\s+(?:this|that|for me|this for me))?(?:\s+(?:exactly|verbatim|word for word|precisely|carefully))?\s*(?:that\b|:|,|-|：)?\s*)(.+)$", s.text)
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


_ID_KINDS = r"order|ticket|tracking|booking|reservation|confirmation|case|reference|ref|invoice|incident|claim|policy|membership|customer|account|parcel|shipment|support ticket|PNR"


def _identifier(s: Sentence, now: datetime) -> Iterator[Candidate]:
    for m in re.finditer(rf"(?i:\b({_ID_KINDS})\s*(?:number|no\.?|num|#|id|code|ref(?:erence)?)?\s*(?:is|was|:|=|#)?\s*#?)([A-Za-z0-9][A-Za-z0-9\-_/]{{2,40}})", s.text):
        ident = m.group(2).rstrip("-_/")
        if not re.search(r"\d", ident) or len(ident) < 4:
            continue
        kind = m.group(1).lower()
        kind = {"ref": "reference", "pnr": "PNR"}.get(kind, kind)
        label = kind if kind in ("ticket", "PNR", "support ticket") else f"{kind} number"
        yield make(s, f"User's {label} is {ident}.",
                   Category.IDENTIFIER, value=ident, entities=[ident, kind], importance=4, confidence=0.9)


def _forget(s: Sentence, now: datetime) -> Iterator[Candidate]:
    m = re.match(r"(?i:(?:(?:please|pls|ok|okay|hey|and|actually|also|oh|btw|so|wait|hmm)\s*,?\s+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+you\s+to\s+|i'd like you to\s+)?(?:(forget|stop remembering|unlearn)\s+|(?:delete|erase|remove|wipe|clear|drop)\s+(?=(?:what|everything|anything|all|the memor|my\b|that\b)))(?:about\s+)?(?:(?:what|everything|anything|all)\s+(?:you\s+(?:know|remember|have|'ve got|saved|stored)\s+)?(?:about\s+)?)?(?:the\s+memor(?:y|ies)\s+(?:about|of)\s+)?)(.+)$", s.text)
    if m is None:
        return
    # "forget my age pls, keep the allergy tho": the target ends where another clause starts.
    raw = re.split(r"(?i)\s*(?:[,;(]|\s-\s|\bbut\b|\bkeep\b|\bthough\b|\btho\b|\bthanks\b|\bthx\b|\bI'd rather\b|\bI don't want\b|\bnot comfortable\b)", m.group(2), maxsplit=1)[0]
    raw = re.sub(r"(?i)(?:\s+(?:pls|plz|please|for me|from (?:your )?memory|for now|now|too|as well|thanks|thx|ok|okay))+\s*$", "", raw.rstrip("?!. "))
    target = clean(raw)
    target = re.sub(r"(?i)^(?:about\s+)?(?:the\s+(?:thing|stuff|part|bit|info|note)s?\s+(?:about|on|regarding)\s+)?(?:my|the|that|the fact that)\s+", "", target)
    if not target or target.lower() in ("it", "this", "that", "about it", "everything", "me") or looks_like_injection(target):
        return
    yield make(s, target, Category.FACT, slot=forget_slot(target), importance=5, forget=True,
               explicit=True, confidence=0.9)


RULES: tuple[Rule, ...] = (
    _name, _city, _job, _family, _pet, _likes, _diet, _reply_style, _decision, _identifier,
    _tool, _health, _hobby, _habit, _finished, _dates, _age,
)
EXPLICIT: tuple[Rule, ...] = (_forget, _remember)
