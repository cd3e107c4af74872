//! The calls family: every call no earlier family claimed (`rules::FAMILIES`). A call to a
//! function with a body is differentiated through: the primal calls the callee's primal,
//! which fills the callee's tape; the adjoint calls the callee's adjoint with that tape. A
//! call to a function without a body or rule, or an indirect call, is an error that says
//! what makes it active and the way out. In forward mode the call calls the callee's
//! tangent function instead, with the shadows and tangents of its arguments.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::activity::Activity;
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::checkpoint::Checkpoint;
use crate::error::TransformError;
use crate::tangent::Tangent;
use crate::{ArgActivity, Generated, Spec};
use std::collections::HashMap;
use zyg_ir::{AtomicOrdering, BinOp, Callee, CastOp, Constant, Function, Inst, InstKind, RmwOp, Signature, Type, Value};

pub struct Calls;

impl RuleFamily for Calls {
    fn name(&self) -> &'static str {
        "calls"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let (func, activity) = (cx.func, cx.activity);
        let (name, args) = match &func.insts[inst].kind {
            InstKind::Call { callee: Callee::Direct(name), args, .. } => (name, args),
            InstKind::Call { callee: Callee::Indirect(fp), .. } if cx.conventions.indirect.is_unknown_callee(func, *fp) => {
                return Ok(Some(Choice::Pullback(Pullback::UnknownCallee)));
            }
            InstKind::Call { .. } => {
                return Err(TransformError::at(
                    func,
                    inst,
                    format!(
                        "a call through a pointer on active values ({}), and the module takes the address of no \
                         function of its type, so zyg cannot tell which functions it may reach; call the function \
                         directly, or pass it to the gradient request as a `const` argument so zyg can specialise to it",
                        active_call_parts(func, inst, activity)
                    ),
                ))
            }
            _ => return Ok(None),
        };
        if cx.module.function(name).is_none() {
            return Err(TransformError::at(func, inst, unknown_callee_message(func, inst, name, activity, cx.forward)));
        }
        let shadows_may_be_null = args.iter().any(|a| activity.has_shadow(*a) && cx.nullable.contains(*a));
        let args = args
            .iter()
            .map(|a| {
                if activity.is_active(*a) {
                    ArgActivity::Active
                } else if activity.has_shadow(*a) {
                    ArgActivity::Dup
                } else {
                    ArgActivity::Const
                }
            })
            .collect();
        Ok(Some(Choice::Callee(Spec { shadows_may_be_null, args, ..Spec::new(name.to_string(), Vec::new()) })))
    }

    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        match pullback {
            Pullback::Callee(g) => needs.callee_tape(inst, if g.boxed { Type::PTR } else { g.tape_ty.clone() }),
            // The arguments to run the callee's primal again: values, shadows, and the copies
            // of the memory pointer arguments point into (the "callee tape").
            Pullback::Checkpoint(cp) => {
                let InstKind::Call { args, .. } = &needs.func.insts[inst].kind else { return };
                if cp.has_block() {
                    needs.callee_tape(inst, Type::PTR);
                }
                for (k, (a, activity)) in args.iter().zip(&cp.callee.args).enumerate() {
                    if !cp.snapshots.iter().any(|s| s.arg == k) && cp.int_offset(k).is_none() {
                        needs.value(*a);
                    }
                    if *activity == ArgActivity::Dup {
                        needs.shadow(*a);
                    }
                }
            }
            _ => {}
        }
    }

    /// The callee's adjoint, given its tape and the result's adjoint; its gradients go to
    /// the active arguments. In vector mode, one call for all lanes: the result's adjoint
    /// once per lane, and each active argument's gradients one per lane, in a row.
    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        if let Pullback::Checkpoint(cp) = pullback {
            return Calls::rerun(cx, cp);
        }
        let Pullback::Callee(callee) = pullback else { return Ok(()) };
        let tape = cx.callee_tape()?;
        // An inline tape goes back into a slot for the callee; a boxed one is its own.
        let tape = match cx.callee_slot() {
            Some(slot) => {
                cx.cursor().store(tape, slot);
                slot
            }
            None => tape,
        };
        Calls::adjoint_into_arguments(cx, callee, tape);
        if callee.boxed {
            cx.cursor().free(tape);
        }
        Ok(())
    }

    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        match pullback {
            Pullback::Forward(callee) => Calls::tangent_call(cx, callee),
            Pullback::UnknownCallee => Ok(()),
            _ => Err(TransformError::at(cx.func(), cx.inst, "internal error: a reverse-mode callee in forward mode")),
        }
    }

    fn all_lanes(&self, pullback: &Pullback) -> bool {
        matches!(pullback, Pullback::Forward(_) | Pullback::Callee(_))
    }
}

