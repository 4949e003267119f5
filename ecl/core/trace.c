/* trace.c -- ECL basic layer: the trace file. Opens it and writes the header
 * (with the embedded dictionary), starts the writer threads that compress and
 * write full buffers (buf.c), flushes everything at close or on a fatal signal, and
 * ends the file with the index and footer. */
#include <config.h>

#include "ecl/core/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

ecl_trace_state ecl_T = {
    .fd = -1,
    .process = 0xFFFFFFFFu,
    .def_lock = PTHREAD_MUTEX_INITIALIZER,
    .free_lock = PTHREAD_MUTEX_INITIALIZER,
    .free_cond = PTHREAD_COND_INITIALIZER,
    .queue_lock = PTHREAD_MUTEX_INITIALIZER,
    .pool_lock = PTHREAD_MUTEX_INITIALIZER,
};

static pthread_mutex_t close_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;

void ecl_trace_config_default(ecl_trace_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->dir, sizeof cfg->dir, ".");
    snprintf(cfg->prefix, sizeof cfg->prefix, "trace");
    cfg->buffer_size = 1u << 20;
    cfg->buffer_count = 2;
    cfg->compress = ECL_COMPRESS_NONE;   /* the recording threads never wait for a compressor */
    cfg->compress_level = 0;
    cfg->clock = ECL_SYS_CLOCK_AUTO;
}

static int get_state(void)
{
    return __atomic_load_n(&ecl_T.state, __ATOMIC_ACQUIRE);
}

