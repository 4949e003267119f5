/* labdict.c -- made-up formats and sample traces for the PAL tests. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/pal/labdict.h"

#define OK(x)                                                                   \
    do {                                                                        \
        if ((x) != EDL_OK) {                                                    \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);      \
            abort();                                                            \
        }                                                                       \
    } while (0)

static edl_record *rec(edl_dict *d, const char *name, const char *desc)
{
    edl_record *r;
    OK(edl_dict_add_record(d, name, desc, &r));
    return r;
}

static void lab_head(edl_record *r)
{
    OK(edl_record_add_field(r, "ts", EDL_UINT64, EDL_ENC_TDELTA, "us", "time stamp"));
    OK(edl_record_add_field(r, "code", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL));
}

edl_dict *lab_dict(char byte_order, edl_framing framing)
{
    edl_dict *d;
    edl_record *r;
    OK(edl_dict_create("lab", "0.3", EDL_REPR_BINARY, &d));
    OK(edl_dict_set_binary(d, byte_order, framing));
    OK(edl_dict_set_roles(d, "ts", "us", "", ""));
    OK(edl_dict_set_key(d, 1, 1, EDL_NO_KEY));
    r = rec(d, "ping", "a probe and its round trip");
    lab_head(r);
    OK(edl_record_add_field(r, "seq", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "rtt", EDL_FLOAT64, EDL_ENC_FIXED, "ms", "round trip"));
    r = rec(d, "note", NULL);
    lab_head(r);
    OK(edl_record_add_field(r, "level", EDL_INT8, EDL_ENC_SLEB, NULL, NULL));
    OK(edl_record_add_field(r, "text", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL));
    r = rec(d, "sample", "every type once");
    lab_head(r);
    OK(edl_record_add_field(r, "cpu", EDL_UINT8, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "temp", EDL_INT16, EDL_ENC_FIXED, "cC", NULL));
    OK(edl_record_add_field(r, "delta", EDL_INT32, EDL_ENC_SLEB, NULL, NULL));
    OK(edl_record_add_field(r, "big", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "neg", EDL_INT64, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "load", EDL_FLOAT32, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "hits", EDL_UINT32, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "tiny", EDL_INT8, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "port", EDL_UINT16, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "wide", EDL_INT32, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "huge", EDL_UINT64, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "i64", EDL_INT64, EDL_ENC_SLEB, NULL, NULL));
    r = rec(d, "far", "a key beyond the direct table");
    lab_head(r);
    OK(edl_record_add_field(r, "x", EDL_UINT8, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_dict_add_bind(d, "10", NULL, "ping"));
    OK(edl_dict_add_bind(d, "20", NULL, "note"));
    OK(edl_dict_add_bind(d, "30", NULL, "sample"));
    OK(edl_dict_add_bind(d, "100000", NULL, "far"));
    return d;
}

void lab_add_alarm(edl_dict *d)
{
    edl_record *r = rec(d, "alarm", "added while tracing");
    lab_head(r);
    OK(edl_record_add_field(r, "severity", EDL_UINT16, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "msg", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL));
    OK(edl_dict_add_bind(d, "40", NULL, "alarm"));
}

edl_dict *pair_dict(void)
{
    edl_dict *d;
    edl_record *r;
    OK(edl_dict_create("pair", "1.0", EDL_REPR_BINARY, &d));
    OK(edl_dict_set_binary(d, 'L', EDL_FRAMING_ECL));
    OK(edl_dict_set_roles(d, "t", "ns", "", ""));
    OK(edl_dict_set_key(d, 2, 0, 1));
    static const char *const names[] = {"open", "close", "other", "two"};
    for (int i = 0; i < 4; i++) {
        r = rec(d, names[i], NULL);
        OK(edl_record_add_field(r, "cls", EDL_UINT8, EDL_ENC_FIXED, NULL, NULL));
        OK(edl_record_add_field(r, "sub", EDL_UINT8, EDL_ENC_FIXED, NULL, NULL));
        OK(edl_record_add_field(r, "t", EDL_UINT64, EDL_ENC_FIXED, "ns", NULL));
        if (i < 2)
            OK(edl_record_add_field(r, "fd", EDL_INT32, EDL_ENC_SLEB, NULL, NULL));
    }
    OK(edl_dict_add_bind(d, "1", "1", "open"));
    OK(edl_dict_add_bind(d, "1", "2", "close"));
    OK(edl_dict_add_bind(d, "1", NULL, "other"));
    OK(edl_dict_add_bind(d, "2", NULL, "two"));
    return d;
}

edl_dict *flat_dict(void)
{
    edl_dict *d;
    edl_record *r;
    OK(edl_dict_create("flat", "1.0", EDL_REPR_BINARY, &d));
    OK(edl_dict_set_binary(d, 'L', EDL_FRAMING_RAW));
    OK(edl_dict_set_roles(d, "stamp", "ms", "", ""));
    OK(edl_dict_set_key(d, 0, EDL_NO_KEY, EDL_NO_KEY));
    r = rec(d, "row", NULL);
    OK(edl_record_add_field(r, "id", EDL_UINT32, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "value", EDL_FLOAT64, EDL_ENC_FIXED, NULL, NULL));
    OK(edl_record_add_field(r, "label", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ms", NULL));
    return d;
}

edl_dict *tick_dict(void)
{
    edl_dict *d;
    edl_record *r;
    OK(edl_dict_create("tick", "2.0", EDL_REPR_BINARY, &d));
    OK(edl_dict_set_binary(d, 'L', EDL_FRAMING_ECL));
    OK(edl_dict_set_roles(d, "stamp", "ns", "", ""));
    OK(edl_dict_set_key(d, 1, 0, EDL_NO_KEY));
    r = rec(d, "beat", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "n", EDL_UINT8, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "d", EDL_INT8, EDL_ENC_SLEB, NULL, NULL));
    r = rec(d, "pulse", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "v", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "s", EDL_INT64, EDL_ENC_SLEB, NULL, NULL));
    r = rec(d, "label", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "text", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL));
    OK(edl_record_add_field(r, "w", EDL_FLOAT64, EDL_ENC_FIXED, NULL, NULL));
    r = rec(d, "bare", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    r = rec(d, "clock", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "abs", EDL_UINT64, EDL_ENC_TDELTA, NULL, NULL));
    /* the time first, then only ULEBs of 16 bits or more: the reader's
     * kernels for these shapes (none, one, two, three such fields) */
    r = rec(d, "mark", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    r = rec(d, "enter", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "region", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL));
    r = rec(d, "span", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "a", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "b", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    r = rec(d, "wide", NULL);
    OK(edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL));
    OK(edl_record_add_field(r, "a", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "b", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_record_add_field(r, "c", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL));
    OK(edl_dict_add_bind(d, "1", NULL, "beat"));
    OK(edl_dict_add_bind(d, "2", NULL, "pulse"));
    OK(edl_dict_add_bind(d, "3", NULL, "label"));
    OK(edl_dict_add_bind(d, "4", NULL, "bare"));
    OK(edl_dict_add_bind(d, "5", NULL, "clock"));
    OK(edl_dict_add_bind(d, "6", NULL, "mark"));
    OK(edl_dict_add_bind(d, "7", NULL, "enter"));
    OK(edl_dict_add_bind(d, "8", NULL, "span"));
    OK(edl_dict_add_bind(d, "9", NULL, "wide"));
    return d;
}

