//! The OpenMP family: parallel regions (`#pragma omp parallel`, `parallel for`), in reverse
//! and forward mode (`OpenMp::tangent`). clang
//! outlines a region's body into a function `f.omp_outlined(gtid*, btid*, captured...)` and
//! calls `__kmpc_fork_call(loc, n, @f.omp_outlined, captured...)`, which runs it on every
//! thread of a team and returns when all are done. zyg differentiates the outlined function
//! as a *parallel* callee (`Spec::parallel`: shadow updates of memory other threads may
//! reach are atomic, `thread_private_pointers`), and forks its primal and its adjoint the
//! way the program forked the region:
//!
//! - **Primal.** The fork calls a wrapper, `<primal>.fork`, with the captured values, the
//!   shadows of the `dup` ones, and a list head. Each thread allocates its own tape, runs
//!   the outlined primal into it, and pushes a node `{ next, tape, thread number, team
//!   size }` on the list (an atomic exchange). The list head is the fork's callee tape.
//! - **Adjoint.** At the fork's place in the reverse sweep, a team of the recorded size is
//!   asked for (`__kmpc_push_num_threads`) and `<adjoint>.fork` forked: thread `t` of `T`
//!   runs the outlined adjoint on every node whose thread number is `t` modulo `T`, then
//!   frees that tape; the nodes are freed after the join. Each tape holds what its thread did (the iterations the
//!   schedule gave it, static or dynamic, its own chunks), so the adjoint needs no schedule:
//!   it replays each thread's work, whichever thread replays it.
//!
//! Inside the region, the worksharing runtime calls (`__kmpc_for_static_init_*`,
//! `__kmpc_dispatch_*`, `omp_get_thread_num`) only write integers and are left to the
//! primal: the bounds they give are on the tape. Reductions, and critical sections that
//! only add, were made atomic additions by the driver
//! (`zyg_ir::llvm::openmp_reductions_to_atomics`, `openmp_critical_sums_to_atomics`),
//! `#pragma omp atomic` is one
//! already (`rules::access`), and `__kmpc_barrier` is replayed (`rules::gpu`). What zyg
//! does not handle yet (tasks, other `critical` sections, target offload) is refused,
//! named, by `check_region` and `rules::calls::parallel_construct`.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::gpu::strip;
use crate::tangent::Tangent;
use crate::{ArgActivity, Generated, Plan, Spec};
use cranelift_entity::EntitySet;
use std::collections::HashMap;
use zyg_ir::{
    AtomicOrdering, BinOp, CastOp, Constant, Function, Inst, InstKind, IntPred, Linkage, RmwOp, Signature, Type, Value,
};

/// The runtime's entry that runs an outlined region on a team of threads.
pub const FORK: &str = "__kmpc_fork_call";

/// A node of the list of per-thread tapes: `{ next: ptr, tape: ptr, thread: i32, team: i32 }`,
/// then, for the `n` privatised shadows (`privatised`), `n` accumulators of 8 bytes and the
/// `n` real shadows they are added into.
const NODE_BYTES: i64 = 24;
const NEXT: i64 = 0;
const TAPE: i64 = 8;
const THREAD: i64 = 16;
const TEAM: i64 = 20;

pub struct OpenMp;

