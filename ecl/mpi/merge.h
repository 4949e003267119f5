/* merge.h -- ECL: merging the per-rank traces of a run into one time-sorted
 * trace (doc/trace-format.md, "Merged traces"). Used by the ecl-merge tool and
 * by the MPI layer's automatic merge at MPI_Finalize. Reads the native
 * container directly (it copies records without decoding them), so it needs
 * the dictionary model (edl) and the compressors, nothing of PAL.
 *
 * Memory is independent of trace length: one decompressed chunk per input
 * stream, one output chunk, the merged dictionary, the message-matching
 * queues (messages in flight) and 40 bytes of index per output chunk. */
#ifndef ECL_MERGE_H
#define ECL_MERGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ecl_merge_options {
    const char *tool;            /* message prefix, e.g. "ecl-merge" */
    int verbose;                 /* summary and clock details on stderr */
    int quiet;                   /* no warnings (errors still printed) */
    int compress;                /* output: 0 none, 1 zlib, 2 zstd */
    int level;                   /* compression level, 0 = fastest */
    int expect_size;             /* ranks the run had (0: from the headers) */
    int check;                   /* check message order after merging */
    size_t chunk_size;           /* raw bytes per output chunk */
} ecl_merge_options;

typedef struct ecl_merge_result {
    uint64_t records;            /* records written */
    uint64_t chunks;             /* record chunks written */
    uint32_t files, ranks;       /* inputs read, distinct ranks among them */
    uint32_t missing;            /* expected ranks without a file */
    uint32_t incomplete;         /* files not closed normally (process died) */
    uint64_t damaged;            /* damaged chunks skipped */
    uint32_t clock_fallback;     /* ranks merged without two clock measurements */
    uint64_t messages;           /* sends matched with receives */
    uint64_t violations;         /* receives completing before their send began */
    double max_violation_ns;
    uint64_t unmatched_sends, unmatched_recvs;
    uint64_t completion_unknown; /* sends taken by receives freed while active */
} ecl_merge_result;

/* Defaults: zstd if built with it (else zlib) at the fastest level, 1 MiB
 * chunks, checking on, expect_size from the headers. */
void ecl_merge_options_default(ecl_merge_options *o);

/* Merges n per-rank traces into output (written as output.tmp.PID, then
 * renamed). Problems are reported on stderr as they are found. Returns 0
 * when merged cleanly, 2 when merged but something is missing, damaged or
 * out of order (said on stderr), 1 when nothing could be written (no
 * readable input, output not writable, out of memory). res may be NULL. */
int ecl_merge_run(const char *const *inputs, size_t n, const char *output,
                  const ecl_merge_options *o, ecl_merge_result *res);

#endif /* ECL_MERGE_H */
