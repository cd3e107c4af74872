//! The BLAS and LAPACK family: calls to CBLAS (`cblas_{d,s}{dot,axpy,scal,copy,nrm2,gemv,gemm}`)
//! and LAPACKE (`LAPACKE_{d,s}{potrf,potrs}`) declared without a body, differentiated by
//! rules whose adjoints and tangents call BLAS and LAPACK again (dgemm's adjoint is two
//! dgemms, as in Enzyme's BLAS rules). The generated program links the libraries the user
//! links anyway (`-lopenblas`, and `-llapacke` for the LAPACKE calls).
//!
//! Each routine has three helper functions, written in zyg's text form in `blas.zir` (one
//! template for `double` and `float`) and added to the output once per module
//! (`helpers`), which the generated code calls with the call's own arguments, each
//! pointer followed by its shadow (null where the array is not differentiated: the
//! helpers skip its contribution), as registered derivatives are called (`custom`):
//!
//! - `save`, in the primal (`save_inputs`): copies into heap memory what the adjoint reads
//!   of the arrays as they were at the call (the inputs, before the call; the factor and
//!   the solution, after it, for `potrf`/`potrs`), since the call itself or the program
//!   after it may overwrite them. The copy's pointer goes on the tape as the call's callee
//!   tape; the adjoint frees it. Copying always is the simple sound choice; no analysis
//!   proves the arrays unchanged.
//! - `adjoint`: adds the arrays' adjoints into their shadows, scales or replaces the
//!   adjoint of an overwritten output (`y = alpha*op(A)*x + beta*y`: the old y's adjoint is
//!   `beta*dy`), and returns the adjoints of the float arguments (alpha, beta: inner
//!   products), which are added as any call argument's. Its last argument says which float
//!   arguments are active, so that the inner products are computed only for those.
//! - `tangent`: forward mode, called before the call (after it for `potrf`/`potrs`, whose
//!   tangents are written with the factor), given each float argument's tangent and each
//!   array's shadow; returns the result's tangent (`dot`, `nrm2`).
//!
//! The rules: `dot`: dx += d*y, dy += d*x. `axpy` (y += alpha*x): dx += alpha*dy,
//! dalpha = <dy, x>. `scal` (x *= alpha): dalpha = <dx, x_old>, dx *= alpha. `copy`: dx +=
//! dy, dy = 0. `nrm2` (r = |x|): dx += d*x/r. `gemv`: dA += alpha*dy*x^T (its transpose for
//! `op(A) = A^T`, by `ger`), dx += alpha*op(A)^T*dy, dalpha = <dy, op(A)*x>, dbeta = <dy,
//! y_old>, dy *= beta. `gemm`: dA += alpha*dC*op(B)^T (transposed for `op(A) = A^T`), dB
//! likewise, dalpha = <dC, op(A)*op(B)>, dbeta = <dC, C_old>, dC *= beta. `potrf` (A = L*L^T
//! in place, from one triangle): the adjoint of the factor, Murray 2016 ("Differentiation
//! of the Cholesky decomposition"): S = L^-T * Phi(L^T * dL) * L^-1 (Phi: the lower
//! triangle with its diagonal halved), and the triangle read gets Phi(S + S^T), by `trmm`
//! and `trsm`. `potrs` (B := A^-1*B with A's factor): dB := A^-1*dX (another `potrs`),
//! dL += -(dB*X^T + X*dB^T)*L. Column- and row-major layouts, both triangles and all
//! transposes are handled (a row-major matrix is the column-major transpose); the
//! helpers run in column-major on the copies.
//!
//! Refused, naming the call: other BLAS and LAPACK functions (through `calls`, as any
//! function without a body), a declaration of another signature (64-bit integers,
//! complex types), a layout, transpose or triangle argument that is a constant of no
//! known value, an output array zyg cannot trace (or whose shadow may be null) that
//! would receive a derivative, vector mode (`enzyme_width`).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::tangent::Tangent;
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{Callee, Constant, FloatTy, Function, Inst, InstKind, Signature, Type, Value};

/// The routines with rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Routine {
    Dot,
    Axpy,
    Scal,
    Copy,
    Nrm2,
    Gemv,
    Gemm,
    Potrf,
    Potrs,
}

/// A call's routine, its float type and the name it is called by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlasCall {
    pub routine: Routine,
    pub elem: FloatTy,
    pub name: &'static str,
}

