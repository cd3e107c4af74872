//! Tests of the math rules: against finite differences, near and at edge points, and
//! every spelling of a family.

use super::*;

/// Every rule's adjoints against central finite differences of the primal, at several
/// points per family.
#[test]
fn math_rules_match_finite_differences() {
    let points: &[&[f64]] = &[&[0.3, 1.7, 0.9], &[-0.45, 2.2, 1.3], &[0.8, -1.1, -0.7], &[1.9, 0.6, 2.0]];
    // Rust has no Gamma or Bessel functions: those rules are checked end to end, against
    // the C library (e2e/libm_gamma.c, e2e/libm_bessel.c).
    let without_primal = ["lgamma", "lgamma_r", "tgamma", "j0", "j1", "jn", "y0", "y1", "yn"];
    for rule in MATH_RULES.iter().filter(|rule| !without_primal.contains(&rule.names[0])) {
        let name = rule.names[0];
        for p in points {
            let mut args: Vec<f64> = p[..rule.arity].to_vec();
            match name {
                "log" | "log2" | "log10" | "sqrt" | "cbrt" | "pow" | "log1p" => args[0] = args[0].abs() + 0.1,
                "asin" | "acos" | "atanh" => args[0] = args[0].clamp(-0.9, 0.9),
                "acosh" => args[0] = args[0].abs() + 1.1,
                "powi" | "ldexp" | "scalbn" | "scalbln" => args[1] = 3.0,
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

/// Central differences of operand `i` of `name` at `args`, against the rule.
fn check_fd(name: &str, args: &[f64], i: usize) {
    let rule = MATH_RULES.iter().find(|r| r.names[0] == name).expect("a rule");
    let primal = |a: &[f64]| eval_primal(name, a).unwrap();
    let got = (rule.adjoints)()[i].as_ref().expect("an adjoint").eval(args, primal(args), 1.0);
    let h = if args[i] == 0.0 { 1e-6 } else { 1e-6 * args[i].abs() };
    let (mut lo, mut hi) = (args.to_vec(), args.to_vec());
    lo[i] -= h;
    hi[i] += h;
    let want = (primal(&hi) - primal(&lo)) / (2.0 * h);
    let tol = 1e-6 * want.abs() + 1e-9;
    assert!((got - want).abs() <= tol, "{name} operand {i} at {args:?}: rule {got}, fd {want}");
}

/// Near the edges, where the rules take care: negative bases with integer exponents,
/// every small integer exponent, arguments near the poles, tiny and huge operands.
#[test]
fn math_rules_match_finite_differences_near_edges() {
    for base in [-2.5, -1.0, -0.3, 0.3, 1.0, 2.5] {
        for n in [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0, 4.0] {
            check_fd("pow", &[base, n], 0);
            check_fd("powi", &[base, n], 0);
        }
    }
    for (name, args) in [
        ("pow", [0.05, 0.5]),
        ("pow", [1e-3, 1.5]),
        ("pow", [1.0, 2.5]),
        ("pow", [2.0, -40.0]),
        ("tanh", [5.0, 0.0]),
        ("tanh", [-8.0, 0.0]),
        ("erf", [4.0, 0.0]),
        ("erf", [-5.0, 0.0]),
        ("erfc", [3.5, 0.0]),
        ("asin", [0.999, 0.0]),
        ("asin", [-0.999, 0.0]),
        ("acos", [0.999, 0.0]),
        ("acos", [-0.999, 0.0]),
        ("log", [1e-5, 0.0]),
        ("log1p", [-0.999, 0.0]),
        ("sqrt", [1e-8, 0.0]),
        ("cbrt", [-1e-6, 0.0]),
        ("exp", [700.0, 0.0]),
        ("sinh", [-700.0, 0.0]),
        ("cosh", [700.0, 0.0]),
        ("atan", [1e6, 0.0]),
        ("atan2", [1e-170, 3e-170]),
        ("atan2", [-2e200, 1e200]),
        ("atan2", [0.5, -1e-3]),
        ("atan2", [-0.5, -2.0]),
        ("hypot", [1e300, 1e300]),
        ("hypot", [1e-300, 3e-300]),
        ("hypot", [-3.0, 0.5]),
        ("fmod", [7.3, 2.0]),
        ("fmod", [-7.3, 2.0]),
        ("fmod", [7.3, -2.0]),
        ("fmod", [1.05, 0.1]),
        ("copysign", [-2.0, -1.0]),
        ("copysign", [1e-3, -3.0]),
        ("fabs", [-1e-3, 0.0]),
        ("asinh", [-3e5, 0.0]),
        ("acosh", [1.01, 0.0]),
        ("acosh", [1e8, 0.0]),
        ("atanh", [0.999, 0.0]),
        ("atanh", [-0.999, 0.0]),
        ("exp10", [-3.5, 0.0]),
        ("frexp", [3e-300, 0.0]),
        ("frexp", [-7.0e5, 0.0]),
        ("fdim", [-2.5, -4.0]),
        ("remainder", [7.3, 2.0]),
        ("remainder", [-7.3, 2.0]),
        ("remainder", [1.07, 0.1]),
    ] {
        let rule = MATH_RULES.iter().find(|r| r.names[0] == name).unwrap();
        for i in 0..rule.arity {
            if (name, i) != ("copysign", 1) && (name, i) != ("frexp", 1) {
                check_fd(name, &args[..rule.arity], i);
            }
        }
    }
}

/// The documented value at each edge point (module comment): exact values where the
/// derivative is finite, ±inf where it is infinite, the stated convention at kinks,
/// ties, roots and NaN operands, and 0 wherever the result's adjoint is 0.
#[test]
fn math_rules_at_edge_points() {
    const INF: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;
    let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * b.abs();
    // (family, operands, result's adjoint, expected adjoint of each operand)
    let cases: &[(&str, &[f64], f64, &[f64])] = &[
        ("pow", &[0.0, 0.0], 1.0, &[0.0, 0.0]),
        ("pow", &[0.0, 1.0], 1.0, &[1.0, 0.0]),
        ("pow", &[-0.0, 1.0], 1.0, &[1.0, 0.0]),
        ("pow", &[0.0, 2.0], 1.0, &[0.0, 0.0]),
        ("pow", &[0.0, 3.5], 1.0, &[0.0, 0.0]),
        ("pow", &[0.0, 0.5], 1.0, &[0.0, 0.0]),
        ("pow", &[0.0, -1.0], 1.0, &[-INF, 0.0]),
        ("pow", &[-2.0, 3.0], 1.0, &[12.0, 0.0]),
        ("pow", &[-2.0, 2.0], 1.0, &[-4.0, 0.0]),
        ("pow", &[-2.0, -1.0], 1.0, &[-0.25, 0.0]),
        ("pow", &[NAN, 0.0], 1.0, &[0.0, 0.0]),
        ("pow", &[1.0, NAN], 1.0, &[NAN, 0.0]),
        ("pow", &[INF, -1.0], 1.0, &[-0.0, 0.0]),
        ("pow", &[INF, 2.0], 1.0, &[INF, INF]),
        ("pow", &[2.0, 0.0], 1.0, &[0.0, std::f64::consts::LN_2]),
        ("pow", &[1e300, 2.0], 0.0, &[0.0, 0.0]),
        ("pow", &[10.0, 400.0], 0.0, &[0.0, 0.0]),
        ("powi", &[0.0, 0.0], 1.0, &[0.0]),
        ("powi", &[NAN, 0.0], 1.0, &[0.0]),
        ("powi", &[0.0, 1.0], 1.0, &[1.0]),
        ("powi", &[0.0, 2.0], 1.0, &[0.0]),
        ("powi", &[0.0, -1.0], 1.0, &[-INF]),
        ("powi", &[0.0, -1.0], 0.0, &[0.0]),
        ("powi", &[-2.0, 3.0], 1.0, &[12.0]),
        ("sqrt", &[0.0], 1.0, &[0.0]),
        ("sqrt", &[-0.0], 1.0, &[0.0]),
        ("sqrt", &[INF], 1.0, &[0.0]),
        ("sqrt", &[4.0], 1.0, &[0.25]),
        ("cbrt", &[0.0], 1.0, &[0.0]),
        ("cbrt", &[-0.0], 1.0, &[0.0]),
        ("cbrt", &[-8.0], 1.0, &[1.0 / 12.0]),
        ("cbrt", &[INF], 1.0, &[0.0]),
        ("log", &[0.0], 1.0, &[INF]),
        ("log", &[-0.0], 1.0, &[INF]),
        ("log", &[0.0], 0.0, &[0.0]),
        ("log", &[INF], 1.0, &[0.0]),
        ("log2", &[-0.0], 1.0, &[INF]),
        ("log10", &[0.0], 1.0, &[INF]),
        ("log1p", &[-1.0], 1.0, &[INF]),
        ("exp", &[1000.0], 1.0, &[INF]),
        ("exp", &[1000.0], 0.0, &[0.0]),
        ("exp", &[-INF], 1.0, &[0.0]),
        ("exp2", &[2000.0], 0.0, &[0.0]),
        ("expm1", &[-INF], 1.0, &[0.0]),
        ("expm1", &[1000.0], 0.0, &[0.0]),
        ("sinh", &[1000.0], 0.0, &[0.0]),
        ("cosh", &[-1000.0], 1.0, &[-INF]),
        ("cosh", &[-1000.0], 0.0, &[0.0]),
        ("tanh", &[0.0], 1.0, &[1.0]),
        ("tanh", &[30.0], 1.0, &[0.0]),
        ("tanh", &[-INF], 1.0, &[0.0]),
        ("erf", &[30.0], 1.0, &[0.0]),
        ("erf", &[-INF], 1.0, &[0.0]),
        ("erfc", &[INF], 1.0, &[-0.0]),
        ("asin", &[1.0], 1.0, &[INF]),
        ("asin", &[-1.0], 1.0, &[INF]),
        ("asin", &[1.0], 0.0, &[0.0]),
        ("acos", &[1.0], 1.0, &[-INF]),
        ("acos", &[-1.0], 1.0, &[-INF]),
        ("atan", &[INF], 1.0, &[0.0]),
        ("atan2", &[0.0, 0.0], 1.0, &[0.0, 0.0]),
        ("atan2", &[-0.0, -0.0], 1.0, &[0.0, 0.0]),
        ("atan2", &[1.0, INF], 1.0, &[0.0, 0.0]),
        ("atan2", &[INF, -1.0], 1.0, &[0.0, 0.0]),
        ("atan2", &[3.0, 4.0], 1.0, &[0.16, -0.12]),
        ("atan2", &[1e-170, 1e-170], 1.0, &[0.5e170, -0.5e170]),
        ("hypot", &[0.0, 0.0], 1.0, &[0.0, 0.0]),
        ("hypot", &[-INF, 1.0], 1.0, &[-1.0, 0.0]),
        ("hypot", &[3.0, -4.0], 1.0, &[0.6, -0.8]),
        ("fabs", &[0.0], 1.0, &[0.0]),
        ("fabs", &[-0.0], 1.0, &[0.0]),
        ("fabs", &[-2.0], 1.0, &[-1.0]),
        ("fabs", &[NAN], 1.0, &[0.0]),
        ("copysign", &[0.0, -1.0], 1.0, &[0.0, 0.0]),
        ("copysign", &[-0.0, 1.0], 1.0, &[0.0, 0.0]),
        ("copysign", &[-2.0, -1.0], 1.0, &[1.0, 0.0]),
        ("copysign", &[2.0, -0.0], 1.0, &[-1.0, 0.0]),
        ("fmax", &[1.0, 1.0], 1.0, &[0.5, 0.5]),
        ("fmax", &[-0.0, 0.0], 1.0, &[0.5, 0.5]),
        ("fmax", &[2.0, 1.0], 1.0, &[1.0, 0.0]),
        ("fmax", &[1.0, NAN], 1.0, &[1.0, 0.0]),
        ("fmax", &[NAN, 1.0], 1.0, &[0.0, 1.0]),
        ("fmax", &[NAN, NAN], 1.0, &[1.0, 0.0]),
        ("fmin", &[1.0, 1.0], 1.0, &[0.5, 0.5]),
        ("fmin", &[2.0, 1.0], 1.0, &[0.0, 1.0]),
        ("fmin", &[1.0, NAN], 1.0, &[1.0, 0.0]),
        ("fmin", &[NAN, 1.0], 1.0, &[0.0, 1.0]),
        ("maximum", &[1.0, NAN], 1.0, &[0.0, 1.0]),
        ("maximum", &[NAN, 1.0], 1.0, &[1.0, 0.0]),
        ("maximum", &[NAN, NAN], 1.0, &[1.0, 0.0]),
        ("maximum", &[3.0, 3.0], 1.0, &[0.5, 0.5]),
        ("minimum", &[1.0, NAN], 1.0, &[0.0, 1.0]),
        ("minimum", &[-1.0, 3.0], 1.0, &[1.0, 0.0]),
        ("floor", &[2.0], 1.0, &[0.0]),
        ("round", &[0.5], 1.0, &[0.0]),
        ("trunc", &[NAN], 1.0, &[0.0]),
        ("rint", &[INF], 1.0, &[0.0]),
        ("fmod", &[1.0, 0.1], 1.0, &[1.0, -9.0]),
        ("fmod", &[5.0, INF], 1.0, &[1.0, 0.0]),
        ("fmod", &[-0.0, 1.0], 1.0, &[1.0, 0.0]),
        ("fmod", &[-7.0, 2.0], 1.0, &[1.0, 3.0]),
        ("asinh", &[0.0], 1.0, &[1.0]),
        ("asinh", &[1e200], 1.0, &[1e-200]),
        ("asinh", &[-INF], 1.0, &[0.0]),
        ("acosh", &[1.0], 1.0, &[INF]),
        ("acosh", &[1.0], 0.0, &[0.0]),
        ("acosh", &[1e300], 1.0, &[1e-300]),
        ("acosh", &[0.5], 1.0, &[NAN]),
        ("atanh", &[1.0], 1.0, &[INF]),
        ("atanh", &[-1.0], 1.0, &[INF]),
        ("atanh", &[-1.0], 0.0, &[0.0]),
        ("atanh", &[0.5], 1.0, &[4.0 / 3.0]),
        ("exp10", &[2.0], 1.0, &[100.0 * std::f64::consts::LN_10]),
        ("exp10", &[400.0], 0.0, &[0.0]),
        ("ldexp", &[3.0, 4.0], 1.0, &[16.0]),
        ("ldexp", &[3.0, -1074.0], 1.0, &[f64::from_bits(1)]),
        ("scalbn", &[-1.0, 2.0], 0.5, &[2.0]),
        ("frexp", &[8.0, 0.0], 1.0, &[1.0 / 16.0]),
        ("frexp", &[-3.0, 0.0], 1.0, &[0.25]),
        ("frexp", &[0.0, 0.0], 1.0, &[1.0]),
        ("frexp", &[-INF, 0.0], 1.0, &[1.0]),
        ("fdim", &[1.0, 1.0], 1.0, &[0.5, -0.5]),
        ("fdim", &[3.0, 1.0], 1.0, &[1.0, -1.0]),
        ("fdim", &[1.0, 3.0], 1.0, &[0.0, 0.0]),
        ("fdim", &[NAN, 3.0], 1.0, &[0.0, 0.0]),
        ("remainder", &[5.0, 2.0], 1.0, &[1.0, -2.0]),
        ("remainder", &[7.0, 2.0], 1.0, &[1.0, -4.0]),
        ("remainder", &[-7.0, 2.0], 1.0, &[1.0, 4.0]),
        ("remainder", &[1.0, 0.1], 1.0, &[1.0, -10.0]),
        ("remainder", &[5.0, INF], 1.0, &[1.0, 0.0]),
    ];
    for (name, args, dret, want) in cases {
        let rule = MATH_RULES.iter().find(|r| r.names[0] == *name).unwrap_or_else(|| panic!("{name}"));
        let result = eval_primal(name, args).unwrap();
        let adjoints = (rule.adjoints)();
        for (i, want) in want.iter().enumerate() {
            let got = adjoints[i].as_ref().expect("an adjoint").eval(args, result, *dret);
            assert!(same(got, *want), "{name}{args:?} with adjoint {dret}: operand {i} got {got}, want {want}");
        }
    }
}

#[test]
fn families_cover_all_spellings() {
    for (spelling, family_name) in [
        ("sin", "sin"),
        ("sinf", "sin"),
        ("sinl", "sin"),
        ("llvm.sin.f64", "sin"),
        ("__nv_sinf", "sin"),
        ("erf", "erf"),
        ("erff", "erf"),
        ("ceil", "ceil"),
        ("ceilf", "ceil"),
        ("ceill", "ceil"),
        ("llvm.powi.f64.i32", "powi"),
        ("llvm.fmuladd.f32", "fma"),
        ("llvm.maxnum.f64", "fmax"),
        ("fminf", "fmin"),
        ("fmodf", "fmod"),
        ("llvm.maximum.v4f64", "maximum"),
        ("llvm.minimumnum.f32", "fmin"),
        ("fmaximum_numf", "fmax"),
        ("expl", "exp"),
        ("atan2f", "atan2"),
        ("llvm.copysign.f64", "copysign"),
        ("asinhf", "asinh"),
        ("acoshl", "acosh"),
        ("__nv_atanhf", "atanh"),
        ("exp10f", "exp10"),
        ("__exp10", "exp10"),
        ("llvm.exp10.f32", "exp10"),
        ("expm1f", "expm1"),
        ("log1pl", "log1p"),
        ("erfcf", "erfc"),
        ("erfcl", "erfc"),
        ("lgammaf", "lgamma"),
        ("lgammal", "lgamma"),
        ("gamma", "lgamma"),
        ("lgammaf_r", "lgamma_r"),
        ("tgammaf", "tgamma"),
        ("tgammal", "tgamma"),
        ("ldexpf", "ldexp"),
        ("llvm.ldexp.f64.i32", "ldexp"),
        ("scalbnl", "scalbn"),
        ("scalblnf", "scalbln"),
        ("frexpf", "frexp"),
        ("fdiml", "fdim"),
        ("remainderf", "remainder"),
        ("j0f", "j0"),
        ("j1l", "j1"),
        ("jnf", "jn"),
        ("y0l", "y0"),
        ("ynf", "yn"),
    ] {
        assert_eq!(family(spelling).map(|r| r.names[0]), Some(family_name), "{spelling}");
    }
    assert!(family("printf").is_none());
    assert!(family("self").is_none());
}

/// zyg's digamma helper, run in the interpreter for each float type it is written for:
/// known values, the recurrence psi(x + 1) = psi(x) + 1/x and the reflection through every
/// path of the helper, and the poles.
#[test]
fn digamma_helper_values() {
    use zyg_ir::interp::{Interpreter, Val};
    let helper = super::super::digamma::helper("zyg", zyg_ir::FloatTy::F64);
    let mut interp = Interpreter::new([&helper]);
    let mut psi = |x: f64| match interp.call(&helper.name, &[Val::F64(x)]) {
        Ok(Some(Val::F64(y))) => y,
        other => panic!("digamma({x}): {other:?}"),
    };
    const EULER: f64 = 0.577_215_664_901_532_9;
    let close = |got: f64, want: f64, tol: f64| (got - want).abs() <= tol * want.abs().max(1.0);
    assert!(close(psi(1.0), -EULER, 1e-15));
    assert!(close(psi(0.5), -EULER - 2.0 * std::f64::consts::LN_2, 1e-15));
    assert!(close(psi(-0.5), 2.0 - EULER - 2.0 * std::f64::consts::LN_2, 1e-15));
    let mut harmonic = 0.0;
    for n in 1..40 {
        harmonic += 1.0 / n as f64;
        assert!(close(psi(n as f64 + 1.0), harmonic - EULER, 2e-15), "psi({})", n + 1);
    }
    for x in [1e-6, 0.3, 2.5, 9.99, 10.0, 17.5, -0.3, -2.5, -10.75, -1e-6, 1e10] {
        let step = psi(x + 1.0) - psi(x);
        assert!(close(step, 1.0 / x, 1e-13 * (psi(x).abs() + 1.0)), "recurrence at {x}: {step} vs {}", 1.0 / x);
        assert!(close(psi(x), digamma(x), 1e-15), "helper and model at {x}");
    }
    assert_eq!(psi(0.0), f64::NEG_INFINITY);
    assert_eq!(psi(-0.0), f64::INFINITY);
    assert!(psi(-3.0).is_infinite());
    assert!(psi(f64::NAN).is_nan());
    assert!(psi(f64::NEG_INFINITY).is_nan());
    assert_eq!(psi(f64::INFINITY), f64::INFINITY);
}

/// The float helper agrees with the double one to float precision.
#[test]
fn digamma_helper_float() {
    use zyg_ir::interp::{Interpreter, Val};
    let helper = super::super::digamma::helper("zyg", zyg_ir::FloatTy::F32);
    let mut interp = Interpreter::new([&helper]);
    for x in [0.25f32, 1.5, 7.0, 12.0, -0.75, -4.5] {
        let Ok(Some(Val::F32(y))) = interp.call(&helper.name, &[Val::F32(x)]) else { panic!("digammaf({x})") };
        let want = digamma(f64::from(x));
        assert!((f64::from(y) - want).abs() <= 1e-6 * want.abs().max(1.0), "digammaf({x}) = {y}, want {want}");
    }
}