impl RuleFamily for OpenMp {
    fn name(&self) -> &'static str {
        "OpenMP parallel regions"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let (func, activity) = (cx.func, cx.activity);
        let InstKind::Call { callee: zyg_ir::Callee::Direct(name), args, .. } = &func.insts[inst].kind else {
            return Ok(None);
        };
        if &**name != FORK {
            return Ok(None);
        }
        let outlined = match args.get(2).and_then(|a| func.constant(*a)) {
            Some(Constant::Global(g, _)) if cx.module.function(g).is_some() => g.clone(),
            found => {
                let mut e = TransformError::at(
                    func,
                    inst,
                    "an OpenMP parallel region whose outlined function zyg cannot read (`__kmpc_fork_call` of a \
                     function without a body in this module, or one with an instruction zyg does not read)",
                );
                // The driver says what it could not read in the function, where that is why.
                e.callee = match found {
                    Some(Constant::Global(g, _)) => Some(g.clone()),
                    _ => None,
                };
                return Err(e);
            }
        };
        // The thread numbers' pointers, then the captured values.
        let mut kinds = vec![ArgActivity::Const, ArgActivity::Const];
        for a in &args[3..] {
            if activity.is_active(*a) {
                return Err(TransformError::at(
                    func,
                    inst,
                    format!(
                        "an OpenMP parallel region (outlined as `{outlined}`) captures a float by value \
                         (`firstprivate`) with a derivative; that is not supported yet: share the variable instead"
                    ),
                ));
            }
            kinds.push(if activity.has_shadow(*a) { ArgActivity::Dup } else { ArgActivity::Const });
        }
        let shadows_may_be_null = args[3..].iter().any(|a| activity.has_shadow(*a) && cx.nullable.contains(*a));
        let region = cx.module.function(&outlined).expect("read above");
        // Forward mode's tangents are written where each thread writes its values: nothing
        // to accumulate per thread.
        let private = (2..kinds.len())
            .filter(|_| !cx.forward)
            .filter(|k| kinds[*k] == ArgActivity::Dup && !cx.nullable.contains(args[k + 1]))
            .filter(|k| privatised(func, inst, args[k + 1], region, *k).is_some())
            .collect();
        let parallel = Spec { shadows_may_be_null, parallel: true, private, ..Spec::new(outlined, kinds) };
        Ok(Some(Choice::Fork(parallel)))
    }

    /// The list of the threads' tapes, and the region's source location (a constant).
    fn alphas(&self, needs: &mut Alphas, inst: Inst, _pullback: &Pullback) {
        needs.callee_tape(inst, Type::PTR);
        if let InstKind::Call { args, .. } = &needs.func.insts[inst].kind {
            needs.value(args[0]);
        }
    }

    /// A team of the primal's size runs the outlined adjoint on the threads' tapes.
    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Fork(g) = pullback else { return Ok(()) };
        let InstKind::Call { args, .. } = cx.kind().clone() else { return Ok(()) };
        let head = cx.callee_tape()?;
        let loc = cx.alpha(args[0])?;
        let mut c = cx.cursor();
        let team_at = c.i64(TEAM);
        let team_ptr = c.byte_offset(head, team_at);
        let team = c.load(Type::I32, team_ptr);
        let gtid = c.call("__kmpc_global_thread_num", Signature::new(vec![Type::PTR], Type::I32), vec![loc]).expect("an id");
        c.call(
            "__kmpc_push_num_threads",
            Signature::new(vec![Type::PTR, Type::I32, Type::I32], Type::Void),
            vec![loc, gtid, team],
        );
        let wrapper = c.constant(Constant::Global(adjoint_wrapper_name(g), 0));
        let one = c.i32(1);
        c.call(FORK, fork_signature(), vec![loc, one, wrapper, head]);
        c.call(&free_list_name(g), Signature::new(vec![Type::PTR], Type::Void), vec![head]);
        Ok(())
    }

    /// The region's tangent function, forked the same way: its parameters are the outlined
    /// function's, then the shadows of the `dup` ones, which is the fork's order of captures.
    /// Each thread writes its tangents where it writes its values, so nothing is atomic but
    /// the tangents of atomic additions.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::ForkTangent(g) = pullback else { return Ok(()) };
        if cx.width() > 1 {
            return Err(TransformError::at(
                cx.func(),
                cx.inst,
                "vector mode (`enzyme_width`) through an OpenMP parallel region is not supported yet; make one \
                 request per direction",
            ));
        }
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let mut shadows = Vec::new();
        for (a, activity) in args[3..].iter().zip(&g.args[2..]) {
            if *activity == ArgActivity::Dup {
                shadows.push(match cx.shadow_if_any(*a) {
                    Some(s) => s,
                    None => cx.constant(Constant::Null(0)),
                });
            }
        }
        let count = cx.constant(Constant::int(32, (args.len() - 3 + shadows.len()) as i128));
        let tangents = cx.constant(Constant::Global(g.name.clone(), 0));
        if let InstKind::Call { args, .. } = cx.copied_kind() {
            args[1] = count;
            args[2] = tangents;
            args.extend(shadows);
        }
        Ok(())
    }
}

/// `void __kmpc_fork_call(ptr loc, i32 n, ptr outlined, ...)`.
fn fork_signature() -> Signature {
    Signature { params: vec![Type::PTR, Type::I32, Type::PTR], ret: Type::Void, variadic: true }
}

pub fn primal_wrapper_name(g: &Generated) -> String {
    format!("{}.fork", g.primal)
}

pub fn adjoint_wrapper_name(g: &Generated) -> String {
    format!("{}.fork", g.adjoint)
}

