//! The C entry points (DESIGN.md): finding calls to `__enzyme_autodiff`/`__zyg_autodiff`,
//! reading their activity markers, and replacing each call by a call to the generated
//! gradient, adapting arguments and the result to the call's own (C ABI) types.
//!
//! This works on the user's module through LLVM's C API (`llvm-sys`, re-exported by
//! inkwell), since the callers (often `main`) are never read into zyg-ir. Every handle
//! belongs to a module that outlives the calls here.

use crate::error::{DriverError, Result};
use crate::markers::{self, Flag, Marker};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use inkwell::module::Module;
use std::collections::HashMap;
use std::path::Path;
use zyg_transform::wrap::ResultSeed;
use zyg_transform::{ArgActivity, Entry};

/// One call site asking for a gradient.
pub struct Request {
    pub call: LLVMValueRef,
    /// What it asks for: a gradient, or split mode's forward or reverse half.
    pub entry: Entry,
    /// The reverse half's extra arguments: the result's adjoint (for float results; `None`
    /// for zero, with `enzyme_const_return`), the tape.
    pub extra: Vec<Option<LLVMValueRef>>,
    pub function: String,
    /// `const` arguments that are functions (callbacks), by parameter index: the function is
    /// differentiated specialised to them, so its calls through them are direct calls.
    pub callbacks: Vec<(usize, String)>,
    pub kinds: Vec<ArgActivity>,
    /// The primal argument for each parameter of `function`.
    pub values: Vec<LLVMValueRef>,
    /// The shadow given after each `dup` argument.
    pub shadows: Vec<Option<LLVMValueRef>>,
    /// The `sret` pointer when the C ABI returns the gradient struct through memory.
    pub sret: Option<LLVMValueRef>,
    /// Marker loads, removed when the call is gone.
    pub markers: Vec<LLVMValueRef>,
    /// Where the call is, for messages: `caller` and source location.
    pub place: String,
    /// How the function's result is seeded when that is not the plain float seed: a request
    /// for it differentiates a wrapper (`zyg_transform::wrap`).
    pub seed: Option<ResultSeed>,
    /// The type of the memory the function returns its result in (its first parameter is
    /// `sret`): that parameter is not among the request's arguments.
    pub result_memory: Option<LLVMTypeRef>,
}

/// The entry point a function name asks for, if it is a request.
pub fn request_entry(name: &str) -> Option<Entry> {
    let has = |what: &str| name.contains(&format!("__enzyme_{what}")) || name.contains(&format!("__zyg_{what}"));
    if has("autodiff") {
        Some(Entry::Gradient)
    } else if has("augmentfwd") {
        Some(Entry::Augmented)
    } else if has("reverse") {
        Some(Entry::Reverse)
    } else {
        None
    }
}

/// Every request in the module, in program order.
pub fn find_requests(module: &Module, path: &Path) -> Result<Vec<Request>> {
    crate::unfilled::check(module, path)?;
    let mut out = Vec::new();
    for f in module.get_functions() {
        // SAFETY: walking the live module's blocks and instructions.
        unsafe {
            let mut bb = LLVMGetFirstBasicBlock(f.as_value_ref_raw());
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    let is_call = !LLVMIsACallInst(inst).is_null();
                    if is_call || !LLVMIsAInvokeInst(inst).is_null() || !LLVMIsACallBrInst(inst).is_null() {
                        let callee = LLVMGetCalledValue(inst);
                        if !LLVMIsAFunction(callee).is_null() {
                            if let Some(entry) = request_entry(&name_of(callee)) {
                                if !is_call {
                                    return Err(DriverError::Request {
                                        path: path.to_path_buf(),
                                        message: format!(
                                            "{}: a gradient request made with `invoke` or `callbr` (a call that may throw) is not supported; call it with `call` (in C++, from a `noexcept` context)",
                                            place_of(inst)
                                        ),
                                    });
                                }
                                out.push(parse_request(inst, entry, path)?);
                            }
                        }
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
        }
    }
    Ok(out)
}

trait RawValue {
    fn as_value_ref_raw(&self) -> LLVMValueRef;
}

impl RawValue for inkwell::values::FunctionValue<'_> {
    fn as_value_ref_raw(&self) -> LLVMValueRef {
        use inkwell::values::AsValueRef;
        self.as_value_ref()
    }
}

use zyg_ir::llvm::value_name as name_of;

