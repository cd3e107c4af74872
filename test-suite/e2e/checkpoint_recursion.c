// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// RUN: %zyg grad -v %t.O2.ll -o %t.v.ll 2>&1 | FileCheck --check-prefix=REPORT %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// Checkpointed recursive calls (zyg-transform/src/checkpoint.rs): a recursion whose call tree
// grows with its work stores each call's arguments and the memory they point into, and the
// adjoint reruns the callee's primal. The minors below are built in one buffer that the
// next iteration overwrites, so the rerun is right only if the primal copied the buffer
// at the call. Beside them, recursions that must keep their tapes (the callee writes its
// argument, reads a mutable global, or the buffer holds pointers): same checks.
//
// REPORT-DAG: det_heap: call to det_heap (line {{[0-9]+}}) checkpointed: arguments stored, its primal rerun in the adjoint
// REPORT-DAG: det_stack: call to det_stack (line {{[0-9]+}}) checkpointed
// REPORT-DAG: halves: call to halves (line [[#LO:]]) checkpointed
// REPORT-DAG: halves: call to halves (line [[#LO+2]]) checkpointed
// REPORT-DAG: scale_in_place: call to scale_in_place (line {{[0-9]+}}) taped: `scale_in_place` writes memory it did not allocate (line {{[0-9]+}})
// REPORT-DAG: det_global: call to det_global (line {{[0-9]+}}) taped: `det_global` reads memory other than its arguments', its own and constants
// REPORT-DAG: det_table: call to det_table (line {{[0-9]+}}) taped: `det_table` passes `table_first` a pointer to memory other than its arguments', its own and constants
// REPORT-DAG: rows_sum: call to rows_sum (line {{[0-9]+}}) taped: `rows_sum` reads a pointer from memory it did not allocate
// REPORT-DAG: chain: call to chain (line {{[0-9]+}}) taped: made once per activation
#include <string.h>
#include "zyg_check.h"

/* The determinant by expansion along the first row; the minor in one malloc'ed buffer
 * reused by every column. */
double det_heap(const double *a, int n) {
    if (n == 1)
        return a[0];
    double r = 0.0, s = 1.0;
    double *m = (double *)malloc(sizeof(double) * (n - 1) * (n - 1));
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++) {
            int c = 0;
            for (int k = 0; k < n; k++) {
                if (k == j)
                    continue;
                m[(i - 1) * (n - 1) + c] = a[i * n + k];
                c++;
            }
        }
        r += s * a[j] * det_heap(m, n - 1);
        s = -s;
    }
    free(m);
    return r;
}

/* The same with the minor in a fixed-size local array (an alloca), and a sin in the
 * leaves so that the adjoint needs primal values. */
double det_stack(const double *a, int n) {
    if (n == 1)
        return sin(a[0]);
    double m[36];
    double r = 0.0, s = 1.0;
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++) {
            int c = 0;
            for (int k = 0; k < n; k++)
                if (k != j)
                    m[(i - 1) * (n - 1) + c++] = a[i * n + k];
        }
        r += s * a[j] * det_stack(m, n - 1);
        s = -s;
    }
    return r;
}

/* A tree recursion over copies of the two halves (calloc'ed): two call sites. */
double halves(const double *x, int n) {
    if (n == 1)
        return tanh(x[0]);
    int h = n / 2;
    double *lo = (double *)calloc((size_t)h, sizeof(double));
    double *hi = (double *)calloc((size_t)(n - h), sizeof(double));
    memcpy(lo, x, sizeof(double) * h);
    memcpy(hi, x + h, sizeof(double) * (n - h));
    double a = halves(lo, h);
    lo[0] = 7.0; /* overwritten after the call: the copy keeps what the call read */
    double b = halves(hi, n - h);
    free(lo);
    free(hi);
    return a * b / (1.0 + a * a) + b;
}

/* Writes its argument: keeps its tape. */
double scale_in_place(double *x, int n) {
    if (n == 0)
        return 0.0;
    double r = 0.0;
    for (int j = 0; j < 2; j++) {
        x[n - 1] = x[n - 1] * 1.5;
        double *t = (double *)malloc(sizeof(double) * n);
        memcpy(t, x, sizeof(double) * n);
        r += x[n - 1] * scale_in_place(t, n - 1);
        free(t);
    }
    return r + 1.0;
}
double scale_entry(const double *x, int n) {
    double *y = (double *)malloc(sizeof(double) * n);
    memcpy(y, x, sizeof(double) * n);
    double r = scale_in_place(y, n);
    free(y);
    return r;
}