/// What the threads of a team do that zyg cannot replay in the adjoint yet, refused before
/// anything is generated for a parallel spec's function: sections one thread at a time
/// (`critical` ones other than additions, which the driver made atomic; locks, `ordered`),
/// whose adjoints would have to run one at a time in the reverse order of the primal's, and
/// tasks.
pub fn check_region(func: &Function) -> Result<(), TransformError> {
    for (_, inst) in func.inst_order() {
        let InstKind::Call { callee: zyg_ir::Callee::Direct(name), .. } = &func.insts[inst].kind else { continue };
        let refused = ["__kmpc_critical", "__kmpc_set_lock", "__kmpc_ordered", "__kmpc_omp_task", "__kmpc_taskloop"]
            .iter()
            .any(|p| name.starts_with(p))
            || name.starts_with("omp_set_") && name.ends_with("lock");
        // Named as the program wrote it, as the calls family names them.
        let Some(what) = refused.then(|| super::calls::parallel_construct(name)).flatten() else { continue };
        return Err(TransformError::at(
            func,
            inst,
            format!(
                "{what} in a parallel region zyg differentiates is not supported yet: its adjoint would have to \
                 replay the threads one at a time in the reverse of the order they came in; accumulate with \
                 `reduction(+: ...)` or `#pragma omp atomic` instead"
            ),
        ));
    }
    Ok(())
}

/// Whether `outlined` or a function it calls (transitively, in `module`) waits at an OpenMP
/// barrier: its adjoint then needs a team of the primal's size, one tape per thread.
pub fn reaches_barrier(module: &zyg_ir::Module, outlined: &str) -> bool {
    let (mut todo, mut seen) = (vec![outlined.to_string()], std::collections::HashSet::new());
    while let Some(name) = todo.pop() {
        let Some(f) = module.function(&name).filter(|_| seen.insert(name.clone())) else { continue };
        for (_, inst) in f.inst_order() {
            if let InstKind::Call { callee: zyg_ir::Callee::Direct(n), .. } = &f.insts[inst].kind {
                if &**n == crate::activity::OPENMP_BARRIER {
                    return true;
                }
                todo.push(n.to_string());
            }
        }
    }
    false
}

/// The float type of the region's parameter `k` when its shadow can be an accumulator of
/// each thread's own: the fork passes a stack slot of the forking function (`captured`, a
/// variable shared by reference) that nothing else can reach (the fork is its only use
/// besides loads and stores into it, and it is captured once), and the region only loads
/// floats of one type from it. Its adjoints then only add into the shadow, so each thread
/// adds into its own and the sums go into the real shadow at the end (`adjoint_wrapper`):
/// no atomic addition per read, as a loop-invariant scalar read in every iteration (a
/// coefficient) would otherwise cost, every thread contending for one place.
pub fn privatised(forking: &Function, fork: Inst, captured: Value, region: &Function, k: usize) -> Option<Type> {
    let alloca = forking.def_inst(captured)?;
    if !matches!(forking.insts[alloca].kind, InstKind::Alloca { .. }) {
        return None;
    }
    for (_, inst) in forking.inst_order() {
        let kind = &forking.insts[inst].kind;
        let uses = kind.operands().into_iter().filter(|v| *v == captured).count();
        let fine = match kind {
            _ if uses == 0 => true,
            InstKind::Load { .. } => true,
            InstKind::Store { value, .. } => *value != captured,
            InstKind::Call { callee: zyg_ir::Callee::Direct(n), .. } if inst == fork => uses == 1 && &**n == FORK,
            InstKind::Call { callee: zyg_ir::Callee::Direct(n), .. } => n.starts_with("llvm.lifetime."),
            _ => false,
        };
        if !fine {
            return None;
        }
    }
    read_type(region, k)
}

/// The float type the region `region` loads through its parameter `k`, when that is all it
/// does with it.
fn read_type(region: &Function, k: usize) -> Option<Type> {
    let param = *region.params.get(k)?;
    let mut ty = None;
    for (_, inst) in region.inst_order() {
        let kind = &region.insts[inst].kind;
        if !kind.operands().contains(&param) {
            continue;
        }
        match kind {
            InstKind::Load { ty: t, ptr }
                if *ptr == param && matches!(t, Type::Float(_)) && ty.as_ref().is_none_or(|u| u == t) =>
            {
                ty = Some(t.clone())
            }
            _ => return None,
        }
    }
    ty
}

/// Pointers into memory of the thread's own: the function's stack slots (its allocas and
/// addresses into them), and the parameters whose shadows are privatised. Every other pointer may reach memory another thread of the team
/// adds into, so its shadow updates are atomic (`rules::access`).
pub fn thread_private_pointers(func: &Function, privatised: &[usize]) -> EntitySet<Value> {
    let mut private = EntitySet::new();
    // Shadows that are accumulators of the thread's own (`privatised`).
    private.extend(privatised.iter().filter_map(|k| func.params.get(*k).copied()));
    for (_, inst) in func.inst_order() {
        let Some(v) = func.result(inst).filter(|v| func.ty(*v).is_ptr()) else { continue };
        let root = crate::memory::root(func, v);
        if func.def_inst(root).is_some_and(|i| matches!(func.insts[i].kind, InstKind::Alloca { .. })) {
            private.insert(v);
        }
    }
    private
}

