/* test_pal_matcher.c -- the one message matcher on adversarial orders: its
 * key (source, destination, tag, communicator context) with each part
 * exercised so that dropping or changing any part pairs some message
 * wrongly; wildcard receives resolved late, tags reused across
 * communicators whose ids differ between processes, Sendrecv to self,
 * intercommunicators, receives freed while active (posted in place, or
 * untimed and settled at the end), ids without definitions
 * and global ids (a foreign format's, whose ids are not member groups);
 * a definition between two posts of one id, and keys kept while the
 * queues grow.
 * Each end carries a distinct byte count: a pairing is checked by the
 * partner's bytes. Plus the member-list parser and the vocabulary tables. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

/* Posts an end; returns the partner's bytes, 0 when it waits. */
static uint64_t post(pal_matcher *m, int side, uint32_t me, int64_t peer, int64_t tag,
                     int64_t comm, unsigned flags, uint64_t bytes)
{
    pal_msg_end e = {me, 0, (double)bytes, bytes, bytes}, p;
    pal_status st = pal_matcher_post(m, side, peer, tag, comm, flags, &e, &p);
    if (st == PAL_END)
        return 0;
    if (st != PAL_OK) {
        fprintf(stderr, "post: %s\n", pal_status_string(st));
        return UINT64_MAX;
    }
    if (p.user != p.bytes || p.time != (double)p.bytes)
        return UINT64_MAX;   /* the partner comes back as posted */
    return p.bytes;
}

#define S PAL_MATCH_SEND
#define R PAL_MATCH_RECV

static pal_matcher *fresh(void)
{
    pal_matcher *m = NULL;
    if (pal_matcher_create(&m) != PAL_OK) {
        fprintf(stderr, "cannot create a matcher\n");
        exit(1);
    }
    /* world: id 0 on every process, ranks 0-3 */
    for (uint32_t p = 0; p < 4; p++)
        if (pal_matcher_define_text(m, p, 0, 4, "0-3", 3, "", 0) != PAL_OK)
            exit(1);
    return m;
}

/* First sent first received within one key; a receive posted first waits. */
static void order(void)
{
    pal_matcher *m = fresh();
    CHECK(post(m, S, 0, 1, 5, 0, 0, 101) == 0, "a send waits");
    CHECK(post(m, S, 0, 1, 5, 0, 0, 102) == 0, "a second send waits");
    CHECK(post(m, R, 1, 0, 5, 0, 0, 201) == 101, "first sent, first received");
    CHECK(post(m, R, 1, 0, 5, 0, 0, 202) == 102, "then the second");
    CHECK(post(m, R, 1, 0, 5, 0, 0, 203) == 0, "a receive posted first waits");
    CHECK(post(m, S, 0, 1, 5, 0, 0, 103) == 203, "its send completes it");
    uint64_t s, r;
    pal_matcher_waiting(m, &s, &r);
    CHECK(s == 0 && r == 0, "nothing waits (%llu sends, %llu receives)",
          (unsigned long long)s, (unsigned long long)r);
    pal_matcher_destroy(m);
}

/* The key's source and destination: sends of two ranks to a third, received
 * in the other order (an MPI_ANY_SOURCE receive resolved by its completion);
 * the key is directed: 0 -> 1 and 1 -> 0 are different. */
