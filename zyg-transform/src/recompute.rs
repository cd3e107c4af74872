//! Recomputing instead of storing. An address or an index computed in a loop would go on
//! the loop's stack every iteration; most are cheap integer arithmetic on an induction
//! variable and values the loop does not change. The adjoint knows which iteration of a
//! counted loop it is in (it counts the header's executions down, `tape::Counted`), so it
//! rebuilds such a value from the iteration number instead: `i = start + step * iteration`
//! for an induction variable, then the same `add`/`mul`/casts/`getelementptr` as the
//! primal. Pointer shadows follow: the shadow of `gep base, i` is `gep shadow(base), i`.
//! What the rebuilt expression starts from (a loop-invariant value, the shadow of a base
//! pointer) is stored as before, but once per loop activation rather than per iteration.
//! The same holds for the trip counts of loops in clang's canonical form (`TripCount`): the
//! adjoint computes them from the loop's start and bound instead of reading them.
//!
//! Floats, by a cost model per alpha (`Recompute::try_float`): a float value of a loop
//! iteration is rebuilt when its instruction is cheap arithmetic (`fadd`, `fsub`, `fmul`,
//! `fneg`, float conversions, `select`, vector lane moves: `cheap_float`) and each operand
//! is in the adjoint at no tape cost: a constant or parameter, a value stored anyway for
//! another backpropagator (the `a` and `b` that `a*b`'s backpropagator reads make `a*b`
//! free for `sin(a*b)`'s), a value the loop does not change (one slot per activation), or
//! something rebuilt itself, the whole within `MAX_COST` instructions. The arithmetic then
//! replaces a store in the primal and a load in the adjoint, and the record shrinks by the
//! value (as a hand-written gradient recomputes `a*b` rather than saving it). Never `fdiv`
//! or calls (`sqrt`, `exp`), and loads only where memory cannot have changed since (the
//! stable loads of `reload`, `Recompute::stable`, whose addresses are decided first); a
//! value computed from another load is rebuilt only where the loaded value is stored. Floats
//! are decided after integers and addresses, once what is stored anyway is known, in
//! reverse postorder so that each one's operands are decided first. The rebuilt value has
//! the primal's bits: zyg-ir keeps no fast-math flags (its reader drops them), so the
//! primal zyg writes and the adjoint's copy are the same IEEE operation on the same
//! operands, neither contracted nor reassociated.

use crate::activity::Activity;
use crate::tape::{Counted, TapeNeeds};
use cranelift_entity::{EntitySet, SecondaryMap};
use std::collections::{HashMap, HashSet};
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{BinOp, Block, CastOp, Constant, Function, Inst, InstKind, IntPred, Type, UnOp, Value, ValueDef};

/// How an induction variable steps: by a constant (integers), or by a constant number of
/// elements (pointers, `getelementptr T, p, k`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Int(Constant),
    Elements(Type, Constant),
}

/// An induction variable of a counted loop: `phi [start, preheader], [next, latch]`.
#[derive(Clone, Debug)]
pub struct Induction {
    pub header: Block,
    pub start: Value,
    /// The value from the latch: `phi + step`.
    pub next: Value,
    pub step: Step,
}

/// A counted loop whose trip count the adjoint computes from values set before the loop,
/// instead of reading one recorded where the loop was left: its only way out is its latch
/// testing `next == bound` (clang's canonical loops: `icmp eq i64 %iv.next, %n`), with `next`
/// an integer induction variable's step and `bound` set before the loop. The header then
/// ran `(bound - start) / step` times (in the variable's width, as the loop wraps).
#[derive(Clone, Debug)]
pub struct TripCount {
    pub start: Value,
    pub bound: Value,
    pub step: Constant,
}

/// The values (and pointer shadows) the adjoint rebuilds rather than reads from the tape.
#[derive(Clone, Debug, Default)]
pub struct Recompute {
    pub inductions: HashMap<Value, Induction>,
    /// Loops (by header) whose trip counts are computed (see `TripCount`).
    pub trips: HashMap<Block, TripCount>,
    /// Values rebuilt from their operands.
    pub values: HashSet<Value>,
    /// Pointers whose shadows are rebuilt from their operands' shadows and values.
    pub shadows: HashSet<Value>,
    /// The loads the adjoint may run again (`reload::stable_loads`): their memory does not
    /// change before it does.
    pub stable: HashSet<Inst>,
}

