/*
 * Link protocol encoder and streaming decoder (see link-protocol.h for the
 * format, link-codec.h for the interface).  Freestanding C11: it runs in the
 * firmware's flush path and in the host's ingest loop, so it allocates
 * nothing and calls no library function (the compiler may still emit
 * memset for a struct clear, which freestanding C allows).
 */
#include "firmware/abi/link-codec.h"

/* ------------------------------------------------------------------ CRC-32 */

/* CRC-32/IEEE, reflected polynomial 0xEDB88320, a byte at a time: each
 * byte of every frame goes through here on the board, where it was the
 * monitor's hottest loop under ProfileMe at four bits a time.  The table
 * is the polynomial's remainder of each byte; test_link_codec checks the
 * result against zlib's crc32. */
static const uint32_t crc_byte[256] = {
    0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419, 0x706af48f,
    0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4, 0xe0d5e91e, 0x97d2d988,
    0x09b64c2b, 0x7eb17cbd, 0xe7b82d07, 0x90bf1d91, 0x1db71064, 0x6ab020f2,
    0xf3b97148, 0x84be41de, 0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7,
    0x136c9856, 0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
    0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4, 0xa2677172,
    0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b, 0x35b5a8fa, 0x42b2986c,
    0xdbbbc9d6, 0xacbcf940, 0x32d86ce3, 0x45df5c75, 0xdcd60dcf, 0xabd13d59,
    0x26d930ac, 0x51de003a, 0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423,
    0xcfba9599, 0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
    0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190, 0x01db7106,
    0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f, 0x9fbfe4a5, 0xe8b8d433,
    0x7807c9a2, 0x0f00f934, 0x9609a88e, 0xe10e9818, 0x7f6a0dbb, 0x086d3d2d,
    0x91646c97, 0xe6635c01, 0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e,
    0x6c0695ed, 0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
    0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3, 0xfbd44c65,
    0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2, 0x4adfa541, 0x3dd895d7,
    0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a, 0x346ed9fc, 0xad678846, 0xda60b8d0,
    0x44042d73, 0x33031de5, 0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa,
    0xbe0b1010, 0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
    0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17, 0x2eb40d81,
    0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6, 0x03b6e20c, 0x74b1d29a,
    0xead54739, 0x9dd277af, 0x04db2615, 0x73dc1683, 0xe3630b12, 0x94643b84,
    0x0d6d6a3e, 0x7a6a5aa8, 0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1,
    0xf00f9344, 0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
    0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a, 0x67dd4acc,
    0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5, 0xd6d6a3e8, 0xa1d1937e,
    0x38d8c2c4, 0x4fdff252, 0xd1bb67f1, 0xa6bc5767, 0x3fb506dd, 0x48b2364b,
    0xd80d2bda, 0xaf0a1b4c, 0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55,
    0x316e8eef, 0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
    0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe, 0xb2bd0b28,
    0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31, 0x2cd99e8b, 0x5bdeae1d,
    0x9b64c2b0, 0xec63f226, 0x756aa39c, 0x026d930a, 0x9c0906a9, 0xeb0e363f,
    0x72076785, 0x05005713, 0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38,
    0x92d28e9b, 0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
    0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1, 0x18b74777,
    0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c, 0x8f659eff, 0xf862ae69,
    0x616bffd3, 0x166ccf45, 0xa00ae278, 0xd70dd2ee, 0x4e048354, 0x3903b3c2,
    0xa7672661, 0xd06016f7, 0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc,
    0x40df0b66, 0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
    0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605, 0xcdd70693,
    0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8, 0x5d681b02, 0x2a6f2b94,
    0xb40bbe37, 0xc30c8ea1, 0x5a05df1b, 0x2d02ef8d,
};

uint32_t lk_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = (crc >> 8) ^ crc_byte[(crc ^ p[i]) & 0xff];
    return ~crc;
}

/* -------------------------------------------------------------------- COBS */

size_t lk_cobs_encode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    if (cap < LK_COBS_MAX(n))
        return 0;
    size_t code_at = 0, o = 1;
    uint8_t code = 1;                   /* 1 + data bytes in the open block */
    for (size_t i = 0; i < n; i++) {
        if (src[i] == 0) {
            dst[code_at] = code;
            code_at = o++;
            code = 1;
            continue;
        }
        dst[o++] = src[i];
        if (++code == 0xff) {           /* a full block has no implied zero */
            dst[code_at] = code;
            code_at = o++;
            code = 1;
        }
    }
    dst[code_at] = code;
    return o;
}

/* ------------------------------------------------------- integer encodings */

static uint64_t zigzag(uint64_t x)
{
    return (x << 1) ^ (0 - (x >> 63));
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* Arithmetic shift right by 2 of a two's-complement value, in unsigned
 * arithmetic (a signed >> of a negative number is implementation-defined). */
static uint64_t asr2(uint64_t x)
{
    return (x >> 2) | ((0 - (x >> 63)) << 62);
}

static int64_t to_signed(uint64_t u)
{
    return (u >> 63) ? -(int64_t)(~u) - 1 : (int64_t)u;
}

/* ------------------------------------------------------------------ writer */

/* Room for payload: the CRC is reserved, the payload capped. */
static size_t writer_limit(const struct lk_writer *w)
{
    size_t lim = w->cap >= LK_CRC_SIZE ? w->cap - LK_CRC_SIZE : 0;
    if (lim > LK_HDR_SIZE + LK_MAX_PAYLOAD)
        lim = LK_HDR_SIZE + LK_MAX_PAYLOAD;
    return lim;
}

void lk_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint8_t type)
{
    w->buf = buf;
    w->cap = cap;
    w->lim = writer_limit(w);
    w->len = LK_HDR_SIZE;
    w->overflow = buf == NULL || cap < LK_HDR_SIZE + LK_CRC_SIZE;
    w->type = type;
    w->nbits = 0;
    w->nlat = 0;
    w->count_at = 0;
    w->count = 0;
    w->prev_pc = 0;
}

static bool room(struct lk_writer *w, size_t n)
{
    size_t lim = w->lim;
    if (w->overflow || w->len > lim || lim - w->len < n) {
        w->overflow = true;
        return false;
    }
    return true;
}

void lk_put_u8(struct lk_writer *w, uint8_t v)
{
    if (room(w, 1))
        w->buf[w->len++] = v;
}

void lk_put_u16(struct lk_writer *w, uint16_t v)
{
    if (room(w, 2)) {
        w->buf[w->len++] = (uint8_t)v;
        w->buf[w->len++] = (uint8_t)(v >> 8);
    }
}

