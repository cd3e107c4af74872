//! GPU kernels. Many threads run a kernel's adjoint at once, and the adjoints of their
//! loads add into shadow memory: where two threads may add into the same place the adds
//! must be atomic. zyg decides it per pointer: an address `base[i]` belongs to one thread,
//! and its shadow is updated with plain loads and stores, when
//!
//! - `base` is where an object starts (a parameter or a global, not an address computed
//!   from another: `(x + 1)[i]` is `x[i + 1]`, which thread `i + 1` may touch as `x[i]`),
//!   every access through `base` is such a `base[i]` with the same `i`, `base` has no
//!   other use (no copy of it escapes the analysis), and no other function may touch its
//!   object (`reached_elsewhere`: a global no other function names, a parameter of a
//!   function no other one calls);
//! - in a kernel that reads only x indices and sizes, `i` is the thread's global index
//!   (`ctaid.x * ntid.x + tid.x`, however the product and sum are ordered and extended),
//!   or, for an array in shared memory (address space 3, one copy per block), the index
//!   within the block, `tid.x`, as well;
//! - in a kernel that reads y ones too, `i` is `row * w + col`, `row` and `col` the y and x
//!   global indices, `w` a parameter (the same for every thread, all along), and every
//!   access is guarded by `col < w` (a dominating branch on it, alone or in an `&&`): then
//!   distinct threads have distinct `(row, col)` and so distinct `i` (as long as
//!   `row * w + col` does not overflow). `tid.x` alone tells nothing apart there. A kernel
//!   that reads z gets no thread-private pointers. (A kernel launched on more dimensions
//!   than it reads runs each thread's work several times, racing in the primal already.)
//!
//! Every other shadow update is an `atomicrmw fadd`: on shared memory these are cheap, and
//! a shared array read at a neighbour's index (`buf[t + s]`, `tile[t - 1]`) needs them.
//! The adjoint of a store (take the shadow, zero it) stays a plain load and store: in a
//! race-free kernel one thread writes a place between two barriers, and the replayed
//! barriers order the other threads' adds into it before or after.
//!
//! Shared memory's shadows are shared arrays the gradient zeroes first (`zero_shared_shadows`).
//! Dynamic shared memory (`extern __shared__ float s[]`, sized by the launch) has no
//! global for a shadow: the gradient kernel is launched with twice the dynamic bytes, and
//! the shadow of the region's first half is its second half (`dynamic_shadow`). Its names
//! all start at the region's start, so each name's shadow is the name plus the same offset,
//! and the shadows alias as the names do. Every shadow is computed from one of the names
//! (`dynamic_region`): LLVM takes two globals for two objects, and would reorder accesses
//! to the shadows of two names of one place. Updates of it are always atomic: the analysis
//! below tells objects apart by their bases, and the names of one region are not apart.

use crate::builder::Cursor;
use cranelift_entity::EntitySet;
use std::collections::{BTreeSet, HashMap};
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::{
    BinOp, Block, Callee, CastOp, Constant, Function, InstKind, IntPred, Module, Signature, Type, Value, ValueDef, SHARED_MEMORY,
};

fn sreg(func: &Function, v: Value, which: &str) -> bool {
    let Some(i) = func.def_inst(v) else { return false };
    matches!(&func.insts[i].kind, InstKind::Call { callee: Callee::Direct(n), .. }
        if n.strip_prefix("llvm.nvvm.read.ptx.sreg.") == Some(which))
}

/// Looks through integer extensions.
pub(crate) fn strip(func: &Function, mut v: Value) -> Value {
    while let Some(i) = func.def_inst(v) {
        match &func.insts[i].kind {
            InstKind::Cast { op: CastOp::SExt | CastOp::ZExt, arg } => v = *arg,
            _ => break,
        }
    }
    v
}

/// Two operands of `op`, looking through extensions, in both orders.
fn operands_of(func: &Function, v: Value, op: BinOp) -> Option<[(Value, Value); 2]> {
    let i = func.def_inst(strip(func, v))?;
    let InstKind::Binary { op: found, args } = &func.insts[i].kind else { return None };
    let (a, b) = (strip(func, args[0]), strip(func, args[1]));
    (*found == op).then_some([(a, b), (b, a)])
}

