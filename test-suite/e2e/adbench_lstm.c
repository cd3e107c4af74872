// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's LSTM objective (bench/adbench/lstm.h), 2 layers, 5 characters of width 4: the
// gradient of the loss with respect to the main and extra parameters (what ADBench asks for;
// the state and the sequence are constant), through a `dup` output seeded with 1, against
// central finite differences of every component.
#include "zyg_check.h"
#include "../../bench/adbench/lstm.h"

void __enzyme_autodiffv(void *, ...);

enum { L = 2, C = 5, B = 4, NMAIN = 2 * L * 4 * B, NEXTRA = 3 * B };
static double state[2 * L * B], seq[C * B];

static double value(const double *mp, const double *ep) { return lstm_objective_value(L, C, B, mp, ep, state, seq); }

/* central difference in component i of array `which` (0 main, 1 extra) */
static double fd(const double *mp, const double *ep, int which, int i) {
    double cm[NMAIN], ce[NEXTRA];
    for (int j = 0; j < NMAIN; j++) cm[j] = mp[j];
    for (int j = 0; j < NEXTRA; j++) ce[j] = ep[j];
    double *p = which == 0 ? cm : ce;
    double v = p[i], h = ZYG_STEP(v);
    p[i] = v + h;
    double hi = value(cm, ce);
    p[i] = v - h;
    double lo = value(cm, ce);
    return (hi - lo) / (2 * h);
}

int main(void) {
    double mp[NMAIN], ep[NEXTRA];
    lstm_generate(L, C, B, 5, mp, ep, state, seq);
    double dmp[NMAIN] = {0}, dep[NEXTRA] = {0}, loss = 0, dloss = 1.0;
    double state0[2 * L * B];
    for (int i = 0; i < 2 * L * B; i++) state0[i] = state[i];
    __enzyme_autodiffv((void *)lstm_objective, enzyme_const, L, enzyme_const, C, enzyme_const, B,
                       enzyme_dup, mp, dmp, enzyme_dup, ep, dep, enzyme_const, state, enzyme_const, seq,
                       enzyme_dup, &loss, &dloss);
    check_close("loss = primal", loss, value(mp, ep), 1e-14, 1e-14);
    check_close("dloss consumed", dloss, 0.0, 0, 0);
    for (int i = 0; i < 2 * L * B; i++)
        check_close("state unchanged", state[i], state0[i], 0, 0);
    char label[64];
    for (int i = 0; i < NMAIN; i++) {
        snprintf(label, sizeof label, "dmain[%d]", i);
        check_close(label, dmp[i], fd(mp, ep, 0, i), FD_RTOL, FD_ATOL);
    }
    for (int i = 0; i < NEXTRA; i++) {
        snprintf(label, sizeof label, "dextra[%d]", i);
        check_close(label, dep[i], fd(mp, ep, 1, i), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
