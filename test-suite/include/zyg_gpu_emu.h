/* The CPU side of zyg's GPU tests: an emulated grid for kernel IR retargeted to the host
 * (test-suite/bin/ptx-to-host.py), in x, y and z. Two launches:
 *
 * - EMU_LAUNCH(GRID, BLOCK, CALL) runs CALL once per thread, one thread after another, in x:
 *   enough for kernels without barriers (a barrier there aborts the program).
 * - emu_launch_threads(GRID, BLOCK, FN, ARG) runs FN(ARG) once per thread (and
 *   emu_launch_threads_2d(GX, GY, BX, BY, FN, ARG) on a 2D grid, emu_launch_threads_3d
 *   on a 3D one); the blocks run
 *   one after another, and each block's threads run at once as POSIX threads, so that
 *   __syncthreads() (a pthread barrier of the block) orders them as on a GPU, and shared
 *   memory (ptx-to-host.py makes it an ordinary global) is shared by the block's threads.
 *
 * - emu_launch_threads_dynamic(GRID, BLOCK, BYTES, FN, ARG) is emu_launch_threads with BYTES
 *   of dynamic shared memory (`extern __shared__`; what %dynamic_smem_size reads).
 *
 * Before each block, shared memory is filled with NaN bytes, as a GPU gives no zeros there.
 * The thread index is thread-local; the block index and sizes are set before a block's
 * threads start. Atomics are the host's atomics. A kernel whose threads do not all reach
 * the same barriers would hang: a watchdog ends such a launch. Build with -pthread. */
#ifndef ZYG_GPU_EMU_H
#define ZYG_GPU_EMU_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Thread_local int emu_tid_x, emu_tid_y, emu_tid_z;
static int emu_ctaid_x, emu_ntid_x, emu_nctaid_x;
static int emu_ctaid_y, emu_ntid_y = 1, emu_nctaid_y = 1;
static int emu_ctaid_z, emu_ntid_z = 1, emu_nctaid_z = 1;
/* The special registers, named as ptx-to-host.py renames llvm.nvvm.read.ptx.sreg.*. */
#define EMU_SREG(NAME, REG, VALUE)                                                        \
    int NAME(void) __asm__("__emu_sreg_" REG);                                            \
    int NAME(void) { return VALUE; }
EMU_SREG(emu_sreg_tid_x, "tid.x", emu_tid_x)
EMU_SREG(emu_sreg_ctaid_x, "ctaid.x", emu_ctaid_x)
EMU_SREG(emu_sreg_ntid_x, "ntid.x", emu_ntid_x)
EMU_SREG(emu_sreg_nctaid_x, "nctaid.x", emu_nctaid_x)
EMU_SREG(emu_sreg_tid_y, "tid.y", emu_tid_y)
EMU_SREG(emu_sreg_ctaid_y, "ctaid.y", emu_ctaid_y)
EMU_SREG(emu_sreg_ntid_y, "ntid.y", emu_ntid_y)
EMU_SREG(emu_sreg_nctaid_y, "nctaid.y", emu_nctaid_y)
EMU_SREG(emu_sreg_tid_z, "tid.z", emu_tid_z)
EMU_SREG(emu_sreg_ctaid_z, "ctaid.z", emu_ctaid_z)
EMU_SREG(emu_sreg_ntid_z, "ntid.z", emu_ntid_z)
EMU_SREG(emu_sreg_nctaid_z, "nctaid.z", emu_nctaid_z)
/* The dynamic shared bytes of the launch (emu_launch_threads_dynamic; 0 otherwise). */
static int emu_dynamic_smem_size;
EMU_SREG(emu_sreg_dynamic_smem_size, "dynamic_smem_size", emu_dynamic_smem_size)

/* The running block's barrier (emu_launch_threads only). */
static pthread_barrier_t emu_block_barrier;
static int emu_threaded;

/* __syncthreads(): `llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)` and `llvm.nvvm.barrier0()`
 * (ptx-to-host.py renames them). */
void emu_barrier(int id) __asm__("__emu_barrier");
void emu_barrier0(void) __asm__("__emu_barrier0");
void emu_barrier(int id) {
    (void)id;
    if (!emu_threaded) {
        fprintf(stderr, "FAIL: a barrier on the sequential grid (EMU_LAUNCH); use emu_launch_threads\n");
        exit(1);
    }
    pthread_barrier_wait(&emu_block_barrier);
}
void emu_barrier0(void) { emu_barrier(0); }

/* The thread's lane in its warp of 32 (threads numbered x first, then y, then z). */
static int emu_linear_tid(void) { return emu_tid_x + emu_ntid_x * (emu_tid_y + emu_ntid_y * emu_tid_z); }
EMU_SREG(emu_sreg_laneid, "laneid", emu_linear_tid() % 32)

/* Warp shuffles of floats over the whole warp (`llvm.nvvm.shfl.sync.{down,up,bfly}.f32`,
 * renamed by ptx-to-host.py), on emu_launch_threads: every thread of the block writes its
 * value, meets the others at the block's barrier, reads its source lane's, and meets them
 * again, so every thread of the block must shuffle (blocks of one warp, or uniform code). */