static void sources(void)
{
    pal_matcher *m = fresh();
    CHECK(post(m, S, 0, 2, 1, 0, 0, 10) == 0, "0 -> 2");
    CHECK(post(m, S, 1, 2, 1, 0, 0, 11) == 0, "1 -> 2");
    CHECK(post(m, R, 2, 1, 1, 0, 0, 20) == 11, "the receive from 1 takes 1's send");
    CHECK(post(m, R, 2, 0, 1, 0, 0, 21) == 10, "the receive from 0 takes 0's send");
    CHECK(post(m, S, 0, 1, 1, 0, 0, 12) == 0, "0 -> 1");
    CHECK(post(m, R, 0, 1, 1, 0, 0, 22) == 0, "0 receiving from 1 is not 1 receiving from 0");
    CHECK(post(m, R, 1, 0, 1, 0, 0, 23) == 12, "1 receives 0's");
    CHECK(post(m, S, 1, 0, 1, 0, 0, 13) == 22, "1 -> 0 completes 0's receive");
    pal_matcher_destroy(m);
    /* many keys that differ in one part only, received in reverse order:
     * keys that hash alike must still be told apart */
    CHECK(pal_matcher_create(&m) == PAL_OK, "create");
    for (uint32_t src = 0; src < 300; src++)
        CHECK(post(m, S, src, 300, 0, 0, 0, 1000 + src) == 0, "%u -> 300", src);
    for (uint32_t dst = 0; dst < 300; dst++)
        CHECK(post(m, S, 301, dst, 0, 0, 0, 2000 + dst) == 0, "301 -> %u", dst);
    for (uint32_t src = 300; src-- > 0;)
        CHECK(post(m, R, 300, src, 0, 0, 0, 1) == 1000 + src, "300 receives %u's", src);
    for (uint32_t dst = 300; dst-- > 0;)
        CHECK(post(m, R, dst, 301, 0, 0, 0, 1) == 2000 + dst, "%u receives 301's", dst);
    /* an unresolved wildcard is no end */
    pal_msg_end e = {2, 0, 0, 0, 0}, p;
    CHECK(pal_matcher_post(m, R, -1, 1, 0, 0, &e, &p) == PAL_EINVAL,
          "an unresolved wildcard source is refused");
    pal_matcher_destroy(m);
}

/* The key's tag: tags received out of order; a negative (unknown) tag is 0. */
static void tags(void)
{
    pal_matcher *m = fresh();
    CHECK(post(m, S, 0, 1, 1, 0, 0, 31) == 0, "tag 1");
    CHECK(post(m, S, 0, 1, 2, 0, 0, 32) == 0, "tag 2");
    CHECK(post(m, R, 1, 0, 2, 0, 0, 41) == 32, "the receive of tag 2 takes the tag-2 send");
    CHECK(post(m, R, 1, 0, 1, 0, 0, 42) == 31, "the receive of tag 1 takes the tag-1 send");
    for (int64_t tag = 0; tag < 300; tag++)
        CHECK(post(m, S, 0, 1, tag, 0, 0, 3000 + (uint64_t)tag) == 0, "tag %lld", (long long)tag);
    for (int64_t tag = 300; tag-- > 0;)
        CHECK(post(m, R, 1, 0, tag, 0, 0, 1) == 3000 + (uint64_t)tag, "receive tag %lld",
              (long long)tag);
    CHECK(post(m, S, 0, 1, -1, 0, 0, 33) == 0, "unknown tag");
    CHECK(post(m, R, 1, 0, 0, 0, 0, 43) == 33, "an unknown tag is 0");
    pal_matcher_destroy(m);
}

/* Tags reused across communicators: a split {0,1} that process 0 calls 5
 * and process 1 calls 9 (per-process ids), beside world; the same tag on
 * both, received in the other order. */
