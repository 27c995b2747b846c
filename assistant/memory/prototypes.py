"""Labelled prototype sentences: typical things people say about each part of their life.

The topic classifier (`topics.py`) tags a clause with the topic of its nearest prototypes when
no cue word decides, and the noise filter (`noise.py`) compares a clause with durable
statements and with chatter. They are written to be varied (different people, jobs, places,
phrasings, tenses, lengths), in English and Chinese; a model is used for a language only when
it tells these topics apart (measured on the prototypes themselves, see
`TopicClassifier.skill`).
"""

from __future__ import annotations

TOPIC_PROTOTYPES: dict[str, tuple[str, ...]] = {
    "user.city": (
        "I live in Denver now.", "We moved to Lisbon last spring.", "We just got the keys to our new flat in Porto.",
        "I'm based in Toronto.", "I've been living in Austin for about five years.", "My apartment is in the old town.",
        "I rent a small place near the river.", "We relocated to Singapore for my husband's job.",
        "I grew up in a small village in Wales.", "I'm originally from Nairobi.", "Our house is on the edge of town.",
        "I just signed a lease on a studio downtown.", "Home is a tiny flat above a bakery.",
        "我住在成都。", "我们去年搬到了杭州。", "搬来深圳快一年了。", "我在苏州租房住。", "老家是河南的。", "我家在郊区。",
    ),
    "user.job": (
        "I work as a nurse at St Mary's.", "I just started a new job at a bank.", "I teach chemistry at a school.",
        "I quit my job at the agency.", "I'm a software engineer at a startup.", "I do the accounts for a small firm.",
        "I'm a line manager in a warehouse.", "I run my own bakery.", "I'm a freelance translator.",
        "I got promoted to team lead last month.", "I start my new role on Monday.", "I was laid off in March.",
        "I'm a junior doctor doing night shifts.", "I write code for an online shop.", "I'm the head chef at a restaurant.",
        "I accepted an offer from a design studio.", "My shift at the store starts at six.",
        "我在一家互联网公司做产品经理。", "我是一名护士。", "我上个月跳槽去了字节。", "我在医院上班。", "我自己开了家小店。", "我在银行做柜员。",
    ),
    "user.diet": (
        "I'm vegetarian.", "I don't eat meat anymore.", "I keep halal.", "I'm vegan.", "I stopped eating red meat.",
        "I'm on a low-carb diet.", "I avoid pork.", "I only eat fish, no other meat.", "I'm trying to cut down on sugar.",
        "我吃素。", "我不吃猪肉。", "我现在开始吃肉了。", "我在控制饮食，少吃碳水。",
    ),
    "user.allergy": (
        "I'm allergic to peanuts.", "I'm lactose intolerant.", "I have a shellfish allergy.", "Gluten makes me sick, I'm coeliac.",
        "I carry an EpiPen for my nut allergy.", "Cats make me sneeze, I'm allergic.",
        "我对海鲜过敏。", "我乳糖不耐受。", "我花粉过敏。",
    ),
    "user.health": (
        "I have type 2 diabetes.", "I tore my ACL last year.", "I take blood pressure medication.", "I run three times a week.",
        "I've got asthma.", "I'm recovering from knee surgery.", "The doctor says my cholesterol is high.",
        "I get migraines a lot.", "I'm pregnant with our second child.", "I'm training for a half marathon.",
        "I started going to the gym twice a week.", "I have a bad back.", "I quit smoking a few months ago.",
        "我有高血压，每天吃药。", "我膝盖受过伤。", "我每周去健身房三次。", "医生说我是胃炎。", "我最近在戒烟。",
    ),
    "user.pet": (
        "My dog Biscuit is a golden retriever.", "We adopted a cat last month.", "I have two rabbits.",
        "Our puppy is six months old.", "My cat only eats wet food.", "We have a tortoise called Gerald.",
        "我家狗子叫豆豆。", "我养了一只橘猫。", "我家有两只仓鼠。",
    ),
    "user.family": (
        "My daughter Emma is seven.", "My husband works nights.", "We have two kids.", "My mum lives with us.",
        "My brother is getting married in June.", "My son just started school.", "My partner is a teacher.",
        "My wife and I have been married ten years.", "My dad had a stroke last year.", "We're expecting a baby in May.",
        "我女儿今年上三年级。", "我老公是医生。", "我家有两个娃。", "我妈跟我们一起住。",
    ),
    "user.vehicle": (
        "I drive a Honda Civic.", "We sold the old car.", "I ride a motorbike to work.", "I just bought an electric car.",
        "I don't own a car, I cycle everywhere.", "My car is a ten-year-old Toyota.",
        "The check engine light came on in my hatchback.", "My truck needs new brakes.", "I lease a small SUV.",
        "我开的是一辆比亚迪。", "我刚买了辆特斯拉。", "我骑电动车上班。",
    ),
    "user.device.phone": (
        "I use an iPhone 15.", "My phone is a Pixel 8.", "I switched to an Android phone.",
        "我的手机是华为。", "我换了个小米手机。",
    ),
    "user.device.computer": (
        "My laptop is a ThinkPad.", "I work on a MacBook Pro.", "I built my own gaming PC.", "I use Linux on my desktop.",
        "我用的是MacBook。", "我的电脑是联想的。",
    ),
    "user.device.instrument": (
        "I play a Fender Stratocaster.", "My guitar keeps going out of tune.", "I practise piano every evening.",
        "I just bought a new violin.", "I sold my old keyboard.",
        "我那把吉他是雅马哈的。", "我每天练钢琴。", "我新买了一把尤克里里。",
    ),
    "user.school": (
        "I'm a second-year student at Leeds.", "I study biology at university.", "I'm doing a master's in economics.",
        "I'm in my final year of high school.", "I'm writing my PhD thesis on soil bacteria.", "I'm taking night classes in accounting.",
        "我在浙大读研。", "我是大三学生，学计算机。", "我在准备考研。",
    ),
    "user.finance": (
        "My salary goes into my Chase checking account.", "I pay 1,450 a month in rent.", "I bank with Barclays.",
        "I'm paying off a student loan.", "I use a Visa card for online shopping.", "I'm saving for a house deposit.",
        "我的工资卡是招商银行的。", "我每个月房租三千。", "我平时都用支付宝付款。", "我在还房贷。",
    ),
    "user.likes": (
        "I love hiking on weekends.", "My favourite food is ramen.", "I'm learning the guitar.", "I can't stand cilantro.",
        "I'm really into board games.", "I collect vinyl records.", "I prefer tea to coffee.", "I watch a lot of anime.",
        "Sci-fi novels are my thing.", "I do pottery on Sunday mornings.",
        "我喜欢吃辣。", "我最近在学钢琴。", "我特别讨厌香菜。", "周末一般去爬山。",
    ),
    "user.reply_style": (
        "Please keep your answers short.", "Reply in English, please.", "Use bullet points when you answer.",
        "Don't use emojis with me.", "Explain things to me step by step.", "Use metric units.",
        "回答简短一点。", "以后用中文回复我。", "别用那么多表情。",
    ),
    "user.plan": (
        "I'm flying to Tokyo next Friday.", "My exam is on June 3rd.", "We're planning a trip to Iceland in May.",
        "I have a dentist appointment on Thursday.", "My job interview is next Tuesday.", "We're going camping this weekend.",
        "The wedding is on the 14th.", "My thesis is due at the end of the month.",
        "我下周三要去上海出差。", "下个月三号考雅思。", "月底准备去云南玩。",
    ),
}

