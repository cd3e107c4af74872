//! The vector family: lanes (`extractelement`, `insertelement`, `shufflevector`), the
//! vector reductions (`llvm.vector.reduce.fadd/fmul/fmax/fmin/fmaximum/fminimum`), and
//! memory accesses under a mask or through a vector of pointers (`llvm.masked.load/store`,
//! clang's vectorised conditionals with AVX; `llvm.masked.gather/scatter`, whose lane by
//! lane adjoints are in `crate::gather`).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::{empty_sum, Reverse};
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::{BinOp, Callee, Constant, Inst, InstKind, Signature, Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorOp {
    /// extractelement, insertelement, shufflevector: adjoints move between lanes.
    Lanes,
    /// `llvm.vector.reduce.fadd(start, v)`: the adjoint goes to `start` and every lane.
    ReduceFAdd,
    /// `llvm.vector.reduce.fmul(start, v)`: each factor gets the product of the others.
    ReduceFMul,
    /// `llvm.vector.reduce.fmax/fmin/fmaximum/fminimum(v)`: the adjoint goes to the first
    /// lane that holds the result.
    ReduceMinMax,
    /// `llvm.masked.load(ptr, mask, passthru)` and `llvm.masked.store(value, ptr, mask)`:
    /// load and store, lane by lane under the mask; a masked-off lane of a load takes
    /// `passthru`.
    MaskedLoad,
    MaskedStore,
    /// `llvm.masked.gather(ptrs, mask, passthru)` and `llvm.masked.scatter(value, ptrs,
    /// mask)`: loads and stores through a vector of pointers, lane by lane (`gather`).
    Gather,
    Scatter,
}

/// The intrinsics of the family: name prefix, argument count, pullback.
const INTRINSICS: &[(&str, usize, VectorOp)] = &[
    ("llvm.vector.reduce.fadd.", 2, VectorOp::ReduceFAdd),
    ("llvm.vector.reduce.fmul.", 2, VectorOp::ReduceFMul),
    ("llvm.vector.reduce.fmax.", 1, VectorOp::ReduceMinMax),
    ("llvm.vector.reduce.fmin.", 1, VectorOp::ReduceMinMax),
    ("llvm.vector.reduce.fmaximum.", 1, VectorOp::ReduceMinMax),
    ("llvm.vector.reduce.fminimum.", 1, VectorOp::ReduceMinMax),
    ("llvm.masked.load.", 3, VectorOp::MaskedLoad),
    ("llvm.masked.store.", 3, VectorOp::MaskedStore),
    ("llvm.masked.gather.", 3, VectorOp::Gather),
    ("llvm.masked.scatter.", 3, VectorOp::Scatter),
];

pub struct Vectors;

impl RuleFamily for Vectors {
    fn name(&self) -> &'static str {
        "vectors"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let op = match &cx.func.insts[inst].kind {
            InstKind::ExtractElement { .. } | InstKind::InsertElement { .. } | InstKind::ShuffleVector { .. } => {
                Some(VectorOp::Lanes)
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. } => {
                INTRINSICS.iter().find(|(prefix, n, _)| name.starts_with(prefix) && *n == args.len()).map(|(_, _, op)| *op)
            }
            _ => None,
        };
        Ok(op.map(|op| Choice::Pullback(Pullback::Vector(op))))
    }

    /// Stores (masked, scattered) move the adjoint in memory; the rest only the result's.
    fn only_moves_the_result(&self, pullback: &Pullback) -> bool {
        !matches!(pullback, Pullback::Vector(VectorOp::MaskedStore | VectorOp::Scatter))
    }

    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        let Pullback::Vector(op) = pullback else { return };
        let func = needs.func;
        match (op, &func.insts[inst].kind) {
            (VectorOp::Lanes, InstKind::ExtractElement { index, .. } | InstKind::InsertElement { index, .. }) => {
                needs.value(*index);
            }
            (VectorOp::Lanes, _) => {}
            (VectorOp::ReduceFAdd, _) => {}
            (VectorOp::ReduceFMul, InstKind::Call { args, .. }) => args.iter().for_each(|v| needs.value(*v)),
            (VectorOp::ReduceMinMax, InstKind::Call { args, .. }) => {
                needs.any_value(args[0]);
                needs.any_value(func.result(inst).expect("a reduction result"));
            }
            (_, InstKind::Call { args, .. }) => {
                // A gather's and a scatter's operands sit where a masked load's and store's do.
                let (ptr, mask) =
                    if matches!(op, VectorOp::MaskedLoad | VectorOp::Gather) { (args[0], args[1]) } else { (args[1], args[2]) };
                needs.shadow_if_any(ptr);
                needs.value(mask);
            }
            _ => {}
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Vector(op) = pullback else { return Ok(()) };
        if *op == VectorOp::Lanes {
            return lanes(cx);
        }
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        match op {
            VectorOp::Lanes => Ok(()),
            VectorOp::ReduceFAdd => reduce_fadd(cx, args[0], args[1]),
            VectorOp::ReduceFMul => reduce_fmul(cx, args[0], args[1]),
            VectorOp::ReduceMinMax => reduce_min_max(cx, args[0]),
            VectorOp::MaskedLoad => masked_load_adjoint(cx, args[0], args[1], args[2]),
            VectorOp::MaskedStore => masked_store_adjoint(cx, args[0], args[1], args[2]),
            VectorOp::Gather => gather(cx, args[0], args[1], args[2]),
            VectorOp::Scatter => scatter(cx, args[0], args[1], args[2]),
        }
    }

    /// Forward mode: lane moves, sums and memory accesses under a mask are linear, so the
    /// tangent is the same operation on the operands' tangents (and on the shadows of the
    /// pointers accessed). A product of lanes takes the product rule lane by lane; a minimum
    /// or maximum the tangent of the lane the reverse rule gives the adjoint to.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Vector(op) = pullback else { return Ok(()) };
        let func = cx.func();
        let mut kind = cx.kind().clone();
        let result_ty = cx.result.map(|v| func.ty(v).clone());
        match (op, &mut kind) {
            (VectorOp::Lanes, InstKind::ExtractElement { vec, .. }) => *vec = cx.tangent(*vec),
            (VectorOp::Lanes, InstKind::InsertElement { vec, value, .. }) => {
                *vec = cx.tangent(*vec);
                *value = cx.tangent(*value);
            }
            (VectorOp::Lanes, InstKind::ShuffleVector { a, b, .. }) => {
                *a = cx.tangent(*a);
                *b = cx.tangent(*b);
            }
            (VectorOp::ReduceFAdd, InstKind::Call { args, .. }) => {
                args[0] = cx.tangent(args[0]);
                args[1] = cx.tangent(args[1]);
            }
            (VectorOp::ReduceFMul, InstKind::Call { args, .. }) => {
                let (start, v) = (args[0], args[1]);
                let (dstart, dv) = (cx.tangent(start), cx.tangent(v));
                let t = crate::gather::reduce_fmul_tangent(&mut cx.cursor(), start, v, dstart, dv);
                if cx.result.is_some() {
                    cx.set(t);
                }
                return Ok(());
            }
            (VectorOp::ReduceMinMax, InstKind::Call { args, .. }) => {
                let Some(best) = cx.result else { return Ok(()) };
                let (v, dv) = (args[0], cx.tangent(args[0]));
                let t = min_max_tangent(&mut cx.cursor(), v, dv, best);
                cx.set(t);
                return Ok(());
            }
            // (ptr, mask, passthru) and (ptrs, mask, passthru)
            (VectorOp::MaskedLoad | VectorOp::Gather, InstKind::Call { args, .. }) => {
                args[0] = tangent_shadow(cx, args[0])?;
                args[2] = cx.tangent(args[2]);
            }
            // (value, ptr, mask) and (value, ptrs, mask)
            (VectorOp::MaskedStore | VectorOp::Scatter, InstKind::Call { args, .. }) => {
                args[0] = cx.tangent(args[0]);
                args[1] = tangent_shadow(cx, args[1])?;
            }
            _ => return Err(TransformError::at(func, cx.inst, "internal error: a vector operation without its operands")),
        }
        let ty = match &kind {
            InstKind::Call { sig, .. } => sig.ret.clone(),
            _ => result_ty.unwrap_or(Type::Void),
        };
        let made = cx.cursor().emit(kind, ty);
        if let Some(t) = made.filter(|_| cx.result.is_some()) {
            cx.set(t);
        }
        Ok(())
    }
}