static void communicators(void)
{
    pal_matcher *m = fresh();
    CHECK(pal_matcher_define_text(m, 0, 5, 2, "0 1", 3, "", 0) == PAL_OK, "define 0's 5");
    uint32_t w[] = {0, 1};
    CHECK(pal_matcher_define_comm(m, 1, 9, w, 2, NULL, 0) == PAL_OK, "define 1's 9");
    CHECK(post(m, S, 0, 1, 7, 5, 0, 51) == 0, "send on the split");
    CHECK(post(m, S, 0, 1, 7, 0, 0, 52) == 0, "send on world, same tag");
    CHECK(post(m, R, 1, 0, 7, 0, 0, 61) == 52, "world's receive takes world's send");
    CHECK(post(m, R, 1, 0, 7, 9, 0, 62) == 51, "the split's receive (id 9) takes id 5's send");
    /* many communicators of distinct groups, one tag, received in reverse */
    for (uint32_t c = 0; c < 300; c++) {
        uint32_t g[] = {0, 1, 2 + c};
        CHECK(pal_matcher_define_comm(m, 0, 100 + c, g, 3, NULL, 0) == PAL_OK &&
                  pal_matcher_define_comm(m, 1, 1000 + c, g, 3, NULL, 0) == PAL_OK,
              "define group %u", c);
        CHECK(post(m, S, 0, 1, 7, 100 + c, 0, 5000 + c) == 0, "send on group %u", c);
    }
    for (uint32_t c = 300; c-- > 0;)
        CHECK(post(m, R, 1, 0, 7, 1000 + c, 0, 1) == 5000 + c, "receive on group %u", c);
    /* the same members in another order are another communicator */
    uint32_t rev[] = {1, 0};
    CHECK(pal_matcher_define_comm(m, 0, 6, rev, 2, NULL, 0) == PAL_OK, "define {1,0}");
    CHECK(post(m, S, 0, 1, 7, 6, 0, 53) == 0, "send on {1,0}");
    CHECK(post(m, R, 1, 0, 7, 9, 0, 63) == 0, "{0,1} is not {1,0}");
    /* the context and size of each */
    uint64_t c5, c9, c6, cw;
    uint32_t n5 = 0, n6 = 0;
    CHECK(pal_matcher_context(m, 0, 5, 0, &c5, &n5) == PAL_OK && n5 == 2, "context of 0's 5");
    CHECK(pal_matcher_context(m, 1, 9, 0, &c9, NULL) == PAL_OK && c9 == c5, "same on 1's 9");
    CHECK(pal_matcher_context(m, 0, 6, 0, &c6, &n6) == PAL_OK && c6 != c5 && n6 == 2,
          "{1,0} differs");
    CHECK(pal_matcher_context(m, 2, 0, 0, &cw, NULL) == PAL_OK && cw != c5, "world differs");
    /* a redefinition replaces */
    CHECK(pal_matcher_define_text(m, 0, 5, 4, "0-3", 3, "", 0) == PAL_OK, "redefine 0's 5");
    CHECK(pal_matcher_context(m, 0, 5, 0, &c5, &n5) == PAL_OK && c5 == cw && n5 == 4,
          "0's 5 is now world's group");
    pal_matcher_destroy(m);
}

/* Sendrecv to self: the send and the receive of one call, both orders. */
static void self(void)
{
    pal_matcher *m = fresh();
    CHECK(post(m, S, 2, 2, 3, 0, 0, 71) == 0, "2 sends to itself");
    CHECK(post(m, R, 2, 2, 3, 0, 0, 81) == 71, "and receives it");
    CHECK(post(m, R, 2, 2, 3, 0, 0, 82) == 0, "the receive first");
    CHECK(post(m, S, 2, 2, 3, 0, 0, 72) == 82, "then the send");
    CHECK(post(m, S, 2, 3, 3, 0, 0, 73) == 0, "a send to 3 on the same tag");
    CHECK(post(m, R, 2, 2, 3, 0, 0, 83) == 0, "is not one to itself");
    pal_matcher_destroy(m);
}

/* Intercommunicators: each side names its own group first; the context is
 * the same on both sides and differs from the intracommunicator of all. */
