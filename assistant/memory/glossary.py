"""A small English–Chinese glossary for the keyword index.

People write to Mnemo in both languages, often in one sentence ("十一月想去 Japan 玩两周"),
and ask in the other ("我什么时候去日本来着"). The embedding model cannot be relied on to
match across scripts (the bundled English model reads no Chinese; a Chinese model reads
English loosely), and the keyword route matches words, not meanings. So a memory's index
entry carries the other language's words for the everyday things it names: places, people
by role, food, health, things owned, months. Only the index sees them — the memory's text
stays the user's words.

Why a hand-kept list and not a dictionary such as CC-CEDICT: a full dictionary gives dozens
of senses per word and needs Chinese word segmentation to look words up; an index term that
is wrong brings unrelated memories into a prompt. These are words whose one meaning is safe.
"""

from __future__ import annotations

import re
from functools import cache

# (English words, Chinese words), each space-separated ("new_york" is two words). English
# words match whole words (a plural -s allowed), Chinese ones anywhere, unless written as a
# pattern ("(?<![十\d])一月" is not 十一月). Left out: words with a second everyday sense
# ("may", "watch", "book", "home" and 家).
_GROUPS: tuple[tuple[str, str], ...] = (
    # places
    ("japan japanese", "日本"), ("china chinese", "中国"), ("korea korean", "韩国"), ("thailand thai", "泰国"),
    ("vietnam", "越南"), ("singapore", "新加坡"), ("malaysia", "马来西亚"), ("indonesia", "印尼 印度尼西亚"),
    ("india", "印度"), ("australia", "澳洲 澳大利亚"), ("canada", "加拿大"), ("america usa", "美国"),
    ("uk britain england british", "英国"), ("france paris", "法国 巴黎"), ("germany berlin", "德国 柏林"), ("italy rome", "意大利 罗马"),
    ("spain", "西班牙"), ("portugal lisbon", "葡萄牙 里斯本"), ("iceland", "冰岛"), ("switzerland", "瑞士"),
    ("europe", "欧洲"), ("tokyo", "东京"), ("osaka", "大阪"), ("kyoto", "京都"), ("hokkaido", "北海道"), ("seoul", "首尔"),
    ("bangkok", "曼谷"), ("bali", "巴厘岛"), ("london", "伦敦"), ("new_york", "纽约"), ("toronto", "多伦多"),
    ("vancouver", "温哥华"), ("sydney", "悉尼"), ("melbourne", "墨尔本"), ("beijing", "北京"), ("shanghai", "上海"),
    ("shenzhen", "深圳"), ("guangzhou", "广州"), ("hangzhou", "杭州"), ("chengdu", "成都"), ("hong_kong", "香港"),
    ("taiwan taipei", "台湾 台北"), ("wuhan", "武汉"), ("nanjing", "南京"), ("xi'an xian", "西安"),
    # people
    ("wife husband partner spouse", "老婆 老公 妻子 丈夫 爱人 对象"), ("boyfriend girlfriend", "男朋友 女朋友 男友 女友"),
    ("son", "儿子"), ("daughter", "女儿 闺女"), ("kid child children baby", "孩子 小孩 宝宝 娃"),
    ("mom mum mother", "妈妈 老妈 母亲"), ("dad father", "爸爸 老爸 父亲"), ("parents", "父母 爸妈"),
    ("sister", "姐姐 妹妹"), ("brother", "哥哥 弟弟"), ("grandma grandmother", "奶奶 外婆 姥姥"),
    ("grandpa grandfather", "爷爷 外公 姥爷"), ("friend", "朋友"), ("boss manager", "老板 领导 上司"),
    ("colleague coworker", "同事"), ("roommate flatmate", "室友 舍友"), ("landlord", "房东"), ("neighbor neighbour", "邻居"),
    ("doctor", "医生"), ("teacher", "老师"),
    # pets
    ("dog puppy", "狗 狗狗 小狗"), ("cat kitten", "猫 猫咪 小猫"), ("rabbit bunny", "兔子"), ("hamster", "仓鼠"),
    ("parrot", "鹦鹉"), ("fish tank aquarium", "鱼缸"),
    # food and diet
    ("allergy allergic allergies", "过敏"), ("nut nuts", "坚果"), ("peanut peanuts", "花生"), ("seafood", "海鲜"),
    ("shrimp prawn", "虾"), ("shellfish", "贝类"), ("egg eggs", "鸡蛋"), ("milk dairy", "牛奶 乳制品"),
    ("lactose", "乳糖"), ("gluten", "麸质"), ("wheat", "小麦"), ("soy", "大豆 黄豆"), ("mango", "芒果"),
    ("vegetarian", "素食 吃素"), ("vegan", "纯素"), ("spicy", "辣"), ("coffee", "咖啡"), ("tea", "茶"),
    ("alcohol beer wine", "喝酒 啤酒 红酒 白酒"), ("sugar", "糖"), ("fasting", "断食"), ("diet", "饮食 节食"),
    ("pork", "猪肉"), ("beef", "牛肉"), ("chicken", "鸡肉"), ("noodles", "面条"), ("rice", "米饭"), ("hotpot", "火锅"),
    ("breakfast", "早餐 早饭"), ("lunch", "午餐 午饭"), ("dinner", "晚餐 晚饭"), ("snack snacks", "零食"),
    # health
    ("diabetes diabetic", "糖尿病"), ("insulin", "胰岛素"), ("asthma", "哮喘"), ("migraine", "偏头痛"),
    ("pregnant pregnancy", "怀孕 孕期"), ("blood_pressure hypertension", "血压 高血压"), ("insomnia", "失眠"),
    ("depression", "抑郁"), ("anxiety", "焦虑"), ("gout", "痛风"), ("gastritis", "胃炎"), ("knee", "膝盖"),
    ("back_pain", "腰疼 背疼 腰痛"), ("injury injured", "受伤"), ("surgery", "手术"), ("medicine medication pills", "药"),
    ("hospital", "医院"), ("dentist", "牙医"), ("glasses", "眼镜"), ("sleep", "睡眠 睡觉"),
    # work and school
    ("job work", "工作 上班"), ("company", "公司"), ("office", "办公室"), ("interview", "面试"), ("salary", "工资 薪水"),
    ("promotion promoted", "升职"), ("resign quit", "辞职"), ("startup", "创业"), ("intern internship", "实习"),
    ("school", "学校"), ("university college", "大学"), ("exam", "考试"), ("thesis", "论文"), ("phd", "博士"),
    ("master's masters", "硕士 研究生"), ("visa", "签证"), ("passport", "护照"),
    ("english", "英语"), ("japanese", "日语 日文"), ("korean", "韩语 韩文"), ("french", "法语"), ("german", "德语"),
    ("spanish", "西班牙语"), ("language languages", "英语 日语 韩语 法语 德语 俄语 西班牙语 意大利语 粤语"),
    # things
    ("laptop computer pc macbook", "电脑 笔记本"), ("phone iphone", "手机"), ("tablet ipad", "平板"),
    ("headphones earbuds airpods", "耳机"), ("car", "汽车 车子 开车"), ("bike bicycle", "自行车 单车"),
    ("camera", "相机"), ("smartwatch", "手表"), ("router", "路由器"), ("keyboard", "键盘"), ("printer", "打印机"),
    ("piano", "钢琴"), ("guitar", "吉他"), ("violin", "小提琴"), ("apartment", "公寓"), ("house", "房子"),
    ("rent", "房租 租金"), ("mortgage", "房贷"), ("budget", "预算"),
    # doings
    ("trip travel vacation holiday", "旅行 旅游 出游 度假"), ("flight fly", "航班 飞机"), ("hotel", "酒店"),
    ("wedding", "婚礼"), ("birthday", "生日"), ("birthday_party", "生日会"), ("anniversary", "纪念日"), ("party", "派对 聚会"),
    ("gym workout", "健身 健身房"), ("running marathon", "跑步 马拉松"), ("swimming swim", "游泳"),
    ("yoga", "瑜伽"), ("hiking hike", "徒步 爬山"), ("skiing ski", "滑雪"), ("cooking cook", "做饭"),
    ("move moved moving", "搬家 搬到"), ("concert", "演唱会"), ("movie movies film", "电影"), ("books reading", "看书"),
    ("game games gaming", "游戏"), ("photography photos", "摄影 照片"),
    # months and days (the last groups: `things_named` leaves them out)
    ("january jan", r"(?<![十\d])一月|(?<![\d])1月"), ("february feb", r"(?<![十\d])二月|(?<![\d])2月"), ("march", r"三月|(?<!\d)3月"),
    ("april apr", r"四月|(?<!\d)4月"), ("june jun", r"六月|(?<!\d)6月"), ("july jul", r"七月|(?<!\d)7月"),
    ("august aug", r"八月|(?<!\d)8月"), ("september sept sep", r"九月|(?<!\d)9月"), ("october oct", r"十月|(?<!\d)10月"),
    ("november nov", r"十一月|11月"), ("december dec", r"十二月|12月"),
    ("monday", "周一 星期一 礼拜一"), ("tuesday", "周二 星期二 礼拜二"), ("wednesday", "周三 星期三 礼拜三"),
    ("thursday", "周四 星期四 礼拜四"), ("friday", "周五 星期五 礼拜五"), ("saturday", "周六 星期六 礼拜六"),
    ("sunday", "周日 星期日 星期天 礼拜天"), ("weekend", "周末"), ("tomorrow", "明天"),
)




