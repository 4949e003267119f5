/* pal.h -- PAL, the problem-oriented access library: read the records of any
 * trace described by an EDL dictionary, field by field, by name.
 *
 * Objects follow the EDL/PAL design: dictionary, record descriptor (+ iterator),
 * field descriptor (+ iterator), bind info, reader, record.
 *
 * Ownership: pal_reader_open/pal_dict_load/pal_names_create give objects the
 * caller frees with pal_reader_close/pal_dict_destroy/pal_names_destroy (NULL
 * accepted). Everything else is
 * borrowed: descriptors and handles live as long as their reader or dictionary;
 * a record returned by pal_reader_next, and the strings read from it, stay valid
 * until the next call to pal_reader_next or pal_reader_close.
 * A reader's dictionary may grow while reading (record types registered during
 * the traced run); descriptors already handed out never change or move. */
#ifndef PAL_H
#define PAL_H

/* The version of ECL (the package) this header belongs to, for code that
 * must build against several: PAL_VERSION_NUMBER is MAJOR*10000 + MINOR*100
 * + PATCH. tests/build/version.sh checks them against configure.ac. */
#define PAL_VERSION_MAJOR 0
#define PAL_VERSION_MINOR 1
#define PAL_VERSION_PATCH 0
#define PAL_VERSION_STRING "0.1.0"
#define PAL_VERSION_NUMBER (PAL_VERSION_MAJOR * 10000 + PAL_VERSION_MINOR * 100 + PAL_VERSION_PATCH)

#include <stddef.h>
#include <stdint.h>

#include "edl-roles.h"   /* the role list, shared with edl.h */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PAL_BUILDING) && defined(__GNUC__)
#define PAL_API __attribute__((visibility("default")))
#else
#define PAL_API
#endif

typedef enum pal_status {
    PAL_OK = 0,
    PAL_END,        /* no more records */
    PAL_ENOFIELD,   /* the record has no field of that name */
    PAL_ETYPE,      /* the field exists but has another type (e.g. string read as integer) */
    PAL_ERANGE,     /* the value does not fit the requested type */
    PAL_EIO,        /* cannot open or read a file */
    PAL_EFORMAT,    /* not a trace/dictionary of a known format, or damaged (strict mode) */
    PAL_ENODICT,    /* the trace needs a dictionary (-d) and none was given */
    PAL_ENOMEM,
    PAL_EINVAL,     /* bad argument */
    PAL_EUNDEF      /* the id has no definition (yet): see pal_names */
} pal_status;

typedef enum pal_type {
    PAL_INT8 = 1, PAL_INT16, PAL_INT32, PAL_INT64,
    PAL_UINT8, PAL_UINT16, PAL_UINT32, PAL_UINT64,
    PAL_FLOAT32, PAL_FLOAT64, PAL_STRING,
    PAL_ARRAY       /* a variable part: items of one or more components (see "Arrays") */
} pal_type;

/* Record roles: what a record is (the first group, one per record) and what
 * else it is (doc/edl.md, "Roles"). The codes are the dictionary's
 * (doc/dictionary-format.md). */
#define PAL_ROLE_ENUM_(name, code, text) PAL_ROLE_##name = code,
typedef enum pal_record_role {
    PAL_ROLE_NONE = 0,
    EDL_RECORD_ROLE_LIST(PAL_ROLE_ENUM_)
    PAL_ROLE_LIMIT = 64
} pal_record_role;
#undef PAL_ROLE_ENUM_

/* Field roles: what a field's value means; at most one field of a record has
 * each. Timestamp, process and thread include the header's designations. */
#define PAL_FROLE_ENUM_(name, code, text) PAL_FROLE_##name = code,
typedef enum pal_field_role {
    PAL_FROLE_NONE = 0,
    EDL_FIELD_ROLE_LIST(PAL_FROLE_ENUM_)
    PAL_FROLE_LIMIT
} pal_field_role;
#undef PAL_FROLE_ENUM_

typedef struct pal_dict pal_dict;
typedef struct pal_recdesc pal_recdesc;
typedef struct pal_fielddesc pal_fielddesc;
typedef struct pal_bindinfo pal_bindinfo;
typedef struct pal_reader pal_reader;
typedef struct pal_record pal_record;
typedef struct pal_handle pal_handle;
typedef struct pal_names pal_names;

/* Iterators: plain structs on the caller's stack. */
typedef struct pal_recdesc_iter { const pal_dict *dict; size_t next; } pal_recdesc_iter;
typedef struct pal_field_iter { const pal_recdesc *rec; size_t next; } pal_field_iter;

PAL_API const char *pal_status_string(pal_status s);

/* ---------------- Dictionary ---------------- */
/* Loads a dictionary: a binary dictionary file (edlc output) or an EDL source,
 * which is compiled in memory (told apart by the binary form's magic). For a
 * source with errors, pal_last_error() holds the first diagnostic. */
PAL_API pal_status pal_dict_load(const char *path, pal_dict **out);
PAL_API void pal_dict_destroy(pal_dict *d);
PAL_API const char *pal_dict_name(const pal_dict *d);
PAL_API const char *pal_dict_version(const pal_dict *d);
PAL_API const char *pal_dict_representation(const pal_dict *d);   /* "binary" or "ascii" */
PAL_API const char *pal_dict_time_field(const pal_dict *d);       /* "" if none */
PAL_API const char *pal_dict_time_unit(const pal_dict *d);
PAL_API size_t pal_dict_record_count(const pal_dict *d);
PAL_API const pal_recdesc *pal_dict_record(const pal_dict *d, size_t i);
PAL_API const pal_recdesc *pal_dict_find_record(const pal_dict *d, const char *name);
PAL_API const pal_bindinfo *pal_dict_bindinfo(const pal_dict *d);
/* Prints the dictionary as EDL source (that compiles back to it) to a FILE*
 * passed as void*. */
PAL_API void pal_dict_print(const pal_dict *d, void *file);
/* Text from a trace (names, string values) made safe for a terminal or a
 * text file -- the one rule of every text output (pal-dump, pal-view's text
 * views; doc/tools.md, "Text output"): valid UTF-8 that prints stays as it
 * is; newline, tab and carriage return become \n \t \r, a backslash \\,
 * with PAL_TEXT_QUOTE a double quote \"; every other control character
 * (C0, DEL, the C1 range U+0080..U+009F) and every byte that is not part of
 * valid UTF-8 becomes \xHH, one per byte. So no trace can move the cursor,
 * erase a line or fake a line of output. Writes s[0..n) escaped into buf
 * (NUL-terminated when size > 0, cut at an escape's boundary) and returns
 * the length it needed, like snprintf. */
#define PAL_TEXT_QUOTE 1u
/* The bytes (1..4) of the well-formed UTF-8 character that starts s[0..n),
 * or 0 when none does (a bad lead byte, an overlong form, a surrogate,
 * beyond U+10FFFF, cut short) -- the test every escaping of PAL's tools
 * makes. */
