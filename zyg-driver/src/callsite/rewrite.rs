//! Replacing each request's call by a call to its gradient: the arguments converted to the
//! gradient's parameter types, and the gradients given back as the call declared them (a
//! float, a struct, array or vector of them, `sret` memory, or split mode's tape).

use super::{float_bits, is_float, type_text, Request, Shadows};
use crate::error::{DriverError, Result};
use inkwell::builder::{Builder, BuilderError};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValueEnum, CallSiteValue, FunctionValue, InstructionValue, PointerValue,
};
use std::collections::HashMap;
use std::path::Path;
use zyg_ir::llvm::calls::{self, CallKind};
use zyg_ir::llvm::values::{array_length, parameter_types, Argument};
use zyg_transform::Entry;

/// The function a request's call becomes a call to.
pub struct Target<'ctx> {
    /// The gradient (or split mode's half), returning a struct of the `out` gradients...
    pub function: FunctionValue<'ctx>,
    /// ...or, with the struct's type here, a function that takes a pointer to such a struct
    /// first and stores the gradients there: for a struct of many fields, which the call
    /// site then reads from memory (see `grad::WIDE_GRADIENT`).
    pub through: Option<BasicTypeEnum<'ctx>>,
}

type Built<T> = std::result::Result<T, String>;

fn built<T>(r: std::result::Result<T, BuilderError>) -> Built<T> {
    r.map_err(|e| format!("internal error: {e} (please report this)"))
}

/// Replaces each request's call with a call to its gradient function (which returns a struct
/// of the `out` gradients in argument order), and then deletes the requests' calls.
///
/// One request can use another's result: the reverse half of split mode takes the tape the
/// forward half returned. So the old calls stay until all are rewritten, and a request's
/// arguments go through `replaced`: an argument that is an earlier request's call becomes
/// that call's replacement, and one rewritten later is caught by its replace-all-uses.
pub(crate) fn rewrite_all<'ctx>(requests: &[Request<'ctx>], gradients: &[Target<'ctx>], path: &Path) -> Result<()> {
    let mut replaced: HashMap<BasicValueEnum<'ctx>, BasicValueEnum<'ctx>> = HashMap::new();
    for (request, gradient) in requests.iter().zip(gradients) {
        let fail =
            |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("{}: {message}", request.place) };
        let call = calls::instruction(request.call);
        let b = gradient.function.get_type().get_context().create_builder();
        b.position_before(&call);
        // The replacement keeps the request's source location.
        if let Some(loc) = call.get_debug_location() {
            b.set_current_debug_location(loc);
        }
        let result = build_replacement(&b, request, gradient, &replaced);
        drop(b);
        let own = request.call.try_as_basic_value().basic();
        match (result.map_err(fail)?, own) {
            (Some(r), Some(own)) => {
                calls::replace_result(request.call, r).map_err(fail)?;
                replaced.insert(own, r);
            }
            // The call is erased below: nothing may use its result.
            (None, _) if call.get_first_use().is_some() => {
                return Err(fail(format!(
                    "the request's own result (`{}`) is used, but its gradients go to its `sret` memory",
                    type_text(call.get_type())
                )))
            }
            (None, _) => {}
            (Some(_), None) => {
                return Err(fail("internal error: a value replaces a call without one (please report this)".into()))
            }
        }
    }
    for request in requests {
        // Every use of the call was replaced above (a call whose replacement is `None` has
        // no use: checked above).
        calls::instruction(request.call).erase_from_basic_block();
    }
    for (request, gradient) in requests.iter().zip(gradients) {
        let Some(placeholder) = request.unwind else { continue };
        let entry =
            gradient_call(placeholder, gradient.function).filter(|call| zyg_ir::llvm::invokes::reattach(placeholder, *call));
        if entry.is_none() {
            return Err(DriverError::Request {
                path: path.to_path_buf(),
                message: format!(
                    "{}: internal error: the gradient's call was not found beside the request's invoke",
                    request.place
                ),
            });
        }
    }
    Ok(())
}

/// The last call of `function` before `placeholder` in its block: the rewritten request's
/// call to its gradient.
fn gradient_call<'ctx>(placeholder: InstructionValue<'ctx>, function: FunctionValue<'ctx>) -> Option<CallSiteValue<'ctx>> {
    let mut at = placeholder.get_previous_instruction();
    while let Some(inst) = at {
        if let Some((call, CallKind::Call)) = calls::call_site(inst) {
            if calls::called_function(call) == Some(function) {
                return Some(call);
            }
        }
        at = inst.get_previous_instruction();
    }
    None
}

