/* Peak heap use of one call, for the "tape bytes" column of bench/RESULTS.md.
 *
 * build.rs renames malloc, calloc, realloc and free in the objects that zyg produced (with
 * llvm-objcopy --redefine-sym) to the zb_ functions below, so every allocation of the
 * benchmarked code (the primal's scratch memory, zyg's tape stacks and shadows, the
 * hand-written gradients' buffers) goes through them, and nothing else does (Rust's allocator
 * and libc's own calls are untouched). This file itself is compiled by clang alone. While
 * counting is on, they keep the bytes live (malloc_usable_size of each block) and their peak;
 * off, they cost one branch. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

static int counting;
static int64_t live, peak;

static void note(int64_t delta) {
    live += delta;
    if (live > peak)
        peak = live;
}

void *zb_malloc(size_t n) {
    void *p = malloc(n);
    if (counting && p)
        note((int64_t)malloc_usable_size(p));
    return p;
}

void *zb_calloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (counting && p)
        note((int64_t)malloc_usable_size(p));
    return p;
}

void *zb_realloc(void *p, size_t n) {
    if (!counting)
        return realloc(p, n);
    int64_t old = p ? (int64_t)malloc_usable_size(p) : 0;
    void *q = realloc(p, n);
    if (q)
        note((int64_t)malloc_usable_size(q) - old);
    else if (n == 0)
        note(-old);
    return q;
}

void zb_free(void *p) {
    if (counting && p)
        note(-(int64_t)malloc_usable_size(p));
    free(p);
}

/* Starts counting from zero. */
void zb_heap_start(void) {
    live = 0;
    peak = 0;
    counting = 1;
}

/* Stops counting; returns the peak of live bytes since zb_heap_start. */
int64_t zb_heap_stop(void) {
    counting = 0;
    return peak;
}