PAL_API size_t pal_utf8_length(const char *s, size_t n);
PAL_API size_t pal_text_escape(char *buf, size_t size, const char *s, size_t n, unsigned flags);
/* The same, written to a FILE* passed as void*, left-aligned in width bytes
 * (0: no padding). */
PAL_API void pal_text_print(void *file, const char *s, size_t n, unsigned flags, int width);

/* RecordDIterator */
PAL_API void pal_dict_records(const pal_dict *d, pal_recdesc_iter *it);
PAL_API const pal_recdesc *pal_recdesc_next(pal_recdesc_iter *it);   /* NULL at end */

/* ---------------- RecordDescriptor ---------------- */
PAL_API const char *pal_recdesc_name(const pal_recdesc *r);
PAL_API const char *pal_recdesc_description(const pal_recdesc *r);
PAL_API size_t pal_recdesc_index(const pal_recdesc *r);
PAL_API size_t pal_recdesc_field_count(const pal_recdesc *r);
PAL_API const pal_fielddesc *pal_recdesc_field(const pal_recdesc *r, size_t i);
PAL_API const pal_fielddesc *pal_recdesc_find_field(const pal_recdesc *r, const char *name);

/* FieldDIterator */
PAL_API void pal_recdesc_fields(const pal_recdesc *r, pal_field_iter *it);
PAL_API const pal_fielddesc *pal_field_next(pal_field_iter *it);      /* NULL at end */

/* ---------------- FieldDescriptor ---------------- */
PAL_API const char *pal_field_name(const pal_fielddesc *f);
PAL_API pal_type pal_field_type(const pal_fielddesc *f);
PAL_API const char *pal_field_type_name(const pal_fielddesc *f);     /* "uint32", ... */
PAL_API const char *pal_field_encoding(const pal_fielddesc *f);      /* "ULEB", ... */
PAL_API const char *pal_field_unit(const pal_fielddesc *f);          /* "" if none */
PAL_API const char *pal_field_description(const pal_fielddesc *f);   /* "" if none */
PAL_API size_t pal_field_index(const pal_fielddesc *f);

/* ---------------- Meaning: roles and references ---------------- */
/* A tool finds what records mean through these, never through record or
 * field names. Names of roles as EDL writes them ("enter", "bytes_sent"), NULL
 * for an unknown code; from a name, PAL_ROLE_NONE / PAL_FROLE_NONE when
 * unknown. */
PAL_API const char *pal_record_role_name(pal_record_role role);
PAL_API pal_record_role pal_record_role_by_name(const char *name);
PAL_API const char *pal_field_role_name(pal_field_role role);
PAL_API pal_field_role pal_field_role_by_name(const char *name);

/* The next record descriptor of d after `after` (NULL: from the first) that
 * has role, every record of it or only records whose field has the role's
 * value; NULL when there is no more (or d NULL, a bad role). */
PAL_API const pal_recdesc *pal_dict_find_role(const pal_dict *d, pal_record_role role,
                                              const pal_recdesc *after);
/* 1: every record of type r has role; 2: records whose field has the role's
 * value (pal_record_has_role says which); 0: none. */
PAL_API int pal_recdesc_has_role(const pal_recdesc *r, pal_record_role role);
/* The region an enter, leave or call record names by text (REGION IS); "" when
 * its region comes from a field (role region) or it has none. */
PAL_API const char *pal_recdesc_region(const pal_recdesc *r);
/* The operation of a collective record (OPERATION IS: "bcast", "allreduce",
 * ...; doc/edl.md, "Collective operations"); "" when none is given. */
PAL_API const char *pal_recdesc_operation(const pal_recdesc *r);
/* The field of r with role, NULL if none. */
PAL_API const pal_fielddesc *pal_recdesc_role_field(const pal_recdesc *r, pal_field_role role);
/* The role of a field (the header's designations included). */
PAL_API pal_field_role pal_field_role_of(const pal_fielddesc *f);
/* The definition a field's id refers to: its record and field names (the
 * record's field with role name names the id), and whether ids are global
 * (1) or per process (0). PAL_OK; PAL_ENOFIELD when the field is no
 * reference; PAL_EINVAL for NULL f. Outputs may be NULL. */
PAL_API pal_status pal_field_reference(const pal_fielddesc *f, const char **record,
                                       const char **field, int *global);

/* ---------------- BindInfo ---------------- */
PAL_API unsigned pal_bindinfo_key_count(const pal_bindinfo *b);       /* 0 = DEFAULT */
PAL_API unsigned pal_bindinfo_key_index(const pal_bindinfo *b, unsigned which);
PAL_API size_t pal_bindinfo_count(const pal_bindinfo *b);
/* key2 is NULL when the entry has one key. */
PAL_API pal_status pal_bindinfo_entry(const pal_bindinfo *b, size_t i, const char **key1,
                                      const char **key2, const pal_recdesc **rec);

/* ---------------- Reader ---------------- */
/* Damage and warning reports go to this callback (default: stderr, one line each,
 * "trace.ecl: byte 4096: chunk payload CRC mismatch, chunk skipped"). */
typedef void (*pal_diag_fn)(void *ctx, const char *message);

typedef struct pal_trace_info {
    double ticks_per_second;      /* of the time field; 1e9 for "ns" */
    int64_t realtime_offset_ns;   /* UNIX-epoch ns at time 0, or 0 if unknown */
    int clock_source;             /* 1 monotonic, 2 cycle counter, 3 realtime, 0 unknown */
    uint32_t pid;
    int32_t rank, size;           /* -1 if unknown */
    uint64_t start_time;
    char host[65];
} pal_trace_info;

typedef struct pal_reader_stats {
    size_t size;                  /* the bytes of the struct PAL filled: the caller's
                                   * sizeof (pal_reader_get_stats passes it), at most
                                   * this header's; fields past it were not written */
    uint64_t records;             /* records returned */
    uint64_t chunks;              /* good chunks read */
    uint64_t damaged;             /* damaged chunks (or bad lines) reported and skipped */
    uint64_t bytes_skipped;       /* bytes passed over because of damage */
    int truncated;                /* a file ends inside a chunk */
    uint32_t files;               /* files read */
    uint32_t not_closed;          /* of them, not closed by their writer: the process was
                                   * killed (or still runs); its last buffers are missing */
    uint32_t signaled;            /* of them, flushed on a fatal signal of the program */
    uint64_t chunks_missing;      /* chunks the writers' end summaries count, not found */
    uint64_t lost;                /* records the writers dropped and counted */
    uint32_t ranks_missing;       /* a run: ranks of the run without a file */
    uint32_t clock_fallbacks;     /* a run: ranks whose clock could not be fully corrected */
    uint32_t files_unreadable;    /* a run: files that could not be opened (named in a
                                   * message); the others were read */
    uint32_t streams;             /* streams of records the files hold, ECL definitions
                                   * streams left out: the threads (pal_reader_set_share);
                                   * 0 for a trace read as one stream (ascii, raw, OTF2) */
    uint32_t files_indexed;       /* ECL files (a run file's members) whose chunks were
                                   * found at open through their own index: only the bytes
                                   * around chunk headers read, not the whole file */
} pal_reader_stats;

