//! Derivative rules for math library functions and LLVM math intrinsics: one entry per
//! family, covering every spelling (`sin`, `sinf`, `sinl`, `llvm.sin.*`, `__nv_sin[f]`).
//!
//! Edge points. Each rule is exact where its function is differentiable, and at the points
//! where it is not, it follows one stated convention (README, "What is differentiated"):
//!
//! - Infinite derivatives are ±inf (`log` at ±0: +inf; `asin` at ±1: +inf; `acos` at ±1:
//!   -inf; `acosh` at 1 and `atanh` at ±1: +inf; `y0`/`y1`/`yn` at 0: the sign opposite
//!   to the result's; `lgamma` at its poles: ψ's ±inf; `pow(x, y)` at x = 0 with y < 0),
//!   except at the roots, where zyg follows Enzyme's
//!   rule for `sqrt`: `sqrt`, `cbrt` and `pow(x, y)` with 0 < y < 1 have derivative 0 at
//!   x = ±0, so that a norm at the origin gives 0, not 0·inf = NaN (and `pow(x, 0.5)`,
//!   which LLVM may rewrite to `sqrt`, agrees with it).
//! - Kinks and ties take the average of the two one-sided derivatives, a subgradient that
//!   does not depend on how LLVM orders commutative operands (and is what central finite
//!   differences give): `fabs` and `copysign` at ±0: 0; `fmin`/`fmax` of equal operands:
//!   half of the adjoint to each; `fdim` at x = y: half, with opposite signs.
//! - Jumps (the rounding functions at integers, `fmod` where the quotient is an integer)
//!   take the derivative of the surrounding pieces: 0 for the rounding functions, 1 and
//!   -n for `fmod` and `remainder` (n rounded to even), 1 for `modf`'s fraction, and for
//!   `frexp`, whose pieces' slopes differ, that of the piece x lies on (2^-e).
//! - A zero adjoint gives zero contributions, never 0·inf = NaN, where a factor of the
//!   rule can be infinite while the primal is finite or overflows (`exp`, `pow`, `asin`...),
//!   and no rule computes 0·inf where the derivative is finite or zero (`pow(x, 0)`,
//!   `powi(x, 0)`, `hypot(0, 0)`, `atan2` with an infinite operand).
//! - NaN operands give NaN derivatives, except where C's function ignores the operand:
//!   `fmax(x, NaN)` is x, so x takes the adjoint; `pow(x, 0)` and `pow(1, y)` are 1 for
//!   any x and y, so their derivatives are 0. `llvm.maximum`/`minimum` propagate NaN: the
//!   NaN operand takes the adjoint. Piecewise-constant and piecewise-linear rules (the
//!   rounding functions, `fabs`) give 0 or the adjoint.

use super::emit::rule_operands as rule_operands_of;
use super::expr::{and, c, call, cmp, d, int_add, int_to_float, or, r, select, x, E};
use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::FloatPred::{self, Oeq, Ogt, Olt, Ord, Ule, Uno};
use zyg_ir::{Callee, Constant, Inst, InstKind};

/// One family of math functions: the names it answers to, and the adjoint of each operand.
pub struct MathRule {
    /// Family names; the first is the canonical one used when emitting calls.
    pub names: &'static [&'static str],
    pub arity: usize,
    /// Adjoints per operand; `None` for operands that carry no derivative (integers).
    pub adjoints: fn() -> Vec<Option<E>>,
}

const LN_2: f64 = std::f64::consts::LN_2;
const LN_10: f64 = std::f64::consts::LN_10;
const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

fn sq(e: E) -> E {
    e.clone() * e
}

/// 0 where `cond` holds, `e` elsewhere.
fn zero_where(cond: E, e: E) -> E {
    select(cond, c(0.0), e)
}

/// `e`, a product with the adjoint `d`, is NaN only because `d` is 0 and a factor is
/// infinite (an overflowing `exp`, `asin` at 1), or NaN: "this result does not matter"
/// must not become NaN (see `strong`).
fn lost(e: &E) -> E {
    and(cmp(Oeq, d(), c(0.0)), nan(e.clone()))
}

