//! The interpreter's values, their bytes in memory, and the layout of types.

use super::InterpError;
use crate::constant::Constant;
use crate::types::{FloatTy, Type};

/// A run-time value of zyg-ir.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// An integer of `bits` width (1 to 128), its bits zero-extended into `value`.
    Int {
        bits: u32,
        value: u128,
    },
    F32(f32),
    F64(f64),
    /// An address in the interpreter's heap (0 is null), or a function's address.
    Ptr(u64),
    Vector(Vec<Val>),
    /// A struct or an array, field by field.
    Agg(Vec<Val>),
}

/// The bits of an integer of width `bits`, the rest cleared.
pub(crate) fn mask(bits: u32, value: u128) -> u128 {
    if bits >= 128 {
        value
    } else {
        value & ((1u128 << bits) - 1)
    }
}

/// `value` of width `bits`, sign-extended.
pub(crate) fn signed(bits: u32, value: u128) -> i128 {
    let shift = 128 - bits.clamp(1, 128);
    ((value as i128) << shift) >> shift
}

impl Val {
    pub fn f64(x: f64) -> Val {
        Val::F64(x)
    }

    pub fn f32(x: f32) -> Val {
        Val::F32(x)
    }

    /// An integer of width `bits` holding `value` (truncated to the width).
    pub fn int(bits: u32, value: i128) -> Val {
        Val::Int { bits, value: mask(bits, value as u128) }
    }

    pub fn i32(value: i32) -> Val {
        Val::int(32, value.into())
    }

    pub fn i64(value: i64) -> Val {
        Val::int(64, value.into())
    }

    pub fn bool(value: bool) -> Val {
        Val::int(1, value.into())
    }

    /// The value of a float (an f32 widened), if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::F64(x) => Some(*x),
            Val::F32(x) => Some(f64::from(*x)),
            _ => None,
        }
    }

    /// The value of an integer, sign-extended from its width.
    pub fn as_i128(&self) -> Option<i128> {
        match self {
            Val::Int { bits, value } => Some(signed(*bits, *value)),
            _ => None,
        }
    }

    /// The bits of an integer, zero-extended.
    pub fn as_u128(&self) -> Option<u128> {
        match self {
            Val::Int { value, .. } => Some(*value),
            _ => None,
        }
    }

    pub fn as_ptr(&self) -> Option<u64> {
        match self {
            Val::Ptr(a) => Some(*a),
            _ => None,
        }
    }

    /// The fields of a struct or array, or the lanes of a vector.
    pub fn elements(&self) -> Option<&[Val]> {
        match self {
            Val::Vector(v) | Val::Agg(v) => Some(v),
            _ => None,
        }
    }

    /// The zero of a type (also what `undef`, `poison` and `zeroinitializer` are here).
    pub fn zero(ty: &Type) -> Result<Val, InterpError> {
        Ok(match ty {
            Type::Int(bits) => Val::Int { bits: *bits, value: 0 },
            Type::Float(FloatTy::F32) => Val::F32(0.0),
            Type::Float(FloatTy::F64) => Val::F64(0.0),
            Type::Float(FloatTy::X86Fp80) => return Err(fp80()),
            Type::Ptr(_) => Val::Ptr(0),
            Type::Vector(n, e) => Val::Vector(vec![Val::zero(e)?; *n as usize]),
            Type::Array(n, e) => Val::Agg(vec![Val::zero(e)?; usize::try_from(*n).map_err(|_| too_big(ty))?]),
            Type::Struct(fields) => Val::Agg(fields.iter().map(Val::zero).collect::<Result<_, _>>()?),
            Type::Void => return Err(InterpError::Malformed("a value of type void".into())),
        })
    }

    /// A zero of the same shape as `self`.
    pub fn zero_like(&self) -> Val {
        match self {
            Val::Int { bits, .. } => Val::Int { bits: *bits, value: 0 },
            Val::F32(_) => Val::F32(0.0),
            Val::F64(_) => Val::F64(0.0),
            Val::Ptr(_) => Val::Ptr(0),
            Val::Vector(v) => Val::Vector(v.iter().map(Val::zero_like).collect()),
            Val::Agg(v) => Val::Agg(v.iter().map(Val::zero_like).collect()),
        }
    }

    /// Whether this value can be of type `ty` (shapes and widths agree).
    pub fn has_type(&self, ty: &Type) -> bool {
        match (self, ty) {
            (Val::Int { bits, .. }, Type::Int(b)) => bits == b,
            (Val::F32(_), Type::Float(FloatTy::F32)) | (Val::F64(_), Type::Float(FloatTy::F64)) => true,
            (Val::Ptr(_), Type::Ptr(_)) => true,
            (Val::Vector(v), Type::Vector(n, e)) => v.len() == *n as usize && v.iter().all(|x| x.has_type(e)),
            (Val::Agg(v), Type::Array(n, e)) => v.len() as u64 == *n && v.iter().all(|x| x.has_type(e)),
            (Val::Agg(v), Type::Struct(fields)) => {
                v.len() == fields.len() && v.iter().zip(fields.iter()).all(|(x, t)| x.has_type(t))
            }
            _ => false,
        }
    }
}