/* Whether what was read is less than what was recorded: damage, a file cut
 * short, a writer not closed or ended by a signal, chunks or ranks missing,
 * records dropped at capture (lost). Every tool exits with status 2 then
 * (doc/tools.md, "Exit status"). 0 for NULL st. */
PAL_API int pal_stats_partial(const pal_reader_stats *st);

/* Opens a trace. dict_path NULL: the dictionary embedded in the trace; else a
 * binary dictionary or an EDL source (see pal_dict_load) that describes an ECL
 * trace, a raw binary record stream or an ascii (line) trace. Messages
 * for failures are available from pal_reader_error on the returned reader, or,
 * when *out is NULL, from pal_last_error(). */
PAL_API pal_status pal_reader_open(const char *path, const char *dict_path, pal_reader **out);
/* Opens the per-rank traces of one run -- files, or directories whose *.ecl
 * per-rank traces are taken (a directory holding only a merged trace reads
 * that) -- as one stream in time order: times in ns of rank 0's clock from
 * the run's start (offset and drift corrected from the MPI layer's clock
 * measurements), each record's process its rank, and one dictionary for the
 * run (a record type that differs between files is named
 * "<name>_p<process>"). One path that is a file reads that file as
 * pal_reader_open does. Memory is bounded by the number of threads, not by
 * the length of the traces (doc/pal.md, "Reading a run").
 * PAL_EFORMAT: traces of different runs (unless PAL_OPEN_FORCE), two files of
 * one rank, a merged trace among per-rank ones, a foreign format. A file that
 * cannot be read (missing, unreadable, its header damaged) is named in a
 * message and left out (pal_reader_stats.files_unreadable); PAL_EIO when no
 * file can be read. Files are opened as they are read, within half the
 * descriptor limit, so any number of files can be read. */
#define PAL_OPEN_FORCE 1u         /* read traces of different runs together */
#define PAL_OPEN_AS_RUN 2u        /* one file too is read as a run (times in ns) */
PAL_API pal_status pal_reader_open_run(const char *const *paths, size_t n, const char *dict_path,
                                       unsigned flags, pal_reader **out);
PAL_API void pal_reader_close(pal_reader *r);
PAL_API const char *pal_last_error(void);                  /* thread-local, for failed opens */
PAL_API const pal_dict *pal_reader_dict(const pal_reader *r);
PAL_API pal_status pal_reader_info(const pal_reader *r, pal_trace_info *info);
/* The start of the trace or run in the nanoseconds of pal_record_time_ns:
 * the header's start time (ECL files and runs), else 0 (the format's own
 * zero). Times "from the start" are pal_record_time_ns(rec) minus this, as
 * pal-dump prints them; 0 for NULL r. */
PAL_API int64_t pal_reader_start_ns(const pal_reader *r);
PAL_API void pal_reader_set_diag(pal_reader *r, pal_diag_fn fn, void *ctx);
/* Strict: the first damage ends reading with PAL_EFORMAT instead of skip-and-count.
 * Ascii traces: a bad line is reported as "run.trf:118:14: record 'send': field
 * 'bytes': expected int64, got 'x'" (file:line:column), counted in
 * pal_reader_stats.damaged and skipped, or, in strict mode, ends reading. */
PAL_API void pal_reader_set_strict(pal_reader *r, int strict);
/* Restricts r, before its first pal_reader_next, to share k of n of its
 * streams, for n readers that read one trace or run in parallel (pal-view
 * -j N): by file when r has at least n files (in blocks: file i of m is
 * share i * n / m), else
 * by thread: the rank of each (process, stream) in their order, the ECL
 * definitions streams (stream 0) left out, is share rank % n; a file's
 * definitions stream is the share's of its first thread. A trace of one
 * stream (ascii, raw, OTF2, a version-2 merge) is share 0's. The share's
 * records still come in time order; the other streams' chunks are never
 * decoded. The events of r (pal_events_create) also read the definitions
 * streams of the files whose threads the share reads, for their names:
 * those definitions come as PAL_EVF_BORROWED events, nothing else of them.
 * pal_reader_stats.streams says how many threads there are to share. PAL_OK;
 * PAL_EINVAL for k >= n, n 0, or a reader already read. */
PAL_API pal_status pal_reader_set_share(pal_reader *r, unsigned k, unsigned n);
/* Next record; PAL_END at the end of the trace. */
PAL_API pal_status pal_reader_next(pal_reader *r, const pal_record **out);
PAL_API const char *pal_reader_error(const pal_reader *r);  /* last message, "" if none */
/* Fills the first size bytes of *st (a program built with an older, shorter
 * struct gets the fields it knows) and sets st->size; pal_reader_get_stats
 * passes sizeof *st. Nothing for a size below sizeof(size_t). */
PAL_API void pal_reader_get_stats_sized(const pal_reader *r, pal_reader_stats *st, size_t size);
#define pal_reader_get_stats(r, st) pal_reader_get_stats_sized((r), (st), sizeof *(st))

/* A handle names a field once for every record type that has it; getting a
 * field through a handle is an array lookup. Owned by the reader. */
PAL_API pal_status pal_reader_handle(pal_reader *r, const char *field_name, const pal_handle **out);
/* A handle on the field with role in every record type, used with the same
 * getters as name handles (pal_record_i64, ...): as fast, and the tool needs
 * no field name. It works with records of any reader. PAL_OK; PAL_ENOFIELD
 * when no record type of r's dictionary has a field with role (the
 * description lacks it: say which role is missing); PAL_EINVAL for a bad
 * role or NULL argument. */
PAL_API pal_status pal_reader_role_handle(pal_reader *r, pal_field_role role,
                                          const pal_handle **out);

/* ---------------- Merge ---------------- */
/* Merges the per-rank traces of one run (as pal_reader_open_run takes them)
 * into one time-sorted, clock-corrected trace at output: the run's stream
 * written back (doc/trace-format.md, "Merged traces"). The output is written
 * under a temporary name and renamed into place; a target that is a device,
 * FIFO or symbolic link is refused unless out_flags has PAL_OUT_THROUGH.
 * Returns PAL_OK when the merged trace was written; result.problems then
 * counts what was reported through diag (damage, missing ranks, clocks that
 * could not be corrected, unmatched messages): 0 means a clean merge. Other
 * statuses: nothing was written (pal_last_error says why) -- PAL_EIO (an
 * input cannot be read, the output cannot be written), PAL_EFORMAT (not
 * traces of one run, or already merged), PAL_ENOMEM. */
#define PAL_OUT_THROUGH 1u        /* write into an existing non-regular file */

