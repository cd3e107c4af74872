//! Calls to functions without a body in zyg-ir: the C math library and LLVM's intrinsics
//! for it, the C allocation and memory functions, and a few that stop the program.

use super::memory::Origin;
use super::value::Val;
use super::{InterpError, Interpreter};
use crate::types::Type;

/// Whether `name` is a function the interpreter knows without a body.
pub(super) fn is_known(name: &str) -> bool {
    const OTHERS: &[&str] = &[
        "malloc",
        "calloc",
        "realloc",
        "free",
        "malloc_usable_size",
        "memcpy",
        "memmove",
        "memset",
        "write",
        "abort",
        "__cxa_thread_atexit_impl",
    ];
    OTHERS.contains(&name) || intrinsic(name).is_some() || math_family(name).is_some()
}

/// The family of a C math function (`sinf` and `sin` are `sin`), if the interpreter has it.
fn math_family(name: &str) -> Option<&str> {
    let known = |n: &str| math1(n).is_some() || math2(n).is_some() || matches!(n, "fma" | "fmuladd" | "powi");
    if known(name) {
        return Some(name);
    }
    name.strip_suffix('f').filter(|n| known(n))
}

/// `llvm.<family>.<overload suffixes>`: the family (`llvm.fabs.f64` is `fabs`, and
/// `llvm.vector.reduce.fadd.v4f64` is `vector.reduce.fadd`).
fn intrinsic(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("llvm.")?;
    let parts = if rest.starts_with("vector.reduce.") { 3 } else { 1 };
    let end = rest.match_indices('.').nth(parts - 1).map_or(rest.len(), |(i, _)| i);
    Some(&rest[..end])
}

fn math1(family: &str) -> Option<fn(f64) -> f64> {
    Some(match family {
        "sqrt" => f64::sqrt,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        "asin" => f64::asin,
        "acos" => f64::acos,
        "atan" => f64::atan,
        "sinh" => f64::sinh,
        "cosh" => f64::cosh,
        "tanh" => f64::tanh,
        "asinh" => f64::asinh,
        "acosh" => f64::acosh,
        "atanh" => f64::atanh,
        "exp" => f64::exp,
        "exp2" => f64::exp2,
        "expm1" => f64::exp_m1,
        "log" => f64::ln,
        "log2" => f64::log2,
        "log10" => f64::log10,
        "log1p" => f64::ln_1p,
        "fabs" => f64::abs,
        "floor" => f64::floor,
        "ceil" => f64::ceil,
        "trunc" => f64::trunc,
        "round" => f64::round,
        "rint" | "nearbyint" | "roundeven" => f64::round_ties_even,
        "cbrt" => f64::cbrt,
        _ => return None,
    })
}

fn math2(family: &str) -> Option<fn(f64, f64) -> f64> {
    Some(match family {
        "pow" => f64::powf,
        "atan2" => f64::atan2,
        "copysign" => f64::copysign,
        "fmod" => |x, y| x % y,
        "hypot" => f64::hypot,
        // IEEE maxNum and minNum: a NaN operand gives the other one.
        "maxnum" | "fmax" | "maximumnum" | "fmaximum_num" => f64::max,
        "minnum" | "fmin" | "minimumnum" | "fminimum_num" => f64::min,
        // IEEE maximum and minimum: NaN propagates, -0 < +0.
        "maximum" | "fmaximum" => |x, y| ieee_extreme(x, y, true),
        "minimum" | "fminimum" => |x, y| ieee_extreme(x, y, false),
        _ => return None,
    })
}

/// IEEE 754-2019 `maximum` (`max`) or `minimum`: a NaN operand gives NaN, and -0 is below +0.
fn ieee_extreme(x: f64, y: f64, max: bool) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        // Equal: only the zeros' signs can differ; the maximum is the positive one.
        if x.is_sign_negative() == max {
            y
        } else {
            x
        }
    } else if max {
        x.max(y)
    } else {
        x.min(y)
    }
}