/// The shadow a masked access goes through in forward mode; a shadow that may be null is
/// refused (a masked access has no scratch slot to go to).
fn tangent_shadow(cx: &mut Tangent, ptr: Value) -> Result<Value, TransformError> {
    if cx.plan().nullable.contains(ptr) {
        return Err(TransformError::at(
            cx.func(),
            cx.inst,
            "forward mode does not handle a masked access through memory whose shadow may be null yet; use reverse mode",
        ));
    }
    Ok(cx.shadow(ptr)?.0)
}

/// The adjoints of extractelement (into one lane), insertelement (one lane out, the rest
/// through) and shufflevector (each output lane back to the lane it came from).
fn lanes(cx: &mut Reverse) -> Result<(), TransformError> {
    let d = cx.d.expect("lane instructions are visited for an active result");
    let func = cx.func();
    match cx.kind() {
        InstKind::ExtractElement { vec, index } => {
            let index = cx.alpha(*index)?;
            let mut c = cx.cursor();
            let empty = c.constant(empty_sum(func.ty(*vec).clone()));
            let spread = c.insert_element(empty, d, index);
            cx.accumulate(*vec, spread);
        }
        InstKind::InsertElement { vec, value, index } => {
            let index = cx.alpha(*index)?;
            let elem = func.ty(*value).clone();
            let mut c = cx.cursor();
            let lane = c.extract_element(d, index);
            let empty = c.constant(empty_sum(elem));
            let rest = c.insert_element(d, empty, index);
            cx.accumulate(*value, lane);
            cx.accumulate(*vec, rest);
        }
        InstKind::ShuffleVector { a, b, mask } => {
            let Type::Vector(n, _) = func.ty(*a).clone() else { return Ok(()) };
            let mut c = cx.cursor();
            let empty = c.constant(empty_sum(func.ty(*a).clone()));
            let (mut da, mut db) = (empty, empty);
            for (k, &m) in mask.iter().enumerate().filter(|(_, m)| **m >= 0) {
                let k = c.i32(k as i64);
                let part = c.extract_element(d, k);
                let (target, lane) = if (m as u32) < n { (&mut da, m) } else { (&mut db, m - n as i32) };
                let lane = c.i32(i64::from(lane));
                let old = c.extract_element(*target, lane);
                let sum = c.binary(BinOp::FAdd, old, part);
                *target = c.insert_element(*target, sum, lane);
            }
            cx.accumulate(*a, da);
            cx.accumulate(*b, db);
        }
        _ => {}
    }
    Ok(())
}

