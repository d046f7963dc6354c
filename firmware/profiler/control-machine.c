/*
 * The control frames' state machine (see control-machine.h for the frames,
 * states and invariants).  Pure: no hardware, no globals.
 */
#include "firmware/profiler/control-machine.h"

#include <string.h>

void ctl_init(struct ctl_machine *m)
{
    memset(m, 0, sizeof *m);
    m->state = CTL_IDLE;
}

static void answer(struct ctl_decision *d, uint32_t status, const char *message)
{
    d->action = CTL_ANSWER;
    d->status = status;
    d->message = message;
}

static void take(struct ctl_machine *m, const struct lk_frame *f)
{
    m->op = f->type;
    m->op_seq = f->seq;
}

static void begin_flush(struct ctl_machine *m, const struct lk_frame *f, const struct ctl_view *v,
                        struct ctl_decision *d, enum ctl_action action)
{
    take(m, f);
    m->deadline = v->now_ns + CTL_FLUSH_TIMEOUT_NS;
    m->state = CTL_FLUSHING;
    d->action = action;
}

/* CONFIG: checked whole before anything changes. */
static void configure(const struct lk_frame *f, const struct ctl_view *v, struct ctl_decision *d)
{
    struct lk_config c;
    if (lk_parse_config(f, &c) != LK_OK) {
        answer(d, LK_ACK_BAD_FRAME, "CONFIG payload malformed");
        return;
    }
    if (v->sampling) {
        answer(d, LK_ACK_BUSY, "CONFIG while sampling: send STOP first");
        return;
    }
    const char *why;
    uint32_t status = profiler_config_apply(v->config, &c, v->has_model, &d->config, &why);
    answer(d, status, why);
    if (status == LK_ACK_OK)
        d->action = CTL_CONFIGURE;
}

void ctl_on_frame(struct ctl_machine *m, const struct lk_frame *f, const struct ctl_view *v,
                  struct ctl_decision *d)
{
    m->frames++;
    if (m->state != CTL_IDLE) {
        answer(d, LK_ACK_BUSY, "busy with the last control frame");
        return;
    }
    switch (f->type) {
    case LK_T_START:
        if (v->sampling) {
            begin_flush(m, f, v, d, CTL_FLUSH);     /* the old session's data goes first */
        } else {
            take(m, f);
            m->state = CTL_REPLYING;
            d->action = CTL_REPLY_LATER;
        }
        break;
    case LK_T_STOP:
        if (!v->sampling)
            answer(d, LK_ACK_OK, "not sampling");
        else
            begin_flush(m, f, v, d, CTL_STOP_AND_FLUSH);
        break;
    case LK_T_FLUSH_NOW:
        begin_flush(m, f, v, d, CTL_FLUSH);
        break;
    case LK_T_NEW_EPOCH:
        if (lk_parse_new_epoch(f, &m->epoch) != LK_OK)
            answer(d, LK_ACK_BAD_FRAME, "NEW_EPOCH payload malformed");
        else
            begin_flush(m, f, v, d, CTL_FLUSH);
        break;
    case LK_T_CONFIG:
        configure(f, v, d);
        break;
    default:
        answer(d, LK_ACK_BAD_FRAME, "not a control frame");
        break;
    }
}

enum ctl_flush_step ctl_flush_step(struct ctl_machine *m, int pending, uint64_t now_ns)
{
    if (m->state != CTL_FLUSHING)
        return CTL_FLUSHED;
    if (!pending) {
        m->state = CTL_REPLYING;
        return CTL_FLUSHED;
    }
    if (now_ns > m->deadline) {
        m->state = CTL_REPLYING;
        return CTL_GIVE_UP;
    }
    return CTL_KEEP_FLUSHING;
}

int ctl_take_reply(struct ctl_machine *m, int link_ready, struct ctl_reply *r)
{
    if (m->state != CTL_REPLYING || !link_ready)
        return 0;
    *r = (struct ctl_reply){.type = m->op, .seq = m->op_seq};
    switch (m->op) {
    case LK_T_START:
        r->start_session = 1;
        r->message = "started";
        break;
    case LK_T_STOP:
        r->send_flushes = 1;
        r->message = "stopped";
        break;
    case LK_T_NEW_EPOCH:
        r->send_flushes = 1;
        r->send_epoch = 1;
        r->epoch = m->epoch;
        r->message = "new epoch";
        break;
    default:
        r->send_flushes = 1;
        r->message = "flushed";
        break;
    }
    m->state = CTL_IDLE;
    return 1;
}

int ctl_finish(struct ctl_machine *m, struct ctl_reply *r)
{
    if (m->state == CTL_IDLE)
        return 0;
    *r = (struct ctl_reply){.type = m->op, .seq = m->op_seq, .message = "the workload ended"};
    if (m->op == LK_T_NEW_EPOCH) {
        r->send_epoch = 1;
        r->epoch = m->epoch;
    }
    m->state = CTL_IDLE;
    return 1;
}

void ctl_set_base(struct ctl_machine *m, const struct lk_flush *values)
{
    if (values->core >= MAX_CORES)
        return;
    memset(m->base_stats[values->core], 0, sizeof m->base_stats[0]);
    memset(m->base_drops[values->core], 0, sizeof m->base_drops[0]);
    for (uint32_t i = 0; i < values->nstats; i++)
        if (values->stats[i].id < CTL_ID_MAX)
            m->base_stats[values->core][values->stats[i].id] = values->stats[i].value;
    for (uint32_t i = 0; i < values->ndrops; i++)
        if (values->drops[i].id < CTL_ID_MAX)
            m->base_drops[values->core][values->drops[i].id] = values->drops[i].value;
}

void ctl_rebase(const struct ctl_machine *m, struct lk_flush *f)
{
    if (f->core >= MAX_CORES)
        return;
    for (uint32_t i = 0; i < f->nstats; i++) {
        struct lk_counter *k = &f->stats[i];
        if (k->id < CTL_ID_MAX && k->value >= m->base_stats[f->core][k->id])
            k->value -= m->base_stats[f->core][k->id];     /* else: restarted from 0 */
    }
    for (uint32_t i = 0; i < f->ndrops; i++) {
        struct lk_counter *k = &f->drops[i];
        if (k->id < CTL_ID_MAX && k->value >= m->base_drops[f->core][k->id])
            k->value -= m->base_drops[f->core][k->id];
    }
}
