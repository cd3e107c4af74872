//! Deciding storage for the alphas: which primal values each backpropagator reads, and
//! where the primal keeps them. Each value lives in the record of the block that defines it;
//! a block that runs at most once per call keeps its record in a fixed slot of the tape,
//! a loop's header pushes one record per iteration on its own stack (Innes 2018, §4), and
//! the other blocks of the loop (outside its inner loops) write their fields into that
//! record. The adjoint reads a value from the newest record, which is the iteration the use
//! saw, and pops it in the header's adjoint.
//!
//! Store or recompute: constants are rebuilt in the adjoint for free, and the recompute plan
//! (`recompute::plan`) takes out of the needs what the adjoint rebuilds from the iteration
//! it is in and from values it has anyway (induction variables, addresses, trip counts,
//! cheap float arithmetic on stored operands). Every other alpha is stored once, in its
//! defining block's record, however many backpropagators read it (a loop-invariant value
//! lives in a fixed slot, not on the loop's stack).

use crate::stack;
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{EntitySet, SecondaryMap};
use std::collections::HashMap;
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{Block, Function, Inst, InstKind, Type, Value, ValueDef};

/// Something the adjoint needs from the primal run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// A primal value a backpropagator reads.
    Value(Value),
    /// Which predecessor ran, for blocks with several (an index into `cfg.preds`).
    PredId,
    /// The tape of a differentiated callee, returned by its primal.
    CalleeTape(Inst),
    /// The shadow of a pointer: where the adjoint of the memory it points to accumulates;
    /// in vector mode, one per lane (the lane is the second field, 0 otherwise).
    Shadow(Value, u32),
    /// How many times the header of a counted loop ran in the activation that just left
    /// it, recorded where the loop is left (its exit blocks, and returns inside it).
    Trips(Block),
}

/// A loop whose header's adjoint chooses between the latch and the preheader by counting
/// down the header's executions, instead of reading a predecessor id pushed on every
/// iteration: its header has exactly the preheader and one latch as predecessors, and
/// every exit is entered only from inside the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    pub preheader: Block,
    pub latch: Block,
}

/// The loops that can be counted (see `Counted`), by header, with the blocks they are left
/// from: exits and return blocks inside them.
pub fn counted_loops(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    returns: &[Block],
) -> HashMap<Block, (Counted, Vec<Block>)> {
    let mut out = HashMap::new();
    for l in loops.loops() {
        let preds = cfg.preds(l.header);
        if preds.len() != 2 || l.latches.len() != 1 {
            continue;
        }
        let latch = l.latches[0];
        let Some(&preheader) = preds.iter().find(|p| **p != latch) else { continue };
        if l.blocks.contains(&preheader) {
            continue;
        }
        let dedicated = l.exits.iter().all(|e| cfg.preds(*e).iter().all(|p| l.blocks.contains(p)));
        // A switch with several cases to the header would need several phi entries.
        let single_edges =
            crate::primal::edge_count(func, latch, l.header) == 1 && crate::primal::edge_count(func, preheader, l.header) == 1;
        if !dedicated || !single_edges {
            continue;
        }
        let mut leaves = l.exits.clone();
        leaves.extend(returns.iter().copied().filter(|r| l.blocks.contains(r)));
        out.insert(l.header, (Counted { preheader, latch }, leaves));
    }
    out
}

/// What the adjoint needs from the primal run.
#[derive(Clone, Debug, Default)]
pub struct TapeNeeds {
    /// Primal values read by backpropagators.
    pub values: Vec<Value>,
    /// Counted loops (by header) whose trip counts the adjoint computes: nothing recorded
    /// where they are left (`recompute::TripCount`).
    pub computed_trips: std::collections::HashSet<Block>,
    /// Pointers whose shadows loads' and stores' adjoints use.
    pub shadows: Vec<Value>,
    /// Tapes of differentiated callees, by call.
    pub callee_tapes: Vec<(Inst, Type)>,
    /// Stack arrays (allocas) whose shadow memory the tape holds.
    pub shadow_memory: Vec<(Value, Type)>,
    /// Each stack's first chunk lives in the tape (GPUs: local memory, no `malloc` until
    /// a stack outgrows it).
    pub inline_chunks: bool,
    /// Vector mode's lanes (`Spec::width`): each shadow and shadow memory is on the tape
    /// once per lane.
    pub lanes: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// The record is field `index` of the tape.
    Once,
    /// Field `index` of the tape is a stack header; one record per execution.
    Stack,
}

#[derive(Clone, Debug)]
pub struct Record {
    pub fields: Vec<Field>,
    pub ty: Type,
    pub storage: Storage,
    /// The tape field holding the record (Once) or the stack header (Stack).
    pub tape_index: u32,
}

