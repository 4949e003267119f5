/* reader-internal.h -- PAL's reader objects, shared by reader.c (files,
 * streams, decoding, the time-ordered merge of streams), run.c (several files
 * of one run as one stream: the run's dictionary and clocks) and merge.c.
 * Not installed.
 *
 * A reader reads one or more sources (files). An ECL source is made of
 * streams -- (process, thread) pairs, each a sequence of chunks -- and the
 * reader hands out the records of all streams of all sources in time order:
 * a heap of streams keyed by the time of each one's next record, with the
 * current stream's records handed out without touching the heap while they
 * come before every other stream's next one. A stream keeps one window of
 * its current chunk's payload and one batch of decoded records, so memory is
 * bounded by the number of streams, never by the trace's length.
 *
 * Many files (a run of thousands of ranks): streams are found in their
 * file's list (a file of a few), or by a hash of (file, process, thread);
 * a file's descriptor is opened when one of its chunks is read and kept
 * in a least-recently-used list of at most
 * r->max_open descriptors (pal_src_fd), so any number of files reads within
 * the process's descriptor limit; a stream's buffers are allocated when it
 * first reads a chunk, sized by a budget shared by all streams, and freed
 * when it ends. */
#ifndef PAL_READER_INTERNAL_H
#define PAL_READER_INTERNAL_H

#include "container/container.h"
#include "pal/pal-internal.h"

/* pal_reader_open_run, internal: the run is opened to be copied (the merge
 * into a run file), not read: the scan checks every records chunk's payload
 * CRC too, and nothing is prepared for reading (no run dictionary, no
 * batches): the reader's sources, streams and clocks are used, then it is
 * closed. */
#define PAL_OPEN_COPY_ (1u << 30)

enum { FRAMING_ECL = 1, FRAMING_RAW = 2, FRAMING_LINES = 3, FRAMING_OTF2 = 4 };
enum { ST_READING = 0, ST_ENDED, ST_FAILED };

typedef struct pal_src pal_src;
typedef struct pal_stream pal_stream;
typedef struct pal_otf2 pal_otf2;

/* One file. */
struct pal_src {
    /* (what it owns first, side by side: closing a run walks 4,096 files) */
    char *path;
    struct pal_ascii *ascii;         /* line framing's state */
    pal_otf2 *otf2;                  /* an OTF2 archive (pal/otf2.c) */
    pal_dict *dict;                  /* the dictionary its records are decoded with */
    /* a run: record descriptor of the reader's dictionary for each of this
     * file's (by index); NULL when the reader's dictionary is this one */
    const pal_recdesc **map;
    /* a run, while opening: its dictionary's bytes (header and dictionary
     * chunks, the key of r->dcache) and the offsets of those chunks */
    uint8_t *dkey;
    uint64_t *dpend;
    int fd;                          /* -1 while closed: pal_src_fd opens it */
    int own_dict;                    /* dict: else the reader's, or shared with another file */
    /* a member of a run file (version 3): its bytes are [base, size) of the
     * file at path, every offset below is one in that file; else base 0 */
    uint64_t base;
    uint32_t member;                 /* its index entry */
    int run_file;                    /* a merged trace given among a run's files: refused */
    uint64_t size;
    uint64_t dev, ino;               /* the file opened first (a reopen checks them) */
    pal_src *lru_prev, *lru_next;    /* in r's list of open files, most recent first */
    int in_lru;
    int gone;                        /* could not be opened again: its streams end */
    pal_stream *streams;             /* its streams (through pal_stream.src_next) */
    pal_stream **streams_end;        /* where the next one is linked (NULL: &streams) */
    size_t nstreams;                 /* in that list */
    /* over its streams, as the scan found them: chunk offsets (copies
     * included), chunks that are not copies, records in those */
    uint64_t scan_chunks, scan_listed, scan_records;
    int framing;
    ecc_file_header hdr;             /* ECL */
    uint64_t data_start;             /* first chunk */
    int dict_borrowed;               /* a run: the reader's (r->dcache), shared */
    int dict_chunks;                 /* it has dictionary chunks */
    size_t dkey_len, dkey_cap;       /* of dkey */
    size_t npend;                    /* in dpend */
    size_t nmap;                     /* in map */
    uint32_t process;                /* rank, or a number after the ranks */
    uint32_t header_process;         /* for chunks whose process is 0xFFFFFFFF */
    /* a run: time in ns of the run = g0 + b * (ticks - t0), fields whose unit
     * is ticks scaled by b */
    int mapped;
    uint64_t t0;
    double g0, b;
    const char *clock_how;
    uint8_t clock_code;              /* ECC_CLOCK_*: how (kept by a run file) */
    /* what the scan at open found */
    uint64_t first_time, last_time;  /* over its records chunks */
    int closed;                      /* end summary or footer: the writer closed it */
    int have_end;
    ecc_end end;                     /* the end summary (streams: in pal_stream) */
    int header_recovered;            /* the header was damaged; its copy was used */
    uint64_t index_off;
    int truncated;
    /* raw and line framings: decoding state (one stream; ascii above) */
    uint64_t pos;
    uint64_t tsum;
    /* clock measurements (MPI layer): phase 0 at init, 1 at finalize */
    int have_sync[2];
    uint64_t sync_local[2], sync_ref[2], sync_rtt[2];
    double sync_ref_tps;
};