/// One parameter of a routine's C declaration.
#[derive(Clone, Copy, PartialEq)]
enum P {
    /// `int` (and CBLAS's enums): integer arguments carry no derivative.
    Int,
    /// LAPACKE's `char uplo`.
    Char,
    /// A float scalar (alpha, beta).
    Real,
    /// An array.
    Array,
}

/// What zyg knows of a routine: its parameters, its result, the array it writes, its
/// layout/transpose/triangle arguments and the values they may take, and when the primal
/// saves what the adjoint reads.
struct Shape {
    params: &'static [P],
    ret: Ret,
    /// The index of the array argument the routine writes.
    output: Option<usize>,
    /// (argument index, what it is, its values).
    enums: &'static [(usize, &'static str, &'static [i64])],
    /// The copies and the tangent come after the call (the factor and the solution are
    /// the call's results), not before it.
    after: bool,
    /// The primal saves something for the adjoint.
    saves: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Ret {
    Void,
    Real,
    Int,
}

const ORDER: (&str, &[i64]) =
    ("the layout (CblasRowMajor or LAPACK_ROW_MAJOR 101, CblasColMajor or LAPACK_COL_MAJOR 102)", &[101, 102]);
const TRANS: (&str, &[i64]) = ("the transpose (CblasNoTrans 111, CblasTrans 112, CblasConjTrans 113)", &[111, 112, 113]);
const UPLO: (&str, &[i64]) = ("the triangle ('L' or 'U')", &[76, 85]);

impl Routine {
    fn shape(self) -> Shape {
        use P::*;
        match self {
            Routine::Dot => Shape {
                params: &[Int, Array, Int, Array, Int],
                ret: Ret::Real,
                output: None,
                enums: &[],
                after: false,
                saves: true,
            },
            Routine::Axpy => Shape {
                params: &[Int, Real, Array, Int, Array, Int],
                ret: Ret::Void,
                output: Some(4),
                enums: &[],
                after: false,
                saves: true,
            },
            Routine::Scal => {
                Shape { params: &[Int, Real, Array, Int], ret: Ret::Void, output: Some(2), enums: &[], after: false, saves: true }
            }
            Routine::Copy => Shape {
                params: &[Int, Array, Int, Array, Int],
                ret: Ret::Void,
                output: Some(3),
                enums: &[],
                after: false,
                saves: false,
            },
            Routine::Nrm2 => {
                Shape { params: &[Int, Array, Int], ret: Ret::Real, output: None, enums: &[], after: false, saves: true }
            }
            Routine::Gemv => Shape {
                params: &[Int, Int, Int, Int, Real, Array, Int, Array, Int, Real, Array, Int],
                ret: Ret::Void,
                output: Some(10),
                enums: &[(0, ORDER.0, ORDER.1), (1, TRANS.0, TRANS.1)],
                after: false,
                saves: true,
            },
            Routine::Gemm => Shape {
                params: &[Int, Int, Int, Int, Int, Int, Real, Array, Int, Array, Int, Real, Array, Int],
                ret: Ret::Void,
                output: Some(12),
                enums: &[(0, ORDER.0, ORDER.1), (1, TRANS.0, TRANS.1), (2, TRANS.0, TRANS.1)],
                after: false,
                saves: true,
            },
            Routine::Potrf => Shape {
                params: &[Int, Char, Int, Array, Int],
                ret: Ret::Int,
                output: Some(3),
                enums: &[(0, ORDER.0, ORDER.1), (1, UPLO.0, UPLO.1)],
                after: true,
                saves: true,
            },
            Routine::Potrs => Shape {
                params: &[Int, Char, Int, Int, Array, Int, Array, Int],
                ret: Ret::Int,
                output: Some(6),
                enums: &[(0, ORDER.0, ORDER.1), (1, UPLO.0, UPLO.1)],
                after: true,
                saves: true,
            },
        }
    }
}

/// The functions with rules, by the name they are called by.
static ROUTINES: &[(&str, Routine, FloatTy)] = &[
    ("cblas_ddot", Routine::Dot, FloatTy::F64),
    ("cblas_sdot", Routine::Dot, FloatTy::F32),
    ("cblas_daxpy", Routine::Axpy, FloatTy::F64),
    ("cblas_saxpy", Routine::Axpy, FloatTy::F32),
    ("cblas_dscal", Routine::Scal, FloatTy::F64),
    ("cblas_sscal", Routine::Scal, FloatTy::F32),
    ("cblas_dcopy", Routine::Copy, FloatTy::F64),
    ("cblas_scopy", Routine::Copy, FloatTy::F32),
    ("cblas_dnrm2", Routine::Nrm2, FloatTy::F64),
    ("cblas_snrm2", Routine::Nrm2, FloatTy::F32),
    ("cblas_dgemv", Routine::Gemv, FloatTy::F64),
    ("cblas_sgemv", Routine::Gemv, FloatTy::F32),
    ("cblas_dgemm", Routine::Gemm, FloatTy::F64),
    ("cblas_sgemm", Routine::Gemm, FloatTy::F32),
    ("LAPACKE_dpotrf", Routine::Potrf, FloatTy::F64),
    ("LAPACKE_spotrf", Routine::Potrf, FloatTy::F32),
    ("LAPACKE_dpotrs", Routine::Potrs, FloatTy::F64),
    ("LAPACKE_spotrs", Routine::Potrs, FloatTy::F32),
];

/// The routine a function name calls, if zyg has rules for it.
pub fn lookup(name: &str) -> Option<BlasCall> {
    ROUTINES.iter().find(|(n, ..)| *n == name).map(|(name, routine, elem)| BlasCall { routine: *routine, elem: *elem, name })
}

impl BlasCall {
    /// The helper `which` (`save`, `adjoint`, `tangent`) of this routine, in `namespace`.
    pub fn helper(&self, namespace: &str, which: &str) -> String {
        format!("__{namespace}_blas_{}_{which}", self.name)
    }

