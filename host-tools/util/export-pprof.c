/*
 * pprof export: a perftools.profiles.Profile message (the field numbers of
 * pprof's proto/profile.proto, listed below) in protobuf's wire format,
 * gzipped.  The encoding is the small part of protobuf a writer needs:
 * varints, tags (field << 3 | wire type), length-delimited submessages and
 * packed repeated integers.  Zero-valued scalars are left out (proto3
 * defaults).
 *
 * One Location per sampled instruction, its Lines the inlined frames
 * innermost first and the procedure last (pprof's convention); one
 * Function per (image, name, file); one Mapping per image; one Sample per
 * instruction with one value per event.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/export-profile.h"
#include "util/str-index.h"
#include "util/strvec.h"

/* perftools.profiles field numbers */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
    PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
    MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILENAME = 5,
    MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
    MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
    LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1, LINE_LINE = 2,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
    FUNCTION_START_LINE = 5,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct pb {
    uint8_t *buf;
    size_t len, cap;
};

static void pb_bytes_raw(struct pb *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = b->cap * 2 > b->len + n ? b->cap * 2 : b->len + n + 256;
        b->buf = xrealloc(b->buf, b->cap);
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    pb_bytes_raw(b, tmp, n);
}

static void pb_tag(struct pb *b, unsigned field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; 0 is proto3's default and is left out. */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
    if (!v)
        return;
    pb_tag(b, field, WIRE_VARINT);
    pb_varint(b, v);
}

static void pb_len(struct pb *b, unsigned field, const void *p, size_t n)
{
    pb_tag(b, field, WIRE_LEN);
    pb_varint(b, n);
    pb_bytes_raw(b, p, n);
}

/* Appends sub as submessage `field` and empties sub for reuse. */
static void pb_msg(struct pb *b, unsigned field, struct pb *sub)
{
    pb_len(b, field, sub->buf, sub->len);
    sub->len = 0;
}

static void pb_packed(struct pb *b, unsigned field, const uint64_t *v, size_t n)
{
    struct pb tmp = {0};
    for (size_t i = 0; i < n; i++)
        pb_varint(&tmp, v[i]);
    pb_len(b, field, tmp.buf, tmp.len);
    free(tmp.buf);
}

struct pprof_writer {
    struct pb out, msg, sub;
    struct str_index strings;   /* string_table; "" is entry 0 */
    struct str_index functions; /* "mapping\x1fname\x1ffile" -> function id - 1 */
};

static uint64_t str(struct pprof_writer *w, const char *s)
{
    return str_index_get(&w->strings, s ? s : "", NULL);
}

static void value_type(struct pprof_writer *w, unsigned field, const char *type, const char *unit)
{
    pb_uint(&w->sub, VALUETYPE_TYPE, str(w, type));
    pb_uint(&w->sub, VALUETYPE_UNIT, str(w, unit));
    pb_msg(&w->out, field, &w->sub);
}

/* The id of frame f's function in mapping m, writing its Function first. */
static uint64_t function_id(struct pprof_writer *w, size_t m, const struct src_frame *f)
{
    char key[1024];
    snprintf(key, sizeof key, "%zu\x1f%s\x1f%s", m, f->func, f->func_file ? f->func_file : "");
    bool added;
    uint64_t id = str_index_get(&w->functions, key, &added) + 1;
    if (added) {
        pb_uint(&w->sub, FUNCTION_ID, id);
        pb_uint(&w->sub, FUNCTION_NAME, str(w, f->func));
        pb_uint(&w->sub, FUNCTION_SYSTEM_NAME, str(w, f->func));
        pb_uint(&w->sub, FUNCTION_FILENAME, str(w, f->func_file));
        pb_uint(&w->sub, FUNCTION_START_LINE, f->func_line);
        pb_msg(&w->out, PROFILE_FUNCTION, &w->sub);
    }
    return id;
}

static const char *period_unit(const struct xp_profile *x, size_t e)
{
    /* The timer's period is virtual time (ns); a counter's is events. */
    return strcmp(x->event_names[e], "timer") == 0 ? "nanoseconds" : "events";
}