/* One (source, process, thread) sequence of chunks. */
struct pal_stream {
    pal_src *src;
    pal_stream *src_next;            /* the next stream of the same file */
    uint32_t process, stream;
    uint64_t key;                    /* process << 32 | stream, for ties */
    /* its records chunks (offsets, file order), copies included: in chunk0
     * while they fit (a per-rank file's stream has a few), else allocated */
    uint64_t *chunks;
    size_t nchunks, capchunks, next;
    uint64_t chunk0[4];
    /* what else it owns, side by side (closing a run walks 8,192 streams):
     * the window of its raw payload, its compressed stored bytes, its own
     * inflater, its batch of decoded records (rows, values, lengths) and
     * why its current chunk is damaged (allocated when it is, reader.c) */
    uint8_t *win;
    uint8_t *zin;
    ecc_inflater *inf;               /* for a payload inflated as it is read */
    pal_record *batch;
    pal_value *bvals;
    uint32_t *blens;
    unsigned gap;                    /* free values before each record's (a run file's
                                      * merged view: 2, for process and thread) */
    uint64_t ahead_off;              /* win[0, ahead_len) holds the file's bytes from */
    size_t ahead_len;                /* ahead_off: read ahead with a chunk header */
    char *bad_why;
    uint64_t listed;                 /* chunks that are not copies */
    uint64_t records;                /* in them, from their headers */
    uint64_t first_time, last_time;  /* of those holding records (ticks); first > last: none */
    uint64_t end_chunks, end_records;   /* from the end summary */
    int have_end;
    uint64_t last_seq;
    int have_seq;
    /* the current chunk */
    ecc_chunk ch;
    uint64_t coff, cwhole;
    /* its raw payload: the window (win) holds [cp, cend); raw_left bytes
     * have not come into it yet (read from the file, or inflated from zin) */
    size_t wcap;
    uint64_t raw_left;
    uint64_t file_next;              /* uncompressed: file offset of the next bytes */
    size_t zcap;                     /* compressed: stored bytes (zin) */
    const uint8_t *zp, *zend;
    uint64_t stored_left, stored_next;
    ecc_inflater *cinf;              /* the one inflating the current chunk (inf, or the
                                      * reader's) */
    const unsigned char *cp, *cend, *csafe;
    uint64_t cbase;                  /* payload offset of win[0] */
    uint32_t ccount, cleft;
    uint64_t tsum;
    uint64_t clast_time, ctime;
    int chave_time;
    int bad;
    uint32_t bad_done;
    /* the batch of decoded records (batch, bvals, blens) */
    size_t nbatch, nvals;
    pal_record *bnext, *bend;
    uint64_t chunk_no, batch_chunk;
    int ended;
    /* pal_reader_set_share: a definitions stream of another share that this
     * share reads too (pal_reader_lend_definitions) */
    int borrowed;
};

typedef struct pal_msg {
    struct pal_msg *next;
    char text[];
} pal_msg;

