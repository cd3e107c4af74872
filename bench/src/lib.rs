//! zyg-bench: the benchmarks' C code (`src/*.c`, differentiated by zyg at build time in
//! `build.rs`), the cases and their sizes, and the runner the bench targets share.
//!
//! Each case is timed in three variants in one criterion group named after the case: the
//! primal, zyg's gradient and a hand-written gradient (the `modes` family: zyg's Jacobian- or
//! Hessian-vector product and a hand-written reference, see [`Derivative`]). Before timing, the
//! runner calls zyg's and the hand-written variant once and compares what they wrote
//! (normwise relative difference at most 1e-8, or [`HVP_CHECK_RTOL`] against finite
//! differences), and measures the peak heap use of one call of each variant (`src/heap.c`). It
//! writes what it found to `target/zyg-bench/cases/<case>.json`; `src/bin/report.rs` joins that
//! with criterion's medians into bench/RESULTS.md.
//!
//! A case whose zyg variant may not fit in memory (the `memory` family: taped recursion and
//! long loops) calls it first in a forked child with a bounded address space
//! ([`probe_in_child`], `ZYG_BENCH_MEM_LIMIT_GIB`); if the child dies, zyg's variant is not
//! run, and the case's JSON says why (`zyg_not_run`).
//!
//! `ZYG_BENCH_QUICK=1` gives tiny sizes and short measurements (for checking that everything
//! runs, not for numbers).

use criterion::{Criterion, SamplingMode};
use std::ffi::c_void;
use std::path::PathBuf;
use std::time::{Duration, Instant};

type CaseFn = unsafe extern "C" fn(*mut c_void) -> f64;
type FreeFn = unsafe extern "C" fn(*mut c_void);