static int set_state_from(int from, int to)
{
    return __atomic_compare_exchange_n(&ecl_T.state, &from, to, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

int ecl_trace_is_open(void)
{
    return get_state() == ECL_T_OPEN;
}

int ecl_trace_is_done(void)
{
    return get_state() >= ECL_T_DONE;
}

const char *ecl_trace_file_path(void)
{
    return __atomic_load_n(&ecl_T.path_cur, __ATOMIC_ACQUIRE);
}

/* Async-signal-safe string append, for messages built in a crash handler. */
static size_t cat(char *dst, size_t n, size_t len, const char *s)
{
    while (*s && len + 1 < n)
        dst[len++] = *s++;
    dst[len] = '\0';
    return len;
}

void ecl_trace_fail(const char *msg)
{
    ecl_buf_set_active(0);
    if (!set_state_from(ECL_T_OPEN, ECL_T_FAILED))
        set_state_from(ECL_T_CLOSING, ECL_T_FAILED);
    if (__atomic_exchange_n(&ecl_T.fail_reported, 1, __ATOMIC_ACQ_REL) == 0) {
        char line[4600];
        size_t n = cat(line, sizeof line, 0, "ecl: ");
        if (msg != NULL) {
            n = cat(line, sizeof line, n, msg);
        } else {
            n = cat(line, sizeof line, n, "cannot write trace '");
            n = cat(line, sizeof line, n, ecl_trace_file_path() ? ecl_trace_file_path() : "?");
            n = cat(line, sizeof line, n, "'");
        }
        n = cat(line, sizeof line, n,
                "; tracing stopped, trace readable up to the last complete chunk\n");
        ecl_sys_stderr(line);
    }
    if (msg != NULL)                 /* not in a signal handler: wake blocked threads */
        ecl_buf_notify_free();
}

void ecl_trace_index_add(const ecl_index_entry *e)
{
    pthread_mutex_lock(&index_lock);
    if (ecl_T.index_len == ecl_T.index_cap && !ecl_T.index_broken) {
        size_t cap = ecl_T.index_cap ? 2 * ecl_T.index_cap : 256;
        ecl_index_entry *ni = realloc(ecl_T.index, cap * sizeof *ni);
        if (ni == NULL) {
            ecl_T.index_broken = 1;  /* the index is optional: skip it, not the chunk */
        } else {
            ecl_T.index = ni;
            ecl_T.index_cap = cap;
        }
    }
    if (!ecl_T.index_broken)
        ecl_T.index[ecl_T.index_len++] = *e;
    pthread_mutex_unlock(&index_lock);
}

void ecl_trace_wake_writer(void)
{
    if (__atomic_load_n(&ecl_T.writer_running, __ATOMIC_ACQUIRE)) {
        sem_post(&ecl_T.writer_wake);
        if (ecl_T.compressors_max > 0)
            sem_post(&ecl_T.compress_wake);
    }
}

ecl_core_status ecl_trace_write_def(const uint8_t *rec, size_t len, uint64_t time)
{
    int s = get_state();
    if (s != ECL_T_OPEN && s != ECL_T_CLOSING)
        return ECL_CORE_ESTATE;
    ecl_chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.kind = 1;
    ci.stored_length = ci.raw_length = (uint32_t)len;
    ci.process = __atomic_load_n(&ecl_T.process, __ATOMIC_RELAXED);
    ci.stream = 0;
    ci.record_count = 1;
    ci.sequence = ecl_T.seq0++;
    ci.first_time = ci.last_time = time;
    return ecl_chunk_write_twice(&ci, rec);
}

static ecl_core_status write_clock_sync(void)
{
    uint64_t ticks, mono, real;
    uint8_t rec[40], *p = rec;
    /* read under the lock, so stream 0's times never go back */
    pthread_mutex_lock(&ecl_T.def_lock);
    ecl_sys_clock_pair(&ticks, &mono, &real);
    *p++ = ECL_REC_CLOCK_SYNC;
    *p++ = 0;
    p = ecl_buf_put_uleb(p, mono);
    p = ecl_buf_put_uleb(p, real);
    ecl_core_status st = ecl_trace_write_def(rec, (size_t)(p - rec), ticks);
    pthread_mutex_unlock(&ecl_T.def_lock);
    return st;
}

/* ---------------- header ---------------- */
/* The file starts with the header, a pad chunk and a copy of the header as a
 * chunk of kind 4, so that a damaged header costs nothing: a reader takes the
 * copy (doc/trace-format.md, "Redundant definitions"). Both are rewritten in
 * place when the rank is known. */

/* Encodes the pad and header copy chunks for the current header. */
static void header_copy_encode(void)
{
    ecc_header_copy_encode(ecl_T.header_copy, ecl_T.header, ecl_T.header_len);
}

/* Writes the header and its copy again, in place (caller holds def_lock). */
static int rewrite_header(char *err, size_t errlen)
{
    header_copy_encode();
    struct iovec iov[2] = { { ecl_T.header, ecl_T.header_len },
                            { ecl_T.header_copy, ecl_T.header_copy_len } };
    return ecl_sys_write_at(ecl_T.fd, ecl_T.path_cur, iov, 2, 0, err, errlen);
}

/* The cycle counter's rate measured again over the whole run so far (at open
 * it had about a millisecond), into the header: doc/trace-format.md. */
static void refresh_clock(void)
{
    char err[4400];
    pthread_mutex_lock(&ecl_T.def_lock);
    if (ecl_sys_clock_recalibrate()) {
        ecc_file_header_set_clock(ecl_T.header, ecl_T.header_len,
                                  ecl_sys_clock_ticks_per_second(),
                                  ecl_sys_clock_realtime_offset_ns());
        if (rewrite_header(err, sizeof err) != 0)
            ecl_trace_fail(err);
    }
    pthread_mutex_unlock(&ecl_T.def_lock);
}

/* The header's exec flag (doc/trace-format.md): set just before exec, once
 * every buffer is written; cleared when the exec failed and tracing goes on. */
static void exec_flag(int on)
{
    char err[4400];
    pthread_mutex_lock(&ecl_T.def_lock);
    ecc_file_header_set_flag(ecl_T.header, ecl_T.header_len, ECC_HFLAG_EXEC, on);
    if (rewrite_header(err, sizeof err) != 0)
        ecl_trace_fail(err);
    pthread_mutex_unlock(&ecl_T.def_lock);
}

/* A run id for a process that is not told one (not an MPI program): random
 * bytes, or time and pid when /dev/urandom cannot be read. */
static void new_run_id(uint8_t id[ECC_RUN_ID])
{
    if (ecl_sys_random(id, ECC_RUN_ID) != 0) {
        uint64_t a = ecl_sys_clock_now(), b = ((uint64_t)ecl_sys_pid() << 32) ^ a;
        ecc_put64(id, a);
        ecc_put64(id + 8, b);
    }
}

static ecl_core_status build_header(uint64_t start, char *err, size_t errlen)
{
    unsigned char *raw;
    uint8_t *dict = NULL;
    size_t rlen, dlen;
    if (edl_dict_encode(ecl_T.dict, &raw, &rlen) != EDL_OK) {
        snprintf(err, errlen, "cannot encode the trace dictionary");
        return ECL_CORE_ENOMEM;
    }
    ecc_file_header fh;
    memset(&fh, 0, sizeof fh);
    /* the dictionary compressed: the MPI layer's alone is tens of KB */
    const char *why = ecc_dict_pack(&fh, raw, rlen, &dict, &dlen);
    free(raw);
    size_t hlen = ecc_file_header_size(dlen);
    uint8_t *h = why ? NULL : malloc(hlen);
    uint8_t *copy = why ? NULL : malloc(ecc_header_copy_size(hlen));
    if (h == NULL || copy == NULL) {
        free(dict);
        free(h);
        free(copy);
        snprintf(err, errlen, "out of memory");
        return ECL_CORE_ENOMEM;
    }
    fh.byte_order = (uint8_t)edl_dict_byte_order(ecl_T.dict);
    fh.clock_source = (uint8_t)ecl_sys_clock_source_get();
    fh.ticks_per_second = ecl_sys_clock_ticks_per_second();
    fh.realtime_offset_ns = ecl_sys_clock_realtime_offset_ns();
    fh.pid = ecl_sys_pid();
    fh.rank = fh.size = -1;
    fh.start_time = start;
    ecl_sys_host_name(fh.host, sizeof fh.host);
    new_run_id(fh.run_id);
    fh.buffer_size = (uint32_t)ecl_T.cfg.buffer_size;
    fh.buffer_count = ecl_T.cfg.buffer_count;
    ecc_file_header_encode(h, &fh, dict, dlen);
    free(dict);
    ecl_T.header = h;
    ecl_T.header_len = hlen;
    ecl_T.header_copy = copy;
    ecl_T.header_copy_len = ecc_header_copy_size(hlen);
    header_copy_encode();
    return ECL_CORE_OK;
}

static void write_end(int sig, int in_signal);

static void on_crash(int sig)
{
    int s = get_state();
    if (s != ECL_T_OPEN && s != ECL_T_CLOSING)
        return;
    ecl_buf_set_active(0);
    if (!set_state_from(s, ECL_T_CRASHED))
        return;
    ecl_buf_collect_all(1);
    write_end(sig, 1);
    if (ecl_T.cfg.verbose) {
        char line[4300], num[16];
        size_t n = cat(line, sizeof line, 0, "ecl: signal ");
        int k = 0, v = sig;
        char rev[16];
        do {
            rev[k++] = (char)('0' + v % 10);
            v /= 10;
        } while (v > 0 && k < 15);
        for (int i = 0; i < k; i++)
            num[i] = rev[k - 1 - i];
        num[k] = '\0';
        n = cat(line, sizeof line, n, num);
        n = cat(line, sizeof line, n, ": buffers flushed to '");
        n = cat(line, sizeof line, n, ecl_trace_file_path());
        cat(line, sizeof line, n, "'\n");
        ecl_sys_stderr(line);
    }
}

/* ---------------- open / close ---------------- */

/* A forked child has no writer thread and shares the parent's file: it must
 * not record (it would block on a full buffer forever) nor write. */
static void atfork_child(void)
{
    ecl_buf_set_active(0);
    __atomic_store_n(&ecl_T.writer_running, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ecl_T.state, ECL_T_DONE, __ATOMIC_RELEASE);
    ecl_buf_reset_self();
}

ecl_core_status ecl_trace_open(const ecl_trace_config *cfg, char *err, size_t errlen)
{
    ecl_core_status st;
    int e;
    pthread_mutex_lock(&close_lock);
    if (get_state() != ECL_T_NONE) {
        snprintf(err, errlen, "the trace was already opened");
        pthread_mutex_unlock(&close_lock);
        return ECL_CORE_ESTATE;
    }
    ecl_T.cfg = *cfg;
    if ((e = ecl_sys_clock_init(cfg->clock, err, errlen)) != 0) {
        st = ECL_CORE_ECONFIG;
        goto fail;
    }
    uint64_t start = ecl_sys_clock_now();
    if ((st = ecl_defs_init(err, errlen)) != ECL_CORE_OK)
        goto fail;
    if ((st = build_header(start, err, errlen)) != ECL_CORE_OK)
        goto fail;
    if ((e = ecl_sys_mkdirs(cfg->dir, err, errlen)) != 0) {
        st = ECL_CORE_EIO;
        goto fail;
    }
    /* A full disk or `ulimit -f` must be a write error, not SIGXFSZ, from the
     * header on; and on a crash the hooks do nothing until the trace is open. */
    ecl_sys_signals_install(on_crash);
    ecl_T.pid = ecl_sys_pid();
    /* Never replace a file: the same pid may have written one just before,
     * in the image that exec'ed this one. */
    int fd = -EEXIST;
    for (unsigned k = 0; fd == -EEXIST && k < 1000; k++) {
        if (k == 0)
            snprintf(ecl_T.path[0], sizeof ecl_T.path[0], "%s/%s.%u.ecl", cfg->dir, cfg->prefix,
                     (unsigned)ecl_T.pid);
        else
            snprintf(ecl_T.path[0], sizeof ecl_T.path[0], "%s/%s.%u.%u.ecl", cfg->dir,
                     cfg->prefix, (unsigned)ecl_T.pid, k);
        fd = ecl_sys_create(ecl_T.path[0], err, errlen);
    }
    if (fd < 0) {
        st = ECL_CORE_EIO;
        goto fail;
    }
    ecl_T.fd = fd;
    ecl_T.path_cur = ecl_T.path[0];
    struct iovec iov[2] = { { ecl_T.header, ecl_T.header_len },
                            { ecl_T.header_copy, ecl_T.header_copy_len } };
    if ((e = ecl_sys_write_at(fd, ecl_T.path_cur, iov, 2, 0, err, errlen)) != 0) {
        st = ECL_CORE_EIO;
        goto fail;
    }
    ecl_T.file_end = ecl_T.header_len + ecl_T.header_copy_len;
    ecl_buf_record_max = cfg->buffer_size - ECL_BUF_RESERVE;
    if (sem_init(&ecl_T.writer_wake, 0, 0) != 0) {
        snprintf(err, errlen, "cannot create the writer semaphore: %s", strerror(errno));
        st = ECL_CORE_ENOMEM;
        goto fail;
    }
    ecl_T.thread_key_ok = pthread_key_create(&ecl_T.thread_key, ecl_buf_thread_exit) == 0;
    __atomic_store_n(&ecl_T.state, ECL_T_OPEN, __ATOMIC_RELEASE);
    write_clock_sync();
    if ((e = ecl_buf_writers_start()) != 0) {
        __atomic_store_n(&ecl_T.state, ECL_T_NONE, __ATOMIC_RELEASE);
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(e));
        st = ECL_CORE_ENOMEM;
        goto fail;
    }
    static int atfork_done;
    if (!atfork_done && pthread_atfork(NULL, NULL, atfork_child) == 0)
        atfork_done = 1;
    if (cfg->verbose) {
        char line[4400];
        double tps = ecl_sys_clock_ticks_per_second();
        static const char *const zname[] = { "none", "zlib", "zstd" };
        char pool[96] = "";
        if (cfg->compress != ECL_COMPRESS_NONE)
            snprintf(pool, sizeof pool, "; up to %u compressor thread%s at %s priority",
                     ecl_T.compressors_max, ecl_T.compressors_max == 1 ? "" : "s",
                     cfg->compress_normal ? "normal" : "idle");
        snprintf(line, sizeof line,
                 "ecl: tracing to '%s' (clock %s, %.6g ticks/s; %u buffers of %zu bytes per "
                 "thread; compression %s%s; %s when full)\n",
                 ecl_T.path_cur, ecl_sys_clock_name(ecl_sys_clock_source_get()), tps,
                 cfg->buffer_count, cfg->buffer_size, zname[cfg->compress], pool,
                 cfg->drop_when_full ? "drop" : "block");
        ecl_sys_stderr(line);
    }
    ecl_buf_set_active(1);
    pthread_mutex_unlock(&close_lock);
    return ECL_CORE_OK;
fail:
    ecl_sys_signals_uninstall();
    if (ecl_T.fd >= 0) {
        /* No trace: no file either (not even a 0-byte one on a full disk). */
        char rm_err[4200];
        size_t n = strlen(err);
        ecl_sys_close(ecl_T.fd);
        ecl_T.fd = -1;
        if (ecl_sys_remove(ecl_T.path[0], rm_err, sizeof rm_err) != 0)
            snprintf(err + n, errlen - n, "; %s", rm_err);
        else if (strstr(err, ecl_T.path[0]) != NULL)
            snprintf(err + n, errlen - n, "; the file was removed");
        else
            snprintf(err + n, errlen - n, "; the trace file '%s' was removed", ecl_T.path[0]);
    }
    free(ecl_T.header);
    ecl_T.header = NULL;
    free(ecl_T.header_copy);
    ecl_T.header_copy = NULL;
    ecl_defs_fini();
    ecl_T.path_cur = NULL;
    pthread_mutex_unlock(&close_lock);
    return st;
}

/* The end summary (kind 5): the trace was closed (signal 0) or flushed on a
 * fatal signal, with what each stream holds, so a reader can tell a complete
 * trace from a cut one (doc/trace-format.md, "End summary"). in_signal: no
 * allocation; the per-stream part is left out then. */
static void write_end(int sig, int in_signal)
{
    static uint8_t sigbuf[64];
    ecc_end e;
    memset(&e, 0, sizeof e);
    e.signal = (uint32_t)sig;
    e.lost = __atomic_load_n(&ecl_T.st_lost, __ATOMIC_RELAXED);
    e.lost_unbuffered = __atomic_load_n(&ecl_T.st_lost_unbuffered, __ATOMIC_RELAXED);
    ecc_end_stream *ss = NULL;
    uint8_t *pay = sigbuf;
    if (!in_signal) {
        /* streams 0..next_stream; chunks and records from the index */
        uint32_t n = __atomic_load_n(&ecl_T.next_stream, __ATOMIC_RELAXED) + 1;
        ss = calloc(n, sizeof *ss);
        pay = ss ? malloc(ecc_end_size(n)) : NULL;
        if (ss == NULL || pay == NULL) {
            free(ss);
            ss = NULL;
            pay = sigbuf;
        } else {
            for (uint32_t i = 0; i < n; i++)
                ss[i].stream = i;
            pthread_mutex_lock(&index_lock);
            int whole = !ecl_T.index_broken;
            for (size_t i = 0; whole && i < ecl_T.index_len; i++) {
                const ecl_index_entry *x = &ecl_T.index[i];
                if (x->kind == ECC_KIND_RECORDS && x->stream < n) {
                    ss[x->stream].chunks++;
                    ss[x->stream].records += x->record_count;
                }
            }
            pthread_mutex_unlock(&index_lock);
            if (whole) {
                e.nstreams = n;
                e.streams = ss;
            }
        }
    }
    ecl_chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.kind = ECC_KIND_END;
    ci.stored_length = ci.raw_length = (uint32_t)ecc_end_encode(pay, &e);
    ci.process = __atomic_load_n(&ecl_T.process, __ATOMIC_RELAXED);
    ci.last_time = ecl_sys_clock_now();
    ecl_chunk_write(&ci, pay, in_signal);
    if (pay != sigbuf)
        free(pay);
    free(ss);
}

static void write_index(void)
{
    pthread_mutex_lock(&index_lock);
    size_t n = ecl_T.index_broken ? 0 : ecl_T.index_len;
    uint8_t *pay = n ? malloc(n * ECC_INDEX_ENTRY) : NULL;
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; pay && i < n; i++) {
        const ecl_index_entry *e = &ecl_T.index[i];
        ecc_index_entry x = { e->offset, e->first_time, e->last_time, e->process, e->stream,
                              e->record_count, e->kind };
        ecc_index_entry_encode(pay + ECC_INDEX_ENTRY * i, &x);
        if (e->first_time < first)
            first = e->first_time;
        if (e->last_time > last)
            last = e->last_time;
    }
    pthread_mutex_unlock(&index_lock);
    if (pay == NULL)
        return;
    ecc_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = ECC_KIND_INDEX;
    c.stored_length = c.raw_length = (uint32_t)(n * ECC_INDEX_ENTRY);
    c.process = __atomic_load_n(&ecl_T.process, __ATOMIC_RELAXED);
    c.record_count = (uint32_t)n;    /* index entries */
    c.first_time = first;
    c.last_time = last;
    c.payload_crc = ecc_crc32(0, pay, c.stored_length);
    /* The footer needs the index chunk's offset, so reserve both at once. */
    uint8_t hdr[ECC_CHUNK_HEADER], footer[ECC_FOOTER];
    ecc_chunk_encode(hdr, &c);
    uint64_t size = ECC_CHUNK_HEADER + (uint64_t)c.stored_length;
    uint64_t off = __atomic_fetch_add(&ecl_T.file_end, size + ECC_FOOTER, __ATOMIC_RELAXED);
    ecc_footer_encode(footer, off);
    struct iovec iov[3] = { { hdr, sizeof hdr }, { pay, c.stored_length }, { footer, sizeof footer } };
    char msg[4400];
    if (ecl_sys_write_at(ecl_T.fd, ecl_T.path_cur, iov, 3, off, msg, sizeof msg) != 0)
        ecl_trace_fail(msg);
    free(pay);
}