/* Each field of every record goes through here on the board: with room
 * for the longest encoding it is written straight in, no call. */
static inline void put_uvarint(struct lk_writer *w, uint64_t v)
{
    if (!w->overflow && w->len <= w->lim && w->lim - w->len >= LK_VARINT_MAX) {
        uint8_t *p = w->buf + w->len;
        for (; v >= 0x80; v >>= 7)
            *p++ = (uint8_t)(v | 0x80);
        *p++ = (uint8_t)v;
        w->len = (size_t)(p - w->buf);
        return;
    }
    uint8_t tmp[LK_VARINT_MAX];
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        tmp[n++] = v ? (uint8_t)(b | 0x80) : b;
    } while (v);
    lk_put_bytes(w, tmp, n);
}

void lk_put_uvarint(struct lk_writer *w, uint64_t v)
{
    put_uvarint(w, v);
}

void lk_put_svarint(struct lk_writer *w, int64_t v)
{
    put_uvarint(w, zigzag((uint64_t)v));
}

void lk_put_pc(struct lk_writer *w, uint64_t pc)
{
    uint64_t d = pc - w->prev_pc;
    uint8_t low = d & 3;
    put_uvarint(w, zigzag(asr2(d)) << 1 | (low != 0));
    if (low)
        lk_put_u8(w, low);
    w->prev_pc = pc;
}

void lk_put_bytes(struct lk_writer *w, const void *p, size_t n)
{
    if (!room(w, n))
        return;
    const uint8_t *s = p;
    for (size_t i = 0; i < n; i++)
        w->buf[w->len + i] = s[i];
    w->len += n;
}

void lk_put_str(struct lk_writer *w, struct lk_bytes s)
{
    if (s.n > LK_MAX_NAME) {
        w->overflow = true;
        return;
    }
    put_uvarint(w, s.n);
    lk_put_bytes(w, s.p, s.n);
}

size_t lk_payload_len(const struct lk_writer *w)
{
    return w->len - LK_HDR_SIZE;
}

uint16_t lk_count(const struct lk_writer *w)
{
    return w->count;
}

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

size_t lk_frame_raw(struct lk_writer *w)
{
    if (w->overflow || w->len > writer_limit(w))
        return 0;
    size_t plen = w->len - LK_HDR_SIZE;
    w->buf[0] = w->type;
    w->buf[1] = LK_PROTO_VERSION;
    put_le16(w->buf + 2, 0);
    put_le16(w->buf + 4, (uint16_t)plen);
    return w->len;
}

size_t lk_seal(uint8_t *raw, size_t len, uint16_t seq, uint8_t *out, size_t out_cap)
{
    if (len < LK_HDR_SIZE || len > LK_HDR_SIZE + LK_MAX_PAYLOAD || out == NULL || out_cap < 2)
        return 0;
    put_le16(raw + 2, seq);
    uint32_t crc = lk_crc32(0, raw, len);
    for (unsigned i = 0; i < 4; i++)
        raw[len + i] = (uint8_t)(crc >> (8 * i));
    size_t n = lk_cobs_encode(raw, len + LK_CRC_SIZE, out + 1, out_cap - 2);
    if (n == 0)
        return 0;
    out[0] = LK_DELIM;
    out[n + 1] = LK_DELIM;
    return n + 2;
}

size_t lk_finish(struct lk_writer *w, uint16_t seq, uint8_t *out, size_t out_cap)
{
    size_t len = lk_frame_raw(w);
    if (len == 0 || out == NULL)
        return 0;
    return lk_seal(w->buf, len, seq, out, out_cap);
}

int lk_frame_of_raw(const uint8_t *raw, size_t len, struct lk_frame *f)
{
    if (len < LK_HDR_SIZE)
        return LK_E_MALFORMED;
    size_t plen = (size_t)raw[4] | (size_t)raw[5] << 8;
    if (plen != len - LK_HDR_SIZE)
        return LK_E_MALFORMED;
    f->type = raw[0];
    f->seq = (uint16_t)(raw[2] | raw[3] << 8);
    f->payload = raw + LK_HDR_SIZE;
    f->len = plen;
    return LK_OK;
}

/* List entries: an entry that does not fit is taken back whole. */
struct mark {
    size_t len;
    uint64_t prev_pc;
};

static struct mark mark(const struct lk_writer *w)
{
    struct mark m = {w->len, w->prev_pc};
    return m;
}

/* A list frame whose header did not fit takes no entries. */
static bool list_open(const struct lk_writer *w)
{
    return !w->overflow && w->count_at != 0 && w->count < 0xffff;
}

static int commit_entry(struct lk_writer *w, struct mark m)
{
    if (w->overflow) {
        w->len = m.len;
        w->prev_pc = m.prev_pc;
        w->overflow = false;
        return LK_E_FULL;
    }
    w->count++;
    put_le16(w->buf + w->count_at, w->count);
    return LK_OK;
}

/* Reserves the n16 count of a list frame. */
static void open_list(struct lk_writer *w)
{
    if (room(w, 2)) {
        w->count_at = w->len;
        lk_put_u16(w, 0);
    }
}

static int begun(struct lk_writer *w)
{
    return w->overflow ? LK_E_FULL : LK_OK;
}

/* ------------------------------------------------------- typed encoders */

int lk_enc_hello(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_hello *h)
{
    if (h->board.n > LK_MAX_NAME || h->firmware.n > LK_MAX_NAME)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_HELLO);
    put_uvarint(w, LK_PROTO_VERSION);    /* h->proto is for the parser's side */
    put_uvarint(w, h->ncores);
    put_uvarint(w, h->caps);
    put_uvarint(w, h->timebase_hz);
    lk_put_str(w, h->board);
    lk_put_str(w, h->firmware);
    put_uvarint(w, h->baud);
    put_uvarint(w, h->nonce);
    put_uvarint(w, h->prev_nonce);
    put_uvarint(w, h->prev_pos);
    put_uvarint(w, h->period_min);
    put_uvarint(w, h->period_max);
    put_uvarint(w, h->timer_min);
    put_uvarint(w, h->timer_max);
    return begun(w);
}

static void put_counters(struct lk_writer *w, uint32_t n, const struct lk_counter *c)
{
    put_uvarint(w, n);
    for (uint32_t i = 0; i < n; i++) {
        put_uvarint(w, c[i].id);
        put_uvarint(w, c[i].value);
    }
}

