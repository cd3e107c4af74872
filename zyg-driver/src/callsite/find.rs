//! Reading one request: the function it names, each parameter's argument, activity marker
//! and shadow, the flags, and how the result is seeded.

use super::{default_kind, holds_float, holds_pointer, is_float, place_of, type_text, Request, Shadows};
use crate::error::{DriverError, Result};
use crate::markers::{self, Flag, Marker};
use inkwell::types::BasicTypeEnum;
use inkwell::values::CallSiteValue;
use std::path::Path;
use zyg_ir::llvm::calls;
use zyg_ir::llvm::values::{global_value_name, name_of, parameter_types, return_type, Argument, ValueClass};
use zyg_transform::ResultSeed;
use zyg_transform::{ArgActivity, Entry};

/// What a value that should name a function is instead, for messages.
fn describe(v: Argument<'_>) -> String {
    match v.class() {
        ValueClass::NullPointer => "a null pointer".into(),
        ValueClass::GlobalVariable(g) => format!("the global variable `@{}`", name_of(&g)),
        ValueClass::ConstantInt => format!("the integer `{}`", v.text()),
        ValueClass::Constant => format!("the constant `{}`", v.text()),
        ValueClass::Computed => "a value computed at run time (a pointer variable)".into(),
        ValueClass::Other => format!("`{}`", v.text()),
    }
}

/// The marker an argument is, if it is one: a global named `enzyme_*` or `zyg_*` (or a
/// load of one), or a metadata string (`metadata !"enzyme_const"`, from MLIR or Julia).
fn marker(v: Argument<'_>) -> Option<std::result::Result<Marker, String>> {
    if let Some(name) = v.metadata_string() {
        return Some(
            markers::classify(&name)
                .unwrap_or_else(|| Err(format!("the metadata argument `!\"{name}\"` is not a marker zyg knows"))),
        );
    }
    markers::classify(&name_of(&v.global_read()?))
}

/// An activity marker as read: the activity, and whether it is vector mode's strided
/// `dup` (`enzyme_dupv`).
type Activity = (ArgActivity, bool);

/// The widest vector mode zyg accepts: each lane is a copy of the tangent code.
const MAX_WIDTH: u64 = 64;

/// The request's arguments after the function, with the flags and the width taken out
/// (they may stand anywhere, as in Enzyme) and activity markers left in place.
struct Arguments<'ctx> {
    items: std::collections::VecDeque<(Argument<'ctx>, Option<Activity>)>,
    flags: Vec<Flag>,
    markers: Vec<Argument<'ctx>>,
    /// `enzyme_width`'s N (1 without it).
    width: u32,
    /// `zyg_tape_budget`'s bytes.
    tape_budget: Option<u64>,
    /// `enzyme_allocated`'s size and `enzyme_tape`'s pointer: split mode's tape in memory
    /// the caller allocated.
    allocated: Option<Argument<'ctx>>,
    tape: Option<Argument<'ctx>>,
}