ecl_core_status ecl_trace_close(void)
{
    pthread_mutex_lock(&close_lock);
    int s = get_state();
    if (s != ECL_T_OPEN && s != ECL_T_FAILED) {
        pthread_mutex_unlock(&close_lock);
        return s == ECL_T_NONE ? ECL_CORE_ESTATE : ECL_CORE_OK;
    }
    ecl_buf_set_active(0);
    set_state_from(ECL_T_OPEN, ECL_T_CLOSING);
    ecl_buf_notify_free();           /* threads waiting for a buffer give up */
    ecl_buf_in_tool++;
    if (get_state() == ECL_T_CLOSING)
        ecl_buf_collect_all(0);
    ecl_buf_writers_stop();
    if (get_state() == ECL_T_CLOSING) {
        ecl_buf_write_pending();
        write_clock_sync();
        write_end(0, 0);
        write_index();
        refresh_clock();
    }
    ecl_core_status st = set_state_from(ECL_T_CLOSING, ECL_T_DONE) ? ECL_CORE_OK : ECL_CORE_EIO;
    ecl_sys_signals_uninstall();
    if (ecl_T.cfg.verbose) {
        ecl_trace_stats ts;
        char line[4600];
        ecl_trace_get_stats(&ts);
        snprintf(line, sizeof line,
                 "ecl: trace '%s' %s: %llu records in %llu chunks, %llu bytes (%llu before "
                 "compression), %u threads, %u compressor thread%s, %llu of %llu records chunks "
                 "compressed, %llu lost, %llu waits for a free buffer\n",
                 ecl_T.path_cur, st == ECL_CORE_OK ? "complete" : "incomplete",
                 (unsigned long long)ts.records, (unsigned long long)ts.chunks,
                 (unsigned long long)ts.bytes, (unsigned long long)ts.raw_bytes, ts.streams,
                 ts.compressors, ts.compressors == 1 ? "" : "s",
                 (unsigned long long)ts.zchunks, (unsigned long long)ts.rchunks,
                 (unsigned long long)ts.lost, (unsigned long long)ts.waits);
        ecl_sys_stderr(line);
    }
    ecl_sys_close(ecl_T.fd);
    ecl_T.fd = -1;
    ecl_buf_in_tool--;
    pthread_mutex_unlock(&close_lock);
    return st;
}