/// `ctaid.D * ntid.D + tid.D` for dimension `dim` (`x`, `y`), in any order (extensions
/// allowed around each part).
fn is_grid_index(func: &Function, v: Value, dim: &str) -> bool {
    let reg = |v: Value, name: &str| sreg(func, v, &format!("{name}.{dim}"));
    let is_block_offset = |x: Value| {
        operands_of(func, x, BinOp::Mul).is_some_and(|pairs| pairs.iter().any(|(a, b)| reg(*a, "ctaid") && reg(*b, "ntid")))
    };
    operands_of(func, v, BinOp::Add).is_some_and(|pairs| pairs.iter().any(|(t, o)| reg(*t, "tid") && is_block_offset(*o)))
}

/// `ctaid.x * ntid.x + tid.x` in any order (extensions allowed around each part).
pub fn is_thread_index(func: &Function, v: Value) -> bool {
    is_grid_index(func, v, "x")
}

/// `row * w + col` in any order, `row` the y grid index, `col` the x one and `w` a
/// parameter: the thread's element of a row-major 2D array `w` wide. Gives `(col, w)`.
fn grid_2d_index(func: &Function, v: Value) -> Option<(Value, Value)> {
    operands_of(func, v, BinOp::Add)?.into_iter().find_map(|(product, col)| {
        let is_row_width = |(row, w): &(Value, Value)| is_grid_index(func, *row, "y") && func.params.contains(w);
        let (_, w) = operands_of(func, product, BinOp::Mul)?.into_iter().find(is_row_width)?;
        is_grid_index(func, col, "x").then_some((col, w))
    })
}

/// `cond` being `taken` (true or false) implies `col < w`: `icmp slt/ult col, w` (or the
/// mirrored `w > col`, or on the false edge `col >= w`), alone or in a conjunction (`and`,
/// and the `select a, b, false` clang writes for `&&`; on the false edge `or`).
fn implies_below(func: &Function, cond: Value, taken: bool, col: Value, w: Value) -> bool {
    let Some(i) = func.def_inst(cond) else { return false };
    let either = |a: Value, b: Value| implies_below(func, a, taken, col, w) || implies_below(func, b, taken, col, w);
    match &func.insts[i].kind {
        InstKind::ICmp { pred, args } => {
            let (a, b) = (strip(func, args[0]), strip(func, args[1]));
            use IntPred::*;
            match (taken, pred) {
                (true, Slt | Ult) | (false, Sge | Uge) => a == col && b == w,
                (true, Sgt | Ugt) | (false, Sle | Ule) => a == w && b == col,
                _ => false,
            }
        }
        InstKind::Binary { op: BinOp::And, args } if taken => either(args[0], args[1]),
        InstKind::Binary { op: BinOp::Or, args } if !taken => either(args[0], args[1]),
        InstKind::Select { cond, then_value, else_value } => {
            let constant = |v: Value, x: bool| func.constant(v) == Some(&Constant::bool(x));
            (taken && constant(*else_value, false) || !taken && constant(*then_value, true))
                && either(*cond, if taken { *then_value } else { *else_value })
        }
        _ => false,
    }
}

/// Code in `block` runs only where `col < w`: some dominator of it (itself included) is
/// entered only by an edge of a conditional branch whose condition implies it.
fn guarded_below(func: &Function, cfg: &ControlFlowGraph, dom: &DominatorTree, block: Block, col: Value, w: Value) -> bool {
    let mut at = Some(block);
    while let Some(b) = at {
        if let [pred] = cfg.preds(b) {
            let branch = func.terminator(*pred).map(|t| &func.insts[t].kind);
            if let Some(InstKind::CondBr { cond, then_dest, else_dest }) = branch {
                if then_dest != else_dest && implies_below(func, *cond, *then_dest == b, col, w) {
                    return true;
                }
            }
        }
        at = dom.idom(b);
    }
    false
}

/// The most dimensions of the grid the kernel reads (an index or a size in x, y or z).
fn dimensions_read(func: &Function) -> u32 {
    let dims = func.inst_order().filter_map(|(_, i)| match &func.insts[i].kind {
        InstKind::Call { callee: Callee::Direct(n), .. } => {
            match n.strip_prefix("llvm.nvvm.read.ptx.sreg.")?.rsplit('.').next() {
                Some("x") => Some(1),
                Some("y") => Some(2),
                Some("z") => Some(3),
                _ => None,
            }
        }
        _ => None,
    });
    dims.max().unwrap_or(1)
}

