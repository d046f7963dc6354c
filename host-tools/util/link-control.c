/*
 * One outstanding control frame, retried until answered (link-control.h).
 */
#include "util/link-control.h"

#include <string.h>
#include <time.h>

#include "util/serial-link.h"

double link_control_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int link_control_send(struct link_control *c, struct lk_writer *w, uint8_t type)
{
    uint8_t wire[LK_MAX_WIRE];
    uint16_t seq = c->seq++;
    size_t n = lk_finish(w, seq, wire, sizeof wire);
    if (n == 0 || !write_all(c->fd, wire, n))
        return -1;
    memcpy(c->out_wire, wire, n);
    c->out_len = n;
    c->outstanding = true;
    c->out_type = type;
    c->out_seq = seq;
    c->out_sent = c->out_first = link_control_now();
    return 0;
}

int link_control_send_simple(struct link_control *c, uint8_t type)
{
    uint8_t raw[LK_MAX_RAW];
    struct lk_writer w;
    if (lk_enc_control(&w, raw, sizeof raw, type) != LK_OK)
        return -1;
    return link_control_send(c, &w, type);
}

int link_control_retry(struct link_control *c)
{
    double now = link_control_now();
    if (!c->outstanding || now - c->out_sent < LINK_CONTROL_RETRY_S)
        return 0;
    c->out_sent = now;
    c->retries++;
    return write_all(c->fd, c->out_wire, c->out_len) ? 1 : -1;
}

bool link_control_answered(struct link_control *c, const struct lk_ack *a)
{
    if (!c->outstanding || a->seq != c->out_seq || a->type != c->out_type)
        return false;
    c->outstanding = false;
    return true;
}