static void encode(struct pprof_writer *w, const struct xp_profile *x)
{
    str(w, "");
    for (size_t e = 0; e < x->nevents; e++)
        value_type(w, PROFILE_SAMPLE_TYPE, x->event_names[e], "count");
    for (size_t m = 0; m < x->nmappings; m++) {
        const struct xp_mapping *mp = &x->mappings[m];
        pb_uint(&w->msg, MAPPING_ID, m + 1);
        pb_uint(&w->msg, MAPPING_MEMORY_START, mp->start);
        pb_uint(&w->msg, MAPPING_MEMORY_LIMIT, mp->limit);
        pb_uint(&w->msg, MAPPING_FILENAME, str(w, mp->path ? mp->path : mp->name));
        pb_uint(&w->msg, MAPPING_BUILD_ID, str(w, mp->build_id));
        pb_uint(&w->msg, MAPPING_HAS_FUNCTIONS, mp->has_functions);
        pb_uint(&w->msg, MAPPING_HAS_FILENAMES, mp->has_lines);
        pb_uint(&w->msg, MAPPING_HAS_LINE_NUMBERS, mp->has_lines);
        pb_uint(&w->msg, MAPPING_HAS_INLINE_FRAMES, mp->has_inline);
        pb_msg(&w->out, PROFILE_MAPPING, &w->msg);
    }
    uint64_t values[PV_MAX_EVENTS];
    for (size_t i = 0; i < x->nsites; i++) {
        const struct xp_site *s = &x->sites[i];
        uint64_t loc = i + 1;
        pb_uint(&w->msg, LOCATION_ID, loc);
        pb_uint(&w->msg, LOCATION_MAPPING_ID, s->mapping + 1);
        pb_uint(&w->msg, LOCATION_ADDRESS, s->pc);
        for (size_t f = 0; f < s->nframes; f++) {
            uint64_t fid = function_id(w, s->mapping, &s->frames[f]);
            struct pb line = {0};
            pb_uint(&line, LINE_FUNCTION_ID, fid);
            pb_uint(&line, LINE_LINE, s->frames[f].line);
            pb_msg(&w->msg, LOCATION_LINE, &line);
            free(line.buf);
        }
        pb_msg(&w->out, PROFILE_LOCATION, &w->msg);
        for (size_t e = 0; e < x->nevents; e++)
            values[e] = s->count[e];
        pb_packed(&w->msg, SAMPLE_LOCATION_ID, &loc, 1);
        pb_packed(&w->msg, SAMPLE_VALUE, values, x->nevents);
        pb_msg(&w->out, PROFILE_SAMPLE, &w->msg);
    }
    if (x->nevents) {
        value_type(w, PROFILE_PERIOD_TYPE, x->event_names[0], period_unit(x, 0));
        pb_uint(&w->out, PROFILE_PERIOD, x->periods[0]);
        pb_uint(&w->out, PROFILE_DEFAULT_SAMPLE_TYPE, str(w, x->event_names[0]));
    }
    char comment[1024];
    if (x->epoch < 0)
        snprintf(comment, sizeof comment, "alphaprof: %s, every epoch", x->source ? x->source : "?");
    else
        snprintf(comment, sizeof comment, "alphaprof: %s, epoch %lld", x->source ? x->source : "?",
                 (long long)x->epoch);
    pb_uint(&w->out, PROFILE_COMMENT, str(w, comment));
    /* Last, once every string is numbered. */
    for (size_t i = 0; i < w->strings.n; i++)
        pb_len(&w->out, PROFILE_STRING_TABLE, w->strings.keys[i], strlen(w->strings.keys[i]));
}

static int write_gzip(const uint8_t *data, size_t n, FILE *out, struct ap_err *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    /* windowBits 15 + 16: a gzip wrapper rather than zlib's. */
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ap_err_set(err, "pprof export: zlib could not start compressing");
    uint8_t chunk[65536];
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)n;
    int rc;
    do {
        zs.next_out = chunk;
        zs.avail_out = sizeof chunk;
        rc = deflate(&zs, Z_FINISH);
        size_t have = sizeof chunk - zs.avail_out;
        if (have && fwrite(chunk, 1, have, out) != have) {
            deflateEnd(&zs);
            return ap_err_set(err, "pprof export: writing the output failed");
        }
    } while (rc == Z_OK);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return ap_err_set(err, "pprof export: zlib failed to compress");
    return 0;
}

int export_pprof(const struct xp_profile *x, FILE *out, struct ap_err *err)
{
    struct pprof_writer w;
    memset(&w, 0, sizeof w);
    encode(&w, x);
    int rc = 0;
    if (w.out.len > 0xffffffffu)
        rc = ap_err_set(err, "pprof export: profile too large (%zu bytes)", w.out.len);
    else
        rc = write_gzip(w.out.buf, w.out.len, out, err);
    free(w.out.buf);
    free(w.msg.buf);
    free(w.sub.buf);
    str_index_free(&w.strings);
    str_index_free(&w.functions);
    return rc;
}