/// At most this many instructions are rebuilt for one value (beyond, storing it is cheaper).
const MAX_COST: usize = 8;

impl Recompute {
    pub fn analyze(func: &Function, cfg: &ControlFlowGraph, counted: &HashMap<Block, Counted>) -> Self {
        let mut inductions = HashMap::new();
        for (&header, c) in counted {
            for phi in func.phis(header) {
                let (Some(v), InstKind::Phi { incoming }) = (func.result(phi), &func.insts[phi].kind) else { continue };
                if incoming.len() != 2 || cfg.preds(header).len() != 2 {
                    continue;
                }
                let value_from = |b: Block| incoming.iter().find(|(p, _)| *p == b).map(|(_, x)| *x);
                let (Some(start), Some(next)) = (value_from(c.preheader), value_from(c.latch)) else { continue };
                let Some(next_inst) = func.def_inst(next) else { continue };
                let step = match &func.insts[next_inst].kind {
                    InstKind::Binary { op: BinOp::Add, args } if func.ty(v).is_int() => {
                        let other = if args[0] == v {
                            args[1]
                        } else if args[1] == v {
                            args[0]
                        } else {
                            continue;
                        };
                        let Some(k) = func.constant(other).cloned() else { continue };
                        Step::Int(k)
                    }
                    InstKind::Gep { source_ty, base, indices, .. } if *base == v && indices.len() == 1 => {
                        let Some(k) = func.constant(indices[0]).cloned() else { continue };
                        Step::Elements(source_ty.clone(), k)
                    }
                    _ => continue,
                };
                inductions.insert(v, Induction { header, start, next, step });
            }
        }
        let mut r = Recompute {
            inductions,
            trips: HashMap::new(),
            values: HashSet::new(),
            shadows: HashSet::new(),
            stable: HashSet::new(),
        };
        r.values.extend(r.inductions.keys().copied());
        r
    }

    /// Finds the counted loops whose trip counts can be computed (`TripCount`). `returns`:
    /// the function's return blocks (a loop with one inside is left there too).
    pub fn find_trip_counts(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        loops: &LoopAnalysis,
        block_of: &SecondaryMap<Inst, Block>,
        returns: &[Block],
    ) {
        for l in loops.loops() {
            let leaving: Vec<Block> = l
                .blocks
                .iter()
                .copied()
                .filter(|b| returns.contains(b) || cfg.succs(*b).iter().any(|s| !l.blocks.contains(s)))
                .collect();
            let [latch] = l.latches[..] else { continue };
            if leaving != [latch] || returns.contains(&latch) {
                continue;
            }
            let Some(t) = func.terminator(latch) else { continue };
            let InstKind::CondBr { cond, then_dest, else_dest } = func.insts[t].kind else { continue };
            let exit_when_true = else_dest == l.header && !l.blocks.contains(&then_dest);
            let exit_when_false = then_dest == l.header && !l.blocks.contains(&else_dest);
            let Some(c) = func.def_inst(cond) else { continue };
            let InstKind::ICmp { pred, args } = func.insts[c].kind else { continue };
            let exits_on_equal = match pred {
                IntPred::Eq => exit_when_true,
                IntPred::Ne => exit_when_false,
                _ => false,
            };
            if !exits_on_equal {
                continue;
            }
            // `next` is the latch value of an induction variable of this loop with an integer
            // step; `bound` is defined outside the loop.
            // The header's induction variables in the order of its phis, so that the first
            // one that fits is the same every run.
            let mut ivs = func.phis(l.header).filter_map(|phi| func.result(phi)).filter_map(|v| self.inductions.get(&v));
            let found = ivs.find_map(|iv| {
                let Step::Int(step) = &iv.step else { return None };
                if iv.header != l.header || step.as_i128().is_none_or(|k| k <= 0) {
                    return None;
                }
                // The latch tests the variable's own next value, `v + step`: any other sum
                // involving `v` (`v + 5`, `v + k`) would make the count computed here wrong.
                let next = args.iter().position(|a| *a == iv.next)?;
                let bound = args[1 - next];
                let outside = match func.values[bound].def {
                    ValueDef::Inst(i) => !l.blocks.contains(&block_of[i]),
                    _ => true,
                };
                outside.then(|| TripCount { start: iv.start, bound, step: step.clone() })
            });
            if let Some(trips) = found {
                self.trips.insert(l.header, trips);
            }
        }
    }