void ecl_trace_before_exec(void)
{
    /* Not in a forked child (the trace is done there) nor in a vfork child
     * (another pid sharing this memory): only the tracing process flushes. */
    if (get_state() != ECL_T_OPEN || ecl_T.pid != ecl_sys_pid())
        return;
    pthread_mutex_lock(&close_lock);
    if (get_state() == ECL_T_OPEN) {
        ecl_buf_flush_all();
        refresh_clock();
        exec_flag(1);      /* a reader then knows the file ends here on purpose */
    }
    pthread_mutex_unlock(&close_lock);
}

void ecl_trace_exec_failed(void)
{
    if (get_state() != ECL_T_OPEN || ecl_T.pid != ecl_sys_pid())
        return;
    pthread_mutex_lock(&close_lock);
    if (get_state() == ECL_T_OPEN)
        exec_flag(0);
    pthread_mutex_unlock(&close_lock);
}

ecl_core_status ecl_trace_set_identity(int32_t rank, int32_t size,
                                      const uint8_t run_id[ECC_RUN_ID])
{
    char err[8400];
    if (rank < 0 || size <= rank)
        return ECL_CORE_EINVAL;
    pthread_mutex_lock(&close_lock);
    ecl_core_status st = ECL_CORE_OK;
    if (get_state() != ECL_T_OPEN) {
        st = ECL_CORE_ESTATE;
        goto out;
    }
    pthread_mutex_lock(&ecl_T.def_lock);
    ecc_file_header_set_identity(ecl_T.header, ecl_T.header_len, rank, size, run_id);
    int e = rewrite_header(err, sizeof err);
    __atomic_store_n(&ecl_T.process, (uint32_t)rank, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ecl_T.def_lock);
    if (e != 0) {
        ecl_trace_fail(err);
        st = ECL_CORE_EIO;
        goto out;
    }
    const char *old = ecl_T.path_cur;
    char *next = old == ecl_T.path[0] ? ecl_T.path[1] : ecl_T.path[0];
    snprintf(next, sizeof ecl_T.path[0], "%s/%s.%d.ecl", ecl_T.cfg.dir, ecl_T.cfg.prefix,
             (int)rank);
    if (strcmp(old, next) != 0) {
        if (ecl_sys_rename(old, next, err, sizeof err) != 0) {
            char line[8500];
            snprintf(line, sizeof line, "ecl: %s\n", err);
            ecl_sys_stderr(line);
            st = ECL_CORE_EIO;
            goto out;
        }
        __atomic_store_n(&ecl_T.path_cur, next, __ATOMIC_RELEASE);
    }
out:
    pthread_mutex_unlock(&close_lock);
    return st;
}