static float emu_exchange[1024];
static float emu_shfl(int kind, float v, int k) {
    if (!emu_threaded) {
        fprintf(stderr, "FAIL: a warp shuffle on the sequential grid (EMU_LAUNCH); use emu_launch_threads\n");
        exit(1);
    }
    int me = emu_linear_tid(), lane = me % 32, src;
    if (kind == 0)
        src = lane + k <= 31 ? lane + k : lane;
    else if (kind == 1)
        src = lane - k >= 0 ? lane - k : lane;
    else
        src = lane ^ k;
    emu_exchange[me] = v;
    pthread_barrier_wait(&emu_block_barrier);
    float r = emu_exchange[me - lane + src];
    pthread_barrier_wait(&emu_block_barrier);
    return r;
}
float emu_shfl_down(unsigned mask, float v, int k, int c) __asm__("__emu_shfl_down");
float emu_shfl_up(unsigned mask, float v, int k, int c) __asm__("__emu_shfl_up");
float emu_shfl_bfly(unsigned mask, float v, int k, int c) __asm__("__emu_shfl_bfly");
float emu_shfl_down(unsigned mask, float v, int k, int c) { (void)mask, (void)c; return emu_shfl(0, v, k); }
float emu_shfl_up(unsigned mask, float v, int k, int c) { (void)mask, (void)c; return emu_shfl(1, v, k); }
float emu_shfl_bfly(unsigned mask, float v, int k, int c) { (void)mask, (void)c; return emu_shfl(2, v, k); }

/* Runs CALL once per thread of a GRID x BLOCK launch, threads one after another. */
#define EMU_LAUNCH(GRID, BLOCK, CALL)                                                    \
    do {                                                                                 \
        emu_nctaid_x = (GRID);                                                           \
        emu_ntid_x = (BLOCK);                                                            \
        for (emu_ctaid_x = 0; emu_ctaid_x < (GRID); emu_ctaid_x++)                       \
            for (emu_tid_x = 0; emu_tid_x < (BLOCK); emu_tid_x++)                        \
                CALL;                                                                    \
    } while (0)

/* Fills the module's shared memory with NaN bytes (defined by ptx-to-host.py). */
void emu_scramble_shared(void) __asm__("__emu_scramble_shared");

struct emu_thread {
    int tid_x, tid_y, tid_z;
    void (*fn)(void *);
    void *arg;
};

static void *emu_thread_main(void *p) {
    struct emu_thread *t = (struct emu_thread *)p;
    emu_tid_x = t->tid_x;
    emu_tid_y = t->tid_y;
    emu_tid_z = t->tid_z;
    t->fn(t->arg);
    return NULL;
}

/* Runs FN(ARG) once per thread of a (GX, GY, GZ) grid of (BX, BY, BZ) blocks: a block at a
 * time, its BX * BY * BZ threads as POSIX threads that meet at the block's barrier. */
__attribute__((unused)) static void emu_launch_threads_3d(int gx, int gy, int gz, int bx, int by, int bz,
                                                          void (*fn)(void *), void *arg) {
    int block = bx * by * bz;
    pthread_t *threads = (pthread_t *)malloc(sizeof(pthread_t) * block);
    struct emu_thread *state = (struct emu_thread *)malloc(sizeof(struct emu_thread) * block);
    emu_nctaid_x = gx, emu_nctaid_y = gy, emu_nctaid_z = gz;
    emu_ntid_x = bx, emu_ntid_y = by, emu_ntid_z = bz;
    emu_threaded = 1;
    alarm(60); /* the watchdog: threads stuck at a barrier end the test */
    for (emu_ctaid_z = 0; emu_ctaid_z < gz; emu_ctaid_z++)
    for (emu_ctaid_y = 0; emu_ctaid_y < gy; emu_ctaid_y++)
        for (emu_ctaid_x = 0; emu_ctaid_x < gx; emu_ctaid_x++) {
            emu_scramble_shared();
            pthread_barrier_init(&emu_block_barrier, NULL, (unsigned)block);
            for (int t = 0; t < block; t++) {
                state[t] = (struct emu_thread){t % bx, t / bx % by, t / (bx * by), fn, arg};
                if (pthread_create(&threads[t], NULL, emu_thread_main, &state[t]) != 0) {
                    fprintf(stderr, "FAIL: pthread_create\n");
                    exit(1);
                }
            }
            for (int t = 0; t < block; t++)
                pthread_join(threads[t], NULL);
            pthread_barrier_destroy(&emu_block_barrier);
        }
    alarm(0);
    emu_threaded = 0;
    emu_nctaid_y = emu_ntid_y = emu_nctaid_z = emu_ntid_z = 1;
    emu_ctaid_y = emu_ctaid_z = 0;
    free(threads);
    free(state);
}

/* The same for a two-dimensional grid. */
__attribute__((unused)) static void emu_launch_threads_2d(int gx, int gy, int bx, int by, void (*fn)(void *), void *arg) {
    emu_launch_threads_3d(gx, gy, 1, bx, by, 1, fn, arg);
}

/* The same for a one-dimensional grid. */
__attribute__((unused)) static void emu_launch_threads(int grid, int block, void (*fn)(void *), void *arg) {
    emu_launch_threads_2d(grid, 1, block, 1, fn, arg);
}

/* The most dynamic shared bytes a launch may give (ptx-to-host.py's buffer; 0 without one). */
long emu_dynamic_shared_capacity(void) __asm__("__emu_dynamic_shared_capacity");

/* The same with BYTES of dynamic shared memory per block. */
__attribute__((unused)) static void emu_launch_threads_dynamic(int grid, int block, int bytes, void (*fn)(void *),
                                                               void *arg) {
    if (bytes < 0 || bytes > emu_dynamic_shared_capacity()) {
        fprintf(stderr, "FAIL: %d bytes of dynamic shared memory: the emulation has %ld\n", bytes,
                emu_dynamic_shared_capacity());
        exit(1);
    }
    emu_dynamic_smem_size = bytes;
    emu_launch_threads(grid, block, fn, arg);
    emu_dynamic_smem_size = 0;
}
#endif