    /// Whether `v`, used in the adjoint of a block inside loops, can be rebuilt there at a
    /// cost of at most `MAX_COST` instructions, with every leaf either a constant or a
    /// value that does not change in `v`'s innermost loop. Records the decision.
    pub fn try_value(&mut self, func: &Function, loops: &LoopAnalysis, block_of: &SecondaryMap<Inst, Block>, v: Value) -> bool {
        if self.values.contains(&v) {
            return true;
        }
        let Some((_, home)) = defined_in_loop(func, loops, block_of, v) else { return false };
        // Records `v` in `values` when it succeeds.
        self.rebuildable(func, loops, block_of, v, home, &mut 0)
    }

    /// Whether the float value `v` (a scalar or a vector of floats), which would be stored
    /// in the record of a loop iteration, can be rebuilt in the adjoint instead at no cost
    /// in tape: its instruction is cheap arithmetic (`cheap_float`), and so are those of the
    /// operands it rebuilds in turn, whose own operands are available without storing
    /// anything new per iteration (`float_operand_ok`); the whole expression, rebuilt
    /// operands included, is at most `MAX_COST` instructions. `stored`: the values the tape
    /// holds anyway (for other backpropagators); `users`: their users. Every use of `v`
    /// must be inside `v`'s innermost loop, where the adjoint reads the same records as the
    /// primal's use did (true of every value under LCSSA, which the reader's preparation
    /// establishes; checked all the same). Records the decision.
    pub fn try_float(
        &mut self,
        func: &Function,
        loops: &LoopAnalysis,
        block_of: &SecondaryMap<Inst, Block>,
        stored: &HashSet<Value>,
        users: &HashMap<Value, Vec<Inst>>,
        v: Value,
    ) -> bool {
        if self.values.contains(&v) {
            return true;
        }
        let Some((_, home)) = defined_in_loop(func, loops, block_of, v) else { return false };
        let Some(lp) = loops.innermost(home) else { return false };
        let blocks = &loops.loops()[lp].blocks;
        if !users.get(&v).map_or(&[][..], Vec::as_slice).iter().all(|u| blocks.contains(&block_of[*u])) {
            return false;
        }
        let floats = Floats { func, loops, block_of, stored, lp };
        let mut rebuilt = Vec::new();
        if !floats.rebuildable(self, v, &mut 0, &mut rebuilt) {
            return false;
        }
        self.values.extend(rebuilt);
        true
    }

    /// Adds to `cost` the instructions that rebuild `v` (none for a value read from the
    /// tape), `extra`: values also rebuilt (decided but not yet recorded); false as soon as
    /// the total passes `MAX_COST`.
    fn add_cost(&self, func: &Function, v: Value, extra: &[Value], cost: &mut usize) -> bool {
        if func.constant(v).is_some() || !(self.values.contains(&v) || extra.contains(&v)) {
            return true;
        }
        // An induction variable: the iteration, times the step, plus the start.
        if self.inductions.contains_key(&v) {
            *cost += 2;
            return *cost <= MAX_COST;
        }
        *cost += 1;
        if *cost > MAX_COST {
            return false;
        }
        let Some(inst) = func.def_inst(v) else { return true };
        func.insts[inst].kind.operands().into_iter().all(|a| self.add_cost(func, a, extra, cost))
    }