/// A step of the primal: each differentiated fork forks the primal wrapper instead, with the
/// shadows of its `dup` captures and the address of a list head (null before the fork);
/// the head, read after it, is the fork's callee tape.
pub fn fork_primals(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) -> HashMap<Inst, Value> {
    let mut heads = HashMap::new();
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Fork(g) = pullback else { continue };
        let InstKind::Call { args, .. } = p.insts[inst].kind.clone() else { continue };
        let entry = p.entry().expect("a function with a body");
        let slot = Cursor::at_start(p, entry).alloca(Type::PTR);
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let null = c.constant(Constant::Null(0));
        c.store(null, slot);
        let captured = &args[3..];
        let dup: Vec<Value> = captured
            .iter()
            .zip(&g.args[2..])
            .filter(|(_, a)| **a == ArgActivity::Dup)
            .map(|(v, _)| shadows.get(v).copied().expect("a dup capture has a shadow"))
            .collect();
        let count = c.i32((captured.len() + dup.len() + 1) as i64);
        let wrapper = c.constant(Constant::Global(primal_wrapper_name(g), 0));
        let mut forked = vec![args[0], count, wrapper];
        forked.extend(captured);
        forked.extend(dup);
        forked.push(slot);
        if let InstKind::Call { args, .. } = &mut p.insts[inst].kind {
            *args = forked;
        }
        let after = crate::primal::position(p, b, inst) + 1;
        let head = Cursor { func: p, block: b, at: Some(after) }.load(Type::PTR, slot);
        heads.insert(inst, head);
    }
    heads
}

/// The two functions a fork of the outlined function `outlined`, differentiated as `g`,
/// calls: `<primal>.fork(gtid*, btid*, captured..., shadows..., head*)`, which runs the
/// outlined primal into a tape of the thread's own and pushes it on the list at `head*`,
/// `<adjoint>.fork(gtid*, btid*, head)`, which runs the outlined adjoint on this thread's
/// share of the list's tapes and frees them, and `<adjoint>.fork.free(head)`.
pub fn wrappers(module: &zyg_ir::Module, outlined: &Function, g: &Generated, private: &[usize]) -> Vec<Function> {
    let private: Vec<(usize, Type)> =
        private.iter().map(|k| (*k, read_type(outlined, *k).expect("a privatised parameter is read"))).collect();
    let mut out = vec![primal_wrapper(outlined, g, &private), free_list(g)];
    if reaches_barrier(module, &outlined.name) {
        let message = format!(
            "zyg: runtime error: the adjoint of the OpenMP parallel region `{}` got a team of another size than its \
             primal's, and the region waits at barriers, which each thread must replay with the others; run \
             without OMP_DYNAMIC, or with enough threads available (OMP_THREAD_LIMIT).\n",
            outlined.name
        );
        out.push(crate::shadows::abort_helper(mismatch_name(g), &message, false));
        out.push(adjoint_wrapper(g, true, &private));
    } else {
        out.push(adjoint_wrapper(g, false, &private));
    }
    out
}

fn mismatch_name(g: &Generated) -> String {
    format!("{}.fork.mismatch", g.adjoint)
}

/// Where a node keeps privatised shadow `j` of `n`'s accumulator, and its real shadow.
fn accumulator_at(j: usize) -> i64 {
    NODE_BYTES + 8 * j as i64
}

fn real_shadow_at(j: usize, n: usize) -> i64 {
    NODE_BYTES + 8 * (n + j) as i64
}