/// "in `main` at demo.c:12:5" for messages.
pub(crate) unsafe fn place_of(call: LLVMValueRef) -> String {
    let caller = name_of(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
    let line = LLVMGetDebugLocLine(call);
    if line == 0 {
        return format!("in `{caller}`");
    }
    let mut len = 0u32;
    let file = LLVMGetDebugLocFilename(call, &mut len);
    let file = if file.is_null() {
        String::new()
    } else {
        String::from_utf8_lossy(std::slice::from_raw_parts(file as *const u8, len as usize)).into_owned()
    };
    format!("in `{caller}` at {file}:{line}:{}", LLVMGetDebugLocColumn(call))
}

/// The function a value names, looking through pointer casts.
unsafe fn function_operand(mut v: LLVMValueRef) -> Option<LLVMValueRef> {
    use LLVMOpcode::*;
    for _ in 0..4 {
        if !LLVMIsAFunction(v).is_null() {
            return Some(v);
        }
        // Casts keep the address; an offset (`getelementptr (i8, ptr @f, i64 1)`) does not.
        let opcode = if !LLVMIsAConstantExpr(v).is_null() {
            LLVMGetConstOpcode(v)
        } else if !LLVMIsACastInst(v).is_null() {
            LLVMGetInstructionOpcode(v)
        } else {
            return None;
        };
        if !matches!(opcode, LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr) {
            return None;
        }
        v = LLVMGetOperand(v, 0);
    }
    None
}

/// The global variable a pointer argument is, or points into (through constant address
/// arithmetic and casts), if it is one.
pub fn global_variable(v: LLVMValueRef) -> Option<String> {
    // SAFETY: `v` is a live value; operands of constant expressions and instructions are
    // read while the module lives.
    unsafe {
        let mut v = v;
        for _ in 0..8 {
            if !LLVMIsAGlobalVariable(v).is_null() {
                return Some(name_of(v));
            }
            let through = !LLVMIsAConstantExpr(v).is_null()
                || !LLVMIsACastInst(v).is_null()
                || !LLVMIsAGetElementPtrInst(v).is_null();
            if !through || LLVMGetNumOperands(v) < 1 {
                return None;
            }
            v = LLVMGetOperand(v, 0);
        }
        None
    }
}

/// What a value that should name a function is instead, for messages.
unsafe fn describe(v: LLVMValueRef) -> String {
    if !LLVMIsAConstantPointerNull(v).is_null() {
        "a null pointer".into()
    } else if !LLVMIsAGlobalVariable(v).is_null() {
        format!("the global variable `@{}`", name_of(v))
    } else if !LLVMIsAConstantInt(v).is_null() {
        format!("the integer `{}`", value_text(v))
    } else if !LLVMIsAConstant(v).is_null() {
        format!("the constant `{}`", value_text(v))
    } else if !LLVMIsAArgument(v).is_null() || !LLVMIsAInstruction(v).is_null() {
        "a value computed at run time (a pointer variable)".into()
    } else {
        format!("`{}`", value_text(v))
    }
}

/// LLVM's printing of a value; a function or global as its type and name (LLVM prints a
/// function's whole body).
unsafe fn value_text(v: LLVMValueRef) -> String {
    if !LLVMIsAGlobalValue(v).is_null() {
        return format!("{} @{}", type_text(LLVMTypeOf(v)), name_of(v));
    }
    zyg_ir::llvm::take_message(LLVMPrintValueToString(v)).trim().to_string()
}

/// Whether the call's first argument carries the `sret` attribute.
unsafe fn has_sret(call: LLVMValueRef) -> bool {
    let kind = LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4);
    LLVMGetNumArgOperands(call) > 0 && !LLVMGetCallSiteEnumAttribute(call, 1, kind).is_null()
}

/// The marker an argument is, if it is one: a global named `enzyme_*` or `zyg_*` (or a
/// load of one), or a metadata string (`metadata !"enzyme_const"`, from MLIR or Julia).
unsafe fn marker(v: LLVMValueRef) -> Option<std::result::Result<Marker, String>> {
    if !LLVMIsAMDString(v).is_null() {
        let mut len = 0u32;
        let text = LLVMGetMDString(v, &mut len);
        let name = if text.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len as usize)).into_owned()
        };
        return Some(markers::classify(&name).unwrap_or_else(|| {
            Err(format!("the metadata argument `!\"{name}\"` is not a marker zyg knows"))
        }));
    }
    let global = if !LLVMIsALoadInst(v).is_null() { LLVMGetOperand(v, 0) } else { v };
    if LLVMIsAGlobalVariable(global).is_null() {
        return None;
    }
    markers::classify(&name_of(global))
}

