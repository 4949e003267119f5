/* container.h -- the ECL container codec (prefix ecc_): the one module that
 * frames and parses ECL trace files (doc/trace-format.md). It encodes and
 * decodes the file header, chunk headers, the index, the footer and the end
 * summary with every check the format page lists; it owns LEB128, CRC-32 and
 * (de)compression; and its scanner walks a file chunk by chunk, reporting
 * damage and resynchronising. Everything that writes or reads the container
 * calls it: the capture writer (ecl/core), PAL's reader and writer (pal/),
 * edlc (the embedded dictionary), the tests' checks.
 *
 * Layer: the lowest; it depends on libc, zlib and (optionally) zstd only --
 * not on the dictionary model (a dictionary is bytes here), not on capture,
 * not on PAL. Not installed.
 *
 * Encoding functions are async-signal-safe (no allocation, no locks): the
 * capture layer frames chunks inside crash handlers. Decoding functions
 * return NULL when the bytes are good, else a static string saying why not
 * ("bad magic", "header CRC mismatch", ...), for messages of the form
 * "trace.ecl: byte 4096: bad chunk header (header CRC mismatch)". */
#ifndef ECL_CONTAINER_H
#define ECL_CONTAINER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define ECC_LIKELY(x) __builtin_expect(!!(x), 1)
#define ECC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define ECC_LIKELY(x) (x)
#define ECC_UNLIKELY(x) (x)
#endif

/* ---------------- little-endian integers ---------------- */

static inline uint16_t ecc_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ecc_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ecc_get64(const uint8_t *p)
{
    return (uint64_t)ecc_get32(p) | (uint64_t)ecc_get32(p + 4) << 32;
}

static inline void ecc_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ecc_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ecc_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---------------- LEB128 ---------------- */
/* ULEB: 7 bits per byte, low first, high bit = more; at most 10 bytes, the
 * 10th holding bit 63 only. SLEB in ECL is the zig-zag of the value, as a
 * ULEB, so small magnitudes of either sign stay short. */

enum { ECC_LEB_OK = 0, ECC_LEB_SHORT, ECC_LEB_BAD };
#define ECC_LEB_MAX 10

static inline uint8_t *ecc_put_uleb(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t ecc_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t ecc_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static inline uint8_t *ecc_put_sleb(uint8_t *p, int64_t v)
{
    return ecc_put_uleb(p, ecc_zigzag(v));
}

static inline size_t ecc_uleb_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* The general decoder: ECC_LEB_SHORT if the value runs past end, ECC_LEB_BAD
 * if it has more than 64 bits; *pp advances only on success. */
int ecc_get_uleb_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out);

static inline int ecc_get_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (ECC_LIKELY(p < end && *p < 0x80)) {
        *out = *p;
        *pp = p + 1;
        return ECC_LEB_OK;
    }
    return ecc_get_uleb_slow(pp, end, out);
}

/* ---------------- CRC-32 ---------------- */
/* The ISO-HDLC CRC (zlib's crc32), hardware-folded where the CPU can.
 * ecc_crc32(0, p, n) is the CRC of p; pass a previous result to continue. */
uint32_t ecc_crc32(uint32_t crc, const void *p, size_t n);

/* ---------------- file header ---------------- */

#define ECC_FILE_MAGIC "ECLTRACE"
#define ECC_VERSION_MAJOR 2
#define ECC_VERSION_MINOR 0
#define ECC_HEADER_FIXED_V1 136
#define ECC_HEADER_FIXED 176         /* version 2 */
#define ECC_HEADER_MAX ((uint32_t)64 << 20)
#define ECC_RUN_ID 16
#define ECC_RUN_ID_OFFSET 136       /* of the run id in a version-2 header */

/* file header flags (version 2) */
enum {
    ECC_HFLAG_MERGED = 1,            /* a merged trace */
    ECC_HFLAG_DICT_ZLIB = 2,         /* the embedded dictionary is a zlib stream */
    ECC_HFLAG_EXEC = 4               /* the writer called exec after writing every
                                      * buffer (cleared when the exec failed) */
};

