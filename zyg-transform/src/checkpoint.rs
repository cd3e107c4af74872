//! Checkpointed calls. A recursive call whose call tree may grow with the work it does (one
//! made in a loop, or from several places of its function: a determinant by minor
//! expansion, a tree recursion) would keep a tape for every activation of the tree until
//! the adjoint reaches it: memory in proportion to the primal's work, and one boxed tape per
//! call. Such a call is *checkpointed* instead: the primal calls the function itself and
//! stores the call's arguments (their values, and a copy of the memory each pointer
//! argument points into); the adjoint reruns the callee's primal on them, which rebuilds the
//! callee's tape, and runs the callee's adjoint on it. Memory then grows with the depth of
//! the recursion rather than the size of its call tree, for one more run of each call's
//! primal per level: what a hand-written adjoint of such a recursion does.
//!
//! Rerunning gives the same tape only when the callee reads nothing that may change between
//! the call and its adjoint, and changes nothing anyone else reads:
//! - the callee and everything it calls write only memory they allocate themselves, read
//!   only through their arguments, their own memory and constant globals, and call nothing
//!   else (no output, no unknown function: `ReadsOnly`);
//! - each pointer argument points into memory its caller allocated in the same function
//!   (`malloc`, `calloc`, `new`, an `alloca`), which never holds a pointer and never escapes,
//!   so that a copy of that whole allocation, taken at the call, is all the callee can read
//!   (`stays_plain`).
//!
//! Any other recursive call keeps its tape (`Pullback::Callee`, boxed).
//!
//! The calls of a segmented loop's segment functions (`segment`) are checkpointed the same
//! way, with one rule relaxed: a segment writes the memory its pointer arguments point into
//! (the loop's state). That is sound when that memory is what the primal copies: the rerun
//! then starts from the memory as the call found it, and changes only the copy. So for them
//! the callee may also write through its parameters, plain data only (`ReadsOnly::writes`),
//! and arguments into one allocation share one copy. Inside a segment function, a parameter
//! that is a whole allocation comes with its size (`Segments::sized`), so that the next level
//! down can copy it too.

use crate::builder::Cursor;
use crate::conventions::Conventions;
use crate::rules::memcalls::MemCall;
use crate::rules::{Pullback, Pullbacks};
use crate::segment::Segments;
use crate::spec::Generated;
use std::collections::HashMap;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{BinOp, Block, Callee, CastOp, Constant, Function, Inst, InstKind, Module, Type, Value, ValueDef};

/// A checkpointed call: the callee's primal and adjoint, and the pointer arguments whose
/// memory the primal copies.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub callee: Generated,
    pub snapshots: Vec<Snapshot>,
    /// The integer arguments that are not constants: kept beside the copies rather than on
    /// the tape, whose memory also holds floats (a gradient differentiated again must be
    /// able to tell that an integer passed to the rerun never held float bits).
    pub ints: Vec<usize>,
    /// A segmented loop's steps function (`segment`): the global in which the rerun keeps the
    /// most tape bytes one iteration took (the call's last argument is its iteration count),
    /// from which the next gradient call chooses the steps' length.
    pub measure: Option<String>,
}

impl Checkpoint {
    /// Whether the primal stores anything beside the tape (the "callee tape" block).
    pub fn has_block(&self) -> bool {
        !self.snapshots.is_empty() || !self.ints.is_empty()
    }

    /// The block's layout: for snapshot `j`, the pointer to its copy, then the argument
    /// moved into the copy; after them, the integer arguments, 8 bytes each.
    pub fn copy_offset(&self, j: usize) -> i64 {
        16 * j as i64
    }

    pub fn moved_offset(&self, j: usize) -> i64 {
        16 * j as i64 + 8
    }

    /// The byte offset of integer argument `arg` in the block.
    pub fn int_offset(&self, arg: usize) -> Option<i64> {
        let k = self.ints.iter().position(|a| *a == arg)?;
        Some(self.copy_offset(self.snapshots.len()) + 8 * k as i64)
    }

    pub fn block_bytes(&self) -> i64 {
        self.copy_offset(self.snapshots.len()) + 8 * self.ints.len() as i64
    }
}

