//! Derivative rules for math library functions and LLVM math intrinsics: one entry per
//! family, covering every spelling (`sin`, `sinf`, `sinl`, `llvm.sin.*`, `__nv_sin[f]`).

use super::expr::{c, call, cmp, d, int_add, int_to_float, r, select, x, E};
use zyg_ir::FloatPred::{Oge, Ogt, Ole};

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

/// The table: read top to bottom, `d` is the adjoint of the result `r`, `x(i)` operand i.
pub static MATH_RULES: &[MathRule] = &[
    MathRule { names: &["sin"], arity: 1, adjoints: || vec![Some(d() * call("cos", vec![x(0)]))] },
    MathRule { names: &["cos"], arity: 1, adjoints: || vec![Some(-(d() * call("sin", vec![x(0)])))] },
    MathRule { names: &["tan"], arity: 1, adjoints: || vec![Some(d() * (c(1.0) + sq(r())))] },
    MathRule { names: &["exp"], arity: 1, adjoints: || vec![Some(d() * r())] },
    MathRule { names: &["exp2"], arity: 1, adjoints: || vec![Some(d() * r() * LN_2)] },
    MathRule { names: &["log"], arity: 1, adjoints: || vec![Some(d() / x(0))] },
    MathRule { names: &["log2"], arity: 1, adjoints: || vec![Some(d() / (x(0) * LN_2))] },
    MathRule { names: &["log10"], arity: 1, adjoints: || vec![Some(d() / (x(0) * LN_10))] },
    MathRule { names: &["sqrt"], arity: 1, adjoints: || vec![Some(d() / (r() * 2.0))] },
    MathRule { names: &["cbrt"], arity: 1, adjoints: || vec![Some(d() / (sq(r()) * 3.0))] },
    MathRule {
        names: &["pow"],
        arity: 2,
        adjoints: || {
            vec![
                Some(d() * x(1) * call("pow", vec![x(0), x(1) - 1.0])),
                // d/dy x^y = x^y log x; taken as 0 where x <= 0 (log undefined, as Enzyme does).
                Some(select(cmp(Ogt, x(0), c(0.0)), d() * r() * call("log", vec![x(0)]), c(0.0))),
            ]
        },
    },
    MathRule {
        names: &["powi"],
        arity: 2,
        adjoints: || vec![Some(d() * int_to_float(x(1)) * call("powi", vec![x(0), int_add(x(1), -1)])), None],
    },
    MathRule {
        names: &["fabs"],
        arity: 1,
        adjoints: || vec![Some(select(cmp(Oge, x(0), c(0.0)), d(), -d()))],
    },
    MathRule {
        names: &["fmin", "minnum", "minimum", "minimumnum"],
        arity: 2,
        adjoints: || {
            vec![
                Some(select(cmp(Ole, x(0), x(1)), d(), c(0.0))),
                Some(select(cmp(Ole, x(0), x(1)), c(0.0), d())),
            ]
        },
    },
    MathRule {
        names: &["fmax", "maxnum", "maximum", "maximumnum"],
        arity: 2,
        adjoints: || {
            vec![
                Some(select(cmp(Oge, x(0), x(1)), d(), c(0.0))),
                Some(select(cmp(Oge, x(0), x(1)), c(0.0), d())),
            ]
        },
    },
    MathRule { names: &["floor"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["ceil"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["trunc"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["round"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["rint", "nearbyint", "roundeven"], arity: 1, adjoints: || vec![Some(c(0.0))] },
    MathRule { names: &["tanh"], arity: 1, adjoints: || vec![Some(d() * (c(1.0) - sq(r())))] },
    MathRule { names: &["sinh"], arity: 1, adjoints: || vec![Some(d() * call("cosh", vec![x(0)]))] },
    MathRule { names: &["cosh"], arity: 1, adjoints: || vec![Some(d() * call("sinh", vec![x(0)]))] },
    MathRule {
        names: &["asin"],
        arity: 1,
        adjoints: || vec![Some(d() / call("sqrt", vec![c(1.0) - sq(x(0))]))],
    },
    MathRule {
        names: &["acos"],
        arity: 1,
        adjoints: || vec![Some(-(d() / call("sqrt", vec![c(1.0) - sq(x(0))])))],
    },
    MathRule { names: &["atan"], arity: 1, adjoints: || vec![Some(d() / (c(1.0) + sq(x(0))))] },
    MathRule {
        names: &["atan2"],
        arity: 2,
        // atan2(y, x): dy = x / (x² + y²), dx = -y / (x² + y²).
        adjoints: || {
            vec![
                Some(d() * x(1) / (sq(x(0)) + sq(x(1)))),
                Some(-(d() * x(0)) / (sq(x(0)) + sq(x(1)))),
            ]
        },
    },
    MathRule {
        names: &["erf"],
        arity: 1,
        adjoints: || vec![Some(d() * FRAC_2_SQRT_PI * call("exp", vec![-sq(x(0))]))],
    },
    MathRule {
        names: &["erfc"],
        arity: 1,
        adjoints: || vec![Some(-(d() * FRAC_2_SQRT_PI * call("exp", vec![-sq(x(0))])))],
    },
    MathRule {
        names: &["fmod"],
        arity: 2,
        // fmod(x, y) = x - trunc(x/y)·y, as the frem instruction.
        adjoints: || vec![Some(d()), Some(-(d() * call("trunc", vec![x(0) / x(1)])))],
    },
    MathRule { names: &["expm1"], arity: 1, adjoints: || vec![Some(d() * (r() + 1.0))] },
    MathRule { names: &["log1p"], arity: 1, adjoints: || vec![Some(d() / (x(0) + 1.0))] },
    MathRule {
        names: &["fma", "fmuladd"],
        arity: 3,
        adjoints: || vec![Some(d() * x(1)), Some(d() * x(0)), Some(d())],
    },
    MathRule {
        names: &["copysign"],
        arity: 2,
        // |x| with y's sign: the derivative in x is sign(x)·sign(y); none flows to y.
        adjoints: || {
            let sign = |e: E| call("copysign", vec![c(1.0), e]);
            vec![Some(d() * sign(x(0)) * sign(x(1))), Some(c(0.0))]
        },
    },
    MathRule {
        names: &["hypot"],
        arity: 2,
        adjoints: || vec![Some(d() * x(0) / r()), Some(d() * x(1) / r())],
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
        _ => return None,
    })
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
mod tests {
    use super::*;

    /// Every rule's adjoints against central finite differences of the primal, at several
    /// points per family.
    #[test]
    fn math_rules_match_finite_differences() {
        let points: &[&[f64]] = &[&[0.3, 1.7, 0.9], &[-0.45, 2.2, 1.3], &[0.8, -1.1, -0.7], &[1.9, 0.6, 2.0]];
        for rule in MATH_RULES {
            let name = rule.names[0];
            for p in points {
                let mut args: Vec<f64> = p[..rule.arity].to_vec();
                match name {
                    "log" | "log2" | "log10" | "sqrt" | "cbrt" | "pow" | "log1p" => args[0] = args[0].abs() + 0.1,
                    "asin" | "acos" => args[0] = args[0].clamp(-0.9, 0.9),
                    "powi" => args[1] = 3.0,
                    _ => {}
                }
                let primal = |a: &[f64]| eval_primal(name, a).unwrap();
                let result = primal(&args);
                let adjoints = (rule.adjoints)();
                assert_eq!(adjoints.len(), rule.arity, "{name}");
                for (i, adj) in adjoints.iter().enumerate() {
                    let Some(adj) = adj else { continue };
                    let got = adj.eval(&args, result, 1.0);
                    let h = 1e-6 * args[i].abs().max(1.0);
                    let (mut lo, mut hi) = (args.clone(), args.clone());
                    lo[i] -= h;
                    hi[i] += h;
                    let want = (primal(&hi) - primal(&lo)) / (2.0 * h);
                    let tol = 1e-6 * want.abs().max(1.0);
                    assert!((got - want).abs() < tol, "{name} operand {i} at {args:?}: rule {got}, fd {want}");
                }
            }
        }
    }

    #[test]
    fn families_cover_all_spellings() {
        for (spelling, family_name) in [
            ("sin", "sin"), ("sinf", "sin"), ("sinl", "sin"), ("llvm.sin.f64", "sin"), ("__nv_sinf", "sin"),
            ("erf", "erf"), ("erff", "erf"), ("ceil", "ceil"), ("ceilf", "ceil"), ("ceill", "ceil"),
            ("llvm.powi.f64.i32", "powi"), ("llvm.fmuladd.f32", "fma"), ("llvm.maxnum.f64", "fmax"),
            ("fminf", "fmin"), ("fmodf", "fmod"), ("expl", "exp"), ("atan2f", "atan2"), ("llvm.copysign.f64", "copysign"),
        ] {
            assert_eq!(family(spelling).map(|r| r.names[0]), Some(family_name), "{spelling}");
        }
        assert!(family("printf").is_none());
        assert!(family("self").is_none());
    }
}
