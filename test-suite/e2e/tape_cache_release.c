// The tape stacks' per-thread cache of released chunks is given back: by
// `__zyg_release_tape_cache()` (zyg/zyg.h), for the calling thread, and when a thread that
// ran gradients exits. Heap bytes in use (glibc's mallinfo2, over every arena) show the
// tape's chunks kept after a gradient, gone after the call, and gone after threads that ran
// gradients are joined; gradients taken between releases equal the first one exactly and
// match central differences. Linked without -pthread (glibc 2.34+ has threads in libc).
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %plugin-run -O2 %s %t -I%S/../../include | FileCheck %s
// CHECK: ok cached
// CHECK: ok released
// CHECK: ok threads exited
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg/zyg.h"
#include "zyg_check.h"
#include "zyg_heap.h"
#include <pthread.h>
#include <string.h>

/* A recurrence over a long array: its tape holds a record per step, some megabytes, so
 * that the stacks take dozens of 64 KiB chunks. */
enum { N = 200000, THREADS = 4 };

double chain(const double *x, int n) {
    double s = 0, c = 1;
    for (int i = 0; i < n; i++) {
        s += c * sin(x[i]);
        c = 0.5 * c + 0.5 * cos(x[i]);
    }
    return s;
}

static double chain_of(const double *x, void *ctx) { return chain(x, *(int *)ctx); }

static void fill(double *x) {
    for (int i = 0; i < N; i++)
        x[i] = 0.3 * sin(0.001 * i) + 1e-3 * (i % 7);
}

static void gradient(const double *x, double *dx) {
    memset(dx, 0, sizeof(double) * N);
    __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, N);
}

static double *want; /* the first gradient */

static void *worker(void *arg) {
    (void)arg;
    double *x = malloc(sizeof(double) * N), *dx = malloc(sizeof(double) * N);
    fill(x);
    gradient(x, dx);
    long same = memcmp(dx, want, sizeof(double) * N) == 0;
    free(x);
    free(dx);
    return (void *)same;
}

int main(void) {
    double *x = malloc(sizeof(double) * N), *dx = malloc(sizeof(double) * N);
    want = malloc(sizeof(double) * N);
    fill(x);
    long before = zyg_heap_in_use();
    gradient(x, want);
    /* The tape is some megabytes; its chunks stay in this thread's cache. */
    check_cached(before);
    __zyg_release_tape_cache();
    check_released(before);

    /* Gradients between releases: the same numbers, and those of the function. */
    for (int round = 0; round < 3; round++) {
        gradient(x, dx);
        check_close("same gradient after release", memcmp(dx, want, sizeof(double) * N) == 0, 1, 0, 0);
        __zyg_release_tape_cache();
        __zyg_release_tape_cache(); /* twice: nothing left to free */
    }
    int n = N;
    check_array_fd_every("d chain / dx[k]", chain_of, &n, x, N, want, N / 7);

    /* Threads that run a gradient and exit leave no cache behind. */
    long start = zyg_heap_in_use();
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, NULL);
    for (int t = 0; t < THREADS; t++) {
        void *same;
        pthread_join(threads[t], &same);
        check_close("same gradient in a thread", (long)same, 1, 0, 0);
    }
    long after = zyg_heap_in_use() - start;
    check_true("threads exited", after < 512 * 1024, after);
    free(x);
    free(dx);
    free(want);
    return zyg_report();
}
