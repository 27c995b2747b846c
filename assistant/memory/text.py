"""Tokens for keyword search, the same on the index side and the query side.

Chinese has no spaces, so CJK runs become overlapping character bigrams ("北京海淀区" →
北京 京海 海淀 淀区), which lets "海淀" find "我住在北京海淀区" without a dictionary. Latin words
are lower-cased and lightly stemmed (plural/-ing/-ed), identically for documents and queries.
The FTS5 table then only splits on the spaces we put in.
"""

from __future__ import annotations

import math
import re
import unicodedata

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][a-z]+)?", re.UNICODE)
_HAS_CJK_RE = re.compile(rf"[{_CJK}]")
_IDENT_RE = re.compile(r"\b(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{4,}[A-Za-z0-9]\b")

EN_STOP = frozenset(
    """a an the and or but if of to in on at by for with from about as into is are was were be
    been being am do does did done have has had i me my mine myself you your yours we our us he she
    it its they them their this that these those what which who whom whose when where why how
    can could should would will shall may might must not no yes so too very just than then there
    here any some all also again ever up down out over under more most much many such only own
    same both each few other s t don doesn didn isn aren wasn weren won wouldn shouldn couldn
    please tell know think remember like want need get got go going let make made one thing things
    anything something really actually maybe okay ok hey hi hello thanks thank""".split()
)
# Bigrams made only of function characters carry no meaning for search.
_ZH_STOP_CHARS = frozenset("的了吗呢吧啊呀嘛我你他她它们是在有和就都也还很这那个么什怎哪要会能说想给对")


def has_cjk(text: str) -> bool:
    """Whether `text` has any CJK character (Chinese, kana or hangul): what tokenizes as bigrams."""
    return _HAS_CJK_RE.search(text) is not None


# Chinese characters only (with extension A and the compatibility ideographs): what reads as
# Chinese for the embedder's script, the gloss and the people rules.
_HAN_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_han(text: str) -> bool:
    """Whether `text` has a Chinese character (not kana or hangul)."""
    return _HAN_RE.search(text) is not None


def _stem(word: str) -> str:
    """A light, symmetric stemmer: likes/liked/liking → lik, hiking/hike → hik, runs/running → run."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "zes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and len(word) >= 6:
        word = word[:-3]
    elif word.endswith("ed") and len(word) >= 5:
        word = word[:-2]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def tokens(text: str, *, query: bool = False) -> list[str]:
    """Search tokens of `text`; with `query`, stopwords are left out."""
    out: list[str] = []
    for match in _TOKEN_RE.finditer(normalize(text)):
        run = match.group()
        if has_cjk(run[0]):
            if len(run) == 1:
                if not query or run not in _ZH_STOP_CHARS:
                    out.append(run)
                continue
            for i in range(len(run) - 1):
                gram = run[i : i + 2]
                if query and gram[0] in _ZH_STOP_CHARS and gram[1] in _ZH_STOP_CHARS:
                    continue
                out.append(gram)
        else:
            word = run.replace("’", "'").split("'")[0]
            if query and (word in EN_STOP or len(word) < 2 and not word.isdigit()):
                continue
            out.append(_stem(word))
    return out


def index_text(text: str) -> str:
    """What the FTS table stores for `text`: its tokens separated by spaces."""
    return " ".join(tokens(text))


def match_expression(query_tokens: list[str]) -> str | None:
    """An FTS5 MATCH expression OR-ing the quoted tokens (quotes make syntax inert)."""
    unique = list(dict.fromkeys(t for t in query_tokens if t))
    if not unique:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique[:32])


def storable(text: str) -> str:
    """`text` with lone surrogates (undecodable terminal input, which UTF-8 and so SQLite
    cannot hold) replaced by U+FFFD; surrogate pairs are joined into their character."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def identifiers(text: str) -> list[str]:
    """Exact identifiers (order numbers, ticket ids): tokens with a digit, 6+ characters."""
    return [m.group() for m in _IDENT_RE.finditer(text)]


def idf(doc_freq: int, total: int) -> float:
    return math.log(1.0 + (total - doc_freq + 0.5) / (doc_freq + 0.5))
