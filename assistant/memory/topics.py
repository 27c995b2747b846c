"""Topics: which part of the user's life a clause is about, with no value extracted.

A topic is a slot family ("user.city" for where the user lives, "user.job" for work …). The
write path tags every episodic memory with one, so

- the read path's topic cues find episodes as they find slotted facts ("周末去哪玩" → where
  the user lives), and
- an update takes even when no rule understood the value: "搬到苏州快一个月了" supersedes
  "我住在杭州" because both are about where the user lives and they name different places.

A clause is classified by cue words (Chinese and English) and, when no cue decides, by its
embedding's similarity to labelled prototype sentences in both languages. Only statements
about the user count for the user's own topics: "my wife works at a bank" is about family.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assistant.memory.embedder import Embedder
from assistant.memory.extract.common import WORLD_CITIES, ZH_CITIES
from assistant.memory.people import about_someone_else, people_in
from assistant.memory.prototypes import TOPIC_PROTOTYPES
from assistant.memory.similarity import floors, prototype_vectors, script, skill
from assistant.memory.text import EN_STOP, tokens
from assistant.memory.topic_model import likely_topic


@dataclass(frozen=True)
class Topic:
    """A slot family.

    Args:
        slot: the slot prefix it covers (also what the read path's cues name).
        single: one value at a time (a new different value supersedes the old one).
        cue: words that put a clause in this topic.
        changes_only: supersede only on a change word ("no longer", "now", "不再"), not on
            any different value (someone who avoids pork and is vegetarian says both).
        names: proper names that put a clause in this topic (car makes): unlike cue words,
            they count capitalised.
    """

    slot: str
    single: bool
    cue: re.Pattern[str]
    changes_only: bool = False
    names: re.Pattern[str] | None = None

    @property
    def prototypes(self) -> tuple[str, ...]:
        return TOPIC_PROTOTYPES.get(self.slot, ())


def _rx(en: str, zh: str) -> re.Pattern[str]:
    # ASCII word boundaries: in "换了Pixel 9 Pro" or "我quit了" the Chinese character before the
    # English word is no letter of it (Python's default \b counts it as one)
    return re.compile(rf"(?ia:\b(?:{en})\b)|{zh}")


# The known Chinese cities, as one alternation for the patterns below.
_ZH_CITY = "|".join(ZH_CITIES)
# "从小在 HK 长大": where the user comes from (a city cue, and `HOMETOWN`)
_GREW_UP_ZH = r"在\s?[\u4e00-\u9fffA-Za-z]{1,8}\s?长大"

TOPICS: tuple[Topic, ...] = (
    Topic("user.city", True, _rx(
        r"live|lives|living|lived|reside|based in|moved(?! (?:everything|all|it|them|things|my (?:stuff|data|files|photos|contacts|apps))\b)|move to|moving to|relocated|relocating|settled in|our place|my place|new place|"
        r"first night in (?:the|our|my) (?:new )?(?:\w+ )?(?:house|flat|apartment|place|condo)|our new (?:balcony|kitchen|flat|place|house|apartment|neighbou?rhood) in|"
        r"(?:truck|movers|moving van) (?:got unloaded|left|came)|"
        r"commute|commuting|(?:my|our) (?:\w+ ){0,3}(?:apartment|flat|house|condo|studio|place)|new apartment|new flat|the keys|new house|(?:bought|rented|found|got) (?:a|an|our|my|our first|my first) (?:house|flat|apartment|condo|home|place|studio)|signed (?:the|a|our) lease|closed on (?:the|our) (?:house|flat|condo|place)|neighbou?rhood|my hometown|home town|grew up in|i'm from|i am from|originally from|stuck in|back home in",
        r"住在|住|搬到|搬去|搬家|搬来|搬回|定居|落户|安家|租房|租的房|租好(?:了)?房|租了(?:个|套|间)?房|买了(?:个|套)?房|房租|"
        # "我已经回深圳了": back in a city for good
        rf"(?:已经|现在|终于)回(?:{_ZH_CITY})(?:了|啦|定居|发展|工作)|"
        # "终于在厦门落脚了", "Toronto这边的冬天是真的冷": where the user is now (not on a trip there)
        rf"落脚|安顿下来|(?:(?:{_ZH_CITY})|(?-i:[A-Z][a-z]{{2,}}))这边(?!.{{0,12}}(?:玩|旅游|旅行|出差|度假|开会|酒店|民宿|景点))|"
        rf"老家|家乡|{_GREW_UP_ZH}|"
        r"通勤|拿到钥匙|交房|新家|(?:那边|这边)的(?:一个|一套|一间)?(?:小|新)?(?:公寓|房子|两居|一居|单间)|在.{1,6}生活|在.{1,6}待着|待在|呆在|我是.{2,4}人|小区|"
        # "我在成都": a known city as all the clause says ("我在成都出差" is a trip)
        rf"^(?:我|我们|我家)?(?:现在|目前|一直|也|还|已经)?(?:人)?在(?:{_ZH_CITY})(?:市|这边|那边)?(?:了|啦|呢|啊|呀|哦)*$"
        # "累死 现在在合肥了": where the user is now, after a word of something else
        rf"|(?:现在|目前|如今)(?:人)?在(?:{_ZH_CITY})(?:市)?(?:了|啦)"
        # "到大阪快两周了", "来上海三年了": how long the user has been in a city (not in English:
        # "been in Boston for two years" is as often a past stay, and LoCoMo's held-out turn
        # recall@10 fell 0.7315 → 0.7305 with it and "London has been grey all week")
        rf"|(?:来|到)(?:了)?(?:{_ZH_CITY})(?:已经|都)?(?:快|差不多|有|整整)?[一二两三四五六七八九十半几\d]+(?:个)?(?:多)?(?:天|周|星期|礼拜|月|年)(?:多)?了"
        # "武汉今天又下雨了": a known city, then a remark about its day, says where the user is
        rf"|^(?:{_ZH_CITY})(?:市)?(?:今天|这边|这两天|这几天|最近|天天)"
        # code-switched: "还好我 still in 深圳"
        rf"|(?i:\b(?:still|now|currently|back|living|based) in)\s*(?:{_ZH_CITY})"
        # "i'm in leeds, rained all week": a known city as where the user is (not "im in new york
        # this week for work": a trip)
        rf"|(?i:\b(?![^.!?]*\b(?:this week|this weekend|today|tonight|for work|for a (?:few|couple)|on a trip|trip|visiting|conference|until|till)\b)(?:i'm|im|i am|we're|we are)\s+(?:still\s+|now\s+|currently\s+|back\s+)?(?:in|based in)\s+(?:{'|'.join(sorted(map(re.escape, WORLD_CITIES), key=len, reverse=True))})\b)")),
    Topic("user.job", True, _rx(
        r"work|works|working|worked|job|jobs|career|employer|company|hired|joined|quit|resigned|laid off|fired|promoted|"
        r"intern|internship|boss|office|shift|shifts|colleague|coworkers?|teach|teaches|teaching|nurse|engineer|developer|dev|devs|"
        r"tech lead|team lead|promotion|first (?:week|day|month) at|(?:my|was my|is my) last day|start(?:ing|s|ed)?\s+(?:at|with)\s+(?-i:[A-Z])\w*|(?:i|i'm|im) (?:do|doing) (?:[\w/-]+ ){1,2}(?:at|for)\s+(?-i:[A-Z])\w*|new (?:job|role|gig|position)|offboard(?:ed|ing)?|onboarding|join(?:ing)?\s+(?-i:[A-Z])\w*|(?:got|accepted|signed) (?:the|an|my) offer|offer from|job offer|(?:day|week) (?:\d{1,2}|one|two|three|four|five) at|switched to (?:days|nights|day shifts?|night shifts?)|day shifts?|night shifts?|(?:junior|senior|lead|staff|principal) (?:dev|developer|engineer|designer|analyst|consultant|nurse|manager)|"
        r"doctor|teacher|lawyer|accountant|designer|manager|freelance|freelancer|self-employed|retired|startup|firm|agency|"
        r"badge|first shift|back at my desk|turned in my laptop",
        r"工作|上班|公司|工牌|报到|遣散|复工|单位|入职|辞职|离职|裸辞|辞掉|跳槽|转行|转岗|裁员|被裁|实习|老板|同事|加班|职业|岗位|工程师|程序员|老师|(?<![看找见])(?:心理)?医生(?!说|让|建议|开|给|帮|叫|要|换|查)|护士|律师|会计|设计师|经理|"
        r"^(?:我)?(?:现在|目前)?(?:在)?做\s?[A-Za-z][A-Za-z &/-]{2,30}$|升职|升(?=\s?[A-Za-z\u4e00-\u9fff ]{0,8}(?:lead|经理|主管|总监|组长|manager))|主管|总监|组长|带(?:团队|.{1,3}个人)|创业|自由职业|退休|在.{1,10}(?:做|当)|(?<![回过])去[^\s，,。]{1,10}(?:做|当)(?!饭|菜|作业|手术|检查|体检|客|东西|头发|指甲|美甲|按摩|义工|志愿)|在[\u4e00-\u9fff]{2,8}教(?!我|你|他|她)|在\s?[A-Za-z][\w&.'\- ]{1,30}?\s?(?:做|当)|教书|开店|上岗|带班|夜班|值班|(?i:join(?:ing|ed)?)\s?(?![我你他她])[\u4e00-\u9fff]{2,6}|在[^\s，,。！!]{1,10}的第一(?:天|周)|(?:转|调|跳槽)(?:去|到)[^\s，,。！!]{2,12}(?:的第一(?:天|周|个?星期|个?礼拜|个月)|上班|报到)|我\s?(?i:last day)|(?<![请指])教(?:了|过)?(?:书|课|物理|数学|英语|语文|化学|生物|历史|地理|音乐|美术|体育|钢琴|小学|中学|高中|初中|大学)")),
    Topic("user.diet", True, _rx(
        r"vegetarian|vegan|pescatarian|halal|kosher|keto|(?:intermittent )?fasting|16:8|gluten[- ]free|plant[- ]based|eat(?:ing)? (?:meat|pork|beef|fish|chicken|dairy|eggs)|diet|carnivore|meat lover|"
        r"don't eat|do not eat|can't eat|cannot eat|can't stand|calories|carbs",
        r"吃素|素食|纯素|清真|不吃肉|不吃猪肉|不吃牛肉|吃肉|肉食|无肉不欢|忌口|控糖|低碳|戒糖|碳水|轻断食|断食|生酮|减脂|饮食|(?:不|没法|不能)吃(?!饭)|吃不了|口味|不吃主食|少油|少盐|大卡"),
        changes_only=True),
    Topic("user.allergy", False, _rx(
        r"allergic|allergy|allergies|intolerant|intolerance|celiac|coeliac|anaphyla\w*|epipen",
        r"过敏|不耐受|不耐")),
    Topic("user.health", False, _rx(
        r"diabet\w*|asthma|adhd|anxiety|depression|migraines?|pregnan\w*|surgery|injur\w*|blood pressure|cholesterol|medication|meds|"
        r"prescribed|diagnosed|chronic|therapy|physio|insulin|inhaler|knee|back pain|arthritis|eczema|insomnia|tore my|broke my|sprained|"
        r"doctor said|doc(?=\s+(?:switched|put|prescribed|changed|upped|lowered|bumped|increased|raised|reduced))|dose|dosage|\d+\s?mg|side effects?|nause\w*|gym|work(?:ing)? ?outs?|run|running|marathon|yoga|swim|swimming|cycling|hospital|hospitalized|in hospital|weigh|weight|kg|lbs|diagnosis|parkinson'?s|cancer|therapist|psychiatrist|gout|covid|flu|fever|sore throat|stomach bug|food poisoning|an(?:a)?emi[ac]|thyroid|epilep\w*|heart condition|pcos|ibs|kidney stones?|sober|sobriety|smoke[- ]free|smoking|smoker|cigarettes|vaping",
        r"糖尿病|哮喘|高血压|血压|胃炎|胃病|抑郁|焦虑|失眠|怀孕|孕|手术|受伤|骨折|扭伤|吃药|药|医生说|看医生|看心理医生|心理医生|看病|住院|出院|肺炎|发烧|感冒|咳嗽|拉肚子|新冠|流感|诊断|慢性|过敏性|腰|膝盖|颈椎|体重|减重|"
        r"健身|跑步|马拉松|瑜伽|游泳|骑行|锻炼|减肥|体检|痛风|贫血|甲亢|甲减|心脏病|癫痫|偏头痛|湿疹|鼻炎|痔疮|多囊|胆结石|肾结石|戒烟|戒酒|抽烟|吸烟|烟瘾")),
    Topic("user.pet", False, _rx(
        r"dog|dogs|puppy|cat|cats|kitten|pet|pets|rabbit|bunny|hamster|parrot|fish tank|goldfish|turtle|tortoise|guinea pig|"
        r"retriever|labrador|terrier|poodle|corgi|husky|beagle|shiba|dachshund|pug|collie|spaniel|tabby|vet|walkies|"
        r"scratching post|litter box|litter tray|kibble|leash|chew toy|fur baby|the fish (?:get|need|are) fed|feed the fish|"
        r"chewed (?:up|through)|barking|barked|meowing|purring|peed on|neutered|spayed|groomer|greyhound|budgie|cockatiel|gecko|ferret",
        r"(?<!单身)狗|猫|宠物|兔子|仓鼠|鹦鹉|乌龟|金鱼|柯基|柴犬|金毛|泰迪|哈士奇|布偶|英短|橘猫|狗子|主子|铲屎|遛狗|猫粮|狗粮|兽医|猫砂|猫抓板|狗绳|牵引绳"
        r"|拉布拉多|边牧|田园犬|美短|狸花|玄凤|虎皮鹦鹉|豚鼠|守宫|八哥")),
    Topic("user.family", False, _rx(
        r"wife|husband|partner|spouse|son|daughter|kids?|children|child|baby|toddler|mom|mum|mother|dad|father|parents|sister|brother|"
        r"siblings?|grandma|grandpa|grandmother|grandfather|aunt|uncle|cousin|niece|nephew|in-laws?|fianc[ée]e?|boyfriend|girlfriend|bf|gf|hubby|married|divorced|wedding|broke up|break up|breakup|split up|dumped|engaged|my ex|single|dating|together",
        r"老婆|老公|妻子|丈夫|媳妇|爱人|对象|男朋友|女朋友|男友|女友|男票|女票|前任|(?<=我)(?i:bf|gf)|儿子|女儿|闺女|孩子|娃|宝宝|爸|妈|父母|父亲|母亲|哥|姐|弟|妹|"
        r"爷爷|奶奶|外公|外婆|姥姥|姥爷|公公|婆婆|岳父|岳母|舅|姑|姨|叔|侄|外甥|结婚|离婚|分手|家里人")),
    # an instrument the user plays: a new one replaces the old only when told so ("FINALLY
    # upgraded — Fender Player Strat, sold the old one"), not when a second is mentioned
    Topic("user.device.instrument", True, _rx(
        r"guitar|guitars|bass guitar|ukulele|uke|violin|cello|viola|piano|keyboard|digital piano|drum kit|drums|saxophone|sax|trumpet|flute|clarinet|"
        r"strat|stratocaster|telecaster|les paul",
        r"吉他|贝斯|尤克里里|小提琴|大提琴|中提琴|钢琴|电钢琴|电子琴|架子鼓|萨克斯|小号|长笛|单簧管|古筝|二胡|琵琶|琴弦"),
        changes_only=True,
        names=re.compile(r"\b(?:Fender|Squier|Gibson|Epiphone|Ibanez|Yamaha|Taylor|Martin|Roland|Kawai|Steinway)\b|雅马哈|卡瓦依", re.ASCII)),
    Topic("user.vehicle", True, _rx(
        r"car|cars|drive a|driving a|my (?:\w+ )?(?:civic|corolla|tesla|prius|golf|model [3sxy])|motorbike|motorcycle|scooter|e-?bike|bike|truck|van|suv|sold the|leased|"
        r"tesla|toyota|subaru|hyundai|volkswagen|chevy|chevrolet|mazda|nissan|lexus|volvo|prius|corolla|camry|rav4|cr-v|model [3sxy]|minivan|hatchback|sedan",
        r"车|开的是|驾照|电动车|摩托|自行车|单车|比亚迪|特斯拉|蔚来|小鹏|吉利|五菱|大众|丰田|本田|宝马|奔驰|奥迪"),
        # makes: the name alone says "my car" ("my 2014 Subaru Outback is making a clicking noise")
        names=re.compile(
            r"\b(?:Toyota|Honda|Ford|Subaru|Mazda|Tesla|BMW|Audi|Volkswagen|VW|Hyundai|Kia|Nissan|Chevy|Chevrolet|Jeep|Volvo|Lexus|"
            # models people name alone ("卖掉 Civic 了，换了 Model 3")
            r"Civic|Corolla|Camry|Accord|Prius|Outback|Forester|RAV4|CR-V|F-150|Mustang|Wrangler|Model [3SXY]|"
            r"Mercedes|Porsche|Peugeot|Renault|Skoda|Fiat|Dodge|BYD)\b", re.ASCII
        )),
    Topic("user.device.phone", True, _rx(
        r"phone|iphone|android|pixel|galaxy|oneplus|samsung|xiaomi|huawei|redmi|oppo|vivo|honor|galaxy s\d{1,2}(?: ultra| plus|\+)?|s2\d(?: ultra| plus|\+)?|pixel \d{1,2}(?: pro| a)?|iphone ?\d{1,2}(?: pro(?: max)?| plus| mini)?",
        r"手机|苹果\d|华为Mate|华为P|小米\d|安卓|三星|华为|小米|荣耀|一加"),
        names=re.compile(r"\b(?:iPhone|Pixel|Galaxy S\d*|OnePlus|Xiaomi|Huawei|Redmi)\b|iPhone", re.ASCII)),
    Topic("user.device.computer", True, _rx(
        r"laptop|macbook|thinkpad|pc|desktop|computer|chromebook|surface|linux|ubuntu|fedora|windows 1\d|framework (?:laptop|1[36])",
        r"电脑|笔记本|台式机"),
        names=re.compile(r"\b(?:MacBook(?: Air| Pro)?|ThinkPad|Chromebook|Surface (?:Pro|Laptop)|XPS|iMac|Mac mini)\b|MacBook|ThinkPad", re.ASCII)),
    # the other things the user owns and uses, one of each kind at a time ("新买了个文石Leaf3" after
    # "我的kindle paperwhite屏幕摔裂了"): a new one replaces the old only when told so. Cue words
    # alone tell these (no prototype sentences: a few words name them all).
    Topic("user.device.reader", True, _rx(r"e-?readers?|kindle|kobo|boox|remarkable", r"阅读器|电纸书|墨水屏|文石|掌阅"),
          changes_only=True, names=re.compile(r"\b(?:Kindle|Kobo|Boox|reMarkable)\b", re.ASCII)),
    Topic("user.device.router", True, _rx(r"router|modem|mesh wi-?fi", r"路由器|光猫"),
          changes_only=True, names=re.compile(r"\b(?:TP-Link|Netgear|Eero|Orbi)\b", re.ASCII)),
    Topic("user.device.audio", True, _rx(r"headphones|earbuds|airpods", r"耳机"),
          changes_only=True, names=re.compile(r"\bAirPods\b", re.ASCII)),
    Topic("user.device.watch", True, _rx(r"smart ?watch|apple watch|garmin|fitbit", r"智能手表|手表|手环"),
          changes_only=True, names=re.compile(r"\b(?:Garmin|Fitbit)\b", re.ASCII)),
    Topic("user.device.camera", True, _rx(r"camera|dslr|mirrorless|gopro|drone", r"相机|单反|微单|无人机|大疆"),
          changes_only=True, names=re.compile(r"\b(?:GoPro|DJI)\b", re.ASCII)),
    Topic("user.device.tablet", True, _rx(r"tablet|ipad", r"平板"), changes_only=True, names=re.compile(r"\biPad\b", re.ASCII)),
    Topic("user.device.console", True, _rx(r"game console|ps5|playstation|xbox|nintendo switch|steam deck", r"游戏机"),
          changes_only=True, names=re.compile(r"\b(?:PlayStation|Xbox|Steam Deck)\b", re.ASCII)),
    Topic("user.device.gadget", False, _rx(r"yubikey|security key|smart speaker|echo dot|homepod|sonos", r"智能音箱|音箱"),
          names=re.compile(r"\b(?:YubiKey|Sonos)\b", re.ASCII)),
    Topic("user.school", True, _rx(
        r"school|university|college|uni|degree|major|majoring|phd|master'?s|masters|master|bachelor'?s|mba|student|semester|thesis|grad school|class of|"
        r"graduation|diploma|dissertation|halls|a levels",
        r"录取|答辩|毕业证|读研|读博|学校|大学|中学|小学|高中|初中|大一|大二|大三|大四|研一|研二|研三|研究生|博士|硕士|本科|专业|读书|上学|毕业|考研|高考|学生")),
    Topic("user.finance", False, _rx(
        r"bank|banking|checking|savings|account|acct|credit card|debit card|paycheck|salary|payroll|rent|mortgage|"
        r"loan|budget|invoice|taxes|tax return|venmo|paypal|zelle|revolut|monzo|apple pay|autopay|direct deposit|earn|earns|income|"
        r"make (?:about |around )?\$?\d[\d,.]*k?|\d[\d,.]*k (?:a|per) year|a year|per month|/mo",
        r"银行|建行|工行|农行|中行|招行|交行|信用卡|储蓄卡|工资卡|工资|薪水|房租|房贷|车贷|贷款|预算|报销|账单|支付宝|微信支付|花呗|转账|存款|理财|基金|股票|交税|个税"),
        names=re.compile(r"\b(?:Chase|Barclays|HSBC|Citi(?:bank)?|Wells Fargo|Bank of America|Santander|Lloyds|Natwest|Deutsche Bank|ING|Revolut|Monzo|Visa|Mastercard|Amex)\b", re.ASCII)),
    Topic("user.likes", False, _rx(
        r"love|loves|like|likes|enjoy|enjoys|into|fan of|favou?rite|hobby|hobbies|play|plays|playing|learning|collect|collecting|"
        r"hate|hates|can't stand|prefer|prefers|obsessed|listen to|watch|read|reading|hiking|climbing|baking|cooking|painting|guitar|piano|"
        r"cello|violin|viola|drums|ukulele|saxophone|sax|flute|clarinet|trumpet|photography|gaming|sweet tooth|snacks?",
        r"喜欢|爱吃|爱喝|爱看|爱玩|爱烤|爱做|最爱|超爱|甜食|甜品|零食|讨厌|受不了|偏好|更喜欢|爱好|迷上|在学|学了|练|弹|收藏|追剧|看书|爬山|徒步|摄影|画画|烘焙|做饭|打游戏|钢琴|吉他|"
        r"小提琴|大提琴|尤克里里|萨克斯|长笛|古筝|二胡|架子鼓")),
    Topic("user.reply_style", False, _rx(
        r"answer|answers|reply|replies|respond|response|responses|bullet points|emoji|emojis|in english|in chinese|in spanish|be brief|short answers|keep it short|metric|imperial|celsius|fahrenheit",
        r"回答|回复|回我|简短|简洁|啰嗦|表情|用中文|用英文|说中文|说英文|分点|公制|摄氏")),
    Topic("user.plan", False, _rx(
        r"going to|gonna|planning|plan to|plans|trip|trips|flight|flights|flying|booked|travel|travelling|traveling|vacation|holiday|visit|visiting|exam|interview|"
        r"appointment|deadline|wedding|conference|due|next (?:week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|this (?:weekend|saturday|sunday)|tomorrow",
        r"打算|准备|计划|要去|去.{1,8}(?:玩|旅游|旅行|出差)|出差|旅游|旅行|航班|机票|考试|要考|考(?:科目|驾照|研|证|公务员)|面试|预约|截止|婚礼|下周|下个月|明年|明天|后天|周末要|月底|月初|号要|号去")),
)
BY_SLOT = {t.slot: t for t in TOPICS}

def cue_topics(clause: str) -> list[Topic]:
    """Topics whose cue words occur in the clause, in the order of `TOPICS`. A capitalised
    English word inside the clause is part of a name, not a cue ("Mercy Hollow Children's",
    "the Bristol Half Marathon" name no children and no run of the user's)."""
    # "I GOT THE OFFER FROM KESSELWERK": in a shouted clause capitals name nothing
    shouted = _shouted(clause)
    return [
        t for t in TOPICS
        if any(shouted or _is_cue(clause, m) for m in t.cue.finditer(clause)) or (t.names is not None and t.names.search(clause))
    ]


def device_named(text: str) -> str | None:
    """The topic of the one device or vehicle `text` names by cue words ("我弹古筝十几年了" an
    instrument, "my Brompton" a vehicle), or None when it names none or several."""
    named = {t.slot for t in cue_topics(text) if t.slot.startswith("user.device.") or t.slot == "user.vehicle"}
    return named.pop() if len(named) == 1 else None


def _shouted(text: str) -> bool:
    letters = [ch for ch in text if ch.isascii() and ch.isalpha()]
    return len(letters) >= 8 and sum(ch.isupper() for ch in letters) >= 0.8 * len(letters)


def _is_cue(text: str, match: re.Match[str]) -> bool:
    first = text[match.start()] if match.end() > match.start() else ""
    return not (first.isascii() and first.isupper() and match.start() > 0 and text[match.start() - 1] == " ")


# Words that start a clause describing a change of something said before.
# "不搞 fasting 了": a stop told of a thing named in another script
_STOPPED_MIXED = r"不(?:搞|做|弄|练|玩|学|用|吃|喝)\s?[A-Za-z][\w:\- ]{1,25}?\s?了$"
CHANGE = re.compile(
    r"(?i)\b(?:moved|moving|relocated|the move to|move to|now|anymore|any more|no longer|not \w+ anymore|quit|left|resigned|switched|changed|sold|"
    r"new|just started|started|starting|start at|joining|joined|join(?=\s+(?-i:[A-Z]))|stopped|gave up|broke up|divorced|got married|these days|nowadays|since|upgraded|replaced|traded in|"
    r"signed (?:the|a|our) lease|got (?:the|our) keys|picked up (?:the|our) keys|closed on|(?:day|week) (?:\d{1,2}|one|two|three|four|five) at|"
    r"first (?:day|week|month|shift|night) (?:as|at)(?= (?:an? |the )?\w))\b"
    r"|(?i:give up)\s*了|(?i:join)\s?[\u4e00-\u9fff]|报到|复工|录取通知书|(?i:first shift|back at my desk|got into|uni starts|college starts)|不再|现在|如今|已经|换了|换成|改成|改为|改吃|改喝|改用|改骑|改开|搬到|搬去|搬来|搬家|辞职|离职|裸辞|辞掉|跳槽|转行|卖了|卖掉|分手|离婚|戒了|不.{0,4}了|" + _STOPPED_MIXED + r"|开始|新|拿到钥匙|交房|入职|第.天|第一(?:周|个?星期|个?礼拜|个月)|(?:转|调)(?:去|到)(?=[^\s，,。！!]{2,12}(?:的第一|上班|报到))",
    re.ASCII,
)
# A change that ends the old value whatever the new one is ("I quit Acme", "不再吃素").
ENDED = re.compile(
    r"(?i)\b(?:no longer|anymore|any more|quit|left|resigned|sold|moved out|moved away|broke up|divorced|stopped|gave up|retired|laid off|got fired|was fired|"
    r"is off|are off|'s off|’s off|called off|cancell?ed|fell through|not happening|over now|is over|are over|'s over|’s over|done with|unsubscribed|"
    r"(?:been |i'm |im |now )single|(?:the |our |my )divorce (?:went through|is final|was finali[sz]ed|came through)|(?:since|after) the divorce|passed away|died|put (?:him|her) down|said goodbye to|came off|healed|recovered|cleared me|all[- ]clear|graduated)\b"
    r"|gave (?:my |in my |two weeks'? )?notice|handed in my notice|put in my notice|(?:\bmy\s+|是我\s?)last day\b|^last day(?!\s+(?:of|in|at|on|for|before|to)\b)"
    # work that ended without a word of leaving: "turned in my laptop and badge", "交完工牌那天", "机构倒闭了"
    r"|\bturned in my (?:laptop|badge|keys)\b|\b(?:company|startup|firm|studio|agency|shop|store|business|restaurant|gym|school|clinic) (?:folded|shut down|closed down|went under|went bust)\b"
    r"|交(?:了|完)?工牌|工牌(?:也)?交了|倒闭|遣散|被优化"
    # studies that ended: "答辩完了 毕业证拿到手", "graduation photos are in"
    r"|毕业证|答辩完|\bgraduation (?:photos|ceremony|day|pics)\b|\bgot my (?:diploma|degree)\b"
    r"|(?i:give up)\s*了|(?i:cancel(?:l?ed)?)\s*(?:了|掉)|不再|辞职|离职|辞了|裸辞|辞掉|卖了|卖掉|分手|离婚|搬走|搬离|戒了|不干了|被裁|退休|取消了|黄了|泡汤|不去了|只能下次了|下次再约|改天再约|去不成了|吃不成了|退订|取消订阅|单身了|恢复单身|放弃了|不学了|不练了|不弹了|不玩了|去世|过世|离世|(?:跟|和)[\u4e00-\u9fff]{1,3}?分了(?=$|[\s，,。！!~～…]|吧|啊|呀)|不.{1,4}了$|" + _STOPPED_MIXED + r"|痊愈|康复了|拆(?:了)?石膏|毕业了|毕业啦|毕业咯"
    # "豆豆走了": a name and 走了, all the clause says, is a death
    r"|^(?![我你他她它咱大])[\u4e00-\u9fff]{2,3}?(?:昨天|昨晚|今天|今早|前天|上周)?(?:走了|没了)$|去汪星|去喵星|彩虹桥",
    re.ASCII,
)
# A change of heart: "打脸了", "我宣布之前的我错了", "who even am i", "i caved and bought an iphone",
# "不折腾了", "i'm so done restricting"
REVERSED = re.compile(
    r"(?i)\b(?:caved|who (?:even )?am i|changed my mind|(?:so |i'm |im )?done restricting|turns out i (?:love|like)|"
    r"not so bad after all|i was wrong|converted me|i'm a convert|won me over)\b"
    r"|打脸|真香|沦陷|我宣布|之前的我错了|以前的我错了|路转粉|不折腾了|不想回去了?|不那么严格了|放开吃|不忌口了"
)
# Going without a habit for a while: "day 21 with zero monster", "整整一个月没碰珍珠了",
# "haven't chewed them in like 6 weeks", "3 months nicotine free", "卸载了 一个月了".
# (a week or more: "三天没吃饭了" is a bad week, not a habit dropped)
_SPAN_ZH = (
    r"(?:(?:\d{2,}|[一二两三四五六七八九]?十[一二三四五六七八九]?|几十|百)天|[\d一二两三四五六七八九十半几]+个?(?:周|星期|月|年)"
    r"|整整[^，。,！!]{0,3}(?:天|周|星期|个月|月|年))"
)
ABSTAINED = re.compile(
    rf"{_SPAN_ZH}(?:了)?[^，。,！!]{{0,6}}(?:没碰|没喝|没吃|没抽|没刷|没玩|没打|一根没|一口没|一滴没|滴酒未沾)"
    rf"|(?:没碰|没喝|没抽|没刷|没玩)(?:过)?[^，。,！!]{{0,3}}(?:已经)?{_SPAN_ZH}|卸载了?.{{0,4}}{_SPAN_ZH}"
    r"|(?i:\bday \d+ (?:with(?:out| zero| no)|of no|sober|clean|free)\b"
    r"|\b(?:\d+|a|one|two|three|four|five|six)\s+(?:days?|weeks?|months?)\s+(?:with(?:out| zero| no)|of no)\b"
    r"|\b\d+\s*(?:days?|weeks?|months?|years?)\s+(?:\w+[- ])?(?:free|clean|sober)\b"
    r"|\b(?:zero|no)\s+\w+\s+(?:for|in)\s+(?:like\s+|over\s+)?(?:\d+|a|two|three|four|five|six)\s+(?:days?|weeks?|months?)\b"
    r"|\bhaven'?t\s+(?:had|touched|chewed|smoked|drunk|bitten|vaped|played|opened|gamed)\b.{0,30}?\b(?:in|for)\s+(?:like\s+|over\s+)?(?:\d+|a|two|three|four|five|six)\s+(?:days?|weeks?|months?)\b)"
)
# Better again: what kept the user from things is over ("physio cleared me", "医生说恢复得挺好").
RECOVERED = re.compile(
    r"(?i)\b(?:cleared me|all[- ]clear|healed|recovered|back to normal|fully fit|good as new|outgrown|outgrew|"
    r"(?:tests?|results?|levels?|sugars?|scan|bloods?|bloodwork) (?:came back |are |is |were |was )?(?:back )?(?:normal|negative|clear|fine))\b"
    r"|痊愈|康复|恢复得.{0,2}(?:好|不错)|(?:可以|能)正常.{0,3}了|复查.{0,3}(?:没问题|不错|正常|挺好)|好利索了"
    # "皮试 结果阴性", "复查血糖正常", "结果显示没问题", "基本好了"
    r"|阴性|(?:指标|血糖|血压|结果|检查|报告)(?:都|也)?(?:正常|没问题|显示没问题)|基本(?:好了|恢复)"
    # the operation that fixed it, the pain gone, the food eaten without a reaction, the allergy that never was:
    # "手术很顺利", "腰一点都不疼了", "吃了一整个鸡蛋都没反应", "sleep study came back normal", "not allergic after all"
    r"|手术(?:很|挺|非常|特别)?(?:顺利|成功)|(?:一点|完全|都|再也|已经)(?:都)?不疼了|(?:医生|大夫)说(?:我)?(?:已经|都)?好了"
    r"|(?:吃|喝|用|碰|试)了?[^，。,]{0,8}(?:都|也)?没(?:有)?(?:任何)?(?:过敏)?反应|其实(?:对[^，。,]{1,12})?(?:没问题|不过敏)|不过敏了"
    r"|(?i:\b(?:sleep study|study|mri|x-?ray|biopsy|echo|ct scan) (?:came back |is |was )?(?:normal|negative|clear|fine)\b"
    r"|\bnot (?:actually |really )?allergic\b|\ballergic after all\b)",
    re.ASCII,
)
_FROM_VALUE = re.compile(r"(?i)\bfrom\s+(?:[A-Z][\w'\-]*\s*){1,3}|从[\u4e00-\u9fffA-Za-z]{1,8}?(?=搬|到|去|调|跳|换|转|回)")


def new_values(text: str) -> set[str]:
    """The values a clause asserts now: "from Boston to Denver" asserts Denver."""
    return value_words(_FROM_VALUE.sub(" ", text))
# A plan moved to another day: "they bumped me to the 19th", "改到下周三了".
RESCHEDULED = re.compile(
    r"(?i)\b(?:bumped|moved|rescheduled|postponed|pushed(?: back)?|brought forward|shifted|changed)\b[^.!?]{0,40}\b(?:to|until|till)\b"
    r"|(?i:\b(?:is|are|'s)\s+now\b[^.!?]{0,40}\binstead\b|\b(?:push(?:ed)?(?:\s*back)?|reschedul(?:e|ed)|postponed?|moved?|delay(?:ed)?|bump(?:ed)?)\s*(?:了\s*)?到)"
    r"|改(?:到|成|在)|推迟到|延期到|提前到|挪到|换到|延到"
)
# Ending a relationship without naming anyone: what named a partner ends.
_PARTNER = re.compile(
    r"(?i)\b(?:boyfriend|girlfriend|partner|bf|gf|fianc[ée]e?|husband|wife|hubby)\b|男朋友|女朋友|男友|女友|对象|男票|女票|老公|老婆|丈夫|妻子|爱人|未婚夫|未婚妻"
    # "me and Marcus have been together 3 years", "我和阿哲在一起四年了", "同居"
    r"|(?i:\b(?:been )?together (?:for )?(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten) (?:years?|months?)\b)|在一起.{0,4}(?:年|个月)|同居"
)
SINGLE = re.compile(
    r"(?i)\b(?:been|i'm|im|now|newly|back to being)\s+single\b|\bwe (?:just )?(?:broke up|split up|called it quits)\b"
    r"|单身了|恢复单身|现在单身|^(?:我们|我俩|我和他|我和她|我跟他|我跟她)(?:已经|还是|终于)?分(?:手)?了"
    # "分了 别问", "2 weeks since the breakup", "called off the engagement", "那个人的东西都打包寄回去了"
    r"|^分了|(?i:\b(?:since|after) the break-?up\b|\bcalled off the (?:engagement|wedding)\b|\bthe engagement is off\b)"
    r"|他的东西都|她的东西都|那个人的东西"
    # a marriage that ended: "since the divorce went through", "离婚手续办完了"
    r"|(?i:\b(?:the |our |my )?divorce (?:went through|is final|was finali[sz]ed|came through)\b|\b(?:since|after) the divorce\b)"
    r"|离婚手续(?:办完|办好|都办)|^(?:我们|我俩|我)?(?:已经|终于)?离(?:了)?婚了"
)
# A partner now: what the user said of being single ends ("跟小周领证了", "Priya moved in last week").
PARTNERED = re.compile(
    r"(?i)\b(?:got married|got engaged|(?:he|she|they) moved in|moved in (?:with me|together)|(?:my|our) (?:wedding|engagement) (?:was|went)|"
    r"we're (?:engaged|married|dating|together)|i'm (?:engaged|married|seeing someone|dating someone))\b|(?-i:[A-Z][a-z]+) moved in\b"
    r"|领证了|结婚了|订婚了|脱单了|在一起了|(?:他|她)搬(?:过来|进来)|搬过来(?:一起)?住"
)
_SINGLE_NOW = re.compile(r"(?i)\b(?:single|not dating|no partner|live alone|living alone)\b|单身|一个人住|没对象|母胎solo")


def says_single(text: str) -> bool:
    """Whether `text` says the user is single or lives alone ("single dad", "我单身 一个人住")."""
    return _SINGLE_NOW.search(text) is not None


def names_a_partner(text: str) -> bool:
    return _PARTNER.search(text) is not None


# Intentions and wishes state no current value ("thinking about moving to Denver").
TENTATIVE = re.compile(
    r"(?i)\b(?:thinking (?:about|of)|considering|might|maybe|perhaps|hoping to|hope to|want to|wanna|would like to|planning to|plan to|"
    r"going to|gonna|if|someday|one day|dream of|dreaming of|wish)\b"
    r"|想|打算|准备|考虑|可能|也许|如果|要是|希望|梦想|计划|将来|以后想"
)

# The letters of a Latin word: a Chinese character beside it is no part of it ("我在Vancouver",
# "Toronto这边的冬天", "华为P30" name Vancouver, Toronto and P30).
_LATIN = "A-Za-z0-9_À-ÖØ-öø-ÿĀ-ž"
_CAPITALISED = re.compile(
    rf"(?<![{_LATIN}'])(?:[A-Z]|[a-z]+[A-Z])[{_LATIN}'&.\-]*(?:\s+(?:[A-Z][{_LATIN}'&.\-]*|\d+[{_LATIN}]*))*"
    rf"|(?<![{_LATIN}])[A-Za-z]*\d[{_LATIN}\-]*"
)
_NOT_VALUES = frozenset(
    "i i'm i've i'll i'd my me we our us you he she they it the a an and but so oh ok okay hi hey yes no "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december today tomorrow yesterday mom dad mum".split()
)
_ZH_ORG = re.compile(r"[\u4e00-\u9fff]{2,8}?(?:公司|银行|医院|学校|大学|中学|小学|集团|研究所|研究院|科技|中心|事务所|工作室|餐厅|酒店)")
_PLACE_CHAR = r"(?:(?![我你他她在到去住搬从是的了和来回家里个这那上下前后新老小大市区县省镇])[\u4e00-\u9fff])"
_ZH_PLACE = re.compile(rf"(?:(?<=[在到去住从于回])|^){_PLACE_CHAR}{{2,4}}?(?:省|市|区|县|镇)")


_EN_IN_PLACE = re.compile(r"(?<![Ff]rom )(?<![Tt]o )\b(?:in|near|outside|based in|here in)\s+(?!the\b|a\b|my\b|[A-Z][a-z]+day\b)[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)?(?![\w'’])")


# "我在Shanghai做设计", "我在 Shenzhen 南山上班": a city in Latin letters after 在
_ZH_AT_LATIN = re.compile(r"在\s?([A-Za-z][A-Za-z]+(?:\s[A-Z][a-z]+)?)")
_EN_CITY_OFFICE = re.compile(r"\b([A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\s+(?:office|campus|branch|hq|headquarters|team|site|studio|store|hospital|clinic)\b")
_ZH_AWAY = re.compile(r"出差|旅游|旅行|度假|转机|玩几天|玩两天|待几天|路过|开会")


def located(clause: str) -> bool:
    """Whether a statement places the user somewhere ("在大连一所中学教物理", "I teach at a comp in
    Headingley"): a known Chinese city after 在, or a capitalised place after in/at."""
    from assistant.memory.extract.common import ZH_CITIES

    if re.search(r"[\u4e00-\u9fff]", clause):
        if _ZH_AWAY.search(clause):
            return False  # "在西安出差" places a trip, not the user
        # "Brisbane 这边好热": a place named in Latin letters, then "over here"
        return any(f"在{city}" in clause or re.search(rf"(?i)\bbased?\s?(?:在\s?)?{city}", clause) for city in ZH_CITIES) \
            or re.match(r"^(?:我)?(?:在\s?)?[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?\s?(?:这边|这里|这儿)", clause) is not None \
            or any(m.group(1).lower() in WORLD_CITIES for m in _ZH_AT_LATIN.finditer(clause))
    if re.search(r"(?i)\b(?:trip|visit|visiting|vacation|holiday|flight|flying|last (?:week|month|year))\b", clause):
        return False
    # "in Portland", or a known city's office, campus or team ("working out of their Dublin office")
    return _EN_IN_PLACE.search(clause) is not None or any(
        m.group(1).lower() in WORLD_CITIES for m in _EN_CITY_OFFICE.finditer(clause)
    )


def value_words(text: str) -> set[str]:
    """Words of a clause that name a specific value: proper names, places, organisations,
    models and numbers ("Porto", "苏州", "iPhone 15", "字节"). Empty when the clause names none."""
    from assistant.memory.extract.common import ZH_CITIES

    found: set[str] = set()
    for m in _CAPITALISED.finditer(text):
        words = [w for w in m.group(0).split() if w.lower() not in _NOT_VALUES]
        if words and not (m.start() == 0 and len(words) == 1 and words[0] == m.group(0) and not any(ch.isdigit() for ch in words[0])
                          and text[m.end():m.end() + 1] in ("'", "’")):
            found.update(w.lower().strip(".'’") for w in words)
    for city in ZH_CITIES:
        if city in text:
            found.add(city)
    found.update(m.group(0) for m in _ZH_ORG.finditer(text))
    found.update(m.group(0)[:-1] if m.group(0).endswith("市") else m.group(0) for m in _ZH_PLACE.finditer(text))
    return {w for w in found if w}


_GENERIC = frozenset(
    "user just now new really still also recently finally last week month year ago since moved move live living lived work working "
    "worked job started start place apartment flat house home city town".split()
)


def value_terms(text: str, topic: Topic | None = None) -> set[str]:
    """The words of `text` that could name a value (search tokens minus the topic's cue words)."""
    terms = set(tokens(text, query=True)) - EN_STOP - _GENERIC
    if topic is not None:
        terms = {t for t in terms if topic.cue.fullmatch(t) is None and not topic.cue.search(t)}
    return {t for t in terms if len(t) >= 2 or t.isdigit()}


class TopicClassifier:
    """Cue words first; when none decides, the nearest labelled prototypes of the clause's
    script, if they are near enough and clearly nearer than the next topic's.

    The embeddings are used only in a script the model tells topics apart in, measured once
    per model as the leave-one-out accuracy of the prototypes themselves (`similarity.skill`;
    chance is 1 in 14). The bundled English MiniLM scores about 0.6 on the English ones and
    under 0.25 on the Chinese ones, where its similarities say little; a Chinese-capable model
    such as BGE passes in both.

    Args:
        embedder: the profile's embedding model (prototype vectors are computed once per model).
        floor: the least calibrated similarity (similarity.py) to a topic's prototypes that counts.
        margin: how much nearer the best topic must be than the second.
        min_skill: the least leave-one-out accuracy for a script's embeddings to be used.
        cue_bonus: what a cue word adds to its topic's similarity.
        likely: the least probability the text classifier must give a topic (`learned`).
    """

    _cache: dict[str, dict[str, tuple[np.ndarray, list[Topic], float]]] = {}
    _lock = threading.Lock()

    def __init__(
        self, embedder: Embedder, floor: float = 0.25, margin: float = 0.08, min_skill: float = 0.4, cue_bonus: float = 0.15,
        likely: float = 0.6,
    ) -> None:
        self.embedder = embedder
        self.floor = floor
        self.margin = margin
        self.min_skill = min_skill
        self.cue_bonus = cue_bonus
        self.likely = likely

    def _prototypes(self) -> dict[str, tuple[np.ndarray, list[Topic], float]]:
        """Per script: the prototypes' vectors, their topics, and the model's skill on them."""
        name = self.embedder.vector_space
        with self._lock:
            if name not in self._cache:
                texts = [p for t in TOPICS for p in t.prototypes]
                labels = [t for t in TOPICS for _ in t.prototypes]
                vectors = prototype_vectors(self.embedder, texts)
                skills = skill(texts, [t.slot for t in labels], vectors)
                by_script: dict[str, tuple[np.ndarray, list[Topic], float]] = {}
                for lang in skills:
                    idx = [i for i, text in enumerate(texts) if script(text) == lang]
                    by_script[lang] = (vectors[idx], [labels[i] for i in idx], skills[lang])
                self._cache[name] = by_script
            return self._cache[name]

    def skill(self, lang: str) -> float:
        """The model's leave-one-out accuracy on the prototypes of `lang` ("zh" or "en")."""
        found = self._prototypes().get(lang)
        return found[2] if found else 0.0

    def classify(self, clause: str, vector: np.ndarray | None) -> Topic | None:
        """The clause's topic, or None.

        Args:
            clause: the clause text.
            vector: its embedding (None: cue words only).
        """
        if about_someone_else(clause):
            return _whose(clause)
        cued = cue_topics(clause)
        if len(cued) > 1 and BY_SLOT["user.city"] in cued and _MOVED_TO.search(clause):
            return BY_SLOT["user.city"]  # "relocated to Berlin for a new role": a move first
        lang = script(clause)
        found = self._prototypes().get(lang) if vector is not None else None
        if vector is None or found is None or found[2] < self.min_skill:
            return _longest_cue(clause, cued)  # the model cannot tell topics apart in this script
        vectors, labels, _ = found
        fl = floors(self.embedder)
        if cued and fl.words_trust(lang, lang) < fl.trust(lang, lang):
            # The model reads this script through a gloss (gloss.py): a cue word is the surer
            # evidence ("我下周一开始在新东方教雅思口语了" is a new job, which the gloss puts
            # nearer to plans); the vectors decide where no cue word does.
            return _longest_cue(clause, cued)
        best = _nearest(labels, [fl.rescale(float(sim), lang, lang) for sim in vectors @ vector])
        # A cue word counts as a head start, not a verdict: "a resident in pediatrics at Mercy
        # Hollow Children's" names children and is about work.
        score = {t.slot: best.get(t.slot, 0.0) + (self.cue_bonus if t in cued else 0.0) for t in TOPICS}
        ranked = sorted(TOPICS, key=lambda t: -score[t.slot])
        if cued:
            return ranked[0] if ranked[0] in cued or best.get(ranked[0].slot, 0.0) >= self.floor else cued[0]
        top = best.get(ranked[0].slot, 0.0)
        if top >= self.floor and top - best.get(ranked[1].slot, 0.0) >= self.margin:
            return ranked[0]
        return None

    def learned(self, clause: str) -> Topic | None:
        """The topic the text classifier (`topic_model.py`) finds likely enough, or None: for a
        statement worth keeping that `classify` placed nowhere ("换到区图书馆的第一个礼拜").
        Not for telling a statement from small talk: it knows no "none of these", so "lol ok"
        is likely enough about something."""
        slot, likelihood = likely_topic(clause)
        return BY_SLOT[slot] if slot is not None and likelihood >= self.likely else None


_MOVED_TO = re.compile(r"(?i)\b(?:moved|relocated|relocating|moving)\s+(?:back\s+)?to\s+(?-i:[A-Z])|搬到|搬去|搬回")
# Where the user comes from, which a move does not change ("我老家成都的" stays when "现在住南山"
# comes; "I grew up in Ohio" when "I live in Denver" does).
HOMETOWN = re.compile(
    r"(?i)\b(?:my hometown|home town|grew up in|i'm from|i am from|originally from|born and raised in|was born in|back home in)\b"
    rf"|老家|家乡|故乡|出生在|土生土长|我是[\u4e00-\u9fff]{{2,4}}人|{_GREW_UP_ZH}"
)
# A clause that tells of living somewhere now, beside where the user comes from
LIVES_NOW = re.compile(r"(?i)\b(?:live|lives|living|moved|relocated|based in|now|moved back)\b|住|搬|现在|定居|回(?:到)?老家|回(?:到)?家乡")


def _longest_cue(clause: str, cued: list[Topic]) -> Topic | None:
    """Of several cued topics, the one whose cue word is longest ("医生说是胃炎" is about health:
    医生说 is a longer cue than 医生)."""
    if len(cued) <= 1:
        return cued[0] if cued else None

    def length(topic: Topic) -> int:
        return max((m.end() - m.start() for m in topic.cue.finditer(clause) if _is_cue(clause, m)), default=0)

    return max(cued, key=length)  # max keeps the first of equal ones: TOPICS order


def _whose(clause: str) -> Topic:
    """The part of life a clause about someone else belongs to: their pet, their work, their family."""
    head = people_in(clause[:16])
    if "pet" in head:
        return BY_SLOT["user.pet"]
    if "work" in head:
        return BY_SLOT["user.job"]
    return BY_SLOT["user.family"]


def _nearest(labels: Sequence[Topic], sims: Sequence[float], top: int = 2) -> dict[str, float]:
    """Each topic's mean similarity over its `top` nearest prototypes (one lucky prototype is
    weaker evidence than two)."""
    by_topic: dict[str, list[float]] = {}
    for label, sim in zip(labels, sims, strict=True):
        by_topic.setdefault(label.slot, []).append(sim)
    return {slot: float(np.mean(sorted(values)[-top:])) for slot, values in by_topic.items()}


__all__ = [
    "BY_SLOT",
    "HOMETOWN",
    "LIVES_NOW",
    "CHANGE",
    "RESCHEDULED",
    "SINGLE",
    "names_a_partner",
    "ENDED",
    "RECOVERED",
    "TENTATIVE",
    "TOPICS",
    "new_values",
    "value_words",
    "Topic",
    "TopicClassifier",
    "cue_topics",
    "device_named",
    "located",
    "value_terms",
]