#[derive(Clone, Debug)]
pub struct TapeLayout {
    /// The records, by the block that pushes (or fills) them.
    pub records: HashMap<Block, Record>,
    /// What each block records (where each field sits is in `home`).
    pub recorded: HashMap<Block, Vec<Field>>,
    /// Blocks that write their fields into their loop header's record instead of a record
    /// of their own (see `shares_header_record`).
    pub shared: HashMap<Block, Block>,
    /// The block recording a field, and the field's index in that block's record (its own,
    /// or the header's it shares).
    pub home: HashMap<(Block, Field), u32>,
    pub tape_ty: Type,
    /// Tape field recording which return block ran, when there are several.
    pub exit_index: Option<u32>,
    /// The tape fields holding each shadowed alloca's shadow memory, one per lane.
    pub shadow_memory: HashMap<Value, Vec<u32>>,
    /// Loops whose headers' adjoints count down instead of reading predecessor ids.
    pub counted: HashMap<Block, Counted>,
    /// Stacks start in a chunk inside the tape (`TapeNeeds::inline_chunks`).
    pub inline_chunks: bool,
}

impl TapeLayout {
    /// Lays out the tape for `needs`, adding predecessor ids for join blocks.
    pub fn build(
        func: &Function,
        cfg: &ControlFlowGraph,
        loops: &LoopAnalysis,
        needs: &TapeNeeds,
        returns: &[Block],
    ) -> TapeLayout {
        let counted = counted_loops(func, cfg, loops, returns);
        let fields = block_fields(func, cfg, loops, needs, &counted);
        let shared: HashMap<Block, Block> = func
            .layout
            .iter()
            .filter(|b| !fields[**b].is_empty())
            .filter_map(|&b| shares_header_record(loops, b).map(|h| (b, h)))
            .collect();
        let mut records = Records::default();
        records.lay_out(func, loops, needs, fields, &shared);
        let Records { records, recorded, home, mut tape_fields } = records;
        let exit_index = (returns.len() > 1).then(|| {
            tape_fields.push(Type::I32);
            tape_fields.len() as u32 - 1
        });
        let mut memory = HashMap::new();
        for (v, ty) in &needs.shadow_memory {
            let fields = (0..needs.lanes.max(1)).map(|_| {
                tape_fields.push(ty.clone());
                tape_fields.len() as u32 - 1
            });
            memory.insert(*v, fields.collect());
        }
        let counted = counted.into_iter().map(|(h, (c, _))| (h, c)).collect();
        TapeLayout {
            records,
            recorded,
            shared,
            home,
            tape_ty: Type::structure(tape_fields),
            exit_index,
            shadow_memory: memory,
            counted,
            inline_chunks: needs.inline_chunks,
        }
    }

    /// What the tape holds, for the `-v` report: one line for the fixed slots, one per loop
    /// record (bytes pushed per iteration, and of what), and the values the adjoint rebuilds
    /// instead (`recompute`), `floats` of them float values and `reloads` of them loads run
    /// again (`reload`).
    pub fn report(&self, func: &Function, loops: &LoopAnalysis, rebuilt: usize, floats: usize, reloads: usize) -> Vec<String> {
        let bytes = |ty: &Type| ty.natural_layout().map_or_else(|| "?".to_string(), |(size, _)| size.to_string());
        let mut lines = Vec::new();
        let mut stacked: Vec<(&Block, &Record)> = self.records.iter().filter(|(_, r)| r.storage == Storage::Stack).collect();
        stacked.sort_by_key(|(_, r)| r.tape_index);
        let once: usize = self.records.values().filter(|r| r.storage == Storage::Once).map(|r| r.fields.len()).sum();
        lines.push(format!(
            "{}: tape of {} bytes per call ({once} values once per call, {} loop records){}",
            func.name,
            bytes(&self.tape_ty),
            stacked.len(),
            match (rebuilt, floats, reloads) {
                (0, _, _) => String::new(),
                (_, 0, 0) => format!("; {rebuilt} values rebuilt in the adjoint instead of stored"),
                (_, _, 0) => format!("; {rebuilt} values rebuilt in the adjoint instead of stored ({floats} floats)"),
                _ => format!(
                    "; {rebuilt} values rebuilt in the adjoint instead of stored ({floats} floats, {reloads} loaded again)"
                ),
            }
        ));
        for (header, record) in stacked {
            let count = |pick: fn(&Field) -> bool| record.fields.iter().filter(|f| pick(f)).count();
            let line = func.blocks[*header]
                .insts
                .iter()
                .chain(
                    loops
                        .loops()
                        .iter()
                        .find(|l| l.header == *header)
                        .into_iter()
                        .flat_map(|l| l.blocks.iter())
                        .flat_map(|b| func.blocks[*b].insts.iter()),
                )
                .find_map(|i| func.insts[*i].loc.as_ref())
                .map(|l| format!(" at line {}", l.line))
                .unwrap_or_default();
            lines.push(format!(
                "{}: loop {}{line}: {} bytes per iteration ({} values, {} shadows, {} callee tapes, {} control-flow records)",
                func.name,
                func.block_label(*header),
                bytes(&record.ty),
                count(|f| matches!(f, Field::Value(_))),
                count(|f| matches!(f, Field::Shadow(..))),
                count(|f| matches!(f, Field::CalleeTape(_))),
                count(|f| matches!(f, Field::PredId | Field::Trips(_))),
            ));
        }
        lines
    }