impl Calls {
    /// Calls the callee's adjoint on `tape`, with the result's adjoint of every lane, and
    /// adds the gradients it returns (one per lane, in a row) into the active arguments.
    fn adjoint_into_arguments(cx: &mut Reverse, callee: &Generated, tape: Value) {
        let InstKind::Call { args, .. } = cx.kind() else { unreachable!("a callee's pullback on a call") };
        let lanes = cx.width();
        let ds: Vec<Option<Value>> = (0..lanes)
            .map(|lane| {
                cx.set_lane(lane);
                cx.d
            })
            .collect();
        let mut c = cx.cursor();
        let sig = callee.adjoint_sig.clone();
        let mut adjoint_args = vec![tape];
        if let Some(dret_ty) = sig.params.get(1) {
            for d in ds {
                adjoint_args.push(d.unwrap_or_else(|| c.constant(Constant::Zero(dret_ty.clone()))));
            }
        }
        let grads = c.call(&callee.adjoint, sig, adjoint_args).expect("adjoint returns gradients");
        let mut k = 0;
        for (a, arg) in args.iter().zip(&callee.args) {
            if *arg == ArgActivity::Active {
                for lane in 0..lanes {
                    cx.set_lane(lane);
                    let g = cx.cursor().extract(grads, k);
                    cx.accumulate(*a, g);
                    k += 1;
                }
            }
        }
    }

    /// Heap memory for a boxed tape of `callee` (`Generated::tape_size` bytes).
    pub fn allocate_tape(c: &mut Cursor, callee: &Generated) -> Value {
        let size = if callee.boxed {
            c.call(&callee.tape_size, Signature::new(vec![], Type::I64), vec![]).expect("a size")
        } else {
            c.size_of(&callee.tape_ty)
        };
        c.call("malloc", Signature::new(vec![Type::I64], Type::PTR), vec![size]).expect("memory")
    }

