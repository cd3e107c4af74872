//! Functions and modules: the tables of values, instructions and blocks, and their layout.

use crate::constant::Constant;
use crate::entities::{Block, Inst, Value};
use crate::inst::InstKind;
use crate::types::{Signature, Type};
use cranelift_entity::PrimaryMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

/// Where an instruction came from in the user's source, from debug info.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLoc {
    pub file: Arc<str>,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ValueDef {
    Param(u32),
    Inst(Inst),
    Const(Constant),
    /// Named by a text-form reference before its definition was parsed.
    Pending,
}

#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

#[derive(Clone, Debug)]
pub struct InstData {
    pub kind: InstKind,
    /// The result value; `None` for instructions that produce nothing.
    pub result: Option<Value>,
    pub loc: Option<SourceLoc>,
    /// What the front end says the bytes a load, store or memory copy moves hold (clang's
    /// type-based alias metadata), when it says so.
    pub hint: Option<TypeHint>,
}

/// The kind of value some bytes of memory hold: what decides whether they carry a
/// derivative (floats), a shadow (pointers) or neither (integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarKind {
    Float(crate::types::FloatTy),
    Pointer,
    Integer,
}

/// The typed pieces of the bytes an instruction moves: (offset, size, kind), in bytes from
/// the address it reads or writes. A load or store has one piece; a memory copy one per
/// scalar field of the struct it copies (clang's `!tbaa.struct`).
pub type TypeHint = Arc<[(u64, u64, ScalarKind)]>;

#[derive(Clone, Debug, Default)]
pub struct BlockData {
    /// The label the block had in its source, if any (kept for diagnostics).
    pub name: Option<String>,
    pub insts: Vec<Inst>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    Internal,
}

/// A function: its signature, and its values, instructions and blocks in entity tables.
/// `layout` holds the block order; the first block is the entry.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub sig: Signature,
    pub linkage: Linkage,
    /// LLVM function attributes to set on the written function (e.g. `alwaysinline`).
    pub attributes: Vec<String>,
    pub params: Vec<Value>,
    pub values: PrimaryMap<Value, ValueData>,
    pub insts: PrimaryMap<Inst, InstData>,
    pub blocks: PrimaryMap<Block, BlockData>,
    pub layout: Vec<Block>,
    /// The blocks control reaches only by unwinding (C++ exceptions): landing pads and the
    /// cleanup and rethrow code after them, which ends in `resume` or `unreachable`. They
    /// are not in `layout`, so every analysis of the normal path (and the adjoint) leaves
    /// them out; a copy of the function (the primal, the tangent function) keeps them, so
    /// that destructors still run and the exception still leaves, and the writer writes them
    /// after the normal blocks.
    pub handlers: Vec<Block>,
    /// The personality function of the handlers' landing pads (`__gxx_personality_v0`).
    pub personality: Option<Arc<str>>,
    /// The parameters LLVM marks `noalias` (C's `restrict`), by index: during a call, the
    /// memory read or written through one is not written through any pointer not based on
    /// it. Read from the input; the functions zyg writes carry none.
    pub noalias: Vec<usize>,
    constants: HashMap<Constant, Value>,
}

impl Function {
    pub fn new(name: impl Into<String>, sig: Signature) -> Function {
        let mut values = PrimaryMap::new();
        let params = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, ty)| values.push(ValueData { ty: ty.clone(), def: ValueDef::Param(i as u32) }))
            .collect();
        Function {
            name: name.into(),
            sig,
            linkage: Linkage::External,
            attributes: Vec::new(),
            params,
            values,
            insts: PrimaryMap::new(),
            blocks: PrimaryMap::new(),
            layout: Vec::new(),
            handlers: Vec::new(),
            personality: None,
            noalias: Vec::new(),
            constants: HashMap::new(),
        }
    }

    /// Appends a parameter of type `ty` and returns its value.
    pub fn add_param(&mut self, ty: Type) -> Value {
        let index = self.params.len() as u32;
        let v = self.values.push(ValueData { ty: ty.clone(), def: ValueDef::Param(index) });
        self.params.push(v);
        self.sig.params.push(ty);
        v
    }

    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }

    pub fn ty(&self, v: Value) -> &Type {
        &self.values[v].ty
    }

    /// The constant a value is, if it is one.
    pub fn constant(&self, v: Value) -> Option<&Constant> {
        match &self.values[v].def {
            ValueDef::Const(c) => Some(c),
            _ => None,
        }
    }

    /// The instruction that defines `v`, if any.
    pub fn def_inst(&self, v: Value) -> Option<Inst> {
        match self.values[v].def {
            ValueDef::Inst(i) => Some(i),
            _ => None,
        }
    }

    /// The value for a constant, shared by all its uses.
    pub fn constant_value(&mut self, c: Constant) -> Value {
        if let Some(v) = self.constants.get(&c) {
            return *v;
        }
        let v = self.values.push(ValueData { ty: c.ty(), def: ValueDef::Const(c.clone()) });
        self.constants.insert(c, v);
        v
    }

    /// A new block placed at the end of the layout.
    pub fn create_block(&mut self, name: Option<String>) -> Block {
        let b = self.blocks.push(BlockData { name, insts: Vec::new() });
        self.layout.push(b);
        b
    }

    /// Creates an instruction (and its result value when `ty` is not void), unattached.
    pub fn make_inst(&mut self, kind: InstKind, ty: Type) -> Inst {
        let inst = self.insts.push(InstData { kind, result: None, loc: None, hint: None });
        if !ty.is_void() {
            let v = self.values.push(ValueData { ty, def: ValueDef::Inst(inst) });
            self.insts[inst].result = Some(v);
        }
        inst
    }

    /// Appends a new instruction to `block` and returns it.
    pub fn append_inst(&mut self, block: Block, kind: InstKind, ty: Type) -> Inst {
        let inst = self.make_inst(kind, ty);
        self.blocks[block].insts.push(inst);
        inst
    }

    /// Appends a new instruction that has a result, and returns the result.
    pub fn append_value(&mut self, block: Block, kind: InstKind, ty: Type) -> Value {
        debug_assert!(!ty.is_void());
        let inst = self.append_inst(block, kind, ty);
        self.insts[inst].result.expect("non-void instruction has a result")
    }

    pub fn result(&self, inst: Inst) -> Option<Value> {
        self.insts[inst].result
    }

    /// The last instruction of a block, if it is a terminator.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        let last = *self.blocks[block].insts.last()?;
        self.insts[last].kind.is_terminator().then_some(last)
    }

    pub fn successors(&self, block: Block) -> Vec<Block> {
        self.terminator(block).map(|t| self.insts[t].kind.successors()).unwrap_or_default()
    }

    /// The phi instructions at the head of a block.
    pub fn phis(&self, block: Block) -> impl Iterator<Item = Inst> + '_ {
        self.blocks[block].insts.iter().copied().take_while(move |i| matches!(self.insts[*i].kind, InstKind::Phi { .. }))
    }

    /// Instructions in layout order, with their blocks.
    pub fn inst_order(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.layout.iter().flat_map(move |b| self.blocks[*b].insts.iter().map(move |i| (*b, *i)))
    }

    /// The name of a block for messages: its source label, or its entity number.
    pub fn block_label(&self, block: Block) -> String {
        self.blocks[block].name.clone().unwrap_or_else(|| block.to_string())
    }

    pub fn is_declaration(&self) -> bool {
        self.layout.is_empty()
    }
}