fn fp80() -> InterpError {
    InterpError::Unsupported("x86_fp80 values".into())
}

fn too_big(ty: &Type) -> InterpError {
    InterpError::Unsupported(format!("a value of type {ty}, too big"))
}

/// The value of a constant; `global` gives the address of a global variable or function.
pub(crate) fn constant(c: &Constant, global: &mut dyn FnMut(&str) -> Result<u64, InterpError>) -> Result<Val, InterpError> {
    Ok(match c {
        Constant::Int { bits, value } => Val::Int { bits: *bits, value: *value },
        Constant::Float { ty: FloatTy::F32, bits } => Val::F32(f32::from_bits(*bits as u32)),
        Constant::Float { ty: FloatTy::F64, bits } => Val::F64(f64::from_bits(*bits as u64)),
        Constant::Float { ty: FloatTy::X86Fp80, .. } => return Err(fp80()),
        Constant::Null(_) => Val::Ptr(0),
        Constant::Global(name, _) => Val::Ptr(global(name)?),
        Constant::Undef(ty) | Constant::Poison(ty) | Constant::Zero(ty) => Val::zero(ty)?,
        Constant::Vector(lanes) => Val::Vector(lanes.iter().map(|l| constant(l, global)).collect::<Result<_, _>>()?),
    })
}

/// (size, alignment) of a type in memory: the natural C layout of 64-bit targets.
pub fn layout(ty: &Type) -> Result<(u64, u64), InterpError> {
    if matches!(ty, Type::Float(FloatTy::X86Fp80)) {
        return Err(fp80());
    }
    ty.natural_layout().ok_or_else(|| InterpError::Unsupported(format!("the layout of {ty}")))
}

/// The byte offset of each field of a struct, with natural alignment.
pub fn field_offsets(fields: &[Type]) -> Result<Vec<u64>, InterpError> {
    let mut offset = 0u64;
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        let (size, align) = layout(f)?;
        offset = offset.next_multiple_of(align);
        out.push(offset);
        offset += size;
    }
    Ok(out)
}

/// The bytes a value of type `ty` occupies in memory, little-endian: `size` of `layout(ty)`
/// (padding zero).
pub fn to_bytes(v: &Val, ty: &Type) -> Result<Vec<u8>, InterpError> {
    let (size, _) = layout(ty)?;
    let mut out = vec![0u8; usize::try_from(size).map_err(|_| too_big(ty))?];
    write_bytes(v, ty, &mut out)?;
    Ok(out)
}

fn mismatch(v: &Val, ty: &Type) -> InterpError {
    InterpError::Malformed(format!("value {v:?} is not of type {ty}"))
}