extern "C" {
    fn zb_heap_start();
    fn zb_heap_stop() -> i64;

    fn gmm_setup(d: i32, k: i32, n: i32, seed: u64) -> *mut c_void;
    fn gmm_primal(c: *mut c_void) -> f64;
    fn gmm_zyg(c: *mut c_void) -> f64;
    fn gmm_hand(c: *mut c_void) -> f64;
    fn gmm_free(c: *mut c_void);

    fn ba_setup(n: i32, m: i32, p: i32, seed: u64) -> *mut c_void;
    fn ba_primal(c: *mut c_void) -> f64;
    fn ba_zyg(c: *mut c_void) -> f64;
    fn ba_fwd_zyg(c: *mut c_void) -> f64;
    fn ba_rev2_zyg(c: *mut c_void) -> f64;
    fn ba_hand(c: *mut c_void) -> f64;
    fn ba_sq_setup(n: i32, m: i32, p: i32, seed: u64) -> *mut c_void;
    fn ba_sq_primal(c: *mut c_void) -> f64;
    fn ba_sq_zyg(c: *mut c_void) -> f64;
    fn ba_sq_hand(c: *mut c_void) -> f64;
    fn ba_free(c: *mut c_void);

    fn lstm_setup(l: i32, c: i32, b: i32, seed: u64) -> *mut c_void;
    fn lstm_primal(c: *mut c_void) -> f64;
    fn lstm_zyg(c: *mut c_void) -> f64;
    fn lstm_hand(c: *mut c_void) -> f64;
    fn lstm_free(c: *mut c_void);

    fn hand_setup(n_bones: i32, n_verts: i32, n_corr: i32, seed: u64) -> *mut c_void;
    fn hand_primal(c: *mut c_void) -> f64;
    fn hand_zyg(c: *mut c_void) -> f64;
    fn hand_hand(c: *mut c_void) -> f64;
    fn hand_free(c: *mut c_void);

    fn vec_free(c: *mut c_void);
    fn sincos_setup(n: i32, seed: u64) -> *mut c_void;
    fn sincos_primal(c: *mut c_void) -> f64;
    fn sincos_zyg(c: *mut c_void) -> f64;
    fn sincos_hand(c: *mut c_void) -> f64;
    fn loop_setup(n: i32, seed: u64) -> *mut c_void;
    fn loop_primal(c: *mut c_void) -> f64;
    fn loop_zyg(c: *mut c_void) -> f64;
    fn loop_hand(c: *mut c_void) -> f64;
    fn loop_free(c: *mut c_void);
    fn lse_setup(n: i32, seed: u64) -> *mut c_void;
    fn lse_primal(c: *mut c_void) -> f64;
    fn lse_zyg(c: *mut c_void) -> f64;
    fn lse_hand(c: *mut c_void) -> f64;
    fn logreg_setup(n: i32, d: i32, seed: u64) -> *mut c_void;
    fn logreg_primal(c: *mut c_void) -> f64;
    fn logreg_zyg(c: *mut c_void) -> f64;
    fn logreg_hand(c: *mut c_void) -> f64;
    fn logreg_free(c: *mut c_void);
    fn mlp_setup(batch: i32, d: i32, h: i32, o: i32, seed: u64) -> *mut c_void;
    fn mlp_primal(c: *mut c_void) -> f64;
    fn mlp_zyg(c: *mut c_void) -> f64;
    fn mlp_hand(c: *mut c_void) -> f64;
    fn mlp_free(c: *mut c_void);
    fn bessel_setup(n: i32, terms: i32, seed: u64) -> *mut c_void;
    fn bessel_primal(c: *mut c_void) -> f64;
    fn bessel_zyg(c: *mut c_void) -> f64;
    fn bessel_hand(c: *mut c_void) -> f64;
    fn bessel_free(c: *mut c_void);
    fn branchy_setup(n: i32, seed: u64) -> *mut c_void;
    fn branchy_primal(c: *mut c_void) -> f64;
    fn branchy_zyg(c: *mut c_void) -> f64;
    fn branchy_hand(c: *mut c_void) -> f64;
    fn branchy_free(c: *mut c_void);

    fn gmm_jvp_setup(d: i32, k: i32, n: i32, seed: u64) -> *mut c_void;
    fn gmm_jvp_primal(c: *mut c_void) -> f64;
    fn gmm_jvp_zyg(c: *mut c_void) -> f64;
    fn gmm_jvp_hand(c: *mut c_void) -> f64;
    fn gmm_modes_free(c: *mut c_void);
    fn lstm_jvp_setup(l: i32, c: i32, b: i32, seed: u64) -> *mut c_void;
    fn lstm_jvp_primal(c: *mut c_void) -> f64;
    fn lstm_jvp_zyg(c: *mut c_void) -> f64;
    fn lstm_jvp_hand(c: *mut c_void) -> f64;
    fn lstm_modes_free(c: *mut c_void);

    fn gmm_hvp_setup(d: i32, k: i32, n: i32, seed: u64) -> *mut c_void;
    fn gmm_hvp_primal(c: *mut c_void) -> f64;
    fn gmm_hvp_gradient(c: *mut c_void) -> f64;
    fn gmm_hvp_zyg(c: *mut c_void) -> f64;
    fn gmm_hvp_hand(c: *mut c_void) -> f64;
    fn gmm_hvp_free(c: *mut c_void);
    fn lse_hvp_setup(n: i32, seed: u64) -> *mut c_void;
    fn lse_hvp_primal(c: *mut c_void) -> f64;
    fn lse_hvp_gradient(c: *mut c_void) -> f64;
    fn lse_hvp_zyg(c: *mut c_void) -> f64;
    fn lse_hvp_hand(c: *mut c_void) -> f64;
    fn lse_hvp_free(c: *mut c_void);
    fn mlp_hvp_setup(batch: i32, d: i32, h: i32, o: i32, seed: u64) -> *mut c_void;
    fn mlp_hvp_primal(c: *mut c_void) -> f64;
    fn mlp_hvp_gradient(c: *mut c_void) -> f64;
    fn mlp_hvp_zyg(c: *mut c_void) -> f64;
    fn mlp_hvp_hand(c: *mut c_void) -> f64;
    fn mlp_hvp_free(c: *mut c_void);

    fn det_setup(n: i32, seed: u64) -> *mut c_void;
    fn det_primal(c: *mut c_void) -> f64;
    fn det_zyg(c: *mut c_void) -> f64;
    fn det_hand(c: *mut c_void) -> f64;
    fn det_free(c: *mut c_void);
    fn tree_setup(n: i32, seed: u64) -> *mut c_void;
    fn tree_primal(c: *mut c_void) -> f64;
    fn tree_zyg(c: *mut c_void) -> f64;
    fn tree_hand(c: *mut c_void) -> f64;
    fn tree_free(c: *mut c_void);
    fn ode_setup(n: i32, steps: i32, seed: u64) -> *mut c_void;
    fn ode_primal(c: *mut c_void) -> f64;
    fn ode_zyg(c: *mut c_void) -> f64;
    fn ode_hand(c: *mut c_void) -> f64;
    fn ode_free(c: *mut c_void);
    fn heat_setup(n: i32, steps: i32, threads: i32, seed: u64) -> *mut c_void;
    fn heat_primal(c: *mut c_void) -> f64;
    fn heat_zyg(c: *mut c_void) -> f64;
    fn heat_hand(c: *mut c_void) -> f64;
    fn heat_free(c: *mut c_void);
    fn ode_budget_setup(n: i32, steps: i32, seed: u64) -> *mut c_void;
    fn ode_budget_primal(c: *mut c_void) -> f64;
    fn ode_budget_zyg(c: *mut c_void) -> f64;
    fn ode_budget_hand(c: *mut c_void) -> f64;
    fn ode_budget_free(c: *mut c_void);
}

/// The head of every case's C context (`bench_grad` in src/bench.h).
#[repr(C)]
struct GradView {
    n: i32,
    zyg: *mut f64,
    hand: *mut f64,
}

/// `zyg grad` errors recorded by build.rs: one line per translation unit, `unit\terror`.
pub const ZYG_BUILD_ERRORS: &str = include_str!(concat!(env!("OUT_DIR"), "/zyg_errors.txt"));

/// The error zyg gave on translation unit `unit` at build time, if any.
pub fn zyg_build_error(unit: &str) -> Option<&'static str> {
    ZYG_BUILD_ERRORS.lines().find_map(|l| l.strip_prefix(unit)?.strip_prefix('\t'))
}