int lk_enc_flush(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_flush *f)
{
    if (f->nstats > LK_MAX_COUNTERS || f->ndrops > LK_MAX_COUNTERS)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_FLUSH);
    put_uvarint(w, f->core);
    put_uvarint(w, f->flush_no);
    put_uvarint(w, f->time);
    put_counters(w, f->nstats, f->stats);
    put_counters(w, f->ndrops, f->drops);
    put_uvarint(w, f->base);
    return begun(w);
}

int lk_enc_epoch(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_epoch *e)
{
    lk_begin(w, buf, cap, LK_T_EPOCH);
    put_uvarint(w, e->epoch);
    put_uvarint(w, e->time);
    return begun(w);
}

int lk_enc_end(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_end *e)
{
    lk_begin(w, buf, cap, LK_T_END);
    lk_put_svarint(w, e->status);
    put_uvarint(w, e->how);
    put_uvarint(w, e->time);
    return begun(w);
}

int lk_enc_ack(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_ack *a)
{
    if (a->message.n > LK_MAX_NAME)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_ACK);
    put_uvarint(w, a->seq);
    put_uvarint(w, a->type);
    put_uvarint(w, a->status);
    lk_put_str(w, a->message);
    return begun(w);
}

int lk_enc_config(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_config *c)
{
    if (c->nevents > LK_MAX_EVENTS)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_CONFIG);
    put_uvarint(w, c->mode);
    put_uvarint(w, c->flush_ms);
    put_uvarint(w, c->pme_min);
    put_uvarint(w, c->pme_max);
    put_uvarint(w, c->pair_window);
    put_uvarint(w, c->nevents);
    for (uint32_t i = 0; i < c->nevents; i++) {
        put_uvarint(w, c->events[i].event);
        put_uvarint(w, c->events[i].period_min);
        put_uvarint(w, c->events[i].period_max);
    }
    return begun(w);
}

int lk_enc_new_epoch(struct lk_writer *w, uint8_t *buf, size_t cap, uint64_t epoch)
{
    lk_begin(w, buf, cap, LK_T_NEW_EPOCH);
    put_uvarint(w, epoch);
    return begun(w);
}

int lk_enc_start(struct lk_writer *w, uint8_t *buf, size_t cap, uint64_t nonce)
{
    lk_begin(w, buf, cap, LK_T_START);
    put_uvarint(w, nonce);
    return begun(w);
}

int lk_enc_link_ack(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_link_ack *a)
{
    lk_begin(w, buf, cap, LK_T_LINK_ACK);
    put_uvarint(w, a->nonce);
    put_uvarint(w, a->stored);
    put_uvarint(w, a->expected);
    put_uvarint(w, a->flags);
    put_uvarint(w, a->sack);
    return begun(w);
}

int lk_enc_part(struct lk_writer *w, uint8_t *buf, size_t cap, const uint8_t *raw, uint32_t total,
                uint32_t offset, uint32_t n)
{
    if (total < LK_HDR_SIZE || total > LK_HDR_SIZE + LK_MAX_PAYLOAD || offset >= total ||
        n == 0 || n > total - offset)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_PART);
    put_uvarint(w, total);
    put_uvarint(w, offset);
    lk_put_bytes(w, raw + offset, n);
    return begun(w);
}

int lk_enc_control(struct lk_writer *w, uint8_t *buf, size_t cap, uint8_t type)
{
    if (type != LK_T_START && type != LK_T_STOP && type != LK_T_FLUSH_NOW)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, type);
    return begun(w);
}

int lk_enc_console(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t stream,
                   uint32_t core, const void *text, size_t n, size_t *used)
{
    *used = 0;
    lk_begin(w, buf, cap, LK_T_CONSOLE);
    put_uvarint(w, stream);
    put_uvarint(w, core);
    if (w->overflow)
        return LK_E_FULL;
    size_t space = writer_limit(w) - w->len;
    size_t take = n < space ? n : space;
    if (take == 0 && n > 0)
        return LK_E_FULL;
    lk_put_bytes(w, text, take);
    *used = take;
    return begun(w);
}

int lk_names_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t kind, uint32_t first)
{
    lk_begin(w, buf, cap, LK_T_NAMES);
    put_uvarint(w, kind);
    put_uvarint(w, first);
    open_list(w);
    return begun(w);
}

int lk_names_add(struct lk_writer *w, struct lk_bytes name)
{
    if (!list_open(w))
        return LK_E_FULL;
    if (name.n > LK_MAX_NAME)
        return LK_E_RANGE;
    struct mark m = mark(w);
    lk_put_str(w, name);
    return commit_entry(w, m);
}

int lk_loadmap_begin(struct lk_writer *w, uint8_t *buf, size_t cap)
{
    lk_begin(w, buf, cap, LK_T_LOADMAP);
    open_list(w);
    return begun(w);
}

int lk_loadmap_add(struct lk_writer *w, const struct lk_loadmap_entry *e)
{
    if (!list_open(w))
        return LK_E_FULL;
    if (e->name.n > LK_MAX_NAME || e->build_id_size > LK_BUILD_ID_SIZE)
        return LK_E_RANGE;
    struct mark m = mark(w);
    put_uvarint(w, e->action);
    put_uvarint(w, e->address);
    put_uvarint(w, e->size);
    put_uvarint(w, e->build_id_size);
    lk_put_bytes(w, e->build_id, e->build_id_size);
    lk_put_str(w, e->name);
    return commit_entry(w, m);
}

int lk_samples_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core,
                     uint32_t event, uint64_t period)
{
    lk_begin(w, buf, cap, LK_T_SAMPLES);
    put_uvarint(w, core);
    put_uvarint(w, event);
    put_uvarint(w, period);
    open_list(w);
    return begun(w);
}

int lk_samples_add(struct lk_writer *w, uint64_t pc, uint64_t samples)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    lk_put_pc(w, pc);
    put_uvarint(w, samples);
    return commit_entry(w, m);
}

int lk_pme_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core,
                 uint32_t nbits, uint32_t nlat)
{
    if (nbits > LK_MAX_BITS || nlat > LK_MAX_LAT)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_PME_AGG);
    w->nbits = (uint8_t)nbits;
    w->nlat = (uint8_t)nlat;
    put_uvarint(w, core);
    put_uvarint(w, nbits);
    put_uvarint(w, nlat);
    open_list(w);
    return begun(w);
}

int lk_pme_add(struct lk_writer *w, const struct lk_pme_agg *a)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    lk_put_pc(w, a->pc);
    put_uvarint(w, a->samples);
    put_uvarint(w, a->retired);
    put_uvarint(w, a->aborted);
    uint64_t mask = 0;
    for (unsigned i = 0; i < w->nbits; i++)
        if (a->bits[i])
            mask |= (uint64_t)1 << i;
    put_uvarint(w, mask);
    for (unsigned i = 0; i < w->nbits; i++)
        if (a->bits[i])
            put_uvarint(w, a->bits[i]);
    for (unsigned i = 0; i < w->nlat; i++)
        put_uvarint(w, a->lat[i]);
    return commit_entry(w, m);
}

