//! Activity analysis. A value is active when it both depends on an active input (varied)
//! and influences an output (useful); only active values get adjoints. A pointer is
//! *shadowed* when it may point to differentiated memory (memory reached from a `dup`
//! argument, or a stack array of floats); every shadowed pointer gets a shadow pointer to
//! the memory that accumulates that memory's adjoint.

use crate::addresses::{self, Root};
use crate::conventions::Conventions;
use crate::error::TransformError;
use crate::rules;
use crate::ArgActivity;
use std::collections::{HashMap, HashSet};
use zyg_ir::{Callee, CastOp, Constant, Function, Inst, InstKind, Module, Type, UnOp, Value};

pub struct Activity {
    active: HashSet<Value>,
    shadowed: HashSet<Value>,
    /// Calls that cannot move a derivative whatever they are given (`moves_no_derivative`).
    silent: HashSet<Inst>,
    /// Integers that hold an address of differentiated memory (`addresses`).
    roots: HashMap<Value, Root>,
    /// Calls the program declares inactive (`Conventions::is_inactive_call`).
    inactive_calls: HashSet<Inst>,
}

/// Calls that never move derivatives, whatever pointers they are given.
const INERT_CALLS: &[&str] = &[
    "llvm.lifetime.",
    "llvm.dbg.",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
    "llvm.invariant.",
    "llvm.prefetch",
];

/// setjmp and longjmp in all their spellings: a jump out of a callee, or back into a
/// function that already returned once, skips what the primal and the adjoint record.
const NON_LOCAL_JUMPS: &[&str] = &[
    "setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
];

/// Heap allocation functions (C, and C++'s `operator new`): their memory gets a shadow.
/// `__zyg_vla(bytes)` stands for a variable-length array (a dynamic `alloca`) while zyg
/// works: its shadow is heap memory, since it must outlive the primal's frame.
pub const ALLOCATIONS: &[&str] = &["malloc", "calloc", "realloc", "_Znwm", "_Znam", "__zyg_vla"];
/// Their deallocations: the primal frees its memory; the shadow is freed by the adjoint.
pub const DEALLOCATIONS: &[&str] = &["free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"];

/// C library functions that never move derivatives, whatever they are given: output,
/// string and byte inspection, allocation queries, process control, time, random numbers.
/// A call to one passes through even with pointers into differentiated memory (printing a
/// buffer the function fills).
pub const INACTIVE_LIBRARY_CALLS: &[&str] = &[
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "fputc",
    "putc", "fwrite", "fflush", "perror", "strlen", "strnlen", "strcmp", "strncmp", "memcmp", "bcmp", "strchr", "strrchr",
    "strstr", "getenv", "atoi", "atol", "strtol", "strtoul", "malloc_usable_size", "abort", "exit", "_exit",
    "__assert_fail", "__assert_rtn", "time", "clock", "clock_gettime", "gettimeofday", "rand", "srand", "random",
    "srandom", "drand48", "srand48",
    // The same with `_FORTIFY_SOURCE`: glibc's checked forms.
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vprintf_chk", "__vfprintf_chk",
    "__vsprintf_chk", "__vsnprintf_chk",
    // Integer results of floats: piecewise constant, so no derivative (an integer holding a
    // float's bits is checked where it becomes a float again). clang gives them no memory
    // attributes at -O0, so they are named here.
    "lround", "lroundf", "lroundl", "llround", "llroundf", "llroundl", "lrint", "lrintf", "lrintl", "llrint",
    "llrintf", "llrintl", "ilogb", "ilogbf", "ilogbl", "__fpclassify", "__fpclassifyf", "__fpclassifyl", "__isnan",
    "__isnanf", "__isnanl", "__isinf", "__isinff", "__isinfl", "__finite", "__finitef", "__finitel", "__signbit",
    "__signbitf", "__signbitl",
];

/// `__syncthreads()` and its kin (`llvm.nvvm.barrier0`, `llvm.nvvm.barrier.cta.*`).
pub fn is_barrier(name: &str) -> bool {
    name.starts_with("llvm.nvvm.barrier")
}