typedef struct ecc_file_header {
    uint16_t version_major, version_minor;
    uint32_t header_length;          /* offset of the first chunk */
    uint8_t byte_order;              /* 'L' or 'B' */
    uint8_t clock_source;            /* 1 monotonic, 2 cycle counter, 3 realtime */
    double ticks_per_second;
    int64_t realtime_offset_ns;
    uint32_t pid;
    int32_t rank, size;
    uint64_t start_time;
    char host[65];                   /* NUL-terminated */
    uint32_t dict_offset, dict_length;
    /* version 2 (zero when decoded from version 1) */
    uint8_t run_id[ECC_RUN_ID];      /* shared by every process of one run */
    uint32_t buffer_size;            /* capture buffer bytes (a chunk holds at most one) */
    uint32_t buffer_count;           /* buffers per thread */
    uint32_t flags;                  /* ECC_HFLAG_* */
    uint32_t dict_raw_length;        /* ECC_HFLAG_DICT_ZLIB: the dictionary's bytes */
} ecc_file_header;

/* Bytes of the header (fixed part + dictionary + padding to 8) for a
 * dictionary of dict_length bytes. */
size_t ecc_file_header_size(size_t dict_length);
/* Writes the version-2 header into out (ecc_file_header_size bytes, zeroed
 * padding), with h's fields, dict at dict_offset = ECC_HEADER_FIXED, and the
 * header CRC. h->header_length, dict_offset and dict_length are set. */
void ecc_file_header_encode(uint8_t *out, ecc_file_header *h, const void *dict, size_t dict_length);
/* The dictionary as a header embeds it: zlib-compressed into *out (malloc'd)
 * when that pays off, with h's flags and dict_raw_length set to say so;
 * else a copy as it is. NULL, or why not (no memory). */
const char *ecc_dict_pack(ecc_file_header *h, const void *dict, size_t len, uint8_t **out,
                          size_t *out_len);
/* The embedded dictionary of a decoded header (hdr: its bytes), as a
 * malloc'd buffer the caller frees, decompressed if it was compressed.
 * NULL, or why not ("embedded dictionary damaged"). */
const char *ecc_file_header_dict(const uint8_t *hdr, const ecc_file_header *h, uint8_t **dict,
                                 size_t *len);
/* Rewrites the clock of an encoded header (length bytes) in place, ticks per
 * second and realtime offset, and its CRC. */
/* Sets (on) or clears the header flags in mask, and the header's CRC. */
void ecc_file_header_set_flag(uint8_t *hdr, size_t length, uint32_t mask, int on);
void ecc_file_header_set_clock(uint8_t *hdr, size_t length, double ticks_per_second,
                               int64_t realtime_offset_ns);
/* Rewrites rank and size of an encoded header (length bytes) in place and
 * its CRC. Async-signal-safe. */
void ecc_file_header_set_identity(uint8_t *hdr, size_t length, int32_t rank, int32_t size,
                                  const uint8_t run_id[ECC_RUN_ID]);
/* What follows the header in a version-2 file: a pad chunk, then a chunk of
 * kind 4 holding the header (hdr, length bytes) again. Writes
 * ecc_header_copy_size(length) bytes to out. Async-signal-safe. */
size_t ecc_header_copy_size(size_t length);
void ecc_header_copy_encode(uint8_t *out, const uint8_t *hdr, size_t length);
/* Checks the fixed part in b (n >= ECC_HEADER_FIXED_V1 bytes): magic,
 * a known major version, header length, dictionary bounds. Fills h. NULL if
 * good, else why not; *at the byte offset the reason is about. */
const char *ecc_file_header_decode_fixed(const uint8_t *b, size_t n, ecc_file_header *h,
                                         uint64_t *at);
/* Checks the CRC of a whole header (h->header_length bytes at b). */
const char *ecc_file_header_check_crc(const uint8_t *b, const ecc_file_header *h);

/* Record type ids of ECL's native dictionary (doc/trace-format.md): 1..13
 * the natives, 14..1023 ECL's layers (MPI), user types from 1024. */
#define ECC_TYPE_USER_FIRST 1024

/* ---------------- chunks ---------------- */

#define ECC_CHUNK_MAGIC 0x4B484345u  /* "ECHK" */
#define ECC_CHUNK_HEADER 64
#define ECC_STORED_MAX 0x80000000u   /* stored_length is below 2^31 */