int lk_pairs_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core, uint32_t nlat,
                   uint64_t offered, uint64_t kept)
{
    if (nlat > LK_MAX_LAT || kept > offered)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_PAIRS);
    w->nlat = (uint8_t)nlat;
    put_uvarint(w, core);
    put_uvarint(w, nlat);
    put_uvarint(w, offered);
    put_uvarint(w, kept);
    open_list(w);
    return begun(w);
}

int lk_pairs_add(struct lk_writer *w, const struct lk_pair *p)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    put_uvarint(w, p->distance);
    put_uvarint(w, p->gap);
    for (int k = 0; k < 2; k++) {
        const struct lk_pme_record *r = &p->rec[k];
        lk_put_pc(w, r->pc);
        put_uvarint(w, r->events);
        put_uvarint(w, r->addr);
        put_uvarint(w, r->history);
        for (unsigned i = 0; i < w->nlat; i++)
            put_uvarint(w, r->lat[i]);
    }
    return commit_entry(w, m);
}

/* ----------------------------------------------------------------- decoder */

static void chunk_reset(struct lk_decoder *d)
{
    d->len = 0;
    d->chunk_bytes = 0;
    d->code = 0;
    d->left = 0;
    d->skipping = false;
}

void lk_dec_init(struct lk_decoder *d)
{
    chunk_reset(d);
    d->have_seq = false;
    d->next_seq = 0;
    struct lk_dec_stats zero = {0};
    d->st = zero;
}

static void bad_chunk(struct lk_decoder *d, uint64_t *reason)
{
    (*reason)++;
    d->st.frames_bad++;
    d->st.bytes_bad += d->chunk_bytes;
    chunk_reset(d);
}

static void append(struct lk_decoder *d, uint8_t b)
{
    if (d->len >= LK_MAX_RAW) {
        d->skipping = true;             /* too long: wait for the next delimiter */
        return;
    }
    d->buf[d->len++] = b;
}

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void track_seq(struct lk_decoder *d, uint8_t type, uint16_t seq)
{
    if (type == LK_T_HELLO) {
        d->st.sessions++;
    } else if (d->have_seq) {
        uint16_t gap = (uint16_t)(seq - d->next_seq);
        if (gap != 0 && gap < 0x8000)
            d->st.seq_lost += gap;
        else if (gap != 0)
            d->st.seq_restarts++;
    }
    d->have_seq = true;
    d->next_seq = (uint16_t)(seq + 1);
}

/* A delimiter closed a non-empty chunk: is it a frame? */
static int end_chunk(struct lk_decoder *d, struct lk_frame *f)
{
    if (d->skipping) {
        bad_chunk(d, &d->st.too_long);
        return 0;
    }
    if (d->left != 0) {
        bad_chunk(d, &d->st.bad_cobs);
        return 0;
    }
    if (d->len < LK_HDR_SIZE + LK_CRC_SIZE) {
        bad_chunk(d, &d->st.too_short);
        return 0;
    }
    size_t body = d->len - LK_CRC_SIZE;
    const uint8_t *c = d->buf + body;
    uint32_t want = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
                    (uint32_t)c[3] << 24;
    if (lk_crc32(0, d->buf, body) != want) {
        bad_chunk(d, &d->st.bad_crc);
        return 0;
    }
    if (d->buf[1] != LK_PROTO_VERSION) {
        bad_chunk(d, &d->st.bad_version);
        return 0;
    }
    uint16_t plen = get_le16(d->buf + 4);
    if (plen != body - LK_HDR_SIZE || plen > LK_MAX_PAYLOAD) {
        bad_chunk(d, &d->st.bad_length);
        return 0;
    }
    f->type = d->buf[0];
    f->seq = get_le16(d->buf + 2);
    f->payload = d->buf + LK_HDR_SIZE;
    f->len = plen;
    d->st.frames_ok++;
    d->st.bytes_ok += d->chunk_bytes;
    track_seq(d, f->type, f->seq);
    /* the payload stays in buf until the next byte arrives */
    d->len = 0;
    d->chunk_bytes = 0;
    d->code = 0;
    d->left = 0;
    return 1;
}

int lk_dec_push(struct lk_decoder *d, const uint8_t *in, size_t n, size_t *used,
                struct lk_frame *f)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b = in[i];
        if (b == LK_DELIM) {
            if (d->chunk_bytes == 0)
                continue;               /* idle between frames */
            if (end_chunk(d, f)) {
                *used = i + 1;
                return 1;
            }
            continue;
        }
        d->chunk_bytes++;
        if (d->skipping)
            continue;
        if (d->left == 0) {
            /* a code byte; the previous block (unless full) ended in a zero */
            if (d->code != 0 && d->code != 0xff)
                append(d, 0);
            d->code = b;
            d->left = (uint8_t)(b - 1);
        } else {
            append(d, b);
            d->left--;
        }
    }
    *used = n;
    return 0;
}

void lk_dec_end(struct lk_decoder *d)
{
    if (d->chunk_bytes > 0)
        bad_chunk(d, &d->st.truncated);
}

/* ------------------------------------------------------- payload readers */

void lk_reader_init(struct lk_reader *r, const struct lk_frame *f)
{
    r->p = f->payload;
    r->end = f->payload + f->len;
    r->prev_pc = 0;
    r->left = 0;
    r->nbits = 0;
    r->nlat = 0;
}

int lk_get_u8(struct lk_reader *r, uint8_t *v)
{
    if (r->p >= r->end)
        return LK_E_MALFORMED;
    *v = *r->p++;
    return LK_OK;
}

int lk_get_u16(struct lk_reader *r, uint16_t *v)
{
    if (r->end - r->p < 2)
        return LK_E_MALFORMED;
    *v = get_le16(r->p);
    r->p += 2;
    return LK_OK;
}

int lk_get_uvarint(struct lk_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < LK_VARINT_MAX; i++) {
        if (r->p >= r->end)
            return LK_E_MALFORMED;
        uint8_t b = *r->p++;
        if (i == LK_VARINT_MAX - 1 && b > 1)
            return LK_E_MALFORMED;      /* more than 64 bits */
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return LK_OK;
        }
    }
    return LK_E_MALFORMED;
}