/// `ZYG_BENCH_QUICK=1` (or any value but empty and 0): tiny sizes, short measurements.
pub fn quick() -> bool {
    std::env::var("ZYG_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The families, in the order of RESULTS.md; each is a bench target of its own.
pub const FAMILIES: &[&str] = &["gmm", "ba", "lstm", "hand", "scalar", "modes", "memory", "parallel"];

/// What a case's `zyg` variant computes, and what its target divides its time by.
#[derive(Clone, Copy)]
pub enum Derivative {
    /// zyg's gradient; `hand` is a hand-written gradient; the target is on zyg / primal.
    Gradient,
    /// a forward-mode Jacobian-vector product; `hand` is the hand-written gradient dotted with
    /// the direction; the target is on zyg / primal.
    Jvp,
    /// a Hessian-vector product, forward mode over zyg's gradient; `hand` is the central
    /// differences of the hand-written gradient along the vector. A fourth variant,
    /// `gradient` (zyg's gradient), is timed with them: the target is on zyg / gradient.
    Hvp { gradient: CaseFn },
}

impl Derivative {
    /// The name in the case's JSON (`derivative`).
    pub fn name(&self) -> &'static str {
        match self {
            Derivative::Gradient => "gradient",
            Derivative::Jvp => "jvp",
            Derivative::Hvp { .. } => "hvp",
        }
    }

    /// The JSON key of the target: which ratio it bounds.
    fn target_key(&self) -> &'static str {
        match self {
            Derivative::Hvp { .. } => "zyg_over_gradient",
            _ => "zyg_over_primal",
        }
    }
}

/// One case: its context and its three variants (four for a Hessian-vector product).
pub struct Case {
    /// criterion group and file name: `[a-z0-9_]`
    pub name: String,
    pub family: &'static str,
    /// translation unit (for build errors)
    pub unit: &'static str,
    /// the sizes, for people
    pub params: String,
    /// target for zyg / primal (zyg / gradient for a Hessian-vector product), and for zyg /
    /// hand, where the issue sets them
    pub target_grad: Option<f64>,
    pub target_hand: Option<f64>,
    pub derivative: Derivative,
    /// the largest relative difference allowed between zyg's and the hand-written variant
    pub check_rtol: f64,
    /// zyg's variant may need more memory than the machine has (issue 16: taped recursion):
    /// it runs in-process only after a call of it in a memory-limited child succeeded
    /// ([`probe_in_child`])
    pub probe_memory: bool,
    setup: Box<dyn Fn() -> *mut c_void>,
    primal: CaseFn,
    zyg: CaseFn,
    hand: CaseFn,
    free: FreeFn,
}

impl Case {
    #[allow(clippy::too_many_arguments)]
    fn new(
        family: &'static str,
        unit: &'static str,
        name: String,
        params: String,
        fns: (CaseFn, CaseFn, CaseFn, FreeFn),
        target_grad: impl Into<Option<f64>>,
        target_hand: Option<f64>,
        setup: impl Fn() -> *mut c_void + 'static,
    ) -> Case {
        Case {
            name,
            family,
            unit,
            params,
            target_grad: target_grad.into(),
            target_hand,
            derivative: Derivative::Gradient,
            check_rtol: CHECK_RTOL,
            probe_memory: false,
            setup: Box::new(setup),
            primal: fns.0,
            zyg: fns.1,
            hand: fns.2,
            free: fns.3,
        }
    }

    /// The case computes a Jacobian-vector product.
    fn jvp(self) -> Case {
        Case { derivative: Derivative::Jvp, ..self }
    }

    /// The case computes a Hessian-vector product; `gradient` is zyg's gradient of its function.
    fn hvp(self, gradient: CaseFn) -> Case {
        Case { derivative: Derivative::Hvp { gradient }, check_rtol: HVP_CHECK_RTOL, ..self }
    }

    /// zyg's variant is called in a memory-limited child first ([`probe_in_child`]).
    fn probing_memory(self) -> Case {
        Case { probe_memory: true, ..self }
    }
}