static void intercomm(void)
{
    pal_matcher *m = fresh();
    CHECK(pal_matcher_define_text(m, 0, 11, 2, "0-1", 3, "2 3", 3) == PAL_OK, "0's side");
    CHECK(pal_matcher_define_text(m, 2, 12, 2, "2-3", 3, "0 1", 3) == PAL_OK, "2's side");
    CHECK(post(m, S, 0, 2, 4, 11, 0, 91) == 0, "across the intercommunicator");
    CHECK(post(m, S, 0, 2, 4, 0, 0, 92) == 0, "on world, same tag");
    CHECK(post(m, R, 2, 0, 4, 12, 0, 93) == 91, "the other side's id takes it");
    CHECK(post(m, R, 2, 0, 4, 0, 0, 94) == 92, "world's receive takes world's");
    pal_matcher_destroy(m);
}

/* A receive freed while active took its send though its completion was
 * not seen: later receives take the later sends. */
static void freed(void)
{
    pal_matcher *m = fresh();
    CHECK(post(m, S, 0, 1, 8, 0, 0, 111) == 0, "first send");
    CHECK(post(m, S, 0, 1, 8, 0, 0, 112) == 0, "second send");
    CHECK(post(m, R, 1, 0, 8, 0, 0, 0) == 111, "the freed receive takes the first");
    CHECK(post(m, R, 1, 0, 8, 0, 0, 121) == 112, "the next receive the second");
    pal_matcher_destroy(m);
}

/* Untimed receives (freed while active, posted apart) take the sends left
 * over at the end: their own source and tag, or any; the oldest first; on
 * their receiver and communicator only; none for a source that is no rank. */
static uint64_t taken_bytes[8];
static size_t ntaken;

static void took(void *ctx, const pal_msg_key *key, const pal_msg_end *send,
                 const pal_msg_end *recv)
{
    (void)ctx;
    if (ntaken < 8 && key->dst == recv->process && key->src == send->process)
        taken_bytes[ntaken] = send->bytes * 1000 + recv->bytes;
    ntaken++;
}

static uint64_t untimed_post(pal_matcher *m, uint32_t me, int64_t peer, int64_t tag,
                             int64_t comm, uint64_t bytes)
{
    pal_msg_end e = {me, 0, 1e9, bytes, bytes};
    return (uint64_t)pal_matcher_post_untimed(m, peer, tag, comm, 0, &e);
}