    fn expected_sig(&self) -> Signature {
        let shape = self.routine.shape();
        let real = Type::Float(self.elem);
        let params = shape
            .params
            .iter()
            .map(|p| match p {
                P::Int => Type::I32,
                P::Char => Type::I8,
                P::Real => real.clone(),
                P::Array => Type::PTR,
            })
            .collect();
        let ret = match shape.ret {
            Ret::Void => Type::Void,
            Ret::Real => real,
            Ret::Int => Type::I32,
        };
        Signature::new(params, ret)
    }
}

pub struct Blas;

impl RuleFamily for Blas {
    fn name(&self) -> &'static str {
        "BLAS and LAPACK calls"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let InstKind::Call { callee: Callee::Direct(name), sig, args, .. } = &cx.func.insts[inst].kind else { return Ok(None) };
        // A body of the program's own is differentiated through, as any callee's.
        let Some(call) = lookup(name).filter(|_| cx.module.function(name).is_none()) else { return Ok(None) };
        let refuse = |what: String| Err(TransformError::at(cx.func, inst, format!("`{name}`: {what}")));
        let expected = call.expected_sig();
        if sig.params != expected.params || sig.ret != expected.ret || sig.variadic {
            return refuse(format!(
                "zyg's rule expects the declaration `{} ({})` of the reference CBLAS/LAPACKE headers with 32-bit \
                 integers; this one is `{} ({})`; include <cblas.h> or <lapacke.h> of a build with 32-bit integers",
                expected.ret,
                list(&expected.params),
                sig.ret,
                list(&sig.params)
            ));
        }
        let shape = call.routine.shape();
        for (index, what, values) in shape.enums {
            if let Some(Constant::Int { bits, value }) = cx.func.constant(args[*index]) {
                let v = sign_extend(*bits, *value);
                if !values.contains(&v) {
                    return refuse(format!("argument {} is {what}, and {v} is none of them", index + 1));
                }
            }
        }
        let activity = cx.activity;
        let carries = |a: &Value| activity.has_shadow(*a) || activity.is_active(*a);
        let inputs_carry = args.iter().enumerate().any(|(k, a)| Some(k) != shape.output && carries(a));
        if let Some(out) = shape.output.map(|k| args[k]) {
            if inputs_carry && !activity.has_shadow(out) {
                return refuse(
                    "a derivative is written into an array zyg cannot trace (memory a `const` argument reaches); pass \
                     that array with `enzyme_dup` and a shadow"
                        .to_string(),
                );
            }
            if activity.has_shadow(out) && cx.nullable.contains(out) && inputs_carry {
                return refuse(
                    "the array it writes is reached through a pointer whose shadow may be null (a pointer kept in \
                     memory, or a callee's parameter); zyg's BLAS rules need its shadow; pass that array to the \
                     function being differentiated directly"
                        .to_string(),
                );
            }
        }
        Ok(Some(Choice::Pullback(Pullback::Blas(call))))
    }