/// The request's arguments after the function, with the flags taken out (they may stand
/// anywhere, as in Enzyme) and activity markers left in place.
struct Arguments {
    items: std::collections::VecDeque<(LLVMValueRef, Option<ArgActivity>)>,
    flags: Vec<Flag>,
    markers: Vec<LLVMValueRef>,
}

impl Arguments {
    /// The next argument, which must not be an activity marker (`what` it is for messages);
    /// `None` when there are no more.
    fn next_value(&mut self, what: &str) -> std::result::Result<Option<LLVMValueRef>, String> {
        match self.items.pop_front() {
            Some((v, None)) => Ok(Some(v)),
            Some((_, Some(_))) => Err(format!("two activity markers in a row before {what}")),
            None => Ok(None),
        }
    }
}

unsafe fn read_arguments(args: &[LLVMValueRef]) -> std::result::Result<Arguments, String> {
    let mut out = Arguments { items: Default::default(), flags: Vec::new(), markers: Vec::new() };
    for &a in args {
        match marker(a) {
            None => out.items.push_back((a, None)),
            Some(m) => {
                out.markers.push(a);
                match m? {
                    Marker::Activity(kind) => out.items.push_back((a, Some(kind))),
                    Marker::Flag(flag) => out.flags.push(flag),
                }
            }
        }
    }
    Ok(out)
}

unsafe fn parse_request(call: LLVMValueRef, entry: Entry, path: &Path) -> Result<Request> {
    let place = place_of(call);
    let fail = |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("{place}: {message}") };
    let n = LLVMGetNumArgOperands(call);
    let args: Vec<LLVMValueRef> = (0..n).map(|i| LLVMGetOperand(call, i)).collect();
    // With an `sret` result (the attribute on the call's first argument), the first
    // argument is the result's memory and the function comes second.
    let sret = has_sret(call).then(|| args.first().copied()).flatten();
    let named = args.get(usize::from(sret.is_some())).copied();
    let Some(first) = named.and_then(|a| function_operand(a)) else {
        let what = named.map(|v| describe(v)).unwrap_or_else(|| "nothing".into());
        return Err(fail(format!(
            "the first argument of a gradient request must name a function known at compile time, but it is {what}"
        )));
    };
    let function = zyg_ir::llvm::global_name(first).map_err(fail)?;
    let fn_ty = LLVMGlobalGetValueType(first);
    let nparams = LLVMCountParamTypes(fn_ty) as usize;
    let mut params = vec![std::ptr::null_mut(); nparams];
    LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
    // A result returned through memory (`sret`) is the function's first parameter, which
    // the request does not pass (it asks in C's terms).
    let result_memory = sret_param_type(first);
    let params = &params[usize::from(result_memory.is_some())..];
    let mut rest = read_arguments(&args[if sret.is_some() { 2 } else { 1 }..]).map_err(fail)?;
    let (mut kinds, mut values, mut shadows) = (Vec::new(), Vec::new(), Vec::new());
    let mut callbacks = Vec::new();
    let next_value = |rest: &mut Arguments, what: &str| rest.next_value(what).map_err(fail);
    for (i, pty) in params.iter().enumerate() {
        let kind = match rest.items.front() {
            Some((_, Some(kind))) => {
                let kind = *kind;
                rest.items.pop_front();
                Some(kind)
            }
            _ => None,
        };
        let Some(value) = next_value(&mut rest, &format!("parameter {i}"))? else {
            return Err(fail(format!("too few arguments for `{function}`: nothing for parameter {i}")));
        };
        if !fits(LLVMTypeOf(value), *pty) {
            return Err(fail(format!(
                "parameter {i} of `{function}` is a `{}`, but the request passes `{}`",
                type_text(*pty),
                value_text(value)
            )));
        }
        // A function passed as an argument (a callback) is `const` unless marked.
        let kind = kind.unwrap_or_else(|| if LLVMIsAFunction(value).is_null() { default_kind(*pty) } else { ArgActivity::Const });
        if kind == ArgActivity::Const && !LLVMIsAFunction(value).is_null() {
            // By the function's own parameter index (its `sret` parameter first).
            callbacks.push((i + usize::from(result_memory.is_some()), zyg_ir::llvm::global_name(value).map_err(fail)?));
        }
        let shadow = if kind == ArgActivity::Dup {
            let given = next_value(&mut rest, &format!("the shadow of parameter {i}"))?;
            Some(shadow_of(given, i, &function, *pty).map_err(fail)?)
        } else {
            None
        };
        if kind == ArgActivity::Active && !is_float(*pty) {
            return Err(fail(format!("parameter {i} of `{function}` is marked `out` but is not a floating-point value")));
        }
        kinds.push(kind);
        values.push(value);
        shadows.push(shadow);
    }
    let flags = &rest.flags;
    let seed = result_seed(entry, flags, &function, LLVMGetReturnType(fn_ty), result_memory).map_err(fail)?;
    let extra = if entry == Entry::Reverse {
        reverse_extras(&mut rest, LLVMGetReturnType(fn_ty), &function).map_err(fail)?
    } else {
        Vec::new()
    };
    if !rest.items.is_empty() {
        return Err(fail(format!("too many arguments for `{function}`, which takes {}", params.len())));
    }
    Ok(Request {
        call,
        entry,
        extra,
        function,
        kinds,
        values,
        shadows,
        sret,
        markers: rest.markers,
        place,
        callbacks,
        seed,
        result_memory,
    })
}

