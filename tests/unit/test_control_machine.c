/*
 * The profiler's control state machine (firmware/profiler/control-machine.c)
 * and the CONFIG rules of its configuration (profiler-config.c), on the
 * host: frames encoded and decoded with the real link codec, the target's
 * side (sampling, model, clock) given as a view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "firmware/abi/event-spec.h"
#include "firmware/profiler/control-machine.h"
#include "hw-model/pmu-window.h"

/* A decoded frame and the decoder its payload lives in. */
struct test_frame {
    struct lk_decoder dec;
    struct lk_frame f;
};

static void decode(struct test_frame *t, struct lk_writer *w, uint16_t seq)
{
    uint8_t wire[LK_MAX_WIRE];
    size_t n = lk_finish(w, seq, wire, sizeof wire), used;
    assert_true(n > 0);
    lk_dec_init(&t->dec);
    const uint8_t *p = wire;
    int got = 0;
    while (n > 0 && !got) {
        got = lk_dec_push(&t->dec, p, n, &used, &t->f);
        p += used;
        n -= used;
    }
    assert_true(got);
}

/* A frame of any type with no payload (START, STOP and FLUSH_NOW have
 * none; for others it is a malformed frame). */
static void control_frame(struct test_frame *t, uint8_t type, uint16_t seq)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    lk_begin(&w, raw, sizeof raw, type);
    decode(t, &w, seq);
}

static void new_epoch_frame(struct test_frame *t, uint64_t epoch, uint16_t seq)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    assert_int_equal(lk_enc_new_epoch(&w, raw, sizeof raw, epoch), LK_OK);
    decode(t, &w, seq);
}

static void config_frame(struct test_frame *t, const struct lk_config *c, uint16_t seq)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    assert_int_equal(lk_enc_config(&w, raw, sizeof raw, c), LK_OK);
    decode(t, &w, seq);
}

static struct profiler_config boot_config(unsigned mode)
{
    struct boot_options b;
    memset(&b, 0, sizeof b);
    b.profile = mode;
    b.period_min = 60000;
    b.period_max = 64000;
    b.flush_ms = 100;
    b.pme_min = 60000;
    b.pme_max = 64000;
    b.pair_window = 80;
    struct profiler_config c;
    profiler_config_from_boot(&c, &b);
    return c;
}

/* A machine, the target's configuration and view, the last frame, decision
 * and reply. */
struct fixture {
    struct ctl_machine m;
    struct profiler_config c;
    struct ctl_view v;
    struct test_frame t;
    struct ctl_decision d;
    struct ctl_reply r;
};

static struct fixture *fixture(unsigned mode, int sampling)
{
    static struct fixture x;
    memset(&x, 0, sizeof x);
    ctl_init(&x.m);
    x.c = boot_config(mode);
    x.v = (struct ctl_view){.sampling = sampling, .has_model = 1, .now_ns = 1000, .config = &x.c};
    return &x;
}

/* The machine receives a frame without payload of the given type. */
static enum ctl_action receive(struct fixture *x, uint8_t type, uint16_t seq)
{
    control_frame(&x->t, type, seq);
    ctl_on_frame(&x->m, &x->t.f, &x->v, &x->d);
    return x->d.action;
}

static enum ctl_action receive_new_epoch(struct fixture *x, uint64_t epoch, uint16_t seq)
{
    new_epoch_frame(&x->t, epoch, seq);
    ctl_on_frame(&x->m, &x->t.f, &x->v, &x->d);
    return x->d.action;
}

static enum ctl_action receive_config(struct fixture *x, const struct lk_config *c, uint16_t seq)
{
    config_frame(&x->t, c, seq);
    ctl_on_frame(&x->m, &x->t.f, &x->v, &x->d);
    return x->d.action;
}