/// The pointers whose memory only the running thread touches (see the module comment).
pub fn thread_private_pointers(module: &Module, func: &Function) -> EntitySet<Value> {
    let dims = dimensions_read(func);
    if dims > 2 {
        return EntitySet::new();
    }
    let cfg = ControlFlowGraph::compute(func);
    let dom = DominatorTree::compute(func, &cfg);
    // Index `i` in `block` names the running thread's own element of `base`.
    let owns = |base: Value, i: Value, block: Block| match dims {
        1 => is_thread_index(func, i) || (*func.ty(base) == Type::Ptr(SHARED_MEMORY) && sreg(func, strip(func, i), "tid.x")),
        _ => grid_2d_index(func, i).is_some_and(|(col, w)| guarded_below(func, &cfg, &dom, block, col, w)),
    };
    // The single-index GEPs on each base; the bases used otherwise; and the pointers other
    // addresses are computed from (`&base[i] + 1` is a neighbour's).
    let mut geps: HashMap<Value, Vec<(Value, Value, Block)>> = HashMap::new();
    let mut other_use: EntitySet<Value> = EntitySet::new();
    let mut derived_from: EntitySet<Value> = EntitySet::new();
    for (block, i) in func.inst_order() {
        let kind = &func.insts[i].kind;
        if let InstKind::Gep { base, .. } | InstKind::Cast { arg: base, .. } = kind {
            derived_from.insert(*base);
        }
        match (kind, func.result(i)) {
            (InstKind::Gep { base, indices, .. }, Some(r)) if indices.len() == 1 => {
                geps.entry(*base).or_default().push((r, indices[0], block));
            }
            _ => {
                for v in kind.operands().into_iter().filter(|v| func.ty(*v).is_ptr()) {
                    other_use.insert(v);
                }
            }
        }
    }
    let mut private = EntitySet::new();
    for (base, on_base) in geps {
        let index = on_base[0].1;
        let owned = func.def_inst(base).is_none()
            && !is_dynamic_shared(module, func, base)
            && !reached_elsewhere(module, func, base)
            && !other_use.contains(base)
            && on_base.iter().all(|(gep, i, block)| *i == index && !derived_from.contains(*gep) && owns(base, *i, *block));
        if owned {
            for (gep, _, _) in &on_base {
                private.insert(*gep);
            }
        }
    }
    private
}

/// Whether another function of the module may touch the object `base` starts, in the same
/// kernel: a global another function names, or a parameter of a function another one calls
/// (the caller may pass an object it touches itself). This function's analysis sees only
/// its own accesses: `buf[t]` here is not the thread's own if a callee reads `buf[t + 1]`,
/// and a plain update of its shadow would race with the callee's atomic one.
fn reached_elsewhere(module: &Module, func: &Function, base: Value) -> bool {
    let others = || module.functions.iter().filter(|f| f.name != func.name);
    match func.values[base].def {
        ValueDef::Const(Constant::Global(ref name, _)) => {
            others().any(|f| f.values.values().any(|v| matches!(&v.def, ValueDef::Const(Constant::Global(n, _)) if n == name)))
        }
        ValueDef::Param(_) => others().any(|f| {
            f.inst_order()
                .any(|(_, i)| matches!(&f.insts[i].kind, InstKind::Call { callee: Callee::Direct(n), .. } if **n == func.name))
        }),
        _ => false,
    }
}

/// Whether `v` is a name of dynamic shared memory (`GlobalVar::is_dynamic_shared`).
pub fn is_dynamic_shared(module: &Module, func: &Function, v: Value) -> bool {
    matches!(func.constant(v), Some(Constant::Global(name, _)) if module.globals.get(name).is_some_and(|g| g.is_dynamic_shared()))
}

/// The special register holding the bytes of dynamic shared memory the launch gave
/// (PTX `%dynamic_smem_size`).
const DYNAMIC_SMEM_SIZE: &str = "llvm.nvvm.read.ptx.sreg.dynamic_smem_size";

/// What the dynamic bytes a gradient is launched with must be a multiple of: twice 16, so
/// that the second half (the shadow) starts 16-byte aligned, as the first does (PTX's
/// vector loads and stores of shared memory need 16). The launch gives 2 N bytes for a
/// kernel that uses N: N must be a multiple of 16.
pub const DYNAMIC_LAUNCH_MULTIPLE: i64 = 32;

