"""What people say that no rule was written for: a fact shown in the user's own words, an end
that names the thing, a forget request's sentence, a quote to work on, a passing feeling.

Every message here is new wording, not taken from a scenario file."""

from __future__ import annotations

from datetime import timedelta

from assistant.app import Profile
from assistant.chat.history import ConversationStore
from assistant.clock import ManualClock
from assistant.memory.types import Kind, Status, Turn
from tests.integration.memory.test_write_path_examples import contents, prompt, say


def test_a_fact_is_shown_in_the_users_own_words(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我住在南京仙林这边，离地铁站挺近")
    assert any(m.kind is Kind.SEMANTIC for m in profile.store.list(limit=50))  # the rule's fact is kept
    block = prompt(profile, clock, "仙林附近有什么好吃的")
    assert "仙林" in block  # the district the fact leaves out


def test_the_fact_stands_for_an_episode_that_tells_what_was_before(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我上个月从西安搬到厦门了")
    block = prompt(profile, clock, "周末附近有什么好玩的？")
    assert "厦门" in block and "西安" not in block


def test_a_statement_that_a_named_thing_ended_ends_what_was_said_of_it(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "we booked ten days in Norway for July, fjords and everything")
    clock.advance(timedelta(days=20))
    say(profile, clock, "Norway is off, the flights doubled in price")
    old = [m for m in profile.store.list(status=Status.SUPERSEDED, limit=50) if "fjords" in m.content]
    assert old  # history keeps it
    assert "fjords" not in prompt(profile, clock, "what should I pack for my summer holiday?")


def test_an_end_with_more_to_say_ends_nothing(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "I love coffee, flat whites mostly")
    say(profile, clock, "I stopped drinking coffee after 3pm because it wrecks my sleep")
    assert "flat whites" in contents(profile)


def test_a_breakup_without_a_name_ends_the_partner(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我男朋友叫陈默，在银行上班")
    clock.advance(timedelta(days=40))
    say(profile, clock, "我们分手了")
    assert "陈默" not in contents(profile)


def test_the_sentence_of_a_forget_request_is_not_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "最近在吃抗焦虑的药，有点副作用")
    clock.advance(timedelta(days=3))
    say(profile, clock, "之前跟你说我吃药那个事，帮我删了吧，不想留着")
    stored = contents(profile, status=None)
    assert "不想留着" not in stored and "之前跟你说" not in stored


def test_what_the_user_goes_on_to_tell_after_a_forget_request_is_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "my ex Dominic still has my bike")
    say(profile, clock, "can you forget everything about Dominic? it's not worth keeping. anyway i'm starting ceramics on thursday evenings")
    stored = contents(profile)
    assert "ceramics" in stored and "Dominic" not in stored and "worth keeping" not in stored


def test_a_long_quote_after_a_colon_is_material_not_the_user(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "check this ad for me: 'Spacious flat in Camden, landlord lives upstairs, no pets, rent due on the 1st of each month.' is it a good deal? I'm a teacher btw")
    stored = contents(profile)
    assert "Camden" not in stored and "landlord" not in stored
    assert "teacher" in stored


def test_a_draft_of_the_users_own_stays_theirs(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "can you make this sound friendlier: 'hi team, I'm taking Friday off for my sister's graduation in Leeds'")
    assert "graduation" in contents(profile)


def test_a_passing_feeling_is_not_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "这周加班到十点，压力山大", "好烦啊", "so stressed out rn")
    stored = contents(profile, status=None)
    assert "压力山大" not in stored and "好烦" not in stored and "stressed" not in stored


def test_a_reply_wish_with_a_complaint_is_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "你以后回复别那么长 看着累")
    assert "回复别那么长" in contents(profile)


def test_a_phone_named_by_its_make_replaces_the_old_one(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "my phone is a Pixel 6")
    clock.advance(timedelta(days=60))
    say(profile, clock, "换了samsung s23，拍照好多了")
    block = prompt(profile, clock, "手机电池不耐用怎么办")
    assert "s23" in block.lower() and "Pixel" not in block