/// The cases of one family, at the sizes (or tiny ones in quick mode).
pub fn cases(family: &str) -> Vec<Case> {
    let q = quick();
    let mut v = Vec::new();
    match family {
        "gmm" => {
            let n = if q { 10 } else { 1000 };
            let dks: &[(i32, i32)] = if q { &[(2, 3), (3, 4)] } else { &[(2, 5), (10, 25), (20, 50), (64, 100)] };
            for &(d, k) in dks {
                v.push(Case::new(
                    "gmm",
                    "gmm",
                    format!("gmm_d{d}_k{k}_n{n}"),
                    format!("d = {d}, k = {k}, n = {n}"),
                    (gmm_primal, gmm_zyg, gmm_hand, gmm_free),
                    3.0,
                    Some(1.25),
                    move || unsafe { gmm_setup(d, k, n, 1000 + (d * 1000 + k) as u64) },
                ));
            }
        }
        "ba" => {
            // problem sizes of ADBench's ba1, ba2 and ba3 (cameras, points, observations)
            let sizes: &[(i32, i32, i32)] =
                if q { &[(3, 5, 12)] } else { &[(49, 7776, 31843), (21, 11315, 36455), (161, 48126, 182072)] };
            for &(n, m, p) in sizes {
                v.push(Case::new(
                    "ba",
                    "ba",
                    format!("ba_jac_n{n}_m{m}_p{p}"),
                    format!("Jacobian blocks, n = {n}, m = {m}, p = {p}"),
                    (ba_primal, ba_zyg, ba_hand, ba_free),
                    5.0,
                    Some(1.25),
                    move || unsafe { ba_setup(n, m, p, 2000 + p as u64) },
                ));
                // The same blocks by vector forward mode, width 15 (one sweep per observation).
                v.push(Case::new(
                    "ba",
                    "ba",
                    format!("ba_jacfwd_n{n}_m{m}_p{p}"),
                    format!("Jacobian blocks by forward mode of width 15, n = {n}, m = {m}, p = {p}"),
                    (ba_primal, ba_fwd_zyg, ba_hand, ba_free),
                    5.0,
                    Some(1.25),
                    move || unsafe { ba_setup(n, m, p, 2000 + p as u64) },
                ));
                // By vector reverse mode, width 2 (both rows of a block in one sweep).
                v.push(Case::new(
                    "ba",
                    "ba",
                    format!("ba_jacrev2_n{n}_m{m}_p{p}"),
                    format!("Jacobian blocks by reverse mode of width 2, n = {n}, m = {m}, p = {p}"),
                    (ba_primal, ba_rev2_zyg, ba_hand, ba_free),
                    5.0,
                    Some(1.25),
                    move || unsafe { ba_setup(n, m, p, 2000 + p as u64) },
                ));
            }
            let (n, m, p) = sizes[0];
            v.push(Case::new(
                "ba",
                "ba",
                format!("ba_sq_n{n}_m{m}_p{p}"),
                format!("gradient of the sum of squares, n = {n}, m = {m}, p = {p}"),
                (ba_sq_primal, ba_sq_zyg, ba_sq_hand, ba_free),
                5.0,
                Some(1.25),
                move || unsafe { ba_sq_setup(n, m, p, 2000 + p as u64) },
            ));
        }
        "lstm" => {
            let b = if q { 4 } else { 14 };
            let lcs: &[(i32, i32)] = if q { &[(2, 8)] } else { &[(2, 1024), (2, 4096), (4, 1024), (4, 4096)] };
            for &(l, c) in lcs {
                v.push(Case::new(
                    "lstm",
                    "lstm",
                    format!("lstm_l{l}_c{c}"),
                    format!("layers = {l}, characters = {c}, b = {b}"),
                    (lstm_primal, lstm_zyg, lstm_hand, lstm_free),
                    3.0,
                    None,
                    move || unsafe { lstm_setup(l, c, b, 3000 + (l * 10000 + c) as u64) },
                ));
            }
        }
        "hand" => {
            let (bones, verts) = if q { (10, 30) } else { (22, 544) };
            let corrs: &[i32] = if q { &[20] } else { &[100, 1000, 10000] };
            for &c in corrs {
                v.push(Case::new(
                    "hand",
                    "hand",
                    format!("hand_simple_c{c}"),
                    format!("gradient of the squared error, {bones} bones, {verts} vertices, {c} correspondences"),
                    (hand_primal, hand_zyg, hand_hand, hand_free),
                    5.0,
                    None,
                    move || unsafe { hand_setup(bones, verts, c, 4000 + c as u64) },
                ));
            }
        }
        "scalar" => {
            let s = |full: i32, tiny: i32| if q { tiny } else { full };
            let n = s(10_000, 10);
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("sincos_chain_n{n}_depth32"),
                format!("{n} chains of 32 rounds of v = v + sin(v) cos(1.1 v) / 10"),
                (sincos_primal, sincos_zyg, sincos_hand, vec_free),
                5.0,
                None,
                move || unsafe { sincos_setup(n, 5001) },
            ));
            let n = s(1_000_000, 100);
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("scalar_loop_n{n}"),
                format!("x^n by a loop of n = {n} multiplications"),
                (loop_primal, loop_zyg, loop_hand, loop_free),
                5.0,
                None,
                move || unsafe { loop_setup(n, 5002) },
            ));
            let n = s(100_000, 16);
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("logsumexp_n{n}"),
                format!("logsumexp of {n} values"),
                (lse_primal, lse_zyg, lse_hand, vec_free),
                3.0,
                None,
                move || unsafe { lse_setup(n, 5003) },
            ));
            let (n, d) = (s(10_000, 20), s(100, 3));
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("logreg_n{n}_d{d}"),
                format!("logistic regression, {n} samples, {d} features"),
                (logreg_primal, logreg_zyg, logreg_hand, logreg_free),
                5.0,
                None,
                move || unsafe { logreg_setup(n, d, 5004) },
            ));
            let (b, d, h, o) = (s(64, 4), s(256, 5), s(128, 4), s(10, 3));
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("mlp_b{b}_{d}x{h}x{o}"),
                format!("2-layer MLP (tanh, softmax cross-entropy), batch {b}, {d}-{h}-{o}"),
                (mlp_primal, mlp_zyg, mlp_hand, mlp_free),
                3.0,
                None,
                move || unsafe { mlp_setup(b, d, h, o, 5005) },
            ));
            let (n, terms) = (s(1000, 5), 40);
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("bessel_jnu_n{n}_terms{terms}"),
                format!("Bessel J_nu(x) by {terms} terms of its series at {n} points"),
                (bessel_primal, bessel_zyg, bessel_hand, bessel_free),
                5.0,
                None,
                move || unsafe { bessel_setup(n, terms, 5006) },
            ));
            let n = s(1000, 10);
            v.push(Case::new(
                "scalar",
                "scalar",
                format!("branchy_n{n}"),
                format!("a branchy function of two variables at {n} points, one request each"),
                (branchy_primal, branchy_zyg, branchy_hand, branchy_free),
                5.0,
                None,
                move || unsafe { branchy_setup(n, 5007) },
            ));
        }
        "modes" => {
            // Forward mode (src/modes.c): JVP / primal, target <= 3x.
            let n = if q { 10 } else { 1000 };
            let dks: &[(i32, i32)] = if q { &[(2, 3)] } else { &[(2, 5), (10, 25)] };
            for &(d, k) in dks {
                v.push(
                    Case::new(
                        "modes",
                        "modes",
                        format!("gmm_jvp_d{d}_k{k}_n{n}"),
                        format!(
                            "forward-mode JVP of GMM along one direction, d = {d}, k = {k}, n = {n}; hand: gradient · direction"
                        ),
                        (gmm_jvp_primal, gmm_jvp_zyg, gmm_jvp_hand, gmm_modes_free),
                        3.0,
                        None,
                        move || unsafe { gmm_jvp_setup(d, k, n, 1000 + (d * 1000 + k) as u64) },
                    )
                    .jvp(),
                );
            }
            let b = if q { 4 } else { 14 };
            let lcs: &[(i32, i32)] = if q { &[(2, 8)] } else { &[(2, 1024), (4, 1024)] };
            for &(l, c) in lcs {
                v.push(Case::new(
                    "modes",
                    "modes",
                    format!("lstm_jvp_l{l}_c{c}"),
                    format!("forward-mode JVP of LSTM along one direction, layers = {l}, characters = {c}, b = {b}; hand: gradient · direction"),
                    (lstm_jvp_primal, lstm_jvp_zyg, lstm_jvp_hand, lstm_modes_free),
                    3.0,
                    None,
                    move || unsafe { lstm_jvp_setup(l, c, b, 3000 + (l * 10000 + c) as u64) },
                )
                .jvp());
            }
            // Hessian-vector products (src/hvp.c): forward over zyg's gradient, HVP / gradient,
            // target <= 3x (forward over reverse costs a small multiple of the gradient)
            for &(d, k) in dks {
                v.push(
                    Case::new(
                        "modes",
                        "hvp",
                        format!("gmm_hvp_d{d}_k{k}_n{n}"),
                        format!("Hessian-vector product of GMM, d = {d}, k = {k}, n = {n}"),
                        (gmm_hvp_primal, gmm_hvp_zyg, gmm_hvp_hand, gmm_hvp_free),
                        3.0,
                        None,
                        move || unsafe { gmm_hvp_setup(d, k, n, 1000 + (d * 1000 + k) as u64) },
                    )
                    .hvp(gmm_hvp_gradient),
                );
            }
            let n = if q { 16 } else { 100_000 };
            v.push(
                Case::new(
                    "modes",
                    "hvp",
                    format!("logsumexp_hvp_n{n}"),
                    format!("Hessian-vector product of logsumexp of {n} values"),
                    (lse_hvp_primal, lse_hvp_zyg, lse_hvp_hand, lse_hvp_free),
                    3.0,
                    None,
                    move || unsafe { lse_hvp_setup(n, 5003) },
                )
                .hvp(lse_hvp_gradient),
            );
            let s = |full: i32, tiny: i32| if q { tiny } else { full };
            let (b, d, h, o) = (s(64, 4), s(256, 5), s(128, 4), s(10, 3));
            v.push(
                Case::new(
                    "modes",
                    "hvp",
                    format!("mlp_hvp_b{b}_{d}x{h}x{o}"),
                    format!("Hessian-vector product of the 2-layer MLP's loss (all weights), batch {b}, {d}-{h}-{o}"),
                    (mlp_hvp_primal, mlp_hvp_zyg, mlp_hvp_hand, mlp_hvp_free),
                    3.0,
                    None,
                    move || unsafe { mlp_hvp_setup(b, d, h, o, 5005) },
                )
                .hvp(mlp_hvp_gradient),
            );
        }
        "memory" => {
            // Issue 16's cases for memory-aware tapes: recursion (src/det.c, src/tree.c) and a
            // long time-stepping loop (src/ode.c). zyg's gradient of each runs in a
            // memory-limited child first, so that one whose tape cannot fit is reported as not
            // run instead of taking the machine down (under the default 8 GiB, today's taped det
            // at n = 9 and 11 and the ODE at 10^5 steps).
            let ns: &[i32] = if q { &[4, 5] } else { &[7, 9, 11] };
            for &n in ns {
                v.push(
                    Case::new(
                        "memory",
                        "det",
                        format!("det_n{n}"),
                        format!(
                            "{n}x{n} determinant by expansion along the first row (minors malloc'ed); hand: the same recursion, recomputing the minors' determinants"
                        ),
                        (det_primal, det_zyg, det_hand, det_free),
                        None,
                        Some(3.0),
                        move || unsafe { det_setup(n, 7000 + n as u64) },
                    )
                    .probing_memory(),
                );
            }
            let ns: &[i32] = if q { &[37] } else { &[1 << 16, 1 << 20] };
            for &n in ns {
                v.push(
                    Case::new(
                        "memory",
                        "tree",
                        format!("tree_n{n}"),
                        format!(
                            "log sum exp(sin a_i), {n} values, by recursive halving; hand: the same recursion, node values stored"
                        ),
                        (tree_primal, tree_zyg, tree_hand, tree_free),
                        None,
                        Some(3.0),
                        move || unsafe { tree_setup(n, 7100 + n as u64) },
                    )
                    .probing_memory(),
                );
            }
            let n = 32;
            let steps: &[i32] = if q { &[100] } else { &[10_000, 100_000] };
            for &st in steps {
                v.push(
                    Case::new(
                        "memory",
                        "ode",
                        format!("ode_rk4_l96_n{n}_steps{st}"),
                        format!(
                            "RK4 on Lorenz-96, {n} variables, {st} steps; gradient in x(0) and F; hand: checkpoints every sqrt(steps) steps"
                        ),
                        (ode_primal, ode_zyg, ode_hand, ode_free),
                        5.0,
                        None,
                        move || unsafe { ode_setup(n, st, 7200) },
                    )
                    .probing_memory(),
                );
                // The same under `--tape-budget 1MiB` (src/ode_budget.c): checkpointed loop.
                v.push(
                    Case::new(
                        "memory",
                        "ode_budget",
                        format!("ode_rk4_l96_n{n}_steps{st}_budget1mib"),
                        format!(
                            "RK4 on Lorenz-96, {n} variables, {st} steps, zyg grad --tape-budget 1MiB (loop checkpointed in segments); hand: checkpoints every sqrt(steps) steps"
                        ),
                        (ode_budget_primal, ode_budget_zyg, ode_budget_hand, ode_budget_free),
                        5.0,
                        None,
                        move || unsafe { ode_budget_setup(n, st, 7200) },
                    )
                    .probing_memory(),
                );
            }
        }
        "parallel" => {
            // Issue 17: an OpenMP stencil time loop (src/omp.c), primal, zyg's gradient and a
            // hand-written parallel adjoint, each with a team of 1 and of 2 threads (this
            // machine's cores): the adjoint's speedup is zyg's time at 1 over its time at 2.
            let (n, steps) = if q { (1 << 10, 4) } else { (1 << 16, 50) };
            for threads in [1, 2] {
                v.push(Case::new(
                    "parallel",
                    "omp",
                    format!("omp_heat_n{n}_steps{steps}_threads{threads}"),
                    format!(
                        "nonlinear heat equation, {n} cells, {steps} steps, `#pragma omp parallel for` per step, {threads} thread(s); gradient in u(0) and k; hand: stored states, parallel gather-form adjoint"
                    ),
                    (heat_primal, heat_zyg, heat_hand, heat_free),
                    None,
                    None,
                    move || unsafe { heat_setup(n, steps, threads, 7300) },
                ));
            }
        }
        other => panic!("unknown family {other}"),
    }
    v
}