static void ping(tb *t, uint64_t ts, uint32_t seq, double rtt)
{
    tb_val v[] = {TB_U(ts), TB_U(10), TB_U(seq), TB_F(rtt)};
    tb_record(t, "ping", v);
}

static void note(tb *t, uint64_t ts, int level, const char *text)
{
    tb_val v[] = {TB_U(ts), TB_U(20), TB_I(level), TB_S(text)};
    tb_record(t, "note", v);
}

void lab_build_small(tb *t, edl_dict *d)
{
    tb_set_header(t, 3, 4, "lab-host", 1e6);
    tb_chunk_opts o = {0};
    tb_chunk_begin(t, 3, 1, 1000);
    ping(t, 1000, 1, 0.25);
    note(t, 1005, -2, "start \"quoted\", comma\ttab");
    ping(t, 1010, 2, 1.5);
    {
        tb_val v[] = {TB_U(1020), TB_U(30), TB_U(255), TB_I(-300), TB_I(-70000),
                      TB_U(UINT64_MAX), TB_I(INT64_MIN), TB_F(0.1), TB_U(4000000000u),
                      TB_I(-128), TB_U(65535), TB_I(INT32_MIN), TB_U(1234567890123ULL),
                      TB_I(-5)};
        tb_record(t, "sample", v);
    }
    tb_chunk_end(t, &o);
    o.compression = TB_ZLIB;
    tb_chunk_begin(t, 3, 2, 1001);
    note(t, 1001, 3, "caf\xc3\xa9 \x01 bad\xff");
    {
        tb_val v[] = {TB_U(1030), TB_U(100000), TB_U(7)};
        tb_record(t, "far", v);
    }
    ping(t, 1040, 3, -2.0);
    tb_chunk_end(t, &o);
    lab_add_alarm(d);
    tb_dict_chunk(t, 0);
#ifdef HAVE_ZSTD
    o.compression = TB_ZSTD;
#endif
    tb_chunk_begin(t, 3, 1, 1050);
    {
        tb_val v[] = {TB_U(1050), TB_U(40), TB_U(2), TB_S("disk full")};
        tb_record(t, "alarm", v);
    }
    ping(t, 1060, 4, 3.75);
    tb_chunk_end(t, &o);
    tb_finish_index(t);
}