int lk_get_svarint(struct lk_reader *r, int64_t *v)
{
    uint64_t u;
    int rc = lk_get_uvarint(r, &u);
    if (rc == LK_OK)
        *v = to_signed(unzigzag(u));
    return rc;
}

static int get_u32(struct lk_reader *r, uint32_t *v)
{
    uint64_t x;
    int rc = lk_get_uvarint(r, &x);
    if (rc != LK_OK)
        return rc;
    if (x > 0xffffffffu)
        return LK_E_MALFORMED;
    *v = (uint32_t)x;
    return LK_OK;
}

int lk_get_pc(struct lk_reader *r, uint64_t *pc)
{
    uint64_t v;
    int rc = lk_get_uvarint(r, &v);
    if (rc != LK_OK)
        return rc;
    uint64_t d = unzigzag(v >> 1) << 2;
    if (v & 1) {
        uint8_t low;
        if (lk_get_u8(r, &low) != LK_OK || low == 0 || low > 3)
            return LK_E_MALFORMED;
        d |= low;
    }
    r->prev_pc += d;
    *pc = r->prev_pc;
    return LK_OK;
}

int lk_get_str(struct lk_reader *r, struct lk_bytes *s)
{
    uint64_t n;
    int rc = lk_get_uvarint(r, &n);
    if (rc != LK_OK)
        return rc;
    if (n > LK_MAX_NAME || n > (uint64_t)(r->end - r->p))
        return LK_E_MALFORMED;
    s->p = r->p;
    s->n = (size_t)n;
    r->p += n;
    return LK_OK;
}

/* Chains reads: the first failure sticks. */
#define GET(call)                   \
    do {                            \
        int rc_ = (call);           \
        if (rc_ != LK_OK)           \
            return rc_;             \
    } while (0)

static int open_frame(const struct lk_frame *f, uint8_t type, struct lk_reader *r)
{
    if (f->type != type)
        return LK_E_TYPE;
    lk_reader_init(r, f);
    return LK_OK;
}

int lk_parse_hello(const struct lk_frame *f, struct lk_hello *h)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_HELLO, &r));
    GET(get_u32(&r, &h->proto));
    GET(get_u32(&r, &h->ncores));
    GET(get_u32(&r, &h->caps));
    GET(lk_get_uvarint(&r, &h->timebase_hz));
    GET(lk_get_str(&r, &h->board));
    GET(lk_get_str(&r, &h->firmware));
    h->baud = 0;
    h->nonce = 0;
    if (r.p < r.end)                        /* appended field: older senders lack it */
        GET(lk_get_uvarint(&r, &h->baud));
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->nonce));
    h->prev_nonce = h->prev_pos = 0;
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->prev_nonce));
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->prev_pos));
    h->period_min = h->period_max = h->timer_min = h->timer_max = 0;
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->period_min));
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->period_max));
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->timer_min));
    if (r.p < r.end)
        GET(lk_get_uvarint(&r, &h->timer_max));
    return LK_OK;
}

static int get_counters(struct lk_reader *r, uint32_t *n, struct lk_counter *c)
{
    GET(get_u32(r, n));
    if (*n > LK_MAX_COUNTERS)
        return LK_E_RANGE;
    for (uint32_t i = 0; i < *n; i++) {
        GET(get_u32(r, &c[i].id));
        GET(lk_get_uvarint(r, &c[i].value));
    }
    return LK_OK;
}

int lk_parse_flush(const struct lk_frame *f, struct lk_flush *out)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_FLUSH, &r));
    GET(get_u32(&r, &out->core));
    GET(lk_get_uvarint(&r, &out->flush_no));
    GET(lk_get_uvarint(&r, &out->time));
    GET(get_counters(&r, &out->nstats, out->stats));
    GET(get_counters(&r, &out->ndrops, out->drops));
    out->base = 0;
    if (r.p < r.end)                        /* appended field */
        GET(get_u32(&r, &out->base));
    return LK_OK;
}

int lk_parse_start(const struct lk_frame *f, uint64_t *nonce)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_START, &r));
    *nonce = 0;
    if (r.p < r.end)                        /* a START without payload: nonce 0 */
        GET(lk_get_uvarint(&r, nonce));
    return LK_OK;
}

int lk_parse_link_ack(const struct lk_frame *f, struct lk_link_ack *a)
{
    struct lk_reader r;
    uint64_t stored, expected;
    GET(open_frame(f, LK_T_LINK_ACK, &r));
    GET(lk_get_uvarint(&r, &a->nonce));
    GET(lk_get_uvarint(&r, &stored));
    GET(lk_get_uvarint(&r, &expected));
    GET(get_u32(&r, &a->flags));
    a->sack = 0;
    if (r.p < r.end)                        /* absent from older senders: none held */
        GET(get_u32(&r, &a->sack));
    if (stored > 0xffff || expected > 0xffff)
        return LK_E_RANGE;
    a->stored = (uint16_t)stored;
    a->expected = (uint16_t)expected;
    return LK_OK;
}

int lk_parse_epoch(const struct lk_frame *f, struct lk_epoch *e)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_EPOCH, &r));
    GET(lk_get_uvarint(&r, &e->epoch));
    GET(lk_get_uvarint(&r, &e->time));
    return LK_OK;
}

int lk_parse_end(const struct lk_frame *f, struct lk_end *e)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_END, &r));
    GET(lk_get_svarint(&r, &e->status));
    GET(get_u32(&r, &e->how));
    GET(lk_get_uvarint(&r, &e->time));
    return LK_OK;
}

int lk_parse_ack(const struct lk_frame *f, struct lk_ack *a)
{
    struct lk_reader r;
    uint32_t seq, type;
    GET(open_frame(f, LK_T_ACK, &r));
    GET(get_u32(&r, &seq));
    GET(get_u32(&r, &type));
    if (seq > 0xffff || type > 0xff)
        return LK_E_MALFORMED;
    a->seq = (uint16_t)seq;
    a->type = (uint8_t)type;
    GET(get_u32(&r, &a->status));
    GET(lk_get_str(&r, &a->message));
    return LK_OK;
}

int lk_parse_part(const struct lk_frame *f, struct lk_part *p)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_PART, &r));
    GET(get_u32(&r, &p->total));
    GET(get_u32(&r, &p->offset));
    p->bytes.p = r.p;
    p->bytes.n = (size_t)(r.end - r.p);
    if (p->total < LK_HDR_SIZE || p->total > LK_HDR_SIZE + LK_MAX_PAYLOAD || p->offset >= p->total ||
        p->bytes.n == 0 || p->bytes.n > p->total - p->offset)
        return LK_E_RANGE;
    return LK_OK;
}