/// Argument `arg` points into the allocation `base` of `size`: the primal copies the whole
/// allocation before the call, and the adjoint passes the copy (at the same offset).
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub arg: usize,
    pub base: Value,
    pub size: Size,
    /// An earlier snapshot of the same allocation, whose copy this one shares (a callee that
    /// writes must see one memory through both arguments, as the primal did).
    pub shares: Option<usize>,
}

/// The size of an allocation, from its instruction.
#[derive(Clone, Debug)]
pub enum Size {
    /// `malloc(n)`, `new[n]`: `n` bytes.
    Bytes(Value),
    /// `calloc(n, size)`.
    Product(Value, Value),
    /// An `alloca` of this type.
    Of(Type),
}

impl Size {
    /// The size in bytes, an i64 computed at the cursor.
    pub fn bytes(&self, c: &mut Cursor) -> Value {
        match self {
            Size::Bytes(n) => *n,
            Size::Product(n, m) => c.binary(BinOp::Mul, *n, *m),
            Size::Of(ty) => c.size_of(ty),
        }
    }
}

/// Phase "checkpoint choice" (after the pullback choice): turns the recursive calls that
/// may be checkpointed (see the module's comment) into `Pullback::Checkpoint`, and returns
/// what it decided for the `-v` report, one line per recursive call.
pub fn choose(
    module: &Module,
    conventions: &Conventions,
    segments: &Segments,
    func: &Function,
    loops: &LoopAnalysis,
    block_of: &cranelift_entity::SecondaryMap<Inst, Block>,
    pullbacks: &mut Pullbacks,
) -> Vec<String> {
    let segment_call =
        |inst: Inst| matches!(&func.insts[inst].kind, InstKind::Call { callee: Callee::Direct(c), .. } if segments.is_segment(c));
    let recursive: Vec<Inst> = crate::rules::chosen(pullbacks)
        .filter(|(_, p)| matches!(p, Pullback::Callee(g) if g.boxed))
        .map(|(inst, _)| inst)
        .filter(|inst| !segment_call(*inst))
        .collect();
    let segment_calls: Vec<Inst> = crate::rules::chosen(pullbacks)
        .filter(|(inst, p)| matches!(p, Pullback::Callee(_)) && segment_call(*inst))
        .map(|(inst, _)| inst)
        .collect();
    let mut reads_only = ReadsOnly::new(module, conventions, false);
    let mut writers = ReadsOnly::new(module, conventions, true);
    let mut report = Vec::new();
    for &inst in recursive.iter().chain(&segment_calls) {
        let Some(Pullback::Callee(g)) = &pullbacks[inst] else { continue };
        let g = (**g).clone();
        let InstKind::Call { callee: Callee::Direct(callee), .. } = &func.insts[inst].kind else { continue };
        let line = line_of(func, inst);
        let writes = segment_calls.contains(&inst);
        let branching = writes || recursive.len() > 1 || loops.may_repeat(block_of[inst]);
        let why_not = if !branching {
            Some("made once per activation (a linear recursion: its tape grows as its depth does)".to_string())
        } else {
            let checker = if writes { &mut writers } else { &mut reads_only };
            checkpointable(module, conventions, segments, func, inst, pullbacks, checker)
                .map(|snapshots| {
                    let InstKind::Call { args, .. } = &func.insts[inst].kind else { return };
                    let ints =
                        (0..args.len()).filter(|k| func.ty(args[*k]).is_int() && func.constant(args[*k]).is_none()).collect();
                    let measure = segments.measured.get(&**callee).cloned();
                    pullbacks[inst] = Some(Pullback::Checkpoint(Box::new(Checkpoint { callee: g, snapshots, ints, measure })));
                })
                .err()
        };
        report.push(match why_not {
            None => {
                format!("{}: call to {callee}{line} checkpointed: arguments stored, its primal rerun in the adjoint", func.name)
            }
            Some(why) => format!("{}: call to {callee}{line} taped: {why}", func.name),
        });
    }
    report
}