static void start_while_stopped_replies_at_once_with_a_new_session(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 0);
    assert_int_equal(receive(x, LK_T_START, 7), CTL_REPLY_LATER);
    assert_int_equal(x->m.state, CTL_REPLYING);
    assert_false(ctl_take_reply(&x->m, 0, &x->r));      /* the link's reserve is not free yet */
    assert_true(ctl_take_reply(&x->m, 1, &x->r));
    assert_int_equal(x->r.type, LK_T_START);
    assert_int_equal(x->r.seq, 7);
    assert_true(x->r.start_session);
    assert_false(x->r.send_flushes);
    assert_false(x->r.send_epoch);
    assert_string_equal(x->r.message, "started");
    assert_int_equal(x->m.state, CTL_IDLE);
    assert_false(ctl_take_reply(&x->m, 1, &x->r));      /* exactly one answer */
}

static void start_while_sampling_flushes_the_old_session_first(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive(x, LK_T_START, 3), CTL_FLUSH);
    assert_int_equal(x->m.state, CTL_FLUSHING);
    assert_false(ctl_take_reply(&x->m, 1, &x->r));      /* no answer while flushing */
    assert_int_equal(ctl_flush_step(&x->m, 1, 2000), CTL_KEEP_FLUSHING);
    assert_int_equal(ctl_flush_step(&x->m, 0, 3000), CTL_FLUSHED);
    assert_true(ctl_take_reply(&x->m, 1, &x->r));
    assert_true(x->r.start_session);
    assert_int_equal(x->r.seq, 3);
}

static void stop_while_not_sampling_is_acknowledged_at_once(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 0);
    assert_int_equal(receive(x, LK_T_STOP, 1), CTL_ANSWER);
    assert_int_equal(x->d.status, LK_ACK_OK);
    assert_string_equal(x->d.message, "not sampling");
    assert_int_equal(x->m.state, CTL_IDLE);
}

static void stop_while_sampling_stops_then_flushes_then_sends_flush_frames(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive(x, LK_T_STOP, 9), CTL_STOP_AND_FLUSH);
    assert_int_equal(ctl_flush_step(&x->m, 0, 2000), CTL_FLUSHED);
    assert_true(ctl_take_reply(&x->m, 1, &x->r));
    assert_true(x->r.send_flushes);
    assert_false(x->r.start_session);
    assert_string_equal(x->r.message, "stopped");
}

static void new_epoch_flushes_then_sends_the_epoch_before_the_ack(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive_new_epoch(x, 42, 5), CTL_FLUSH);
    assert_int_equal(ctl_flush_step(&x->m, 0, 2000), CTL_FLUSHED);
    assert_true(ctl_take_reply(&x->m, 1, &x->r));
    assert_true(x->r.send_flushes);
    assert_true(x->r.send_epoch);
    assert_int_equal(x->r.epoch, 42);
    assert_int_equal(x->r.type, LK_T_NEW_EPOCH);
    assert_string_equal(x->r.message, "new epoch");
}

static void a_malformed_new_epoch_is_a_bad_frame_and_starts_nothing(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive(x, LK_T_NEW_EPOCH, 5), CTL_ANSWER);     /* no payload */
    assert_int_equal(x->d.status, LK_ACK_BAD_FRAME);
    assert_int_equal(x->m.state, CTL_IDLE);
}

static void a_frame_that_is_no_control_frame_is_a_bad_frame(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive(x, LK_T_END, 5), CTL_ANSWER);
    assert_int_equal(x->d.status, LK_ACK_BAD_FRAME);
    assert_string_equal(x->d.message, "not a control frame");
}

static void any_frame_during_a_flush_is_answered_busy_and_changes_nothing(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive(x, LK_T_FLUSH_NOW, 1), CTL_FLUSH);
    static const uint8_t others[] = {LK_T_START, LK_T_STOP, LK_T_FLUSH_NOW, LK_T_CONFIG};
    for (unsigned i = 0; i < sizeof others; i++) {
        assert_int_equal(receive(x, others[i], (uint16_t)(2 + i)), CTL_ANSWER);
        assert_int_equal(x->d.status, LK_ACK_BUSY);
        assert_int_equal(x->m.state, CTL_FLUSHING);
        assert_int_equal(x->m.op, LK_T_FLUSH_NOW);
        assert_int_equal(x->m.op_seq, 1);
    }
    assert_int_equal(x->m.frames, 5);                   /* every intact frame is counted */
    assert_int_equal(ctl_flush_step(&x->m, 0, 2000), CTL_FLUSHED);
    assert_true(ctl_take_reply(&x->m, 1, &x->r));
    assert_int_equal(x->r.seq, 1);
    assert_string_equal(x->r.message, "flushed");
}