    /// A checkpointed call's adjoint (`crate::checkpoint`): the callee's primal again, on the
    /// arguments the primal stored (pointer arguments into the copies of their memory, with
    /// their shadows), into a tape of its own; then the callee's adjoint on that tape.
    fn rerun(cx: &mut Reverse, cp: &Checkpoint) -> Result<(), TransformError> {
        let InstKind::Call { args, .. } = cx.kind() else { unreachable!("a checkpointed call") };
        let callee = &cp.callee;
        let copies = if cp.has_block() { Some(cx.callee_tape()?) } else { None };
        let mut primal_args = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let offset = cp.snapshots.iter().position(|s| s.arg == k).map(|j| cp.moved_offset(j)).or(cp.int_offset(k));
            let value = match (offset, copies) {
                (Some(offset), Some(copies)) => {
                    let ty = cx.func().ty(*a).clone();
                    let mut c = cx.cursor();
                    let at = c.i64(offset);
                    let slot = c.byte_offset(copies, at);
                    c.load(ty, slot)
                }
                _ => cx.alpha(*a)?,
            };
            primal_args.push(value);
        }
        for (a, activity) in args.iter().zip(&callee.args) {
            if *activity == ArgActivity::Dup {
                let shadow = cx.shadow(*a)?;
                primal_args.push(shadow);
            }
        }
        let tape = Calls::allocate_tape(&mut cx.cursor(), callee);
        let iterations = args.len().checked_sub(1).map(|last| primal_args[last]);
        primal_args.push(tape);
        let namespace = cx.plan().namespace.clone();
        let before = cp.measure.as_ref().map(|_| crate::stack::live_bytes(&mut cx.cursor(), &namespace));
        cx.cursor().call(&callee.primal, callee.primal_sig.clone(), primal_args);
        if let (Some(global), Some(before), Some(iterations)) = (&cp.measure, before, iterations) {
            // A steps function's tape per iteration, for the next call's choice of its
            // length: the chunk bytes its stacks took, over the iterations it was given.
            let mut c = cx.cursor();
            let after = crate::stack::live_bytes(&mut c, &namespace);
            let taken = c.binary(BinOp::Sub, after, before);
            let divisor = c.unsigned_at_least(iterations, 1);
            let per = c.binary(BinOp::UDiv, taken, divisor);
            let at = c.constant(Constant::Global(global.clone(), 0));
            c.emit(
                InstKind::AtomicRmw {
                    op: RmwOp::UMax,
                    ptr: at,
                    value: per,
                    ordering: AtomicOrdering::Monotonic,
                    volatile: false,
                },
                Type::I64,
            );
        }
        Calls::adjoint_into_arguments(cx, callee, tape);
        let mut c = cx.cursor();
        c.free(tape);
        if let Some(copies) = copies {
            for j in (0..cp.snapshots.len()).filter(|j| cp.snapshots[*j].shares.is_none()) {
                let at = c.i64(cp.copy_offset(j));
                let slot = c.byte_offset(copies, at);
                let copy = c.load(Type::PTR, slot);
                c.free(copy);
            }
            c.free(copies);
        }
        Ok(())
    }

    /// Forward mode: the call becomes a call of the callee's tangent function, given the
    /// shadows of its `dup` arguments and the tangents of its `active` ones, and where to
    /// write its result's tangent, which is read back after it. In vector mode, one call
    /// for all lanes: each shadow, tangent and slot once per lane, lane 0 first.
    pub fn tangent_call(cx: &mut Tangent, callee: &crate::tangent::Tangents) -> Result<(), TransformError> {
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let lanes = cx.width();
        let mut extra = Vec::new();
        for (a, activity) in args.iter().zip(&callee.args) {
            for lane in 0..lanes {
                cx.set_lane(lane);
                match activity {
                    ArgActivity::Dup => match cx.shadow_if_any(*a) {
                        Some(s) => extra.push(s),
                        None => {
                            let ty = cx.func().ty(*a).clone();
                            let Type::Ptr(space) = ty else { unreachable!("a dup argument is a pointer") };
                            extra.push(cx.constant(Constant::Null(space)));
                        }
                    },
                    ArgActivity::Active => extra.push(cx.tangent(*a)),
                    ArgActivity::Const => {}
                }
            }
        }
        let mut slots = Vec::new();
        for lane in 0..lanes {
            cx.set_lane(lane);
            slots.extend(cx.ret_slot());
        }
        extra.extend(&slots);
        if let InstKind::Call { callee: target, sig, args, .. } = cx.copied_kind() {
            *target = Callee::Direct(callee.name.as_str().into());
            *sig = callee.sig.clone();
            args.extend(extra);
        }
        if let Some(v) = cx.result {
            let ty = cx.func().ty(v).clone();
            if ty.carries_derivative() {
                for (lane, slot) in slots.into_iter().enumerate() {
                    cx.set_lane(lane);
                    let t = cx.cursor().load(ty.clone(), slot);
                    cx.set(t);
                }
            }
        }
        Ok(())
    }
}

