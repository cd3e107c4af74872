//! Arithmetic, comparisons and casts, with LLVM's semantics: integers wrap, floats are
//! IEEE, vectors work lane by lane.

use super::value::{from_bytes, mask, signed, to_bytes, Val};
use super::InterpError;
use crate::inst::{BinOp, CastOp, FloatPred, IntPred};
use crate::types::{FloatTy, Type};
use std::cmp::Ordering;

fn malformed(what: &str, v: &Val) -> InterpError {
    InterpError::Malformed(format!("{what} of {v:?}"))
}

/// Applies `f` to each lane of two vectors, or to two scalars.
fn lanes2(a: &Val, b: &Val, f: &dyn Fn(&Val, &Val) -> Result<Val, InterpError>) -> Result<Val, InterpError> {
    match (a, b) {
        (Val::Vector(x), Val::Vector(y)) if x.len() == y.len() => {
            Ok(Val::Vector(x.iter().zip(y).map(|(p, q)| f(p, q)).collect::<Result<_, _>>()?))
        }
        _ => f(a, b),
    }
}

/// Applies `f` to each lane of a vector, or to a scalar; `ty` is the result's (lane) type.
fn lanes1(a: &Val, ty: &Type, f: &dyn Fn(&Val, &Type) -> Result<Val, InterpError>) -> Result<Val, InterpError> {
    match (a, ty) {
        (Val::Vector(x), Type::Vector(_, e)) => Ok(Val::Vector(x.iter().map(|p| f(p, e)).collect::<Result<_, _>>()?)),
        _ => f(a, ty),
    }
}

pub fn binary(op: BinOp, a: &Val, b: &Val) -> Result<Val, InterpError> {
    lanes2(a, b, &|a, b| match (a, b) {
        (Val::F64(x), Val::F64(y)) => Ok(Val::F64(float_op(op, *x, *y)?)),
        (Val::F32(x), Val::F32(y)) => Ok(Val::F32(float_op(op, f64::from(*x), f64::from(*y))? as f32)),
        (Val::Int { bits, value: x }, Val::Int { bits: w, value: y }) if bits == w => {
            Ok(Val::Int { bits: *bits, value: mask(*bits, int_op(op, *bits, *x, *y)?) })
        }
        _ => Err(InterpError::Malformed(format!("{} of {a:?} and {b:?}", op.name()))),
    })
}

/// A float operation, computed in f64: exact for f32 operands once rounded back (the
/// operations are correctly rounded and f64 has more than twice f32's precision).
fn float_op(op: BinOp, x: f64, y: f64) -> Result<f64, InterpError> {
    Ok(match op {
        BinOp::FAdd => x + y,
        BinOp::FSub => x - y,
        BinOp::FMul => x * y,
        BinOp::FDiv => x / y,
        BinOp::FRem => x % y,
        _ => return Err(InterpError::Malformed(format!("{} of floats", op.name()))),
    })
}

fn int_op(op: BinOp, bits: u32, x: u128, y: u128) -> Result<u128, InterpError> {
    let (sx, sy) = (signed(bits, x), signed(bits, y));
    let nonzero = |d: u128| if d == 0 { Err(InterpError::DivisionByZero) } else { Ok(d) };
    // A shift by the width or more is poison in LLVM; here it gives 0.
    let shift = |f: &dyn Fn(u32) -> u128| if y >= u128::from(bits) { 0 } else { f(y as u32) };
    Ok(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::UDiv => x / nonzero(y)?,
        BinOp::URem => x % nonzero(y)?,
        BinOp::SDiv => {
            nonzero(y)?;
            sx.wrapping_div(sy) as u128
        }
        BinOp::SRem => {
            nonzero(y)?;
            sx.wrapping_rem(sy) as u128
        }
        BinOp::Shl => shift(&|s| x << s),
        BinOp::LShr => shift(&|s| x >> s),
        BinOp::AShr => shift(&|s| (sx >> s) as u128),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        _ => return Err(InterpError::Malformed(format!("{} of integers", op.name()))),
    })
}

pub fn fneg(a: &Val) -> Result<Val, InterpError> {
    lanes1(a, &Type::Void, &|a, _| match a {
        Val::F64(x) => Ok(Val::F64(-x)),
        Val::F32(x) => Ok(Val::F32(-x)),
        _ => Err(malformed("fneg", a)),
    })
}

pub fn fcmp(pred: FloatPred, a: &Val, b: &Val) -> Result<Val, InterpError> {
    lanes2(a, b, &|a, b| {
        let (x, y) = match (a, b) {
            (Val::F64(x), Val::F64(y)) => (*x, *y),
            (Val::F32(x), Val::F32(y)) => (f64::from(*x), f64::from(*y)),
            _ => return Err(malformed("fcmp", a)),
        };
        Ok(Val::bool(float_pred(pred, x.partial_cmp(&y))))
    })
}