int lk_parse_console(const struct lk_frame *f, struct lk_console *c)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_CONSOLE, &r));
    GET(get_u32(&r, &c->stream));
    GET(get_u32(&r, &c->core));
    c->text.p = r.p;
    c->text.n = (size_t)(r.end - r.p);
    return LK_OK;
}

int lk_parse_config(const struct lk_frame *f, struct lk_config *c)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_CONFIG, &r));
    GET(get_u32(&r, &c->mode));
    GET(get_u32(&r, &c->flush_ms));
    GET(lk_get_uvarint(&r, &c->pme_min));
    GET(lk_get_uvarint(&r, &c->pme_max));
    GET(get_u32(&r, &c->pair_window));
    GET(get_u32(&r, &c->nevents));
    if (c->nevents > LK_MAX_EVENTS)
        return LK_E_RANGE;
    for (uint32_t i = 0; i < c->nevents; i++) {
        GET(get_u32(&r, &c->events[i].event));
        GET(lk_get_uvarint(&r, &c->events[i].period_min));
        GET(lk_get_uvarint(&r, &c->events[i].period_max));
    }
    return LK_OK;
}

int lk_parse_new_epoch(const struct lk_frame *f, uint64_t *epoch)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_NEW_EPOCH, &r));
    GET(lk_get_uvarint(&r, epoch));
    return LK_OK;
}

static int open_list_reader(struct lk_reader *r)
{
    uint16_t n;
    GET(lk_get_u16(r, &n));
    r->left = n;
    return LK_OK;
}

int lk_names_open(const struct lk_frame *f, struct lk_names_hdr *h, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_NAMES, r));
    GET(get_u32(r, &h->kind));
    GET(get_u32(r, &h->first));
    GET(open_list_reader(r));
    h->count = r->left;
    return LK_OK;
}

int lk_names_next(struct lk_reader *r, struct lk_bytes *name)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_str(r, name));
    r->left--;
    return 1;
}

int lk_loadmap_open(const struct lk_frame *f, uint32_t *count, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_LOADMAP, r));
    GET(open_list_reader(r));
    *count = r->left;
    return LK_OK;
}

int lk_loadmap_next(struct lk_reader *r, struct lk_loadmap_entry *e)
{
    if (r->left == 0)
        return 0;
    GET(get_u32(r, &e->action));
    GET(lk_get_uvarint(r, &e->address));
    GET(lk_get_uvarint(r, &e->size));
    GET(get_u32(r, &e->build_id_size));
    if (e->build_id_size > LK_BUILD_ID_SIZE || r->end - r->p < (ptrdiff_t)e->build_id_size)
        return LK_E_MALFORMED;
    for (uint32_t i = 0; i < LK_BUILD_ID_SIZE; i++)
        e->build_id[i] = i < e->build_id_size ? *r->p++ : 0;
    GET(lk_get_str(r, &e->name));
    r->left--;
    return 1;
}

int lk_samples_open(const struct lk_frame *f, struct lk_samples_hdr *h, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_SAMPLES, r));
    GET(get_u32(r, &h->core));
    GET(get_u32(r, &h->event));
    GET(lk_get_uvarint(r, &h->period));
    GET(open_list_reader(r));
    h->count = (uint16_t)r->left;
    return LK_OK;
}

int lk_samples_next(struct lk_reader *r, uint64_t *pc, uint64_t *samples)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_pc(r, pc));
    GET(lk_get_uvarint(r, samples));
    r->left--;
    return 1;
}

int lk_pme_open(const struct lk_frame *f, struct lk_pme_hdr *h, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_PME_AGG, r));
    GET(get_u32(r, &h->core));
    GET(get_u32(r, &h->nbits));
    GET(get_u32(r, &h->nlat));
    h->offered = h->kept = 0;
    if (h->nbits > LK_MAX_BITS || h->nlat > LK_MAX_LAT)
        return LK_E_RANGE;
    r->nbits = h->nbits;
    r->nlat = h->nlat;
    GET(open_list_reader(r));
    h->count = (uint16_t)r->left;
    return LK_OK;
}

int lk_pme_next(struct lk_reader *r, struct lk_pme_agg *a)
{
    if (r->left == 0)
        return 0;
    uint64_t mask;
    GET(lk_get_pc(r, &a->pc));
    GET(lk_get_uvarint(r, &a->samples));
    GET(lk_get_uvarint(r, &a->retired));
    GET(lk_get_uvarint(r, &a->aborted));
    GET(lk_get_uvarint(r, &mask));
    if (r->nbits < 64 && (mask >> r->nbits) != 0)
        return LK_E_MALFORMED;          /* a counter the header did not announce */
    for (unsigned i = 0; i < LK_MAX_BITS; i++) {
        a->bits[i] = 0;
        if (mask >> i & 1)
            GET(lk_get_uvarint(r, &a->bits[i]));
    }
    for (unsigned i = 0; i < LK_MAX_LAT; i++) {
        a->lat[i] = 0;
        if (i < r->nlat)
            GET(lk_get_uvarint(r, &a->lat[i]));
    }
    r->left--;
    return 1;
}

int lk_pairs_open(const struct lk_frame *f, struct lk_pme_hdr *h, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_PAIRS, r));
    GET(get_u32(r, &h->core));
    GET(get_u32(r, &h->nlat));
    GET(lk_get_uvarint(r, &h->offered));
    GET(lk_get_uvarint(r, &h->kept));
    h->nbits = 0;
    if (h->nlat > LK_MAX_LAT || h->kept > h->offered)
        return LK_E_RANGE;
    r->nlat = h->nlat;
    GET(open_list_reader(r));
    h->count = (uint16_t)r->left;
    if (h->count > 0 && h->kept == 0)
        return LK_E_RANGE;              /* pairs of a bank that kept none */
    return LK_OK;
}

int lk_pairs_next(struct lk_reader *r, struct lk_pair *p)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_uvarint(r, &p->distance));
    GET(lk_get_uvarint(r, &p->gap));
    for (int k = 0; k < 2; k++) {
        struct lk_pme_record *rec = &p->rec[k];
        GET(lk_get_pc(r, &rec->pc));
        GET(lk_get_uvarint(r, &rec->events));
        GET(lk_get_uvarint(r, &rec->addr));
        GET(lk_get_uvarint(r, &rec->history));
        for (unsigned i = 0; i < LK_MAX_LAT; i++) {
            rec->lat[i] = 0;
            if (i < r->nlat)
                GET(lk_get_uvarint(r, &rec->lat[i]));
        }
    }
    r->left--;
    return 1;
}

/* ------------------------------------------------------------------- names */