/// Why a call to a function zyg has no derivative for is active: which arguments carry
/// derivatives or differentiated memory, and whether the result does.
fn active_call_parts(func: &Function, inst: Inst, activity: &Activity) -> String {
    let InstKind::Call { args, .. } = &func.insts[inst].kind else { return String::new() };
    let mut parts: Vec<String> = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            if activity.is_active(*a) {
                Some(format!("argument {} is an active value", i + 1))
            } else if activity.has_shadow(*a) {
                Some(format!("argument {} points to differentiated memory", i + 1))
            } else {
                None
            }
        })
        .collect();
    if func.result(inst).is_some_and(|v| activity.is_active(v) || activity.has_shadow(v)) {
        parts.push("its result is active".into());
    }
    parts.join(", ")
}

/// The error for a call to a function without a body or rule that may move a derivative:
/// what makes the call active, and the way out that fits the function.
fn unknown_callee_message(func: &Function, inst: Inst, name: &str, activity: &Activity, forward: bool) -> String {
    let parts = active_call_parts(func, inst, activity);
    if name.contains("__enzyme_") || name.contains("__zyg_") {
        return format!(
            "a derivative request inside a function being differentiated that zyg could not fill first (`{name}`, \
             and {parts}): zyg fills nested requests innermost first, following direct calls and functions passed \
             by name; call the inner request's function directly"
        );
    }
    if let Some(construct) = parallel_construct(name).filter(|_| name.starts_with("MPI_") || name.starts_with("PMPI_")) {
        return format!(
            "{construct} is not supported yet: zyg differentiates MPI's point-to-point, nonblocking and collective \
             calls on `MPI_DOUBLE` and `MPI_FLOAT` data (rules::mpi; README, \"Parallel programs\"), and {parts}. \
             Restructure the communication with those calls, or differentiate the work of one rank and combine the \
             ranks' gradients yourself; declaring `{name}` inactive would drop the derivatives that go through it"
        );
    }
    if let Some(construct) = parallel_construct(name) {
        return format!(
            "{construct} is not supported yet, and {parts}: zyg differentiates the OpenMP and MPI constructs its \
             README lists (\"Parallel programs\"); rewrite this part with those, or differentiate the serial code \
             (compiled without -fopenmp); declaring `{name}` inactive would drop the derivatives that go through it"
        );
    }
    // Forward mode takes forward registrations (`custom`), reverse mode the others.
    let register = if forward { format!("__enzyme_register_derivative_{name}") } else { format!("__zyg_pullback_{name}") };
    if super::math::is_c_math_function(name) {
        return format!(
            "no derivative is known for `{name}`: zyg has no rule for this C library function yet, and {parts}. \
             Register a derivative for it (`{register}`, see README)"
        );
    }
    format!(
        "no derivative is known for `{name}`: it has no body in this module and no rule, and {parts}. \
         Compile its definition into this module, or register a derivative for it (`{register}`, see \
         README); only if it truly cannot change the result (a logging function), declare it inactive \
         (`void *__enzyme_inactivefn[] = {{(void *){name}}};`)"
    )
}