static void untimed(void)
{
    pal_matcher *m = fresh();
    /* communicator 6 of processes 1 and 2 is {1, 2} */
    CHECK(pal_matcher_define_text(m, 1, 6, 2, "1 2", 3, "", 0) == PAL_OK, "define 6");
    CHECK(pal_matcher_define_text(m, 2, 6, 2, "1 2", 3, "", 0) == PAL_OK, "define 6");
    CHECK(post(m, S, 0, 1, 7, 0, 0, 201) == 0, "0->1 tag 7");
    CHECK(post(m, S, 3, 1, 9, 0, 0, 202) == 0, "3->1 tag 9");
    CHECK(post(m, S, 2, 1, 9, 6, 0, 203) == 0, "2->1 tag 9 on 6");
    CHECK(post(m, S, 2, 1, 9, 0, 0, 204) == 0, "2->1 tag 9 on world");
    CHECK(post(m, S, 0, 1, 7, 0, 0, 205) == 0, "0->1 tag 7 again");
    CHECK(post(m, S, 0, 3, 5, 0, 0, 206) == 0, "0->3 tag 5");
    /* apart: not waiting, not handed out, nothing taken yet */
    CHECK(untimed_post(m, 1, PAL_MATCH_ANY_SOURCE, 9, 6, 11) == PAL_OK, "any source, tag 9, on 6");
    CHECK(untimed_post(m, 1, 0, -1, 0, 12) == PAL_OK, "from 0, any tag");
    CHECK(untimed_post(m, 1, PAL_MATCH_ANY_SOURCE, -1, 0, 13) == PAL_OK, "any, any");
    CHECK(untimed_post(m, 1, 3, 7, 0, 14) == PAL_OK, "from 3, tag 7: nothing sent");
    CHECK(untimed_post(m, 3, 0, 5, 0, 15) == PAL_OK, "0->3 tag 5");
    CHECK(untimed_post(m, 3, 0, 5, 0, 16) == PAL_OK, "0->3 tag 5 again: one send only");
    CHECK(untimed_post(m, 1, -1, 7, 0, 17) == PAL_EINVAL, "-1 (no message) is refused");
    CHECK(untimed_post(m, 1, -3, 7, 0, 18) == PAL_EINVAL, "-3 (no rank) is refused");
    uint64_t ws, wr;
    pal_matcher_waiting(m, &ws, &wr);
    CHECK(ws == 6 && wr == 0, "6 sends wait, the untimed receives are apart (%llu, %llu)",
          (unsigned long long)ws, (unsigned long long)wr);
    ntaken = 0;
    CHECK(pal_matcher_settle(m, took, NULL) == 4, "4 sends taken");
    CHECK(ntaken == 4, "4 pairs handed out (%zu)", ntaken);
    CHECK(taken_bytes[0] == 203011, "any source on 6 takes 2's send on 6 (%llu)",
          (unsigned long long)taken_bytes[0]);
    CHECK(taken_bytes[1] == 201012, "from 0 takes the first of 0's (%llu)",
          (unsigned long long)taken_bytes[1]);
    CHECK(taken_bytes[2] == 202013, "any, any takes the oldest left (%llu)",
          (unsigned long long)taken_bytes[2]);
    CHECK(taken_bytes[3] == 206015, "0->3 takes 0's send to 3 (%llu)",
          (unsigned long long)taken_bytes[3]);
    pal_matcher_waiting(m, &ws, &wr);
    CHECK(ws == 2 && wr == 0, "2 sends left (%llu, %llu)", (unsigned long long)ws,
          (unsigned long long)wr);
    CHECK(pal_matcher_settle(m, took, NULL) == 0, "settled once");
    CHECK(post(m, R, 1, 2, 9, 0, 0, 301) == 204, "the world's send from 2 is still there");
    CHECK(post(m, R, 1, 0, 7, 0, 0, 302) == 205, "and 0's second");
    pal_matcher_destroy(m);
}

/* Ids without a definition are compared as is (ECL's agreed ids, PICL's
 * absent 0); global ids (an OTF2 archive's: defined once, used by every
 * process under the same id, which is not the member group) resolve
 * through the first definition of the id. */
static void foreign(void)
{
    pal_matcher *m = NULL;
    CHECK(pal_matcher_create(&m) == PAL_OK, "create");
    CHECK(post(m, S, 0, 1, 0, 3, 0, 131) == 0, "undefined id 3");
    CHECK(post(m, R, 1, 0, 0, 4, 0, 0) == 0, "undefined id 4 is another");
    CHECK(post(m, R, 1, 0, 0, 3, 0, 132) == 131, "id 3 matches id 3");
    uint64_t c;
    CHECK(pal_matcher_context(m, 1, 3, 0, &c, NULL) == PAL_EUNDEF, "3 is undefined");
    /* global ids: defined by the archive once (under process 0 here); the
     * archive's comm 1 is {1,2,3}, its comm 2 is {0,1,2,3} */
    CHECK(pal_matcher_define_text(m, 0, 1, 3, "1-3", 3, "", 0) == PAL_OK, "global 1");
    CHECK(pal_matcher_define_text(m, 0, 2, 4, "0-3", 3, "", 0) == PAL_OK, "global 2");
    uint64_t g1, g2, u1;
    uint32_t n = 0;
    CHECK(pal_matcher_context(m, 3, 1, PAL_MATCH_GLOBAL_COMM, &g1, &n) == PAL_OK && n == 3,
          "process 3 finds global 1");
    CHECK(pal_matcher_context(m, 2, 2, PAL_MATCH_GLOBAL_COMM, &g2, &n) == PAL_OK && n == 4 &&
              g2 != g1,
          "process 2 finds global 2");
    CHECK(pal_matcher_context(m, 3, 1, 0, &u1, NULL) == PAL_EUNDEF && u1 != g1,
          "per-process 1 of process 3 is undefined");
    CHECK(post(m, S, 1, 3, 6, 1, PAL_MATCH_GLOBAL_COMM, 141) == 0, "1 -> 3 on global 1");
    CHECK(post(m, S, 1, 3, 6, 2, PAL_MATCH_GLOBAL_COMM, 142) == 0, "1 -> 3 on global 2");
    CHECK(post(m, R, 3, 1, 6, 2, PAL_MATCH_GLOBAL_COMM, 151) == 142, "global 2 takes 2's");
    CHECK(post(m, R, 3, 1, 6, 1, PAL_MATCH_GLOBAL_COMM, 152) == 141, "global 1 takes 1's");
    /* the first definition of a global id stays */
    CHECK(pal_matcher_define_text(m, 1, 1, 2, "0 1", 3, "", 0) == PAL_OK, "1's own id 1");
    CHECK(pal_matcher_context(m, 3, 1, PAL_MATCH_GLOBAL_COMM, &c, NULL) == PAL_OK && c == g1,
          "global 1 is still {1,2,3}");
    pal_matcher_destroy(m);
}