/// The reverse half's last arguments: the result's adjoint (for a float result) and the
/// tape; with `enzyme_const_return` the adjoint is zero (`None`) and not passed.
unsafe fn reverse_extras(
    rest: &mut Arguments,
    ret: LLVMTypeRef,
    function: &str,
) -> std::result::Result<Vec<Option<LLVMValueRef>>, String> {
    let mut extra = Vec::new();
    let constant = rest.flags.contains(&Flag::ConstReturn);
    if constant && holds_float(ret) {
        extra.push(None);
    }
    let takes_adjoint = is_float(ret) && !constant;
    for _ in 0..usize::from(takes_adjoint) + 1 {
        match rest.next_value("the reverse call's last arguments")? {
            Some(v) => extra.push(Some(v)),
            None => {
                let what = if takes_adjoint { "the result's adjoint and the tape" } else { "the tape" };
                return Err(format!("the reverse call for `{function}` must end with {what}"));
            }
        }
    }
    Ok(extra)
}

/// Whether a request may pass a value of type `value` for a parameter of type `param`: the
/// same type, or floats or integers of other widths (C's promotions through `...`).
unsafe fn fits(value: LLVMTypeRef, param: LLVMTypeRef) -> bool {
    let int = |t| LLVMGetTypeKind(t) == LLVMTypeKind::LLVMIntegerTypeKind;
    value == param || (is_float(value) && is_float(param)) || (int(value) && int(param))
}

/// The shadow `given` after a `dup` argument for parameter `i` (of type `param`) of
/// `function`: a pointer, for a pointer.
unsafe fn shadow_of(
    given: Option<LLVMValueRef>,
    i: usize,
    function: &str,
    param: LLVMTypeRef,
) -> std::result::Result<LLVMValueRef, String> {
    let is_ptr = |t| LLVMGetTypeKind(t) == LLVMTypeKind::LLVMPointerTypeKind;
    if !is_ptr(param) {
        return Err(format!("parameter {i} of `{function}` is marked `dup` but is not a pointer"));
    }
    match given {
        Some(s) if is_ptr(LLVMTypeOf(s)) => Ok(s),
        Some(s) => Err(format!("parameter {i} of `{function}` is `dup`, but its shadow `{}` is not a pointer", value_text(s))),
        None => Err(format!("parameter {i} of `{function}` is `dup` but no shadow follows it")),
    }
}

/// The type of the memory `f` returns its result in, when its first parameter is `sret`.
unsafe fn sret_param_type(f: LLVMValueRef) -> Option<LLVMTypeRef> {
    if LLVMCountParams(f) == 0 {
        return None;
    }
    let kind = LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4);
    let attr = LLVMGetEnumAttributeAtIndex(f, 1, kind);
    (!attr.is_null()).then(|| LLVMGetTypeAttributeValue(attr)).filter(|t| !t.is_null())
}

/// Whether a value of type `ty` holds a float (a float, or a struct, array or vector with one).
unsafe fn holds_float(ty: LLVMTypeRef) -> bool {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMStructTypeKind => (0..LLVMCountStructElementTypes(ty)).any(|i| holds_float(LLVMStructGetTypeAtIndex(ty, i))),
        LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => holds_float(LLVMGetElementType(ty)),
        _ => is_float(ty),
    }
}