    /// The arguments, the arrays' shadows, and the copies the primal made (a callee tape).
    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        let (Pullback::Blas(call), InstKind::Call { args, .. }) = (pullback, &needs.func.insts[inst].kind) else { return };
        for &a in args {
            needs.value(a);
            needs.shadow_if_any(a);
        }
        if call.routine.shape().saves {
            needs.callee_tape(inst, Type::PTR);
        }
    }

    /// `adjoint(args, shadows, [d], [copies], active)`; its result (the float arguments'
    /// adjoints, in order) goes to the active ones.
    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Blas(call) = pullback else { return Ok(()) };
        if cx.width() > 1 {
            return Err(vector_mode(cx.func(), cx.inst, call));
        }
        let func = cx.func();
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let shape = call.routine.shape();
        let mut helper_args = Vec::new();
        for &a in args {
            helper_args.push(cx.alpha(a)?);
            if func.ty(a).is_ptr() {
                let shadow = if cx.plan().activity.has_shadow(a) { cx.shadow(a)? } else { cx.constant(Constant::Null(0)) };
                helper_args.push(shadow);
            }
        }
        if shape.ret == Ret::Real {
            let d = match cx.d {
                Some(d) => d,
                None => cx.constant(Constant::Zero(Type::Float(call.elem))),
            };
            helper_args.push(d);
        }
        if shape.saves {
            helper_args.push(cx.callee_tape()?);
        }
        let floats: Vec<Value> = args.iter().copied().filter(|a| func.ty(*a).is_float()).collect();
        let mask = active_mask(&cx.plan().activity, &floats);
        helper_args.push(cx.constant(Constant::int(32, mask)));
        let ret = match floats.len() {
            0 => Type::Void,
            1 => Type::Float(call.elem),
            n => Type::structure(vec![Type::Float(call.elem); n]),
        };
        let name = call.helper(&cx.plan().namespace, "adjoint");
        let mut c = cx.cursor();
        let sig = Signature::new(helper_args.iter().map(|v| c.func.ty(*v).clone()).collect(), ret);
        let Some(grads) = c.call(&name, sig, helper_args) else { return Ok(()) };
        if floats.len() == 1 {
            cx.accumulate(floats[0], grads);
        } else {
            for (k, a) in floats.iter().enumerate() {
                let g = cx.cursor().extract(grads, k as u32);
                cx.accumulate(*a, g);
            }
        }
        Ok(())
    }

    /// `tangent(args, a tangent after each float, a shadow after each array)`, before the
    /// call (after it for `potrf` and `potrs`); it returns the result's tangent when the
    /// result is a float.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Blas(call) = pullback else { return Ok(()) };
        if cx.width() > 1 {
            return Err(vector_mode(cx.func(), cx.inst, call));
        }
        let func = cx.func();
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let shape = call.routine.shape();
        let mut helper_args = Vec::new();
        for &a in args {
            helper_args.push(a);
            if func.ty(a).is_ptr() {
                let shadow = match cx.shadow_if_any(a) {
                    Some(s) => s,
                    None => cx.constant(Constant::Null(0)),
                };
                helper_args.push(shadow);
            } else if func.ty(a).is_float() {
                helper_args.push(cx.tangent(a));
            }
        }
        let ret = if shape.ret == Ret::Real { Type::Float(call.elem) } else { Type::Void };
        let name = call.helper(&cx.plan().namespace, "tangent");
        let (b, inst) = (cx.plan().block_of[cx.inst], cx.inst);
        let generated = cx.generated();
        let sig = Signature::new(helper_args.iter().map(|v| generated.ty(*v).clone()).collect(), ret);
        let at = crate::primal::position(generated, b, inst) + usize::from(shape.after);
        let mut c = Cursor { func: generated, block: b, at: Some(at) };
        if let Some(t) = c.call(&name, sig, helper_args) {
            cx.set(t);
        }
        Ok(())
    }
}

