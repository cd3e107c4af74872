//! Adjoints of memory accesses through vectors of pointers, `llvm.masked.gather` and
//! `llvm.masked.scatter` (clang's vectorised indexed accesses, and loads of one address in
//! every lane, with AVX-512), and of `llvm.vector.reduce.fmul`.
//!
//! The shadow of a vector of pointers is the vector of the lanes' shadow pointers (the
//! primal computes it beside the pointers, `primal::shadow_instructions`). Lanes may share
//! an address, so the adjoints go lane by lane, never through a gather or scatter of their
//! own: a gather from a splat of one pointer reads the same element in every lane, and each
//! lane's adjoint must be added to it (a scatter of the sums would keep one). A lane whose
//! mask bit is clear touches no memory in the primal, and its pointer may be anything: its
//! adjoint's memory operation goes to a scratch slot (`sink`) instead, so that the code
//! needs no branch per lane.

use crate::builder::Cursor;
use zyg_ir::{BinOp, CastOp, Constant, Type, Value};

/// The adjoint of `gather(ptrs, mask, passthru)` with result adjoint `d`, given the shadow
/// pointers: each active lane's adjoint is added into its shadow address, in lane order
/// (atomically where other threads may add there too). Returns the adjoint of `passthru`:
/// the lanes of `d` whose mask bit is clear.
pub fn gather_adjoint(c: &mut Cursor, shadows: Option<Value>, mask: Value, d: Value, sink: Value, atomic: bool) -> Value {
    let Type::Vector(n, elem) = c.func.ty(d).clone() else { unreachable!("a gather returns a vector") };
    if let Some(shadows) = shadows {
        for lane in 0..n {
            let i = c.i32(i64::from(lane));
            let at = lane_address(c, shadows, mask, i, sink);
            let part = c.extract_element(d, i);
            if atomic {
                c.atomic_add_into(at, &elem, part);
            } else {
                c.add_into(at, &elem, part);
            }
        }
    }
    let zero = c.constant(Constant::Zero(c.func.ty(d).clone()));
    c.select(mask, zero, d)
}

/// The adjoint of `scatter(value, ptrs, mask)`, given the shadow pointers: each active
/// lane takes the adjoint at its shadow address and zeroes it there, from the last lane to
/// the first. Where lanes share an address, the primal's last write (the highest lane)
/// survived: that lane takes the adjoint, and the lanes before it find 0. Returns the
/// adjoint of `value`, or None when it holds no floats (integer lanes overwrote whatever
/// floats were there: their shadows are zeroed all the same).
pub fn scatter_adjoint(c: &mut Cursor, value_ty: &Type, shadows: Value, mask: Value, sink: Value) -> Option<Value> {
    let Type::Vector(n, elem) = value_ty.clone() else { unreachable!("a scatter stores a vector") };
    let zero = c.constant(Constant::Zero((*elem).clone()));
    let mut dvalue = c.constant(Constant::Zero(value_ty.clone()));
    for lane in (0..n).rev() {
        let i = c.i32(i64::from(lane));
        let at = lane_address(c, shadows, mask, i, sink);
        if elem.carries_derivative() {
            let part = c.take_from(at, &elem, crate::builder::Cleared::Visible);
            let on = c.extract_element(mask, i);
            let part = c.select(on, part, zero);
            dvalue = c.insert_element(dvalue, part, i);
        } else {
            c.store(zero, at);
        }
    }
    elem.carries_derivative().then_some(dvalue)
}

/// Lane `i`'s shadow address where its mask bit is set, `sink` where it is clear (in the
/// default address space, the sink's).
fn lane_address(c: &mut Cursor, shadows: Value, mask: Value, i: Value, sink: Value) -> Value {
    let mut ptr = c.extract_element(shadows, i);
    if *c.func.ty(ptr) != Type::PTR {
        ptr = c.cast(CastOp::AddrSpaceCast, ptr, Type::PTR);
    }
    let on = c.extract_element(mask, i);
    // A null shadow lane (memory that is not differentiated, `shadows`) goes to the sink
    // like a masked-off one.
    let missing = crate::shadows::is_null(c, ptr);
    let present = c.not(missing);
    let on = c.binary(zyg_ir::BinOp::And, on, present);
    c.select(on, ptr, sink)
}

/// The adjoints of `reduce.fmul(start, v) = start · v[0] · ... · v[n-1]` with result
/// adjoint `d`: d times the product of all the other factors, for `start` and each lane,
/// from prefix and suffix products (no division, so zero lanes are exact). Returns the
/// adjoints of `start` and of `v`.
/// The tangent of `llvm.vector.reduce.fmul(start, v)`, the product `start · v[0] · ...`
/// in that order: the product rule one factor at a time (`t = t · v[k] + p · dv[k]`,
/// `p = p · v[k]`), exact where factors are zero.
pub fn reduce_fmul_tangent(c: &mut Cursor, start: Value, v: Value, dstart: Value, dv: Value) -> Value {
    let Type::Vector(n, _) = c.func.ty(v).clone() else { unreachable!("a reduction of a vector") };
    let (mut p, mut t) = (start, dstart);
    for lane in 0..n {
        let i = c.i32(i64::from(lane));
        let x = c.extract_element(v, i);
        let dx = c.extract_element(dv, i);
        let scaled = c.binary(BinOp::FMul, t, x);
        let moved = c.binary(BinOp::FMul, p, dx);
        t = c.binary(BinOp::FAdd, scaled, moved);
        p = c.binary(BinOp::FMul, p, x);
    }
    t
}

pub fn reduce_fmul_adjoint(c: &mut Cursor, start: Value, v: Value, d: Value) -> (Value, Value) {
    let Type::Vector(n, _) = c.func.ty(v).clone() else { unreachable!("a reduction of a vector") };
    let lanes: Vec<Value> = (0..n)
        .map(|lane| {
            let i = c.i32(i64::from(lane));
            c.extract_element(v, i)
        })
        .collect();
    // before[k] = start · v[0..k]; after[k] = v[k+1..n].
    let mut before = vec![start];
    for &x in &lanes {
        let last = *before.last().expect("start");
        before.push(c.binary(BinOp::FMul, last, x));
    }
    let one = c.constant(Constant::float_like(c.func.ty(start), 1.0).expect("a float reduction"));
    let mut after = vec![one; n as usize + 1];
    for k in (0..n as usize).rev() {
        after[k] = if k + 1 == n as usize { one } else { c.binary(BinOp::FMul, lanes[k + 1], after[k + 1]) };
    }
    // The product of all the lanes, start's factor.
    let all = if n == 0 { one } else { c.binary(BinOp::FMul, lanes[0], after[0]) };
    let dstart = c.binary(BinOp::FMul, d, all);
    let mut dv = c.constant(Constant::Zero(c.func.ty(v).clone()));
    for k in 0..n as usize {
        let others = c.binary(BinOp::FMul, before[k], after[k]);
        let part = c.binary(BinOp::FMul, d, others);
        let i = c.i32(k as i64);
        dv = c.insert_element(dv, part, i);
    }
    (dstart, dv)
}
