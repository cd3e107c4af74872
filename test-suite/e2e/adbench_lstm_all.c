// RUN: %grad-run -O0 %s %t | FileCheck %s
// RUN: %grad-run -O2 %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
// ADBench's LSTM objective (bench/adbench/lstm.h), 3 layers, 6 characters of width 3, with
// every input active: the main and extra parameters, the initial state (which the objective
// copies before updating it) and the sequence (read both as the inputs and as the targets).
// Each gradient component against central finite differences.
#include "zyg_check.h"
#include "../../bench/adbench/lstm.h"

void __enzyme_autodiffv(void *, ...);

enum { L = 3, C = 6, B = 3, NMAIN = 2 * L * 4 * B, NEXTRA = 3 * B, NSTATE = 2 * L * B, NSEQ = C * B,
       NP = NMAIN + NEXTRA + NSTATE + NSEQ };

/* p: main, extra, state, sequence */
static double value(const double *p) {
    return lstm_objective_value(L, C, B, p, p + NMAIN, p + NMAIN + NEXTRA, p + NMAIN + NEXTRA + NSTATE);
}

int main(void) {
    double p[NP], dp[NP] = {0}, loss = 0, dloss = 1.0;
    double *mp = p, *ep = p + NMAIN, *st = ep + NEXTRA, *sq = st + NSTATE;
    double *dmp = dp, *dep = dp + NMAIN, *dst = dep + NEXTRA, *dsq = dst + NSTATE;
    lstm_generate(L, C, B, 77, mp, ep, st, sq);
    __enzyme_autodiffv((void *)lstm_objective, enzyme_const, L, enzyme_const, C, enzyme_const, B,
                       enzyme_dup, mp, dmp, enzyme_dup, ep, dep, enzyme_dup, st, dst, enzyme_dup, sq, dsq,
                       enzyme_dup, &loss, &dloss);
    check_close("loss = primal", loss, value(p), 1e-14, 1e-14);
    char label[64];
    for (int i = 0; i < NP; i++) {
        double q[NP];
        for (int j = 0; j < NP; j++) q[j] = p[j];
        double h = ZYG_STEP(p[i]);
        q[i] = p[i] + h;
        double hi = value(q);
        q[i] = p[i] - h;
        double lo = value(q);
        snprintf(label, sizeof label, "%s[%d]",
                 i < NMAIN ? "dmain" : i < NMAIN + NEXTRA ? "dextra" : i < NMAIN + NEXTRA + NSTATE ? "dstate" : "dseq", i);
        check_close(label, dp[i], (hi - lo) / (2 * h), FD_RTOL, FD_ATOL);
    }
    return zyg_report();
}