enum {
    ECC_KIND_RECORDS = 1,
    ECC_KIND_DICT = 2,
    ECC_KIND_INDEX = 3,
    ECC_KIND_HEADER_COPY = 4,        /* version 2: a copy of the file header */
    ECC_KIND_END = 5,                /* version 2: the writer's closing summary */
    ECC_KIND_PAD = 6                 /* version 2: separates a chunk from its copy */
};
enum { ECC_COMP_NONE = 0, ECC_COMP_ZLIB = 1, ECC_COMP_ZSTD = 2 };
/* chunk flags (version 2) */
enum { ECC_CFLAG_COPY = 1 };         /* repeats the chunk before it (same stream, sequence) */
#define ECC_CFLAGS_KNOWN ECC_CFLAG_COPY
#define ECC_PROCESS_FROM_HEADER 0xFFFFFFFFu

typedef struct ecc_chunk {
    uint8_t kind, compression;
    uint16_t flags;
    uint32_t stored_length, raw_length;
    uint32_t process, stream, record_count;
    uint64_t sequence, first_time, last_time;
    uint32_t payload_crc;
} ecc_chunk;

/* Writes the 64-byte chunk header (its header CRC computed; payload_crc as
 * given in c). Async-signal-safe. */
void ecc_chunk_encode(uint8_t out[ECC_CHUNK_HEADER], const ecc_chunk *c);
/* An empty pad chunk (kind 6): what separates a chunk from its copy, and a
 * records chunk from the next (doc/trace-format.md). Async-signal-safe. */
void ecc_pad_encode(uint8_t out[ECC_CHUNK_HEADER]);
/* Checks magic and header CRC and decodes. NULL if it is a chunk header. */
const char *ecc_chunk_decode(const uint8_t b[ECC_CHUNK_HEADER], ecc_chunk *c);
/* What the header alone shows about whether the chunk can be read: stored
 * length < 2^31, known flags, a known compression, raw = stored when
 * uncompressed, record_count <= raw_length for records. NULL if readable. */
const char *ecc_chunk_check(const ecc_chunk *c, uint16_t version_major);

/* ---------------- compression ---------------- */

/* 1 if this build reads/writes the method. */
int ecc_have_compression(int method);
const char *ecc_compression_name(int method);

typedef struct ecc_zctx ecc_zctx;
/* A compressor for inputs of at most max_input bytes. NULL on no memory. */
ecc_zctx *ecc_zctx_create(int method, int level, size_t max_input);
void ecc_zctx_destroy(ecc_zctx *z);
/* Compresses src; returns the stored bytes (*out, *method_used): the raw
 * bytes themselves when compression does not pay off or fails. *out stays
 * valid until the next call. */
size_t ecc_compress(ecc_zctx *z, const uint8_t *src, size_t len, const uint8_t **out,
                    uint8_t *method_used);
/* Compresses src into dst (cap bytes, the caller's: several threads, each
 * with its own ecc_zctx, fill one output buffer). Returns the compressed
 * bytes, 0 when compression failed or the result does not fit in cap (a
 * caller that passes cap = len - 1 stores the raw bytes then). */
size_t ecc_compress_into(ecc_zctx *z, const uint8_t *src, size_t len, uint8_t *dst, size_t cap);
/* One-shot decompression of a chunk payload into dst (raw_length bytes).
 * NULL on success, else why not. */
const char *ecc_decompress(int method, const uint8_t *src, size_t stored, uint8_t *dst,
                           size_t raw);

/* Streaming decompression, for readers that keep a small window of a large
 * chunk: feed stored bytes, take raw bytes as they come. */
typedef struct ecc_inflater ecc_inflater;
ecc_inflater *ecc_inflater_create(void);
void ecc_inflater_destroy(ecc_inflater *z);
/* Starts a payload of raw bytes compressed with method. NULL or why not. */
const char *ecc_inflater_reset(ecc_inflater *z, int method, uint64_t raw);
/* Decompresses from *in (advanced by what was used) into *out (advanced by
 * what was produced). NULL or why not ("zlib payload damaged", ...); *done
 * is set once the whole payload has come out, which must be exactly raw
 * bytes at the end of the stored bytes. */