typedef struct pal_merge_options {
    size_t size;                  /* sizeof(pal_merge_options), as pal_merge_options_default
                                   * sets it: a program built with an older, shorter struct
                                   * passes its size, and the fields it lacks take their
                                   * defaults (PAL_EINVAL when it does not cover compress) */
    int compress;                 /* output chunks: -1 the format's default, 0 none, 1 zlib,
                                   * 2 zstd; format 3: what the raw records chunks become */
    int level;                    /* compression level, 0 = fastest */
    size_t chunk_size;            /* raw bytes per output chunk */
    int check;                    /* pair sends with receives: -1 the format's default
                                   * (2: on; 3: off, it reads the run again), 0 off, 1 on */
    unsigned open_flags;          /* PAL_OPEN_FORCE */
    unsigned out_flags;           /* PAL_OUT_THROUGH */
    int ranks;                    /* the run had this many ranks (0: as the headers say) */
    int verbose;                  /* also say how each rank's clock was corrected */
    pal_diag_fn diag;             /* problems, one line each (NULL: not said) */
    void *diag_ctx;
    /* added later: a shorter struct gets their defaults */
    int format;                   /* 3 (default): the run file, chunks kept as written, clocks
                                   * corrected when read; 2: records decoded, corrected and
                                   * written again into one time-sorted stream */
    /* progress (format 3), now and then: phase 0, files opened and checked of
     * all; phase 1, bytes copied of all (NULL: none). Kept as written, each
     * file is copied as it is opened: phase 1 is told once, at its end */
    void (*progress)(void *ctx, int phase, uint64_t done, uint64_t total);
    void *progress_ctx;
} pal_merge_options;

typedef struct pal_merge_result {
    uint64_t records;             /* records written (format 3: in the chunks kept) */
    uint64_t chunks;              /* records chunks written (format 3: kept) */
    uint32_t files, ranks;        /* inputs read, and how many had a rank */
    uint32_t missing;             /* ranks of the run without a file */
    uint32_t incomplete;          /* files not closed by their writer */
    uint64_t damaged;             /* damaged chunks skipped */
    uint32_t clock_fallback;      /* ranks merged without two clock measurements */
    uint64_t messages;            /* sends paired with receives */
    uint64_t violations;          /* receives completing before their send began */
    double max_violation_ns;
    uint64_t unmatched_sends, unmatched_recvs;
    uint64_t completion_unknown;  /* sends taken by receives freed while active */
    uint64_t problems;            /* messages sent to diag */
} pal_merge_result;

/* Defaults: format 3; compress -1 (format 3: none, the chunks kept as
 * written; format 2: zstd when built with it, else zlib) at the fastest
 * level, 64 KiB chunks, check -1 (format 2 only); size set. Call it first, then change
 * fields. Format 3 copies the per-rank traces without decoding them, with
 * compress > 0 compressing the records chunks written raw on the way (up to
 * 8 threads), and with check > 0 reads the run once written and pairs its
 * messages with the event layer's matcher (else result.messages stays 0);
 * chunk_size applies to format 2 only. PAL_EINVAL for a compression this
 * build lacks. */
PAL_API void pal_merge_options_default(pal_merge_options *o);
PAL_API pal_status pal_merge(const char *const *inputs, size_t n, const char *output,
                             const pal_merge_options *o, pal_merge_result *result);

/* ---------------- Writing ---------------- */
/* A trace written record by record (doc/pal.md, "Writing a trace"): the
 * records of the record types of a dictionary `like` (any: pal_dict_load's,
 * or pal_reader_dict of the trace read), each at a time in ns for a
 * (process, stream), written as one merged ECL trace (doc/trace-format.md,
 * format 2) that every reader and view reads. Its dictionary is like's,
 * binary: each record type with a type number, the time (ns), process and
 * thread, then like's other fields (the key, time, process and thread
 * fields of like are these; arrays are left out), fields with role
 * duration in ns, the roles as like has them. Records may be given in any
 * order; they are kept in memory (about their values' size) and written
 * in time order (ties in the order given) at close, under a temporary name
 * renamed into place; a target that is a device, FIFO or symbolic link is
 * refused unless flags has PAL_OUT_THROUGH. like must stay valid until
 * close; record types it gains meanwhile (a reader's) are written too. */
typedef struct pal_trace_writer pal_trace_writer;

/* PAL_OK; PAL_EIO when path cannot be written there (pal_last_error names
 * it), PAL_ENOMEM, PAL_EINVAL. */
PAL_API pal_status pal_trace_writer_create(const char *path, const pal_dict *like,
                                           unsigned flags, pal_trace_writer **out);
/* Begins a record of type (a descriptor of like) at time_ns (>= 0, else
 * PAL_ERANGE) of process and stream; its fields are 0 and "" until set.
 * PAL_EINVAL: type is not like's. */
PAL_API pal_status pal_trace_writer_begin(pal_trace_writer *w, const pal_recdesc *type,
                                          int64_t time_ns, uint32_t process, uint32_t stream);
/* Sets a field of the record begun, by name or by its field descriptor
 * (pal_recdesc_find_field, once per type): PAL_ENOFIELD (the type has no
 * such field), PAL_ETYPE (a string for a number or the reverse, a float for
 * an integer), PAL_ERANGE (a negative value for an unsigned field); an
 * integer for a float field is converted. A string is copied at put, so it
 * must stay valid until then. Setting the key, time, process or thread
 * field does nothing: begin gave them. */
PAL_API pal_status pal_trace_writer_set_i64(pal_trace_writer *w, const char *field, int64_t v);
PAL_API pal_status pal_trace_writer_set_u64(pal_trace_writer *w, const char *field, uint64_t v);
PAL_API pal_status pal_trace_writer_set_f64(pal_trace_writer *w, const char *field, double v);
PAL_API pal_status pal_trace_writer_set_str(pal_trace_writer *w, const char *field,
                                            const char *s, size_t len);
PAL_API pal_status pal_trace_writer_field_i64(pal_trace_writer *w, const pal_fielddesc *f,
                                              int64_t v);
PAL_API pal_status pal_trace_writer_field_u64(pal_trace_writer *w, const pal_fielddesc *f,
                                              uint64_t v);
PAL_API pal_status pal_trace_writer_field_f64(pal_trace_writer *w, const pal_fielddesc *f,
                                              double v);
PAL_API pal_status pal_trace_writer_field_str(pal_trace_writer *w, const pal_fielddesc *f,
                                              const char *s, size_t len);
/* Sets every field of the record begun from rec, a record of its type read
 * with like, or with another dictionary of the same trace (a second reader:
 * same type name and fields), its duration converted to ns; then set what
 * differs. PAL_EINVAL: rec is of another type. */