/// Half the dynamic shared bytes of the launch, as an i64: where the shadow half starts.
fn dynamic_half(c: &mut Cursor) -> Value {
    let size = c.call(DYNAMIC_SMEM_SIZE, Signature::new(vec![], Type::I32), vec![]).expect("a special register");
    let one = c.i32(1);
    let half = c.binary(BinOp::LShr, size, one);
    c.cast(CastOp::ZExt, half, Type::I64)
}

/// The name of dynamic shared memory that every shadow of it is computed from: the first of
/// its names (they all start at the region's start).
fn dynamic_region(module: &Module) -> &str {
    module.globals.iter().find(|(_, g)| g.is_dynamic_shared()).map(|(name, _)| name.as_str()).expect("dynamic shared memory")
}

/// The shadow of dynamic shared memory's start, and so of each of its names: the second half
/// of the region (`dynamic_region + dynamic_smem_size / 2`). An instruction, not a constant:
/// emitted where it is needed (LLVM merges the copies: the register read has no side
/// effects).
pub fn dynamic_shadow(module: &Module, c: &mut Cursor) -> Value {
    let base = c.constant(Constant::Global(dynamic_region(module).to_string(), SHARED_MEMORY));
    let half = dynamic_half(c);
    let ty = Type::Ptr(SHARED_MEMORY);
    c.emit(InstKind::Gep { source_ty: Type::I8, base, indices: vec![half], inbounds: false }, ty).expect("a pointer")
}

/// Stops the kernel (`llvm.trap`) unless the launch gave a non-zero multiple of
/// `DYNAMIC_LAUNCH_MULTIPLE` dynamic shared bytes: a gradient launched with the primal's
/// bytes instead of twice them, or with an odd size, would otherwise put the shadow over
/// the primal's memory or misalign it, and compute wrong derivatives silently. (A launch
/// with N bytes where N is itself such a multiple cannot be told from one with 2 N / 2 = N:
/// the contract is the caller's; see README "GPU kernels".) Leaves `c` in a new block.
pub fn check_dynamic_launch(c: &mut Cursor) {
    let size = c.call(DYNAMIC_SMEM_SIZE, Signature::new(vec![], Type::I32), vec![]).expect("a special register");
    let mask = c.i32(DYNAMIC_LAUNCH_MULTIPLE - 1);
    let rem = c.binary(BinOp::And, size, mask);
    let zero = c.i32(0);
    let misaligned = c.icmp(IntPred::Ne, rem, zero);
    let empty = c.icmp(IntPred::Eq, size, zero);
    let bad = c.binary(BinOp::Or, misaligned, empty);
    let (trap, ok) = (c.func.create_block(None), c.func.create_block(None));
    c.cond_br(bad, trap, ok);
    c.switch_to(trap);
    c.trap();
    c.switch_to(ok);
}

/// Makes the names of dynamic shared memory one name in zyg's copy of the program: every use
/// of another becomes a use of the first (`dynamic_region`). They all start at the region's
/// start, and the analyses tell memory apart by the global it is reached from: the type
/// analysis would type `a` and `b` of `extern __shared__ float a[]; extern __shared__ int
/// b[];` apart (and take a float copied through `b` for an integer), the thread-private
/// analysis would take `a[t]` and `b[t]` for two places, and LLVM, given the generated code,
/// would reorder an access to one around an access to the other. Then, when no name has a
/// type with floats but the program stores floats into the region (`extern __shared__ char
/// smem[]` used through a `float *`), the region is given that float type, so that it is
/// differentiated (`Module::differentiates_dynamic_shared`) rather than refused.
pub fn one_dynamic_region(module: &mut Module) {
    let names: Vec<String> = module.globals.iter().filter(|(_, g)| g.is_dynamic_shared()).map(|(n, _)| n.clone()).collect();
    let Some(region) = names.first().cloned() else { return };
    for func in &mut module.functions {
        let others: Vec<(Value, u32)> = func
            .values
            .iter()
            .filter_map(|(v, data)| match &data.def {
                ValueDef::Const(Constant::Global(name, space)) if *name != region && names.contains(name) => Some((v, *space)),
                _ => None,
            })
            .collect();
        for (other, space) in others {
            let to = func.constant_value(Constant::Global(region.clone(), space));
            let insts: Vec<_> = func.inst_order().map(|(_, i)| i).collect();
            for i in insts {
                for operand in func.insts[i].kind.operands_mut() {
                    if *operand == other {
                        *operand = to;
                    }
                }
            }
        }
    }
    if module.differentiates_dynamic_shared() {
        return;
    }
    let stored_float = module.functions.iter().find_map(|func| {
        func.inst_order().find_map(|(_, i)| match &func.insts[i].kind {
            InstKind::Store { value, ptr } | InstKind::AtomicFAdd { value, ptr, .. }
                if matches!(func.constant(crate::memory::root(func, *ptr)), Some(Constant::Global(n, _)) if *n == region) =>
            {
                func.ty(*value).float_elem()
            }
            _ => None,
        })
    });
    if let Some(float) = stored_float {
        let global = module.globals.get_mut(&region).expect("a global");
        if !global.inactive {
            global.ty = Type::Array(0, std::sync::Arc::new(Type::Float(float)));
        }
    }
}