fn primal_wrapper(outlined: &Function, g: &Generated, private: &[(usize, Type)]) -> Function {
    let mut params = outlined.sig.params.clone();
    params.extend(outlined.sig.params.iter().zip(&g.args).filter(|(_, a)| **a == ArgActivity::Dup).map(|(t, _)| t.clone()));
    params.push(Type::PTR);
    let mut f = Function::new(primal_wrapper_name(g), Signature::new(params, Type::Void));
    f.linkage = Linkage::Internal;
    let all = f.params.clone();
    let slot = *all.last().expect("the head's address");
    let entry = f.create_block(Some("entry".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    let malloc = Signature::new(vec![Type::I64], Type::PTR);
    let node_bytes = c.i64(real_shadow_at(private.len(), private.len()));
    let node = c.call("malloc", malloc, vec![node_bytes]).expect("memory");
    let tape = allocate_tape(&mut c, g);
    let thread = c.call("omp_get_thread_num", Signature::new(vec![], Type::I32), vec![]).expect("a number");
    let team = c.call("omp_get_num_threads", Signature::new(vec![], Type::I32), vec![]).expect("a number");
    for (offset, v) in [(TAPE, tape), (THREAD, thread), (TEAM, team)] {
        let at = c.i64(offset);
        let field = c.byte_offset(node, at);
        c.store(v, field);
    }
    let mut args: Vec<Value> = all[..all.len() - 1].to_vec();
    // A privatised shadow is the node's accumulator, zeroed; the real one is kept beside it.
    let dups: Vec<usize> = g.args.iter().enumerate().filter(|(_, a)| **a == ArgActivity::Dup).map(|(k, _)| k).collect();
    for (j, (k, ty)) in private.iter().enumerate() {
        let shadow_index = outlined.params.len() + dups.iter().position(|d| d == k).expect("a dup parameter");
        let (acc_at, real_at) = (c.i64(accumulator_at(j)), c.i64(real_shadow_at(j, private.len())));
        let accumulator = c.byte_offset(node, acc_at);
        let zero = c.constant(Constant::Zero(ty.clone()));
        c.store(zero, accumulator);
        let real = c.byte_offset(node, real_at);
        c.store(args[shadow_index], real);
        args[shadow_index] = accumulator;
    }
    args.push(tape);
    c.call(&g.primal, g.primal_sig.clone(), args);
    // Push the node: the list is read only after the team has joined.
    let node_bits = c.cast(CastOp::PtrToInt, node, Type::I64);
    let kind =
        InstKind::AtomicRmw { op: RmwOp::Xchg, ptr: slot, value: node_bits, ordering: AtomicOrdering::AcqRel, volatile: false };
    let old_bits = c.emit(kind, Type::I64).expect("the old head");
    let old = c.cast(CastOp::IntToPtr, old_bits, Type::PTR);
    let next_at = c.i64(NEXT);
    let next = c.byte_offset(node, next_at);
    c.store(old, next);
    c.ret(None);
    f
}

/// The outlined primal's tape, on the heap (64-byte aligned, for any vector it holds).
fn allocate_tape(c: &mut Cursor, g: &Generated) -> Value {
    let size = if g.boxed {
        c.call(&g.tape_size, Signature::new(vec![], Type::I64), vec![]).expect("a size")
    } else {
        c.size_of(&g.tape_ty)
    };
    let (align, mask) = (c.i64(64), c.i64(-64));
    let grown = c.binary(BinOp::Add, size, align);
    let rounded = c.binary(BinOp::And, grown, mask);
    let sig = Signature::new(vec![Type::I64, Type::I64], Type::PTR);
    c.call("aligned_alloc", sig, vec![align, rounded]).expect("memory")
}

/// With `same_team`, a team of another size than the primal's stops the program
/// (`mismatch_name`): a region with barriers needs each tape replayed by a thread of its own.
fn adjoint_wrapper(g: &Generated, same_team: bool, private: &[(usize, Type)]) -> Function {
    let mut f = Function::new(adjoint_wrapper_name(g), Signature::new(vec![Type::PTR, Type::PTR, Type::PTR], Type::Void));
    f.linkage = Linkage::Internal;
    let head = f.params[2];
    let [entry, walk, body, run, exit] = ["entry", "walk", "body", "run", "exit"].map(|n| f.create_block(Some(n.into())));
    let mut c = Cursor::at_end(&mut f, entry);
    let thread = c.call("omp_get_thread_num", Signature::new(vec![], Type::I32), vec![]).expect("a number");
    let team = c.call("omp_get_num_threads", Signature::new(vec![], Type::I32), vec![]).expect("a number");
    if same_team {
        // The list has a node per thread of the primal's team, each with the team's size.
        let at = c.i64(TEAM);
        let recorded_ptr = c.byte_offset(head, at);
        let recorded = c.load(Type::I32, recorded_ptr);
        let other = c.icmp(IntPred::Ne, recorded, team);
        c.call(&mismatch_name(g), Signature::new(vec![Type::I1], Type::Void), vec![other]);
    }
    let node = walk_list(&mut c, head, [walk, body, exit]);
    let field = |c: &mut Cursor, offset: i64| {
        let at = c.i64(offset);
        c.byte_offset(node, at)
    };
    let thread_ptr = field(&mut c, THREAD);
    let owner = c.load(Type::I32, thread_ptr);
    let share = c.binary(BinOp::URem, owner, team);
    let mine = c.icmp(IntPred::Eq, share, thread);
    c.cond_br(mine, run, walk);
    c.switch_to(run);
    let tape_ptr = field(&mut c, TAPE);
    let tape = c.load(Type::PTR, tape_ptr);
    c.call(&g.adjoint, g.adjoint_sig.clone(), vec![tape]);
    c.free(tape);
    // The thread's sums into privatised shadows go where the other threads' go.
    for (j, (_, ty)) in private.iter().enumerate() {
        let accumulator = field(&mut c, accumulator_at(j));
        let sum = c.load(ty.clone(), accumulator);
        let real_ptr = field(&mut c, real_shadow_at(j, private.len()));
        let real = c.load(Type::PTR, real_ptr);
        c.atomic_add_into(real, ty, sum);
    }
    c.br(walk);
    c.switch_to(exit);
    c.ret(None);
    f
}

/// `<adjoint>.fork.free(head)`: frees the list's nodes, once the team that walked it has
/// joined (a thread cannot free its own nodes while the others may still read their links).
fn free_list(g: &Generated) -> Function {
    let mut f = Function::new(free_list_name(g), Signature::new(vec![Type::PTR], Type::Void));
    f.linkage = Linkage::Internal;
    let head = f.params[0];
    let [entry, walk, body, exit] = ["entry", "walk", "body", "exit"].map(|n| f.create_block(Some(n.into())));
    let mut c = Cursor::at_end(&mut f, entry);
    let node = walk_list(&mut c, head, [walk, body, exit]);
    c.free(node);
    c.br(walk);
    c.switch_to(exit);
    c.ret(None);
    f
}

/// A walk over the list from `head`: branches to `walk`, which goes to `exit` at the end of
/// the list and to `body` otherwise; leaves the cursor in `body`, the node's link already
/// followed (its body may free the node), and gives the node. The body ends with a branch
/// back to `walk`.
fn walk_list(c: &mut Cursor, head: Value, [walk, body, exit]: [zyg_ir::Block; 3]) -> Value {
    let cursor = c.alloca(Type::PTR);
    c.store(head, cursor);
    c.br(walk);
    c.switch_to(walk);
    let node = c.load(Type::PTR, cursor);
    let bits = c.cast(CastOp::PtrToInt, node, Type::I64);
    let zero = c.i64(0);
    let done = c.icmp(IntPred::Eq, bits, zero);
    c.cond_br(done, exit, body);
    c.switch_to(body);
    let next_at = c.i64(NEXT);
    let next_ptr = c.byte_offset(node, next_at);
    let next = c.load(Type::PTR, next_ptr);
    c.store(next, cursor);
    node
}

fn free_list_name(g: &Generated) -> String {
    format!("{}.fork.free", g.adjoint)
}

/// A load in an outlined region's worksharing loop, `root[iv + offset]`, whose adjoint is a
/// plain addition where no other thread can add into the same place (`owned_loads`).
#[derive(Clone, Debug)]
pub struct Owned {
    /// The loop's induction variable (rebuilt by the adjoint).
    pub iv: Value,
    pub offset: i64,
    /// The thread's chunk, `[lb, ub]`, as loaded from the runtime's slots before the loop.
    pub lb: Value,
    pub ub: Value,
    /// The smallest and largest offset of any access through the root in the region.
    pub min: i64,
    pub max: i64,
}

/// The loads of an outlined region whose adjoints need no atomic addition in most
/// iterations. A worksharing loop's thread runs the iterations `[lb, ub]` of its chunk,
/// which no other thread runs. When every access through an array `root` in the region is
/// `root[iv + c]` in that loop, the element `j` is touched only by iterations `j - c`; so
/// for `j` in `[lb + max c, ub + min c]` all of them are this thread's, and its adjoint is a
/// plain addition. The edges of the chunk stay atomic (a check per load, `add_owned`).
///
/// Only when `root` is the region's one array whose shadow receives additions (loads of
/// floats, atomic additions, calls that may read it): another pointer the region reads
/// could be the same memory at another index, and its threads' atomic additions would race
/// with the plain ones. (Stores need no such care: in a race-free region no other thread
/// reads what a thread writes in the same loop.) The chunk's bounds are the values the
/// region loads from the runtime's `lb`/`ub` slots (`__kmpc_for_static_init_*`,
/// `__kmpc_dispatch_next_*`) in the block where the loop's start is loaded; `ub` is taken as
/// the runtime gave it, before clang clamps it to the loop's last iteration (a larger `ub`
/// names only iterations that do not run).
pub fn owned_loads(
    func: &Function,
    inductions: &HashMap<Value, crate::recompute::Induction>,
    private: &EntitySet<Value>,
) -> HashMap<Value, Owned> {
    let none = HashMap::new();
    // The runtime's bound slots: (lb, ub) argument positions per call.
    let mut slots: Vec<(Value, Value)> = Vec::new();
    let mut roots: Vec<Value> = Vec::new();
    for (_, inst) in func.inst_order() {
        match &func.insts[inst].kind {
            InstKind::Call { callee: zyg_ir::Callee::Direct(n), args, .. } => {
                if n.starts_with("__kmpc_for_static_init_") && args.len() >= 6 {
                    slots.push((args[4], args[5]));
                } else if n.starts_with("__kmpc_dispatch_next_") && args.len() >= 5 {
                    slots.push((args[3], args[4]));
                } else if args.iter().any(|a| func.ty(*a).is_ptr() && !private.contains(*a) && !is_runtime(n)) {
                    // A callee or library call may read shared memory: no ownership anywhere.
                    return none;
                }
            }
            InstKind::Call { .. } => return none,
            InstKind::Load { ty, ptr } if ty.carries_derivative() && !private.contains(*ptr) => {
                roots.push(decompose(func, *ptr, inductions).map_or(*ptr, |d| d.root))
            }
            InstKind::AtomicFAdd { ptr, .. } => roots.push(decompose(func, *ptr, inductions).map_or(*ptr, |d| d.root)),
            _ => {}
        }
    }
    roots.sort_unstable();
    roots.dedup();
    let [root] = roots[..] else { return none };
    // Every access through the root, in one worksharing loop.
    let mut accesses: Vec<(Value, Decomposed)> = Vec::new();
    for (_, inst) in func.inst_order() {
        let kind = &func.insts[inst].kind;
        let ptr = match kind {
            InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } | InstKind::AtomicFAdd { ptr, .. } => *ptr,
            _ => continue,
        };
        if let InstKind::Store { value, .. } = kind {
            if crate::memory::root(func, *value) == root {
                return none;
            }
        }
        let Some(d) = decompose(func, ptr, inductions) else { continue };
        if d.root != root {
            continue;
        }
        let access_bytes = match kind {
            InstKind::Load { ty, .. } => ty.natural_layout().map(|(s, _)| s),
            InstKind::Store { value, .. } | InstKind::AtomicFAdd { value, .. } => {
                func.ty(*value).natural_layout().map(|(s, _)| s)
            }
            _ => None,
        };
        match (d.iv, access_bytes) {
            (Some((_, size)), Some(bytes)) if size == bytes && d.bytes % size as i64 == 0 => accesses.push((ptr, d)),
            _ => return none,
        }
    }
    // The root and the addresses computed from it have no other use than more address
    // steps and the accesses above (nothing else reads the memory, no copy escapes).
    let addressed: std::collections::HashSet<Value> = accesses.iter().map(|(p, _)| *p).collect();
    let mut derived = std::collections::HashSet::from([root]);
    let mut grew = true;
    while grew {
        grew = false;
        for (_, inst) in func.inst_order() {
            if let InstKind::Gep { base: from, .. } | InstKind::Cast { arg: from, .. } = &func.insts[inst].kind {
                if derived.contains(from) {
                    grew |= func.result(inst).is_some_and(|v| derived.insert(v));
                }
            }
        }
    }
    for (_, inst) in func.inst_order() {
        let kind = &func.insts[inst].kind;
        let operands = kind.operands();
        if !operands.iter().any(|v| derived.contains(v)) {
            continue;
        }
        match kind {
            InstKind::Gep { base, .. } | InstKind::Cast { arg: base, .. } if derived.contains(base) => {}
            InstKind::Load { ptr, .. } | InstKind::AtomicFAdd { ptr, .. }
                if addressed.contains(ptr) && operands.iter().filter(|v| derived.contains(v)).count() == 1 => {}
            InstKind::Store { ptr, value } if addressed.contains(ptr) && !derived.contains(value) => {}
            _ => return none,
        }
    }
    let Some((iv, size)) = accesses.first().and_then(|(_, d)| d.iv) else { return none };
    if accesses.iter().any(|(_, d)| d.iv.map(|(v, _)| v) != Some(iv)) {
        return none;
    }
    let Some((lb, ub)) = chunk_bounds(func, inductions, iv, &slots) else { return none };
    let offsets: Vec<i64> = accesses.iter().map(|(_, d)| d.bytes / size as i64).collect();
    let (min, max) = (*offsets.iter().min().expect("some"), *offsets.iter().max().expect("some"));
    accesses.into_iter().zip(offsets).map(|((ptr, _), offset)| (ptr, Owned { iv, offset, lb, ub, min, max })).collect()
}

/// The worksharing runtime's calls, which only read and write the integers of their slots.
fn is_runtime(name: &str) -> bool {
    name.starts_with("__kmpc_") || name.starts_with("omp_") || name.starts_with("llvm.lifetime.")
}

/// An address as `root + iv * size + bytes` (`iv` an induction variable, possibly extended,
/// `size` its element's bytes), through `getelementptr`s of one index and casts.
#[derive(Clone, Copy, Debug)]
struct Decomposed {
    root: Value,
    iv: Option<(Value, u64)>,
    bytes: i64,
}

fn decompose(func: &Function, mut p: Value, inductions: &HashMap<Value, crate::recompute::Induction>) -> Option<Decomposed> {
    let (mut iv, mut bytes) = (None, 0i64);
    while let Some(i) = func.def_inst(p) {
        match &func.insts[i].kind {
            InstKind::Gep { source_ty, base, indices, .. } if indices.len() == 1 => {
                let size = source_ty.natural_layout()?.0;
                let index = indices[0];
                if let Some(k) = func.constant(index).and_then(|c| c.as_i128()) {
                    bytes += i64::try_from(k).ok()? * size as i64;
                } else {
                    let (v, c) = induction_plus(func, index, inductions)?;
                    if iv.is_some() {
                        return None;
                    }
                    iv = Some((v, size));
                    bytes += c * size as i64;
                }
                p = *base;
            }
            InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, arg } => p = *arg,
            InstKind::Gep { .. } => return None,
            _ => break,
        }
    }
    Some(Decomposed { root: p, iv, bytes })
}