PAL_API pal_status pal_trace_writer_copy(pal_trace_writer *w, const pal_record *rec);
/* Ends the record begun (PAL_EINVAL: none); PAL_ENOMEM. */
PAL_API pal_status pal_trace_writer_put(pal_trace_writer *w);
/* Records put so far. */
PAL_API uint64_t pal_trace_writer_records(const pal_trace_writer *w);
/* Writes the trace and frees w: PAL_OK, or PAL_EIO / PAL_ENOMEM / PAL_EINVAL
 * (a field the format cannot hold) with err (and pal_last_error) naming the
 * file and saying why; nothing is then left under path. */
PAL_API pal_status pal_trace_writer_close(pal_trace_writer *w, char *err, size_t errlen);
/* Gives up: nothing is written; frees w (NULL accepted). */
PAL_API void pal_trace_writer_abort(pal_trace_writer *w);

/* ---------------- Record ---------------- */
PAL_API const pal_recdesc *pal_record_desc(const pal_record *rec);
PAL_API uint64_t pal_record_time(const pal_record *rec);     /* designated time field, 0 if none
                                                              * (ascii: in ns, negative as 0) */
/* The record's time in nanoseconds for any format: the time field (integer in
 * ticks or a unit, float in seconds, or split seconds + fraction) scaled by its
 * unit or the trace's ticks per second; may be negative; 0 if none. */
PAL_API int64_t pal_record_time_ns(const pal_record *rec);
/* Ascii traces: the record's 1-based line number (0 for binary traces). */
PAL_API uint64_t pal_record_line(const pal_record *rec);
/* 0 when field i is an OPTIONAL field missing from this record (its getters
 * then return PAL_ENOFIELD) or out of range; 1 otherwise. */
PAL_API int pal_record_present(const pal_record *rec, size_t i);
PAL_API uint32_t pal_record_process(const pal_record *rec);  /* rank, or 0 if unknown */
PAL_API uint32_t pal_record_stream(const pal_record *rec);   /* thread stream id */
PAL_API uint64_t pal_record_offset(const pal_record *rec);   /* byte offset of its chunk or line */

/* By name. Integer getters accept any integer field (PAL_ERANGE if the value does
 * not fit); pal_record_get_f64 also accepts integer fields; strings are not
 * NUL-terminated in general: use len. */
PAL_API pal_status pal_record_get_i64(const pal_record *rec, const char *field, int64_t *out);
PAL_API pal_status pal_record_get_u64(const pal_record *rec, const char *field, uint64_t *out);
PAL_API pal_status pal_record_get_f64(const pal_record *rec, const char *field, double *out);
PAL_API pal_status pal_record_get_str(const pal_record *rec, const char *field,
                                      const char **s, size_t *len);
/* By handle: same rules, PAL_ENOFIELD when this record's type lacks the field. */
PAL_API pal_status pal_record_i64(const pal_record *rec, const pal_handle *h, int64_t *out);
PAL_API pal_status pal_record_u64(const pal_record *rec, const pal_handle *h, uint64_t *out);
PAL_API pal_status pal_record_f64(const pal_record *rec, const pal_handle *h, double *out);
PAL_API pal_status pal_record_str(const pal_record *rec, const pal_handle *h,
                                  const char **s, size_t *len);
/* Arrays (fields of type PAL_ARRAY, ascii traces): an array holds count items,
 * each of one or more components (an item shape such as "%d%lf" is an int64
 * and a float64). Getters take the item index and the component index (0 for
 * single-component items): PAL_ETYPE when the field is not an array or the
 * component has another type, PAL_ERANGE when item or component is out of
 * range (or the value does not fit), PAL_ENOFIELD when the record lacks it. */
PAL_API pal_status pal_record_get_count(const pal_record *rec, const char *field, size_t *count);
PAL_API pal_status pal_record_count(const pal_record *rec, const pal_handle *h, size_t *count);
/* Components per item of this record's array (the shape may vary by record). */
PAL_API pal_status pal_record_get_components(const pal_record *rec, const char *field,
                                             size_t *n);
/* Type of component comp of array field index field in this record; 0 if none. */
PAL_API pal_type pal_record_item_type(const pal_record *rec, size_t field, size_t comp);
PAL_API pal_status pal_record_get_item_i64(const pal_record *rec, const char *field, size_t item,
                                           size_t comp, int64_t *out);
PAL_API pal_status pal_record_get_item_u64(const pal_record *rec, const char *field, size_t item,
                                           size_t comp, uint64_t *out);
PAL_API pal_status pal_record_get_item_f64(const pal_record *rec, const char *field, size_t item,
                                           size_t comp, double *out);
PAL_API pal_status pal_record_get_item_str(const pal_record *rec, const char *field, size_t item,
                                           size_t comp, const char **s, size_t *len);
PAL_API pal_status pal_record_item_i64(const pal_record *rec, const pal_handle *h, size_t item,
                                       size_t comp, int64_t *out);
PAL_API pal_status pal_record_item_u64(const pal_record *rec, const pal_handle *h, size_t item,
                                       size_t comp, uint64_t *out);
PAL_API pal_status pal_record_item_f64(const pal_record *rec, const pal_handle *h, size_t item,
                                       size_t comp, double *out);
PAL_API pal_status pal_record_item_str(const pal_record *rec, const pal_handle *h, size_t item,
                                       size_t comp, const char **s, size_t *len);

/* Whether rec has role: its type has it for every record, or the field the
 * role depends on (ROLE IS recv WHEN kind IS "1") has the value. 0 or 1. */
PAL_API int pal_record_has_role(const pal_record *rec, pal_record_role role);
/* The value of rec's field with role duration, which is in the timestamp's
 * unit, in nanoseconds (ticks converted with the trace's rate, rounded).
 * PAL_OK; PAL_ENOFIELD when rec's type has no duration field or this record
 * lacks it (OPTIONAL); PAL_ERANGE when it does not fit. */
PAL_API pal_status pal_record_duration_ns(const pal_record *rec, int64_t *ns);

/* ---------------- Names: references resolved ---------------- */
/* A name table collects what definition records define (region_def: id 4 is
 * "compute") as records go by, so that an id in a later record resolves to
 * its name (region="compute"). Feed it every record, in trace order, before
 * asking about it; ids are kept per process unless the reference is GLOBAL.
 * Independent of readers: one table may be fed from several. */
/* PAL_OK, PAL_ENOMEM, PAL_EINVAL (NULL out). */
PAL_API pal_status pal_names_create(pal_names **out);
PAL_API void pal_names_destroy(pal_names *n);
/* Remembers the names rec defines (nothing when its type is no reference's
 * target). PAL_OK, PAL_ENOMEM, PAL_EINVAL (NULL argument). */
PAL_API pal_status pal_names_add(pal_names *n, const pal_record *rec);
/* The name the id in field i of rec refers to; the string stays valid while
 * n lives. PAL_OK; PAL_ENOFIELD: no field i, the field is no reference, or it
 * is an OPTIONAL field missing from rec, or the definition names nothing (no
 * field with role name); PAL_EUNDEF: no definition of that id was added;
 * PAL_EINVAL: NULL argument. */
PAL_API pal_status pal_names_field(const pal_names *n, const pal_record *rec, size_t i,
                                   const char **s, size_t *len);
