//! Tests of the math rules: against finite differences, near and at edge points, and
//! every spelling of a family.

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
    ] {
        let rule = MATH_RULES.iter().find(|r| r.names[0] == name).unwrap();
        for i in 0..rule.arity {
            if (name, i) != ("copysign", 1) {
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
    ] {
        assert_eq!(family(spelling).map(|r| r.names[0]), Some(family_name), "{spelling}");
    }
    assert!(family("printf").is_none());
    assert!(family("self").is_none());
}