const char *lk_type_name(uint8_t type)
{
    switch (type) {
    case LK_T_HELLO: return "HELLO";
    case LK_T_NAMES: return "NAMES";
    case LK_T_LOADMAP: return "LOADMAP";
    case LK_T_SAMPLES: return "SAMPLES";
    case LK_T_PME_AGG: return "PME_AGG";
    case LK_T_PAIRS: return "PAIRS";
    case LK_T_FLUSH: return "FLUSH";
    case LK_T_EPOCH: return "EPOCH";
    case LK_T_END: return "END";
    case LK_T_CONSOLE: return "CONSOLE";
    case LK_T_ACK: return "ACK";
    case LK_T_VALUES: return "VALUES";
    case LK_T_VALUE_STATS: return "VALUE_STATS";
    case LK_T_PART: return "PART";
    case LK_T_CCT: return "CCT";
    case LK_T_PATHS: return "PATHS";
    case LK_T_CCT_PATHS: return "CCT_PATHS";
    case LK_T_CCT_PATHS_METERED: return "CCT_PATHS_METERED";
    case LK_T_PATH_HASH: return "PATH_HASH";
    case LK_T_START: return "START";
    case LK_T_STOP: return "STOP";
    case LK_T_CONFIG: return "CONFIG";
    case LK_T_NEW_EPOCH: return "NEW_EPOCH";
    case LK_T_FLUSH_NOW: return "FLUSH_NOW";
    case LK_T_LINK_ACK: return "LINK_ACK";
    default: return "unknown";
    }
}

const char *lk_drop_name(uint32_t reason)
{
    switch (reason) {
#define LK_DROP(id, number, name, what) case number: return name;
#include "firmware/abi/counter-names.def"
    default: return "unknown";
    }
}

const char *lk_stat_name(uint32_t id)
{
    switch (id) {
#define LK_STAT(id, number, name) case number: return name;
#include "firmware/abi/counter-names.def"
    default: return "unknown";
    }
}

const char *lk_host_drop_name(enum lk_host_drop id)
{
    switch (id) {
#define HOST_DROP(id, name, what) case LK_HOST_DROP_##id: return name;
#include "firmware/abi/counter-names.def"
    }
    return "unknown";
}

const char *lk_host_stat_name(enum lk_host_stat id)
{
    switch (id) {
#define HOST_STAT(id, name) case LK_HOST_STAT_##id: return name;
#include "firmware/abi/counter-names.def"
    }
    return "unknown";
}

/* ------------------------------------------------------------ value sampling */

int lk_values_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core)
{
    lk_begin(w, buf, cap, LK_T_VALUES);
    put_uvarint(w, core);
    open_list(w);
    return begun(w);
}

int lk_values_add(struct lk_writer *w, const struct lk_hotlist *h)
{
    if (h->nvalues > LK_MAX_HOT_VALUES || h->tau == 0)
        return LK_E_RANGE;
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    lk_put_pc(w, h->pc);
    put_uvarint(w, h->kind);
    put_uvarint(w, h->tau);
    put_uvarint(w, h->offered);
    put_uvarint(w, h->nvalues);
    for (uint32_t i = 0; i < h->nvalues; i++) {
        put_uvarint(w, h->value[i]);
        put_uvarint(w, h->count[i]);
    }
    return commit_entry(w, m);
}

int lk_values_open(const struct lk_frame *f, uint32_t *core, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_VALUES, r));
    GET(get_u32(r, core));
    GET(open_list_reader(r));
    return LK_OK;
}

int lk_values_next(struct lk_reader *r, struct lk_hotlist *h)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_pc(r, &h->pc));
    GET(get_u32(r, &h->kind));
    GET(lk_get_uvarint(r, &h->tau));
    GET(lk_get_uvarint(r, &h->offered));
    GET(get_u32(r, &h->nvalues));
    if (h->nvalues > LK_MAX_HOT_VALUES || h->tau == 0)
        return LK_E_RANGE;
    for (uint32_t i = 0; i < h->nvalues; i++) {
        GET(lk_get_uvarint(r, &h->value[i]));
        GET(lk_get_uvarint(r, &h->count[i]));
    }
    r->left--;
    return 1;
}

int lk_enc_value_stats(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_value_stats *v)
{
    if (v->nstops > LK_MAX_VALUE_STOPS)
        return LK_E_RANGE;
    lk_begin(w, buf, cap, LK_T_VALUE_STATS);
    put_uvarint(w, v->core);
    put_uvarint(w, v->runs);
    put_uvarint(w, v->insns);
    put_uvarint(w, v->cycles);
    put_uvarint(w, v->offered);
    put_uvarint(w, v->sent);
    put_uvarint(w, v->no_slot);
    put_uvarint(w, v->link_full);
    put_uvarint(w, v->not_user);
    put_uvarint(w, v->nstops);
    for (uint32_t i = 0; i < v->nstops; i++) {
        put_uvarint(w, v->stops[i].id);
        put_uvarint(w, v->stops[i].value);
    }
    return begun(w);
}

int lk_parse_value_stats(const struct lk_frame *f, struct lk_value_stats *v)
{
    struct lk_reader r;
    GET(open_frame(f, LK_T_VALUE_STATS, &r));
    GET(get_u32(&r, &v->core));
    GET(lk_get_uvarint(&r, &v->runs));
    GET(lk_get_uvarint(&r, &v->insns));
    GET(lk_get_uvarint(&r, &v->cycles));
    GET(lk_get_uvarint(&r, &v->offered));
    GET(lk_get_uvarint(&r, &v->sent));
    GET(lk_get_uvarint(&r, &v->no_slot));
    GET(lk_get_uvarint(&r, &v->link_full));
    GET(lk_get_uvarint(&r, &v->not_user));
    GET(get_u32(&r, &v->nstops));
    if (v->nstops > LK_MAX_VALUE_STOPS)
        return LK_E_RANGE;
    for (uint32_t i = 0; i < v->nstops; i++) {
        GET(get_u32(&r, &v->stops[i].id));
        GET(lk_get_uvarint(&r, &v->stops[i].value));
    }
    return LK_OK;
}

int lk_cct_begin(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_cct_head *h)
{
    lk_begin(w, buf, cap, LK_T_CCT);
    put_uvarint(w, h->core);
    put_uvarint(w, h->total);
    put_uvarint(w, h->skipped_calls);
    put_uvarint(w, h->overflow_calls);
    put_uvarint(w, h->first);
    put_uvarint(w, h->metrics);
    w->cct_metrics = h->metrics != 0;
    open_list(w);
    return begun(w);
}

