/* labdict.h -- made-up trace formats for the PAL tests (deliberately not ECL's:
 * the key is not the first field, FIXED fields are big-endian, there are two-key
 * and DEFAULT-key formats), and a small deterministic sample trace. */
#ifndef PAL_TEST_LABDICT_H
#define PAL_TEST_LABDICT_H

#include "edl/edl.h"
#include "tests/pal/tracebuild.h"

/* "lab" 0.3: key field `code` (uint32 ULEB) at index 1, time `ts` (uint64
 * TDELTA, "us") at index 0. Records ping (10), note (20), sample (30),
 * far (100000). */
edl_dict *lab_dict(char byte_order, edl_framing framing);
/* Adds record alarm (40): ts, code, severity uint16 FIXED, msg string. */
void lab_add_alarm(edl_dict *d);
/* "pair" 1.0: two keys (cls, sub) at (0, 1), time `t` uint64 FIXED ("ns"). */
edl_dict *pair_dict(void);
/* "flat" 1.0: DEFAULT key, raw framing, little-endian: id uint32 FIXED,
 * value float64 FIXED, label string LSTRING, stamp uint64 TDELTA ("ms"). */
edl_dict *flat_dict(void);

/* "tick" 2.0: key `kind` (uint16 ULEB) first, like compact native formats, so
 * that the readers' fast paths are exercised: LEB-only records (beat: stamp
 * TDELTA "ns", n uint8 ULEB, d int8 SLEB; pulse: stamp, v uint64 ULEB, s int64
 * SLEB) and mixed ones (label: stamp, text LSTRING, w float64 FIXED; bare: no
 * field but the key; clock: stamp, abs uint64 ULEB -- two times), and the
 * time followed by ULEBs of 16 bits and more only (mark: stamp alone; enter:
 * region uint32; span: a uint32, b uint16; wide: a uint64, b uint32, c
 * uint16). Keys 1..9; little-endian. */
edl_dict *tick_dict(void);

/* The small sample trace (tests/pal/golden): 3 record chunks on 2 streams,
 * none/zlib/zstd (zlib when zstd is missing), a dictionary chunk adding
 * alarm, and an index with footer. d must be lab_dict('B', ECL); it grows. */
void lab_build_small(tb *t, edl_dict *d);

#endif