const char *ecc_inflate(ecc_inflater *z, const uint8_t **in, const uint8_t *in_end,
                        uint8_t **out, uint8_t *out_end, int *done);

/* ---------------- index, footer, end summary ---------------- */

#define ECC_INDEX_ENTRY 40
#define ECC_FOOTER 16
#define ECC_FOOTER_MAGIC "ECLINDEX"

typedef struct ecc_index_entry {
    uint64_t offset, first_time, last_time;
    uint32_t process, stream, record_count;
    uint8_t kind;
} ecc_index_entry;

void ecc_index_entry_encode(uint8_t out[ECC_INDEX_ENTRY], const ecc_index_entry *e);
void ecc_index_entry_decode(const uint8_t b[ECC_INDEX_ENTRY], ecc_index_entry *e);
void ecc_footer_encode(uint8_t out[ECC_FOOTER], uint64_t index_offset);
/* 1 if b holds a footer; *index_offset then names the index chunk. */
int ecc_footer_decode(const uint8_t b[ECC_FOOTER], uint64_t *index_offset);

/* The end summary (kind 5 payload): written last by a writer that closed the
 * trace (or flushed it on a fatal signal). */
typedef struct ecc_end_stream {
    uint32_t stream;
    uint64_t chunks;                 /* records chunks written (the next sequence) */
    uint64_t records;                /* records in them */
} ecc_end_stream;

typedef struct ecc_end {
    uint32_t signal;                 /* 0: closed normally; else the fatal signal */
    uint64_t lost;                   /* records dropped and counted in `lost` records */
    uint64_t lost_unbuffered;        /* of them, those dropped because no buffer could be had */
    uint32_t nstreams;
    const ecc_end_stream *streams;   /* encode: nstreams entries */
} ecc_end;

/* Worst-case payload bytes for n streams. */
size_t ecc_end_size(uint32_t nstreams);
/* Encodes into out (ecc_end_size bytes); returns the length. */
size_t ecc_end_encode(uint8_t *out, const ecc_end *e);
/* Decodes a payload; the streams go to a callback, one at a time, so the
 * reader needs no memory per stream here. NULL or why not. */
const char *ecc_end_decode(const uint8_t *p, size_t n, ecc_end *e,
                           void (*stream_fn)(void *ctx, const ecc_end_stream *s), void *ctx);

/* ---------------- the scanner ---------------- */
/* Walks the chunks of a file in file order from a start offset, reading
 * through pread on a descriptor: chunk headers, and payloads on request.
 * Damage is reported as events, never as failures:
 *   ECC_EV_CHUNK   a chunk whose header decodes and whose payload lies in
 *                  the file (it may still fail ecc_chunk_check or its CRC)
 *   ECC_EV_DAMAGE  bytes [offset, offset + length) hold no chunk header;
 *                  the walk resumes after them (reason says why)
 *   ECC_EV_CUT     the file ends inside a chunk header or payload at offset
 *   ECC_EV_FOOTER  the 16-byte footer at the end of the file
 *   ECC_EV_END     nothing more
 *   ECC_EV_IOERR   a read failed (errno kept); the walk stops */
enum { ECC_EV_CHUNK = 1, ECC_EV_DAMAGE, ECC_EV_CUT, ECC_EV_FOOTER, ECC_EV_END, ECC_EV_IOERR };

typedef struct ecc_event {
    int type;
    uint64_t offset;                 /* of the chunk, damage, cut or footer */
    uint64_t length;                 /* CHUNK: header + payload; DAMAGE: bytes skipped */
    ecc_chunk chunk;                 /* CHUNK */
    uint64_t index_offset;           /* FOOTER */
    const char *reason;              /* DAMAGE, CUT */
} ecc_event;

typedef struct ecc_scan {
    int fd;
    uint64_t size, pos;
    int done;
    int ioerr;                       /* errno of a failed read */
    /* with ecc_scan_buffer: file bytes [boff, boff + blen) are in buf */
    uint8_t *buf;
    size_t cap, blen;
    uint64_t boff;
} ecc_scan;