pub fn is_inert_call(name: &str) -> bool {
    INERT_CALLS.iter().any(|p| name.starts_with(p))
        || DEALLOCATIONS.contains(&name)
        || INACTIVE_LIBRARY_CALLS.contains(&name)
}

/// Whether a call to `name` (returning `ret`) cannot move a derivative, so that the adjoint
/// leaves it alone whatever its arguments: the inert calls above, and declared functions that
/// touch no memory the program can see and return no float or pointer (`llvm.is.fpclass`,
/// `lround`, `ilogb`): all they pass on is an integer result, which carries no derivative
/// (a float's bits in an integer are checked for where they become a float again).
pub fn moves_no_derivative(module: &Module, name: &str, ret: &Type) -> bool {
    is_inert_call(name) || (module.is_pure(name) && module.function(name).is_none() && !can_hold_derivative_or_address(ret))
}

/// A type with a float or a pointer somewhere in it.
fn can_hold_derivative_or_address(ty: &Type) -> bool {
    ty.carries_derivative() || ty.is_ptr() || ty.holds_pointers()
}

pub fn is_allocation(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Call { callee: Callee::Direct(name), .. } if ALLOCATIONS.contains(&&**name))
}

impl Activity {
    pub fn is_active(&self, v: Value) -> bool {
        self.active.contains(&v)
    }

    /// The pointer may point to differentiated memory, and has a shadow.
    pub fn has_shadow(&self, v: Value) -> bool {
        self.shadowed.contains(&v)
    }

    /// The shadowed pointer an integer address was computed from (`addresses`), if any.
    pub fn address_root(&self, v: Value) -> Option<Value> {
        match self.roots.get(&v) {
            Some(Root::Of(p)) => Some(*p),
            _ => None,
        }
    }