/// `iv + c` (`c` a constant, `iv` an induction variable with step 1), through extensions.
fn induction_plus(func: &Function, v: Value, inductions: &HashMap<Value, crate::recompute::Induction>) -> Option<(Value, i64)> {
    let v = strip(func, v);
    let unit = |v: Value| {
        inductions.get(&v).is_some_and(|iv| matches!(&iv.step, crate::recompute::Step::Int(k) if k.as_i128() == Some(1)))
    };
    if unit(v) {
        return Some((v, 0));
    }
    let InstKind::Binary { op, args } = &func.insts[func.def_inst(v)?].kind else { return None };
    let (a, k) = (strip(func, args[0]), func.constant(args[1]).and_then(|c| c.as_i128())?);
    let k = i64::try_from(k).ok()?;
    match op {
        BinOp::Add if unit(a) => Some((a, k)),
        BinOp::Sub if unit(a) => Some((a, -k)),
        _ => None,
    }
}

/// The thread's chunk for the loop of induction variable `iv`: its start is (an extension
/// of) a load of a runtime `lb` slot, and the same block loads the matching `ub` slot.
fn chunk_bounds(
    func: &Function,
    inductions: &HashMap<Value, crate::recompute::Induction>,
    iv: Value,
    slots: &[(Value, Value)],
) -> Option<(Value, Value)> {
    let start = strip(func, inductions.get(&iv)?.start);
    let load = func.def_inst(start)?;
    let InstKind::Load { ptr: lb_slot, .. } = func.insts[load].kind else { return None };
    let (_, ub_slot) = *slots.iter().find(|(lb, _)| *lb == lb_slot)?;
    let block = func.blocks.iter().find(|(_, b)| b.insts.contains(&load)).map(|(b, _)| b)?;
    let ub = func.blocks[block].insts.iter().find_map(|i| match func.insts[*i].kind {
        InstKind::Load { ptr, .. } if ptr == ub_slot => func.result(*i),
        _ => None,
    })?;
    Some((start, ub))
}