/// `e`, a product with the adjoint `d`, or 0 where `d` is 0 and `e` NaN. Only there: where
/// `d` is 0 and the factor finite, `e` itself (a signed zero) is kept, so that a derivative
/// of this adjoint (a second derivative, `d` active) sees `d' * factor` and not the
/// constant 0 of a select's other arm.
fn strong(e: E) -> E {
    zero_where(lost(&e), e)
}

/// `e` is not NaN.
fn ordered(e: E) -> E {
    cmp(Ord, e.clone(), e)
}

/// `e` is NaN.
fn nan(e: E) -> E {
    cmp(Uno, e.clone(), e)
}

/// `x` with the sign of `s` (`copysign`).
fn with_sign(x: f64, s: E) -> E {
    call("copysign", vec![c(x), s])
}

/// x + 0, which is x but +0 for -0: `d / (x + 0)` is +inf at both zeros (log's derivative).
fn plus_zero(e: E) -> E {
    e + 0.0
}

/// The adjoints of `fmax` (`beats` = Ogt) or `fmin` (Olt) and their NaN-propagating
/// `maximum`/`minimum` forms: the adjoint goes to the operand the result is; equal
/// operands take half each. With a NaN operand, `fmax` returns the other (which takes the
/// adjoint) and `maximum` the NaN (which takes it); of two NaNs, the first.
fn min_max(beats: FloatPred, propagates_nan: bool) -> Vec<Option<E>> {
    let adjoint = |this: E, other: E, first: bool| {
        let (nan_winner, nan_loser) = if propagates_nan { (this.clone(), other.clone()) } else { (other.clone(), this.clone()) };
        // The NaN rule: `nan_winner` is NaN and, for the second operand, `nan_loser` is not.
        let by_nan = if first { nan(nan_winner) } else { and(nan(nan_winner), ordered(nan_loser)) };
        let wins = or(cmp(beats, this.clone(), other.clone()), by_nan);
        select(cmp(Oeq, this, other), d() * 0.5, select(wins, d(), c(0.0)))
    };
    vec![Some(adjoint(x(0), x(1), true)), Some(adjoint(x(1), x(0), false))]
}

/// A Bessel function of the second kind's derivative `e` (a product with `d`), at x = 0
/// infinite with the sign opposite to the result's (Yn(0) is -inf for n >= 0, and
/// (-1)^n·(-inf) for n < 0), and 0 for a zero adjoint.
fn bessel_y(argument: E, e: E) -> E {
    let at_zero = d() * with_sign(f64::INFINITY, -r());
    strong(select(cmp(Oeq, argument, c(0.0)), at_zero, e))
}

