#include "zyg_memref.h"
double f_sin(double, double); zyg_grad2 d_sin(double, double);
double f_cos(double, double); zyg_grad2 d_cos(double, double);
double f_tan(double, double); zyg_grad2 d_tan(double, double);
double f_exp(double, double); zyg_grad2 d_exp(double, double);
double f_exp2(double, double); zyg_grad2 d_exp2(double, double);
double f_expm1(double, double); zyg_grad2 d_expm1(double, double);
double f_log(double, double); zyg_grad2 d_log(double, double);
double f_log2(double, double); zyg_grad2 d_log2(double, double);
double f_log10(double, double); zyg_grad2 d_log10(double, double);
double f_log1p(double, double); zyg_grad2 d_log1p(double, double);
double f_sqrt(double, double); zyg_grad2 d_sqrt(double, double);
double f_rsqrt(double, double); zyg_grad2 d_rsqrt(double, double);
double f_cbrt(double, double); zyg_grad2 d_cbrt(double, double);
double f_tanh(double, double); zyg_grad2 d_tanh(double, double);
double f_sinh(double, double); zyg_grad2 d_sinh(double, double);
double f_cosh(double, double); zyg_grad2 d_cosh(double, double);
double f_asin(double, double); zyg_grad2 d_asin(double, double);
double f_acos(double, double); zyg_grad2 d_acos(double, double);
double f_atan(double, double); zyg_grad2 d_atan(double, double);
double f_erf(double, double); zyg_grad2 d_erf(double, double);
double f_erfc(double, double); zyg_grad2 d_erfc(double, double);
double f_absf(double, double); zyg_grad2 d_absf(double, double);
typedef double (*fn)(double, double); typedef zyg_grad2 (*gn)(double, double);
static const struct { const char *name; fn f; gn g; } cases[] = {
    {"sin", f_sin, d_sin},
    {"cos", f_cos, d_cos},
    {"tan", f_tan, d_tan},
    {"exp", f_exp, d_exp},
    {"exp2", f_exp2, d_exp2},
    {"expm1", f_expm1, d_expm1},
    {"log", f_log, d_log},
    {"log2", f_log2, d_log2},
    {"log10", f_log10, d_log10},
    {"log1p", f_log1p, d_log1p},
    {"sqrt", f_sqrt, d_sqrt},
    {"rsqrt", f_rsqrt, d_rsqrt},
    {"cbrt", f_cbrt, d_cbrt},
    {"tanh", f_tanh, d_tanh},
    {"sinh", f_sinh, d_sinh},
    {"cosh", f_cosh, d_cosh},
    {"asin", f_asin, d_asin},
    {"acos", f_acos, d_acos},
    {"atan", f_atan, d_atan},
    {"erf", f_erf, d_erf},
    {"erfc", f_erfc, d_erfc},
    {"absf", f_absf, d_absf},
};

int main(void) {
    /* x * y stays in (0, 0.85): inside every domain, away from kinks (absf at 0). */
    double xs[] = {0.35, 0.6, 0.9}, ys[] = {0.5, 1.2, -0.8};
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int i = 0; i < 3; i++) {
            /* absf also on the negative side; the rest where x * y > 0 */
            double x = xs[i], y = strcmp(cases[k].name, "absf") && ys[i] < 0 ? -ys[i] : ys[i];
            zyg_grad2 g = cases[k].g(x, y);
            printf("%s: ", cases[k].name);
            check_close("df/dx", g.d0, FD2_0(cases[k].f, x, y), FD_RTOL, FD_ATOL);
            printf("%s: ", cases[k].name);
            check_close("df/dy", g.d1, FD2_1(cases[k].f, x, y), FD_RTOL, FD_ATOL);
        }
    return zyg_report();
}