/// `void NAME(ptr p, T v, i64 j, i64 lo, i64 hi)`: `*p += v`, plainly where `lo <= j <= hi`
/// (an element only this thread adds into, `owned_loads`), atomically elsewhere.
pub fn add_owned_helper(name: String, ty: &Type) -> Function {
    let sig = Signature::new(vec![Type::PTR, ty.clone(), Type::I64, Type::I64, Type::I64], Type::Void);
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::Internal;
    f.attributes.push("alwaysinline".into());
    let [p, v, j, lo, hi] = [f.params[0], f.params[1], f.params[2], f.params[3], f.params[4]];
    let [entry, plain, atomic] = ["entry", "plain", "atomic"].map(|n| f.create_block(Some(n.into())));
    let mut c = Cursor::at_end(&mut f, entry);
    let above = c.icmp(IntPred::Sge, j, lo);
    let below = c.icmp(IntPred::Sle, j, hi);
    let inside = c.binary(BinOp::And, above, below);
    c.cond_br(inside, plain, atomic);
    c.switch_to(plain);
    c.add_into(p, ty, v);
    c.ret(None);
    c.switch_to(atomic);
    c.atomic_add_into(p, ty, v);
    c.ret(None);
    f
}

pub fn add_owned_name(namespace: &str, ty: &Type) -> String {
    format!("__{namespace}_add_owned_{ty}")
}