/// How the request seeds the function's result (see `Request::seed`), or why it cannot:
/// zyg seeds a float result with 1; a struct, array or vector of floats (in registers, or
/// in `sret` memory) needs `enzyme_const_return` (no seed) or `enzyme_active_return`
/// (every float seeded with 1, as Enzyme does).
unsafe fn result_seed(
    entry: Entry,
    flags: &[Flag],
    function: &str,
    ret: LLVMTypeRef,
    memory: Option<LLVMTypeRef>,
) -> std::result::Result<Option<ResultSeed>, String> {
    let (constant, active) = (flags.contains(&Flag::ConstReturn), flags.contains(&Flag::ActiveReturn));
    if constant && active {
        return Err("`enzyme_const_return` and `enzyme_active_return` contradict each other".into());
    }
    if flags.contains(&Flag::NoFree) && entry != Entry::Gradient {
        return Err("the flag `enzyme_nofree` keeps the tape alive after the reverse call; zyg does not support it \
                    yet: zyg's reverse half frees the tape"
            .into());
    }
    let result = memory.unwrap_or(ret);
    // A named struct by its name (`%struct.quad`), not its whole definition.
    let name = if LLVMGetTypeKind(result) == LLVMTypeKind::LLVMStructTypeKind { LLVMGetStructName(result) } else { std::ptr::null() };
    let shown = if name.is_null() { type_text(result) } else { format!("%{}", std::ffi::CStr::from_ptr(name).to_string_lossy()) };
    let aggregate = holds_float(result) && !is_float(result);
    if memory.is_some() && entry != Entry::Gradient {
        return Err(format!(
            "`{function}` returns its result through memory (`sret` `{shown}`); split mode does not support that yet: \
             return the outputs through a `dup` pointer argument instead"
        ));
    }
    if active && !holds_float(result) {
        return Err(format!("`enzyme_active_return` asks to seed the result, but `{function}` returns `{shown}`, which holds no float"));
    }
    let what = if memory.is_some() { "returns through memory" } else { "returns" };
    Ok(match entry {
        Entry::Gradient if constant && holds_float(result) => Some(ResultSeed::None),
        Entry::Gradient if active && aggregate => Some(ResultSeed::Sum),
        Entry::Gradient if aggregate => {
            return Err(format!(
                "`{function}` {what} `{shown}`, a struct of floats, and zyg does not seed a struct result: ask for \
                 a scalar (a function returning one float), or write the outputs through a `dup` pointer argument; \
                 or pass `enzyme_const_return` to seed nothing (only the outputs through memory count), or \
                 `enzyme_active_return` to seed every float of the result with 1 (the gradient of their sum), as \
                 Enzyme does"
            ))
        }
        // The parameter the result memory is passed in must go: a wrapper allocates it.
        Entry::Gradient if memory.is_some() => Some(ResultSeed::None),
        Entry::Reverse if aggregate && !constant => {
            return Err(format!(
                "`{function}` returns `{shown}`: the reverse half takes the result's adjoint only for a float result; \
                 pass `enzyme_const_return` if the result needs no adjoint, or return the outputs through a `dup` \
                 pointer argument"
            ))
        }
        _ => None,
    })
}

/// Unmarked arguments: floats are `out`, pointers `dup`, integers `const`.
unsafe fn default_kind(ty: LLVMTypeRef) -> ArgActivity {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMPointerTypeKind => ArgActivity::Dup,
        _ if is_float(ty) => ArgActivity::Active,
        _ => ArgActivity::Const,
    }
}

unsafe fn is_float(ty: LLVMTypeRef) -> bool {
    float_bits(ty).is_some()
}

unsafe fn float_bits(ty: LLVMTypeRef) -> Option<u32> {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMHalfTypeKind | LLVMTypeKind::LLVMBFloatTypeKind => Some(16),
        LLVMTypeKind::LLVMFloatTypeKind => Some(32),
        LLVMTypeKind::LLVMDoubleTypeKind => Some(64),
        LLVMTypeKind::LLVMX86_FP80TypeKind => Some(80),
        LLVMTypeKind::LLVMFP128TypeKind => Some(128),
        _ => None,
    }
}