    /// The global variables among the shadowed pointers.
    pub fn shadowed_globals<'f>(&'f self, func: &'f Function) -> impl Iterator<Item = (Value, &'f str)> + 'f {
        self.shadowed.iter().filter_map(move |v| match func.constant(*v) {
            Some(Constant::Global(name, _)) => Some((*v, &**name)),
            _ => None,
        })
    }

    /// Instructions the adjoint visits: active results, stores into differentiated memory,
    /// and calls that pass it on.
    pub fn is_active_inst(&self, func: &Function, inst: Inst) -> bool {
        if self.inactive_calls.contains(&inst) {
            return false;
        }
        match &func.insts[inst].kind {
            // A GPU barrier orders the adjoint's memory updates too: it is replayed.
            InstKind::Call { callee: Callee::Direct(name), .. } if is_barrier(name) => true,
            // A stored pointer's shadow is stored by the primal; its adjoint has nothing to do.
            InstKind::Store { value, ptr } => {
                self.has_shadow(*ptr) && !func.ty(*value).holds_only_addresses()
            }
            // Address arithmetic: its shadow is computed beside it, its adjoint does nothing.
            InstKind::Call { callee: Callee::Direct(name), .. } if addresses::is_address_intrinsic(name) => false,
            // A call with any active argument is active, whatever its type or its result's:
            // a callee without a body or rule is then an error, never skipped.
            InstKind::Call { args, .. } if !self.silent.contains(&inst) => {
                args.iter().any(|a| self.has_shadow(*a) || self.is_active(*a))
                    || func.result(inst).is_some_and(|v| self.is_active(v) || (func.ty(v).is_ptr() && self.has_shadow(v)))
            }
            InstKind::Call { .. } => false,
            _ => func.result(inst).is_some_and(|v| self.is_active(v)),
        }
    }

    /// Analyses `func` with the given argument activities; its float result is an output,
    /// and so is all differentiated memory.
    /// Calls the program declares inactive are left out: they neither vary nor use anything.
    pub fn analyze(
        module: &Module,
        conventions: &Conventions,
        func: &Function,
        args: &[ArgActivity],
    ) -> Result<Activity, TransformError> {
        Activity::analyze_with(&ModuleFacts::compute(module, conventions), conventions, module, func, args)
    }

    /// `analyze`, with the module's facts computed once for all its functions.
    pub fn analyze_with(
        facts: &ModuleFacts,
        conventions: &Conventions,
        module: &Module,
        func: &Function,
        args: &[ArgActivity],
    ) -> Result<Activity, TransformError> {
        let (inactive, insts): (Vec<Inst>, Vec<Inst>) =
            func.inst_order().map(|(_, i)| i).partition(|i| conventions.is_inactive_call(func, *i));
        let inactive_calls: HashSet<Inst> = inactive.into_iter().collect();
        let param = |kind: ArgActivity| -> HashSet<Value> {
            func.params.iter().zip(args).filter(|(_, a)| **a == kind).map(|(p, _)| *p).collect()
        };
        let mut varied = param(ArgActivity::Active);
        let mut shadowed = param(ArgActivity::Dup);
        // Globals the program writes that hold floats: their shadows are shadow globals.
        for &inst in &insts {
            for v in func.insts[inst].kind.operands() {
                if let Some(Constant::Global(name, _)) = func.constant(v) {
                    if module.active_global(name).is_some() {
                        shadowed.insert(v);
                    }
                }
            }
        }
        // Forward, to a fixed point (loops): shadows follow pointer arithmetic; derivatives
        // flow from operands and from differentiated memory.
        let mut roots: HashMap<Value, Root> = HashMap::new();
        let mut changed = true;
        while changed {
            changed = false;
            for &inst in &insts {
                let Some(result) = func.result(inst) else { continue };
                let kind = &func.insts[inst].kind;
                if func.ty(result).is_address()
                    && !shadowed.contains(&result)
                    && derives_shadow(module, facts, conventions, kind, &shadowed, &roots)
                {
                    shadowed.insert(result);
                    changed = true;
                }
                if func.ty(result).is_int() {
                    if let Some(root) = addresses::step(func, kind, &shadowed, &roots) {
                        if roots.insert(result, root) != Some(root) {
                            changed = true;
                        }
                    }
                }
                if varied.contains(&result) || !func.ty(result).carries_derivative() {
                    continue;
                }
                let from_memory = match kind {
                    InstKind::Load { ptr, .. } => shadowed.contains(ptr),
                    InstKind::Call { args, .. } => args.iter().any(|a| shadowed.contains(a)),
                    _ => false,
                };
                if from_memory || flows_from(module, func, kind).iter().any(|v| varied.contains(v)) {
                    varied.insert(result);
                    changed = true;
                }
            }
        }
        let silent: HashSet<Inst> = insts
            .iter()
            .copied()
            .filter(|i| match &func.insts[*i].kind {
                InstKind::Call { callee: Callee::Direct(name), sig, .. } => {
                    !is_barrier(name) && conventions.math_rule(name).is_none() && moves_no_derivative(module, name, &sig.ret)
                }
                _ => false,
            })
            .collect();
        check_memory(module, facts, func, &insts, &varied, &shadowed, &silent)?;
        addresses::check(func, &roots, &shadowed, &silent)?;
        crate::floatbits::check(&facts.bits, &facts.memory, module, func, &varied, &shadowed, &silent)?;
        let useful = useful_values(module, func, &insts, &shadowed, &silent);
        Ok(Activity { active: varied.intersection(&useful).copied().collect(), shadowed, silent, roots, inactive_calls })
    }
}