fn bad(name: &str, args: &[Val]) -> InterpError {
    InterpError::BadArguments { function: name.to_string(), message: format!("{args:?}") }
}

/// A math function of `family` on scalars, or lane by lane on vectors.
fn math(name: &str, family: &str, args: &[Val]) -> Result<Val, InterpError> {
    if let Some(Val::Vector(lanes)) = args.first() {
        let lane = |i: usize| -> Vec<Val> {
            args.iter().map(|a| if let Val::Vector(v) = a { v[i].clone() } else { a.clone() }).collect()
        };
        return Ok(Val::Vector((0..lanes.len()).map(|i| math(name, family, &lane(i))).collect::<Result<_, _>>()?));
    }
    let xs: Vec<f64> = args.iter().filter_map(Val::as_f64).collect();
    let y = match (family, xs.as_slice()) {
        ("powi", [x]) => {
            let n = args.get(1).and_then(Val::as_i128).ok_or_else(|| bad(name, args))?;
            x.powi(i32::try_from(n).map_err(|_| bad(name, args))?)
        }
        ("fma" | "fmuladd", [x, y, z]) => x.mul_add(*y, *z),
        (f, [x]) if args.len() == 1 => math1(f).ok_or_else(|| bad(name, args))?(*x),
        (f, [x, y]) if args.len() == 2 => math2(f).ok_or_else(|| bad(name, args))?(*x, *y),
        _ => return Err(bad(name, args)),
    };
    match args.first() {
        Some(Val::F32(_)) => Ok(Val::F32(y as f32)),
        _ => Ok(Val::F64(y)),
    }
}

/// `llvm.vector.reduce.*` of floats: `fadd` and `fmul` take a start value, in order.
fn reduce(name: &str, family: &str, args: &[Val]) -> Result<Val, InterpError> {
    let op = family.strip_prefix("vector.reduce.").unwrap_or(family);
    let (start, lanes) = match (op, args) {
        ("fadd" | "fmul", [start, Val::Vector(lanes)]) => (start.clone(), lanes.as_slice()),
        (_, [Val::Vector(lanes)]) if !lanes.is_empty() => (lanes[0].clone(), &lanes[1..]),
        _ => return Err(bad(name, args)),
    };
    let step: fn(f64, f64) -> f64 = match op {
        "fadd" => |x, y| x + y,
        "fmul" => |x, y| x * y,
        other => math2(&other[1..]).ok_or_else(|| InterpError::UnknownCall(name.to_string()))?,
    };
    let mut acc = start.as_f64().ok_or_else(|| bad(name, args))?;
    let single = matches!(start, Val::F32(_));
    for l in lanes {
        acc = step(acc, l.as_f64().ok_or_else(|| bad(name, args))?);
        if single {
            acc = f64::from(acc as f32);
        }
    }
    Ok(if single { Val::F32(acc as f32) } else { Val::F64(acc) })
}

fn ptr_arg(name: &str, args: &[Val], i: usize) -> Result<u64, InterpError> {
    args.get(i).and_then(Val::as_ptr).ok_or_else(|| bad(name, args))
}

fn int_arg(name: &str, args: &[Val], i: usize) -> Result<u64, InterpError> {
    args.get(i).and_then(Val::as_u128).map(|v| v as u64).ok_or_else(|| bad(name, args))
}

/// An integer result of the call's type (or i64 without one).
fn int_result(ret: Option<&Type>, value: u64) -> Val {
    match ret {
        Some(Type::Int(bits)) => Val::int(*bits, i128::from(value)),
        _ => Val::int(64, i128::from(value)),
    }
}