void ecc_scan_init(ecc_scan *s, int fd, uint64_t size, uint64_t start);
/* Reads through buf (cap bytes, the caller's, at least one chunk header): the file in
 * windows of cap bytes read in one pread each, not a pread per chunk
 * header, and payloads that lie in the window there (ecc_scan_bytes). */
void ecc_scan_buffer(ecc_scan *s, uint8_t *buf, size_t cap);
/* After ecc_scan_buffer: buf already holds file bytes [off, off + n) (the
 * caller read them): the scan reads them from there, not again. */
void ecc_scan_filled(ecc_scan *s, uint64_t off, size_t n);
/* File bytes [off, off + n) if the scan's window holds them, else NULL. */
const uint8_t *ecc_scan_bytes(const ecc_scan *s, uint64_t off, uint64_t n);
/* The next event; s->pos moves past it. */
void ecc_scan_next(ecc_scan *s, ecc_event *ev);
/* Offset of the next valid chunk header (or footer) at or after from; the
 * file size if none. -1 on a read error. */
int64_t ecc_resync(int fd, uint64_t size, uint64_t from);
/* pread of exactly n bytes at off (EINTR retried): 0, or -1 with errno set
 * (EIO when the file is shorter). */
int ecc_read_at(int fd, void *buf, size_t n, uint64_t off);
/* Reads the payload of a chunk (event ev) into buf (ev->chunk.stored_length
 * bytes) and checks its CRC. NULL or why not. */
const char *ecc_read_payload(int fd, const ecc_event *ev, uint8_t *buf);

/* ---------------- run files (version 3: a merged run that keeps its chunks) ----------------
 * doc/trace-format.md, "Merged traces (version 3)": a run header, an index
 * (one 128-byte entry per member, then each member's stream table), the
 * per-rank traces byte for byte at 4096-byte boundaries, the index again,
 * the header again and a 16-byte footer naming that header copy. Every
 * part has its own CRC, so one damaged byte costs at most what it names,
 * and with the two copies nothing. */
#define ECC_RUN_VERSION_MAJOR 3
#define ECC_RUN_VERSION_MINOR 1
#define ECC_RUN_HEADER 192
#define ECC_RUN_MEMBER 128
#define ECC_RUN_STREAM 32            /* a stream-table row before its chunk offsets */
#define ECC_RUN_ALIGN 4096
#define ECC_RUN_NAME 32              /* bytes of a member's file name kept */
#define ECC_RUN_FOOTER_MAGIC "ECLRUNFT"

enum {                               /* how a member's clock was mapped (ecc_run_member.how) */
    ECC_CLOCK_REFERENCE = 0,         /* rank 0 itself */
    ECC_CLOCK_SAME = 1,              /* the same counter as rank 0 */
    ECC_CLOCK_DRIFT = 2,             /* offset and drift from two measurements */
    ECC_CLOCK_INIT = 3,              /* offset at MPI_Init only */
    ECC_CLOCK_FINALIZE = 4,          /* offset at MPI_Finalize only */
    ECC_CLOCK_WALL = 5,              /* no measurement: wall clock of the headers */
    ECC_CLOCK_NO_RANK0 = 6           /* rank 0 missing: the wall clock */
};

typedef struct ecc_run_header {
    uint16_t version_major, version_minor;
    uint32_t flags;                  /* ECC_HFLAG_MERGED */
    uint32_t members;
    int32_t size;                    /* MPI world size */
    uint8_t run_id[ECC_RUN_ID];
    int64_t realtime_offset_ns;      /* UNIX-epoch ns of merged time 0 */
    uint8_t clock_source;            /* rank 0's */
    uint64_t index_offset, index_length, index_copy;
    double origin_ns;                /* merged time 0 on rank 0's clock (ns) */
    char host[65];                   /* rank 0's, NUL-terminated */
} ecc_run_header;

typedef struct ecc_run_member {
    uint64_t offset, length;         /* the member's bytes in the run file */
    int32_t rank;                    /* from its header, -1 none */
    uint32_t process;                /* the process its records are read as */
    uint64_t streams_offset;         /* its stream table, from the start of the index */
    uint32_t streams_length, nstreams;
    char name[ECC_RUN_NAME + 1];     /* its file name when merged (cut), NUL-terminated */
    /* the clock model: merged ns = g0 + b * (ticks - t0) */
    uint8_t how;
    uint64_t t0;
    double g0, b;
} ecc_run_member;