static void keys(void)
{
    pal_matcher *m = fresh();
    pal_msg_key a, b;
    CHECK(pal_matcher_key(m, S, 0, 1, 9, 0, 0, &a) == PAL_OK && a.src == 0 && a.dst == 1 &&
              a.tag == 9,
          "a send's key");
    CHECK(pal_matcher_key(m, R, 1, 0, 9, 0, 0, &b) == PAL_OK && b.src == 0 && b.dst == 1 &&
              b.tag == 9 && b.context == a.context,
          "its receive's key is the same");
    CHECK(pal_matcher_define_text(m, 0, 1, 0, "", 0, "", 0) == PAL_EINVAL, "no members");
    CHECK(pal_matcher_define_text(m, 0, -1, 1, "0", 1, "", 0) == PAL_EINVAL, "negative id");
    pal_matcher_destroy(m);
}

static void members(void)
{
    uint32_t w[8];
    size_t n = 0;
    CHECK(pal_members_parse("0-3 8 10-11", 11, w, 8, &n) == PAL_OK && n == 7 && w[0] == 0 &&
              w[3] == 3 && w[4] == 8 && w[5] == 10 && w[6] == 11,
          "ranges and ranks");
    CHECK(pal_members_parse(" 5  2 ", 6, w, 8, &n) == PAL_OK && n == 2 && w[0] == 5 && w[1] == 2,
          "spaces, order kept");
    CHECK(pal_members_parse("0-9", 3, w, 8, &n) == PAL_ERANGE, "more than max");
    CHECK(pal_members_parse("0-9", 3, NULL, 0, &n) == PAL_OK && n == 10, "counting");
    CHECK(pal_members_parse("3-1", 3, w, 8, &n) == PAL_EFORMAT, "a reversed range");
    CHECK(pal_members_parse("1,2", 3, w, 8, &n) == PAL_EFORMAT, "commas");
    CHECK(pal_members_parse("-2", 2, w, 8, &n) == PAL_EFORMAT, "a bare dash");
    CHECK(pal_members_parse("99999999999", 11, w, 8, &n) == PAL_EFORMAT, "too large");
    CHECK(pal_members_parse("", 0, w, 8, &n) == PAL_OK && n == 0, "empty");
}