    /// Whether the shadow of pointer `p` can be rebuilt: `p` is an induction variable or a
    /// `getelementptr`/cast whose base's shadow is stored or rebuilt, and whose indices can
    /// be rebuilt or are invariant.
    pub fn try_shadow(&mut self, func: &Function, loops: &LoopAnalysis, block_of: &SecondaryMap<Inst, Block>, p: Value) -> bool {
        if self.shadows.contains(&p) {
            return true;
        }
        let Some((inst, home)) = defined_in_loop(func, loops, block_of, p) else { return false };
        let ok = match &func.insts[inst].kind {
            InstKind::Phi { .. } => self.inductions.contains_key(&p),
            InstKind::Gep { indices, .. } => {
                let mut cost = 0;
                indices.iter().all(|i| self.operand_ok(func, loops, block_of, *i, home, &mut cost))
            }
            InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, .. } => true,
            _ => false,
        };
        if ok {
            self.shadows.insert(p);
        }
        ok
    }

    /// The pointer a rebuilt shadow starts from: the base of a `getelementptr`, the operand
    /// of a cast, the start of an induction variable.
    pub fn shadow_base(&self, func: &Function, p: Value) -> Option<Value> {
        if let Some(iv) = self.inductions.get(&p) {
            return Some(iv.start);
        }
        match &func.insts[func.def_inst(p)?].kind {
            InstKind::Gep { base, .. } => Some(*base),
            InstKind::Cast { arg, .. } => Some(*arg),
            _ => None,
        }
    }

    /// The values a rebuilt value or shadow reads that are not rebuilt themselves: they go
    /// on the tape (once per activation of the loop around them).
    pub fn leaves(&self, func: &Function, v: Value, out: &mut Vec<Value>) {
        if func.constant(v).is_some() {
            return;
        }
        if let Some(iv) = self.inductions.get(&v) {
            self.leaves(func, iv.start, out);
            return;
        }
        if !self.values.contains(&v) {
            if !out.contains(&v) {
                out.push(v);
            }
            return;
        }
        let inst = func.def_inst(v).expect("rebuilt values are instructions");
        for operand in func.insts[inst].kind.operands() {
            self.leaves(func, operand, out);
        }
    }

    fn rebuildable(
        &mut self,
        func: &Function,
        loops: &LoopAnalysis,
        block_of: &SecondaryMap<Inst, Block>,
        v: Value,
        home: Block,
        cost: &mut usize,
    ) -> bool {
        if self.inductions.contains_key(&v) || self.values.contains(&v) {
            return true;
        }
        let Some(inst) = func.def_inst(v) else { return false };
        *cost += 1;
        if *cost > MAX_COST {
            return false;
        }
        let ok = match &func.insts[inst].kind {
            InstKind::Binary { op, args }
                if !op.name().starts_with('f') && !matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) =>
            {
                args.iter().all(|a| self.operand_ok(func, loops, block_of, *a, home, cost))
            }
            InstKind::Cast { op: CastOp::ZExt | CastOp::SExt | CastOp::Trunc | CastOp::BitCast | CastOp::AddrSpaceCast, arg } => {
                self.operand_ok(func, loops, block_of, *arg, home, cost)
            }
            InstKind::Gep { base, indices, .. } => {
                self.operand_ok(func, loops, block_of, *base, home, cost)
                    && indices.iter().all(|i| self.operand_ok(func, loops, block_of, *i, home, cost))
            }
            // Reloaded (`reload`): memory nothing changes before the adjoint.
            InstKind::Load { ptr, .. } if self.stable.contains(&inst) => self.operand_ok(func, loops, block_of, *ptr, home, cost),
            _ => false,
        };
        if ok {
            self.values.insert(v);
        }
        ok
    }

    /// How many of the rebuilt values are loads run again (`reload`).
    pub fn reloads(&self, func: &Function) -> usize {
        self.values.iter().filter(|v| func.def_inst(**v).is_some_and(|i| self.stable.contains(&i))).count()
    }

    /// An operand of a rebuilt value: a constant, something rebuildable, or a value the
    /// innermost loop around `home` does not change (stored once per activation).
    fn operand_ok(
        &mut self,
        func: &Function,
        loops: &LoopAnalysis,
        block_of: &SecondaryMap<Inst, Block>,
        v: Value,
        home: Block,
        cost: &mut usize,
    ) -> bool {
        match func.values[v].def {
            ValueDef::Const(_) | ValueDef::Param(_) => true,
            ValueDef::Inst(i) => {
                let def = block_of[i];
                let invariant = loops.innermost(home).is_some_and(|l| !loops.loops()[l].blocks.contains(&def));
                invariant || self.rebuildable(func, loops, block_of, v, home, cost)
            }
            _ => false,
        }
    }
}