/// Once every request is rewritten, deletes the marker loads nothing uses any more. At -O2
/// one load often feeds several markers and several calls, so each is visited once.
pub fn remove_dead_markers(requests: &[Request<'_>]) {
    let mut loads: Vec<_> = requests.iter().flat_map(|r| r.markers.iter().filter_map(|m| m.load())).collect();
    loads.sort_unstable_by_key(|m| m.as_value_ref());
    loads.dedup();
    for m in loads {
        if m.get_first_use().is_none() {
            m.erase_from_basic_block();
        }
    }
}

fn build_replacement<'ctx>(
    b: &Builder<'ctx>,
    request: &Request<'ctx>,
    target: &Target<'ctx>,
    replaced: &HashMap<BasicValueEnum<'ctx>, BasicValueEnum<'ctx>>,
) -> Built<Option<BasicValueEnum<'ctx>>> {
    let params = parameter_types(target.function)
        .into_iter()
        .collect::<Built<Vec<_>>>()
        .map_err(|t| format!("internal error: the gradient takes a `{t}` (please report this)"))?;
    // The gradient takes the function's arguments, each `dup` one followed by its shadow
    // (after the result's memory, when it goes through memory), or, in vector mode, by one
    // per lane.
    let mut given = Vec::new();
    for (v, shadows) in request.values.iter().zip(&request.shadows) {
        given.push(Some(*v));
        match shadows {
            Shadows::None => {}
            Shadows::Given(each) => given.extend(each.iter().map(|s| Some(*s))),
            Shadows::Strided { base, stride } => {
                for lane in 0..request.width {
                    given.push(Some(strided_shadow(b, *base, *stride, lane)?));
                }
            }
        }
    }
    given.extend(&request.extra);
    let skip = usize::from(target.through.is_some());
    if given.len() + skip != params.len() {
        return Err(format!(
            "internal error: the request passes {} values to a gradient of {} parameters (please report this)",
            given.len(),
            params.len() - skip
        ));
    }
    let slot = target.through.map(|ty| entry_alloca(request.call, ty)).transpose()?;
    let mut args: Vec<BasicMetadataValueEnum<'ctx>> = slot.iter().map(|s| (*s).into()).collect();
    for (v, p) in given.iter().zip(&params[skip..]) {
        // A missing value is a zero: the result's adjoint under `enzyme_const_return`.
        let Some(v) = v else {
            args.push(p.const_zero().into());
            continue;
        };
        let v = match v {
            Argument::Value(x) => replaced.get(x).map_or(*v, |r| Argument::Value(*r)),
            other => *other,
        };
        args.push(convert(b, v, *p)?.into());
    }
    let made = built(b.build_call(target.function, &args, ""))?;
    match request.entry {
        Entry::Augmented | Entry::AugmentedInto => return augmented_result(b, request, made),
        Entry::TapeSize => return size_result(b, request.call, made),
        _ => {}
    }
    let made = made.try_as_basic_value().basic();
    let grads_ty = match target.through.or(made.map(|m| m.get_type())) {
        Some(BasicTypeEnum::StructType(s)) => s,
        other => {
            let shown = other.map_or_else(|| "void".into(), type_text);
            return Err(format!("internal error: the gradient returns `{shown}`, not a struct"));
        }
    };
    let field = |i: u32| -> Built<BasicValueEnum<'ctx>> {
        match (slot, made) {
            (Some(slot), _) => {
                let at = built(b.build_struct_gep(grads_ty, slot, i, ""))?;
                let ty = grads_ty.get_field_type_at_index(i).ok_or("internal error: no such gradient")?;
                built(b.build_load(ty, at, ""))
            }
            (None, Some(BasicValueEnum::StructValue(made))) => built(b.build_extract_value(made, i, "")),
            (None, _) => Err("internal error: the gradient returns no struct".into()),
        }
    };
    if request.entry == Entry::Forward && grads_ty.get_field_types().iter().any(|t| !is_scalar(*t)) {
        // Forward mode's tangent of a struct, array or vector result is one field per lane;
        // the call's result takes their scalars one by one.
        let mut leaves = Vec::new();
        for i in 0..grads_ty.count_fields() {
            tangent_leaves(b, field(i)?, &mut leaves)?;
        }
        let flat = |i: u32| leaves.get(i as usize).copied().ok_or_else(|| "internal error: no such tangent".to_string());
        return deliver(b, request, leaves.len() as u32, grads_ty.into(), &flat);
    }
    deliver(b, request, grads_ty.count_fields(), grads_ty.into(), &field)
}

