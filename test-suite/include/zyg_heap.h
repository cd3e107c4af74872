/* Heap checks of the tape-cache tests: bytes malloc has handed out and not had back (glibc's
 * mallinfo2, over every arena), a check printed with them, and the check each of those tests
 * makes around the release call after a gradient of some megabytes of tape: its chunks stay
 * in the thread's cache, and the release call gives them back. Include after zyg_check.h. */
#ifndef ZYG_HEAP_H
#define ZYG_HEAP_H
#include <malloc.h>

__attribute__((unused)) static long zyg_heap_in_use(void) { return (long)mallinfo2().uordblks; }

__attribute__((unused)) static void check_true(const char *label, int ok, long bytes) {
    zyg_checks++;
    if (!ok)
        zyg_failures++;
    printf("%s %s (%ld KiB)\n", ok ? "ok" : "FAIL", label, bytes / 1024);
}

/* After a gradient taken since the heap held `before` bytes: its chunks stay cached. */
__attribute__((unused)) static void check_cached(long before) {
    long cached = zyg_heap_in_use() - before;
    check_true("cached", cached > 1024 * 1024, cached);
}

/* After the release call (a direct call: zyg fills in only those): they are given back. */
__attribute__((unused)) static void check_released(long before) {
    long left = zyg_heap_in_use() - before;
    check_true("released", left < 256 * 1024, left);
}
#endif