def test_a_city_said_in_latin_letters_in_chinese_places_the_user(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我在Chengdu做产品经理")
    assert "Chengdu" in prompt(profile, clock, "周末附近有什么好逛的")


def test_a_plan_made_instead_replaces_the_nearest_plan(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "booked flights to Lisbon for the easter break")
    say(profile, clock, "dentist appointment on the 3rd of march")
    clock.advance(timedelta(days=10))
    say(profile, clock, "change of plans, doing a road trip to the Lake District instead")
    stored = contents(profile)
    assert "Lisbon" not in stored and "Lake District" in stored and "dentist" in stored


def test_a_plan_moved_without_naming_it_is_the_one_plan_ahead(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我们的订婚宴定在9月20号")
    clock.advance(timedelta(days=20))
    say(profile, clock, "饭店说那天满了，改到10月11号")
    stored = contents(profile)
    assert "10月11" in stored and "9月20" not in stored


def test_a_new_name_replaces_what_named_it_by_the_old_one(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我们家新来了一只兔子，叫 Coco")
    clock.advance(timedelta(days=5))
    say(profile, clock, "兔子改名了，Coco 太普通，现在叫年糕")
    assert "叫 Coco" not in contents(profile) and "兔子" in contents(profile)


def test_a_colleagues_trip_ahead_is_not_the_users_plan(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我同事小林下个月去冰岛度蜜月")
    say(profile, clock, "我今年想存钱买车")
    block = prompt(profile, clock, "帮我做个今年的预算计划")
    assert "冰岛" not in block


def test_news_told_with_a_forget_request_is_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我男朋友叫周凯，他喜欢打羽毛球")
    clock.advance(timedelta(days=20))
    say(profile, clock, "我们分手了 别再提他了")
    assert "周凯" not in contents(profile)


def test_a_word_of_time_alone_changes_no_job(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "I work at Medtronic in Minneapolis")
    clock.advance(timedelta(days=3))
    say(profile, clock, "I've been leading a second team since last year")
    assert "Medtronic" in contents(profile)


def chat(profile: Profile, clock: ManualClock, *texts: str) -> None:
    """Say `texts` in a chat, as the chat engine does: each message is kept in the history."""
    history = ConversationStore(profile.db, profile.name)
    session = history.create_session(f"chat-{clock.now().timestamp():.0f}", "a chat", False, clock.now().timestamp()).id
    for text in texts:
        clock.advance(timedelta(minutes=1))
        stored = history.add_message(session, "user", profile.memories.protect(text, clock.now()), clock.now().timestamp())
        turn = Turn("user", text, clock.now(), session_id=session, message_id=stored.id)
        profile.writer.remember([turn], clock.now(), confirm_forget=True)


def test_a_colleagues_trip_is_not_the_users_though_my_names_the_colleague(profile: Profile, clock: ManualClock) -> None:
    # told in a chat, so the read path can look at the rest of the message: "我同事" makes the
    # user no part of the trip, nor does the envy after it
    chat(profile, clock, "我同事阿杰刚领证，下个月去马尔代夫度蜜月，羡慕死", "我今年就不出去玩了，要攒钱买车")
    clock.advance(timedelta(days=14))
    block = prompt(profile, clock, "帮我做个今年的预算计划")
    assert "马尔代夫" not in block and "不出去玩" in block


def test_forgetting_a_thing_takes_what_its_message_said_of_it(profile: Profile, clock: ManualClock) -> None:
    chat(profile, clock, "新年目标：戒糖！！现在每天两杯奶茶，目标一周一杯", "我住在长沙")
    clock.advance(timedelta(days=10))
    chat(profile, clock, "算了，戒糖那件事你别记了")
    stored = contents(profile)
    assert "奶茶" not in stored and "长沙" in stored


def test_forgetting_a_number_takes_the_amounts_of_its_part_of_life(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "I work at Target corporate, I make 92k and I'm thinking about asking for a raise")
    clock.advance(timedelta(days=3))
    say(profile, clock, "hey can you forget my salary number? I shouldn't have shared that")
    stored = contents(profile)
    assert "92k" not in stored and "Target" in stored


def test_what_the_user_tells_after_a_request_is_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "can you find me a satay recipe, no peanuts tho, severe allergy")
    assert "peanuts" in contents(profile)


def test_where_the_user_is_said_in_a_story_of_the_day_is_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "烦死了 又下雨 出门又忘带伞 我在厦门 这天气真的绝了")
    assert "我在厦门" in contents(profile)


def test_a_place_of_work_said_after_the_job_is_kept(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我是Amy，在Singapore做data analyst，at DBS")
    assert "DBS" in contents(profile)


def test_a_draft_in_the_users_words_is_theirs_a_notice_about_others_is_not(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "can u proofread this cover letter: 'Dear hiring manager, I have five years of experience as a nurse at Mercy General'")
    say(profile, clock, "帮我润色一下这封通知：『各位同事，财务部王芳将于7月1日起休产假，期间工作由赵磊代理。』")
    say(profile, clock, "我朋友发我的 你帮我看看咋回：“姐妹我辞职了！！下个月搬去大理开民宿 你一定要来玩啊”")
    stored = contents(profile, status=None)
    assert "Mercy General" in stored
    assert "王芳" not in stored and "大理" not in stored


def test_a_question_without_its_question_mark_is_no_memory(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "quick q whats the difference between bread flour and plain flour", "完全不想上班😩")
    stored = contents(profile, status=None)
    assert "flour" not in stored and "不想上班" not in stored


def test_a_cold_of_that_week_is_gone_from_a_later_prompt_and_the_asthma_is_not(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "I have asthma, cold mornings are rough")
    clock.advance(timedelta(days=40))
    say(profile, clock, "ugh, sprained my wrist at climbing and came down with the flu the same week")
    assert any(m.kind is Kind.SEMANTIC and "wrist" in m.content for m in profile.store.list(limit=50))
    assert "flu" in prompt(profile, clock, "what should I cook for dinner tonight?")  # that week it still holds
    clock.advance(timedelta(days=60))
    block = prompt(profile, clock, "suggest a workout routine I can start this week")
    assert "asthma" in block and "flu" not in block and "wrist" not in block


def test_an_offer_received_is_no_new_job(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "我在南京做审计，住在鼓楼")
    clock.advance(timedelta(days=9))
    say(profile, clock, "杭州那边有家公司给我发了offer，工资高一截，还在纠结")
    assert "南京做审计" in contents(profile)
    say(profile, clock, "I'm a line cook at Rosie's in Austin")
    say(profile, clock, "got two offers from bakeries in Dallas this week")
    assert "Rosie's" in contents(profile)
    clock.advance(timedelta(days=9))
    say(profile, clock, "GOT THE OFFER FROM CRUMBWELL!! signed it today")  # taken, in the next clause
    assert "Rosie's" not in contents(profile)


def test_a_pet_that_died_told_by_its_kind_and_a_weekday_gone_by(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "I have a cat named Pistachio, she sleeps on my keyboard")
    clock.advance(timedelta(days=30))
    say(profile, clock, "we lost our cat on tuesday. 14 years. the house is so quiet")
    assert "Pistachio" not in contents(profile)  # history keeps her; no prompt does
    assert any("lost our cat" in m.content and m.expires_at is None for m in profile.store.list(limit=50))
    say(profile, clock, "我家猫叫芋圆", "我周二把车卖了")
    clock.advance(timedelta(days=3))
    say(profile, clock, "我家猫昨天走了")
    assert "芋圆" not in contents(profile)
    assert any("车卖了" in m.content and m.expires_at is None for m in profile.store.list(limit=50))  # done, not a plan


def test_the_first_week_in_a_new_role_ends_the_old_one(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "i teach 6th grade math and parent emails never stop")
    clock.advance(timedelta(days=60))
    say(profile, clock, "first week as a paralegal at a firm downtown, so many acronyms")
    assert "6th grade" not in contents(profile) and "paralegal" in contents(profile)


def test_an_end_that_says_what_took_its_place_answers_the_topic(profile: Profile, clock: ManualClock) -> None:
    # "sold" alone would be an end that answers only a request naming the Honda; the e-bike is
    # what the user rides now
    say(profile, clock, "sold my honda last month, got an e-bike instead")
    assert "e-bike" in prompt(profile, clock, "what's the best way to get to the airport from my place?")


def test_a_request_for_the_youngest_child_finds_the_child(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "my son theo is 4 and he's obsessed with trains")
    assert "theo" in prompt(profile, clock, "what chores can my youngest realistically do?")


def test_a_when_question_takes_the_plan_it_names_not_every_plan(profile: Profile, clock: ManualClock) -> None:
    say(profile, clock, "my cousin's wedding is on the 20th of next month, I'm a bridesmaid", "dentist appointment next tuesday at 9")
    assert "wedding" in prompt(profile, clock, "when is the wedding again?")
    assert "dentist" not in prompt(profile, clock, "when was the Berlin wall built?")
