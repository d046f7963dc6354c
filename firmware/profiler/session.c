/*
 * Session frames (see session.h).  Boot core only.  The board's name in
 * HELLO and the monitor's name in the LOADMAP come from the board file
 * (board.h), so the host finds the monitor's ELF by that name.
 */
#include "firmware/profiler/session.h"

#include <string.h>
#include "board.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/loader.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pme-capture.h"
#include "firmware/profiler/sampling.h"
#include "firmware/profiler/timer-source.h"

static const struct profiler_config *config;
static unsigned ncores;
static uint8_t frame_buf[LK_MAX_RAW];

extern const char __build_id_note[] __attribute__((weak));
extern char __firmware_start[], __firmware_end[];

void session_init(const struct profiler_config *c, unsigned n)
{
    config = c;
    ncores = n;
}

static void send_hello(void)
{
    static const char board[] = BOARD_NAME, fw[] = "alphaprof monitor";
    struct lk_hello h = {
        .ncores = ncores,
        .caps = sampling_source()->caps() | pme_caps(),
        .timebase_hz = 1000000000u,
        .board = {(const uint8_t *)board, sizeof board - 1},
        .firmware = {(const uint8_t *)fw, sizeof fw - 1},
        .baud = config->baud,
        .nonce = link_tx_nonce(),
    };
    link_tx_previous(&h.prev_nonce, &h.prev_pos);
    if (sampling_source() == &timer_source) {   /* what was asked, what is kept */
        h.period_min = config->period_min;
        h.period_max = config->period_max;
        timer_sampling_range(&h.timer_min, &h.timer_max);
    }
    struct lk_writer w;
    if (lk_enc_hello(&w, frame_buf, sizeof frame_buf, &h) == LK_OK)
        link_tx_send(&w);
}

/* The GNU build-id note the linker put into the monitor, if any. */
static uint32_t monitor_build_id(uint8_t id[LK_BUILD_ID_SIZE])
{
    memset(id, 0, LK_BUILD_ID_SIZE);
    if (!__build_id_note)
        return 0;
    const uint32_t *n = (const uint32_t *)__build_id_note;
    uint32_t namesz = n[0], descsz = n[1];
    const uint8_t *desc = (const uint8_t *)(n + 3) + ((namesz + 3) & ~3u);
    uint32_t size = descsz < LK_BUILD_ID_SIZE ? descsz : LK_BUILD_ID_SIZE;
    memcpy(id, desc, size);
    return size;
}

static void send_loadmap(void)
{
    struct lk_writer w;
    static const char monitor_name[] = "monitor-" BOARD_NAME;   /* = its ELF file name */
    struct lk_loadmap_entry e = {
        .action = LK_LOADMAP_LOAD,
        .address = (uint64_t)__firmware_start,
        .size = (uint64_t)(__firmware_end - __firmware_start),
        .name = {(const uint8_t *)monitor_name, sizeof monitor_name - 1},
    };
    e.build_id_size = monitor_build_id(e.build_id);
    lk_loadmap_begin(&w, frame_buf, sizeof frame_buf);
    lk_loadmap_add(&w, &e);
    for (unsigned i = 0; i < nimages; i++) {
        const struct image_header *h = images[i].hdr;
        struct lk_loadmap_entry ie = {
            .action = LK_LOADMAP_LOAD,
            .address = h->load_base,
            .size = h->bss_end - h->load_base,
            .name = {(const uint8_t *)h->name, strlen(h->name)},
        };
        ie.build_id_size = h->build_id_size < LK_BUILD_ID_SIZE ? h->build_id_size : LK_BUILD_ID_SIZE;
        memcpy(ie.build_id, h->build_id, ie.build_id_size);
        if (lk_loadmap_add(&w, &ie) == LK_E_FULL) {
            link_tx_send(&w);
            lk_loadmap_begin(&w, frame_buf, sizeof frame_buf);
            lk_loadmap_add(&w, &ie);
        }
    }
    link_tx_send(&w);
}

void session_open(void)
{
    send_hello();
    source_send_names(sampling_source(), frame_buf, sizeof frame_buf);
    send_loadmap();
}

void session_restart(uint64_t nonce)
{
    link_tx_session_begin(nonce, 1);
    session_open();
    link_tx_session_ready();        /* then what the last host did not store */
}

void session_boot(void)
{
    /* sampling from boot: the session of the host that gave its nonce on
     * the boot line (it acknowledges: reliable from the first frame), else
     * one of the target's own, best effort until a host acknowledges it
     * (link-protocol.h 5.6) */
    if (config->link_nonce)
        link_tx_session_begin(config->link_nonce, 1);
    else
        link_tx_session_begin(((uint64_t)config->seed << 32 | 0x5eed) ^ clock_ns(), 0);
    session_open();
    link_tx_session_ready();
}

void session_end(long status, unsigned how)
{
    struct lk_end e = {.status = status, .how = how, .time = clock_ns()};
    struct lk_writer w;
    if (lk_enc_end(&w, frame_buf, sizeof frame_buf, &e) == LK_OK)
        link_tx_send(&w);
}