/* The same for the field h names in rec (a name or role handle). */
PAL_API pal_status pal_names_handle(const pal_names *n, const pal_record *rec,
                                    const pal_handle *h, const char **s, size_t *len);
/* The name of rec's thread (pal_record_stream) or process (pal_record_process),
 * when the THREAD / PROCESS designation refers to a definition
 * (THREAD IS CONTAINER REFERS TO thread_def.stream). Statuses as above
 * (PAL_ENOFIELD: the designation is no reference). */
PAL_API pal_status pal_names_thread(const pal_names *n, const pal_record *rec, const char **s,
                                    size_t *len);
PAL_API pal_status pal_names_process(const pal_names *n, const pal_record *rec, const char **s,
                                     size_t *len);

/* Formats field i as text ("42", "3.5", the string as is; arrays "[400,100,7]",
 * items of several components "[(-22,7.2e-05),(3,1.5)]"; "" for an absent
 * field); returns the length it needed, like snprintf. */
PAL_API size_t pal_record_format(const pal_record *rec, size_t i, char *buf, size_t size);

/* ---------------- Vocabulary: collective operations and one-sided kinds ---------------- */
/* One table each, expanded wherever a layer needs the list (EDL's OPERATION
 * IS, the OTF2 import and export, the event layer): X(ID, "name", OTF2
 * collective op, OTF2 region role) in the order of doc/edl.md, "Collective
 * operations"; the OTF2 columns are the suffixes of OTF2_COLLECTIVE_OP_ and
 * OTF2_REGION_ROLE_. */
#define PAL_COLLECTIVE_OPS(X)                                                   \
    X(BARRIER, "barrier", BARRIER, BARRIER)                                     \
    X(BCAST, "bcast", BCAST, COLL_ONE2ALL)                                      \
    X(GATHER, "gather", GATHER, COLL_ALL2ONE)                                   \
    X(GATHERV, "gatherv", GATHERV, COLL_ALL2ONE)                                \
    X(SCATTER, "scatter", SCATTER, COLL_ONE2ALL)                                \
    X(SCATTERV, "scatterv", SCATTERV, COLL_ONE2ALL)                             \
    X(ALLGATHER, "allgather", ALLGATHER, COLL_ALL2ALL)                          \
    X(ALLGATHERV, "allgatherv", ALLGATHERV, COLL_ALL2ALL)                       \
    X(ALLTOALL, "alltoall", ALLTOALL, COLL_ALL2ALL)                             \
    X(ALLTOALLV, "alltoallv", ALLTOALLV, COLL_ALL2ALL)                          \
    X(ALLTOALLW, "alltoallw", ALLTOALLW, COLL_ALL2ALL)                          \
    X(ALLREDUCE, "allreduce", ALLREDUCE, COLL_ALL2ALL)                          \
    X(REDUCE, "reduce", REDUCE, COLL_ALL2ONE)                                   \
    X(REDUCE_SCATTER, "reduce_scatter", REDUCE_SCATTER, COLL_ALL2ALL)           \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block", REDUCE_SCATTER_BLOCK,       \
      COLL_ALL2ALL)                                                             \
    X(SCAN, "scan", SCAN, COLL_ALL2ALL)                                         \
    X(EXSCAN, "exscan", EXSCAN, COLL_ALL2ALL)

/* X(ID, "name", record role suffix, OTF2 RMA event) */
#define PAL_RMA_KINDS(X)                                                        \
    X(PUT, "put", RMA_PUT, RmaPut)                                              \
    X(GET, "get", RMA_GET, RmaGet)                                              \
    X(ATOMIC, "atomic", RMA_ATOMIC, RmaAtomic)                                  \
    X(WIN_CREATE, "win_create", RMA_WIN_CREATE, RmaWinCreate)                   \
    X(WIN_FREE, "win_free", RMA_WIN_FREE, RmaWinDestroy)                        \
    X(SYNC, "sync", RMA_SYNC, RmaSync)                                          \
    X(LOCK, "lock", RMA_LOCK, RmaRequestLock)                                   \
    X(UNLOCK, "unlock", RMA_UNLOCK, RmaReleaseLock)

typedef enum pal_coll_op {
    PAL_COLL_OP_NONE = -1,
#define PAL_X_(id, name, otf2_op, otf2_role) PAL_COLL_##id,
    PAL_COLLECTIVE_OPS(PAL_X_)
#undef PAL_X_
    PAL_COLL_OP_COUNT
} pal_coll_op;

typedef enum pal_rma_kind {
    PAL_RMA_KIND_NONE = -1,
#define PAL_X_(id, name, role, otf2) PAL_RMA_##id,
    PAL_RMA_KINDS(PAL_X_)
#undef PAL_X_
    PAL_RMA_KIND_COUNT
} pal_rma_kind;

/* "allreduce" for PAL_COLL_ALLREDUCE; NULL out of range. From a name (as
 * pal_recdesc_operation gives it): PAL_COLL_OP_NONE when unknown. */
PAL_API const char *pal_coll_op_name(pal_coll_op op);
PAL_API pal_coll_op pal_coll_op_by_name(const char *name);
/* "put" for PAL_RMA_PUT and its record role (PAL_ROLE_RMA_PUT); the kind of
 * a record role (PAL_RMA_KIND_NONE for a role of no one-sided kind). */
PAL_API const char *pal_rma_kind_name(pal_rma_kind k);
PAL_API pal_record_role pal_rma_kind_role(pal_rma_kind k);
PAL_API pal_rma_kind pal_rma_kind_of_role(pal_record_role role);

/* ---------------- Messages: the matcher ---------------- */
/* One message matcher for every consumer (views, exports, the merge's check,
 * Python); its key is documented in doc/pal.md, "Messages: the matcher":
 * (source world rank, destination world rank, tag, communicator context),
 * first sent first received in each key (MPI's non-overtaking order). The
 * context of a communicator with a definition is a hash of its members'
 * world ranks in communicator-rank order (of both groups for an
 * intercommunicator), equal on every member whatever id each gave it; an id
 * without a definition is its own context, compared as is between the two
 * ends (ECL's agreed ids, PICL's absent 0). Ids are per process unless
 * global (PAL_MATCH_GLOBAL_COMM: OTF2's), whose definitions are looked up
 * in one namespace (the first definition of each id). */
typedef struct pal_matcher pal_matcher;

#define PAL_MATCH_SEND 0
#define PAL_MATCH_RECV 1
#define PAL_MATCH_GLOBAL_COMM 1u        /* the communicator id is the same on every process */
#define PAL_MATCH_MAX_MEMBERS (1 << 24) /* members of one communicator */

/* One end of a message: the caller's, handed back as the partner's. */
typedef struct pal_msg_end {
    uint32_t process;             /* world rank of this end */
    uint32_t stream;              /* its thread */
    double time;                  /* in the caller's unit */
    uint64_t bytes;
    uint64_t user;                /* anything: an index of the caller's (the event layer's
                                   * ends: the record's place in its thread, from 0) */
} pal_msg_end;