/// The target directory (CARGO_TARGET_DIR, else the workspace's `target`).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// Where the runner writes one JSON file per case.
pub fn cases_dir() -> PathBuf {
    target_dir().join("zyg-bench/cases")
}

/// The median of `v` (the mean of the middle two for an even count): the compile-time
/// benchmarks' statistic (src/bin/compile_time.rs, src/bin/plugin_time.rs).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Criterion's median estimate (ns) for `group/function` of the last run.
pub fn median_ns(group: &str, function: &str) -> Option<f64> {
    let path = target_dir().join("criterion").join(group).join(function).join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

/// The benchmark filter given on the command line (`cargo bench -- FILTER`), if any: the
/// first argument that is neither an option nor an option's value.
fn filter() -> Option<String> {
    const TAKES_VALUE: &[&str] = &[
        "--save-baseline",
        "-s",
        "--baseline",
        "-b",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--color",
        "-c",
        "--output-format",
        "--format",
        "--plotting-backend",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if TAKES_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            return Some(a);
        }
    }
    None
}

fn case_selected(name: &str, filter: &Option<String>) -> bool {
    match filter {
        None => true,
        // criterion matches a regex against `group/function`; a plain word is a substring
        Some(f) if f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => name.contains(f.as_str()),
        Some(_) => true,
    }
}