/// The table: read top to bottom, `d` is the adjoint of the result `r`, `x(i)` operand i.
pub static MATH_RULES: &[MathRule] = &[
    MathRule { names: &["sin"], arity: 1, adjoints: || vec![Some(d() * call("cos", vec![x(0)]))] },
    MathRule { names: &["cos"], arity: 1, adjoints: || vec![Some(-(d() * call("sin", vec![x(0)])))] },
    // 1 + tan² is finite wherever tan is (|tan| < 2^54 at floating-point arguments).
    MathRule { names: &["tan"], arity: 1, adjoints: || vec![Some(d() * (c(1.0) + sq(r())))] },
    // Overflowing to inf (x > 709.78), the result's derivative is inf too.
    MathRule { names: &["exp"], arity: 1, adjoints: || vec![Some(strong(d() * r()))] },
    MathRule { names: &["exp2"], arity: 1, adjoints: || vec![Some(strong(d() * r() * LN_2))] },
    // log at ±0: +inf (the derivative from the right); at +inf: 0.
    MathRule { names: &["log"], arity: 1, adjoints: || vec![Some(strong(d() / plus_zero(x(0))))] },
    MathRule { names: &["log2"], arity: 1, adjoints: || vec![Some(strong(d() / (plus_zero(x(0)) * LN_2)))] },
    MathRule { names: &["log10"], arity: 1, adjoints: || vec![Some(strong(d() / (plus_zero(x(0)) * LN_10)))] },
    // At ±0 the derivative is +inf; Enzyme's rule gives 0 there (see the module comment).
    MathRule { names: &["sqrt"], arity: 1, adjoints: || vec![Some(zero_where(cmp(Oeq, r(), c(0.0)), d() / (r() * 2.0)))] },
    MathRule { names: &["cbrt"], arity: 1, adjoints: || vec![Some(zero_where(cmp(Oeq, r(), c(0.0)), d() / (sq(r()) * 3.0)))] },
    MathRule {
        names: &["pow"],
        arity: 2,
        adjoints: || {
            let (base, exponent) = (x(0), x(1));
            // d/dx x^y = y x^(y-1): 0 for y = 0 (pow(x, 0) = 1 for every x, NaN included;
            // y x^(y-1) would be 0·inf at x = 0), and 0 at x = 0 for 0 < y < 1 (a root).
            let root_at_zero =
                and(cmp(Oeq, base.clone(), c(0.0)), and(cmp(Ogt, exponent.clone(), c(0.0)), cmp(Olt, exponent.clone(), c(1.0))));
            let dx = d() * exponent.clone() * call("pow", vec![base.clone(), exponent.clone() - 1.0]);
            let dx = zero_where(or(lost(&dx), or(cmp(Oeq, exponent, c(0.0)), root_at_zero)), dx);
            // d/dy x^y = x^y log x, taken as 0 where x <= 0 (no derivative for x < 0, where
            // only integer y are defined; 0^y is constant for y > 0) and where x^y is 0
            // (x = +inf with y < 0, or underflow), which would be 0·inf at x = +inf.
            let dy = d() * r() * call("log", vec![base.clone()]);
            let dy = zero_where(or(lost(&dy), or(cmp(Ule, base, c(0.0)), cmp(Oeq, r(), c(0.0)))), dy);
            vec![Some(dx), Some(dy)]
        },
    },
    MathRule {
        names: &["powi"],
        arity: 2,
        adjoints: || {
            // n x^(n-1), and 0 for n = 0 (powi(x, 0) = 1; n x^(n-1) would be 0·inf at x = 0).
            let n = int_to_float(x(1));
            let dx = d() * n.clone() * call("powi", vec![x(0), int_add(x(1), -1)]);
            vec![Some(zero_where(or(lost(&dx), cmp(Oeq, n, c(0.0))), dx)), None]
        },
    },
    // |x|: sign(x), and 0 at ±0 (the kink); NaN: 0.
    MathRule {
        names: &["fabs"],
        arity: 1,
        adjoints: || vec![Some(select(cmp(Ogt, x(0), c(0.0)), d(), select(cmp(Olt, x(0), c(0.0)), -d(), c(0.0))))],
    },
    MathRule { names: &["fmin", "minnum", "minimumnum", "fminimum_num"], arity: 2, adjoints: || min_max(Olt, false) },
    MathRule { names: &["fmax", "maxnum", "maximumnum", "fmaximum_num"], arity: 2, adjoints: || min_max(Ogt, false) },
    MathRule { names: &["minimum", "fminimum"], arity: 2, adjoints: || min_max(Olt, true) },
    MathRule { names: &["maximum", "fmaximum"], arity: 2, adjoints: || min_max(Ogt, true) },
    // Piecewise constant: 0, at the jumps too.
    MathRule { names: &["floor"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["ceil"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["trunc"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["round"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["rint", "nearbyint", "roundeven"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    // 1 - tanh² as (1 - r)(1 + r), without a second rounding of r². For |x| > 19, r rounds
    // to ±1 and this to 0: the true value is below 1e-16 there (exact in absolute terms).
    MathRule { names: &["tanh"], arity: 1, adjoints: || vec![Some(d() * ((c(1.0) - r()) * (c(1.0) + r())))] },
    MathRule { names: &["sinh"], arity: 1, adjoints: || vec![Some(strong(d() * call("cosh", vec![x(0)])))] },
    MathRule { names: &["cosh"], arity: 1, adjoints: || vec![Some(strong(d() * call("sinh", vec![x(0)])))] },
    // 1/sqrt(1 - x²) with 1 - x² as (1 - x)(1 + x), exact near ±1; +inf at ±1.
    MathRule {
        names: &["asin"],
        arity: 1,
        adjoints: || vec![Some(strong(d() / call("sqrt", vec![(c(1.0) - x(0)) * (c(1.0) + x(0))])))],
    },
    MathRule {
        names: &["acos"],
        arity: 1,
        adjoints: || vec![Some(strong(-(d() / call("sqrt", vec![(c(1.0) - x(0)) * (c(1.0) + x(0))]))))],
    },
    // 1 / (1 + x²): 0 at ±inf, and where x² overflows (the true value is below 1e-308).
    MathRule { names: &["atan"], arity: 1, adjoints: || vec![Some(d() / (c(1.0) + sq(x(0))))] },
    MathRule {
        names: &["atan2"],
        arity: 2,
        // atan2(y, x): dy = x / (x² + y²), dx = -y / (x² + y²), computed on the operands
        // scaled by s = max(|x|, |y|) so that neither overflows nor underflows: with
        // x' = x/s, y' = y/s, dy = x' / (x'² + y'²) / s. At (0, 0), where atan2 is not
        // continuous, and where an operand is infinite (atan2 is constant nearby): 0.
        adjoints: || {
            let (ay, ax) = (call("fabs", vec![x(0)]), call("fabs", vec![x(1)]));
            let s = select(cmp(Ogt, ax.clone(), ay.clone()), ax, ay);
            let (ys, xs) = (x(0) / s.clone(), x(1) / s.clone());
            let q = sq(ys.clone()) + sq(xs.clone());
            let degenerate = or(cmp(Oeq, s.clone(), c(0.0)), cmp(Oeq, s.clone(), c(f64::INFINITY)));
            vec![
                Some(zero_where(degenerate.clone(), d() * (xs / q.clone()) / s.clone())),
                Some(zero_where(degenerate, -(d() * (ys / q)) / s)),
            ]
        },
    },
    // exp(-x²) underflows to 0 for |x| > 27, where the true value is below 1e-300.
    MathRule { names: &["erf"], arity: 1, adjoints: || vec![Some(d() * FRAC_2_SQRT_PI * call("exp", vec![-sq(x(0))]))] },
    MathRule { names: &["erfc"], arity: 1, adjoints: || vec![Some(-(d() * FRAC_2_SQRT_PI * call("exp", vec![-sq(x(0))])))] },
    MathRule {
        names: &["fmod"],
        arity: 2,
        // fmod(x, y) = x - n·y with n = trunc(x/y) computed exactly. n = (x - r)/y, rounded:
        // trunc of the rounded quotient x/y is one too many where x/y rounds up to an integer
        // (fmod(1, 0.1): n = 9, but 1/0.1 rounds to 10).
        adjoints: || vec![Some(d()), Some(-(d() * call("round", vec![(x(0) - r()) / x(1)])))],
    },
    MathRule { names: &["expm1"], arity: 1, adjoints: || vec![Some(strong(d() * (r() + 1.0)))] },
    // At x = -1: +inf (x + 1 is +0 there).
    MathRule { names: &["log1p"], arity: 1, adjoints: || vec![Some(strong(d() / (x(0) + 1.0)))] },
    // 1/sqrt(x² + 1) as 1/hypot(x, 1), which neither overflows for |x| > 1e154 nor rounds
    // x² + 1 twice.
    MathRule { names: &["asinh"], arity: 1, adjoints: || vec![Some(d() / call("hypot", vec![x(0), c(1.0)]))] },
    // 1/sqrt(x² - 1) as 1/(sqrt(x - 1)·sqrt(x + 1)): exact near 1, no overflow for large x;
    // +inf at x = 1 (the derivative from the right, as `asin`'s at ±1); NaN below 1.
    MathRule {
        names: &["acosh"],
        arity: 1,
        adjoints: || vec![Some(strong(d() / (call("sqrt", vec![x(0) - 1.0]) * call("sqrt", vec![x(0) + 1.0]))))],
    },
    // 1/(1 - x²) as 1/((1 - x)(1 + x)), exact near ±1; +inf at ±1 (the limit from inside).
    MathRule { names: &["atanh"], arity: 1, adjoints: || vec![Some(strong(d() / ((c(1.0) - x(0)) * (c(1.0) + x(0)))))] },
    // glibc also exports `__exp10`; `pow10` was its older alias.
    MathRule { names: &["exp10", "__exp10", "pow10"], arity: 1, adjoints: || vec![Some(strong(d() * r() * LN_10))] },
    // x·2^n: the adjoint scaled by 2^n, exactly (`ldexp(d, n)`: never 0·inf, and 2^n itself
    // may overflow where d·2^n does not). Each family scales by its own function, whose
    // exponent has the primal's integer type.
    MathRule { names: &["ldexp"], arity: 2, adjoints: || vec![Some(call("ldexp", vec![d(), x(1)])), None] },
    MathRule { names: &["scalbn"], arity: 2, adjoints: || vec![Some(call("scalbn", vec![d(), x(1)])), None] },
    MathRule { names: &["scalbln"], arity: 2, adjoints: || vec![Some(call("scalbln", vec![d(), x(1)])), None] },
    // frexp(x, &e) = x·2^-e: the derivative is 2^-e, which is r/x exactly (both are exact
    // and their quotient a power of two). At the jumps (powers of two) that is the slope of
    // the piece x lies on; at x = 0 and ±inf, where frexp gives back x with e = 0, it is
    // 2^0 = 1. The exponent written through the pointer is an integer: no derivative.
    MathRule {
        names: &["frexp"],
        arity: 2,
        adjoints: || {
            let returned = or(cmp(Oeq, x(0), c(0.0)), cmp(Oeq, call("fabs", vec![x(0)]), c(f64::INFINITY)));
            vec![Some(select(returned, d(), d() * (r() / x(0)))), None]
        },
    },
    // x - y where x > y, else +0: piecewise linear, so the tie x = y takes the average (half
    // the adjoint, with opposite signs), and NaN operands 0 (as `fabs`).
    MathRule {
        names: &["fdim"],
        arity: 2,
        adjoints: || {
            let slope =
                |sign: f64| select(cmp(Oeq, x(0), x(1)), d() * (0.5 * sign), select(cmp(Ogt, x(0), x(1)), d() * sign, c(0.0)));
            vec![Some(slope(1.0)), Some(slope(-1.0))]
        },
    },
    // remainder(x, y) = x - n·y with n the quotient rounded to even, which (x - r)/y
    // recovers exactly (see `fmod`). Where n jumps (x/y halfway between integers) each
    // piece has the same derivative in x, and the primal's n is the one taken for y.
    MathRule {
        names: &["remainder"],
        arity: 2,
        adjoints: || vec![Some(d()), Some(-(d() * call("round", vec![(x(0) - r()) / x(1)])))],
    },
    // Bessel functions of the first kind: J0' = -J1, J1' = J0 - J1/x (1/2 at x = 0, its
    // limit), Jn' = (J(n-1) - J(n+1))/2, which is -J1 for n = 0 since J(-1) = -J1.
    MathRule { names: &["j0"], arity: 1, adjoints: || vec![Some(-(d() * call("j1", vec![x(0)])))] },
    MathRule {
        names: &["j1"],
        arity: 1,
        adjoints: || vec![Some(select(cmp(Oeq, x(0), c(0.0)), d() * 0.5, d() * (call("j0", vec![x(0)]) - r() / x(0))))],
    },
    MathRule {
        names: &["jn"],
        arity: 2,
        adjoints: || {
            vec![None, Some(d() * (call("jn", vec![int_add(x(0), -1), x(1)]) - call("jn", vec![int_add(x(0), 1), x(1)])) * 0.5)]
        },
    },
    // Of the second kind (defined for x >= 0), the same recurrences; at x = 0, where Yn is
    // infinite, the derivative from the right: infinite with the opposite sign of Yn(0)
    // (+inf for n >= 0). A zero adjoint gives 0 there.
    MathRule { names: &["y0"], arity: 1, adjoints: || vec![Some(bessel_y(x(0), -(d() * call("y1", vec![x(0)]))))] },
    MathRule { names: &["y1"], arity: 1, adjoints: || vec![Some(bessel_y(x(0), d() * (call("y0", vec![x(0)]) - r() / x(0))))] },
    MathRule {
        names: &["yn"],
        arity: 2,
        adjoints: || {
            vec![
                None,
                Some(bessel_y(
                    x(1),
                    d() * (call("yn", vec![int_add(x(0), -1), x(1)]) - call("yn", vec![int_add(x(0), 1), x(1)])) * 0.5,
                )),
            ]
        },
    },
    // log|Γ(x)|' = ψ(x), the digamma function, which the C library lacks: zyg's own
    // (`digamma`, a helper added beside the generated code). At the poles (0 and the
    // negative integers) ψ is infinite: ±inf, the limit from the right at ±0 being -inf/+inf.
    // `lgamma_r` writes the sign of Γ(x) through its pointer: an integer, no derivative.
    MathRule { names: &["lgamma", "gamma"], arity: 1, adjoints: || vec![Some(strong(d() * call("digamma", vec![x(0)])))] },
    MathRule {
        names: &["lgamma_r", "lgammaf_r", "lgammal_r"],
        arity: 2,
        adjoints: || vec![Some(strong(d() * call("digamma", vec![x(0)]))), None],
    },
    // Γ(x)' = Γ(x)·ψ(x); NaN at the poles, where tgamma is NaN or ±inf.
    MathRule { names: &["tgamma"], arity: 1, adjoints: || vec![Some(strong(d() * r() * call("digamma", vec![x(0)])))] },
    MathRule { names: &["fma", "fmuladd"], arity: 3, adjoints: || vec![Some(d() * x(1)), Some(d() * x(0)), Some(d())] },
    MathRule {
        names: &["copysign"],
        arity: 2,
        // |x| with y's sign: the derivative in x is sign(x)·sign(y), and 0 at x = ±0 (the
        // kink of |x|); none flows to y.
        adjoints: || {
            let dx = d() * with_sign(1.0, x(0)) * with_sign(1.0, x(1));
            vec![Some(zero_where(cmp(Oeq, x(0), c(0.0)), dx)), Some(c(0.0))]
        },
    },
    MathRule {
        names: &["hypot"],
        arity: 2,
        // x / hypot(x, y), which lies in [-1, 1]; 0 at (0, 0) (the norm's subgradient there,
        // as for sqrt), and sign(x) for an infinite x (x/r would be inf/inf).
        adjoints: || {
            let part = |v: E| {
                let infinite = cmp(Oeq, call("fabs", vec![v.clone()]), c(f64::INFINITY));
                zero_where(cmp(Oeq, r(), c(0.0)), d() * select(infinite, with_sign(1.0, v.clone()), v / r()))
            };
            vec![Some(part(x(0))), Some(part(x(1)))]
        },
    },
];

/// Maps a callee name to its family: `sinf` → `sin`, `llvm.sin.f64` → `sin`,
/// `llvm.powi.f64.i32` → `powi`, `__nv_sinf` → `sin`.
pub fn family(callee: &str) -> Option<&'static MathRule> {
    let find = |name: &str| MATH_RULES.iter().find(|rule| rule.names.contains(&name));
    if let Some(rest) = callee.strip_prefix("llvm.") {
        let base = rest.split('.').next()?;
        return find(base);
    }
    let name = callee.strip_prefix("__nv_").unwrap_or(callee);
    // An exact name first (`erf`, `ceil` end in `f`/`l` themselves), then the float and
    // long double suffixes.
    find(name).or_else(|| name.strip_suffix('f').and_then(find)).or_else(|| name.strip_suffix('l').and_then(find))
}

/// The math-call family: calls to a function of `MATH_RULES` (by any spelling, or declared
/// function-like to one, `conventions`) with the family's argument count; and
/// `llvm.modf.*` (clang's form of `modf`), whose result is the pair {fraction, integer
/// part}: the fraction's derivative is 1 (at the integers too: the slope of the pieces on
/// either side), the integer part's 0, so the fraction's adjoint goes to x and the integer
/// part's nowhere, and the tangent is {tx, 0}.
pub struct MathCalls;

impl RuleFamily for MathCalls {
    fn name(&self) -> &'static str {
        "math calls"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let InstKind::Call { callee: Callee::Direct(name), args, .. } = &cx.func.insts[inst].kind else { return Ok(None) };
        if name.starts_with("llvm.modf.") && args.len() == 1 {
            return Ok(Some(Choice::Pullback(Pullback::Modf)));
        }
        Ok(cx
            .conventions
            .math_rule(name)
            .filter(|rule| rule.arity == args.len())
            .map(|rule| Choice::Pullback(Pullback::Math((rule.adjoints)()))))
    }

    fn only_moves_the_result(&self, _pullback: &Pullback) -> bool {
        true
    }

    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        if let Pullback::Math(adjoints) = pullback {
            super::emit::alphas(needs, inst, adjoints);
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        match pullback {
            Pullback::Math(adjoints) => super::emit::reverse(cx, adjoints),
            Pullback::Modf => {
                let (d, x) = (cx.d.expect("an active result"), rule_operands_of(cx.kind())[0]);
                if cx.plan().activity.is_active(x) {
                    let fraction = cx.cursor().extract(d, 0);
                    cx.accumulate(x, fraction);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        match pullback {
            Pullback::Math(adjoints) => super::emit::tangent(cx, adjoints),
            Pullback::Modf => {
                let Some(v) = cx.result else { return Ok(()) };
                let ty = cx.func().ty(v).clone();
                let x = rule_operands_of(cx.kind())[0];
                let tx = cx.tangent(x);
                let zero = cx.constant(Constant::Zero(ty));
                let t = cx.cursor().insert(zero, tx, 0);
                cx.set(t);
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The families rules call (`expr::call`) that LLVM has an intrinsic for which every
/// backend lowers (`emit::math_call` calls `llvm.<name>.<type>` for these, the C library's
/// function for the others).
pub const LLVM_INTRINSICS: &[&str] = &[
    "sqrt", "sin", "cos", "exp", "exp2", "log", "log2", "log10", "pow", "fabs", "copysign", "floor", "ceil", "trunc", "round",
    "fma",
];

/// C library math functions zyg has no rule for (declaring one inactive would silently
/// give a wrong derivative, so the message for a call of one does not suggest it).
pub fn is_c_math_function(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "erfinv",
        "remquo",
        "nextafter",
        "nexttoward",
        "logb",
        "sincos",
        "significand",
        "cexpf",
        "cexpl",
        "clogf",
        "clogl",
        "csqrt",
        "cpow",
        "csin",
        "ccos",
        "ctan",
        "csinh",
        "ccosh",
        "ctanh",
        "casin",
        "cacos",
        "catan",
        "cproj",
        "cimag",
        "creal",
        "conj",
    ];
    let base =
        name.strip_suffix('f').filter(|b| NAMES.contains(b)).or_else(|| name.strip_suffix('l').filter(|b| NAMES.contains(b)));
    NAMES.contains(&name) || base.is_some()
}

/// Evaluates a math function in f64 by family name (for rule tests and `E::eval`).
pub fn eval_primal(name: &str, a: &[f64]) -> Option<f64> {
    let x = *a.first()?;
    let y = a.get(1).copied().unwrap_or(f64::NAN);
    Some(match name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        "pow" => x.powf(y),
        "powi" => x.powi(y as i32),
        "fabs" => x.abs(),
        "fmin" => x.min(y),
        "fmax" => x.max(y),
        // NaN-propagating (`llvm.minimum`): the tests' ties are not signed zeros.
        "minimum" => {
            if x.is_nan() || y.is_nan() {
                f64::NAN
            } else {
                x.min(y)
            }
        }
        "maximum" => {
            if x.is_nan() || y.is_nan() {
                f64::NAN
            } else {
                x.max(y)
            }
        }
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "trunc" => x.trunc(),
        "round" => x.round(),
        "rint" => x.round_ties_even(),
        "tanh" => x.tanh(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "atan2" => x.atan2(y),
        "erf" => erf(x),
        "erfc" => 1.0 - erf(x),
        "expm1" => x.exp_m1(),
        "log1p" => x.ln_1p(),
        "fma" => x.mul_add(y, *a.get(2)?),
        "copysign" => x.copysign(y),
        "hypot" => x.hypot(y),
        "fmod" => x % y,
        "asinh" => x.asinh(),
        "acosh" => x.acosh(),
        "atanh" => x.atanh(),
        "exp10" => 10f64.powf(x),
        "ldexp" | "scalbn" | "scalbln" => ldexp(x, y as i32),
        "frexp" => frexp(x),
        "fdim" => {
            if x > y {
                x - y
            } else if x.is_nan() || y.is_nan() {
                f64::NAN
            } else {
                0.0
            }
        }
        "remainder" => remainder(x, y),
        "digamma" => digamma(x),
        _ => return None,
    })
}

/// x·2^n, rounded once (2^n alone may be out of range where x·2^n is not).
fn ldexp(mut x: f64, n: i32) -> f64 {
    let mut n = n.clamp(-2200, 2200);
    while n.abs() > 1000 {
        let step = 1000 * n.signum();
        x *= 2f64.powi(step);
        n -= step;
    }
    x * 2f64.powi(n)
}

/// x - n·y with n = x/y rounded to even, exactly: from fmod's exact remainder.
fn remainder(x: f64, y: f64) -> f64 {
    let r = x % y;
    let (half, magnitude) = (y.abs() / 2.0, r.abs());
    let odd = ((x - r) / y).round() % 2.0 != 0.0;
    if magnitude > half || (magnitude == half && odd) {
        r - y.abs().copysign(r)
    } else {
        r
    }
}

/// frexp's fraction, in [0.5, 1) in magnitude (x itself for 0, infinities and NaN).
fn frexp(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let mut m = ldexp(x, -(x.abs().log2().floor() as i32 + 1));
    while m.abs() >= 1.0 {
        m /= 2.0;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
    }
    m
}

/// ψ by the method of zyg's helper (`digamma`), for rule tests.
fn digamma(x: f64) -> f64 {
    if x < 0.0 {
        let cot = std::f64::consts::PI / ((x - x.round()) * std::f64::consts::PI).tan();
        return digamma(1.0 - x) - cot;
    }
    let (mut v, mut sum) = (x, 0.0);
    while v < 10.0 {
        sum += 1.0 / v;
        v += 1.0;
    }
    let w = 1.0 / (v * v);
    let coefficients = [1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0, 1.0 / 12.0];
    let tail = coefficients.iter().rev().fold(0.0, |acc, c| (acc + c) * w);
    v.ln() - 0.5 / v - tail - sum
}

/// erf by its Maclaurin series and continued fraction tail; accurate to ~1e-15, enough to
/// test the rule (std has no erf).
fn erf(x: f64) -> f64 {
    if x.abs() < 3.0 {
        let mut sum: f64 = 0.0;
        let mut term = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs().max(1e-300) {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
        }
        sum * FRAC_2_SQRT_PI
    } else {
        // erfc(x) ~ exp(-x²)/(x√π) · continued fraction; beyond |x| = 3 the tail is < 2e-5.
        let t = x.abs();
        let mut f = 0.0;
        for k in (1..60).rev() {
            f = (k as f64 / 2.0) / (t + f);
        }
        let erfc = (-t * t).exp() / (t + f) / std::f64::consts::PI.sqrt();
        (1.0 - erfc).copysign(x)
    }
}

#[cfg(test)]
#[path = "math_tests.rs"]
mod tests;

/// How many arguments the math function `name` (a C name or an LLVM intrinsic) takes, if
/// zyg has a rule for it: for Enzyme's `__enzyme_function_like` declarations.
pub fn math_rule_arity(name: &str) -> Option<usize> {
    family(name).map(|rule| rule.arity)
}

/// The first name of every math rule, to list what zyg knows.
pub fn math_rule_names() -> Vec<&'static str> {
    MATH_RULES.iter().map(|r| r.names[0]).collect()
}
