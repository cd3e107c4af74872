/* Shared pieces of the ADBench objectives (bench/adbench/{gmm,ba,lstm,hand}.h): a small
 * deterministic random number generator for the input generators, and the constants of the
 * reference implementation. Self-contained C (C99 and C++), static functions only, no rand(). */
#ifndef ZYG_ADBENCH_COMMON_H
#define ZYG_ADBENCH_COMMON_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Every function of these headers is static; not every includer uses all of them. An includer
 * may define ADB_FN first (bench/src/hvp.c makes them always_inline). */
#ifndef ADB_FN
#define ADB_FN static __attribute__((unused))
#endif

/* ADBench's own value of pi (src/cpp/shared/defs.h), kept so that the constant terms of the
 * objectives match the reference's numbers. */
#define ADB_PI 3.14159265359

/* xorshift64* (Marsaglia 2003, Vigna 2016): state must be non-zero. */
typedef struct {
    uint64_t s;
} adb_rng;

ADB_FN adb_rng adb_rng_new(uint64_t seed) {
    adb_rng r;
    /* splitmix64 of the seed, so that small seeds give unrelated streams and never 0 */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    r.s = z ? z : 0x2545F4914F6CDD1Dull;
    return r;
}

ADB_FN uint64_t adb_rng_u64(adb_rng *r) {
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* uniform in [0, 1), 53 bits */
ADB_FN double adb_rng_unit(adb_rng *r) { return (double)(adb_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }

/* uniform in [lo, hi) */
ADB_FN double adb_rng_uniform(adb_rng *r, double lo, double hi) { return lo + (hi - lo) * adb_rng_unit(r); }

/* uniform integer in [0, n), n > 0 */
ADB_FN int adb_rng_int(adb_rng *r, int n) { return (int)(adb_rng_u64(r) % (uint64_t)n); }

#endif
