/* The CPU side of zyg's GPU tests: an emulated grid for kernel IR retargeted to the host
 * (test-suite/bin/ptx-to-host.py). Threads run one after another, so kernels that need
 * barriers cannot run here; atomics are plain atomics. */
#ifndef ZYG_GPU_EMU_H
#define ZYG_GPU_EMU_H

static int emu_tid_x, emu_ctaid_x, emu_ntid_x, emu_nctaid_x;
int emu_sreg_tid_x(void) __asm__("__emu_sreg_tid.x");
int emu_sreg_ctaid_x(void) __asm__("__emu_sreg_ctaid.x");
int emu_sreg_ntid_x(void) __asm__("__emu_sreg_ntid.x");
int emu_sreg_nctaid_x(void) __asm__("__emu_sreg_nctaid.x");
int emu_sreg_tid_x(void) { return emu_tid_x; }
int emu_sreg_ctaid_x(void) { return emu_ctaid_x; }
int emu_sreg_ntid_x(void) { return emu_ntid_x; }
int emu_sreg_nctaid_x(void) { return emu_nctaid_x; }

/* Runs CALL once per thread of a GRID x BLOCK launch (x dimension). */
#define EMU_LAUNCH(GRID, BLOCK, CALL)                                                    \
    do {                                                                                 \
        emu_nctaid_x = (GRID);                                                           \
        emu_ntid_x = (BLOCK);                                                            \
        for (emu_ctaid_x = 0; emu_ctaid_x < (GRID); emu_ctaid_x++)                       \
            for (emu_tid_x = 0; emu_tid_x < (BLOCK); emu_tid_x++)                        \
                CALL;                                                                    \
    } while (0)
#endif