static void a_flush_gives_up_at_its_deadline_never_before(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_int_equal(receive(x, LK_T_FLUSH_NOW, 1), CTL_FLUSH);
    assert_int_equal(ctl_flush_step(&x->m, 1, 1000 + CTL_FLUSH_TIMEOUT_NS), CTL_KEEP_FLUSHING);
    assert_int_equal(x->m.state, CTL_FLUSHING);
    assert_int_equal(ctl_flush_step(&x->m, 1, 1001 + CTL_FLUSH_TIMEOUT_NS), CTL_GIVE_UP);
    assert_int_equal(x->m.state, CTL_REPLYING);
    assert_true(ctl_take_reply(&x->m, 1, &x->r));       /* the answer still goes out */
    assert_string_equal(x->r.message, "flushed");
}

static void the_end_of_the_run_answers_the_frame_in_progress(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    assert_false(ctl_finish(&x->m, &x->r));             /* nothing in progress: nothing to say */
    assert_int_equal(receive_new_epoch(x, 8, 4), CTL_FLUSH);
    assert_true(ctl_finish(&x->m, &x->r));
    assert_true(x->r.send_epoch);
    assert_int_equal(x->r.epoch, 8);
    assert_int_equal(x->r.seq, 4);
    assert_string_equal(x->r.message, "the workload ended");
    assert_int_equal(x->m.state, CTL_IDLE);
    assert_false(ctl_finish(&x->m, &x->r));
}

static struct lk_config counters_request(unsigned nevents)
{
    struct lk_config req;
    memset(&req, 0, sizeof req);
    req.mode = LK_MODE_COUNTERS;
    req.nevents = nevents;
    return req;
}

static void config_while_sampling_is_refused_busy(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 1);
    struct lk_config req = counters_request(0);
    assert_int_equal(receive_config(x, &req, 2), CTL_ANSWER);
    assert_int_equal(x->d.status, LK_ACK_BUSY);
    assert_string_equal(x->d.message, "CONFIG while sampling: send STOP first");
}

static void config_counters_with_default_periods_installs_a_complete_configuration(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 0);
    struct lk_config req = counters_request(2);
    req.events[0].event = PMU_EV_CYCLES;
    req.events[1].event = PMU_EV_DMISS;
    req.flush_ms = 250;
    assert_int_equal(receive_config(x, &req, 2), CTL_CONFIGURE);
    assert_int_equal(x->d.config.mode, LK_MODE_COUNTERS);
    assert_int_equal(x->d.config.nevents, 2);
    assert_int_equal(x->d.config.events[0].period_min, 60000);  /* cycles: the timer's range */
    assert_int_equal(x->d.config.events[0].period_max, 64000);
    assert_int_equal(x->d.config.events[1].period_min, BOOT_DEFAULT_EVENT_PERIOD_MIN);
    assert_int_equal(x->d.config.events[1].period_max, BOOT_DEFAULT_EVENT_PERIOD_MAX);
    assert_int_equal(x->d.config.flush_ms, 250);
    assert_int_equal(x->c.mode, LK_MODE_TIMER);         /* the machine changes nothing itself */
}