impl Interpreter {
    /// Calls a function without a body; `ret` is the type the call expects, when known.
    pub(super) fn external(&mut self, name: &str, args: &[Val], ret: Option<&Type>) -> Result<Option<Val>, InterpError> {
        if let Some(family) = intrinsic(name) {
            return self.intrinsic(name, family, args);
        }
        if let Some(out) = self.library(name, args, ret)? {
            return Ok(out);
        }
        match math_family(name) {
            Some(family) => Ok(Some(math(name, family, args)?)),
            None => Err(InterpError::UnknownCall(name.to_string())),
        }
    }

    fn intrinsic(&mut self, name: &str, family: &str, args: &[Val]) -> Result<Option<Val>, InterpError> {
        match family {
            "memcpy" | "memmove" => {
                let (dest, src, len) = (ptr_arg(name, args, 0)?, ptr_arg(name, args, 1)?, int_arg(name, args, 2)?);
                self.memory.copy(dest, src, len)?;
                Ok(None)
            }
            "memset" => {
                let (dest, byte, len) = (ptr_arg(name, args, 0)?, int_arg(name, args, 1)?, int_arg(name, args, 2)?);
                self.memory.fill(dest, byte as u8, len)?;
                Ok(None)
            }
            "trap" => Err(InterpError::Trap),
            "lifetime" | "assume" | "dbg" => Ok(None),
            f if f.starts_with("vector.reduce.") => Ok(Some(reduce(name, f, args)?)),
            f if math_family(f) == Some(f) => Ok(Some(math(name, f, args)?)),
            _ => Err(InterpError::UnknownCall(name.to_string())),
        }
    }

    /// The C library's allocation, memory and process functions; None for other names.
    fn library(&mut self, name: &str, args: &[Val], ret: Option<&Type>) -> Result<Option<Option<Val>>, InterpError> {
        let out = match name {
            "malloc" => Some(Val::Ptr(self.alloc(int_arg(name, args, 0)?)?)),
            "calloc" => {
                let size =
                    int_arg(name, args, 0)?.checked_mul(int_arg(name, args, 1)?).ok_or(InterpError::OutOfMemory(u64::MAX))?;
                Some(Val::Ptr(self.alloc(size)?))
            }
            "realloc" => Some(Val::Ptr(self.realloc(ptr_arg(name, args, 0)?, int_arg(name, args, 1)?)?)),
            "free" => {
                let p = ptr_arg(name, args, 0)?;
                if p != 0 {
                    self.memory.release(p, Origin::Heap)?;
                }
                None
            }
            "malloc_usable_size" => Some(int_result(ret, self.memory.heap_size(ptr_arg(name, args, 0)?)?)),
            "memcpy" | "memmove" | "memset" => {
                let (dest, len) = (ptr_arg(name, args, 0)?, int_arg(name, args, 2)?);
                match name {
                    "memset" => self.memory.fill(dest, int_arg(name, args, 1)? as u8, len)?,
                    _ => self.memory.copy(dest, ptr_arg(name, args, 1)?, len)?,
                }
                Some(Val::Ptr(dest))
            }
            "write" => {
                let (buf, len) = (ptr_arg(name, args, 1)?, int_arg(name, args, 2)?);
                let bytes = self.memory.read(buf, len)?.to_vec();
                self.stderr.extend(bytes);
                Some(int_result(ret, len))
            }
            "abort" => return Err(InterpError::Abort(String::from_utf8_lossy(&self.stderr).into_owned())),
            // A thread's destructor (the tape stacks' cache, `stack`): the interpreter's one
            // thread never exits, so registering succeeds and nothing is run.
            "__cxa_thread_atexit_impl" => Some(int_result(ret, 0)),
            _ => return Ok(None),
        };
        Ok(Some(out))
    }

    fn realloc(&mut self, old: u64, size: u64) -> Result<u64, InterpError> {
        let new = self.alloc(size)?;
        if old != 0 {
            let old_size = self.memory.heap_size(old)?;
            self.memory.copy(new, old, old_size.min(size))?;
            self.memory.release(old, Origin::Heap)?;
        }
        Ok(new)
    }
}