/// Whether an instruction's pointer result points into shadowed memory.
fn derives_shadow(
    module: &Module,
    facts: &ModuleFacts,
    conventions: &Conventions,
    kind: &InstKind,
    shadowed: &HashSet<Value>,
    roots: &HashMap<Value, Root>,
) -> bool {
    match kind {
        // An address of differentiated memory that went through an integer.
        InstKind::Cast { op: CastOp::IntToPtr, arg } => matches!(roots.get(arg), Some(Root::Of(_))),
        InstKind::Call { callee: Callee::Direct(name), args, .. } if addresses::is_address_intrinsic(name) => {
            args.first().is_some_and(|p| shadowed.contains(p))
        }
        InstKind::Gep { base, .. } => shadowed.contains(base),
        InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, arg } => shadowed.contains(arg),
        InstKind::Phi { incoming } => incoming.iter().any(|(_, v)| shadowed.contains(v)),
        InstKind::Select { then_value, else_value, .. } => shadowed.contains(then_value) || shadowed.contains(else_value),
        // Byte arrays too: SROA leaves a partly promoted `double G[3][3]` as `[64 x i8]`.
        InstKind::Alloca { ty } => {
            ty.carries_derivative() || ty.holds_pointers() || matches!(ty, Type::Array(_, e) if **e == Type::I8)
        }
        // A pointer kept in differentiated memory has its shadow in the shadow memory, at
        // the same place (Enzyme's convention: a shadow struct's pointers point to shadows).
        InstKind::Load { ty, ptr } => ty.is_address() && shadowed.contains(ptr),
        // Vectors of pointers (a gather's or scatter's addresses): a splat of one pointer,
        // lanes moved between vectors, one lane taken out.
        InstKind::InsertElement { vec, value, .. } => shadowed.contains(vec) || shadowed.contains(value),
        InstKind::ShuffleVector { a, b, .. } => shadowed.contains(a) || shadowed.contains(b),
        InstKind::ExtractElement { vec, .. } => shadowed.contains(vec),
        // Heap memory may hold floats: it gets a shadow (type analysis would spare int buffers).
        kind if conventions.is_allocation(kind) => true,
        InstKind::Call { callee: Callee::Direct(name), args, .. } => {
            facts.returns_shadowed(module, name, args.iter().any(|a| shadowed.contains(a)))
        }
        _ => false,
    }
}

/// The globals that carry derivatives (`Module::active_global`) that `function` and the
/// functions it calls (directly, or through callbacks it passes) use by name.
pub fn active_globals_reached(module: &Module, function: &str) -> std::collections::BTreeSet<String> {
    let (mut seen, mut todo, mut found) = (HashSet::new(), vec![function.to_string()], std::collections::BTreeSet::new());
    while let Some(name) = todo.pop() {
        let Some(func) = module.function(&name).filter(|_| seen.insert(name.clone())) else { continue };
        for (_, inst) in func.inst_order() {
            let kind = &func.insts[inst].kind;
            // A direct callee is not an operand; a function passed as a callback is.
            if let InstKind::Call { callee: Callee::Direct(callee), .. } = kind {
                todo.push(callee.to_string());
            }
            for v in kind.operands() {
                let Some(Constant::Global(g, _)) = func.constant(v) else { continue };
                if module.function(g).is_some() {
                    todo.push(g.clone());
                } else if module.active_global(g).is_some() {
                    found.insert(g.clone());
                }
            }
        }
    }
    with_pointed_at(module, found)
}

/// `globals` and the active globals their initialisers point at, transitively
/// (`GlobalVar::points_to`): their shadows point at those ones' shadows.
pub fn with_pointed_at(module: &Module, globals: std::collections::BTreeSet<String>) -> std::collections::BTreeSet<String> {
    let mut todo: Vec<String> = globals.iter().cloned().collect();
    let mut out = globals;
    while let Some(g) = todo.pop() {
        for h in module.globals.get(&g).map(|g| g.points_to.as_slice()).unwrap_or_default() {
            if module.active_global(h).is_some() && out.insert(h.clone()) {
                todo.push(h.clone());
            }
        }
    }
    out
}

/// What activity analysis of one function needs to know about the rest of the module,
/// computed once per module.
pub struct ModuleFacts {
    /// Defined functions returning a pointer that may point to differentiated memory they
    /// make themselves, without being given any: they allocate, use a global that carries
    /// derivatives, or call such a function (a `cons` cell constructor, a wrapper around
    /// one). Their primal writes the returned pointer's shadow.
    returns_own_memory: HashSet<String>,
    /// Which bytes of memory hold floats, pointers and integers.
    pub memory: crate::memtypes::MemTypes,
    /// What functions do with float bits kept in integers.
    pub bits: crate::floatbits::BitSummaries,
}

