// A float's bytes read from memory as an integer and turned back into a float where zyg
// cannot follow them: |x| by clearing the sign bit of the bits read with memcpy (MASK), the
// bits returned by a helper and written back (HELPER), copied byte by byte (BYTES), and
// parked in an integer array (PARKED, a radix sort's buffer). Each gave a derivative of 0
// with exit status 0; each is refused now, naming the instruction.
// RUN: rm -f %t.out.ll
// RUN: %clang -O0 -g -S -emit-llvm -DMASK %s -o %t.mask0.ll
// RUN: not %zyg grad %t.mask0.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=MASK %s
// RUN: %clang -O2 -g -S -emit-llvm -DMASK %s -o %t.mask2.ll
// RUN: not %zyg grad %t.mask2.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=MASK %s
// RUN: %clang -O0 -g -S -emit-llvm -DHELPER %s -o %t.helper0.ll
// RUN: not %zyg grad %t.helper0.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=HELPER %s
// RUN: %clang -O2 -g -S -emit-llvm -DHELPER %s -o %t.helper2.ll
// RUN: not %zyg grad %t.helper2.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=HELPER %s
// RUN: %clang -O0 -g -S -emit-llvm -DBYTES %s -o %t.bytes0.ll
// RUN: not %zyg grad %t.bytes0.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=BYTES %s
// RUN: %clang -O2 -g -S -emit-llvm -DBYTES %s -o %t.bytes2.ll
// RUN: not %zyg grad %t.bytes2.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=BYTES %s
// RUN: %clang -O0 -g -S -emit-llvm -DPARKED %s -o %t.parked0.ll
// RUN: not %zyg grad %t.parked0.ll -o %t.out.ll 2>&1 | FileCheck --check-prefix=PARKED %s
// RUN: not test -e %t.out.ll
// MASK: this makes a float from the bits of an active value that went through an integer
// HELPER: this makes a float from the bits of an active value that went through an integer
// BYTES: copies 8 bits of differentiated memory as an integer
// PARKED: this stores the bits of an active value as an integer
#include <stdint.h>
#include <string.h>
double __enzyme_autodiff(void *, ...);

#if defined(MASK)
double f(double *x) {
    uint64_t u;
    memcpy(&u, x, 8);
    u &= ~(1ull << 63);
    double a;
    memcpy(&a, &u, 8);
    return a;
}
#elif defined(HELPER)
__attribute__((noinline)) static uint64_t get_bits(const void *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}
double f(double *x) {
    uint64_t w = get_bits(&x[0]);
    memcpy(&x[1], &w, 8);
    return x[1] * x[1];
}
#elif defined(BYTES)
__attribute__((noinline)) static void copy_bytes(void *dst, const void *src, unsigned long n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (unsigned long i = 0; i < n; i++)
        d[i] = s[i];
}
double f(double *x) {
    copy_bytes(&x[1], &x[0], sizeof(double));
    return x[1] * x[1];
}
#else
static void reverse_bits(double *x, int n) {
    uint64_t a[32];
    for (int i = 0; i < n; i++)
        memcpy(&a[i], &x[i], 8);
    for (int i = 0; i < n; i++)
        memcpy(&x[i], &a[n - 1 - i], 8);
}
double f(double *x) {
    double y[4];
    for (int i = 0; i < 4; i++)
        y[i] = x[i] * x[i];
    reverse_bits(y, 4);
    return y[0] + 2 * y[1] + 3 * y[2] + 4 * y[3];
}
#endif

double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