    /// The block whose record holds `field` (a value or a pointer's shadow).
    pub fn field_home(&self, func: &Function, block_of: &SecondaryMap<Inst, Block>, field: Field) -> Option<Block> {
        let (Field::Value(v) | Field::Shadow(v, _)) = field else { return None };
        let b = match func.values[v].def {
            ValueDef::Inst(i) => block_of[i],
            ValueDef::Param(_) => func.entry()?,
            _ => return None,
        };
        self.home.contains_key(&(b, field)).then_some(b)
    }

    /// The block whose record holds `b`'s fields, and that record.
    pub fn record_of(&self, b: Block) -> Option<(Block, &Record)> {
        let owner = self.shared.get(&b).copied().unwrap_or(b);
        self.records.get(&owner).map(|r| (owner, r))
    }

    /// What block `b` records (nothing for most blocks).
    pub fn fields_of(&self, b: Block) -> &[Field] {
        self.recorded.get(&b).map_or(&[], Vec::as_slice)
    }

    /// Tape indices of all stack headers.
    pub fn stacks(&self) -> Vec<u32> {
        let mut s: Vec<u32> = self.records.values().filter(|r| r.storage == Storage::Stack).map(|r| r.tape_index).collect();
        s.sort_unstable();
        s
    }
}

/// What each block records, in order: the values and shadows defined there (a parameter's
/// in the entry block), the tapes of the calls there, the trip counts of the counted loops
/// it leaves (unless the adjoint computes them), and its predecessor id when it is a join
/// (not a counted loop's header).
fn block_fields(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    needs: &TapeNeeds,
    counted: &HashMap<Block, (Counted, Vec<Block>)>,
) -> SecondaryMap<Block, Vec<(Field, Type)>> {
    let block_of = inst_blocks(func);
    let entry = func.entry().expect("a function with a body");
    let mut fields: SecondaryMap<Block, Vec<(Field, Type)>> = SecondaryMap::new();
    let home_of = |v: Value| match func.values[v].def {
        ValueDef::Inst(i) => Some(block_of[i]),
        ValueDef::Param(_) => Some(entry),
        _ => None,
    };
    let mut shadow_memory = EntitySet::new();
    shadow_memory.extend(needs.shadow_memory.iter().map(|(v, _)| *v));
    let wanted = needs.values.iter().map(|v| (Field::Value(*v), func.ty(*v).clone())).chain(
        // An alloca's shadow is a fixed place in the tape: nothing to record.
        // A shadow has its pointer's type (a shared-memory shadow keeps address space 3).
        // In vector mode each lane's shadow is a field of its own.
        needs
            .shadows
            .iter()
            .filter(|p| !shadow_memory.contains(**p))
            .flat_map(|p| (0..needs.lanes.max(1)).map(|lane| (Field::Shadow(*p, lane), func.ty(*p).clone()))),
    );
    for (field, ty) in wanted {
        let (Field::Value(v) | Field::Shadow(v, _)) = field else { continue };
        let Some(home) = home_of(v) else { continue };
        let list = &mut fields[home];
        if !list.iter().any(|(f, _)| *f == field) {
            list.push((field, ty));
        }
    }
    for (inst, ty) in &needs.callee_tapes {
        fields[block_of[*inst]].push((Field::CalleeTape(*inst), ty.clone()));
    }
    for l in loops.loops() {
        let Some((_, leaves)) = counted.get(&l.header) else { continue };
        if needs.computed_trips.contains(&l.header) {
            continue;
        }
        for &b in leaves {
            fields[b].push((Field::Trips(l.header), Type::I64));
        }
    }
    for &b in cfg.reverse_postorder() {
        if cfg.preds(b).len() > 1 && !counted.contains_key(&b) {
            fields[b].push((Field::PredId, Type::Int(pred_id_bits(cfg.preds(b).len()))));
        }
    }
    fields
}