fn write_bytes(v: &Val, ty: &Type, out: &mut [u8]) -> Result<(), InterpError> {
    match (v, ty) {
        (Val::Int { value, .. }, Type::Int(bits)) => {
            let n = bits.div_ceil(8) as usize;
            out[..n].copy_from_slice(&value.to_le_bytes()[..n]);
        }
        (Val::F32(x), Type::Float(FloatTy::F32)) => out[..4].copy_from_slice(&x.to_le_bytes()),
        (Val::F64(x), Type::Float(FloatTy::F64)) => out[..8].copy_from_slice(&x.to_le_bytes()),
        (Val::Ptr(a), Type::Ptr(_)) => out[..8].copy_from_slice(&a.to_le_bytes()),
        (Val::Vector(lanes), Type::Vector(n, e)) if lanes.len() as u64 == u64::from(*n) => write_elements(lanes, e, out)?,
        (Val::Agg(lanes), Type::Array(n, e)) if lanes.len() as u64 == *n => write_elements(lanes, e, out)?,
        (Val::Agg(fields), Type::Struct(types)) if fields.len() == types.len() => {
            for ((field, t), offset) in fields.iter().zip(types.iter()).zip(field_offsets(types)?) {
                write_bytes(field, t, &mut out[offset as usize..])?;
            }
        }
        _ => return Err(mismatch(v, ty)),
    }
    Ok(())
}

fn write_elements(lanes: &[Val], elem: &Type, out: &mut [u8]) -> Result<(), InterpError> {
    let (stride, _) = layout(elem)?;
    for (i, lane) in lanes.iter().enumerate() {
        write_bytes(lane, elem, &mut out[i * stride as usize..])?;
    }
    Ok(())
}

/// The value of type `ty` that `bytes` (at least `layout(ty).0` of them) hold.
pub fn from_bytes(bytes: &[u8], ty: &Type) -> Result<Val, InterpError> {
    if (bytes.len() as u64) < layout(ty)?.0 {
        return Err(InterpError::Malformed(format!("{} bytes read as a {ty}", bytes.len())));
    }
    read_bytes(bytes, ty)
}

fn read_bytes(bytes: &[u8], ty: &Type) -> Result<Val, InterpError> {
    let word = |n: usize| -> [u8; 16] {
        let mut w = [0u8; 16];
        w[..n].copy_from_slice(&bytes[..n]);
        w
    };
    Ok(match ty {
        Type::Int(bits) => Val::Int { bits: *bits, value: mask(*bits, u128::from_le_bytes(word(bits.div_ceil(8) as usize))) },
        Type::Float(FloatTy::F32) => Val::F32(f32::from_bits(u128::from_le_bytes(word(4)) as u32)),
        Type::Float(FloatTy::F64) => Val::F64(f64::from_bits(u128::from_le_bytes(word(8)) as u64)),
        Type::Float(FloatTy::X86Fp80) => return Err(fp80()),
        Type::Ptr(_) => Val::Ptr(u128::from_le_bytes(word(8)) as u64),
        Type::Vector(n, e) => Val::Vector(elements(bytes, u64::from(*n), e)?),
        Type::Array(n, e) => Val::Agg(elements(bytes, *n, e)?),
        Type::Struct(types) => Val::Agg(
            types
                .iter()
                .zip(field_offsets(types)?)
                .map(|(t, o)| read_bytes(&bytes[o as usize..], t))
                .collect::<Result<_, _>>()?,
        ),
        Type::Void => return Err(InterpError::Malformed("a load of void".into())),
    })
}

fn elements(bytes: &[u8], n: u64, elem: &Type) -> Result<Vec<Val>, InterpError> {
    let (stride, _) = layout(elem)?;
    (0..n).map(|i| read_bytes(&bytes[(i * stride) as usize..], elem)).collect()
}