typedef struct ecc_run_stream {
    uint32_t stream, nchunks;        /* records chunks, copies left out */
    uint64_t records, first_time, last_time;   /* times in the member's ticks */
} ecc_run_stream;

/* 1 if b (n bytes, the start of a file) is a version-3 run file's magic and version. */
int ecc_run_is(const uint8_t *b, size_t n);
void ecc_run_header_encode(uint8_t out[ECC_RUN_HEADER], const ecc_run_header *h);
/* NULL if b holds a good run header (magic, version, CRC), else why not. */
const char *ecc_run_header_decode(const uint8_t b[ECC_RUN_HEADER], ecc_run_header *h);
void ecc_run_footer_encode(uint8_t out[ECC_FOOTER], uint64_t header_copy);
int ecc_run_footer_decode(const uint8_t b[ECC_FOOTER], uint64_t *header_copy);
void ecc_run_member_encode(uint8_t out[ECC_RUN_MEMBER], const ecc_run_member *m);
/* Decodes entry b: returns a bit set, 1 = location part good (its CRC
 * holds), 2 = clock model good; m holds the good parts. */
int ecc_run_member_decode(const uint8_t b[ECC_RUN_MEMBER], ecc_run_member *m);
/* Stream table: 8 bytes (CRC-32 of the rest, count), then per stream a row
 * and its chunk offsets. Size, and encoding row by row into a table whose
 * CRC ecc_run_streams_seal sets (chunks NULL: the row only, the offsets
 * left to the caller, before the seal). */
size_t ecc_run_streams_size(uint32_t nstreams, uint64_t nchunks);
void ecc_run_streams_begin(uint8_t *out, uint32_t nstreams);
uint8_t *ecc_run_stream_encode(uint8_t *p, const ecc_run_stream *s, const uint64_t *chunks);
void ecc_run_streams_seal(uint8_t *out, size_t length);
/* NULL if the table (length bytes) is intact and well formed, else why not. */
const char *ecc_run_streams_check(const uint8_t *t, size_t length, uint32_t nstreams);
/* Row i's fields at *p (advanced past its chunk offsets); of a checked table. */
const uint8_t *ecc_run_stream_decode(const uint8_t *p, ecc_run_stream *s);

/* ---------------- output files ---------------- */
/* Every tool's output file (doc/tools.md, "Output files"): written as a new
 * file "<path>.tmp.<pid>.<n>" beside the target and renamed over it by
 * ecc_out_commit, so nothing partial or empty is ever left under the
 * target's name; ecc_out_abort removes it. A target that exists and is not
 * a regular file (device, FIFO, symbolic link, socket) is refused unless
 * ECC_OUT_THROUGH asks to write into it as it is (then not atomically).
 * Functions returning int give 0, or -1 with a message in err ("cannot
 * write 'x': No space left on device"). */
#define ECC_OUT_THROUGH 1u
typedef struct ecc_out ecc_out;
int ecc_out_open(const char *path, unsigned flags, ecc_out **out, char *err, size_t errlen);
/* For outputs another library creates itself (libotf2's archive): the
 * check ecc_out_open makes, on a name that will be created. */
int ecc_out_check(const char *path, unsigned flags, char *err, size_t errlen);
/* An output directory: created (0777 less the umask; *created set), or an
 * existing directory -- a symbolic link to one only with ECC_OUT_THROUGH;
 * anything else refused. */
int ecc_out_dir(const char *dir, unsigned flags, int *created, char *err, size_t errlen);
int ecc_out_fd(const ecc_out *o);
const char *ecc_out_name(const ecc_out *o);
int ecc_out_write(ecc_out *o, const void *buf, size_t n, char *err, size_t errlen);
int ecc_out_write_at(ecc_out *o, const void *buf, size_t n, uint64_t off, char *err,
                     size_t errlen);
int ecc_out_commit(ecc_out *o, char *err, size_t errlen);
void ecc_out_abort(ecc_out *o);

#endif /* ECL_CONTAINER_H */