struct pal_reader {
    /* the fast path of pal_reader_next: the current stream's records */
    const pal_record *bnext, *bend;
    uint64_t limit;                  /* records before this time come first */
    const pal_record *bmark;         /* records before it are counted */
    pal_stream *cur;
    int limit_eq;                    /* a record at `limit` still comes first */
    char *path;                      /* for messages: the path, or the directory */
    pal_dict *dict;                  /* the reader's dictionary (owned) */
    int run;                         /* several files: times in ns of the run */
    /* a run file (version 3): dict is the merged view (every record with
     * `process` and `thread` after its time, as a version-2 merge wrote
     * them), run_dict the run's own, which the sources map to (owned) */
    int merged;
    pal_dict *run_dict;
    double origin_ns;                /* a run: its time 0 on rank 0's clock (ns) */
    unsigned flags;
    pal_src *srcs;
    size_t nsrcs;
    pal_stream **streams;
    size_t nstreams, capstreams;
    struct pal_sblock *sblocks;      /* where the streams' structures are (reader.c) */
    pal_stream **stab;               /* hash of the streams by (file, process, thread) of */
    size_t stab_cap, nstab;          /* files of many (reader.c); cap: a power of two, over
                                      * twice nstab */
    pal_src *lru_head, *lru_tail;    /* open files, most recently used first */
    size_t nopen, max_open;
    ecc_inflater *inf;               /* for payloads decompressed in one go */
    /* a run, while its files open: the directory at_len bytes of their
     * paths name (before a '/'), open as at_fd; a file there is opened
     * relative to it, its path not walked again. at_len 0: none */
    int at_fd;
    size_t at_len;
    const char *at_dir;
    uint8_t *scanbuf;                /* the scan's window at open (PAL_SCAN_WINDOW) */
    uint8_t *hbuf;                   /* the header of the file being opened (hcap bytes) */
    size_t hcap;
    uint8_t *spare_key;              /* a run: a dictionary key's buffer, given back (its */
    size_t spare_cap;                /* capacity), for the next file's (reader.c) */
    const pal_src *head_src;         /* scanbuf holds head_len bytes of this file from its */
    size_t head_len;                 /* base: the open's first read (open_head), until its scan */
    struct pal_dcache {              /* a run: its files' dictionaries decoded so far */
        uint8_t *raw;                /* the key: pal_src.dkey */
        size_t len;
        pal_dict *dict;              /* owned here; the files borrow it */
    } *dcache;
    size_t ndcache, capdcache;
    struct pal_heapent {             /* the merge's heap (reader.c): a stream and */
        uint64_t time;               /* the time of its next record, kept here */
        pal_stream *s;
    } *heap;
    size_t nheap;
    size_t batch_size;               /* records per stream batch */
    size_t window;                   /* most payload bytes a stream keeps */
    pal_trace_info info;
    pal_diag_fn diag;
    void *diag_ctx;
    int strict;
    unsigned share_k, share_n;       /* pal_reader_set_share: its streams of share k of n */
    int lend_defs;                   /* pal_reader_lend_definitions */
    size_t nborrowed;                /* streams borrowed (pal_stream.borrowed) */
    int mute;                        /* reading a borrowed stream: its owner says its damage */
    int state;
    int started;
    pal_status failed;
    char err[1024];
    pal_reader_stats st;
    pal_msg *msgs, **msgs_tail;      /* found at open, reported at the first read */
    pal_handle *handles;
    /* raw framing: the read window, file bytes [roff, roff + rlen) */
    unsigned char *rbuf;
    size_t rcap, rlen;
    uint64_t roff;
    /* raw and line framings: the one record */
    pal_record rec;
    pal_value *vals;
    uint32_t *lens;
    size_t nvals;
    pal_arr *arrs;
    pal_value *ivals;
    uint32_t *ilens;
    size_t icap;
};

/* ---- reader.c ---- */
/* The pages of [p, p + n) (inward to whole pages) made present now by one
 * system call (Linux 5.14 MADV_POPULATE_WRITE; elsewhere nothing): memory
 * about to be written in full costs no page fault per page. A page fault
 * costs 4-7 us in a virtual machine (3,300 of them were 14-24 ms of a
 * 4,096-file merge), a page made present this way ~1.3 us. */
void pal_prefault(void *p, size_t n);
/* The descriptor of s, opened again if the list of open files let it go
 * (closing the least recently used one when r->max_open are open). -1 when
 * it cannot be: reported once, s->gone set. */
int pal_src_fd(pal_reader *r, pal_src *s);
/* Forgets s, the last source opened, after its open failed: its streams,
 * descriptor, dictionary and path. */
void pal_src_discard(pal_reader *r, pal_src *s);
/* Queues a message for the first read (or sends it at once once started). */
void pal_reader_note(pal_reader *r, const char *fmt, ...) PAL_PRINTF(2, 3);
/* A share (pal_reader_set_share) split by stream also reads, before its
 * first record, the definitions streams (stream 0 of a per-rank ECL trace:
 * its process-wide definitions, doc/trace-format.md) of the files whose
 * threads it reads, when another share owns them: their definitions name
 * what its threads' records refer to. Such a stream is "borrowed": its
 * damage is said and counted by its owner only, and a consumer asks
 * pal_reader_borrowed for each record (pal_events does). */