/// What deciding whether floats of loop `lp` are rebuilt reads (`Recompute::try_float`).
struct Floats<'f> {
    func: &'f Function,
    loops: &'f LoopAnalysis,
    block_of: &'f SecondaryMap<Inst, Block>,
    stored: &'f HashSet<Value>,
    lp: usize,
}

impl Floats<'_> {
    /// Whether `v`, defined in loop `lp` outside its inner loops, is cheap arithmetic on
    /// operands available in the adjoint, at `cost` instructions so far (`MAX_COST` at
    /// most); `rebuilt`: what this decision rebuilds so far, `v` added on success.
    fn rebuildable(&self, r: &Recompute, v: Value, cost: &mut usize, rebuilt: &mut Vec<Value>) -> bool {
        let Some(inst) = self.func.def_inst(v) else { return false };
        let kind = &self.func.insts[inst].kind;
        // A stable load's address is decided before the floats (`plan`): it is an operand
        // like any other here.
        if !cheap_float(kind) && !r.stable.contains(&inst) {
            return false;
        }
        *cost += 1;
        if *cost > MAX_COST {
            return false;
        }
        if !kind.operands().into_iter().all(|a| self.operand_ok(r, a, cost, rebuilt)) {
            return false;
        }
        rebuilt.push(v);
        true
    }

    /// An operand of a rebuilt float: a constant or a parameter; a value stored anyway for
    /// other backpropagators; a value the loop does not change (stored once per
    /// activation, if it is not already); a value rebuilt already (its instructions count
    /// in `cost`); or a float of the same loop that is itself rebuildable (of an inner
    /// loop, only a stored value). A load other than a stable one (`reload`) is never
    /// executed again (memory may have changed since): its value is an operand only when
    /// it is stored.
    fn operand_ok(&self, r: &Recompute, a: Value, cost: &mut usize, rebuilt: &mut Vec<Value>) -> bool {
        let i = match self.func.values[a].def {
            ValueDef::Const(_) | ValueDef::Param(_) => return true,
            ValueDef::Inst(i) => i,
            _ => return false,
        };
        let is_rebuilt = r.values.contains(&a) || rebuilt.contains(&a);
        let def = self.block_of[i];
        if self.loops.innermost(def) != Some(self.lp) && self.loops.loops()[self.lp].blocks.contains(&def) {
            // From an inner loop (LCSSA leaves none, but the IR may come without it): its
            // last iteration's value, read from that loop's newest record, which the
            // adjoint has not popped yet; never rebuilt from that loop's iteration count.
            return self.stored.contains(&a) && !is_rebuilt;
        }
        if is_rebuilt {
            return r.add_cost(self.func, a, rebuilt, cost);
        }
        if self.stored.contains(&a) || !self.loops.loops()[self.lp].blocks.contains(&def) {
            return true;
        }
        // (A stable load's address not rebuilt by now: it would have to be stored.)
        self.func.ty(a).float_elem().is_some() && self.rebuildable(r, a, cost, rebuilt)
    }
}

/// The float instructions cheap enough to run again rather than store their results:
/// `fadd`, `fsub`, `fmul`, `fneg`, conversions between float types and from integers, a
/// `select`, and moving floats between vector lanes (`insertelement`, `extractelement`,
/// `shufflevector`: the splats vectorised loops make of a scalar). Each gives exactly the
/// bits the primal computed: zyg-ir keeps no fast-math flags, so the primal it writes and
/// the adjoint's copy are the same IEEE operation on the same operands. Not `fdiv`,
/// `frem`, calls (`sqrt`, `exp`, `llvm.fmuladd`), loads or phis.
fn cheap_float(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Binary { op: BinOp::FAdd | BinOp::FSub | BinOp::FMul, .. }
            | InstKind::Unary { op: UnOp::FNeg, .. }
            | InstKind::Cast { op: CastOp::FPExt | CastOp::FPTrunc | CastOp::SIToFP | CastOp::UIToFP, .. }
            | InstKind::Select { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ExtractElement { .. }
            | InstKind::ShuffleVector { .. }
    )
}