/// In the primal: each BLAS call whose adjoint reads arrays as they were calls its `save`
/// helper (before the call, or after it for `potrf` and `potrs`) with the arguments, each
/// array followed by its shadow (null where it has none), and which float arguments are
/// active. Returns each call's copies, its callee tape.
pub fn save_inputs(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) -> HashMap<Inst, Value> {
    let mut tapes = HashMap::new();
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Blas(call) = pullback else { continue };
        let shape = call.routine.shape();
        if !shape.saves {
            continue;
        }
        let InstKind::Call { args, .. } = plan.func.insts[inst].kind.clone() else { continue };
        let mut save_args = Vec::new();
        for &a in &args {
            save_args.push(a);
            if p.ty(a).is_ptr() {
                save_args.push(shadows.get(&a).copied().unwrap_or_else(|| p.constant_value(Constant::Null(0))));
            }
        }
        let floats: Vec<Value> = args.iter().copied().filter(|a| plan.func.ty(*a).is_float()).collect();
        save_args.push(p.constant_value(Constant::int(32, active_mask(&plan.activity, &floats))));
        let sig = Signature::new(save_args.iter().map(|v| p.ty(*v).clone()).collect(), Type::PTR);
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst) + usize::from(shape.after);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        if let Some(tape) = c.call(&call.helper(&plan.namespace, "save"), sig, save_args) {
            tapes.insert(inst, tape);
        }
    }
    tapes
}

/// Bit k set: the k-th float argument is active (its adjoint is wanted).
fn active_mask(activity: &crate::activity::Activity, floats: &[Value]) -> i128 {
    floats.iter().enumerate().filter(|(_, v)| activity.is_active(**v)).map(|(k, _)| 1i128 << k).sum()
}

fn vector_mode(func: &Function, inst: Inst, call: &BlasCall) -> TransformError {
    TransformError::at(
        func,
        inst,
        format!(
            "`{}`: vector mode (`enzyme_width`) through a BLAS or LAPACK call is not supported yet; make one request \
             per direction",
            call.name
        ),
    )
}

fn sign_extend(bits: u32, value: u128) -> i64 {
    let shift = 128 - bits.min(128);
    ((value << shift) as i128 >> shift) as i64
}

fn list(types: &[Type]) -> String {
    types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}

/// The helpers' text (`blas.zir`), for `double` and `float`.
const TEMPLATE: &str = include_str!("blas.zir");

/// The helper functions of `call` (its `save`, `adjoint` and `tangent`, and the matrix
/// loops they share, named by element type), in `namespace`.
pub fn helpers(namespace: &str, elem: FloatTy) -> Vec<Function> {
    let (real, letter, bytes) = match elem {
        FloatTy::F32 => ("float", "s", "4"),
        _ => ("double", "d", "8"),
    };
    let text = TEMPLATE
        .replace("@NS_", &format!("@__{namespace}_blas_"))
        .replace("cblas_X", &format!("cblas_{letter}"))
        .replace("LAPACKE_X", &format!("LAPACKE_{letter}"))
        .replace("_Xmat", &format!("_{letter}mat"))
        .replace("REAL", real)
        .replace("ELEMBYTES", bytes);
    let module = zyg_ir::text::parse_module(&text).expect("zyg's BLAS helpers parse");
    module
        .functions
        .into_iter()
        .map(|mut f| {
            f.linkage = zyg_ir::Linkage::Internal;
            f.attributes = vec!["nounwind".into()];
            f
        })
        .collect()
}

/// The name of a helper of the template that belongs to a routine (`save`, `adjoint`,
/// `tangent`), or None for a shared loop.
pub fn helper_routine(namespace: &str, helper: &str) -> Option<&'static str> {
    let prefix = format!("__{namespace}_blas_");
    let rest = helper.strip_prefix(&prefix)?;
    ROUTINES.iter().map(|(n, ..)| *n).find(|n| rest.strip_prefix(n).is_some_and(|r| r.starts_with('_')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_parse_and_cover_every_routine() {
        for elem in [FloatTy::F64, FloatTy::F32] {
            let fs = helpers("zyg", elem);
            for (name, routine, e) in ROUTINES {
                if *e != elem {
                    continue;
                }
                let call = BlasCall { routine: *routine, elem, name };
                let mut wanted = vec!["adjoint", "tangent"];
                if routine.shape().saves {
                    wanted.push("save");
                }
                for which in wanted {
                    let helper = call.helper("zyg", which);
                    let f = fs.iter().find(|f| f.name == helper).unwrap_or_else(|| panic!("{helper} missing"));
                    zyg_ir::verify(f).unwrap_or_else(|e| panic!("{helper}: {e}"));
                }
            }
            for f in &fs {
                zyg_ir::verify(f).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            }
        }
    }
}
