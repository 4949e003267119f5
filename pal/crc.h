/* crc.h -- the CRC-32 of chunk payloads (zlib's crc32: the reflected
 * polynomial 0xEDB88320, pre- and post-inverted). Where the CPU has
 * PCLMULQDQ, whole 16-byte blocks are folded with carry-less multiplies, 64
 * bytes per step (Gopal, Ozturk et al., "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction", Intel, 2009; the constants are the
 * paper's bit-reflected ones for this polynomial), and zlib does the rest.
 * Header-only (static) so that the unit tests compare it with zlib directly. */
#ifndef PAL_CRC_H
#define PAL_CRC_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(PAL_NO_CLMUL)
#define PAL_HAVE_CLMUL 1
#include <immintrin.h>

/* Folds len bytes (len >= 64, a multiple of 16) into the CRC register crc
 * (inverted form, as zlib keeps it internally); returns the register. */
__attribute__((target("pclmul,sse4.1"), unused)) static uint32_t
pal_crc_fold(const unsigned char *buf, size_t len, uint32_t crc)
{
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);  /* 4*128+32, 4*128-32 */
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);  /* 128+32, 128-32 */
    const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);                 /* 64 */
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);  /* mu, P */
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(buf + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(buf + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(buf + 48));
    a = _mm_xor_si128(a, _mm_cvtsi32_si128((int)crc));
    buf += 64;
    len -= 64;
    /* four lanes, each folded 512 bits forward */
    for (; len >= 64; buf += 64, len -= 64) {
        __m128i la = _mm_clmulepi64_si128(a, k1k2, 0x00), ha = _mm_clmulepi64_si128(a, k1k2, 0x11);
        __m128i lb = _mm_clmulepi64_si128(b, k1k2, 0x00), hb = _mm_clmulepi64_si128(b, k1k2, 0x11);
        __m128i lc = _mm_clmulepi64_si128(c, k1k2, 0x00), hc = _mm_clmulepi64_si128(c, k1k2, 0x11);
        __m128i ld = _mm_clmulepi64_si128(d, k1k2, 0x00), hd = _mm_clmulepi64_si128(d, k1k2, 0x11);
        a = _mm_xor_si128(_mm_xor_si128(la, ha),
                          _mm_loadu_si128((const __m128i *)(const void *)(buf + 0)));
        b = _mm_xor_si128(_mm_xor_si128(lb, hb),
                          _mm_loadu_si128((const __m128i *)(const void *)(buf + 16)));
        c = _mm_xor_si128(_mm_xor_si128(lc, hc),
                          _mm_loadu_si128((const __m128i *)(const void *)(buf + 32)));
        d = _mm_xor_si128(_mm_xor_si128(ld, hd),
                          _mm_loadu_si128((const __m128i *)(const void *)(buf + 48)));
    }
    /* the lanes into one, 128 bits forward at a time, then the other blocks */
    __m128i x = a, l, h;
    const __m128i next[3] = {b, c, d};
    for (int i = 0; i < 3; i++) {
        l = _mm_clmulepi64_si128(x, k3k4, 0x00);
        h = _mm_clmulepi64_si128(x, k3k4, 0x11);
        x = _mm_xor_si128(_mm_xor_si128(l, h), next[i]);
    }
    for (; len >= 16; buf += 16, len -= 16) {
        l = _mm_clmulepi64_si128(x, k3k4, 0x00);
        h = _mm_clmulepi64_si128(x, k3k4, 0x11);
        x = _mm_xor_si128(_mm_xor_si128(l, h),
                          _mm_loadu_si128((const __m128i *)(const void *)buf));
    }
    /* 128 bits to 64 */
    l = _mm_clmulepi64_si128(x, k3k4, 0x10);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), l);
    h = _mm_srli_si128(x, 4);
    x = _mm_clmulepi64_si128(_mm_and_si128(x, low32), k5, 0x00);
    x = _mm_xor_si128(x, h);
    /* Barrett reduction to 32 bits */
    l = _mm_clmulepi64_si128(_mm_and_si128(x, low32), poly, 0x10);
    l = _mm_clmulepi64_si128(_mm_and_si128(l, low32), poly, 0x00);
    x = _mm_xor_si128(x, l);
    return (uint32_t)_mm_extract_epi32(x, 1);
}

__attribute__((unused)) static int pal_crc_clmul_ok(void)
{
    static int known = -1;  /* every thread finds and stores the same value */
    int ok = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (ok < 0) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
        __atomic_store_n(&known, ok, __ATOMIC_RELAXED);
    }
    return ok;
}
#endif

/* zlib's crc32(0, p, n). */
static inline uint32_t pal_crc32(const unsigned char *p, size_t n)
{
    uint32_t crc = 0;
#ifdef PAL_HAVE_CLMUL
    if (n >= 64 && pal_crc_clmul_ok()) {
        size_t m = n & ~(size_t)15;
        crc = ~pal_crc_fold(p, m, 0xFFFFFFFFu);
        p += m;
        n -= m;
    }
#endif
    while (n) {
        /* zlib takes at most 4 GiB at once */
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = (uint32_t)crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return crc;
}

#endif /* PAL_CRC_H */