int lk_cct_add(struct lk_writer *w, const struct lk_cct_record *rec)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    put_uvarint(w, rec->parent);
    put_uvarint(w, rec->callee);
    put_uvarint(w, rec->site);
    put_uvarint(w, rec->calls);
    if (w->cct_metrics) {
        put_uvarint(w, rec->cycles);
        put_uvarint(w, rec->retired);
    }
    return commit_entry(w, m);
}

int lk_paths_begin(struct lk_writer *w, uint8_t *buf, size_t cap, const struct lk_paths_head *h)
{
    lk_begin(w, buf, cap, LK_T_PATHS);
    put_uvarint(w, h->core);
    put_uvarint(w, h->lost_paths);
    put_uvarint(w, h->unmatched_exits);
    put_uvarint(w, h->bad_paths);
    put_uvarint(w, h->first);
    put_uvarint(w, h->metered);
    put_uvarint(w, h->unmetered);
    w->paths_metered = h->metered != 0;
    open_list(w);
    return begun(w);
}

int lk_paths_add(struct lk_writer *w, const struct lk_path_count *c)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    put_uvarint(w, c->index);
    put_uvarint(w, c->count);
    if (w->paths_metered) {
        put_uvarint(w, c->cycles);
        put_uvarint(w, c->event);
    }
    return commit_entry(w, m);
}

static int cct_paths_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core, bool metered)
{
    lk_begin(w, buf, cap, metered ? LK_T_CCT_PATHS_METERED : LK_T_CCT_PATHS);
    put_uvarint(w, core);
    w->paths_metered = metered;
    open_list(w);
    return begun(w);
}

int lk_cct_paths_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core)
{
    return cct_paths_begin(w, buf, cap, core, false);
}

int lk_cct_paths_metered_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core)
{
    return cct_paths_begin(w, buf, cap, core, true);
}

int lk_cct_paths_add(struct lk_writer *w, const struct lk_ctx_path *e)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    put_uvarint(w, e->record);
    put_uvarint(w, e->path);
    put_uvarint(w, e->count);
    if (w->paths_metered) {
        put_uvarint(w, e->cycles);
        put_uvarint(w, e->event);
    }
    return commit_entry(w, m);
}

int lk_cct_paths_open(const struct lk_frame *f, uint32_t *core, bool *metered, struct lk_reader *r)
{
    *metered = f->type == LK_T_CCT_PATHS_METERED;
    GET(open_frame(f, *metered ? LK_T_CCT_PATHS_METERED : LK_T_CCT_PATHS, r));
    r->paths_metered = *metered;
    GET(get_u32(r, core));
    GET(open_list_reader(r));
    return LK_OK;
}

int lk_cct_paths_next(struct lk_reader *r, struct lk_ctx_path *e)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_uvarint(r, &e->record));
    GET(lk_get_uvarint(r, &e->path));
    GET(lk_get_uvarint(r, &e->count));
    e->cycles = e->event = 0;
    if (r->paths_metered) {
        GET(lk_get_uvarint(r, &e->cycles));
        GET(lk_get_uvarint(r, &e->event));
    }
    r->left--;
    return 1;
}

int lk_path_hash_begin(struct lk_writer *w, uint8_t *buf, size_t cap, uint32_t core)
{
    lk_begin(w, buf, cap, LK_T_PATH_HASH);
    put_uvarint(w, core);
    open_list(w);
    return begun(w);
}

int lk_path_hash_add(struct lk_writer *w, const struct lk_hash_path *e)
{
    if (!list_open(w))
        return LK_E_FULL;
    struct mark m = mark(w);
    put_uvarint(w, e->proc);
    put_uvarint(w, e->path);
    put_uvarint(w, e->count);
    return commit_entry(w, m);
}

int lk_path_hash_open(const struct lk_frame *f, uint32_t *core, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_PATH_HASH, r));
    GET(get_u32(r, core));
    GET(open_list_reader(r));
    return LK_OK;
}

int lk_path_hash_next(struct lk_reader *r, struct lk_hash_path *e)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_uvarint(r, &e->proc));
    GET(lk_get_uvarint(r, &e->path));
    GET(lk_get_uvarint(r, &e->count));
    r->left--;
    return 1;
}

int lk_cct_open(const struct lk_frame *f, struct lk_cct_head *h, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_CCT, r));
    GET(get_u32(r, &h->core));
    GET(lk_get_uvarint(r, &h->total));
    GET(lk_get_uvarint(r, &h->skipped_calls));
    GET(lk_get_uvarint(r, &h->overflow_calls));
    GET(lk_get_uvarint(r, &h->first));
    GET(lk_get_uvarint(r, &h->metrics));
    if (h->metrics > 1)
        return LK_E_RANGE;
    r->cct_metrics = h->metrics != 0;
    GET(open_list_reader(r));
    return LK_OK;
}

int lk_cct_next(struct lk_reader *r, struct lk_cct_record *rec)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_uvarint(r, &rec->parent));
    GET(lk_get_uvarint(r, &rec->callee));
    GET(lk_get_uvarint(r, &rec->site));
    GET(lk_get_uvarint(r, &rec->calls));
    rec->cycles = rec->retired = 0;
    if (r->cct_metrics) {
        GET(lk_get_uvarint(r, &rec->cycles));
        GET(lk_get_uvarint(r, &rec->retired));
    }
    r->left--;
    return 1;
}

int lk_paths_open(const struct lk_frame *f, struct lk_paths_head *h, struct lk_reader *r)
{
    GET(open_frame(f, LK_T_PATHS, r));
    GET(get_u32(r, &h->core));
    GET(lk_get_uvarint(r, &h->lost_paths));
    GET(lk_get_uvarint(r, &h->unmatched_exits));
    GET(lk_get_uvarint(r, &h->bad_paths));
    GET(lk_get_uvarint(r, &h->first));
    GET(lk_get_uvarint(r, &h->metered));
    GET(lk_get_uvarint(r, &h->unmetered));
    if (h->metered > 1)
        return LK_E_RANGE;
    r->paths_metered = h->metered != 0;
    GET(open_list_reader(r));
    return LK_OK;
}

int lk_paths_next(struct lk_reader *r, struct lk_path_count *c)
{
    if (r->left == 0)
        return 0;
    GET(lk_get_uvarint(r, &c->index));
    GET(lk_get_uvarint(r, &c->count));
    c->cycles = c->event = 0;
    if (r->paths_metered) {
        GET(lk_get_uvarint(r, &c->cycles));
        GET(lk_get_uvarint(r, &c->event));
    }
    r->left--;
    return 1;
}