/* Reads a global the program writes: keeps its tape. */
double weight = 1.0;
double det_global(const double *a, int n) {
    if (n == 1)
        return weight * a[0];
    double r = 0.0, s = 1.0;
    double *m = (double *)malloc(sizeof(double) * (n - 1) * (n - 1));
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++)
            for (int k = 0, c = 0; k < n; k++)
                if (k != j)
                    m[(i - 1) * (n - 1) + c++] = a[i * n + k];
        r += s * a[j] * det_global(m, n - 1);
        s = -s;
    }
    free(m);
    return r;
}

/* Passes a global the program writes to a helper that reads it: keeps its tape. */
double table[2] = {1.0, 0.5};
__attribute__((noinline)) double table_first(const double *t) { return t[0] + t[1]; }
double det_table(const double *a, int n) {
    if (n == 1)
        return table_first(table) * a[0];
    double r = 0.0, s = 1.0;
    double *m = (double *)malloc(sizeof(double) * (n - 1) * (n - 1));
    for (int j = 0; j < n; j++) {
        for (int i = 1; i < n; i++)
            for (int k = 0, c = 0; k < n; k++)
                if (k != j)
                    m[(i - 1) * (n - 1) + c++] = a[i * n + k];
        r += s * a[j] * det_table(m, n - 1);
        s = -s;
    }
    free(m);
    return r;
}

/* A buffer of row pointers: keeps its tape. */
double rows_sum(const double **rows, int n) {
    if (n == 0)
        return 0.0;
    double r = 0.0;
    for (int j = 0; j < 2; j++) {
        const double **sub = (const double **)malloc(sizeof(double *) * n);
        for (int i = 0; i < n; i++)
            sub[i] = rows[i] + 1;
        r += rows[0][0] * rows[n - 1][0] + 0.5 * rows_sum(sub, n - 1);
        free(sub);
    }
    return r;
}
double rows_entry(const double *x, int n) {
    const double *rows[8];
    for (int i = 0; i < n; i++)
        rows[i] = x + 2 * i;
    return rows_sum(rows, n);
}

/* A linear recursion: keeps its tape (checkpointing it would cost a quadratic time). */
double chain(const double *x, int n) {
    if (n == 0)
        return 1.0;
    double *t = (double *)malloc(sizeof(double) * n);
    memcpy(t, x + 1, sizeof(double) * (n - 1));
    double r = sin(x[0]) * chain(t, n - 1) + x[0];
    free(t);
    return r;
}

typedef double (*fn)(const double *, int);

static double fd(fn f, const double *x, int len, int n, int k) {
    double a[64], b[64], h = ZYG_STEP(x[k]);
    for (int i = 0; i < len; i++)
        a[i] = b[i] = x[i];
    a[k] += h;
    b[k] -= h;
    return (f(a, n) - f(b, n)) / (2 * h);
}

/* A macro, so that each request names its function. */
#define CHECK(label, f, len, n, q)                                                 \
    do {                                                                           \
        double x[64], dx[64] = {0};                                                \
        for (int i = 0; i < (len); i++)                                            \
            x[i] = 0.9 * sin(1.7 * i + (q)) + 0.05 * i;                            \
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (n));        \
        for (int k = 0; k < (len); k++)                                            \
            check_close(label, dx[k], fd(f, x, (len), (n), k), FD_RTOL, FD_ATOL);  \
    } while (0)

int main(void) {
    for (int q = 0; q < 3; q++) {
        CHECK("det_heap n=5", det_heap, 25, 5, q);
        CHECK("det_heap n=6", det_heap, 36, 6, q);
        CHECK("det_stack n=5", det_stack, 25, 5, q);
        CHECK("halves n=13", halves, 13, 13, q);
        CHECK("scale n=4", scale_entry, 4, 4, q);
        weight = 0.5 + q;
        CHECK("det_global n=4", det_global, 16, 4, q);
        table[1] = 0.25 * q;
        CHECK("det_table n=4", det_table, 16, 4, q);
        CHECK("rows n=5", rows_entry, 16, 5, q);
        CHECK("chain n=9", chain, 9, 9, q);
    }
    return zyg_report();
}