NOISE_PROTOTYPES: tuple[str, ...] = (
    "Hi there!", "Thanks so much, that helps.", "Good night!", "lol ok", "Sounds good.", "You're the best.",
    "What's the weather like tomorrow?", "Can you write me a poem about autumn?", "Tell me a joke.",
    "I'm so tired today.", "Ugh, Mondays.", "Haha that's funny.", "Never mind.", "Just saying hi.",
    "Translate this into French.", "How do I bake bread?", "That makes sense, thank you.", "Hmm let me think.",
    "It's raining again.", "I'm bored right now.", "Okay, got it.", "Nice, cool.",
    "你好呀", "谢谢你", "晚安啦", "哈哈哈笑死我了", "好的知道了", "今天好累啊", "帮我写一首诗", "明天天气怎么样",
    "你真聪明", "没事了", "讲个笑话吧", "随便聊聊", "刚吃完饭", "有点困了", "好吧好吧", "嗯嗯",
)

DURABLE_PROTOTYPES: tuple[str, ...] = (
    "I live in Denver.", "I work as a nurse at St Mary's.", "I'm allergic to shellfish.", "My daughter Emma is seven.",
    "I'm vegetarian.", "We have a golden retriever called Biscuit.", "I drive a Honda Civic.", "I have type 2 diabetes.",
    "I'm flying to Tokyo next Friday.", "My favourite band is Radiohead.", "I prefer short answers.", "I grew up in Manchester.",
    "I'm learning Spanish.", "My husband is a chef.", "I quit my job last month.", "I use a MacBook for work.",
    "我住在成都。", "我是一名护士。", "我对花生过敏。", "我女儿今年七岁。", "我吃素。", "我家狗叫豆豆。", "我开的是比亚迪。",
    "我有高血压。", "下周三要去上海出差。", "我最喜欢的歌手是周杰伦。", "回答简短一点。", "我老家是山东的。", "我在学日语。",
    "我老公是厨师。", "上个月辞职了。", "我用的是华为手机。",
)

__all__ = ["DURABLE_PROTOTYPES", "NOISE_PROTOTYPES", "TOPIC_PROTOTYPES"]
