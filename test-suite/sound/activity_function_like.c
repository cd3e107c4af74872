// Functions declared like a math function take its derivative rule, whatever their body
// computes (`__enzyme_function_like`, zyg.h's ZYG_FUNCTION_LIKE, the clang annotation
// `enzyme_function_like=NAME`). The bodies here are crude series, whose own derivatives
// differ measurably from the rules': the test checks the rule's value, and that it is not
// the body's.
// RUN: %grad-run -O0 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O2 %s %t -I%S/../../include | FileCheck %s
// RUN: %grad-run -O3 %s %t.native -I%S/../../include -march=native | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: ALL OK
#include "zyg_check.h"
#include "zyg/zyg.h"

/* log1p by three terms of its series. */
ZYG_KEEP double my_log1p(double x);
double my_log1p(double x) { return x - x * x / 2 + x * x * x / 3; }
ZYG_FUNCTION_LIKE(my_log1p, "log1p");

/* exp by four terms, declared with the annotation Enzyme's clang plugin emits. */
__attribute__((noinline, optnone, annotate("enzyme_function_like=exp"))) float my_expf(float x) {
    return 1 + x + x * x / 2 + x * x * x / 6;
}

/* pow by the raw registration global, two arguments. */
ZYG_KEEP double my_pow(double x, double y);
double my_pow(double x, double y) { return x * x * y; }
void *__enzyme_function_like_pow[2] = {(void *)my_pow, (void *)"pow"};

double model(double x) { return my_log1p(x) * x; }
float model_f(float x) { return my_expf(x) * x; }
double model_pow(double x, double y) { return my_pow(x, y) + x; }

int main(void) {
    for (int k = 0; k < 3; k++) {
        double x = 0.3 + 0.25 * k;
        /* d/dx [f(x) x] = f'(x) x + f(x), with log1p's f'(x) = 1 / (1 + x) and f the body. */
        double d = __enzyme_autodiff((void *)model, x);
        check_close("log1p rule", d, x / (1 + x) + my_log1p(x), EXACT_RTOL, EXACT_ATOL);
        check_close("not the body's derivative", fabs(d - FD1(model, x)) > 1e-3, 1, 0, 0);

        float df = __enzyme_autodifff((void *)model_f, (float)x);
        float xf = (float)x;
        double want = (double)my_expf(xf) * xf + my_expf(xf); /* exp's rule: f' = f (the result) */
        check_close("exp rule", df, want, 1e-5, 1e-6);
        check_close("not the body's derivative", fabs(df - FDF1(model_f, x)) > 1e-3, 1, 0, 0);

        double y = 1.5 + k;
        zyg_grad2 g = __enzyme_autodiff2((void *)model_pow, x, y);
        /* pow's rule: d/dx = y x^(y-1), d/dy = r log x (r the body's result) */
        check_close("pow rule dx", g.d0, y * pow(x, y - 1) + 1, EXACT_RTOL, EXACT_ATOL);
        check_close("pow rule dy", g.d1, my_pow(x, y) * log(x), EXACT_RTOL, EXACT_ATOL);
    }
    return zyg_report();
}