static void vocabulary(void)
{
    CHECK(PAL_COLL_OP_COUNT == 17, "17 collective operations");
    CHECK(strcmp(pal_coll_op_name(PAL_COLL_ALLREDUCE), "allreduce") == 0, "allreduce");
    CHECK(pal_coll_op_by_name("reduce_scatter_block") == PAL_COLL_REDUCE_SCATTER_BLOCK,
          "reduce_scatter_block by name");
    CHECK(pal_coll_op_by_name("reduce_scatter") == PAL_COLL_REDUCE_SCATTER, "no prefix match");
    CHECK(pal_coll_op_by_name("allreduc") == PAL_COLL_OP_NONE, "a prefix is no name");
    CHECK(pal_coll_op_name(PAL_COLL_OP_COUNT) == NULL, "out of range");
    for (int i = 0; i < PAL_COLL_OP_COUNT; i++)
        CHECK(pal_coll_op_by_name(pal_coll_op_name((pal_coll_op)i)) == i, "op %d round trip", i);
    CHECK(PAL_RMA_KIND_COUNT == 8, "8 one-sided kinds");
    for (int i = 0; i < PAL_RMA_KIND_COUNT; i++) {
        pal_record_role role = pal_rma_kind_role((pal_rma_kind)i);
        char want[32];
        snprintf(want, sizeof want, "rma_%s", pal_rma_kind_name((pal_rma_kind)i));
        CHECK(strcmp(pal_record_role_name(role), want) == 0, "kind %d is role %s", i, want);
        CHECK(pal_rma_kind_of_role(role) == i, "role of kind %d back", i);
    }
    CHECK(pal_rma_kind_of_role(PAL_ROLE_SEND) == PAL_RMA_KIND_NONE, "send is no RMA kind");
}

/* What a post found before is not taken for what it finds now: a
 * definition that comes between two posts of one id gives the second its
 * own context, and keys kept while the queues grow (thousands of keys, in
 * rounds) keep their ends and their order. */
static void later(void)
{
    pal_matcher *m = fresh();
    CHECK(post(m, S, 0, 1, 3, 7, 0, 51) == 0, "a send on id 7, undefined yet");
    CHECK(post(m, R, 1, 0, 3, 7, 0, 52) == 51, "the same undefined id pairs");
    CHECK(post(m, S, 0, 1, 3, 7, 0, 53) == 0, "a second send on id 7 waits");
    CHECK(pal_matcher_define_text(m, 0, 7, 2, "0 1", 3, "", 0) == PAL_OK &&
              pal_matcher_define_text(m, 1, 7, 2, "0 1", 3, "", 0) == PAL_OK,
          "id 7 defined on both");
    CHECK(post(m, R, 1, 0, 3, 7, 0, 54) == 0,
          "a receive on the defined id 7 is of another context than the send before");
    CHECK(post(m, S, 0, 1, 3, 7, 0, 55) == 54, "a send on the defined id 7 takes it");
    uint64_t s = 0, r = 0;
    pal_matcher_waiting(m, &s, &r);
    CHECK(s == 1 && r == 0, "the send of before the definition waits (%llu, %llu)",
          (unsigned long long)s, (unsigned long long)r);
    pal_matcher_destroy(m);

    m = fresh();
    int bad = 0;
    for (int round = 0; round < 3; round++)
        for (int64_t tag = 0; tag < 3000; tag++)
            bad += post(m, S, (uint32_t)(tag % 4), (tag + 1) % 4, tag, 0, 0,
                        (uint64_t)(round * 10000 + tag + 1)) != 0;
    for (int round = 0; round < 3; round++)
        for (int64_t tag = 2999; tag >= 0; tag--)
            bad += post(m, R, (uint32_t)((tag + 1) % 4), tag % 4, tag, 0, 0, 1) !=
                   (uint64_t)(round * 10000 + tag + 1);
    CHECK(bad == 0, "9000 sends on 3000 keys, each received in its key's order: %d wrong",
          bad);
    pal_matcher_waiting(m, &s, &r);
    CHECK(s == 0 && r == 0, "nothing waits");
    pal_matcher_destroy(m);
}

int main(void)
{
    order();
    sources();
    tags();
    communicators();
    self();
    intercomm();
    freed();
    untimed();
    foreign();
    keys();
    later();
    members();
    vocabulary();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("matcher: all checks passed\n");
    return 0;
}
