/* scan.c -- the ECL container codec: walking a file chunk by chunk, with
 * damage found and passed over (doc/trace-format.md, "Reading and damage"). */
#include <config.h>

#include "container/container.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#define SCAN_WINDOW ((size_t)1 << 16)

int ecc_read_at(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *b = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, b + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k == 0)
            errno = EIO;                 /* the file is shorter than it was */
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

static int footer_at(int fd, uint64_t size, uint64_t off, uint64_t *index_off)
{
    uint8_t b[ECC_FOOTER];
    return off + ECC_FOOTER == size && ecc_read_at(fd, b, sizeof b, off) == 0 &&
           ecc_footer_decode(b, index_off);
}

void ecc_scan_buffer(ecc_scan *s, uint8_t *buf, size_t cap)
{
    s->buf = buf;
    s->cap = cap;
    s->blen = 0;
    s->boff = 0;
}

void ecc_scan_filled(ecc_scan *s, uint64_t off, size_t n)
{
    s->boff = off;
    s->blen = n <= s->cap ? n : s->cap;
}

const uint8_t *ecc_scan_bytes(const ecc_scan *s, uint64_t off, uint64_t n)
{
    if (s->buf && off >= s->boff && n <= s->blen && off - s->boff <= s->blen - n)
        return s->buf + (off - s->boff);
    return NULL;
}

/* n (<= 64) bytes at off: from the window, read again from off on when it
 * does not hold them. 0, or -1 with errno. */
static int scan_read(ecc_scan *s, uint8_t *b, size_t n, uint64_t off)
{
    if (!s->buf)
        return ecc_read_at(s->fd, b, n, off);
    const uint8_t *p = ecc_scan_bytes(s, off, n);
    if (!p) {
        size_t want = s->size - off < s->cap ? (size_t)(s->size - off) : s->cap;
        s->blen = 0;
        if (want < n || ecc_read_at(s->fd, s->buf, want, off) != 0)
            return -1;
        s->boff = off;
        s->blen = want;
        p = s->buf;
    }
    memcpy(b, p, n);
    return 0;
}

int64_t ecc_resync(int fd, uint64_t size, uint64_t from)
{
    uint8_t win[SCAN_WINDOW + ECC_CHUNK_HEADER];
    uint64_t off = from;
    while (off < size) {
        size_t n = size - off < sizeof win ? (size_t)(size - off) : sizeof win;
        if (ecc_read_at(fd, win, n, off) != 0)
            return -1;
        /* candidates start in the first n - 63 bytes (the rest comes again
         * at the start of the next window), or anywhere in the last one */
        size_t last = off + n == size ? n : n - ECC_CHUNK_HEADER + 1;
        for (size_t i = 0; i < last; i++) {
            const uint8_t *q = memchr(win + i, 'E', last - i);
            if (q == NULL)
                break;
            i = (size_t)(q - win);
            uint64_t cand = off + i;
            ecc_chunk c;
            uint64_t io;
            if (i + ECC_CHUNK_HEADER <= n) {
                if (ecc_get32(win + i) == ECC_CHUNK_MAGIC && ecc_chunk_decode(win + i, &c) == NULL)
                    return (int64_t)cand;
            } else if (footer_at(fd, size, cand, &io)) {
                return (int64_t)cand;
            }
        }
        if (off + n == size)
            break;
        off += last;
    }
    return (int64_t)size;
}

void ecc_scan_init(ecc_scan *s, int fd, uint64_t size, uint64_t start)
{
    s->buf = NULL;
    s->cap = s->blen = 0;
    s->boff = 0;
    s->fd = fd;
    s->size = size;
    s->pos = start;
    s->done = 0;
    s->ioerr = 0;
}

void ecc_scan_next(ecc_scan *s, ecc_event *ev)
{
    /* (field by field: a memset of the whole was a rep stos, whose start
     * cost was half of this function's time in a scan of small files) */
    ev->type = 0;
    ev->offset = s->pos;
    ev->length = 0;
    memset(&ev->chunk, 0, sizeof ev->chunk);
    ev->index_offset = 0;
    ev->reason = NULL;
    if (s->done) {
        ev->type = ECC_EV_END;
        return;
    }
    uint64_t left = s->size - s->pos;
    if (left == 0) {
        s->done = 1;
        ev->type = ECC_EV_END;
        return;
    }
    uint8_t fb[ECC_FOOTER];
    if (left == ECC_FOOTER && scan_read(s, fb, sizeof fb, s->pos) == 0 &&
        ecc_footer_decode(fb, &ev->index_offset)) {
        s->done = 1;
        ev->type = ECC_EV_FOOTER;
        ev->length = ECC_FOOTER;
        s->pos = s->size;
        return;
    }
    uint8_t b[ECC_CHUNK_HEADER];
    if (left < ECC_CHUNK_HEADER) {
        /* a cut header, unless the bytes are damage after which nothing
         * follows: either way nothing more can be read */
        s->done = 1;
        ev->type = ECC_EV_CUT;
        ev->length = left;
        ev->reason = "the file ends inside a chunk header";
        s->pos = s->size;
        return;
    }
    /* (decoded where the window holds it: a copy of 64 bytes per chunk
     * was a tenth of a 4,096-file merge's user time) */
    const uint8_t *hp = ecc_scan_bytes(s, s->pos, sizeof b);
    if (!hp && scan_read(s, b, sizeof b, s->pos) != 0) {
        s->ioerr = errno ? errno : EIO;
        s->done = 1;
        ev->type = ECC_EV_IOERR;
        return;
    }
    const char *why = ecc_chunk_decode(hp ? hp : b, &ev->chunk);
    if (why != NULL) {
        int64_t next = ecc_resync(s->fd, s->size, s->pos + 1);
        if (next < 0) {
            s->ioerr = errno ? errno : EIO;
            s->done = 1;
            ev->type = ECC_EV_IOERR;
            return;
        }
        ev->type = ECC_EV_DAMAGE;
        ev->reason = why;
        ev->length = (uint64_t)next - s->pos;
        s->pos = (uint64_t)next;
        return;
    }
    uint64_t whole = ECC_CHUNK_HEADER + (uint64_t)ev->chunk.stored_length;
    if (whole > left) {
        s->done = 1;
        ev->type = ECC_EV_CUT;
        ev->length = left;
        ev->reason = "the file ends inside a chunk";
        s->pos = s->size;
        return;
    }
    ev->type = ECC_EV_CHUNK;
    ev->length = whole;
    s->pos += whole;
}

const char *ecc_read_payload(int fd, const ecc_event *ev, uint8_t *buf)
{
    if (ecc_read_at(fd, buf, ev->chunk.stored_length, ev->offset + ECC_CHUNK_HEADER) != 0)
        return "cannot read the chunk payload";
    if (ecc_crc32(0, buf, ev->chunk.stored_length) != ev->chunk.payload_crc)
        return "chunk payload CRC mismatch";
    return NULL;
}