/// A module: defined functions, the signatures of the external functions they call, and
/// the global variables they may use.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub functions: Vec<Function>,
    pub declarations: BTreeMap<String, Signature>,
    /// Declared functions that touch no memory the program can see (LLVM's `memory(none)`,
    /// or only inaccessible and errno memory: `sin` under `-fno-math-errno` and with it, the
    /// intrinsics): a call to one can only pass on what its result holds.
    pub pure: BTreeSet<String>,
    pub globals: BTreeMap<String, GlobalVar>,
}

/// A global variable: what it holds, and whether the program may write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalVar {
    pub ty: Type,
    pub constant: bool,
    /// The address space (3 is a GPU's shared memory).
    pub addrspace: u32,
    /// The program asserts that it carries no derivative (Enzyme's
    /// `__enzyme_inactive_global`): it never gets a shadow.
    pub inactive: bool,
    /// The global variables whose addresses the initialiser holds (`double *cur = buf;`):
    /// the shadow's initialiser holds their shadows' addresses at the same places.
    pub points_to: Vec<String>,
}

/// The address space of a GPU's shared memory (CUDA `__shared__`), one copy per block.
pub const SHARED_MEMORY: u32 = 3;

impl GlobalVar {
    pub fn is_shared(&self) -> bool {
        self.addrspace == SHARED_MEMORY
    }

    /// `extern __shared__ float s[]`: a zero-length shared array, whose size the launch
    /// gives (every such array starts at the same dynamic region).
    pub fn is_dynamic_shared(&self) -> bool {
        self.is_shared() && matches!(self.ty, Type::Array(0, _))
    }
}

impl Module {
    /// Whether the module's dynamic shared memory (`extern __shared__`) carries derivatives:
    /// one of its names is an array of a type with floats that the program does not declare
    /// inactive. Its shadow is then the second half of the dynamic region the launch gives
    /// (which must be twice what the primal kernel needs).
    pub fn differentiates_dynamic_shared(&self) -> bool {
        self.globals.values().any(|g| g.is_dynamic_shared() && !g.inactive && g.ty.carries_derivative())
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Whether `name` is a declared function that touches no memory the program can see.
    pub fn is_pure(&self, name: &str) -> bool {
        self.pure.contains(name)
    }

    /// The signature of a function the module defines or declares.
    pub fn signature(&self, name: &str) -> Option<&Signature> {
        self.function(name).map(|f| &f.sig).or_else(|| self.declarations.get(name))
    }

    /// A global variable that may hold values with derivatives: written by the program
    /// (not `constant`) and of a type with floats in it, in the default address space or
    /// in a GPU's shared memory (whose shadow is shared memory the gradient kernel zeroes);
    /// not a global the program declares inactive. Dynamic shared memory is one region
    /// however many `extern __shared__` names it has (they all start at its start), so
    /// either every name of it is active or none is: every one when one of them has floats
    /// (`differentiates_dynamic_shared`).
    pub fn active_global(&self, name: &str) -> Option<&GlobalVar> {
        let holds_floats = |g: &&GlobalVar| {
            if g.is_dynamic_shared() {
                return self.differentiates_dynamic_shared();
            }
            !g.constant && !g.inactive && (g.addrspace == 0 || g.is_shared()) && g.ty.carries_derivative()
        };
        // A pointer variable initialised to point at one (`double *cur = buf;`) has a shadow
        // too, pointing at that one's: a load through it reaches differentiated memory. So
        // does a constant one (LLVM marks a variable nothing writes constant).
        let points_at_floats = |g: &&GlobalVar| {
            !g.inactive
                && g.addrspace == 0
                && g.ty.holds_pointers()
                && g.points_to.iter().any(|h| self.globals.get(h).filter(holds_floats).is_some())
        };
        self.globals.get(name).filter(|g| holds_floats(g) || points_at_floats(g))
    }
}