/* The key a message end is matched by (pal_matcher_key). */
typedef struct pal_msg_key {
    uint32_t src, dst;            /* world ranks */
    int64_t tag;                  /* a negative tag (unknown) is 0 */
    uint64_t context;
} pal_msg_key;

PAL_API pal_status pal_matcher_create(pal_matcher **out);
PAL_API void pal_matcher_destroy(pal_matcher *m);
/* Communicator id of process has these members (world ranks, in
 * communicator-rank order) and, for an intercommunicator, this remote
 * group. A later definition of the same id replaces it. PAL_EINVAL for no
 * members or a negative id. */
PAL_API pal_status pal_matcher_define_comm(pal_matcher *m, uint32_t process, int64_t id,
                                           const uint32_t *members, size_t n,
                                           const uint32_t *remote, size_t nremote);
/* The same from a definition record's fields: size, and the members as
 * text ("0-3 8 10-11": world ranks and ranges, field role members; the
 * remote group's, field role remote_members, "" for none). A list that does
 * not parse to size ranks is compared as text. */
PAL_API pal_status pal_matcher_define_text(pal_matcher *m, uint32_t process, int64_t id,
                                           int64_t size, const char *members, size_t len,
                                           const char *remote, size_t rlen);
/* The context of communicator id as process uses it, and its size (of both
 * groups for an intercommunicator, whose collectives both call; 0 when
 * undefined); collectives group their instances by it too. PAL_OK;
 * PAL_EUNDEF: no definition (the id is the context). */
PAL_API pal_status pal_matcher_context(const pal_matcher *m, uint32_t process, int64_t id,
                                       unsigned flags, uint64_t *context, uint32_t *size);
/* The key of an end: side PAL_MATCH_SEND (process sends to peer) or
 * PAL_MATCH_RECV (process receives from peer). PAL_EINVAL for a peer that
 * is no rank (negative: an unresolved wildcard). */
PAL_API pal_status pal_matcher_key(const pal_matcher *m, int side, uint32_t process, int64_t peer,
                                   int64_t tag, int64_t comm_id, unsigned flags,
                                   pal_msg_key *key);
/* Posts one end (end->process is its rank): PAL_OK when it completes a
 * message (the other end, posted earlier, is in *partner), PAL_END when it
 * waits for its partner; PAL_EINVAL, PAL_ENOMEM. A receive whose completion
 * was not seen (freed while active) may be posted too, so that later
 * receives of its key take later sends (doc/pal.md). */
PAL_API pal_status pal_matcher_post(pal_matcher *m, int side, int64_t peer, int64_t tag,
                                    int64_t comm_id, unsigned flags, const pal_msg_end *end,
                                    pal_msg_end *partner);
/* A receive that completed unseen (role untimed: ECL's receive freed with
 * MPI_Request_free while active): it took a send, which and when is not
 * known. It is kept apart (not waiting, not in pal_matcher_foreach_waiting)
 * until pal_matcher_settle. peer PAL_MATCH_ANY_SOURCE: from any source; a
 * negative tag: any tag. PAL_OK; PAL_EINVAL for another negative peer (no
 * message: a cancelled receive, MPI_PROC_NULL); PAL_ENOMEM. */
#define PAL_MATCH_ANY_SOURCE (-2)       /* MPI_ANY_SOURCE as ECL's peer fields record it */
PAL_API pal_status pal_matcher_post_untimed(pal_matcher *m, int64_t peer, int64_t tag,
                                            int64_t comm_id, unsigned flags,
                                            const pal_msg_end *end);
/* At the end of a whole run: each untimed receive, in the order posted,
 * takes the oldest send still waiting that it could have received (its
 * receiver and communicator context, its source and tag unless any; the
 * earliest time, then the lowest source and tag), which then waits no
 * more; fn(ctx, key, send, recv) for each pair (fn may be NULL). The untimed
 * receives are dropped. Returns the number of sends taken. */
typedef void (*pal_matcher_pair_fn)(void *ctx, const pal_msg_key *key, const pal_msg_end *send,
                                    const pal_msg_end *recv);
PAL_API uint64_t pal_matcher_settle(pal_matcher *m, pal_matcher_pair_fn fn, void *ctx);
/* Ends still waiting for their partner. */
PAL_API void pal_matcher_waiting(const pal_matcher *m, uint64_t *sends, uint64_t *recvs);
/* Calls fn for every end still waiting, with its key and side, in the
 * order they were posted within each key (the keys in no order): what a
 * matcher over a share of the streams leaves for the shares' merge. */
typedef void (*pal_matcher_end_fn)(void *ctx, const pal_msg_key *key, int side,
                                   const pal_msg_end *end);
PAL_API void pal_matcher_foreach_waiting(const pal_matcher *m, pal_matcher_end_fn fn, void *ctx);
/* Parses a member list as text ("0-3 8") into out (at most max ranks):
 * PAL_OK and *n; PAL_EFORMAT when it is not one; PAL_ERANGE when more than
 * max. out NULL: counts only. */
PAL_API pal_status pal_members_parse(const char *s, size_t len, uint32_t *out, size_t max,
                                     size_t *n);

/* ---------------- Events: what records mean, typed ---------------- */
/* The semantic layer under every analysis (doc/pal.md, "Events"): each
 * record type is classified once from its roles, and records come out as
 * typed events with names and peers resolved and messages matched (the one
 * matcher above). Nothing above this layer reads roles. X(ID, "name"). */
#define PAL_EVENT_KINDS(X)                                                      \
    X(NONE, "none")                                                             \
    X(ENTER, "enter")                 /* a region entered (a call's start) */   \
    X(LEAVE, "leave")                 /* a region left: start, arguments */     \
    X(SEND, "send")                   /* a message leaves: peer, tag, comm, bytes */ \
    X(RECV, "recv")                   /* a message arrives: peer is its source */ \
    X(MESSAGE, "message")             /* a send and its receive matched */      \
    X(COLLECTIVE, "collective")       /* one member's part of a collective */   \
    X(COLL_INSTANCE, "coll_instance") /* a collective's instance, all members */ \
    X(RMA, "rma")                     /* a one-sided operation or sync */       \
    X(COUNTER, "counter")             /* a sample: name, value */               \
    X(MARKER, "marker")               /* name is its text */                    \
    X(OVERHEAD, "overhead")           /* the tool's own [time, time + duration] */ \
    X(LOST, "lost")                   /* count records dropped */               \
    X(DEFINITION, "definition")       /* names defined (resolved from now on) */ \
    X(THREAD_BEGIN, "thread_begin")                                             \
    X(THREAD_END, "thread_end")                                                 \
    X(PROCESS_BEGIN, "process_begin") /* an instant; with a duration: a region */ \
    X(PROCESS_END, "process_end")                                               \
    X(PAUSE, "pause")                                                           \
    X(RESUME, "resume")                                                         \
    X(UNTIMED_RECV, "untimed_recv")   /* a receive that completed unseen */

