/* merge_index.c -- checks a run file's index against its bytes, with the
 * container codec only (not PAL's reader, which reads the members by
 * scanning them): the run header and its copy, both index copies equal,
 * every member at an 8-byte boundary (the copying merge aligns to 4096;
 * merge-roundtrip.sh checks that) inside the file, after the one before,
 * starting with an ECL header; every chunk offset of every stream table naming a records
 * chunk (header CRC good) of that stream, the offsets in file order, as
 * many as the table says; the member's own footer, when it has one, naming
 * its index chunk, and every entry of that index a chunk at the offset it
 * gives. Prints per member what was checked, and the members' chunks by
 * compression: "chunks: N none, N zlib, N zstd". With MEMBER, prints
 * only "OFFSET LENGTH": the payload of that member's largest records chunk
 * of a thread (stream 1 on), OFFSET from the member's start (where its
 * per-rank file has it), for tests that damage it.
 * Usage: merge_index RUNFILE [MEMBER]   (exit 0 good, 1 a mismatch, 99 usage/IO) */
#include <config.h>

#include "container/container.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fd;
static uint64_t fsize;
static int bad;

#define FAIL(...) (printf("FAIL: " __VA_ARGS__), printf("\n"), bad = 1)

/* the chunk header at off, or 0 */
static int chunk_at(uint64_t off, ecc_chunk *c)
{
    uint8_t b[ECC_CHUNK_HEADER];
    return off + ECC_CHUNK_HEADER <= fsize && ecc_read_at(fd, b, sizeof b, off) == 0 &&
           ecc_chunk_decode(b, c) == NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: merge_index RUNFILE [MEMBER]\n");
        return 99;
    }
    struct stat sb;
    fd = open(argv[1], O_RDONLY);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        perror(argv[1]);
        return 99;
    }
    fsize = (uint64_t)sb.st_size;
    uint8_t hb[ECC_RUN_HEADER], foot[ECC_FOOTER];
    ecc_run_header h, h2;
    uint64_t hcopy;
    if (ecc_read_at(fd, hb, sizeof hb, 0) != 0 || ecc_run_header_decode(hb, &h) != NULL) {
        printf("FAIL: no good run header at byte 0\n");
        return 1;
    }
    if (ecc_read_at(fd, foot, sizeof foot, fsize - ECC_FOOTER) != 0 ||
        !ecc_run_footer_decode(foot, &hcopy) || hcopy + ECC_RUN_HEADER + ECC_FOOTER != fsize ||
        ecc_read_at(fd, hb, sizeof hb, hcopy) != 0 || ecc_run_header_decode(hb, &h2) != NULL ||
        h2.index_copy != h.index_copy || h2.members != h.members)
        FAIL("the footer does not name a copy of the run header just before it");
    uint8_t *ix = malloc(h.index_length + 1), *ix2 = malloc(h.index_length + 1);
    if (!ix || !ix2 || ecc_read_at(fd, ix, h.index_length, h.index_offset) != 0 ||
        ecc_read_at(fd, ix2, h.index_length, h.index_copy) != 0) {
        printf("FAIL: the index cannot be read\n");
        return 1;
    }
    if (memcmp(ix, ix2, h.index_length) != 0)
        FAIL("the two copies of the index differ");
    uint64_t comp[3] = { 0, 0, 0 }, prev_end = 0;
    const unsigned align = 8;
    for (uint32_t k = 0; k < h.members; k++) {
        ecc_run_member m;
        memset(&m, 0, sizeof m);
        if (ecc_run_member_decode(ix + (size_t)k * ECC_RUN_MEMBER, &m) != 3) {
            FAIL("member %u: its entry's CRCs do not hold", k);
            continue;
        }
        uint8_t magic[8];
        if (m.offset % align != 0 || m.offset < prev_end || m.offset + m.length > fsize ||
            ecc_read_at(fd, magic, 8, m.offset) != 0 || memcmp(magic, ECC_FILE_MAGIC, 8) != 0) {
            FAIL("member %u ('%s'): at byte %" PRIu64 ", %" PRIu64 " bytes: not an ECL trace "
                 "at a %u-byte boundary after the last member", k, m.name, m.offset, m.length,
                 align);
            continue;
        }
        prev_end = m.offset + m.length;
        const uint8_t *t = ix + m.streams_offset;
        if (m.streams_offset > h.index_length || m.streams_length > h.index_length - m.streams_offset ||
            ecc_run_streams_check(t, m.streams_length, m.nstreams) != NULL) {
            FAIL("member %u: stream table damaged", k);
            continue;
        }
        const uint8_t *p = t + 8;
        uint64_t nchunks = 0, big = 0, big_len = 0;
        for (uint32_t j = 0; j < m.nstreams; j++) {
            ecc_run_stream rs;
            const uint8_t *offs = p + ECC_RUN_STREAM;
            p = ecc_run_stream_decode(p, &rs);
            uint64_t last = 0;
            for (uint32_t c = 0; c < rs.nchunks; c++) {
                uint64_t off = ecc_get64(offs + 8 * (size_t)c);
                ecc_chunk ch;
                if (off < m.offset || off >= m.offset + m.length || off < last ||
                    !chunk_at(off, &ch) || ch.kind != ECC_KIND_RECORDS || ch.stream != rs.stream) {
                    FAIL("member %u, stream %u, chunk %u: byte %" PRIu64 " is not a records "
                         "chunk of that stream in the member, after the one before", k,
                         rs.stream, c, off);
                    break;
                }
                if (ch.compression < 3)
                    comp[ch.compression]++;
                if (rs.stream > 0 && ch.stored_length > big_len) {
                    big = off - m.offset + ECC_CHUNK_HEADER;
                    big_len = ch.stored_length;
                }
                last = off + 1;
                nchunks++;
            }
        }
        if (argc == 3 && k == (uint32_t)atoi(argv[2])) {
            printf("%" PRIu64 " %" PRIu64 "\n", big, big_len);
            free(ix);
            free(ix2);
            close(fd);
            return bad;
        }
        /* the member's own index chunk and footer, with the member's offsets */
        uint8_t mf[ECC_FOOTER];
        uint64_t io;
        int indexed = 0;
        if (ecc_read_at(fd, mf, sizeof mf, m.offset + m.length - ECC_FOOTER) == 0 &&
            ecc_footer_decode(mf, &io)) {
            ecc_chunk ic;
            if (!chunk_at(m.offset + io, &ic) || ic.kind != ECC_KIND_INDEX ||
                ic.stored_length % ECC_INDEX_ENTRY != 0) {
                FAIL("member %u: its footer names byte %" PRIu64 ", not its index chunk", k, io);
                continue;
            }
            uint8_t *e = malloc(ic.stored_length + 1);
            if (!e || ecc_read_at(fd, e, ic.stored_length, m.offset + io + ECC_CHUNK_HEADER) != 0 ||
                ecc_crc32(0, e, ic.stored_length) != ic.payload_crc) {
                FAIL("member %u: its index chunk is damaged", k);
                free(e);
                continue;
            }
            for (uint32_t x = 0; x < ic.stored_length / ECC_INDEX_ENTRY; x++) {
                ecc_index_entry ie;
                ecc_chunk c;
                ecc_index_entry_decode(e + (size_t)x * ECC_INDEX_ENTRY, &ie);
                if (ie.offset >= io || !chunk_at(m.offset + ie.offset, &c) || c.kind != ie.kind ||
                    c.stream != ie.stream || c.record_count != ie.record_count) {
                    FAIL("member %u: its index entry %u names byte %" PRIu64 ", which holds "
                         "no such chunk", k, x, ie.offset);
                    break;
                }
            }
            free(e);
            indexed = 1;
        }
        if (argc == 2)
            printf("member %u (%s): %" PRIu64 " chunks where its streams say%s\n", k, m.name,
                   nchunks, indexed ? ", its own index and footer agree" : "");
    }
    printf("chunks: %" PRIu64 " none, %" PRIu64 " zlib, %" PRIu64 " zstd\n", comp[0], comp[1],
           comp[2]);
    free(ix);
    free(ix2);
    close(fd);
    return bad;
}