/// Converts between float widths and integer widths as C's argument promotion requires
/// (a `float` passed through `...` arrives as `double`).
unsafe fn convert(b: LLVMBuilderRef, v: LLVMValueRef, to: LLVMTypeRef) -> std::result::Result<LLVMValueRef, String> {
    let from = LLVMTypeOf(v);
    if from == to {
        return Ok(v);
    }
    let name = c"".as_ptr();
    if let (Some(fb), Some(tb)) = (float_bits(from), float_bits(to)) {
        let op = if fb < tb { LLVMOpcode::LLVMFPExt } else { LLVMOpcode::LLVMFPTrunc };
        return Ok(LLVMBuildCast(b, op, v, to, name));
    }
    if LLVMGetTypeKind(from) == LLVMTypeKind::LLVMIntegerTypeKind && LLVMGetTypeKind(to) == LLVMTypeKind::LLVMIntegerTypeKind {
        return Ok(LLVMBuildIntCast2(b, v, to, 1, name));
    }
    Err(format!(
        "cannot pass a value of type `{}` where `{}` is expected",
        crate::callsite::type_text(from),
        crate::callsite::type_text(to)
    ))
}

pub(crate) fn type_text(t: LLVMTypeRef) -> String {
    // SAFETY: LLVM allocates the string; it is copied and disposed.
    unsafe {
        let p = LLVMPrintTypeToString(t);
        let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

/// The function a request's call becomes a call to.
pub struct Target {
    /// The gradient (or split mode's half), returning a struct of the `out` gradients...
    pub function: LLVMValueRef,
    /// ...or, with the struct's type here, a function that takes a pointer to such a struct
    /// first and stores the gradients there: for a struct of many fields, which the call
    /// site then reads from memory (see `grad::WIDE_GRADIENT`).
    pub through: Option<LLVMTypeRef>,
}

/// Replaces each request's call with a call to its gradient function (which returns a struct
/// of the `out` gradients in argument order), and then deletes the requests' calls.
///
/// One request can use another's result: the reverse half of split mode takes the tape the
/// forward half returned. So the old calls stay until all are rewritten, and a request's
/// arguments go through `replaced`: an argument that is an earlier request's call becomes
/// that call's replacement, and one rewritten later is caught by its replace-all-uses.
pub(crate) fn rewrite_all(requests: &[Request], gradients: &[Target], path: &Path) -> Result<()> {
    let mut replaced: HashMap<LLVMValueRef, LLVMValueRef> = HashMap::new();
    for (request, gradient) in requests.iter().zip(gradients) {
        let fail = |message: String| DriverError::Request {
            path: path.to_path_buf(),
            message: format!("{}: {message}", request.place),
        };
        // SAFETY: the call, its function and `gradient` are live in the same module; the
        // requests' calls are erased only after the loop.
        unsafe {
            let call = request.call;
            let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
            let b = LLVMCreateBuilderInContext(ctx);
            LLVMPositionBuilderBefore(b, call);
            // The replacement keeps the request's source location.
            LLVMSetCurrentDebugLocation2(b, inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(call));
            let result = build_replacement(b, request, gradient, &replaced);
            LLVMDisposeBuilder(b);
            match result.map_err(fail)? {
                Some(r) => {
                    LLVMReplaceAllUsesWith(call, r);
                    replaced.insert(call, r);
                }
                // The call is erased below: nothing may use its result.
                None if !LLVMGetFirstUse(call).is_null() => {
                    return Err(fail(format!(
                        "the request's own result (`{}`) is used, but its gradients go to its `sret` memory",
                        type_text(LLVMTypeOf(call))
                    )))
                }
                None => {}
            }
        }
    }
    for request in requests {
        // SAFETY: every use of the call was replaced above (a call whose replacement is
        // `None` has no use: checked above).
        unsafe { LLVMInstructionEraseFromParent(request.call) };
    }
    Ok(())
}

/// Once every request is rewritten, deletes the marker loads nothing uses any more. At -O2
/// one load often feeds several markers and several calls, so each is visited once.
pub fn remove_dead_markers(requests: &[Request]) {
    let mut markers: Vec<LLVMValueRef> = requests.iter().flat_map(|r| r.markers.iter().copied()).collect();
    markers.sort_unstable();
    markers.dedup();
    for m in markers {
        // SAFETY: each marker is a live value of the module, visited once.
        unsafe {
            if !LLVMIsALoadInst(m).is_null() && LLVMGetFirstUse(m).is_null() {
                LLVMInstructionEraseFromParent(m);
            }
        }
    }
}

unsafe fn build_replacement(
    b: LLVMBuilderRef,
    request: &Request,
    target: &Target,
    replaced: &HashMap<LLVMValueRef, LLVMValueRef>,
) -> std::result::Result<Option<LLVMValueRef>, String> {
    let name = c"".as_ptr();
    let fn_ty = LLVMGlobalGetValueType(target.function);
    let mut params = vec![std::ptr::null_mut(); LLVMCountParamTypes(fn_ty) as usize];
    LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
    // The gradient takes the function's arguments, each `dup` one followed by its shadow
    // (after the result's memory, when it goes through memory).
    let mut given = Vec::new();
    for (v, shadow) in request.values.iter().zip(&request.shadows) {
        given.push(Some(*v));
        if let Some(shadow) = shadow {
            given.push(Some(*shadow));
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
    let mut args = Vec::new();
    let slot = target.through.map(|ty| entry_alloca(request.call, ty));
    args.extend(slot);
    for (v, p) in given.iter().zip(&params[skip..]) {
        // A missing value is a zero: the result's adjoint under `enzyme_const_return`.
        let Some(v) = v else {
            args.push(LLVMConstNull(*p));
            continue;
        };
        let v = replaced.get(v).copied().unwrap_or(*v);
        args.push(convert(b, v, *p)?);
    }
    let made = LLVMBuildCall2(b, fn_ty, target.function, args.as_mut_ptr(), args.len() as u32, name);
    if request.entry == Entry::Augmented {
        return augmented_result(b, request.call, made);
    }
    let grads_ty = target.through.unwrap_or(LLVMTypeOf(made));
    if LLVMGetTypeKind(grads_ty) != LLVMTypeKind::LLVMStructTypeKind {
        return Err(format!("internal error: the gradient returns `{}`, not a struct", type_text(grads_ty)));
    }
    let outs = LLVMCountStructElementTypes(grads_ty);
    let field = |i: u32| match slot {
        Some(slot) => {
            let at = LLVMBuildStructGEP2(b, grads_ty, slot, i, name);
            LLVMBuildLoad2(b, LLVMStructGetTypeAtIndex(grads_ty, i), at, name)
        }
        None => LLVMBuildExtractValue(b, made, i, name),
    };
    if let Some(sret) = request.sret {
        let ty = sret_type(request.call).unwrap_or(grads_ty);
        let value = aggregate(b, ty, outs, &field)?;
        LLVMBuildStore(b, value, sret);
        return Ok(None);
    }
    let ty = LLVMTypeOf(request.call);
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVoidTypeKind if outs > 0 => Err(format!(
            "the request is declared to return nothing, but it has {outs} `out` argument(s) whose gradient it would \
             throw away; declare it to return double (or float, or a struct of {outs})"
        )),
        LLVMTypeKind::LLVMVoidTypeKind => Ok(None),
        _ if is_float(ty) => match outs {
            0 => Ok(Some(LLVMConstNull(ty))),
            1 => Ok(Some(convert(b, field(0), ty)?)),
            n => Err(format!(
                "the request returns one `{}` but has {n} `out` arguments; declare it to return a struct of {n}",
                type_text(ty)
            )),
        },
        _ => Ok(Some(aggregate(b, ty, outs, &field)?)),
    }
}

/// A stack slot of type `ty` at the start of the entry block of the function holding
/// `call` (where SROA finds it once the callee is inlined).
unsafe fn entry_alloca(call: LLVMValueRef, ty: LLVMTypeRef) -> LLVMValueRef {
    let entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
    let ctx = LLVMGetTypeContext(ty);
    let at = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilder(at, entry, LLVMGetFirstInstruction(entry));
    let slot = LLVMBuildAlloca(at, ty, c"gradients".as_ptr());
    LLVMDisposeBuilder(at);
    slot
}

/// The forward half returns the tape, or `{ tape, result }`: give the call what it declared.
unsafe fn augmented_result(
    b: LLVMBuilderRef,
    call: LLVMValueRef,
    made: LLVMValueRef,
) -> std::result::Result<Option<LLVMValueRef>, String> {
    let (want, have) = (LLVMTypeOf(call), LLVMTypeOf(made));
    let name = c"".as_ptr();
    Ok(match LLVMGetTypeKind(want) {
        LLVMTypeKind::LLVMVoidTypeKind => None,
        _ if want == have => Some(made),
        LLVMTypeKind::LLVMPointerTypeKind if LLVMGetTypeKind(have) == LLVMTypeKind::LLVMStructTypeKind => {
            Some(LLVMBuildExtractValue(b, made, 0, name))
        }
        LLVMTypeKind::LLVMStructTypeKind if LLVMGetTypeKind(have) == LLVMTypeKind::LLVMStructTypeKind => {
            let mut value = LLVMGetUndef(want);
            for i in 0..LLVMCountStructElementTypes(want).min(2) {
                let field = LLVMBuildExtractValue(b, made, i, name);
                let field = convert(b, field, LLVMStructGetTypeAtIndex(want, i))?;
                value = LLVMBuildInsertValue(b, value, field, i, name);
            }
            Some(value)
        }
        _ => {
            return Err(format!(
                "the forward half returns `{}`; declare it to return `void *` (the tape) or a struct {{ void *, result }}",
                type_text(want)
            ))
        }
    })
}

/// Builds a value of the call's struct, array or vector type from the gradients. The C ABI
/// may pack neighbouring floats into vectors (`{ <2 x float>, float }` for three floats), so
/// the gradients fill the type's scalar leaves in order, lanes included.
unsafe fn aggregate(
    b: LLVMBuilderRef,
    ty: LLVMTypeRef,
    outs: u32,
    field: &dyn Fn(u32) -> LLVMValueRef,
) -> std::result::Result<LLVMValueRef, String> {
    if !matches!(
        LLVMGetTypeKind(ty),
        LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind
    ) {
        return Err(format!("cannot return gradients as `{}`", type_text(ty)));
    }
    let leaves = count_leaves(ty);
    if leaves != u64::from(outs) {
        return Err(format!(
            "the request's result `{}` holds {leaves} values but there are {outs} `out` arguments",
            type_text(ty)
        ));
    }
    let mut next = 0;
    fill(b, ty, &mut next, field)
}

/// How many scalars a (possibly nested) aggregate holds (saturating: a declared result of
/// billions of values is compared with the `out` count, not built).
unsafe fn count_leaves(ty: LLVMTypeRef) -> u64 {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMStructTypeKind => (0..LLVMCountStructElementTypes(ty))
            .map(|i| count_leaves(LLVMStructGetTypeAtIndex(ty, i)))
            .fold(0u64, u64::saturating_add),
        LLVMTypeKind::LLVMArrayTypeKind => LLVMGetArrayLength2(ty).saturating_mul(count_leaves(LLVMGetElementType(ty))),
        LLVMTypeKind::LLVMVectorTypeKind => u64::from(LLVMGetVectorSize(ty)),
        _ => 1,
    }
}

/// A value of type `ty` whose scalar leaves are gradients `*next`, `*next + 1`, ...
unsafe fn fill(
    b: LLVMBuilderRef,
    ty: LLVMTypeRef,
    next: &mut u32,
    field: &dyn Fn(u32) -> LLVMValueRef,
) -> std::result::Result<LLVMValueRef, String> {
    let name = c"".as_ptr();
    let mut value = LLVMGetUndef(ty);
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMStructTypeKind | LLVMTypeKind::LLVMArrayTypeKind => {
            let is_struct = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMStructTypeKind;
            let n = if is_struct { LLVMCountStructElementTypes(ty) } else { LLVMGetArrayLength2(ty) as u32 };
            for i in 0..n {
                let elem_ty = if is_struct { LLVMStructGetTypeAtIndex(ty, i) } else { LLVMGetElementType(ty) };
                let elem = fill(b, elem_ty, next, field)?;
                value = LLVMBuildInsertValue(b, value, elem, i, name);
            }
        }
        LLVMTypeKind::LLVMVectorTypeKind => {
            let i32_ty = LLVMInt32TypeInContext(LLVMGetTypeContext(ty));
            for lane in 0..LLVMGetVectorSize(ty) {
                let v = convert(b, field(*next), LLVMGetElementType(ty))?;
                *next += 1;
                value = LLVMBuildInsertElement(b, value, v, LLVMConstInt(i32_ty, u64::from(lane), 0), name);
            }
        }
        _ => {
            value = convert(b, field(*next), ty)?;
            *next += 1;
        }
    }
    Ok(value)
}

/// The struct type named by the call's `sret(...)` attribute on its first argument.
unsafe fn sret_type(call: LLVMValueRef) -> Option<LLVMTypeRef> {
    let kind = LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4);
    let attr = LLVMGetCallSiteEnumAttribute(call, 1, kind);
    (!attr.is_null()).then(|| LLVMGetTypeAttributeValue(attr)).filter(|t| !t.is_null())
}