/// The instruction defining `v` and its block, when that block may run repeatedly (only
/// there does storing a value cost a push per execution).
fn defined_in_loop(
    func: &Function,
    loops: &LoopAnalysis,
    block_of: &SecondaryMap<Inst, Block>,
    v: Value,
) -> Option<(Inst, Block)> {
    let inst = func.def_inst(v)?;
    let home = block_of[inst];
    loops.may_repeat(home).then_some((inst, home))
}

/// The instructions using each value of `of`.
fn users_of(func: &Function, of: &HashSet<Value>) -> HashMap<Value, Vec<Inst>> {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for (_, i) in func.inst_order() {
        for a in func.insts[i].kind.operands() {
            if of.contains(&a) {
                users.entry(a).or_default().push(i);
            }
        }
    }
    users
}

/// Each instruction's position in reverse postorder of its block, then within its block
/// (unreachable ones last).
fn positions(func: &Function, cfg: &ControlFlowGraph) -> SecondaryMap<Inst, usize> {
    let mut position = SecondaryMap::with_default(usize::MAX);
    let mut n = 0;
    for &b in cfg.reverse_postorder() {
        for &i in &func.blocks[b].insts {
            position[i] = n;
            n += 1;
        }
    }
    position
}

/// The iteration an adjoint is in, for an induction variable's loop: `remaining - 1`.
pub fn induction_value(c: &mut crate::builder::Cursor, iv: &Induction, start: Value, iteration: Value) -> Value {
    match &iv.step {
        Step::Int(step) => {
            let ty = c.func.ty(start).clone();
            let n = match ty {
                Type::Int(64) => iteration,
                Type::Int(bits) if bits < 64 => c.cast(CastOp::Trunc, iteration, ty.clone()),
                _ => c.cast(CastOp::ZExt, iteration, ty.clone()),
            };
            let step = c.constant(step.clone());
            let offset = c.binary(BinOp::Mul, n, step);
            c.binary(BinOp::Add, start, offset)
        }
        Step::Elements(elem, k) => {
            let k = match k {
                Constant::Int { value, bits } => Constant::int(64, sign_extend(*value, *bits)),
                _ => Constant::int(64, 1),
            };
            let k = c.constant(k);
            let offset = c.binary(BinOp::Mul, iteration, k);
            let ptr_ty = c.func.ty(start).clone();
            c.emit(InstKind::Gep { source_ty: elem.clone(), base: start, indices: vec![offset], inbounds: false }, ptr_ty)
                .expect("gep")
        }
    }
}

fn sign_extend(value: u128, bits: u32) -> i128 {
    let shift = 128 - bits.min(128);
    ((value << shift) as i128) >> shift
}

