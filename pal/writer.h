/* writer.h -- PAL's trace writer: records, given as values of a dictionary's
 * record descriptors, written into a new ECL container file (version 2,
 * doc/trace-format.md) through the container codec: chunks of a chosen size,
 * compressed in a second thread, a copy of the header, the end summary, the
 * index and the footer. The merge writes its output with it. Not installed.
 *
 * The file is written under a temporary name and renamed at close
 * (container/container.h, "output files"): nothing partial is left under the
 * target's name. */
#ifndef PAL_WRITER_H
#define PAL_WRITER_H

#include "container/container.h"
#include "pal/pal-internal.h"

#include <pthread.h>

typedef struct pal_writer pal_writer;

typedef struct pal_writer_options {
    int compress;                    /* ECC_COMP_* */
    int level;                       /* 0: the method's fastest */
    size_t chunk_size;               /* raw payload bytes per chunk */
    unsigned out_flags;              /* ECC_OUT_THROUGH */
} pal_writer_options;

/* Creates path for records of dict (taken, also on failure) with the file
 * header fields of hdr (its dictionary fields are set here). Every record
 * descriptor of dict must have one numeric bind key and binary fields.
 * PAL_EIO (message in err), PAL_EINVAL (a record the writer cannot encode),
 * PAL_ENOMEM. */
pal_status pal_writer_create(const char *path, edl_dict *dict, const ecc_file_header *hdr,
                             const pal_writer_options *o, pal_writer **out, char *err,
                             size_t errlen);
/* The writer's dictionary (its record descriptors are what put takes). */
const pal_dict *pal_writer_dict(const pal_writer *w);
/* Appends a record: vals/lens hold rd's fields in order (the key field's
 * value is taken from the bind). Times must not go back; a time before the
 * previous record's is written as that one. PAL_EIO once a write failed
 * (pal_writer_close then says why). */
pal_status pal_writer_put(pal_writer *w, const pal_recdesc *rd, const pal_value *vals,
                          const uint32_t *lens);
/* The fast way for a record whose fields after its key and time are already
 * encoded as rd says (copied from another trace): writes rd's key, its time
 * (as the TDELTA the writer keeps), the npre values of the fields that come
 * next as ULEB, then the ntail bytes of tail as they are. Inline below. */
static inline pal_status pal_writer_put_raw(pal_writer *w, const pal_recdesc *rd, uint64_t t,
                                            const uint64_t *pre, unsigned npre,
                                            const uint8_t *tail, size_t ntail);
/* Records written so far, and records chunks. */
uint64_t pal_writer_records(const pal_writer *w);
uint64_t pal_writer_chunks(const pal_writer *w);
/* Writes what is buffered, the end summary, the index and the footer, and
 * renames the file into place. PAL_EIO with err on failure (the temporary
 * file is removed). Frees w either way. */
pal_status pal_writer_close(pal_writer *w, char *err, size_t errlen);
/* Gives up: removes the temporary file, frees w. */
void pal_writer_abort(pal_writer *w);

/* ---- the inline fast path: the writer's state ---- */

/* How one record is written: its key, and whether it can be. */
typedef struct pal_wprog {
    uint64_t key;
    int ok;
} pal_wprog;

typedef struct pal_wchunk {
    uint8_t *data;
    size_t len, cap;
    uint32_t count;
    uint64_t first, last;
} pal_wchunk;

struct pal_writer {
    pal_wchunk cur;                  /* being filled (first: the fast path) */
    uint64_t last_time, records;
    pal_wprog *progs;
    pal_dict *dict;
    ecc_out *out;
    pal_writer_options o;
    uint64_t off;                    /* next chunk's offset */
    uint64_t seq, chunks;
    /* the hand-over to the writer thread */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t th;
    int th_on, queued, stop;
    pal_wchunk q;                    /* queued */
    uint8_t *spare;
    size_t spare_cap;
    ecc_zctx *z;
    uint8_t *index;
    size_t nindex, capindex;
    int failed;                      /* atomic */
    int lock_ok;
    uint8_t pad[ECC_CHUNK_HEADER];   /* the pad chunk after every records chunk */
    char err[512];
};

/* Makes room for need more bytes (flushing the chunk when full). */
pal_status pal_writer_room(pal_writer *w, size_t need);

static inline pal_status pal_writer_put_raw(pal_writer *w, const pal_recdesc *rd, uint64_t t,
                                            const uint64_t *pre, unsigned npre,
                                            const uint8_t *tail, size_t ntail)
{
    const pal_wprog *wp = &w->progs[rd->index];
    if (PAL_UNLIKELY(!wp->ok))
        return PAL_EINVAL;
    size_t need = (size_t)(2 + npre) * ECC_LEB_MAX + ntail;
    if (PAL_UNLIKELY(w->cur.len + need > w->o.chunk_size || w->cur.count == 0)) {
        pal_status st = pal_writer_room(w, need);
        if (st != PAL_OK)
            return st;
        if (w->cur.count == 0)
            w->cur.first = w->cur.last = t > w->last_time ? t : w->last_time;
    }
    if (t < w->last_time)
        t = w->last_time;
    uint8_t *p = w->cur.data + w->cur.len;
    p = ecc_put_uleb(p, wp->key);
    p = ecc_put_uleb(p, t - w->cur.last);
    for (unsigned i = 0; i < npre; i++)
        p = ecc_put_uleb(p, pre[i]);
    for (size_t i = 0; i < ntail; i++)
        p[i] = tail[i];
    p += ntail;
    w->cur.len = (size_t)(p - w->cur.data);
    w->cur.last = t;
    w->cur.count++;
    w->last_time = t;
    w->records++;
    return PAL_OK;
}

#endif /* PAL_WRITER_H */