void ecl_trace_run_id(uint8_t out[ECC_RUN_ID])
{
    memset(out, 0, ECC_RUN_ID);
    pthread_mutex_lock(&ecl_T.def_lock);
    if (ecl_T.header != NULL)
        memcpy(out, ecl_T.header + ECC_RUN_ID_OFFSET, ECC_RUN_ID);
    pthread_mutex_unlock(&ecl_T.def_lock);
}

ecl_core_status ecl_trace_set_rank(int32_t rank, int32_t size)
{
    return ecl_trace_set_identity(rank, size, NULL);
}

/* ---------------- pause / resume ---------------- */

static void record_bare(uint32_t type)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(type, ECL_BUF_SMALL, &t, &now);
    if (p != NULL)
        ecl_buf_commit(t, p, now);
}

void ecl_trace_pause(void)
{
    pthread_mutex_lock(&pause_lock);
    if (get_state() == ECL_T_OPEN && !ecl_T.paused) {
        record_bare(ECL_REC_PAUSE);
        ecl_T.paused = 1;
        ecl_buf_set_active(0);
    }
    pthread_mutex_unlock(&pause_lock);
}

void ecl_trace_resume(void)
{
    pthread_mutex_lock(&pause_lock);
    if (get_state() == ECL_T_OPEN && ecl_T.paused) {
        ecl_T.paused = 0;
        ecl_buf_set_active(1);
        record_bare(ECL_REC_RESUME);
    }
    pthread_mutex_unlock(&pause_lock);
}