/// Phase "recompute plan". Decides which tape values and shadows the adjoint rebuilds (see `recompute`), and puts
/// what those rebuilt expressions start from on the tape instead.
pub fn plan(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    block_of: &SecondaryMap<Inst, Block>,
    activity: &Activity,
    stable: &HashSet<Inst>,
    needs: &mut TapeNeeds,
) -> Recompute {
    let returns = crate::tape::return_blocks(func, cfg);
    let counted: HashMap<Block, Counted> =
        crate::tape::counted_loops(func, cfg, loops, &returns).into_iter().map(|(h, (c, _))| (h, c)).collect();
    let mut r = Recompute::analyze(func, cfg, &counted);
    r.stable = stable.clone();
    r.find_trip_counts(func, cfg, loops, block_of, &returns);
    needs.computed_trips = r.trips.keys().copied().collect();
    let mut shadow_memory: EntitySet<Value> = EntitySet::new();
    shadow_memory.extend(needs.shadow_memory.iter().map(|(v, _)| *v));
    let (mut values, mut shadows): (Vec<Value>, Vec<Value>) = (Vec::new(), Vec::new());
    let mut pending_values: Vec<Value> = std::mem::take(&mut needs.values);
    // A computed trip count reads its loop's start and bound (in the order of the loops: the
    // order values are found in is the order of their fields in the records).
    let trips = loops.loops().iter().filter_map(|l| r.trips.get(&l.header));
    pending_values.extend(trips.flat_map(|t| [t.start, t.bound]));
    let mut pending_shadows: Vec<Value> = std::mem::take(&mut needs.shadows);
    let (mut seen_values, mut seen_shadows): (EntitySet<Value>, EntitySet<Value>) = Default::default();
    // When each value was found: the stored ones keep that order (reversed), floats decided
    // late included, so that a function with nothing rebuilt lays out its tape as before.
    let mut found: SecondaryMap<Value, usize> = SecondaryMap::new();
    let mut found_count = 0;
    // Floats are decided once the integers and addresses are, when what is stored anyway
    // is known (`Recompute::try_float`); floats found after that (the leaves of rebuilt
    // floats) are stored.
    let mut floats: Vec<Value> = Vec::new();
    let mut floats_decided = false;
    loop {
        while !pending_values.is_empty() || !pending_shadows.is_empty() {
            while let Some(v) = pending_values.pop() {
                if !seen_values.insert(v) || func.constant(v).is_some() {
                    continue;
                }
                found[v] = found_count;
                found_count += 1;
                let ty = func.ty(v);
                if !floats_decided && ty.float_elem().is_some() {
                    floats.push(v);
                    continue;
                }
                if (ty.is_int() || ty.is_ptr()) && r.try_value(func, loops, block_of, v) {
                    let mut leaves = Vec::new();
                    r.leaves(func, v, &mut leaves);
                    pending_values.extend(leaves);
                } else {
                    values.push(v);
                }
            }
            while let Some(p) = pending_shadows.pop() {
                if !seen_shadows.insert(p) {
                    continue;
                }
                let special = shadow_memory.contains(p) || matches!(func.constant(p), Some(Constant::Global(..)));
                if !special && r.try_shadow(func, loops, block_of, p) {
                    let base = r.shadow_base(func, p).expect("a rebuilt shadow has a base");
                    if activity.has_shadow(base) || func.constant(base).is_some() {
                        pending_shadows.push(base);
                    }
                    if let Some(inst) = func.def_inst(p) {
                        if let InstKind::Gep { indices, .. } = &func.insts[inst].kind {
                            pending_values.extend(indices.iter().copied());
                        }
                    }
                } else {
                    shadows.push(p);
                }
            }
        }
        if floats_decided {
            break;
        }
        floats_decided = true;
        // In reverse postorder, so that a float's operands are decided before it (its
        // operands' definitions dominate it; only phis, never rebuilt, read later values).
        let stored: HashSet<Value> = values.iter().chain(&floats).copied().collect();
        let users = users_of(func, &stored);
        let position = positions(func, cfg);
        floats.sort_by_key(|v| func.def_inst(*v).map_or(0, |i| position[i]));
        // A stable load's address: rebuilt where it can be, so that the load can be.
        for v in &floats {
            if let Some(InstKind::Load { ptr, .. }) =
                func.def_inst(*v).filter(|i| r.stable.contains(i)).map(|i| &func.insts[i].kind)
            {
                r.try_value(func, loops, block_of, *ptr);
            }
        }
        for v in std::mem::take(&mut floats) {
            if r.try_float(func, loops, block_of, &stored, &users, v) {
                let mut leaves = Vec::new();
                r.leaves(func, v, &mut leaves);
                pending_values.extend(leaves);
            } else {
                values.push(v);
            }
        }
    }
    values.sort_by_key(|v| std::cmp::Reverse(found[*v]));
    shadows.reverse();
    needs.values = values;
    needs.shadows = shadows;
    r
}