fn reduce_fadd(cx: &mut Reverse, start: Value, vec: Value) -> Result<(), TransformError> {
    let d = cx.d.expect("a reduction is visited for an active result");
    cx.accumulate(start, d);
    if let Type::Vector(n, _) = cx.func().ty(vec).clone() {
        let spread = splat(&mut cx.cursor(), d, n);
        cx.accumulate(vec, spread);
    }
    Ok(())
}

fn reduce_fmul(cx: &mut Reverse, start: Value, vec: Value) -> Result<(), TransformError> {
    let d = cx.d.expect("a reduction is visited for an active result");
    let (start_value, vec_value) = (cx.alpha(start)?, cx.alpha(vec)?);
    let (dstart, dvec) = crate::gather::reduce_fmul_adjoint(&mut cx.cursor(), start_value, vec_value, d);
    cx.accumulate(start, dstart);
    cx.accumulate(vec, dvec);
    Ok(())
}

fn reduce_min_max(cx: &mut Reverse, vec: Value) -> Result<(), TransformError> {
    let d = cx.d.expect("a reduction is visited for an active result");
    let vec_ty = cx.func().ty(vec).clone();
    let Type::Vector(n, elem) = vec_ty.clone() else { return Ok(()) };
    let (lanes, best) = (cx.alpha(vec)?, cx.alpha(cx.result.expect("active result"))?);
    let mut c = cx.cursor();
    let zero = c.constant(empty_sum((*elem).clone()));
    let mut dvec = c.constant(empty_sum(vec_ty));
    for (lane, take) in (0..n).zip(first_holder(&mut c, lanes, best)) {
        let i = c.i32(i64::from(lane));
        let part = c.select(take, d, zero);
        dvec = c.insert_element(dvec, part, i);
    }
    cx.accumulate(vec, dvec);
    Ok(())
}

/// The tangent of `llvm.vector.reduce.fmax/fmin/...(v) = best`: that of the first lane
/// holding `best` (the lane `reduce_min_max` gives the adjoint to); 0 when none does (NaN).
fn min_max_tangent(c: &mut Cursor, v: Value, dv: Value, best: Value) -> Value {
    let Type::Vector(n, elem) = c.func.ty(v).clone() else { unreachable!("a reduction of a vector") };
    let mut t = c.constant(Constant::Zero((*elem).clone()));
    for (lane, take) in (0..n).zip(first_holder(c, v, best)) {
        let i = c.i32(i64::from(lane));
        let dx = c.extract_element(dv, i);
        t = c.select(take, dx, t);
    }
    t
}

/// Per lane of `v`, whether it is the first lane equal to `best`: lane by lane, so that a
/// tie gives the derivative to one lane only.
fn first_holder(c: &mut Cursor, v: Value, best: Value) -> Vec<Value> {
    let Type::Vector(n, _) = c.func.ty(v).clone() else { unreachable!("a reduction of a vector") };
    let mut found = c.constant(Constant::bool(false));
    let mut takes = Vec::new();
    for lane in 0..n {
        let i = c.i32(i64::from(lane));
        let x = c.extract_element(v, i);
        let hit = c.fcmp(zyg_ir::FloatPred::Oeq, x, best);
        let not_found = c.not(found);
        takes.push(c.binary(BinOp::And, hit, not_found));
        found = c.binary(BinOp::Or, found, hit);
    }
    takes
}