impl<'ctx> Arguments<'ctx> {
    fn read(args: &[Argument<'ctx>]) -> std::result::Result<Self, String> {
        let mut out = Arguments {
            items: Default::default(),
            flags: Vec::new(),
            markers: Vec::new(),
            width: 1,
            tape_budget: None,
            allocated: None,
            tape: None,
        };
        let mut args = args.iter().copied();
        let mut width_given = false;
        while let Some(a) = args.next() {
            match marker(a) {
                None => out.items.push_back((a, None)),
                Some(m) => {
                    out.markers.push(a);
                    match m? {
                        Marker::Activity(kind) => out.items.push_back((a, Some((kind, false)))),
                        Marker::StridedDup => out.items.push_back((a, Some((ArgActivity::Dup, true)))),
                        Marker::Flag(flag) => out.flags.push(flag),
                        Marker::Width => {
                            let n = args.next().and_then(|n| n.value()).and_then(zyg_ir::llvm::values::constant_unsigned);
                            match n {
                                Some(n) if (1..=MAX_WIDTH).contains(&n) && !width_given => out.width = n as u32,
                                Some(_) if width_given => return Err("`enzyme_width` is given twice".into()),
                                _ => {
                                    return Err(format!(
                                        "`enzyme_width` must be followed by an integer constant from 1 to {MAX_WIDTH}, \
                                         the number of derivatives in one sweep"
                                    ))
                                }
                            }
                            width_given = true;
                        }
                        Marker::Allocated => {
                            let size = args.next().filter(|n| marker(*n).is_none());
                            out.allocated = Some(caller_tape_operand(size, out.allocated, "enzyme_allocated")?);
                        }
                        Marker::Tape => {
                            let memory = args.next().filter(|n| marker(*n).is_none());
                            out.tape = Some(caller_tape_operand(memory, out.tape, "enzyme_tape")?);
                        }
                        Marker::TapeBudget => {
                            let n = args.next().and_then(|n| n.value()).and_then(zyg_ir::llvm::values::constant_unsigned);
                            match n {
                                Some(n) if n > 0 && out.tape_budget.is_none() => out.tape_budget = Some(n),
                                Some(_) if out.tape_budget.is_some() => return Err("`zyg_tape_budget` is given twice".into()),
                                _ => {
                                    return Err("`zyg_tape_budget` must be followed by an integer constant greater \
                                                than 0, the budget in bytes"
                                        .into())
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// The entry a split-mode request with `enzyme_allocated` and `enzyme_tape` asks for:
    /// its half with the tape in the caller's memory; `entry` itself without them.
    fn caller_tape_entry(&self, entry: Entry) -> std::result::Result<Entry, String> {
        let wrong_entry = |what: &str| {
            format!(
                "{what} gives split mode's tape memory, and {} keeps no tape for the caller; give it to \
                 `__enzyme_augmentfwd` and `__enzyme_reverse`",
                match entry {
                    Entry::TapeSize => "`__enzyme_augmentsize`, which takes only activity markers,",
                    Entry::Forward => "forward mode",
                    _ => "a gradient request",
                }
            )
        };
        match (self.allocated.is_some(), self.tape.is_some(), entry) {
            (false, false, _) => Ok(entry),
            (_, _, Entry::Gradient | Entry::Forward | Entry::TapeSize) => {
                Err(wrong_entry(if self.allocated.is_some() { "`enzyme_allocated`" } else { "`enzyme_tape`" }))
            }
            (true, true, Entry::Augmented) => Ok(Entry::AugmentedInto),
            (true, true, _) => Ok(Entry::ReverseFrom),
            (true, false, _) => Err("`enzyme_allocated, size` gives the size of the tape memory the caller allocated, \
                                     and `enzyme_tape, pointer` must give the memory; give both"
                .into()),
            // Enzyme also reads `enzyme_tape` alone as a pointer to a variable holding a
            // tape on the heap; zyg refuses it rather than guess which of the two a pointer
            // is (reading a heap tape's address as the tape would be silently wrong).
            (false, true, _) => Err("`enzyme_tape, pointer` without `enzyme_allocated, size`: zyg reads it as tape \
                                     memory the caller allocated, and needs its size: give `enzyme_allocated` and the \
                                     bytes (those `__enzyme_augmentsize` gives) in both halves; for a tape on the heap, \
                                     which `__enzyme_augmentfwd` returns, pass the tape itself as the reverse call's \
                                     last argument"
                .into()),
        }
    }

    /// The activity marker that comes next, taken, if one does.
    fn next_marker(&mut self) -> Option<Activity> {
        let kind = self.items.front()?.1?;
        self.items.pop_front();
        Some(kind)
    }

    /// The next argument, which must not be an activity marker (`what` it is for messages);
    /// `None` when there are no more.
    fn next_value(&mut self, what: &str) -> std::result::Result<Option<Argument<'ctx>>, String> {
        match self.items.pop_front() {
            Some((v, None)) => Ok(Some(v)),
            Some((_, Some(_))) => Err(format!("two activity markers in a row before {what}")),
            None => Ok(None),
        }
    }
}

/// The value after `enzyme_allocated` (an integer, the size) or `enzyme_tape` (a pointer,
/// the memory), given at most once.
fn caller_tape_operand<'ctx>(
    given: Option<Argument<'ctx>>,
    before: Option<Argument<'ctx>>,
    marker: &str,
) -> std::result::Result<Argument<'ctx>, String> {
    let (what, fits): (&str, fn(&inkwell::values::BasicValueEnum<'_>) -> bool) = match marker {
        "enzyme_allocated" => ("the size in bytes of the tape memory, an integer", |v| v.is_int_value()),
        _ => ("a pointer to the tape memory", |v| v.is_pointer_value()),
    };
    match given {
        _ if before.is_some() => Err(format!("`{marker}` is given twice")),
        Some(v) if v.value().is_some_and(|v| fits(&v)) => Ok(v),
        _ => Err(format!("`{marker}` must be followed by {what}")),
    }
}

pub(super) fn parse_request<'ctx>(call: CallSiteValue<'ctx>, entry: Entry, path: &Path) -> Result<Request<'ctx>> {
    let place = place_of(calls::instruction(call));
    let fail = |message: String| DriverError::Request { path: path.to_path_buf(), message: format!("{place}: {message}") };
    let args = calls::arguments(call);
    // With an `sret` result (the attribute on the call's first argument), the first
    // argument is the result's memory and the function comes second.
    let sret = calls::sret_argument_type(call).and_then(|_| args.first().copied());
    let named = args.get(usize::from(sret.is_some())).copied();
    let Some(first) = named.and_then(Argument::function_through_casts) else {
        let what = named.map(describe).unwrap_or_else(|| "nothing".into());
        return Err(fail(format!(
            "the first argument of a gradient request must name a function known at compile time, but it is {what}"
        )));
    };
    let function = global_value_name(first.as_global_value()).map_err(fail)?;
    // A result returned through memory (`sret`) is the function's first parameter, which
    // the request does not pass (it asks in C's terms).
    let result_memory = calls::sret_parameter_type(first);
    let params = &parameter_types(first)[usize::from(result_memory.is_some())..];
    let mut rest = Arguments::read(&args[if sret.is_some() { 2 } else { 1 }..]).map_err(fail)?;
    let entry = rest.caller_tape_entry(entry).map_err(fail)?;
    if entry == Entry::TapeSize {
        let kinds = size_request_kinds(&mut rest, params, &function).map_err(fail)?;
        // The tape `__enzyme_augmentfwd` writes: refused where it is refused.
        result_seed(Entry::Augmented, &[], &function, return_type(first), result_memory).map_err(fail)?;
        return Ok(Request {
            call,
            entry,
            extra: Vec::new(),
            function,
            kinds,
            values: Vec::new(),
            shadows: Vec::new(),
            width: 1,
            tape_budget: None,
            sret,
            markers: rest.markers,
            place,
            callbacks: Vec::new(),
            seed: None,
            result_memory,
            unwind: None,
        });
    }
    let width = rest.width;
    let tape_budget = rest.tape_budget;
    if tape_budget.is_some() && entry == Entry::Forward {
        return Err(fail("`zyg_tape_budget` asks for a small tape, and forward mode keeps none; leave it out".into()));
    }
    let offset = usize::from(result_memory.is_some());
    let parameters = read_parameters(&mut rest, params, &function, offset, entry).map_err(fail)?;
    let ret = return_type(first);
    let seed = result_seed(entry, &rest.flags, &function, ret, result_memory).map_err(fail)?;
    if width > 1 && !matches!(entry, Entry::Forward | Entry::Gradient) {
        return Err(fail(format!(
            "`enzyme_width, {width}` asks for vector mode, which zyg supports in `__enzyme_fwddiff` and \
             `__enzyme_autodiff` only so far, not in split mode; make one request per direction"
        )));
    }
    let caller_tape = matches!(entry, Entry::AugmentedInto | Entry::ReverseFrom);
    let mut extra = if matches!(entry, Entry::Reverse | Entry::ReverseFrom) {
        reverse_extras(&mut rest, ret, &function, !caller_tape).map_err(fail)?
    } else {
        Vec::new()
    };
    if caller_tape {
        extra.extend([rest.tape, rest.allocated]);
    }
    if !rest.items.is_empty() {
        return Err(fail(format!("too many arguments for `{function}`, which takes {}", params.len())));
    }
    Ok(Request {
        call,
        entry,
        extra,
        function,
        kinds: parameters.kinds,
        values: parameters.values,
        shadows: parameters.shadows,
        width,
        tape_budget,
        sret,
        markers: rest.markers,
        place,
        callbacks: parameters.callbacks,
        seed,
        result_memory,
        unwind: None,
    })
}

/// What a request passes for the function's parameters.
#[derive(Default)]
struct Parameters<'ctx> {
    kinds: Vec<ArgActivity>,
    values: Vec<Argument<'ctx>>,
    shadows: Vec<Shadows<'ctx>>,
    callbacks: Vec<(usize, String)>,
}

/// Reads each parameter's marker, argument and shadow; `offset` is the index of the first
/// of `params` among the function's own parameters (1 after an `sret` one). In forward mode
/// a float that is not `const` is followed by its tangent (unmarked, or marked `dup`, as
/// Enzyme's `__enzyme_fwddiff` takes it), which is kept as its "shadow".
fn read_parameters<'ctx>(
    rest: &mut Arguments<'ctx>,
    params: &[std::result::Result<BasicTypeEnum<'ctx>, String>],
    function: &str,
    offset: usize,
    entry: Entry,
) -> std::result::Result<Parameters<'ctx>, String> {
    let forward = entry == Entry::Forward;
    let width = rest.width as usize;
    let mut out = Parameters::default();
    for (i, pty) in params.iter().enumerate() {
        let kind = rest.next_marker();
        let strided = kind.is_some_and(|(_, strided)| strided);
        let kind = kind.map(|(kind, _)| kind);
        if strided && width == 1 {
            return Err(format!(
                "parameter {i} of `{function}` is marked `enzyme_dupv`, which belongs to vector mode: give \
                 `enzyme_width, N` first, or mark it `enzyme_dup`"
            ));
        }
        // `enzyme_dupv, stride, x, base`: the stride comes first.
        let stride = if strided {
            match rest.next_value(&format!("the stride of parameter {i}"))? {
                Some(s) if s.value().is_some_and(|v| v.is_int_value()) => Some(s),
                _ => {
                    return Err(format!(
                        "`enzyme_dupv` before parameter {i} of `{function}` must be followed by the byte stride, an integer"
                    ))
                }
            }
        } else {
            None
        };
        let Some(value) = rest.next_value(&format!("parameter {i}"))? else {
            return Err(format!("too few arguments for `{function}`: nothing for parameter {i}"));
        };
        let pty = match pty {
            Ok(pty) if fits(value, *pty) => *pty,
            _ => {
                let shown = pty.as_ref().map_or_else(|text| text.clone(), |t| type_text(*t));
                return Err(format!("parameter {i} of `{function}` is a `{shown}`, but the request passes `{}`", value.text()));
            }
        };
        // A function passed as an argument (a callback) is `const` unless marked.
        let callback = value.function();
        let marked = kind;
        let kind = kind.unwrap_or_else(|| if callback.is_none() { default_kind(pty) } else { ArgActivity::Const });
        if forward && marked == Some(ArgActivity::Active) {
            return Err(format!(
                "parameter {i} of `{function}` is marked `enzyme_out`, which forward mode has no use for: a float is \
                 followed by its tangent (unmarked or `enzyme_dup`), or marked `enzyme_const`"
            ));
        }
        let kind = if forward && kind == ArgActivity::Dup && is_float(pty) { ArgActivity::Active } else { kind };
        if let Some(f) = callback.filter(|_| kind == ArgActivity::Const) {
            // By the function's own parameter index (its `sret` parameter first).
            out.callbacks.push((i + offset, global_value_name(f.as_global_value())?));
        }
        if strided && kind != ArgActivity::Dup {
            return Err(format!("parameter {i} of `{function}` is marked `enzyme_dupv` but is not a pointer"));
        }
        let shadow = if let Some(stride) = stride {
            let given = rest.next_value(&format!("the shadows of parameter {i}"))?;
            Shadows::Strided { base: shadow_of(given, i, function, pty)?, stride }
        } else if kind == ArgActivity::Dup {
            let mut given = Vec::new();
            for lane in 0..width {
                let what =
                    if width == 1 { format!("the shadow of parameter {i}") } else { format!("shadow {lane} of parameter {i}") };
                given.push(shadow_of(rest.next_value(&what)?, i, function, pty)?);
            }
            Shadows::Given(given)
        } else if forward && kind == ArgActivity::Active {
            let mut given = Vec::new();
            for lane in 0..width {
                let what =
                    if width == 1 { format!("the tangent of parameter {i}") } else { format!("tangent {lane} of parameter {i}") };
                match rest.next_value(&what)? {
                    Some(t) if t.value().is_some_and(|v| is_float(v.get_type())) => given.push(t),
                    Some(t) => return Err(format!("{what} of `{function}`, `{}`, is not a float", t.text())),
                    None if width == 1 => {
                        return Err(format!("parameter {i} of `{function}` is a float, but no tangent follows it"))
                    }
                    None => {
                        return Err(format!(
                            "parameter {i} of `{function}` is a float, and vector mode of width {width} takes {width} \
                             tangents after it, but {lane} follow it"
                        ))
                    }
                }
            }
            Shadows::Given(given)
        } else {
            Shadows::None
        };
        if kind == ArgActivity::Active && !is_float(pty) {
            return Err(format!("parameter {i} of `{function}` is marked `out` but is not a floating-point value"));
        }
        out.kinds.push(kind);
        out.values.push(value);
        out.shadows.push(shadow);
    }
    Ok(out)
}

/// The reverse half's last arguments: the result's adjoint (for a float result) and, when
/// `tape` (not given by `enzyme_tape`), the tape; with `enzyme_const_return` the adjoint is
/// zero (`None`) and not passed.
fn reverse_extras<'ctx>(
    rest: &mut Arguments<'ctx>,
    ret: Option<BasicTypeEnum<'ctx>>,
    function: &str,
    tape: bool,
) -> std::result::Result<Vec<Option<Argument<'ctx>>>, String> {
    let mut extra = Vec::new();
    let constant = rest.flags.contains(&Flag::ConstReturn);
    if constant && ret.is_some_and(holds_float) {
        extra.push(None);
    }
    let takes_adjoint = ret.is_some_and(is_float) && !constant;
    for _ in 0..usize::from(takes_adjoint) + usize::from(tape) {
        match rest.next_value("the reverse call's last arguments")? {
            Some(v) => extra.push(Some(v)),
            None => {
                let what = match (takes_adjoint, tape) {
                    (true, true) => "the result's adjoint and the tape",
                    (true, false) => "the result's adjoint",
                    _ => "the tape",
                };
                return Err(format!("the reverse call for `{function}` must end with {what}"));
            }
        }
    }
    Ok(extra)
}

/// `__enzyme_augmentsize(f, markers...)`: the activity of each of `f`'s parameters, one
/// marker each and nothing else (the size depends on the activity, not on values).
fn size_request_kinds(
    rest: &mut Arguments<'_>,
    params: &[std::result::Result<BasicTypeEnum<'_>, String>],
    function: &str,
) -> std::result::Result<Vec<ArgActivity>, String> {
    let takes = || {
        format!(
            "`__enzyme_augmentsize` takes an activity marker (`enzyme_dup`, `enzyme_const`, `enzyme_out`...) for \
             each of the {} parameters of `{function}`, as its `__enzyme_augmentfwd` call gives them, and no values",
            params.len()
        )
    };
    if rest.width > 1 || rest.tape_budget.is_some() {
        return Err(takes());
    }
    let mut kinds = Vec::new();
    for (i, pty) in params.iter().enumerate() {
        let kind = match rest.items.pop_front() {
            Some((_, Some((kind, false)))) => kind,
            _ => return Err(takes()),
        };
        let pty = pty.as_ref().map_err(|text| format!("parameter {i} of `{function}` is a `{text}`"))?;
        match kind {
            ArgActivity::Dup if !pty.is_pointer_type() => {
                return Err(format!("parameter {i} of `{function}` is marked `dup` but is not a pointer"))
            }
            ArgActivity::Active if !is_float(*pty) => {
                return Err(format!("parameter {i} of `{function}` is marked `out` but is not a floating-point value"))
            }
            _ => kinds.push(kind),
        }
    }
    if !rest.items.is_empty() {
        return Err(takes());
    }
    Ok(kinds)
}

/// Whether a request may pass `value` for a parameter of type `param`: a value of the same
/// type, or floats or integers of other widths (C's promotions through `...`).
fn fits(value: Argument<'_>, param: BasicTypeEnum<'_>) -> bool {
    let Some(value) = value.value() else { return false };
    let ty = value.get_type();
    ty == param || (is_float(ty) && is_float(param)) || (ty.is_int_type() && param.is_int_type())
}

/// The shadow `given` after a `dup` argument for parameter `i` (of type `param`) of
/// `function`: a pointer, for a pointer.
fn shadow_of<'ctx>(
    given: Option<Argument<'ctx>>,
    i: usize,
    function: &str,
    param: BasicTypeEnum<'ctx>,
) -> std::result::Result<Argument<'ctx>, String> {
    if !param.is_pointer_type() {
        return Err(format!("parameter {i} of `{function}` is marked `dup` but is not a pointer"));
    }
    match given {
        Some(s) if s.value().is_some_and(|v| v.is_pointer_value()) => Ok(s),
        Some(s) => Err(format!("parameter {i} of `{function}` is `dup`, but its shadow `{}` is not a pointer", s.text())),
        None => Err(format!("parameter {i} of `{function}` is `dup` but no shadow follows it")),
    }
}