/// Zyg's and the hand-written gradient, once each: (max |zyg - hand|, that / max |hand|).
fn compare(view: &GradView) -> (f64, f64) {
    let n = view.n.max(0) as usize;
    let (z, h) = unsafe { (std::slice::from_raw_parts(view.zyg, n), std::slice::from_raw_parts(view.hand, n)) };
    let mut diff = 0.0f64;
    let mut scale = 0.0f64;
    for (a, b) in z.iter().zip(h) {
        let d = (a - b).abs();
        diff = if d.is_nan() { f64::NAN } else { diff.max(d) };
        scale = scale.max(b.abs());
    }
    let rel = if scale > 0.0 { diff / scale } else { diff };
    (diff, rel)
}

/// The largest relative difference allowed between zyg's and the hand-written gradient.
pub const CHECK_RTOL: f64 = 1e-8;

/// The same between zyg's Hessian-vector product and central differences of the hand-written
/// gradient (src/hvp.c), whose own error (truncation and rounding, step 1e-5) is about 1e-9
/// relative: a wrong product is off by far more.
pub const HVP_CHECK_RTOL: f64 = 1e-6;

fn timed(f: CaseFn, ctx: *mut c_void) -> Duration {
    let t = Instant::now();
    std::hint::black_box(unsafe { f(ctx) });
    t.elapsed()
}