static void config_checks_every_event_before_changing_anything(void **state)
{
    (void)state;
    struct profiler_config c = boot_config(LK_MODE_COUNTERS), next = c;
    struct lk_config req = counters_request(2);
    req.events[0] = (struct lk_event_config){PMU_EV_DMISS, 2000, 3000};
    req.events[1] = (struct lk_event_config){PMU_EV_CYCLES, 500, 600};    /* below the minimum */
    const char *why = NULL;
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_BAD_FRAME);
    assert_string_equal(why, "event period: 1000 <= min <= max <= 1000000");
    req.events[1] = (struct lk_event_config){PMU_EV_CYCLES, 2000, GRAMMAR_NUMBER_MAX + 1};     /* above */
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_BAD_FRAME);
    assert_memory_equal(&next, &c, sizeof c);
    assert_memory_equal(&next, &c, sizeof c);
    req.events[1] = (struct lk_event_config){PMU_EV_COUNT, 0, 0};
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_UNSUPPORTED);
    assert_string_equal(why, "no such hardware event");
    req = counters_request(LK_MAX_EVENTS);
    for (unsigned i = 0; i < LK_MAX_EVENTS; i++)
        req.events[i].event = PMU_EV_CYCLES;
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_OK);
    assert_int_equal(next.nevents, LK_MAX_EVENTS);
}

static void config_counters_without_the_model_is_unsupported(void **state)
{
    (void)state;
    struct profiler_config c = boot_config(LK_MODE_TIMER), next;
    struct lk_config req = counters_request(0);
    const char *why = NULL;
    assert_int_equal(profiler_config_apply(&c, &req, 0, &next, &why), LK_ACK_UNSUPPORTED);
    assert_string_equal(why, "no hardware model on this board (clipper-pm has one)");
}

static void config_timer_takes_one_timer_event_with_a_legal_period(void **state)
{
    (void)state;
    struct profiler_config c = boot_config(LK_MODE_COUNTERS), next;
    struct lk_config req;
    memset(&req, 0, sizeof req);
    req.mode = LK_MODE_TIMER;
    req.nevents = 1;
    req.events[0] = (struct lk_event_config){LK_EVENT_TIMER, 999, 2000};
    const char *why = NULL;
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_BAD_FRAME);
    assert_string_equal(why, "timer period: 1000 <= min <= max <= 1000000 ns");
    req.events[0] = (struct lk_event_config){LK_EVENT_TIMER, 1000, GRAMMAR_NUMBER_MAX + 1};
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_BAD_FRAME);
    req.events[0] = (struct lk_event_config){PMU_EV_CYCLES, 1000, 2000};
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_UNSUPPORTED);
    req.events[0] = (struct lk_event_config){LK_EVENT_TIMER, 1000, 2000};
    assert_int_equal(profiler_config_apply(&c, &req, 1, &next, &why), LK_ACK_OK);
    assert_int_equal(next.mode, LK_MODE_TIMER);
    assert_int_equal(next.period_min, 1000);
    assert_int_equal(next.period_max, 2000);
    assert_string_equal(why, "configured; applies at START");
}

static void profileme_modes_are_chosen_at_boot(void **state)
{
    (void)state;
    struct profiler_config timer = boot_config(LK_MODE_TIMER), pme = boot_config(LK_MODE_PROFILEME), next;
    struct lk_config req;
    memset(&req, 0, sizeof req);
    const char *why = NULL;
    req.mode = LK_MODE_PROFILEME;
    assert_int_equal(profiler_config_apply(&timer, &req, 1, &next, &why), LK_ACK_UNSUPPORTED);
    req.mode = LK_MODE_PAIRED;
    assert_int_equal(profiler_config_apply(&pme, &req, 1, &next, &why), LK_ACK_UNSUPPORTED);
    req.mode = LK_MODE_TIMER;
    assert_int_equal(profiler_config_apply(&pme, &req, 1, &next, &why), LK_ACK_UNSUPPORTED);
    req.mode = LK_MODE_PROFILEME;
    req.pme_min = 5000;
    req.pme_max = 4000;
    assert_int_equal(profiler_config_apply(&pme, &req, 1, &next, &why), LK_ACK_BAD_FRAME);
    req.pme_max = 6000;
    req.pair_window = 12;
    assert_int_equal(profiler_config_apply(&pme, &req, 1, &next, &why), LK_ACK_OK);
    assert_int_equal(next.pme_min, 5000);
    assert_int_equal(next.pme_max, 6000);
    assert_int_equal(next.pair_window, 12);
    req.mode = 99;
    assert_int_equal(profiler_config_apply(&timer, &req, 1, &next, &why), LK_ACK_UNSUPPORTED);
}