/// The records as they are laid out (`TapeLayout`'s fields of the same names), and the
/// tape's fields so far.
#[derive(Default)]
struct Records {
    records: HashMap<Block, Record>,
    recorded: HashMap<Block, Vec<Field>>,
    home: HashMap<(Block, Field), u32>,
    tape_fields: Vec<Type>,
}

impl Records {
    /// One record per block that records something and shares no header's record, in layout
    /// order, holding its own fields and those of the blocks sharing it.
    fn lay_out(
        &mut self,
        func: &Function,
        loops: &LoopAnalysis,
        needs: &TapeNeeds,
        mut fields: SecondaryMap<Block, Vec<(Field, Type)>>,
        shared: &HashMap<Block, Block>,
    ) {
        // The blocks writing into each record (its owner's and those sharing it), in layout order.
        let mut groups: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in &func.layout {
            if !fields[b].is_empty() {
                groups[shared.get(&b).copied().unwrap_or(b)].push(b);
            }
        }
        for &owner in &func.layout {
            let members = std::mem::take(&mut groups[owner]);
            if members.is_empty() {
                continue;
            }
            let mut entries = Vec::new();
            for b in members {
                let list = std::mem::take(&mut fields[b]);
                self.recorded.insert(b, list.iter().map(|(f, _)| *f).collect::<Vec<_>>());
                entries.extend(list.into_iter().map(|(f, t)| (b, f, t)));
            }
            let storage = if loops.may_repeat(owner) { Storage::Stack } else { Storage::Once };
            let record = self.record(entries, storage, needs.inline_chunks);
            self.records.insert(owner, record);
        }
    }

    /// The record of `entries` (block, field, type), and its tape field.
    fn record(&mut self, mut entries: Vec<(Block, Field, Type)>, storage: Storage, inline_chunks: bool) -> Record {
        // Widest alignment first, so that the record has no padding between fields (a
        // record of trip counts and byte-sized predecessor ids would otherwise pad each
        // id to the next 8 bytes). Stable: equal alignments keep their order.
        entries.sort_by_key(|(_, _, t)| std::cmp::Reverse(t.natural_layout().map_or(1, |(_, align)| align)));
        let mut types = Vec::new();
        let mut all = Vec::new();
        for (b, f, t) in entries {
            self.home.insert((b, f), types.len() as u32);
            types.push(t);
            all.push(f);
        }
        let ty = Type::structure(types);
        self.tape_fields.push(match storage {
            Storage::Once => ty.clone(),
            Storage::Stack if inline_chunks => stack::inline_stack_type(),
            Storage::Stack => stack::header_type(),
        });
        let tape_index = self.tape_fields.len() as u32 - 1;
        Record { fields: all, ty, storage, tape_index }
    }
}

/// The header of `b`'s innermost loop, when `b` can write its fields into the record the
/// header pushes instead of pushing one of its own, saving a push per execution (clang -O2
/// loop bodies are many blocks: guards, vector bodies' middle blocks, remainders, latches).
/// That holds for every block of the loop outside its inner loops: each iteration starts at
/// the header, which pushes the record first, and `b` runs at most once before the header
/// runs again. Where `b` did not run in an iteration its fields stay unwritten, and nothing
/// reads them: the adjoint visits `b` only for iterations that ran it, and a value of `b`
/// is used only where `b` dominates, which an iteration skipping `b` cannot reach. Every
/// read comes before the header's adjoint pops the record. Only in reducible CFGs (an
/// irreducible cycle inside the loop could repeat `b` within one iteration).
fn shares_header_record(loops: &LoopAnalysis, b: Block) -> Option<Block> {
    if !loops.is_reducible() {
        return None;
    }
    let header = loops.loops()[loops.innermost(b)?].header;
    (header != b).then_some(header)
}

/// The width in bits of the id of a block's predecessor (its index in `cfg.preds`): a byte
/// where there are at most 256 (loop nests push one per iteration of each join; they are
/// most of the tape's control-flow bytes).
pub fn pred_id_bits(preds: usize) -> u32 {
    if preds <= 256 {
        8
    } else {
        32
    }
}

/// The block of every instruction.
pub fn inst_blocks(func: &Function) -> SecondaryMap<Inst, Block> {
    let mut blocks = SecondaryMap::with_default(Block::reserved_value());
    for (b, i) in func.inst_order() {
        blocks[i] = b;
    }
    blocks
}

/// Reachable blocks that end in `ret`.
pub fn return_blocks(func: &Function, cfg: &ControlFlowGraph) -> Vec<Block> {
    cfg.reverse_postorder()
        .iter()
        .copied()
        .filter(|b| func.terminator(*b).is_some_and(|t| matches!(func.insts[t].kind, InstKind::Ret { .. })))
        .collect()
}
