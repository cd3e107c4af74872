//! Activity analysis. A value is active when it both depends on an active input (varied)
//! and influences an output (useful); only active values get adjoints. A pointer is
//! *shadowed* when it may point to differentiated memory (memory reached from a `dup`
//! argument, or a stack array of floats); every shadowed pointer gets a shadow pointer to
//! the memory that accumulates that memory's adjoint. A struct or array value that may hold
//! such a pointer (loaded from differentiated memory, built by `insertvalue`) is shadowed
//! too: its shadow is the same value with each pointer replaced by its shadow
//! (`primal::shadow_instructions`).

mod calls;
mod checks;
mod facts;

pub use calls::{is_allocation, is_barrier, moves_no_derivative, DEALLOCATIONS, OPENMP_BARRIER, OUT_PARAMETER_ALLOCATIONS};
pub use facts::{active_globals_reached, with_pointed_at, ModuleFacts};

use crate::addresses::{self, Root, Roots};
use crate::conventions::Conventions;
use crate::error::TransformError;
use crate::rules;
use crate::ArgActivity;
use cranelift_entity::EntitySet;
use zyg_ir::{Callee, CastOp, Constant, Function, Inst, InstKind, Module, Type, UnOp, Value};

pub struct Activity {
    active: EntitySet<Value>,
    shadowed: EntitySet<Value>,
    /// Calls that cannot move a derivative whatever they are given (`moves_no_derivative`).
    silent: EntitySet<Inst>,
    /// Integers that hold an address of differentiated memory (`addresses`).
    roots: Roots,
    /// Calls the program declares inactive (`Conventions::is_inactive_call`).
    inactive_calls: EntitySet<Inst>,
    /// Calls of functions that use a global carrying derivatives
    /// (`ModuleFacts::reaches_active_globals`): active whatever they are given, since the
    /// derivative moves through the global's shadow.
    global_calls: EntitySet<Inst>,
}

/// What the forward pass of the analysis finds (`propagate`).
struct Forward {
    /// Values that depend on an active input.
    varied: EntitySet<Value>,
    shadowed: EntitySet<Value>,
    roots: Roots,
}

impl Activity {
    pub fn is_active(&self, v: Value) -> bool {
        self.active.contains(v)
    }

    /// The pointer may point to differentiated memory (or the struct value may hold such a
    /// pointer), and has a shadow.
    pub fn has_shadow(&self, v: Value) -> bool {
        self.shadowed.contains(v)
    }

    /// The shadowed pointer an integer address was computed from (`addresses`), if any.
    pub fn address_root(&self, v: Value) -> Option<Value> {
        match self.roots.get(v) {
            Some(Root::Of(p)) => Some(p),
            _ => None,
        }
    }

