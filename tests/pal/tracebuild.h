/* tracebuild.h -- test-only writer of ECL containers (doc/trace-format.md) and
 * raw record streams, driven by any EDL dictionary, so that PAL is tested on
 * made-up formats and on deliberately odd files (bad counts, times, flags,
 * kinds, trailing bytes), independently of the ECL capture library. */
#ifndef PAL_TEST_TRACEBUILD_H
#define PAL_TEST_TRACEBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "edl/edl.h"

/* One field value; the member matching the field's type is used. */
typedef struct tb_val {
    uint64_t u;
    int64_t i;
    double f;
    const char *s;       /* with slen, or NUL-terminated when slen is 0 */
    size_t slen;
} tb_val;

#define TB_U(x) ((tb_val){.u = (uint64_t)(x)})
#define TB_I(x) ((tb_val){.i = (int64_t)(x)})
#define TB_F(x) ((tb_val){.f = (x)})
#define TB_S(x) ((tb_val){.s = (x)})

enum { TB_NONE = 0, TB_ZLIB = 1, TB_ZSTD = 2 };

/* Oddities a chunk can be written with; zero = a correct chunk. */
typedef struct tb_chunk_opts {
    int compression;
    int set_count;   uint32_t count;     /* header record_count */
    int set_last;    uint64_t last_time; /* header last_time */
    int set_raw;     uint32_t raw;       /* header raw_length */
    uint16_t flags;
    uint8_t kind;                        /* 0 = 1 (records) */
    const void *extra; size_t nextra;    /* bytes appended to the raw payload */
    int bad_payload_crc;
    int set_process; uint32_t process;
} tb_chunk_opts;

/* What the builder wrote, so tests know which records survive damage. */
typedef struct tb_chunk_info {
    uint64_t offset, length;   /* header + payload */
    int kind;
    uint32_t process, stream;  /* kind 1: as given to tb_chunk_begin */
    uint32_t count;            /* records (kind 1) */
    size_t first_rec;          /* index of its first record in tb_records() */
    int depends_on;            /* dictionary chunk (index in tb_chunks) defining a type it uses; -1 */
    int odd;                   /* written with oddities: expected damaged */
    size_t dict_before;        /* record descriptors defined before this chunk */
} tb_chunk_info;

typedef struct tb_rec_info {
    size_t record;             /* record descriptor index */
    uint64_t time;
    uint64_t order_time;       /* what readers order it by: its time, or (without a time
                                * field) the running time of its chunk */
    size_t chunk;              /* index in tb_chunks */
    size_t end;                /* where it ends: offset in the raw payload (or raw stream) */
} tb_rec_info;

typedef struct tb tb;

/* ECL container with d embedded (d is borrowed and may grow later: add records
 * to it, then call tb_dict_chunk). */
tb *tb_create(edl_dict *d);
/* Raw stream: records back to back, TDELTA from 0. */
tb *tb_create_raw(edl_dict *d);
void tb_destroy(tb *t);
/* Off: do not remember records (tb_records) -- for very large traces. */
void tb_track_records(tb *t, int on);
void tb_set_header(tb *t, int32_t rank, int32_t size, const char *host, double ticks_per_second);

void tb_chunk_begin(tb *t, uint32_t process, uint32_t stream, uint64_t first_time);
/* Encodes one record of the named descriptor; vals has one entry per field. */
void tb_record(tb *t, const char *name, const tb_val *vals);
/* Raw bytes into the current chunk (or raw stream). */
void tb_bytes_raw(tb *t, const void *p, size_t n);
void tb_chunk_end(tb *t, const tb_chunk_opts *o);   /* o may be NULL */
/* A kind-2 chunk holding the dictionary as it is now. */
void tb_dict_chunk(tb *t, int compression);
/* Index chunk (kind 3) and footer. */
void tb_finish_index(tb *t);

const unsigned char *tb_data(tb *t, size_t *len);
size_t tb_header_length(tb *t);
const tb_chunk_info *tb_chunks(tb *t, size_t *n);
const tb_rec_info *tb_records(tb *t, size_t *n);
int tb_write(tb *t, const char *path);
int tb_write_bytes(const char *path, const void *p, size_t n);

#endif
