//! Constant operands. Floats keep their exact bit pattern so that a read-write round trip
//! through zyg-ir never changes a program's numbers.

use crate::types::{FloatTy, Type};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Constant {
    /// An integer of `bits` width; `value` holds the bits zero-extended.
    Int {
        bits: u32,
        value: u128,
    },
    /// A float, as the bit pattern of its format (x86_fp80 uses the low 80 bits).
    Float {
        ty: FloatTy,
        bits: u128,
    },
    /// The null pointer in an address space.
    Null(u32),
    /// The address of a global variable or function, by name, and the address space of
    /// that address (a GPU's shared memory is 3; functions and CPU globals are in 0).
    Global(String, u32),
    Undef(Type),
    Poison(Type),
    /// `zeroinitializer` of an aggregate type.
    Zero(Type),
    /// A vector of constants of one scalar type (at least one lane).
    Vector(Vec<Constant>),
}

impl Constant {
    pub fn int(bits: u32, value: i128) -> Constant {
        let mask = if bits >= 128 { u128::MAX } else { (1u128 << bits) - 1 };
        Constant::Int { bits, value: (value as u128) & mask }
    }

    /// `x` in every lane of a vector of `ty`, or `x` itself when `ty` is a scalar float.
    pub fn float_like(ty: &Type, x: f64) -> Option<Constant> {
        match ty {
            Type::Float(f) => Some(Constant::float(*f, x)),
            Type::Vector(n, elem) => Some(Constant::Vector(vec![Constant::float(elem.float_ty()?, x); *n as usize])),
            _ => None,
        }
    }

    pub fn bool(value: bool) -> Constant {
        Constant::int(1, value as i128)
    }

    /// A float of format `ty` with the value `x` (rounded to `ty`; x86_fp80 is widened exactly).
    pub fn float(ty: FloatTy, x: f64) -> Constant {
        let bits = match ty {
            FloatTy::F32 => u128::from((x as f32).to_bits()),
            FloatTy::F64 => u128::from(x.to_bits()),
            FloatTy::X86Fp80 => f64_to_x87(x),
        };
        Constant::Float { ty, bits }
    }

    pub fn ty(&self) -> Type {
        match self {
            Constant::Int { bits, .. } => Type::Int(*bits),
            Constant::Float { ty, .. } => Type::Float(*ty),
            Constant::Null(space) => Type::Ptr(*space),
            Constant::Global(_, space) => Type::Ptr(*space),
            Constant::Undef(ty) | Constant::Poison(ty) | Constant::Zero(ty) => ty.clone(),
            Constant::Vector(lanes) => {
                let elem = lanes.first().map(Constant::ty).unwrap_or(Type::Void);
                Type::Vector(lanes.len() as u32, elem.into())
            }
        }
    }

    /// The value of a float constant as an f64 (x86_fp80 rounds).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Constant::Float { ty: FloatTy::F32, bits } => Some(f64::from(f32::from_bits(*bits as u32))),
            Constant::Float { ty: FloatTy::F64, bits } => Some(f64::from_bits(*bits as u64)),
            Constant::Float { ty: FloatTy::X86Fp80, bits } => Some(x87_to_f64(*bits)),
            _ => None,
        }
    }

    /// The value of an integer constant, sign-extended from its width.
    pub fn as_i128(&self) -> Option<i128> {
        match self {
            Constant::Int { bits, value } => {
                let shift = 128 - bits;
                Some(((*value as i128) << shift) >> shift)
            }
            _ => None,
        }
    }
}

/// Widens an f64 to the x87 80-bit format (exact: every double is representable).
pub fn f64_to_x87(x: f64) -> u128 {
    let bits = x.to_bits();
    let sign = u128::from(bits >> 63);
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (exp80, mant): (u128, u128) = if exp == 0 && frac == 0 {
        (0, 0)
    } else if exp == 0x7ff {
        (0x7fff, (1u128 << 63) | (u128::from(frac) << 11))
    } else if exp == 0 {
        // Subnormal double: normalise, since x87 has the range to represent it as normal.
        let shift = frac.leading_zeros() - 11; // bring the top set bit to position 52
        let m = u128::from(frac) << (shift + 11);
        ((-1022 - i64::from(shift) + 16383) as u128, m)
    } else {
        ((exp - 1023 + 16383) as u128, (1u128 << 63) | (u128::from(frac) << 11))
    };
    (sign << 79) | (exp80 << 64) | mant
}

/// Rounds an x87 80-bit value to the nearest f64 (used only to read constants' values).
pub fn x87_to_f64(bits: u128) -> f64 {
    let sign = if (bits >> 79) & 1 == 1 { -1.0 } else { 1.0 };
    let exp = ((bits >> 64) & 0x7fff) as i32;
    let mant = (bits & u128::from(u64::MAX)) as u64;
    if exp == 0x7fff {
        return if mant << 1 == 0 { sign * f64::INFINITY } else { f64::NAN };
    }
    // Scale in two halves: each factor is a normal double, so only the last product rounds
    // (a single 2^e would underflow to zero for results near the subnormal range).
    let e = exp - 16383 - 63;
    sign * (mant as f64) * 2f64.powi(e / 2) * 2f64.powi(e - e / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x87_round_trip() {
        for x in [0.0, 1.0, -2.5, 1e-310, std::f64::consts::PI, 1e300, -0.1] {
            assert_eq!(x87_to_f64(f64_to_x87(x)), x, "{x}");
        }
        // 1.0 is 0x3FFF_8000000000000000 in x87 format.
        assert_eq!(f64_to_x87(1.0), 0x3FFF_8000_0000_0000_0000);
    }

    #[test]
    fn int_sign_extension() {
        assert_eq!(Constant::int(32, -5).as_i128(), Some(-5));
        assert_eq!(Constant::int(1, 1).as_i128(), Some(-1));
    }
}