/// Whether `pred` holds for operands that compare as `ord` (None: one is NaN).
fn float_pred(pred: FloatPred, ord: Option<Ordering>) -> bool {
    use FloatPred::*;
    use Ordering::{Equal, Greater, Less};
    let Some(o) = ord else {
        return matches!(pred, Uno | Ueq | Ugt | Uge | Ult | Ule | Une | True);
    };
    match pred {
        False | Uno => false,
        True | Ord => true,
        Oeq | Ueq => o == Equal,
        Ogt | Ugt => o == Greater,
        Oge | Uge => o != Less,
        Olt | Ult => o == Less,
        Ole | Ule => o != Greater,
        One | Une => o != Equal,
    }
}

pub fn icmp(pred: IntPred, a: &Val, b: &Val) -> Result<Val, InterpError> {
    lanes2(a, b, &|a, b| {
        let (bits, x, y) = match (a, b) {
            (Val::Int { bits, value: x }, Val::Int { value: y, .. }) => (*bits, *x, *y),
            (Val::Ptr(x), Val::Ptr(y)) => (64, u128::from(*x), u128::from(*y)),
            _ => return Err(malformed("icmp", a)),
        };
        let (sx, sy) = (signed(bits, x), signed(bits, y));
        Ok(Val::bool(match pred {
            IntPred::Eq => x == y,
            IntPred::Ne => x != y,
            IntPred::Ugt => x > y,
            IntPred::Uge => x >= y,
            IntPred::Ult => x < y,
            IntPred::Ule => x <= y,
            IntPred::Sgt => sx > sy,
            IntPred::Sge => sx >= sy,
            IntPred::Slt => sx < sy,
            IntPred::Sle => sx <= sy,
        }))
    })
}

pub fn cast(op: CastOp, a: &Val, from: &Type, to: &Type) -> Result<Val, InterpError> {
    if [from, to].iter().any(|t| t.float_elem() == Some(FloatTy::X86Fp80)) {
        return Err(InterpError::Unsupported("x86_fp80 values".into()));
    }
    if op == CastOp::BitCast {
        // Through the bytes: a float's bits as an integer, a vector's lanes as one wider value.
        return from_bytes(&to_bytes(a, from)?, to);
    }
    lanes1(a, to, &|a, to| scalar_cast(op, a, to))
}

fn scalar_cast(op: CastOp, a: &Val, to: &Type) -> Result<Val, InterpError> {
    let bad = || InterpError::Malformed(format!("{} of {a:?} to {to}", op.name()));
    let float = |x: f64| match to {
        Type::Float(FloatTy::F64) => Ok(Val::F64(x)),
        Type::Float(FloatTy::F32) => Ok(Val::F32(x as f32)),
        _ => Err(bad()),
    };
    let int = |value: u128| match to {
        Type::Int(bits) => Ok(Val::Int { bits: *bits, value: mask(*bits, value) }),
        _ => Err(bad()),
    };
    match (op, a) {
        (CastOp::FPExt | CastOp::FPTrunc, Val::F32(_) | Val::F64(_)) => float(a.as_f64().ok_or_else(bad)?),
        // Rounded once: an integer to f32 directly, not through f64.
        (CastOp::UIToFP, Val::Int { value, .. }) if matches!(to, Type::Float(FloatTy::F32)) => Ok(Val::F32(*value as f32)),
        (CastOp::SIToFP, Val::Int { bits, value }) if matches!(to, Type::Float(FloatTy::F32)) => {
            Ok(Val::F32(signed(*bits, *value) as f32))
        }
        (CastOp::SIToFP, Val::Int { bits, value }) => float(signed(*bits, *value) as f64),
        (CastOp::UIToFP, Val::Int { value, .. }) => float(*value as f64),
        // Out of range is poison in LLVM; here it saturates.
        (CastOp::FPToSI, Val::F32(_) | Val::F64(_)) => int(a.as_f64().ok_or_else(bad)? as i128 as u128),
        (CastOp::FPToUI, Val::F32(_) | Val::F64(_)) => int(a.as_f64().ok_or_else(bad)? as u128),
        (CastOp::ZExt | CastOp::Trunc, Val::Int { value, .. }) => int(*value),
        (CastOp::SExt, Val::Int { bits, value }) => int(signed(*bits, *value) as u128),
        (CastOp::PtrToInt, Val::Ptr(p)) => int(u128::from(*p)),
        (CastOp::IntToPtr, Val::Int { value, .. }) => Ok(Val::Ptr(*value as u64)),
        (CastOp::AddrSpaceCast, Val::Ptr(p)) => Ok(Val::Ptr(*p)),
        _ => Err(bad()),
    }
}