fn is_scalar(ty: BasicTypeEnum<'_>) -> bool {
    !matches!(ty, BasicTypeEnum::StructType(_) | BasicTypeEnum::ArrayType(_) | BasicTypeEnum::VectorType(_))
}

/// The scalars of a tangent `value`, in memory order; its integers (a struct result's
/// counts and flags) carry no tangent and come back as 0.
fn tangent_leaves<'ctx>(b: &Builder<'ctx>, value: BasicValueEnum<'ctx>, out: &mut Vec<BasicValueEnum<'ctx>>) -> Built<()> {
    match value {
        BasicValueEnum::StructValue(s) => {
            for i in 0..s.get_type().count_fields() {
                tangent_leaves(b, built(b.build_extract_value(s, i, ""))?, out)?;
            }
        }
        BasicValueEnum::ArrayValue(a) => {
            for i in 0..array_length(a.get_type()) as u32 {
                tangent_leaves(b, built(b.build_extract_value(a, i, ""))?, out)?;
            }
        }
        BasicValueEnum::VectorValue(v) => {
            let i32_ty = v.get_type().get_context().i32_type();
            for lane in 0..v.get_type().get_size() {
                out.push(built(b.build_extract_element(v, i32_ty.const_int(u64::from(lane), false), ""))?);
            }
        }
        BasicValueEnum::IntValue(i) => out.push(i.get_type().const_zero().into()),
        other => out.push(other),
    }
    Ok(())
}

/// Gives the `outs` gradients (`field(i)`, the fields of `grads_ty` or their scalars) back
/// as the call declared its result: through its `sret` memory, as a float, or as a struct,
/// array or vector.
fn deliver<'ctx>(
    b: &Builder<'ctx>,
    request: &Request<'ctx>,
    outs: u32,
    grads_ty: BasicTypeEnum<'ctx>,
    field: &dyn Fn(u32) -> Built<BasicValueEnum<'ctx>>,
) -> Built<Option<BasicValueEnum<'ctx>>> {
    // What the struct's fields are, for messages.
    let what = match (request.entry, request.width) {
        (Entry::Forward, _) => "tangents",
        (_, 1) => "`out` arguments",
        // Vector mode: each `out` argument's gradient once per lane.
        _ => "gradients (one per lane of each `out` argument)",
    };
    if let Some(sret) = request.sret {
        let ty = calls::sret_argument_type(request.call).unwrap_or(grads_ty);
        let value = aggregate(b, ty, outs, what, field)?;
        let Some(BasicValueEnum::PointerValue(sret)) = sret.value() else {
            return Err("internal error: the `sret` argument is not a pointer".into());
        };
        built(b.build_store(sret, value))?;
        return Ok(None);
    }
    match request.call.try_as_basic_value().basic().map(|v| v.get_type()) {
        // Forward mode's tangents may all go through `dup` memory.
        None if outs > 0 && request.entry != Entry::Forward => Err(format!(
            "the request is declared to return nothing, but it has {outs} `out` argument(s) whose gradient it would \
             throw away; declare it to return double (or float, or a struct of {outs})"
        )),
        None => Ok(None),
        Some(ty) if is_float(ty) => match outs {
            0 => Ok(Some(ty.const_zero())),
            1 => Ok(Some(convert(b, Argument::Value(field(0)?), ty)?)),
            n => Err(format!(
                "the request returns one `{}` but has {n} {what}; declare it to return a struct of {n}",
                type_text(ty)
            )),
        },
        Some(ty) => Ok(Some(aggregate(b, ty, outs, what, field)?)),
    }
}

