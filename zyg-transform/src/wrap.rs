//! Wrappers that change what a request seeds, so that a gradient of them is the gradient
//! asked for. A request differentiates a function's result seeded with 1; a function
//! whose result is not one float needs one of these:
//!
//! - `enzyme_const_return`: the result gets no seed (only the outputs through memory count).
//!   The wrapper calls the function and returns nothing.
//! - `enzyme_active_return` on a struct, array or vector of floats: Enzyme seeds every float
//!   of the result with 1, which is the gradient of their sum. The wrapper returns the sum.
//!
//! - Forward mode on a function returning through memory: the wrapper returns the result by
//!   value, so that its tangent comes back as a value too.
//!
//! A result the function writes through an `sret` pointer (C's large structs) is memory the
//! wrapper allocates on its stack and passes first; the request's arguments are the rest.

use crate::builder::Cursor;
use zyg_ir::{Constant, FloatTy, Function, Linkage, Module, Signature, Type, Value};

/// How the wrapper treats the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSeed {
    /// No seed: the wrapper returns nothing.
    None,
    /// Every float of the result seeded with 1: the wrapper returns their sum.
    Sum,
    /// The result as it is, returned by value: forward mode's request on a function that
    /// returns through memory, whose tangent then comes back as a value.
    Value,
}

/// Adds (once) the wrapper of `function` whose result is seeded as `seed`, and returns its
/// name; None if the module does not define `function`, or (`Sum`) if its result holds no
/// float. `sret` is the type of the memory the function's first parameter returns its
/// result in, when it does.
pub fn with_result(
    module: &mut Module,
    namespace: &str,
    function: &str,
    seed: ResultSeed,
    sret: Option<&Type>,
) -> Option<String> {
    let word = match seed {
        ResultSeed::None => "noresult",
        ResultSeed::Sum => "sumresult",
        ResultSeed::Value => "byvalue",
    };
    let name = format!("{function}.{namespace}.{word}");
    if module.function(&name).is_some() {
        return Some(name);
    }
    let callee = module.function(function)?;
    let callee_sig = callee.sig.clone();
    let params: Vec<Type> = callee_sig.params.iter().skip(usize::from(sret.is_some())).cloned().collect();
    let result_ty = sret.cloned().unwrap_or_else(|| callee_sig.ret.clone());
    let sum_ty = match seed {
        ResultSeed::None => Type::Void,
        ResultSeed::Sum => Type::Float(widest_float(&result_ty)?),
        ResultSeed::Value => result_ty.clone(),
    };
    let mut w = Function::new(name.clone(), Signature::new(params, sum_ty.clone()));
    w.linkage = Linkage::Internal;
    let entry = w.create_block(Some("entry".into()));
    let mut args = w.params.clone();
    let mut c = Cursor::at_end(&mut w, entry);
    let memory = sret.map(|ty| c.alloca(ty.clone()));
    args.splice(0..0, memory);
    let returned = c.call(function, callee_sig, args);
    let result = match (memory, returned) {
        (Some(memory), _) => Some(c.load(result_ty, memory)),
        (None, returned) => returned,
    };
    match (seed, result) {
        (ResultSeed::Sum, Some(result)) => {
            let mut leaves = Vec::new();
            float_leaves(&mut c, result, &mut leaves);
            let mut sum = c.constant(Constant::float(sum_ty.float_ty().expect("a float"), 0.0));
            for leaf in leaves {
                let leaf = c.convert_float(leaf, &sum_ty);
                sum = c.binary(zyg_ir::BinOp::FAdd, sum, leaf);
            }
            c.ret(Some(sum));
        }
        (ResultSeed::Value, Some(result)) => c.ret(Some(result)),
        _ => c.ret(None),
    }
    module.functions.push(w);
    Some(name)
}

/// The widest float format among the floats `ty` holds, if it holds any.
fn widest_float(ty: &Type) -> Option<FloatTy> {
    match ty {
        Type::Float(f) => Some(*f),
        Type::Vector(_, e) | Type::Array(_, e) => widest_float(e),
        Type::Struct(fields) => fields.iter().filter_map(widest_float).max_by_key(|f| f.bits()),
        _ => None,
    }
}

/// The float scalars of `value` (fields, elements, lanes), in order.
fn float_leaves(c: &mut Cursor, value: Value, out: &mut Vec<Value>) {
    match c.func.ty(value).clone() {
        Type::Float(_) => out.push(value),
        Type::Vector(n, e) if e.float_ty().is_some() => {
            for lane in 0..n {
                let index = c.i32(i64::from(lane));
                out.push(c.extract_element(value, index));
            }
        }
        ty @ (Type::Struct(_) | Type::Array(..)) => {
            let n = match &ty {
                Type::Struct(fields) => fields.len() as u32,
                Type::Array(n, _) => *n as u32,
                _ => unreachable!("matched a struct or an array"),
            };
            for i in 0..n {
                if ty.field(i).is_some_and(Type::carries_derivative) {
                    let field = c.extract(value, i);
                    float_leaves(c, field, out);
                }
            }
        }
        _ => {}
    }
}