@cache
def _patterns() -> tuple[tuple[re.Pattern[str], re.Pattern[str], str, str], ...]:
    out = []
    for en, zh in _GROUPS:
        en_rx = re.compile(r"(?i)(?<![a-z'])(?:" + "|".join(re.escape(w).replace("_", r"\s+") + "s?" for w in en.split()) + r")(?![a-z])")
        zh_rx = re.compile("|".join(w if "(" in w or "|" in w else re.escape(w) for w in zh.split()))
        out.append((en_rx, zh_rx, en, zh))
    return tuple(out)


def _readable(zh: str) -> str:
    r"""The Chinese words of a group as index words: a pattern's plain alternatives ("十一月|11月"
    gives both; "(?<![十\d])一月" gives 一月; a pattern of alternatives inside a group gives none)."""
    words = (re.sub(r"\(\?<?[!=][^)]*\)", "", w) for part in zh.split() for w in part.split("|"))
    return " ".join(w for w in words if w and not re.search(r"[()?|\[\]\\]", w))


def glosses(text: str) -> str:
    """The other language's words for the everyday things `text` names (space-separated;
    empty when it names none). "十一月想去 Japan 玩两周" → "november nov 日本"."""
    found: list[str] = []
    for en_rx, zh_rx, en, zh in _patterns():
        if zh_rx.search(text):
            found.append(en.replace("_", " "))
        if en_rx.search(text):
            found.append(_readable(zh))
    return " ".join(dict.fromkeys(found))


_TIMES = len(_GROUPS) - next(i for i, (en, _zh) in enumerate(_GROUPS) if en.startswith("january"))


def things_named(text: str) -> list[str]:
    """The glossary's words `text` uses for things (not for times), as written there:
    "计划12月20号去 Hokkaido 滑雪" → ["Hokkaido", "滑雪"]."""
    found: list[str] = []
    for en_rx, zh_rx, _en, _zh in _patterns()[: len(_GROUPS) - _TIMES]:  # not the months and days
        found += [m.group() for m in en_rx.finditer(text)] + [m.group() for m in zh_rx.finditer(text)]
    return list(dict.fromkeys(found))


__all__ = ["glosses", "things_named"]