/// Whether call `inst` can be checkpointed: the snapshots it needs, or why not.
fn checkpointable(
    module: &Module,
    conventions: &Conventions,
    segments: &Segments,
    func: &Function,
    inst: Inst,
    pullbacks: &Pullbacks,
    reads_only: &mut ReadsOnly,
) -> Result<Vec<Snapshot>, String> {
    let InstKind::Call { callee: Callee::Direct(name), args, unwind, .. } = &func.insts[inst].kind else {
        return Err("not a direct call".into());
    };
    if unwind.is_some() {
        return Err("it may throw (an `invoke`)".into());
    }
    if func.result(inst).is_some_and(|v| holds_pointers(func.ty(v))) {
        return Err("it returns a pointer".into());
    }
    if !reads_only.holds(name) {
        return Err(reads_only.why(name));
    }
    let mut snapshots = Vec::new();
    for (k, &a) in args.iter().enumerate() {
        let ty = func.ty(a);
        if matches!(ty, Type::Ptr(0)) {
            if matches!(func.constant(a), Some(Constant::Null(_))) {
                continue;
            }
            let (base, size) = match root(module, func, a) {
                Root::Fresh(base) => (
                    base,
                    allocation_size(func, base)
                        .ok_or_else(|| format!("argument {} points into an allocation of unknown size", k + 1))?,
                ),
                // A segment function's parameter that is a whole allocation, with its size.
                Root::Param(p) => match segments.size_param(&func.name, p) {
                    Some(s) => (func.params[p], Size::Bytes(func.params[s])),
                    // Memory nothing changes during the gradient call, which the callee does
                    // not write either: the rerun reads it where it is.
                    None if segments.unchanging_param(&func.name, p) && !reads_only.writes_through(name, k) => continue,
                    None => return Err(format!("argument {} does not point into memory allocated in `{}`", k + 1, func.name)),
                },
                _ => return Err(format!("argument {} does not point into memory allocated in `{}`", k + 1, func.name)),
            };
            if !stays_plain(module, conventions, func, base, pullbacks, reads_only) {
                return Err(format!(
                    "the memory argument {} points into may hold pointers or is passed where zyg cannot follow it",
                    k + 1
                ));
            }
            let shares = snapshots.iter().position(|s: &Snapshot| s.base == base);
            snapshots.push(Snapshot { arg: k, base, size, shares });
        } else if holds_pointers(ty) {
            return Err(format!("argument {} holds pointers", k + 1));
        }
    }
    Ok(snapshots)
}

/// " (line N)" for the report, when the instruction has a source line.
fn line_of(func: &Function, inst: Inst) -> String {
    func.insts[inst].loc.as_ref().map(|l| format!(" (line {})", l.line)).unwrap_or_default()
}

fn holds_pointers(ty: &Type) -> bool {
    ty.is_ptr() || ty.holds_pointers()
}

/// What a pointer is based on, through `getelementptr` and casts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    /// A parameter of the function (its index).
    Param(usize),
    /// Memory the function allocated (the allocation's value).
    Fresh(Value),
    /// A constant global.
    ConstantGlobal,
    /// Anything else: a loaded pointer, a call's result, a phi, a mutable global.
    Other,
}

pub(crate) fn root(module: &Module, func: &Function, mut v: Value) -> Root {
    loop {
        match &func.values[v].def {
            ValueDef::Param(p) => return Root::Param(*p as usize),
            ValueDef::Const(Constant::Global(name, _)) => {
                return if module.globals.get(name).is_some_and(|g| g.constant) { Root::ConstantGlobal } else { Root::Other };
            }
            ValueDef::Inst(i) => match &func.insts[*i].kind {
                InstKind::Gep { base, .. } => v = *base,
                InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, arg } => v = *arg,
                InstKind::Alloca { .. } => return Root::Fresh(v),
                kind if is_fresh_allocation(kind) => return Root::Fresh(v),
                _ => return Root::Other,
            },
            _ => return Root::Other,
        }
    }
}

/// An allocation whose memory is new (not `realloc`, which keeps the old contents).
fn is_fresh_allocation(kind: &InstKind) -> bool {
    crate::activity::is_allocation(kind) && !crate::memory::is_realloc(kind)
}