/// How the request seeds the function's result (see `Request::seed`), or why it cannot:
/// zyg seeds a float result with 1; a struct, array or vector of floats (in registers, or
/// in `sret` memory) needs `enzyme_const_return` (no seed) or `enzyme_active_return`
/// (every float seeded with 1, as Enzyme does). `ret` is `None` for `void`.
fn result_seed(
    entry: Entry,
    flags: &[Flag],
    function: &str,
    ret: Option<BasicTypeEnum<'_>>,
    memory: Option<BasicTypeEnum<'_>>,
) -> std::result::Result<Option<ResultSeed>, String> {
    let (constant, active) = (flags.contains(&Flag::ConstReturn), flags.contains(&Flag::ActiveReturn));
    if constant && active {
        return Err("`enzyme_const_return` and `enzyme_active_return` contradict each other".into());
    }
    if flags.contains(&Flag::NoFree) && entry != Entry::Gradient {
        return Err("the flag `enzyme_nofree` keeps the tape alive after the reverse call; zyg does not support it \
                    yet: zyg's reverse half consumes the tape (frees a tape on the heap; empties a tape in the \
                    caller's memory, which can then take the next forward call's)"
            .into());
    }
    let result = memory.or(ret);
    // A named struct by its name (`%struct.quad`), not its whole definition.
    let name = match result {
        Some(BasicTypeEnum::StructType(s)) => s.get_name().map(|n| n.to_string_lossy().into_owned()),
        _ => None,
    };
    let shown = match (name, result) {
        (Some(name), _) => format!("%{name}"),
        (None, Some(t)) => type_text(t),
        (None, None) => "void".into(),
    };
    let holds_float = result.is_some_and(holds_float);
    let aggregate = holds_float && !result.is_some_and(is_float);
    if memory.is_some() && !matches!(entry, Entry::Gradient | Entry::Forward) {
        return Err(format!(
            "`{function}` returns its result through memory (`sret` `{shown}`); split mode does not support that yet: \
             return the outputs through a `dup` pointer argument instead"
        ));
    }
    if active && !holds_float {
        return Err(format!(
            "`enzyme_active_return` asks to seed the result, but `{function}` returns `{shown}`, which holds no float"
        ));
    }
    let what = if memory.is_some() { "returns through memory" } else { "returns" };
    if entry == Entry::Forward && aggregate && result.is_some_and(holds_pointer) {
        return Err(format!(
            "`{function}` {what} `{shown}`, which holds pointers; forward mode returns the tangent of a result of \
             floats and integers only so far: return the pointers' data through a `dup` pointer argument, whose \
             shadow receives their tangents"
        ));
    }
    Ok(match entry {
        // The tangent of a result returned through memory comes back by value from a
        // wrapper; one in registers, a struct or array included, as it is.
        Entry::Forward if memory.is_some() => Some(ResultSeed::Value),
        Entry::Gradient if constant && holds_float => Some(ResultSeed::None),
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
        Entry::Reverse | Entry::ReverseFrom if aggregate && !constant => {
            return Err(format!(
                "`{function}` returns `{shown}`: the reverse half takes the result's adjoint only for a float result; \
                 pass `enzyme_const_return` if the result needs no adjoint, or return the outputs through a `dup` \
                 pointer argument"
            ))
        }
        _ => None,
    })
}