/// Whether the gradient (or tangent) of `function` uses a shadow of dynamic shared memory,
/// and so must be launched with twice the dynamic bytes (`check_dynamic_launch`).
pub fn dynamic_shared_reached(module: &Module, function: &str) -> bool {
    shared_globals_reached(module, function).iter().any(|name| module.globals[name].is_dynamic_shared())
}

/// The shared-memory globals with shadows (`Module::active_global`) that `function`, or a
/// function it calls directly (transitively), refers to.
pub fn shared_globals_reached(module: &Module, function: &str) -> BTreeSet<String> {
    crate::activity::active_globals_reached(module, function).into_iter().filter(|g| module.globals[g].is_shared()).collect()
}

/// Where shared-memory shadows are: a shadow global (name, type), or the second half of
/// dynamic shared memory.
pub enum SharedShadow {
    Fixed(String, Type),
    Dynamic,
}

/// Zeroes the shared-memory shadows `shadows`, then waits at a barrier so that no thread
/// adds into them before all are zero. The block's threads share the work: thread `tid.x`
/// zeroes 32-bit words `tid.x`, `tid.x + ntid.x`, ... (every type with floats in it is a
/// whole number of words; the dynamic half is a multiple of 16 bytes, `check_dynamic_launch`
/// having run first). In a 2D or 3D block, threads with the same `tid.x` zero the same
/// words: redundant, and still correct. Every thread of the block must get here, as at a
/// `__syncthreads()`: the gradient of a kernel starts here.
pub fn zero_shared_shadows(module: &Module, c: &mut Cursor, shadows: &[SharedShadow]) {
    if shadows.is_empty() {
        return;
    }
    let sreg = |c: &mut Cursor, which: &str| {
        let v = c.call(&format!("llvm.nvvm.read.ptx.sreg.{which}"), Signature::new(vec![], Type::I32), vec![]);
        c.cast(CastOp::ZExt, v.expect("a special register"), Type::I64)
    };
    let (tid, ntid) = (sreg(c, "tid.x"), sreg(c, "ntid.x"));
    for shadow in shadows {
        let (base, bytes) = match shadow {
            SharedShadow::Fixed(name, ty) => (c.constant(Constant::Global(name.clone(), SHARED_MEMORY)), c.size_of(ty)),
            SharedShadow::Dynamic => (dynamic_shadow(module, c), dynamic_half(c)),
        };
        let four = c.i64(4);
        let words = c.binary(BinOp::UDiv, bytes, four);
        let (before, check, body, next) =
            (c.block, c.func.create_block(None), c.func.create_block(None), c.func.create_block(None));
        c.br(check);
        c.switch_to(check);
        let k = c.emit(InstKind::Phi { incoming: vec![(before, tid)] }, Type::I64).expect("a phi");
        let inside = c.icmp(IntPred::Ult, k, words);
        c.cond_br(inside, body, next);
        c.switch_to(body);
        let word = c
            .emit(InstKind::Gep { source_ty: Type::I32, base, indices: vec![k], inbounds: true }, Type::Ptr(SHARED_MEMORY))
            .expect("a pointer");
        let zero = c.i32(0);
        c.store(zero, word);
        let k_next = c.binary(BinOp::Add, k, ntid);
        c.br(check);
        let phi = c.func.def_inst(k).expect("the phi");
        if let InstKind::Phi { incoming } = &mut c.func.insts[phi].kind {
            incoming.push((body, k_next));
        }
        c.switch_to(next);
    }
    let all = c.i32(0);
    c.call(BARRIER, Signature::new(vec![Type::I32], Type::Void), vec![all]);
}

/// `__syncthreads()` as clang 22 writes it (barrier 0, all threads of the block).
pub const BARRIER: &str = "llvm.nvvm.barrier.cta.sync.aligned.all";
