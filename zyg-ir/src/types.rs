//! Types of zyg-ir values: integers, floats, pointers and the aggregates LLVM IR needs.

use std::fmt;
use std::sync::Arc;

/// A floating-point format. Derivative rules are written once for all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatTy {
    F32,
    F64,
    /// x87 80-bit extended precision (`long double` on x86-64).
    X86Fp80,
}

impl FloatTy {
    pub fn bits(self) -> u32 {
        match self {
            FloatTy::F32 => 32,
            FloatTy::F64 => 64,
            FloatTy::X86Fp80 => 80,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FloatTy::F32 => "float",
            FloatTy::F64 => "double",
            FloatTy::X86Fp80 => "x86_fp80",
        }
    }
}

/// The type of a value. Cheap to clone: aggregates share their element types.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Int(u32),
    Float(FloatTy),
    /// An opaque pointer in an address space (0 on the CPU).
    Ptr(u32),
    Vector(u32, Arc<Type>),
    Array(u64, Arc<Type>),
    Struct(Arc<[Type]>),
}

impl Type {
    pub const F32: Type = Type::Float(FloatTy::F32);
    pub const F64: Type = Type::Float(FloatTy::F64);
    pub const I1: Type = Type::Int(1);
    pub const I8: Type = Type::Int(8);
    pub const I32: Type = Type::Int(32);
    pub const I64: Type = Type::Int(64);
    pub const PTR: Type = Type::Ptr(0);

    pub fn structure(fields: Vec<Type>) -> Type {
        Type::Struct(fields.into())
    }

    /// (size, alignment) in bytes of a type under the natural C layout of 64-bit targets
    /// (x86-64, AArch64, NVPTX64), or None where that is not simple.
    pub fn natural_layout(&self) -> Option<(u64, u64)> {
        Some(match self {
            Type::Int(bits) => {
                let bytes = u64::from(bits.div_ceil(8)).next_power_of_two();
                (bytes, bytes.min(8))
            }
            Type::Float(FloatTy::F32) => (4, 4),
            Type::Float(FloatTy::F64) | Type::Ptr(_) => (8, 8),
            Type::Float(FloatTy::X86Fp80) => (16, 16),
            Type::Vector(n, e) => {
                let bytes = (u64::from(*n) * e.natural_layout()?.0).next_power_of_two();
                (bytes, bytes)
            }
            Type::Array(n, e) => {
                let (size, align) = e.natural_layout()?;
                (*n * size, align)
            }
            Type::Struct(fields) => {
                let (mut offset, mut align) = (0u64, 1u64);
                for f in fields.iter() {
                    let (s, a) = f.natural_layout()?;
                    offset = offset.next_multiple_of(a) + s;
                    align = align.max(a);
                }
                (offset.next_multiple_of(align), align)
            }
            _ => return None,
        })
    }

    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }

    pub fn float_ty(&self) -> Option<FloatTy> {
        match self {
            Type::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The float format of a float or of a vector of floats.
    pub fn float_elem(&self) -> Option<FloatTy> {
        match self {
            Type::Float(f) => Some(*f),
            Type::Vector(_, e) => e.float_ty(),
            _ => None,
        }
    }

    /// `i1`, or a vector of `i1` of the same length: what a comparison of this type gives.
    pub fn bool_like(&self) -> Type {
        match self {
            Type::Vector(n, _) => Type::Vector(*n, Type::I1.into()),
            _ => Type::I1,
        }
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Type::Int(_))
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self, Type::Ptr(_))
    }

    /// A pointer or a vector of pointers (the addresses of a gather or scatter).
    pub fn is_address(&self) -> bool {
        match self {
            Type::Ptr(_) => true,
            Type::Vector(_, e) => e.is_ptr(),
            _ => false,
        }
    }

    pub fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }

    /// True when values of this type can carry a derivative: floats and aggregates of floats.
    pub fn carries_derivative(&self) -> bool {
        match self {
            Type::Float(_) => true,
            Type::Vector(_, e) | Type::Array(_, e) => e.carries_derivative(),
            Type::Struct(fields) => fields.iter().any(Type::carries_derivative),
            _ => false,
        }
    }

    /// The name LLVM's overloaded intrinsics give a float or float vector type (`f64`,
    /// `v4f32`), as in `llvm.sin.v4f32`; None for other types.
    pub fn mangled(&self) -> Option<String> {
        let elem = |f: &FloatTy| match f {
            FloatTy::F32 => "f32",
            FloatTy::F64 => "f64",
            FloatTy::X86Fp80 => "f80",
        };
        match self {
            Type::Float(f) => Some(elem(f).to_string()),
            Type::Vector(n, e) => e.float_ty().map(|f| format!("v{n}{}", elem(&f))),
            _ => None,
        }
    }

    /// True when values of this type hold pointers (which may point to differentiated memory).
    pub fn holds_pointers(&self) -> bool {
        match self {
            Type::Ptr(_) => true,
            Type::Vector(_, e) | Type::Array(_, e) => e.holds_pointers(),
            Type::Struct(fields) => fields.iter().any(Type::holds_pointers),
            _ => false,
        }
    }

    /// Holds pointers and no floats: its shadow holds shadow pointers, not adjoints.
    pub fn holds_only_addresses(&self) -> bool {
        self.holds_pointers() && !self.carries_derivative()
    }

    /// The type reached by following `indices` into an aggregate (extractvalue's rule).
    pub fn field(&self, index: u32) -> Option<&Type> {
        match self {
            Type::Struct(fields) => fields.get(index as usize),
            Type::Array(n, e) if u64::from(index) < *n => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => write!(f, "void"),
            Type::Int(bits) => write!(f, "i{bits}"),
            Type::Float(ty) => write!(f, "{}", ty.name()),
            Type::Ptr(0) => write!(f, "ptr"),
            Type::Ptr(space) => write!(f, "ptr addrspace({space})"),
            Type::Vector(n, e) => write!(f, "<{n} x {e}>"),
            Type::Array(n, e) => write!(f, "[{n} x {e}]"),
            Type::Struct(fields) => {
                write!(f, "{{")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, " {field}")?;
                }
                write!(f, " }}")
            }
        }
    }
}

/// A function's type: parameter types, result type, and whether it takes `...`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    pub params: Vec<Type>,
    pub ret: Type,
    pub variadic: bool,
}

impl Signature {
    pub fn new(params: Vec<Type>, ret: Type) -> Signature {
        Signature { params, ret, variadic: false }
    }
}