/// The parallel construct a call of OpenMP's or MPI's runtime makes, named as the program
/// wrote it, when `name` is such a function: clang lowers `#pragma omp parallel` to
/// `__kmpc_fork_call` of an outlined function, a task to `__kmpc_omp_task_alloc`, an
/// offloaded region to `__tgt_target_kernel`, and so on.
pub(crate) fn parallel_construct(name: &str) -> Option<String> {
    let what = match name {
        "__kmpc_fork_teams" => "an OpenMP teams region (`#pragma omp teams`)".into(),
        n if n.starts_with("__tgt_") => "OpenMP target offload (`#pragma omp target`)".into(),
        n if n.starts_with("__kmpc_omp_task") || n.starts_with("__kmpc_taskloop") => {
            "an OpenMP task (`#pragma omp task`, `taskloop`)".into()
        }
        n if n.starts_with("__kmpc_reduce") || n.starts_with("__kmpc_end_reduce") => {
            "an OpenMP reduction (`reduction(...)`)".into()
        }
        n if n.starts_with("__kmpc_atomic") => "an OpenMP atomic update (`#pragma omp atomic`)".into(),
        n if n.starts_with("__kmpc_critical") || n.starts_with("__kmpc_end_critical") => {
            "an OpenMP critical section (`#pragma omp critical`)".into()
        }
        n if n.starts_with("__kmpc_ordered") || n.starts_with("__kmpc_end_ordered") => {
            "an OpenMP ordered section (`#pragma omp ordered`)".into()
        }
        n if n.starts_with("omp_set_") && n.ends_with("lock") || n.starts_with("__kmpc_set_lock") => {
            "an OpenMP lock (`omp_set_lock`)".into()
        }
        n if n.starts_with("__kmpc_") || n.starts_with("omp_") || n.starts_with("GOMP_") => {
            format!("the OpenMP runtime call `{n}`")
        }
        n if ["MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Win_", "MPI_Rput", "MPI_Rget"]
            .iter()
            .any(|p| n.starts_with(p)) =>
        {
            format!("one-sided MPI communication (`{n}`)")
        }
        n if n.starts_with("MPI_Type_") => format!("an MPI derived datatype (`{n}`)"),
        n if n.starts_with("MPI_") || n.starts_with("PMPI_") => format!("the MPI call `{n}`"),
        _ => return None,
    };
    Some(what)
}

/// A step of the primal: before each checkpointed call with pointer arguments, a copy of
/// the whole allocation each points into, and a heap block with two pointers per such
/// argument (its copy, and the argument moved into its copy), then the integer arguments
/// (`Checkpoint::ints`). (Separate allocations, so that
/// the copies hold only what the memory held: a gradient differentiated again reads them
/// like any memory.) The block is the call's "callee tape", which the adjoint reads and
/// frees with the copies.
pub fn snapshot_arguments(plan: &crate::Plan, p: &mut Function) -> HashMap<Inst, Value> {
    let mut blocks = HashMap::new();
    let malloc = Signature::new(vec![Type::I64], Type::PTR);
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Checkpoint(cp) = pullback else { continue };
        if !cp.has_block() {
            continue;
        }
        let InstKind::Call { args, .. } = plan.func.insts[inst].kind.clone() else { continue };
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let bytes = c.i64(cp.block_bytes());
        let block = c.call("malloc", malloc.clone(), vec![bytes]).expect("memory");
        let mut copies = Vec::new();
        for (j, s) in cp.snapshots.iter().enumerate() {
            let copy = match s.shares {
                Some(earlier) => copies[earlier],
                None => {
                    let size = s.size.bytes(&mut c);
                    let copy = c.call("malloc", malloc.clone(), vec![size]).expect("memory");
                    let memcpy = Signature::new(vec![Type::PTR, Type::PTR, Type::I64], Type::PTR);
                    c.call("memcpy", memcpy, vec![copy, s.base, size]);
                    copy
                }
            };
            copies.push(copy);
            let (arg, base) = (c.cast(CastOp::PtrToInt, args[s.arg], Type::I64), c.cast(CastOp::PtrToInt, s.base, Type::I64));
            let delta = c.binary(BinOp::Sub, arg, base);
            let moved = c.byte_offset(copy, delta);
            for (v, offset) in [(copy, cp.copy_offset(j)), (moved, cp.moved_offset(j))] {
                let at = c.i64(offset);
                let slot = c.byte_offset(block, at);
                c.store(v, slot);
            }
        }
        for &k in &cp.ints {
            let at = c.i64(cp.int_offset(k).expect("an integer argument"));
            let slot = c.byte_offset(block, at);
            c.store(args[k], slot);
        }
        blocks.insert(inst, block);
    }
    blocks
}