impl ModuleFacts {
    pub fn compute(module: &Module, conventions: &Conventions) -> ModuleFacts {
        let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut returns_own_memory = HashSet::new();
        let mut work = Vec::new();
        for f in module.functions.iter().filter(|f| !f.is_declaration()) {
            let mut direct = false;
            for (_, i) in f.inst_order() {
                let kind = &f.insts[i].kind;
                if let InstKind::Call { callee: Callee::Direct(g), .. } = kind {
                    callers.entry(&**g).or_default().push(&f.name);
                }
                direct |= conventions.is_allocation(kind)
                    || kind.operands().iter().any(|v| {
                        matches!(f.constant(*v), Some(Constant::Global(g, _)) if module.active_global(g).is_some())
                    });
            }
            if direct && f.sig.ret.is_ptr() && returns_own_memory.insert(f.name.clone()) {
                work.push(f.name.as_str());
            }
        }
        // Callers that return a pointer inherit it, transitively.
        while let Some(g) = work.pop() {
            for &caller in callers.get(g).map(Vec::as_slice).unwrap_or_default() {
                let returns_ptr = module.function(caller).is_some_and(|f| f.sig.ret.is_ptr());
                if returns_ptr && returns_own_memory.insert(caller.to_string()) {
                    work.push(caller);
                }
            }
        }
        let memory = crate::memtypes::MemTypes::compute(module);
        let bits = crate::floatbits::BitSummaries::compute(module, &memory);
        ModuleFacts { returns_own_memory, memory, bits }
    }

    /// Whether a call to `name` may return a pointer to differentiated memory: the callee is
    /// defined here, returns a pointer, and is given differentiated memory or makes its own.
    /// Its primal then writes the returned pointer's shadow (null when it returns other
    /// memory).
    pub fn returns_shadowed(&self, module: &Module, name: &str, given_shadowed: bool) -> bool {
        let defined = module.function(name).is_some_and(|f| f.sig.ret.is_ptr() && !f.is_declaration());
        defined && (given_shadowed || self.returns_own_memory.contains(name))
    }
}