int ecl_trace_is_paused(void)
{
    return ecl_T.paused;
}

void ecl_trace_get_stats(ecl_trace_stats *st)
{
    memset(st, 0, sizeof *st);
    st->records = __atomic_load_n(&ecl_T.st_records, __ATOMIC_RELAXED);
    st->chunks = __atomic_load_n(&ecl_T.st_chunks, __ATOMIC_RELAXED);
    st->bytes = __atomic_load_n(&ecl_T.file_end, __ATOMIC_RELAXED);
    st->raw_bytes = __atomic_load_n(&ecl_T.st_raw, __ATOMIC_RELAXED);
    st->lost = __atomic_load_n(&ecl_T.st_lost, __ATOMIC_RELAXED);
    st->waits = __atomic_load_n(&ecl_T.st_waits, __ATOMIC_RELAXED);
    st->streams = __atomic_load_n(&ecl_T.next_stream, __ATOMIC_RELAXED);
    st->zchunks = __atomic_load_n(&ecl_T.st_zchunks, __ATOMIC_RELAXED);
    st->rchunks = __atomic_load_n(&ecl_T.st_rchunks, __ATOMIC_RELAXED);
    pthread_mutex_lock(&ecl_T.queue_lock);
    st->compressors = ecl_T.compressors;
    pthread_mutex_unlock(&ecl_T.queue_lock);
}
