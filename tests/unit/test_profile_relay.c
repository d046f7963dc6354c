/* run --profile-socket's stop means save (util/profile-relay.c): saved
 * only once the daemon's LINK_ACK of the board's session says it stored
 * past the board's answer to run's own STOP; nothing to wait for without
 * a daemon or a session; a BUSY answer is asked again with a new seq. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util/profile-relay.h"

/* One frame on the wire into buf; its length. */
static size_t wire_of(struct lk_writer *w, uint16_t seq, uint8_t *buf)
{
    size_t n = lk_finish(w, seq, buf, LK_MAX_WIRE);
    assert_true(n > 0);
    return n;
}

static void board_hello(struct profile_relay *r, uint64_t nonce)
{
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    struct lk_writer w;
    struct lk_hello h = {.ncores = 1, .nonce = nonce};
    assert_int_equal(lk_enc_hello(&w, raw, sizeof raw, &h), LK_OK);
    profile_relay_from_board(r, wire, wire_of(&w, 0, wire));
}

static void board_ack(struct profile_relay *r, uint16_t at, uint16_t of_seq, uint32_t status)
{
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    struct lk_writer w;
    struct lk_ack a = {of_seq, LK_T_STOP, status, {(const uint8_t *)"x", 1}};
    assert_int_equal(lk_enc_ack(&w, raw, sizeof raw, &a), LK_OK);
    profile_relay_from_board(r, wire, wire_of(&w, at, wire));
}

static void host_ack(struct profile_relay *r, uint64_t nonce, uint16_t stored)
{
    uint8_t raw[LK_MAX_RAW], wire[LK_MAX_WIRE];
    struct lk_writer w;
    struct lk_link_ack a = {nonce, stored, stored, 0, 0};
    assert_int_equal(lk_enc_link_ack(&w, raw, sizeof raw, &a), LK_OK);
    profile_relay_from_host(r, wire, wire_of(&w, 7, wire));
}

static void test_saved_only_once_the_daemon_stored_past_the_stop(void **state)
{
    (void)state;
    struct profile_relay r;
    profile_relay_init(&r, 0xfff0);
    int null = open("/dev/null", O_WRONLY);
    assert_false(profile_relay_stop(&r, null));         /* no daemon: nothing to wait for */
    profile_relay_host(&r, true);
    assert_false(profile_relay_stop(&r, null));         /* no session yet */
    board_hello(&r, 42);
    assert_true(profile_relay_stop(&r, null));
    assert_false(profile_relay_saved(&r));
    board_ack(&r, 100, 0x1234, LK_ACK_OK);              /* not our STOP's seq */
    host_ack(&r, 42, 200);
    assert_false(profile_relay_saved(&r));
    board_ack(&r, 120, 0xfff0, LK_ACK_OK);              /* ours, at 120 */
    host_ack(&r, 42, 120);                              /* stored up to 119 */
    assert_false(profile_relay_saved(&r));
    host_ack(&r, 43, 121);                              /* another session's */
    assert_false(profile_relay_saved(&r));
    host_ack(&r, 42, 121);
    assert_true(profile_relay_saved(&r));
    close(null);
}

static void test_busy_stop_is_asked_again_with_a_new_seq(void **state)
{
    (void)state;
    struct profile_relay r;
    profile_relay_init(&r, 5);
    int null = open("/dev/null", O_WRONLY);
    profile_relay_host(&r, true);
    board_hello(&r, 9);
    assert_true(profile_relay_stop(&r, null));
    board_ack(&r, 3, 5, LK_ACK_BUSY);
    assert_false(r.stop_acked);
    usleep(150000);
    profile_relay_tick(&r);
    assert_int_equal(r.ctl.out_seq, 6);                 /* a new STOP */
    board_ack(&r, 4, 5, LK_ACK_OK);                     /* the old seq's answer: not this one */
    assert_false(r.stop_acked);
    board_ack(&r, 5, 6, LK_ACK_OK);
    assert_true(r.stop_acked);
    host_ack(&r, 9, 6);
    assert_true(profile_relay_saved(&r));
    close(null);
}

static void test_seq_wraps(void **state)
{
    (void)state;
    struct profile_relay r;
    profile_relay_init(&r, 1);
    int null = open("/dev/null", O_WRONLY);
    profile_relay_host(&r, true);
    board_hello(&r, 1);
    assert_true(profile_relay_stop(&r, null));
    board_ack(&r, 0xffff, 1, LK_ACK_OK);
    host_ack(&r, 1, 0xfff0);
    assert_false(profile_relay_saved(&r));
    host_ack(&r, 1, 0);                                 /* stored past 0xffff */
    assert_true(profile_relay_saved(&r));
    close(null);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saved_only_once_the_daemon_stored_past_the_stop),
        cmocka_unit_test(test_busy_stop_is_asked_again_with_a_new_seq),
        cmocka_unit_test(test_seq_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
