"""Topic cues: words in a question that point at a kind of memory without naming it.

"Can I eat satay sauce?" shares no word with "User is allergic to peanuts", but "eat" points at
diet and allergy memories; "周末附近有什么好玩的" points at where the user lives. The read path
uses these as one more route (`cue`), weighted below similarity and keywords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assistant.memory.people import FIRST_PERSON
from assistant.memory.text import normalize, tokens
from assistant.memory.types import Memory


@dataclass(frozen=True)
class Cue:
    slots: tuple[str, ...]  # slot prefixes this topic covers
    en: frozenset[str]  # stemmed English tokens (see text.tokens)
    zh: tuple[str, ...]  # Chinese substrings


def _en(words: str) -> frozenset[str]:
    return frozenset(t for w in words.split() for t in tokens(w))


CUES: tuple[Cue, ...] = (
    Cue(("user.city", "user.address", "user.hometown"),
        _en("live living city town move moved nearby near neighborhood neighbourhood local around area commute weather trip outing walk explore "
            # where to go and what to do around here needs where "here" is
            "hike hikes hiking trail trails park parks beach beaches drive restaurant restaurants cafe cafes bar bars brunch eats "
            "spots spot places events concert concerts gig gigs museum museums rain raining umbrella forecast campus daytrip"),
        ("住", "城市", "搬", "附近", "周边", "本地", "这边", "哪个市", "天气", "通勤", "出去玩", "逛", "散步", "周末去", "好去处", "去哪玩", "哪里玩", "带伞", "老家", "家乡", "特产", "回家过年",
         "爬山", "徒步", "公园", "餐厅", "馆子", "咖啡店", "景点", "打卡", "一日游", "自驾", "下雨", "穿什么", "上班路上", "去公司", "回家")),
    Cue(("user.job", "user.employer", "user.salary"),
        _en("job work working career office boss colleague coworker company salary shift workplace profession interview resume schedule skill certificate "
            "1:1 1:1s one-on-one standup review reviews promotion team manager client clients meeting meetings signature linkedin freelance freelancing gig gigs"),
        ("工作", "上班", "公司", "老板", "同事", "职业", "加班", "单位", "面试", "简历", "领导", "证书", "技能", "工资", "预算", "求职", "实习",
         "团队", "客户", "开会", "述职", "绩效", "接单", "商单", "接活", "甲方", "副业")),
    Cue(("user.diet", "user.allergy", "user.likes", "user.favorite", "user.health"),
        _en("eat eating food restaurant dinner lunch breakfast cook cooking recipe meal snack snacks menu dish cuisine order takeout bake drink dessert cake sweet sugar party coffee tea fruit brunch picnic bbq grocery groceries"),
        ("吃", "餐", "菜", "饭", "食谱", "外卖", "馆子", "料理", "点单", "下厨", "零食", "喝", "甜点", "蛋糕", "咖啡", "早餐", "晚餐", "午餐", "水果", "下午茶", "奶茶", "点心", "小吃", "烧烤", "火锅", "聚餐", "煲汤", "营养")),
    Cue(("user.family",),
        _en("family wife husband kid kids child children son daughter mom mum dad mother father parent parents sister brother gift anniversary partner toddler baby boyfriend girlfriend "
            # who a request is for without naming them: "my youngest", a school start, a holiday, a couple's weekend
            "youngest oldest eldest teen teenager pregnant pregnancy kindergarten preschool daycare holidays christmas xmas thanksgiving couple valentine"),
        ("家人", "老婆", "老公", "孩子", "儿子", "女儿", "爸", "妈", "父母", "姐", "哥", "弟", "妹", "礼物", "家里", "娃", "纪念日", "对象",
         "孕妇", "怀孕", "宝宝", "幼儿园", "开学", "家长会", "春节", "过年", "团圆", "情侣", "约会", "七夕", "情人节")),
    Cue(("user.pet",), _en("pet pets dog dogs cat cats vet puppy pup pups doggo kitty kitten toy chew leash groom harness breed kennel sitter neuter neutered spay spayed litter "
                           "hamster rabbit bunny parrot cage tank"),
        ("宠物", "狗", "猫", "兽医", "遛", "猫粮", "狗粮", "小动物", "毛孩子", "铲屎", "绝育", "驱虫", "仓鼠", "兔子", "鹦鹉", "笼子", "小家伙")),
    # what is signed with the user's name: a bio, a self-introduction, a sign-off
    Cue(("user.name",), _en("name bio introduce introduction intro signature signoff"),
        ("名字", "叫我", "我叫什么", "我是谁", "自我介绍", "介绍下我自己", "介绍一下我自己", "介绍我自己", "落款", "署名", "签名")),
    Cue(("user.birthday", "user.age"), _en("birthday born age old"), ("生日", "几岁", "多大", "年龄")),
    Cue(("user.reply_style",), _en("answer reply respond format style language"), ("回答", "回复", "格式", "语言", "风格")),
    Cue(("user.tool", "user.device", "user.job.language"),
        _en("editor plugin plugins extension ide app apps software tool tools browser notes note-taking phone laptop storage setup workflow "
            "guitar strings amp pedal piano keyboard violin cello ukulele drums instrument photos photo backup battery charger screen camera "
            "wifi wi-fi router modem reader e-reader ereader kindle tablet ipad headphones earbuds airpods smartwatch console gadget gadgets device devices "
            "computer computers pc desktop mac macbook machine lint linting debug debugging"),
        ("编辑器", "插件", "软件", "工具", "浏览器", "笔记", "知识库", "手机", "电脑", "存储", "内存", "app", "琴弦", "吉他", "钢琴", "乐器", "琴",
         "数码", "电子产品", "充电", "拍照", "路由器", "耳机", "平板", "照片", "备份", "电池", "屏幕", "阅读器", "电纸书", "手表", "手环", "相机",
         "无人机", "游戏机", "音箱", "网速", "设备")),
    Cue(("user.health", "user.allergy", "user.diet"),
        _en("health healthy checkup checkups doctor medicine medication workout exercise gym run running training injury sport sports pain "
            "sick fever flu clinic hospital prescription symptoms dose dosage meds pill pills inhaler jog jogging hike hiking swim swimming marathon "
            # what to take along: the medicines and the allergies go too
            "pack packing luggage suitcase camping antidepressant antidepressants insulin epipen"),
        ("健康", "体检", "医生", "药", "锻炼", "运动", "健身", "跑步", "受伤", "疼", "诊所", "医院", "看病", "发烧", "感冒", "生病", "不舒服", "提神", "夜跑", "晨跑", "慢跑", "徒步", "爬山", "游泳", "剂量", "喷雾",
         "行李", "打包", "收拾东西", "露营", "出差")),
    Cue(("user.habit", "user.has", "user.vehicle"),
        _en("car rent drive driving commute bus bike transport parking road tire tires tyre tyres oil insurance mechanic mileage ev charging roadtrip "
            # how the user gets somewhere: "best way to get to the airport?" needs the ebike and the bus pass
            "airport station uber lyft taxi cab transit engine brakes repair"),
        ("车", "开车", "租车", "驾照", "通勤", "地铁", "公交", "停车", "自驾", "开长途", "长途", "加油", "充电桩", "保养", "怎么去", "轮胎", "车险", "保险",
         "机场", "火车站", "高铁站", "打车", "怎么过去", "修车")),
    Cue(("user.finance",), _en("bank banking card credit debit account pay payment autopay bill bills budget rent salary paycheck payroll tax taxes invoice transfer deposit money loan mortgage buy afford price cost cheap expensive spend purchase saving savings invest bonus"),
        ("银行", "卡", "工资", "报销", "付款", "支付", "转账", "账单", "房租", "预算", "税", "交费", "缴费", "电费", "水费", "贷款", "理财", "买", "多少钱", "贵", "便宜", "存钱", "花钱",
         "房贷", "车贷", "首付", "月供", "公积金", "存款", "收入", "开销")),
    # a job hunt starts from the degree ("job hunting tips? I graduate next year")
    Cue(("user.school",), _en("hunting graduate graduation grad internship"), ("求职", "找工作", "毕业", "校招", "实习")),
    Cue(("user.school",), _en("school study studying exam exams class classes course semester thesis university college homework"),
        ("学校", "学习", "考试", "课", "论文", "大学", "作业", "学期", "复习")),
    Cue(("user.likes", "user.favorite"),
        _en("recommend recommendation suggest suggestion ideas idea hobby hobbies weekend fun movie book music watch read listen play vacation holiday travel podcast audiobook recs treat lesson lessons practice playlist song songs "
            "show shows series anime game games concert concerts gig gigs festival band bands album"),
        ("推荐", "建议", "有什么好", "爱好", "周末", "好玩", "电影", "书", "音乐", "看点什么", "旅游", "假期", "度假", "放松", "听",
         # the Chinese of what the English names: a playlist, a podcast, a show, a game, an idea
         "歌", "播客", "有声书", "剧", "综艺", "动漫", "游戏", "点子", "主意", "练习", "演唱会", "音乐节")),
)

_PREFERENCE_ASK = re.compile(r"recommend|suggest|idea|what should i|any tips|推荐|建议|有什么好|该怎么|怎么选", re.I)


def cue_slots(query: str) -> set[str]:
    """Slot prefixes the question points at."""
    folded = normalize(query)
    terms = set(tokens(query))
    found: set[str] = set()
    for cue in CUES:
        if terms & cue.en or any(word in folded for word in cue.zh):
            found.update(cue.slots)
    return found


_PLANS_ASK = re.compile(
    r"\b(?:upcoming|coming up|plans?|schedule|agenda|deadlines?|this week|next week|this weekend|next few|my week|my weekend|calendar|going on|"
    r"tomorrow|prepare|get ready|to-?do|remind)\b|安排|计划|日程|行程|准备|这周|本周|下周|周末|明天|后天|最近有什么|要做什么|提醒|截止|deadline",
    re.I,
)
# When something is: "when is the wedding?", "what time is ava's thing", "how many weeks do i have
# left", "婚礼是几号来着" — about a plan of the user's only when it is theirs or names one
# ("秦朝是什么时候统一的" is not; see `asks_when`).
_WHEN_ASK = re.compile(
    r"\bwhen(?:'s|’s| is| are| was| do| does| did)\b|\bwhat time\b|\bhow (?:long|many (?:days|weeks|months))\b.{0,30}\b(?:until|till|left)\b"
    r"|什么时候|几号|哪天|几点",
    re.I,
)


def asks_about_plans(query: str) -> bool:
    """Whether a question is about what lies ahead (upcoming plans and deadlines)."""
    return _PLANS_ASK.search(query) is not None


def asks_when(query: str) -> bool:
    """Whether a question asks when something is: about the user's plans if they are in it
    ("how many weeks do i have left"), else only about a plan it names."""
    return _WHEN_ASK.search(query) is not None


def asks_for_preferences(query: str) -> bool:
    return _PREFERENCE_ASK.search(query) is not None


def _under(key: str | None, slots: set[str]) -> bool:
    return bool(key) and any(key == s or key.startswith(s + ".") for s in slots)  # type: ignore[union-attr]


def matches(memory: Memory, slots: set[str]) -> bool:
    """Whether a memory's slot, or one of its topics (an episode's), is one the question points at."""
    return _under(memory.slot, slots) or any(
        _under(topic, slots) or any(s.startswith(topic + ".") for s in slots) for topic in memory.topics
    )


def cue_topics(slots: set[str]) -> list[str]:
    """The topics (topics.py) that cue slots point at: `user.job.language` → `user.job`."""
    from assistant.memory.topics import TOPICS

    return sorted(t.slot for t in TOPICS if _under(t.slot, slots) or any(s.startswith(t.slot + ".") for s in slots))


# Who the user is: the memories a personal request may need whatever it asks (a bio needs the
# job, a dinner idea the diet, a weekend plan the city and the children). Reply-style wishes
# apply to every answer.
PROFILE_SLOTS = (
    "user.name", "user.age", "user.city", "user.address", "user.hometown", "user.job", "user.employer",
    "user.school", "user.family", "user.pet", "user.diet", "user.allergy", "user.health", "user.reply_style",
)
ALWAYS_SLOTS = ("user.reply_style",)


def who_the_user_is(slot: str | None, topic: str | None) -> bool:
    """Whether a memory with this slot or main topic is about who the user is (PROFILE_SLOTS)."""
    return _under(slot, _PROFILE) or _under(topic, _PROFILE)


_PROFILE = set(PROFILE_SLOTS)

# Quoted text is material to work on, not the user speaking ("把 'I'll be there' 翻成中文").
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|「[^」]*」|『[^』]*』")
# "How do I reverse a string?" asks how anyone does it; "how should I prepare?" asks about me.
_GENERIC_HOW = re.compile(
    r"(?i)\bhow (?:do|does|can|could|would|to) (?:i|you|we|one)\b|\bhow to\b"
    # "can you show me a Python function …", "tell me a joke": the "me" is the one asking
    r"|\b(?:show|give|tell|send|explain to|teach|find) me\b|\bcan i ask\b"
)
_ADVICE = re.compile(
    r"(?i)\b(?:recommend|suggest|ideas?|tips|advice|recs|should i|what should|any good|plan (?:a|my|our|the)|things to do|places to|"
    r"where (?:can|could|should) (?:i|we)|what (?:can|could) (?:i|we)|around here|near me|nearby|help me|"
    r"what do you know|do you remember|remind me|you know about)\b|你(?:还)?记得|你知道我"
    r"|推荐|建议|有什么好|有啥好|该怎么|该不该|怎么办|有啥办法|有什么办法|安排|怎么挑|怎么选|咋办|咋回事|怎么回事|合适|适合"
    # Chinese leaves the subject out: "想买张新的办公椅" is "I want to buy …"
    r"|^(?:想|要|打算|准备|最近|今天|明天|周末|晚上|下周|这周|上完|刚)"
)


# Chinese asks for advice on the asker's own day without a subject: what to bring, wear, eat,
# buy or give, what to watch out for, how best to do it ("出门要带啥衣服", "团建订餐还要注意啥",
# "熬完夜怎么补觉比较好", "明早能吃早饭不"); English likewise in a few shapes ("cheap eats near
# campus?", "any fun stuff to do this weekend?"), not "suggestion" (a question about what someone
# suggested to someone else is no request).
_EVERYDAY_ASK = re.compile(
    r"(?:带|穿|吃|喝|买|送|点|准备|注意|避开|安排|做|玩|换|选|挑|提神|下手|冲刺)(?:点|些|个|一下)?(?:什么|啥|哪些)"
    r"|(?:什么|啥)(?:东西|礼物|颜色|比较好|好|合适|点子|思路|办法)|(?:怎么|咋)(?:过|办|弄|搞|提神|冲刺|安排|准备|补|选|挑)"
    r"|比较好|好呢|要不要|能\S{0,4}不[?？]?$|值得吗|给点(?:思路|建议|意见|点子)|还差什么|还有什么|有什么要|有啥要|哪天|几点"
    r"|(?i:\b(?:best way to|stuff to do|spots|eats|for (?:this|next) week(?:end)?)\b)"
)
# ... but a question of knowledge is anyone's ("1公里等于多少英里", "'thank you' 用日语怎么说",
# "Python 怎么读取 csv 文件").
_KNOWLEDGE_ASK = re.compile(
    r"等于|怎么说|什么意思|区别|原理|是什么|怎么读|翻译|(?i:\b(?:python|javascript|java|git|sql|excel|css|html|linux|regex)\b)"
)


def is_personal(query: str) -> bool:
    """Whether a request is about the user's own situation (their plans, tastes, work, people),
    so that who they are matters to the answer — not a question anyone could ask ("17乘以23",
    "translate hello world", "how do I reverse a string in python?")."""
    text = _QUOTED.sub(" ", query)
    if _ADVICE.search(text):
        return True
    if FIRST_PERSON.search(_GENERIC_HOW.sub(" ", text)) is not None:
        return True
    return _EVERYDAY_ASK.search(text) is not None and _KNOWLEDGE_ASK.search(text) is None


_IDENTIFIER_ASK = re.compile(
    r"(?i)\b(?:order|tracking|ticket|booking|reservation|confirmation|reference|case|policy|account|membership|invoice)"
    r"\s*(?:number|no\.?|#|id|code)?\b|\b(?:number|code|id)\b"
    r"|单号|编号|号码|订单|工单|物流号|运单|快递号|取件码|票号|会员号|保单|流水号|预订号|确认号"
)


def asks_for_identifier(query: str) -> bool:
    """Whether a question asks for a number or code the user gave ("那个净化器的单号发我一下")."""
    return _IDENTIFIER_ASK.search(query) is not None