/// Refuses what the memory model cannot represent yet, rather than dropping derivatives.
fn check_memory(
    module: &Module,
    facts: &ModuleFacts,
    func: &Function,
    insts: &[Inst],
    varied: &HashSet<Value>,
    shadowed: &HashSet<Value>,
    silent: &HashSet<Inst>,
) -> Result<(), TransformError> {
    // Null, and the poison a phi takes on paths where the pointer is not used, need no shadow.
    let has_shadow_or_null = |v: &Value| {
        shadowed.contains(v)
            || matches!(
                func.constant(*v),
                Some(Constant::Null(_) | Constant::Poison(_) | Constant::Undef(_) | Constant::Zero(_))
            )
    };
    let copies = crate::types::integer_copies(func);
    let holders = crate::addresses::aggregate_holders(func, shadowed);
    let entry_insts: HashSet<Inst> = func.entry().map(|b| func.blocks[b].insts.iter().copied().collect()).unwrap_or_default();
    for &inst in insts {
        if let Some(what) = unshadowed_address_vector(func, inst, shadowed) {
            return Err(TransformError::at(
                func,
                inst,
                format!(
                    "{what}; that is not supported yet (clang makes gathers and scatters with -march=x86-64-v4 \
                     or AVX-512: compiling without them avoids it)"
                ),
            ));
        }
        if let Some(what) = crate::addresses::aggregate_problem(func, inst, &holders, silent) {
            return Err(TransformError::at(func, inst, what));
        }
        match &func.insts[inst].kind {
            InstKind::Call { callee: Callee::Direct(name), .. } if NON_LOCAL_JUMPS.contains(&&**name) => {
                return Err(TransformError::at(
                    func,
                    inst,
                    format!(
                        "`{name}`: zyg cannot differentiate non-local jumps (setjmp and longjmp skip the tape's \
                         bookkeeping); return normally instead"
                    ),
                ));
            }
            InstKind::Store { value, ptr }
                if varied.contains(value)
                    && !shadowed.contains(ptr)
                    && !crate::conventions::is_inactive_memory(module, func, *ptr) =>
            {
                if let Some(name) = dynamic_shared(module, func, *ptr) {
                    return Err(TransformError::at(
                        func,
                        inst,
                        format!(
                            "an active value is stored to dynamic shared memory (`extern __shared__` @{name}); \
                             that is not supported yet: its shadow would need a dynamic region of its own. \
                             Use a shared array of fixed size"
                        ),
                    ));
                }
                return Err(TransformError::at(
                    func,
                    inst,
                    "an active value is stored to memory that is not differentiated (a global or memory zyg \
                     cannot trace to a `dup` argument); that is not supported yet",
                ));
            }
            kind @ (InstKind::Phi { .. }
            | InstKind::Select { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }) => {
                if !func.result(inst).is_some_and(|r| shadowed.contains(&r)) {
                    continue;
                }
                let ptrs: Vec<Value> = match kind {
                    InstKind::Phi { incoming } => incoming.iter().map(|(_, v)| *v).collect(),
                    InstKind::Select { then_value, else_value, .. } => vec![*then_value, *else_value],
                    InstKind::InsertElement { vec, value, .. } => vec![*vec, *value],
                    InstKind::ShuffleVector { a, b, .. } => vec![*a, *b],
                    _ => unreachable!("matched phi, select, insertelement or shufflevector"),
                };
                if !ptrs.iter().all(has_shadow_or_null) {
                    return Err(TransformError::at(
                        func,
                        inst,
                        "this pointer may point to differentiated memory or to other memory; mixing them is not \
                         supported yet",
                    ));
                }
            }
            InstKind::Load { ptr, .. } if shadowed.contains(ptr) && copies.contains_key(&inst) => {
                let (_, bits, targets) = &copies[&inst];
                let bytes = u64::from(bits.div_ceil(8));
                let known = facts.memory.at(func, *ptr, bytes);
                // Float bytes copied piecemeal (a byte loop, part of a double): no float
                // type covers the copy, so no adjoint could follow it.
                let float_bytes = crate::memtypes::may_hold_floats(&known);
                let undecided = matches!(bits, 32 | 64) && known != crate::memtypes::Known::All(zyg_ir::ScalarKind::Integer);
                if targets.iter().any(|p| shadowed.contains(p)) && (float_bytes || undecided) {
                    return Err(TransformError::at(
                        func,
                        inst,
                        format!(
                            "this copies {bits} bits of differentiated memory as an integer, and zyg cannot tell \
                             whether they hold a float, a pointer or an integer, or they hold part of a float ({}); \
                             copy them with their own type or with memcpy, or compile with -O1 or higher so that \
                             clang describes the types",
                            crate::memtypes::describe_known(&known)
                        ),
                    ));
                }
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. }
                if &**name == "realloc" && args.first().is_some_and(|p| !has_shadow_or_null(p)) =>
            {
                return Err(TransformError::at(
                    func,
                    inst,
                    "realloc of memory zyg cannot trace to differentiated memory or to an allocation; that is not \
                     supported yet",
                ));
            }
            InstKind::Store { value, ptr } if shadowed.contains(value) && !shadowed.contains(ptr) => {
                return Err(TransformError::at(
                    func,
                    inst,
                    "a pointer to differentiated memory is stored to memory zyg cannot trace (its shadow would \
                     be lost); that is not supported yet",
                ));
            }
            InstKind::Alloca { ty } if shadowed.contains(&func.result(inst).expect("alloca")) && !entry_insts.contains(&inst) => {
                return Err(TransformError::at(func, inst, "an alloca outside the entry block is not supported yet"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// What is wrong, when `inst` handles a vector of pointers into differentiated memory in a
/// way that has no shadow: it makes one from shadowed pointers by an operation the shadows
/// do not follow (a gather of pointers, `inttoptr`, a call), or it stores one through a
/// masked store or scatter (the pointers' shadows would not be stored).
fn unshadowed_address_vector(func: &Function, inst: Inst, shadowed: &HashSet<Value>) -> Option<String> {
    let kind = &func.insts[inst].kind;
    let is_vector = |v: Value| matches!(func.ty(v), Type::Vector(..)) && func.ty(v).is_address();
    let makes = func.result(inst).is_some_and(|r| is_vector(r) && !shadowed.contains(&r));
    if makes && kind.operands().iter().any(|v| shadowed.contains(v)) {
        return Some(format!(
            "this `{}` makes a vector of pointers from pointers into differentiated memory, and zyg cannot \
             give it a shadow (the derivatives through it would be lost)",
            kind.opcode_name()
        ));
    }
    match kind {
        InstKind::Call { callee: Callee::Direct(name), args, .. }
            if (name.starts_with("llvm.masked.scatter.") || name.starts_with("llvm.masked.store."))
                && args.len() == 3
                && func.ty(args[0]).holds_pointers()
                && shadowed.contains(&args[1]) =>
        {
            Some("this stores pointers into differentiated memory through a masked store or scatter, and zyg \
                  cannot store their shadows"
                .into())
        }
        _ => None,
    }
}

/// The dynamic shared-memory global (`GlobalVar::is_dynamic_shared`) `ptr` points into.
fn dynamic_shared<'m>(module: &'m Module, func: &Function, ptr: Value) -> Option<&'m str> {
    match func.constant(crate::memory::root(func, ptr)) {
        Some(Constant::Global(name, _)) => {
            module.globals.get_key_value(name).filter(|(_, g)| g.is_dynamic_shared()).map(|(n, _)| n.as_str())
        }
        _ => None,
    }
}

/// Values that can influence an output: the float result, values stored into shadowed
/// memory, and float arguments of every call that may move a derivative (a callee may keep
/// its argument in memory it returns, write it to a global, or be one zyg knows nothing
/// of, which must then be reported rather than skipped); then backwards.
fn useful_values(
    module: &Module,
    func: &Function,
    insts: &[Inst],
    shadowed: &HashSet<Value>,
    silent: &HashSet<Inst>,
) -> HashSet<Value> {
    let mut useful: HashSet<Value> = HashSet::new();
    for &inst in insts {
        match &func.insts[inst].kind {
            InstKind::Ret { value: Some(v) } | InstKind::Store { value: v, .. } => {
                let stored_to_memory = match &func.insts[inst].kind {
                    InstKind::Store { ptr, .. } => shadowed.contains(ptr),
                    _ => true,
                };
                if stored_to_memory && func.ty(*v).carries_derivative() {
                    useful.insert(*v);
                }
            }
            InstKind::Call { args, .. } if !silent.contains(&inst) => {
                useful.extend(args.iter().filter(|a| func.ty(**a).carries_derivative()));
            }
            _ => {}
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &inst in insts.iter().rev() {
            let Some(result) = func.result(inst) else { continue };
            if !useful.contains(&result) {
                continue;
            }
            for v in flows_from(module, func, &func.insts[inst].kind) {
                if func.ty(v).carries_derivative() && useful.insert(v) {
                    changed = true;
                }
            }
        }
    }
    useful
}

/// The operands a derivative can flow from into the instruction's result.
pub fn flows_from(module: &Module, func: &Function, kind: &InstKind) -> Vec<Value> {
    let floats = |vs: &[Value]| vs.iter().copied().filter(|v| func.ty(*v).carries_derivative()).collect();
    match kind {
        InstKind::Binary { op, args } if op.name().starts_with('f') => args.to_vec(),
        InstKind::Unary { op: UnOp::FNeg | UnOp::Freeze, arg } => floats(&[*arg]),
        InstKind::Cast { op: CastOp::FPExt | CastOp::FPTrunc, arg } => vec![*arg],
        InstKind::Select { then_value, else_value, .. } => floats(&[*then_value, *else_value]),
        InstKind::Phi { incoming } => floats(&incoming.iter().map(|(_, v)| *v).collect::<Vec<_>>()),
        InstKind::ExtractValue { agg, .. } => floats(&[*agg]),
        InstKind::ExtractElement { vec, .. } => floats(&[*vec]),
        InstKind::InsertElement { vec, value, .. } => floats(&[*vec, *value]),
        InstKind::ShuffleVector { a, b, .. } => floats(&[*a, *b]),
        InstKind::InsertValue { agg, value, .. } => floats(&[*agg, *value]),
        InstKind::Call { callee: Callee::Direct(name), args, .. } => {
            if module.function(name).is_some() {
                return floats(args);
            }
            match rules::family(name) {
                Some(rule) => {
                    let adjoints = (rule.adjoints)();
                    args.iter().zip(adjoints).filter(|(_, a)| a.is_some()).map(|(v, _)| *v).collect()
                }
                // Unknown functions: assume a derivative flows, so that an active use is
                // reported as an error rather than silently dropped.
                None => floats(args),
            }
        }
        InstKind::Call { args, .. } => floats(args),
        _ => Vec::new(),
    }
}