/// Vector mode's shadow of lane `lane` given by `enzyme_dupv`: `base + lane * stride` bytes.
fn strided_shadow<'ctx>(b: &Builder<'ctx>, base: Argument<'ctx>, stride: Argument<'ctx>, lane: u32) -> Built<Argument<'ctx>> {
    let (Some(BasicValueEnum::PointerValue(base)), Some(BasicValueEnum::IntValue(stride))) = (base.value(), stride.value())
    else {
        return Err("internal error: `enzyme_dupv`'s base is not a pointer or its stride not an integer".into());
    };
    if lane == 0 {
        return Ok(Argument::Value(base.into()));
    }
    let ctx = base.get_type().get_context();
    let stride = built(b.build_int_s_extend_or_bit_cast(stride, ctx.i64_type(), ""))?;
    let offset = built(b.build_int_mul(stride, ctx.i64_type().const_int(u64::from(lane), false), ""))?;
    let at = built(calls::byte_offset(b, base, offset))?;
    Ok(Argument::Value(at.into()))
}

/// Converts between float widths and integer widths as C's argument promotion requires
/// (a `float` passed through `...` arrives as `double`).
fn convert<'ctx>(b: &Builder<'ctx>, v: Argument<'ctx>, to: BasicTypeEnum<'ctx>) -> Built<BasicValueEnum<'ctx>> {
    let mismatch = |from: String| format!("cannot pass a value of type `{from}` where `{}` is expected", type_text(to));
    let Some(value) = v.value() else { return Err(mismatch(v.type_text())) };
    let from = value.get_type();
    if from == to {
        return Ok(value);
    }
    match (value, to, float_bits(from), float_bits(to)) {
        (BasicValueEnum::FloatValue(x), BasicTypeEnum::FloatType(t), Some(fb), Some(tb)) => {
            built(if fb < tb { b.build_float_ext(x, t, "") } else { b.build_float_trunc(x, t, "") }).map(Into::into)
        }
        (BasicValueEnum::IntValue(x), BasicTypeEnum::IntType(t), _, _) => {
            built(b.build_int_cast_sign_flag(x, t, true, "")).map(Into::into)
        }
        _ => Err(mismatch(type_text(from))),
    }
}

/// A stack slot of type `ty` at the start of the entry block of the function holding
/// `call` (where SROA finds it once the callee is inlined).
fn entry_alloca<'ctx>(call: CallSiteValue<'ctx>, ty: BasicTypeEnum<'ctx>) -> Built<PointerValue<'ctx>> {
    let inst = calls::instruction(call);
    let entry = inst.get_parent().and_then(|bb| bb.get_parent()).and_then(|f| f.get_first_basic_block());
    let entry = entry.ok_or("internal error: a call outside a function")?;
    let at = call.get_called_fn_type().get_context().create_builder();
    match entry.get_first_instruction() {
        Some(first) => at.position_before(&first),
        None => at.position_at_end(entry),
    }
    built(at.build_alloca(ty, "gradients"))
}

/// The forward half returns the tape, or `{ tape, result }`: give the call what it declared.
/// With the tape in the caller's memory the call may also be declared to return the result
/// alone (the tape is where the caller put it).
fn augmented_result<'ctx>(
    b: &Builder<'ctx>,
    request: &Request<'ctx>,
    made: CallSiteValue<'ctx>,
) -> Built<Option<BasicValueEnum<'ctx>>> {
    let call = request.call;
    let want = call.try_as_basic_value().basic().map(|v| v.get_type());
    let made = made.try_as_basic_value().basic();
    Ok(match (want, made) {
        (None, _) => None,
        (Some(want), Some(made)) if want == made.get_type() => Some(made),
        (Some(want), Some(BasicValueEnum::StructValue(made)))
            if request.entry == Entry::AugmentedInto && is_float(want) && made.get_type().count_fields() == 2 =>
        {
            let result = built(b.build_extract_value(made, 1, ""))?;
            Some(convert(b, Argument::Value(result), want)?)
        }
        (Some(BasicTypeEnum::PointerType(_)), Some(BasicValueEnum::StructValue(made))) => {
            Some(built(b.build_extract_value(made, 0, ""))?)
        }
        (Some(BasicTypeEnum::StructType(want)), Some(BasicValueEnum::StructValue(made))) => {
            let mut value = want.get_undef();
            for i in 0..want.count_fields().min(2) {
                let field = built(b.build_extract_value(made, i, ""))?;
                let to = want.get_field_type_at_index(i).ok_or("internal error: no such field")?;
                let field = convert(b, Argument::Value(field), to)?;
                value = built(b.build_insert_value(value, field, i, ""))?.into_struct_value();
            }
            Some(value.into())
        }
        (Some(want), _) => {
            return Err(format!(
                "the forward half returns `{}`; declare it to return `void *` (the tape) or a struct {{ void *, result }}",
                type_text(want)
            ))
        }
    })
}