pub(crate) fn allocation_size(func: &Function, base: Value) -> Option<Size> {
    let inst = func.def_inst(base)?;
    match &func.insts[inst].kind {
        InstKind::Alloca { ty } => Some(Size::Of(ty.clone())),
        InstKind::Call { callee: Callee::Direct(name), args, .. } => {
            let sized = |k: usize| args.get(k).copied().filter(|a| *func.ty(*a) == Type::I64);
            match &**name {
                "malloc" | "_Znwm" | "_Znam" => sized(0).map(Size::Bytes),
                "calloc" => Some(Size::Product(sized(0)?, sized(1)?)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether the allocation `base` only ever holds plain data and stays in this function:
/// every use of a pointer based on it is a load, a store of a value without pointers, a
/// comparison, a `memset`, a copy out of it, a `free`, or an argument of a call to a
/// function that only reads its arguments (`ReadsOnly`).
fn stays_plain(
    module: &Module,
    conventions: &Conventions,
    func: &Function,
    base: Value,
    pullbacks: &Pullbacks,
    reads_only: &mut ReadsOnly,
) -> bool {
    let of_base = root(module, func, base);
    let based = |v: Value| root(module, func, v) == of_base && func.ty(v).is_ptr();
    for (_, inst) in
        func.inst_order().chain(func.handlers.iter().flat_map(|b| func.blocks[*b].insts.iter().map(move |i| (*b, *i))))
    {
        let kind = &func.insts[inst].kind;
        if !kind.operands().into_iter().any(based) {
            continue;
        }
        let ok = match kind {
            InstKind::Gep { base: b, indices, .. } => based(*b) && !indices.iter().any(|i| based(*i)),
            InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, .. } | InstKind::Load { .. } => true,
            InstKind::ICmp { .. } => true,
            InstKind::Store { value, .. } => !based(*value) && !holds_pointers(func.ty(*value)),
            InstKind::Call { callee: Callee::Direct(name), args, .. } => {
                if let Some((op, dst, _, _)) = crate::memory::mem_op(kind) {
                    // A copy into it moves no pointer when its pullback copies no shadows.
                    let plain_copy = matches!(&pullbacks[inst], Some(Pullback::Memory(MemCall::Copy(plan))) if !plan.copies_shadows())
                        || matches!(&pullbacks[inst], Some(Pullback::Memory(MemCall::Set)));
                    !based(dst) || op == crate::memory::MemOp::Set || plain_copy
                } else if conventions.frees(name) || harmless_intrinsic(name) {
                    true
                } else {
                    !args.is_empty() && reads_only.holds(name)
                }
            }
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Which functions write only memory they allocate themselves and read only through their
/// arguments, their own memory and constant globals, calling only such functions,
/// allocation and `free` of their own memory, and declarations that touch no memory. A
/// greatest fixpoint over the functions a function reaches, so that recursion holds when
/// nothing else breaks it.
pub(crate) struct ReadsOnly<'m> {
    module: &'m Module,
    conventions: &'m Conventions,
    /// Writing plain data through the parameters is allowed too (segment functions, whose
    /// checkpoints copy that memory: see the module's comment).
    writes: bool,
    known: HashMap<String, bool>,
    /// Why a function does not hold: the function (it or one it calls) and what it does.
    reasons: HashMap<String, String>,
    /// For each function, the parameters it may write through (`writes_through`).
    written: HashMap<String, Vec<bool>>,
}

impl<'m> ReadsOnly<'m> {
    pub(crate) fn new(module: &'m Module, conventions: &'m Conventions, writes: bool) -> Self {
        ReadsOnly { module, conventions, writes, known: HashMap::new(), reasons: HashMap::new(), written: HashMap::new() }
    }

    /// Whether `name` may write through its parameter `param`: a least fixpoint over the
    /// functions it reaches (a store, a copy or `memset` into, or a `free` of memory based on
    /// the parameter, an atomic operation on it, or passing it on to a parameter that is
    /// written or to a function without a body that touches memory).
    pub(crate) fn writes_through(&mut self, name: &str, param: usize) -> bool {
        if !self.writes {
            // Read-only callees (`holds` without `writes`) write through no parameter.
            return false;
        }
        if !self.written.contains_key(name) {
            let reached = reached_functions(self.module, [name]);
            for f in &reached {
                let n = self.module.function(f).map_or(0, |g| g.params.len());
                self.written.entry(f.clone()).or_insert_with(|| vec![false; n]);
            }
            while self.mark_written(&reached) {}
        }
        self.written.get(name).is_none_or(|w| w.get(param).copied().unwrap_or(true))
    }

    /// One round of `writes_through`'s fixpoint over `reached`: whether anything changed.
    fn mark_written(&mut self, reached: &[String]) -> bool {
        let module = self.module;
        let mut changed = false;
        for f in reached {
            let Some(body) = module.function(f) else { continue };
            let param_of = |p: Value| match root(module, body, p) {
                Root::Param(k) => Some(k),
                _ => None,
            };
            let mut marks: Vec<usize> = Vec::new();
            for (_, inst) in body.inst_order() {
                let kind = &body.insts[inst].kind;
                match kind {
                    InstKind::Store { ptr, .. }
                    | InstKind::AtomicFAdd { ptr, .. }
                    | InstKind::AtomicRmw { ptr, .. }
                    | InstKind::CmpXchg { ptr, .. } => marks.extend(param_of(*ptr)),
                    InstKind::Call { callee, args, .. } => {
                        let written = match callee {
                            Callee::Direct(c) => self.written.get(&**c),
                            Callee::Indirect(_) => None,
                        };
                        if let Some((_, dst, _, _)) = crate::memory::mem_op(kind) {
                            marks.extend(param_of(dst));
                        } else if let Some(w) = written {
                            for (j, a) in args.iter().enumerate() {
                                if w.get(j).copied().unwrap_or(true) {
                                    marks.extend(param_of(*a));
                                }
                            }
                        } else if !matches!(callee, Callee::Direct(c) if touches_no_program_memory(module, c)) {
                            marks.extend(args.iter().filter_map(|a| param_of(*a)));
                        }
                    }
                    _ => {}
                }
            }
            let w = self.written.get_mut(f).expect("every reached function has an entry");
            for k in marks {
                if k < w.len() && !w[k] {
                    w[k] = true;
                    changed = true;
                }
            }
        }
        changed
    }

    fn why(&self, name: &str) -> String {
        self.reasons.get(name).cloned().unwrap_or_else(|| format!("`{name}` has no body zyg can see"))
    }

    pub(crate) fn holds(&mut self, name: &str) -> bool {
        if let Some(k) = self.known.get(name) {
            return *k;
        }
        let reached = reached_functions(self.module, [name]);
        let mut holds: HashMap<String, bool> =
            reached.iter().map(|f| (f.clone(), self.known.get(f).copied().unwrap_or(true))).collect();
        loop {
            let mut changed = false;
            for f in &reached {
                if !holds[f] {
                    continue;
                }
                let why = match self.module.function(f) {
                    Some(body) if !body.is_declaration() => self.body_reads_only(body, &holds).err(),
                    _ => Some(format!("`{f}` has no body zyg can see")),
                };
                if let Some(why) = why {
                    holds.insert(f.clone(), false);
                    self.reasons.insert(f.clone(), why);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.known.extend(holds);
        self.known[name]
    }

    /// `Ok` when `f` itself keeps to the rules, given which functions it calls do
    /// (`holds`); else what breaks them, for the `-v` report.
    fn body_reads_only(&self, f: &Function, holds: &HashMap<String, bool>) -> Result<(), String> {
        if !f.handlers.is_empty() {
            return Err(format!("`{}` may throw", f.name));
        }
        let module = self.module;
        let fresh = |p: Value| matches!(root(module, f, p), Root::Fresh(_));
        let readable = |p: Value| matches!(root(module, f, p), Root::Fresh(_) | Root::Param(_) | Root::ConstantGlobal);
        let param = |p: Value| matches!(root(module, f, p), Root::Param(_));
        let writable = |p: Value| fresh(p) || (self.writes && param(p));
        for (_, inst) in f.inst_order() {
            let kind = &f.insts[inst].kind;
            let broken = match kind {
                InstKind::Store { ptr, value } if self.writes && param(*ptr) && holds_pointers(f.ty(*value)) => {
                    Some("stores a pointer into its argument's memory".to_string())
                }
                InstKind::Store { ptr, .. } => (!writable(*ptr)).then(|| {
                    if self.writes {
                        "writes memory other than its own and its arguments'".to_string()
                    } else {
                        "writes memory it did not allocate".to_string()
                    }
                }),
                // A pointer read from memory could point anywhere but into the function's own.
                InstKind::Load { ty, ptr } if holds_pointers(ty) => {
                    (!fresh(*ptr)).then(|| "reads a pointer from memory it did not allocate".to_string())
                }
                InstKind::Load { ptr, .. } => {
                    (!readable(*ptr)).then(|| "reads memory other than its arguments', its own and constants".to_string())
                }
                // A callee reads through its parameters as through ours: each pointer it gets
                // must be one we may read (not a mutable global's).
                InstKind::Call { callee: Callee::Direct(name), args, unwind: None, .. }
                    if holds.contains_key(&**name)
                        && args.iter().any(|a| {
                            f.ty(*a).is_ptr() && !readable(*a) && !matches!(f.constant(*a), Some(Constant::Null(_)))
                        }) =>
                {
                    Some(format!("passes `{name}` a pointer to memory other than its arguments', its own and constants"))
                }
                InstKind::Call { callee: Callee::Direct(name), args, unwind: None, .. } => {
                    let ok = if let Some((op, dst, src, _)) = crate::memory::mem_op(kind) {
                        // Into an argument's memory, only its own bytes or a constant's move
                        // (its own memory might hold pointers).
                        let src_ok = op == crate::memory::MemOp::Set || (readable(src) && (fresh(dst) || !fresh(src)));
                        writable(dst) && src_ok
                    } else if is_fresh_allocation(kind) {
                        true
                    } else if self.conventions.frees(name) {
                        args.first().is_some_and(|p| fresh(*p))
                    } else if let Some(h) = holds.get(&**name) {
                        *h
                    } else {
                        touches_no_program_memory(module, name)
                    };
                    match (ok, self.reasons.get(&**name)) {
                        (true, _) => None,
                        (false, Some(why)) => Some(format!(
                            "calls `{name}`, which {}",
                            why.trim_start_matches('`').split_once("` ").map_or(why.as_str(), |(_, w)| w)
                        )),
                        (false, None) => Some(format!("calls `{name}`")),
                    }
                }
                InstKind::Call { .. } => Some("makes a call through a pointer or one that may throw".to_string()),
                InstKind::AtomicFAdd { .. } | InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => {
                    Some("has an atomic operation".to_string())
                }
                _ => None,
            };
            if let Some(what) = broken {
                return Err(format!("`{}` {what}{}", f.name, line_of(f, inst)));
            }
        }
        Ok(())
    }
}

/// `roots` (once each) and the functions with bodies they reach through direct calls, in
/// the order found.
pub(crate) fn reached_functions<'a>(module: &Module, roots: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut reached: Vec<String> = Vec::new();
    for r in roots {
        if !reached.iter().any(|s| s == r) {
            reached.push(r.to_string());
        }
    }
    let mut k = 0;
    while k < reached.len() {
        if let Some(f) = module.function(&reached[k]) {
            for (_, inst) in f.inst_order() {
                if let InstKind::Call { callee: Callee::Direct(callee), .. } = &f.insts[inst].kind {
                    if module.function(callee).is_some_and(|g| !g.is_declaration()) && !reached.iter().any(|r| **r == **callee) {
                        reached.push(callee.to_string());
                    }
                }
            }
        }
        k += 1;
    }
    reached
}

/// Whether `name` and everything it calls write only memory they allocate, read only their
/// arguments' memory, their own and constant globals, and cannot throw (`ReadsOnly`).
pub(crate) fn writes_only_own_memory(module: &Module, conventions: &Conventions, name: &str) -> bool {
    ReadsOnly::new(module, conventions, false).holds(name)
}

/// Declarations that neither read nor write memory the program can point to: pure ones
/// (`memory(none)`, or only `errno`, as libm's under `-fmath-errno`), harmless intrinsics,
/// and `lgamma`, which also sets the C library's `signgam` (a library global no derivative
/// goes through, which zyg takes no argument to point to).
pub(crate) fn touches_no_program_memory(module: &Module, name: &str) -> bool {
    module.is_pure(name) || harmless_intrinsic(name) || matches!(name, "lgamma" | "lgammaf" | "lgammal")
}

/// Intrinsics that neither read nor write the program's memory.
pub(crate) fn harmless_intrinsic(name: &str) -> bool {
    ["llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl", "llvm.invariant."]
        .iter()
        .any(|p| name.starts_with(p))
}