void pal_reader_lend_definitions(pal_reader *r);
/* Whether the record pal_reader_next handed out last is of a borrowed
 * stream (not the share's own). */
PAL_INLINE int pal_reader_borrowed(const pal_reader *r)
{
    return PAL_UNLIKELY(r->nborrowed > 0) && r->cur != NULL && r->cur->borrowed;
}
/* Sends the queued messages now (a merge that copies, and never reads). */
void pal_reader_flush_notes(pal_reader *r);
/* Opens the ECL file path as source s of r (header, scan, streams). */
pal_status pal_src_open_ecl(pal_reader *r, pal_src *s, pal_dict **given);
/* Opens bytes [base, base + length) of the file path as ECL source s: a
 * member of a run file (version 3). */
pal_status pal_src_open_member(pal_reader *r, pal_src *s, const char *path, uint64_t base,
                               uint64_t length);
/* Opens path as source s: an ECL trace, or with dict_path a foreign one. */
pal_status pal_src_open_path(pal_reader *r, pal_src *s, const char *path, const char *dict_path);
/* ecc_read_at and ecc_read_payload of s, from the bytes its open read
 * (pal_reader.head_src) when they hold them: no read again. */
int pal_src_read_at(const pal_reader *r, const pal_src *s, void *b, size_t n, uint64_t off);
const char *pal_src_payload(const pal_reader *r, const pal_src *s, const ecc_event *ev,
                            uint8_t *buf);
pal_status pal_reader_alloc(const char *name, pal_reader **out);
/* After the sources are open: sorts streams, sizes windows and batches. */
pal_status pal_reader_finish_open(pal_reader *r);

/* ---- otf2.c (libotf2), or otf2-none.c (PAL without it) ---- */
/* Opens s (its path the anchor file of an OTF2 archive): sets s->dict,
 * s->framing (FRAMING_OTF2), s->otf2 and r->info; the message of a failure
 * in pal_last_error. */
pal_status pal_otf2_open(pal_reader *r, pal_src *s);
/* The next record of r's one source, an OTF2 archive. */
pal_status pal_otf2_next(pal_reader *r, const pal_record **out);
void pal_otf2_close(pal_otf2 *o);

/* ---- run.c ---- */
/* Builds the dictionary of a run from its sources' and the time maps. */
pal_status pal_run_prepare(pal_reader *r);
/* Reads the clock measurements of source s (its definitions stream). */
void pal_run_read_clock(pal_reader *r, pal_src *s);
/* The dictionary of a merged trace from a run's: every record with
 * `process` and `thread` after its time (doc/trace-format.md, "Merged
 * traces"). Renamed fields and roles left out are said through note. NULL
 * on no memory. */
edl_dict *pal_run_merged_dict(const pal_dict *run, void (*note)(void *ctx, const char *line),
                              void *ctx);
/* What pal_run_open tells its caller as the files open, each optional:
 * progress(ctx, files opened, files) before each file; opened(ctx, r, i)
 * once source i is open, scanned and its clock measurements read, while its
 * descriptor is open (and, for a small file, its bytes in pal_src_whole).
 * opened returning nonzero stops the open with PAL_EIO (it has set
 * pal_last_error). A directory found among many paths starts the files
 * over: opened sees i = 0 again. */
typedef struct pal_run_hooks {
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    int (*opened)(void *ctx, pal_reader *r, size_t i);
    void *ctx;
} pal_run_hooks;
/* pal_reader_open_run, with hooks (NULL: none). */
pal_status pal_run_open(const char *const *paths, size_t n, const char *dict_path,
                        unsigned flags, const pal_run_hooks *hooks, pal_reader **out);
/* All the bytes of s (from its base), when the open read them at once and
 * nothing was read into that buffer since; else NULL. */
const uint8_t *pal_src_whole(const pal_reader *r, const pal_src *s);
/* Opens the run file (version 3) path as a run: its members as sources. */
pal_status pal_run_open_file(const char *path, unsigned flags, pal_reader **out);
/* 1 if the file at path is a merged trace (version 3, or a version-2 or
 * version-1 merge), from its first bytes. */
int pal_run_is_merged(const char *path);
/* The same from the first n bytes of a file (its fixed header at least);
 * intact: only if b holds the whole header and its CRC holds (a damaged
 * byte in its flags makes no merged trace). */
int pal_run_is_merged_header(const uint8_t *b, size_t n, int intact);

#endif /* PAL_READER_INTERNAL_H */