/// `__enzyme_augmentsize` returns the tape's bytes as the call declared it (`size_t`, `int`).
fn size_result<'ctx>(
    b: &Builder<'ctx>,
    call: CallSiteValue<'ctx>,
    made: CallSiteValue<'ctx>,
) -> Built<Option<BasicValueEnum<'ctx>>> {
    let want = call.try_as_basic_value().basic().map(|v| v.get_type());
    match (want, made.try_as_basic_value().basic()) {
        (None, _) => Ok(None),
        (Some(want @ BasicTypeEnum::IntType(_)), Some(made)) => Ok(Some(convert(b, Argument::Value(made), want)?)),
        (Some(want), _) => Err(format!(
            "`__enzyme_augmentsize` gives the tape's size in bytes; declare it to return `size_t`, not `{}`",
            type_text(want)
        )),
    }
}

/// Builds a value of the call's struct, array or vector type from the gradients. The C ABI
/// may pack neighbouring floats into vectors (`{ <2 x float>, float }` for three floats), so
/// the gradients fill the type's scalar leaves in order, lanes included.
fn aggregate<'ctx>(
    b: &Builder<'ctx>,
    ty: BasicTypeEnum<'ctx>,
    outs: u32,
    what: &str,
    field: &dyn Fn(u32) -> Built<BasicValueEnum<'ctx>>,
) -> Built<BasicValueEnum<'ctx>> {
    if !matches!(ty, BasicTypeEnum::StructType(_) | BasicTypeEnum::ArrayType(_) | BasicTypeEnum::VectorType(_)) {
        return Err(format!("cannot return gradients as `{}`", type_text(ty)));
    }
    let leaves = count_leaves(ty);
    if leaves != u64::from(outs) {
        return Err(format!("the request's result `{}` holds {leaves} values but there are {outs} {what}", type_text(ty)));
    }
    let mut next = 0;
    fill(b, ty, &mut next, field)
}

/// How many scalars a (possibly nested) aggregate holds (saturating: a declared result of
/// billions of values is compared with the `out` count, not built).
fn count_leaves(ty: BasicTypeEnum<'_>) -> u64 {
    match ty {
        BasicTypeEnum::StructType(s) => s.get_field_types().into_iter().map(count_leaves).fold(0u64, u64::saturating_add),
        BasicTypeEnum::ArrayType(a) => array_length(a).saturating_mul(count_leaves(a.get_element_type())),
        BasicTypeEnum::VectorType(v) => u64::from(v.get_size()),
        _ => 1,
    }
}

/// A value of type `ty` whose scalar leaves are gradients `*next`, `*next + 1`, ...
fn fill<'ctx>(
    b: &Builder<'ctx>,
    ty: BasicTypeEnum<'ctx>,
    next: &mut u32,
    field: &dyn Fn(u32) -> Built<BasicValueEnum<'ctx>>,
) -> Built<BasicValueEnum<'ctx>> {
    match ty {
        BasicTypeEnum::StructType(s) => {
            let mut value = s.get_undef();
            for (i, elem_ty) in s.get_field_types().into_iter().enumerate() {
                let elem = fill(b, elem_ty, next, field)?;
                value = built(b.build_insert_value(value, elem, i as u32, ""))?.into_struct_value();
            }
            Ok(value.into())
        }
        BasicTypeEnum::ArrayType(a) => {
            let mut value = a.get_undef();
            for i in 0..array_length(a) as u32 {
                let elem = fill(b, a.get_element_type(), next, field)?;
                value = built(b.build_insert_value(value, elem, i, ""))?.into_array_value();
            }
            Ok(value.into())
        }
        BasicTypeEnum::VectorType(v) => {
            let i32_ty = v.get_context().i32_type();
            let mut value = v.get_undef();
            for lane in 0..v.get_size() {
                let elem = convert(b, Argument::Value(field(*next)?), v.get_element_type())?;
                *next += 1;
                value = built(b.build_insert_element(value, elem, i32_ty.const_int(u64::from(lane), false), ""))?;
            }
            Ok(value.into())
        }
        _ => {
            let value = convert(b, Argument::Value(field(*next)?), ty)?;
            *next += 1;
            Ok(value)
        }
    }
}