/// The peak heap bytes of one call of `f`, made on a fresh thread: zyg keeps released tape
/// chunks in a thread-local cache for the next call, which would hide the tape from a call
/// on a thread that has run the gradient before.
fn peak_bytes(f: CaseFn, ctx: *mut c_void) -> i64 {
    let p = ctx as usize;
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || unsafe {
            zb_heap_start();
            std::hint::black_box(f(p as *mut c_void));
            zb_heap_stop()
        })
        .expect("spawn a thread")
        .join()
        .expect("the measured call panicked")
}

/// How much address space zyg's variant may add in [`probe_in_child`]:
/// `ZYG_BENCH_MEM_LIMIT_GIB` GiB (default 8, a third of the 24 GiB machine the benchmarks run on).
pub fn probe_limit_bytes() -> u64 {
    let gib = std::env::var("ZYG_BENCH_MEM_LIMIT_GIB").ok().and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(8);
    gib << 30
}

/// The address space of this process in bytes (VmSize of /proc/self/status).
fn address_space_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status.lines().find_map(|l| l.strip_prefix("VmSize:"))?.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib << 10)
}

/// Calls `f(ctx)` once in a forked child whose address space may grow by at most `extra` bytes
/// (RLIMIT_AS) and which writes no core file: `Err(what happened)` unless the call returned.
/// zyg's tape aborts when malloc fails, so a gradient whose tape does not fit kills the child
/// and not the machine or the bench. The bench is single-threaded here (the measuring threads
/// of [`peak_bytes`] have been joined), so the child may call malloc.
fn probe_in_child(f: CaseFn, ctx: *mut c_void, extra: u64) -> Result<(), String> {
    let Some(now) = address_space_bytes() else {
        return Err("could not be made: /proc/self/status has no VmSize".into());
    };
    let limit = now + extra;
    // SAFETY: the child only sets its limits, calls the case's C function and leaves by _exit
    // (no Rust destructors, no flushing of buffers it shares with the parent).
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(format!("could not be made: fork failed ({})", std::io::Error::last_os_error()));
        }
        if pid == 0 {
            let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            let bounded = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            if libc::setrlimit(libc::RLIMIT_CORE, &no_core) != 0 || libc::setrlimit(libc::RLIMIT_AS, &bounded) != 0 {
                libc::_exit(3);
            }
            std::hint::black_box(f(ctx));
            libc::_exit(0);
        }
        let mut status = 0;
        if libc::waitpid(pid, &mut status, 0) != pid {
            return Err(format!("could not be waited for ({})", std::io::Error::last_os_error()));
        }
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            Ok(())
        } else if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            let what = match sig {
                libc::SIGABRT => " (SIGABRT: zyg's tape aborts when malloc fails)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGKILL => " (SIGKILL: the kernel's out-of-memory killer?)",
                _ => "",
            };
            Err(format!("was killed by signal {sig}{what}"))
        } else {
            Err(format!("exited with status {}", libc::WEXITSTATUS(status)))
        }
    }
}