static void a_malformed_config_is_a_bad_frame(void **state)
{
    (void)state;
    struct fixture *x = fixture(LK_MODE_TIMER, 0);
    assert_int_equal(receive(x, LK_T_CONFIG, 1), CTL_ANSWER);        /* no payload */
    assert_int_equal(x->d.status, LK_ACK_BAD_FRAME);
    assert_string_equal(x->d.message, "CONFIG payload malformed");
}

static void the_boot_line_gives_every_event_a_period_and_cycles_by_default(void **state)
{
    (void)state;
    struct profiler_config c = boot_config(LK_MODE_COUNTERS);
    assert_int_equal(c.nevents, 1);
    assert_int_equal(c.events[0].event, PMU_EV_CYCLES);
    assert_int_equal(c.events[0].period_min, 60000);
    assert_int_equal(c.events[0].period_max, 64000);
}

static void flush_counters_are_relative_to_the_session_start(void **state)
{
    (void)state;
    struct ctl_machine m;
    ctl_init(&m);
    struct lk_flush base = {.core = 1, .nstats = 2, .ndrops = 1};
    base.stats[0] = (struct lk_counter){LK_STAT_SAMPLES_TAKEN, 100};
    base.stats[1] = (struct lk_counter){LK_STAT_SAMPLES_SENT, 90};
    base.drops[0] = (struct lk_counter){LK_DROP_LINK_FULL, 10};
    ctl_set_base(&m, &base);
    struct lk_flush f = base;
    f.stats[0].value = 150;
    f.stats[1].value = 40;                      /* below its base: restarted from 0 */
    f.drops[0].value = 10;
    ctl_rebase(&m, &f);
    assert_int_equal(f.stats[0].value, 50);
    assert_int_equal(f.stats[1].value, 40);
    assert_int_equal(f.drops[0].value, 0);
    struct lk_flush other = {.core = 0, .nstats = 1};
    other.stats[0] = (struct lk_counter){LK_STAT_SAMPLES_TAKEN, 7};
    ctl_rebase(&m, &other);                     /* core 0 has no base: as it is */
    assert_int_equal(other.stats[0].value, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_while_stopped_replies_at_once_with_a_new_session),
        cmocka_unit_test(start_while_sampling_flushes_the_old_session_first),
        cmocka_unit_test(stop_while_not_sampling_is_acknowledged_at_once),
        cmocka_unit_test(stop_while_sampling_stops_then_flushes_then_sends_flush_frames),
        cmocka_unit_test(new_epoch_flushes_then_sends_the_epoch_before_the_ack),
        cmocka_unit_test(a_malformed_new_epoch_is_a_bad_frame_and_starts_nothing),
        cmocka_unit_test(a_frame_that_is_no_control_frame_is_a_bad_frame),
        cmocka_unit_test(any_frame_during_a_flush_is_answered_busy_and_changes_nothing),
        cmocka_unit_test(a_flush_gives_up_at_its_deadline_never_before),
        cmocka_unit_test(the_end_of_the_run_answers_the_frame_in_progress),
        cmocka_unit_test(config_while_sampling_is_refused_busy),
        cmocka_unit_test(config_counters_with_default_periods_installs_a_complete_configuration),
        cmocka_unit_test(config_checks_every_event_before_changing_anything),
        cmocka_unit_test(config_counters_without_the_model_is_unsupported),
        cmocka_unit_test(config_timer_takes_one_timer_event_with_a_legal_period),
        cmocka_unit_test(profileme_modes_are_chosen_at_boot),
        cmocka_unit_test(a_malformed_config_is_a_bad_frame),
        cmocka_unit_test(the_boot_line_gives_every_event_a_period_and_cycles_by_default),
        cmocka_unit_test(flush_counters_are_relative_to_the_session_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