typedef enum pal_event_kind {
#define PAL_X_(id, name) PAL_EV_##id,
    PAL_EVENT_KINDS(PAL_X_)
#undef PAL_X_
    PAL_EV_LIMIT
} pal_event_kind;

/* Event flags */
#define PAL_EVF_COMMUNICATION 1u  /* the region is communication (an MPI function) */
#define PAL_EVF_IDLE 2u           /* time inside the region is waiting */
#define PAL_EVF_COLLECTIVE 4u     /* the region is a collective's */
#define PAL_EVF_SETUP 8u          /* the region is the process's start or end (MPI_Init) */
#define PAL_EVF_UNMATCHED 16u     /* a leave without its enter, or one no record made (a
                                   * frame left with an outer one, or open at the end) */
#define PAL_EVF_ORPHAN 32u        /* LEAVE: a leave with no frame open (nothing closes) */
#define PAL_EVF_RECORD 64u        /* the first event of its record (PAL_EVENTS_EVERY_RECORD) */
#define PAL_EVF_METADATA 128u     /* NONE: a metadata record (no thread's activity) */

/* Options of pal_events_set_options. */
#define PAL_EVENTS_EVERY_RECORD 1u  /* every record gives at least one event (NONE for a
                                     * record of no other meaning), its first flagged
                                     * PAL_EVF_RECORD: a consumer sees every record once */
#define PAL_EVF_NONBLOCKING 256u  /* COLLECTIVE: a nonblocking collective's part, from
                                   * its call (start) to its request's completion (time) */
#define PAL_EVF_DEVICE 512u       /* the region is time on a device (role device: a GPU
                                   * kernel, copy or memset) */
#define PAL_EVF_UNTIMED 1024u     /* MESSAGE: its receive completed unseen (an UNTIMED_RECV
                                   * paired at the end by PAL_EVENTS_SETTLE): recv.time is
                                   * its record's, not the message's */
#define PAL_EVENTS_SETTLE 2u      /* at the end, each untimed receive takes a send left over
                                   * (pal_matcher_settle), a MESSAGE flagged PAL_EVF_UNTIMED:
                                   * for a reader of a whole run, not of a share */
#define PAL_EVENTS_MESSAGES 4u    /* no ENTER, LEAVE, COLLECTIVE or RMA event (a call, an
                                   * enter or a leave gives its SEND, RECV, UNTIMED_RECV
                                   * and MESSAGE events alone): for a consumer of messages
                                   * only (the merge's check); enter and leave keep their
                                   * frames where they may give messages: the messages
                                   * are the same */
#define PAL_EVF_BORROWED 16384u   /* DEFINITION: one of another share's definitions stream
                                   * (pal_reader_set_share), read for the names this
                                   * share's threads use; never PAL_EVF_RECORD: the share
                                   * that owns it counts it */

/* A collective instance: the k-th call of a collective by each member of a
 * communicator (its context, pal_matcher_context) is its k-th instance. */
typedef struct pal_coll_instance {
    uint32_t members;             /* members seen (size when complete) */
    uint32_t size;                /* the communicator's size, 0 unknown */
    uint32_t lo, hi, late;        /* lowest and highest rank, the last to enter */
    int64_t comm;                 /* the first member's communicator id */
    int64_t root;                 /* world rank, -1 none */
    uint64_t bytes;               /* summed over the members */
    pal_coll_op op;
    int64_t min_start, max_start, max_end;   /* ns */
    unsigned comm_flags;          /* of comm: PAL_MATCH_GLOBAL_COMM */
    uint64_t context;             /* of the communicator (pal_matcher_context) */
    uint64_t seq;                 /* k: the k-th instance of its collective there, from 0 */
} pal_coll_instance;

typedef struct pal_event {
    pal_event_kind kind;
    unsigned flags;               /* PAL_EVF_* */
    uint32_t process, stream;     /* rank and thread (COLL_INSTANCE: the late rank) */
    int64_t time;                 /* ns, as pal_record_time_ns */
    const pal_record *record;     /* the record it comes from; NULL at the end */
    const char *name;             /* region, counter, marker text (not NUL-terminated */
    size_t name_len;              /* for counters and markers); NULL: none */
    unsigned depth;               /* ENTER, LEAVE: frames open below it */
    int64_t start;                /* LEAVE, COLLECTIVE: the region's enter */
    int64_t duration;             /* OVERHEAD: ns */
    int64_t peer;                 /* SEND: destination, RECV: source, RMA: target (world
                                   * ranks); MESSAGE: the other end's; -1 none */
    int64_t tag, comm;            /* as recorded (comm: the id, see comm_flags) */
    unsigned comm_flags;          /* PAL_MATCH_GLOBAL_COMM */
    uint64_t bytes;
    int64_t root;                 /* COLLECTIVE, COLL_INSTANCE, LEAVE: -1 none */
    pal_coll_op op;               /* COLLECTIVE, COLL_INSTANCE, LEAVE: OPERATION IS */
    pal_rma_kind rma;             /* RMA */
    int64_t window;               /* RMA: -1 none */
    double value;                 /* COUNTER; NAN: the record has no value */
    uint64_t count;               /* LOST */
    pal_msg_end send, recv;       /* MESSAGE: the two ends (time in ns) */
    pal_coll_instance coll;       /* COLL_INSTANCE */
    int64_t request;              /* LEAVE: field role request, -1 none */
} pal_event;

typedef struct pal_events pal_events;

/* Events of the records of r (a trace or a run), read in r's order. r stays
 * the caller's (close it after pal_events_destroy). PAL_OK, PAL_EINVAL,
 * PAL_ENOMEM. */
PAL_API pal_status pal_events_create(pal_reader *r, pal_events **out);
PAL_API void pal_events_destroy(pal_events *e);
/* PAL_EVENTS_EVERY_RECORD, _SETTLE, _MESSAGES (or 0), before the first pal_events_next:
 * PAL_OK; PAL_EINVAL for an unknown option or events already read. */
PAL_API pal_status pal_events_set_options(pal_events *e, unsigned options);
/* The next event; PAL_END after the last (frames still open and collective
 * instances not complete come out at the end). An event and its strings
 * stay valid until the next call (region names until pal_events_destroy).
 * A reader's error status is passed on (pal_reader_error says why). */
PAL_API pal_status pal_events_next(pal_events *e, const pal_event **out);
/* The names the definitions so far defined, and the matcher (contexts). */
PAL_API const pal_names *pal_events_names(const pal_events *e);
PAL_API const pal_matcher *pal_events_matcher(const pal_events *e);
/* "enter" for PAL_EV_ENTER; NULL out of range. */
PAL_API const char *pal_event_kind_name(pal_event_kind k);

#ifdef __cplusplus
}
#endif
#endif /* PAL_H */