fn masked_load_adjoint(cx: &mut Reverse, ptr: Value, mask: Value, passthru: Value) -> Result<(), TransformError> {
    let d = cx.d.expect("a masked load is visited for an active result");
    let ty = cx.func().ty(passthru).clone();
    let mask = cx.alpha(mask)?;
    if cx.plan().activity.has_shadow(ptr) {
        let shadow = cx.shadow(ptr)?;
        let mut c = cx.cursor();
        let zero = c.constant(Constant::Zero(ty.clone()));
        let old = masked_load(&mut c, shadow, mask, zero);
        let new = c.binary(BinOp::FAdd, old, d);
        masked_store(&mut c, new, shadow, mask);
    }
    let mut c = cx.cursor();
    let empty = c.constant(empty_sum(ty));
    let rest = c.select(mask, empty, d);
    cx.accumulate(passthru, rest);
    Ok(())
}

fn masked_store_adjoint(cx: &mut Reverse, value: Value, ptr: Value, mask: Value) -> Result<(), TransformError> {
    let ty = cx.func().ty(value).clone();
    let mask = cx.alpha(mask)?;
    let shadow = cx.shadow(ptr)?;
    let mut c = cx.cursor();
    let zero = c.constant(Constant::Zero(ty));
    let d = masked_load(&mut c, shadow, mask, zero);
    masked_store(&mut c, zero, shadow, mask);
    cx.accumulate(value, d);
    Ok(())
}

fn gather(cx: &mut Reverse, ptrs: Value, mask: Value, passthru: Value) -> Result<(), TransformError> {
    // A gather of integers from differentiated memory: nothing flows.
    let Some(d) = cx.d else { return Ok(()) };
    let mask = cx.alpha(mask)?;
    let shadows = if cx.plan().activity.has_shadow(ptrs) { Some(cx.shadow(ptrs)?) } else { None };
    let sink = cx.sink(&lane_type(cx.func().ty(passthru)));
    let atomic = cx.plan().thread_private.is_some();
    let rest = crate::gather::gather_adjoint(&mut cx.cursor(), shadows, mask, d, sink, atomic);
    cx.accumulate(passthru, rest);
    Ok(())
}

fn scatter(cx: &mut Reverse, value: Value, ptrs: Value, mask: Value) -> Result<(), TransformError> {
    let ty = cx.func().ty(value).clone();
    let mask = cx.alpha(mask)?;
    let shadows = cx.shadow(ptrs)?;
    let sink = cx.sink(&lane_type(&ty));
    if let Some(dvalue) = crate::gather::scatter_adjoint(&mut cx.cursor(), &ty, shadows, mask, sink) {
        cx.accumulate(value, dvalue);
    }
    Ok(())
}

/// The type of one lane of a vector type.
fn lane_type(ty: &Type) -> Type {
    match ty {
        Type::Vector(_, elem) => (**elem).clone(),
        other => other.clone(),
    }
}

/// A vector of `n` copies of `scalar`.
pub fn splat(c: &mut Cursor, scalar: Value, n: u32) -> Value {
    let ty = Type::Vector(n, c.func.ty(scalar).clone().into());
    let mut v = c.constant(Constant::Poison(ty));
    for lane in 0..n {
        let i = c.i32(i64::from(lane));
        v = c.insert_element(v, scalar, i);
    }
    v
}

/// `llvm.masked.load(ptr, mask, passthru)` of the passthru's vector type.
fn masked_load(c: &mut Cursor, ptr: Value, mask: Value, passthru: Value) -> Value {
    let ty = c.func.ty(passthru).clone();
    let sig = Signature::new(vec![Type::PTR, c.func.ty(mask).clone(), ty.clone()], ty.clone());
    let name = format!("llvm.masked.load.{}.p0", ty.mangled().expect("a float vector"));
    c.call(&name, sig, vec![ptr, mask, passthru]).expect("a vector")
}

/// `llvm.masked.store(value, ptr, mask)`.
fn masked_store(c: &mut Cursor, value: Value, ptr: Value, mask: Value) {
    let ty = c.func.ty(value).clone();
    let sig = Signature::new(vec![ty.clone(), Type::PTR, c.func.ty(mask).clone()], Type::Void);
    let name = format!("llvm.masked.store.{}.p0", ty.mangled().expect("a float vector"));
    c.call(&name, sig, vec![value, ptr, mask]);
}