/// Checks, measures and benchmarks one case.
fn run_case(c: &mut Criterion, case: &Case, order: usize) {
    let ctx = (case.setup)();
    let view = unsafe { &*(ctx as *const GradView) };
    let build_error = zyg_build_error(case.unit);

    // one call of each variant (which also warms the caches), then the check
    let t_primal = timed(case.primal, ctx);
    let t_hand = timed(case.hand, ctx);
    let gradient = match case.derivative {
        Derivative::Hvp { gradient } if build_error.is_none() => Some((gradient, timed(gradient, ctx))),
        _ => None,
    };
    // why zyg's variant is not run, its code being there: it did not fit in memory
    let not_run = if build_error.is_none() && case.probe_memory {
        let limit = probe_limit_bytes();
        probe_in_child(case.zyg, ctx, limit).err().map(|why| {
            let reason = format!("a call in a child limited to {} GiB more address space {why}", limit >> 30);
            eprintln!("zyg-bench: {}: zyg's {} not run: {reason}", case.name, case.derivative.name());
            reason
        })
    } else {
        None
    };
    let zyg_runs = build_error.is_none() && not_run.is_none();
    let t_zyg = if zyg_runs { timed(case.zyg, ctx) } else { Duration::ZERO };
    let (abs_diff, rel_diff) = if zyg_runs { compare(view) } else { (f64::NAN, f64::NAN) };
    let check_ok = zyg_runs && rel_diff <= case.check_rtol;
    if zyg_runs && !check_ok {
        eprintln!(
            "zyg-bench: {}: zyg's {} differs from the hand-written reference (max abs diff {abs_diff:e}, \
             relative {rel_diff:e}, allowed {:e}); zyg is not timed",
            case.name,
            case.derivative.name(),
            case.check_rtol
        );
    }
    let peak_primal = peak_bytes(case.primal, ctx);
    let peak_hand = peak_bytes(case.hand, ctx);
    let peak_zyg = if zyg_runs { Some(peak_bytes(case.zyg, ctx)) } else { None };
    eprintln!(
        "zyg-bench: {}: first calls primal {:.3?}, zyg {:.3?}, hand {:.3?}; check {}; peak heap primal {peak_primal} B, \
         zyg {peak_zyg:?} B, hand {peak_hand} B",
        case.name,
        t_primal,
        t_zyg,
        t_hand,
        if check_ok {
            "ok"
        } else if zyg_runs {
            "FAILED"
        } else {
            "not made"
        }
    );

    // criterion settings, per variant: short and fixed in quick mode; otherwise flat sampling
    // (the same number of iterations in every sample) for variants slower than 10 ms a call
    let settings = |t: Duration| -> Timing {
        if quick() {
            Timing { samples: 10, warm_up: Duration::from_millis(50), measurement: Duration::from_millis(200), flat: true }
        } else if t > Duration::from_millis(10) {
            Timing { samples: 10, warm_up: Duration::from_secs(1), measurement: Duration::from_secs(3).max(t * 12), flat: true }
        } else {
            Timing { samples: 30, warm_up: Duration::from_secs(1), measurement: Duration::from_secs(3), flat: false }
        }
    };
    let mut g = c.benchmark_group(&case.name);
    let p = ctx as usize;
    let mut timings = serde_json::Map::new();
    let mut variants = vec![("primal", case.primal, t_primal, true)];
    if let Some((f, t)) = gradient {
        variants.push(("gradient", f, t, true));
    }
    variants.extend([("zyg", case.zyg, t_zyg, check_ok), ("hand", case.hand, t_hand, true)]);
    for (variant, f, t, run) in variants {
        if !run {
            continue;
        }
        let s = settings(t);
        g.sample_size(s.samples).warm_up_time(s.warm_up).measurement_time(s.measurement);
        g.sampling_mode(if s.flat { SamplingMode::Flat } else { SamplingMode::Auto });
        g.bench_function(variant, |b| b.iter(|| unsafe { f(p as *mut c_void) }));
        timings.insert(
            variant.into(),
            serde_json::json!({
                "first_call_s": t.as_secs_f64(),
                "sample_size": s.samples,
                "warm_up_s": s.warm_up.as_secs_f64(),
                "measurement_s": s.measurement.as_secs_f64(),
                "flat_sampling": s.flat,
            }),
        );
    }
    g.finish();

    let json = serde_json::json!({
        "name": case.name,
        "family": case.family,
        "order": FAMILIES.iter().position(|f| *f == case.family).unwrap_or(99) * 100 + order,
        "params": case.params,
        "derivative": case.derivative.name(),
        "quick": quick(),
        "gradient_len": view.n,
        "zyg_build_error": build_error,
        "zyg_not_run": not_run,
        "check": { "ok": check_ok, "max_abs_diff": finite(abs_diff), "rel_diff": finite(rel_diff), "rtol": case.check_rtol },
        "peak_heap_bytes": { "primal": peak_primal, "zyg": peak_zyg, "hand": peak_hand },
        "targets": { case.derivative.target_key(): case.target_grad, "zyg_over_hand": case.target_hand },
        "criterion": timings,
    });
    let dir = cases_dir();
    std::fs::create_dir_all(&dir).expect("create target/zyg-bench/cases");
    std::fs::write(dir.join(format!("{}.json", case.name)), serde_json::to_string_pretty(&json).unwrap())
        .expect("write case json");
    unsafe { (case.free)(ctx) };
}

struct Timing {
    samples: usize,
    warm_up: Duration,
    measurement: Duration,
    flat: bool,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The body of each bench target: every case of `family`.
pub fn bench_family(family: &str) {
    let mut c = Criterion::default().configure_from_args();
    let filter = filter();
    let list_only = std::env::args().any(|a| a == "--list");
    for (i, case) in cases(family).iter().enumerate() {
        if list_only {
            println!("{}/primal: benchmark", case.name);
            if let Derivative::Hvp { .. } = case.derivative {
                println!("{}/gradient: benchmark", case.name);
            }
            println!("{0}/zyg: benchmark\n{0}/hand: benchmark", case.name);
            continue;
        }
        if case_selected(&case.name, &filter) {
            run_case(&mut c, case, i);
        }
    }
    if !list_only {
        c.final_summary();
    }
}