    /// The global variables among the shadowed pointers (in the order of their values).
    pub fn shadowed_globals<'f>(&'f self, func: &'f Function) -> impl Iterator<Item = (Value, &'f str)> + 'f {
        self.shadowed.iter().filter_map(move |v| match func.constant(v) {
            Some(Constant::Global(name, _)) => Some((v, &**name)),
            _ => None,
        })
    }

    /// Instructions the adjoint visits: active results, stores into differentiated memory,
    /// and calls that pass it on.
    pub fn is_active_inst(&self, func: &Function, inst: Inst) -> bool {
        if self.inactive_calls.contains(inst) {
            return false;
        }
        match &func.insts[inst].kind {
            // A GPU barrier orders the adjoint's memory updates too: it is replayed.
            InstKind::Call { callee: Callee::Direct(name), .. } if is_barrier(name) => true,
            // So does an MPI barrier (`rules::mpi`).
            InstKind::Call { callee: Callee::Direct(name), .. } if rules::mpi::is_replayed(name) => true,
            // A stored pointer's shadow is stored by the primal; its adjoint has nothing to do.
            InstKind::Store { value, ptr } => self.has_shadow(*ptr) && !func.ty(*value).holds_only_addresses(),
            // An atomic addition into differentiated memory (OpenMP's `atomic`, a reduction):
            // its adjoint reads the memory's adjoint, whether or not the old value is used.
            InstKind::AtomicFAdd { ptr, .. } => self.has_shadow(*ptr),
            // Address arithmetic: its shadow is computed beside it, its adjoint does nothing.
            InstKind::Call { callee: Callee::Direct(name), .. } if addresses::is_address_intrinsic(name) => false,
            // A callee that reads or writes a differentiated global moves derivatives that
            // no argument or result shows.
            InstKind::Call { .. } if self.global_calls.contains(inst) => true,
            // A call with any active argument is active, whatever its type or its result's:
            // a callee without a body or rule is then an error, never skipped.
            InstKind::Call { args, .. } if !self.silent.contains(inst) => {
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

    /// `analyze`, with the module's facts computed once for all its functions: the forward
    /// pass (varied values, shadowed pointers, addresses in integers), the refusals
    /// (`checks`), then the backward pass (useful values).
    pub fn analyze_with(
        facts: &ModuleFacts,
        conventions: &Conventions,
        module: &Module,
        func: &Function,
        args: &[ArgActivity],
    ) -> Result<Activity, TransformError> {
        let (inactive, insts): (Vec<Inst>, Vec<Inst>) =
            func.inst_order().map(|(_, i)| i).partition(|i| conventions.is_inactive_call(func, *i));
        let mut inactive_calls = EntitySet::new();
        inactive_calls.extend(inactive);
        let Forward { varied, shadowed, roots } = propagate(facts, conventions, module, func, args, &insts);
        let mut silent = EntitySet::new();
        silent.extend(insts.iter().copied().filter(|i| match &func.insts[*i].kind {
            InstKind::Call { callee: Callee::Direct(name), sig, .. } => {
                !is_barrier(name) && conventions.math_rule(name).is_none() && moves_no_derivative(module, name, &sig.ret)
            }
            _ => false,
        }));
        checks::check_memory(module, facts, func, &insts, &varied, &shadowed, &silent)?;
        addresses::check(func, &roots, &shadowed, &silent)?;
        crate::floatbits::check(&facts.bits, &facts.memory, module, func, &varied, &shadowed, &silent)?;
        let useful = useful_values(module, func, &insts, &shadowed, &silent);
        let mut active = EntitySet::new();
        active.extend(varied.iter().filter(|v| useful.contains(*v)));
        let mut global_calls = EntitySet::new();
        global_calls.extend(insts.iter().copied().filter(|i| {
            matches!(&func.insts[*i].kind, InstKind::Call { callee: Callee::Direct(name), .. }
                if facts.reaches_active_globals(name) && !silent.contains(*i))
        }));
        Ok(Activity { active, shadowed, silent, roots, inactive_calls, global_calls })
    }
}

/// The forward pass, to a fixed point (loops): shadows follow pointer arithmetic; derivatives
/// flow from operands and from differentiated memory; addresses flow through integers.
fn propagate(
    facts: &ModuleFacts,
    conventions: &Conventions,
    module: &Module,
    func: &Function,
    args: &[ArgActivity],
    insts: &[Inst],
) -> Forward {
    let param = |kind: ArgActivity| {
        let mut set = EntitySet::new();
        set.extend(func.params.iter().zip(args).filter(|(_, a)| **a == kind).map(|(p, _)| *p));
        set
    };
    let mut varied = param(ArgActivity::Active);
    let mut shadowed = param(ArgActivity::Dup);
    // Globals the program writes that hold floats: their shadows are shadow globals.
    for &inst in insts {
        for v in func.insts[inst].kind.operands() {
            if let Some(Constant::Global(name, _)) = func.constant(v) {
                if module.active_global(name).is_some() {
                    shadowed.insert(v);
                }
            }
        }
    }
    let mut roots = Roots::default();
    let mut changed = true;
    while changed {
        changed = false;
        for &inst in insts {
            let Some(result) = func.result(inst) else { continue };
            let kind = &func.insts[inst].kind;
            let ty = func.ty(result);
            if (ty.is_address() || (is_holder(ty) && moves_aggregate(kind)))
                && !shadowed.contains(result)
                && derives_shadow(module, facts, conventions, kind, &shadowed, &roots)
            {
                shadowed.insert(result);
                changed = true;
            }
            if func.ty(result).is_int() {
                if let Some(root) = addresses::step(func, kind, &shadowed, &roots) {
                    changed |= roots.set(result, root);
                }
            }
            if varied.contains(result) || !func.ty(result).carries_derivative() {
                continue;
            }
            let from_memory = match kind {
                InstKind::Load { ptr, .. } | InstKind::AtomicFAdd { ptr, .. } => shadowed.contains(*ptr),
                InstKind::Call { callee, args, .. } => {
                    args.iter().any(|a| shadowed.contains(*a))
                        || matches!(callee, Callee::Direct(name) if facts.reaches_active_globals(name))
                }
                _ => false,
            };
            if from_memory || flows_from(module, func, kind).iter().any(|v| varied.contains(*v)) {
                varied.insert(result);
                changed = true;
            }
        }
    }
    Forward { varied, shadowed, roots }
}

/// A struct or array type that holds pointers: its values may hold pointers to
/// differentiated memory, and then have shadows (the module comment).
pub fn is_holder(ty: &Type) -> bool {
    matches!(ty, Type::Struct(_) | Type::Array(..)) && ty.holds_pointers()
}

/// The instructions whose struct values' shadows zyg builds (`primal::shadow_instructions`):
/// a struct value a call returns or takes has none (`addresses::aggregate_problem`).
fn moves_aggregate(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Load { .. }
            | InstKind::InsertValue { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::Phi { .. }
            | InstKind::Select { .. }
            | InstKind::Unary { op: UnOp::Freeze, .. }
    )
}

/// Whether an instruction's pointer result points into shadowed memory (or its struct
/// value holds such pointers).
fn derives_shadow(
    module: &Module,
    facts: &ModuleFacts,
    conventions: &Conventions,
    kind: &InstKind,
    shadowed: &EntitySet<Value>,
    roots: &Roots,
) -> bool {
    match kind {
        // An address of differentiated memory that went through an integer.
        InstKind::Cast { op: CastOp::IntToPtr, arg } => matches!(roots.get(*arg), Some(Root::Of(_))),
        InstKind::Call { callee: Callee::Direct(name), args, .. } if addresses::is_address_intrinsic(name) => {
            args.first().is_some_and(|p| shadowed.contains(*p))
        }
        InstKind::Gep { base, .. } => shadowed.contains(*base),
        InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, arg } => shadowed.contains(*arg),
        InstKind::Phi { incoming } => incoming.iter().any(|(_, v)| shadowed.contains(*v)),
        InstKind::Select { then_value, else_value, .. } => shadowed.contains(*then_value) || shadowed.contains(*else_value),
        // Byte arrays too: SROA leaves a partly promoted `double G[3][3]` as `[64 x i8]`,
        // and preparation gives C++ objects of packed classes `[n x <16 x i8>]` (aligned
        // bytes: `zyg_ir::llvm::packed_allocas_to_bytes`).
        InstKind::Alloca { ty } => {
            let byte = |e: &Type| *e == Type::I8 || matches!(e, Type::Vector(_, b) if **b == Type::I8);
            ty.carries_derivative() || ty.holds_pointers() || matches!(ty, Type::Array(_, e) if byte(e))
        }
        // A pointer kept in differentiated memory has its shadow in the shadow memory, at
        // the same place (Enzyme's convention: a shadow struct's pointers point to shadows);
        // so has a struct value holding pointers.
        InstKind::Load { ptr, .. } => shadowed.contains(*ptr),
        // Struct values holding pointers: built from shadowed pointers, or taken apart.
        InstKind::InsertValue { agg, value, .. } => shadowed.contains(*agg) || shadowed.contains(*value),
        InstKind::ExtractValue { agg, .. } => shadowed.contains(*agg),
        InstKind::Unary { op: UnOp::Freeze, arg } => shadowed.contains(*arg),
        // Vectors of pointers (a gather's or scatter's addresses): a splat of one pointer,
        // lanes moved between vectors, one lane taken out.
        InstKind::InsertElement { vec, value, .. } => shadowed.contains(*vec) || shadowed.contains(*value),
        InstKind::ShuffleVector { a, b, .. } => shadowed.contains(*a) || shadowed.contains(*b),
        InstKind::ExtractElement { vec, .. } => shadowed.contains(*vec),
        // Heap memory may hold floats: it gets a shadow (type analysis would spare int buffers).
        kind if conventions.is_allocation(kind) => true,
        // A record of a generated gradient's tape stack: in the shadow stack when the
        // stack's header has a shadow (`rules::stacks`).
        InstKind::Call { args, .. } if rules::stacks::stack_call(kind).is_some() => shadowed.contains(args[0]),
        InstKind::Call { callee: Callee::Direct(name), args, .. } => {
            facts.returns_shadowed(module, name, args.iter().any(|a| shadowed.contains(*a)))
        }
        _ => false,
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
    shadowed: &EntitySet<Value>,
    silent: &EntitySet<Inst>,
) -> EntitySet<Value> {
    let mut useful: EntitySet<Value> = EntitySet::new();
    for &inst in insts {
        match &func.insts[inst].kind {
            InstKind::Ret { value: Some(v) } | InstKind::Store { value: v, .. } | InstKind::AtomicFAdd { value: v, .. } => {
                let stored_to_memory = match &func.insts[inst].kind {
                    InstKind::Store { ptr, .. } | InstKind::AtomicFAdd { ptr, .. } => shadowed.contains(*ptr),
                    _ => true,
                };
                if stored_to_memory && func.ty(*v).carries_derivative() {
                    useful.insert(*v);
                }
            }
            InstKind::Call { args, .. } if !silent.contains(inst) => {
                useful.extend(args.iter().copied().filter(|a| func.ty(*a).carries_derivative()));
            }
            _ => {}
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &inst in insts.iter().rev() {
            let Some(result) = func.result(inst) else { continue };
            if !useful.contains(result) {
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
