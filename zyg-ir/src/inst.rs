//! Instructions: what each one is (its kind and operands), apart from where it sits.

use crate::constant::Constant;
use crate::entities::{Block, Value};
use crate::types::{Signature, Type};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    FNeg,
    Freeze,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    FPExt,
    FPTrunc,
    SIToFP,
    UIToFP,
    FPToSI,
    FPToUI,
    ZExt,
    SExt,
    Trunc,
    BitCast,
    PtrToInt,
    IntToPtr,
    AddrSpaceCast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Uno,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    True,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

/// What a call calls: a function by name, or a pointer value.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    Direct(Arc<str>),
    Indirect(Value),
}

/// The integer operations of `atomicrmw` (LLVM's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
}

impl RmwOp {
    pub const ALL: [RmwOp; 11] = [
        RmwOp::Xchg,
        RmwOp::Add,
        RmwOp::Sub,
        RmwOp::And,
        RmwOp::Nand,
        RmwOp::Or,
        RmwOp::Xor,
        RmwOp::Max,
        RmwOp::Min,
        RmwOp::UMax,
        RmwOp::UMin,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RmwOp::Xchg => "xchg",
            RmwOp::Add => "add",
            RmwOp::Sub => "sub",
            RmwOp::And => "and",
            RmwOp::Nand => "nand",
            RmwOp::Or => "or",
            RmwOp::Xor => "xor",
            RmwOp::Max => "max",
            RmwOp::Min => "min",
            RmwOp::UMax => "umax",
            RmwOp::UMin => "umin",
        }
    }
}

/// The memory orderings of an atomic read-modify-write (LLVM's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOrdering {
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl AtomicOrdering {
    pub const ALL: [AtomicOrdering; 5] = [
        AtomicOrdering::Monotonic,
        AtomicOrdering::Acquire,
        AtomicOrdering::Release,
        AtomicOrdering::AcqRel,
        AtomicOrdering::SeqCst,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AtomicOrdering::Monotonic => "monotonic",
            AtomicOrdering::Acquire => "acquire",
            AtomicOrdering::Release => "release",
            AtomicOrdering::AcqRel => "acq_rel",
            AtomicOrdering::SeqCst => "seq_cst",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    Binary {
        op: BinOp,
        args: [Value; 2],
    },
    Unary {
        op: UnOp,
        arg: Value,
    },
    Cast {
        op: CastOp,
        arg: Value,
    },
    FCmp {
        pred: FloatPred,
        args: [Value; 2],
    },
    ICmp {
        pred: IntPred,
        args: [Value; 2],
    },
    Select {
        cond: Value,
        then_value: Value,
        else_value: Value,
    },
    Phi {
        incoming: Vec<(Block, Value)>,
    },
    /// A call; with `unwind`, LLVM's `invoke`: if the callee throws, control goes to that
    /// landing pad instead of on. Only the unwind edge is in `unwind`: the block still ends
    /// with its own terminator (a `br` to the invoke's normal destination, as read), so the
    /// normal path's analyses see an ordinary call; the writer makes it an `invoke` again.
    Call {
        callee: Callee,
        sig: Signature,
        args: Vec<Value>,
        unwind: Option<Block>,
    },
    /// `landingpad { ptr, i32 }`: where an unwinding callee lands. `clauses` are the
    /// `catch` clauses' type infos (constants); `cleanup` says it also stops for cleanups.
    /// Only in the function's handler blocks (`Function::handlers`).
    LandingPad {
        cleanup: bool,
        clauses: Vec<Value>,
    },
    Alloca {
        ty: Type,
    },
    Load {
        ty: Type,
        ptr: Value,
    },
    Store {
        value: Value,
        ptr: Value,
    },
    /// `atomicrmw fadd ptr, value ORDERING`: adds into memory other threads may add into
    /// too (the adjoints of GPU kernels, relaxed; a program's OpenMP `atomic` or CUDA
    /// `atomicAdd`, with its own ordering). Its result, the old value, is a float zyg
    /// refuses to differentiate (`rules::access`).
    AtomicFAdd {
        ptr: Value,
        value: Value,
        ordering: AtomicOrdering,
    },
    /// `atomicrmw OP ptr, value ORDERING` on an integer (C++'s reference counts, counters
    /// shared between threads): it carries no derivative. The reader refuses the float and
    /// pointer forms (zyg's own atomic float additions are `AtomicFAdd`).
    AtomicRmw {
        op: RmwOp,
        ptr: Value,
        value: Value,
        ordering: AtomicOrdering,
        volatile: bool,
    },
    /// `cmpxchg ptr, expected, new SUCCESS FAILURE` on an integer (C++'s `weak_ptr::lock`):
    /// a `{ old, i1 }` pair, carrying no derivative.
    CmpXchg {
        ptr: Value,
        expected: Value,
        new: Value,
        success: AtomicOrdering,
        failure: AtomicOrdering,
        weak: bool,
        volatile: bool,
    },
    Gep {
        source_ty: Type,
        base: Value,
        indices: Vec<Value>,
        inbounds: bool,
    },
    ExtractValue {
        agg: Value,
        indices: Vec<u32>,
    },
    InsertValue {
        agg: Value,
        value: Value,
        indices: Vec<u32>,
    },
    ExtractElement {
        vec: Value,
        index: Value,
    },
    InsertElement {
        vec: Value,
        value: Value,
        index: Value,
    },
    /// Lanes of `a` then `b` picked by `mask`; -1 is a poison lane.
    ShuffleVector {
        a: Value,
        b: Value,
        mask: Vec<i32>,
    },
    // Terminators.
    Br {
        dest: Block,
    },
    CondBr {
        cond: Value,
        then_dest: Block,
        else_dest: Block,
    },
    Switch {
        value: Value,
        default: Block,
        cases: Vec<(Constant, Block)>,
    },
    Ret {
        value: Option<Value>,
    },
    /// `resume`: unwinding goes on into the caller with the landing pad's value.
    Resume {
        value: Value,
    },
    Unreachable,
}

impl InstKind {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Ret { .. }
                | InstKind::Resume { .. }
                | InstKind::Unreachable
        )
    }

    /// The landing pad an `invoke` unwinds to.
    pub fn unwind(&self) -> Option<Block> {
        match self {
            InstKind::Call { unwind, .. } => *unwind,
            _ => None,
        }
    }

    /// The same instruction, without an unwind edge: what a copy of a call placed outside
    /// its function's normal path (an adjoint, a shadow allocation beside it) must be.
    pub fn without_unwind(mut self) -> InstKind {
        if let InstKind::Call { unwind, .. } = &mut self {
            *unwind = None;
        }
        self
    }

    /// The blocks control may go to next, in order, without duplicates.
    pub fn successors(&self) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        let mut push = |b: Block| {
            if !out.contains(&b) {
                out.push(b);
            }
        };
        match self {
            InstKind::Br { dest } => push(*dest),
            InstKind::CondBr { then_dest, else_dest, .. } => {
                push(*then_dest);
                push(*else_dest);
            }
            InstKind::Switch { default, cases, .. } => {
                push(*default);
                for (_, b) in cases {
                    push(*b);
                }
            }
            _ => {}
        }
        out
    }

    /// Every block this instruction names (successors and phi predecessors), mutably.
    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        match self {
            InstKind::Br { dest } => vec![dest],
            InstKind::CondBr { then_dest, else_dest, .. } => vec![then_dest, else_dest],
            InstKind::Switch { default, cases, .. } => {
                let mut v = vec![default];
                v.extend(cases.iter_mut().map(|(_, b)| b));
                v
            }
            InstKind::Phi { incoming } => incoming.iter_mut().map(|(b, _)| b).collect(),
            InstKind::Call { unwind: Some(pad), .. } => vec![pad],
            _ => Vec::new(),
        }
    }

    /// The value operands, in order.
    pub fn operands(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.visit_operands(|v| out.push(v));
        out
    }

    fn visit_operands(&self, mut f: impl FnMut(Value)) {
        match self {
            InstKind::Binary { args, .. } | InstKind::FCmp { args, .. } | InstKind::ICmp { args, .. } => {
                args.iter().copied().for_each(f)
            }
            InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => f(*arg),
            InstKind::Select { cond, then_value, else_value } => {
                f(*cond);
                f(*then_value);
                f(*else_value);
            }
            InstKind::Phi { incoming } => incoming.iter().for_each(|(_, v)| f(*v)),
            InstKind::Call { callee, args, .. } => {
                if let Callee::Indirect(v) = callee {
                    f(*v);
                }
                args.iter().copied().for_each(f)
            }
            InstKind::Alloca { .. } => {}
            InstKind::Load { ptr, .. } => f(*ptr),
            InstKind::Store { value, ptr } => {
                f(*value);
                f(*ptr);
            }
            InstKind::AtomicFAdd { ptr, value, .. } | InstKind::AtomicRmw { ptr, value, .. } => {
                f(*ptr);
                f(*value);
            }
            InstKind::CmpXchg { ptr, expected, new, .. } => {
                f(*ptr);
                f(*expected);
                f(*new);
            }
            InstKind::Gep { base, indices, .. } => {
                f(*base);
                indices.iter().copied().for_each(f)
            }
            InstKind::ExtractValue { agg, .. } => f(*agg),
            InstKind::InsertValue { agg, value, .. } => {
                f(*agg);
                f(*value);
            }
            InstKind::ExtractElement { vec, index } => {
                f(*vec);
                f(*index);
            }
            InstKind::InsertElement { vec, value, index } => {
                f(*vec);
                f(*value);
                f(*index);
            }
            InstKind::ShuffleVector { a, b, .. } => {
                f(*a);
                f(*b);
            }
            InstKind::Br { .. } | InstKind::Unreachable => {}
            InstKind::LandingPad { clauses, .. } => clauses.iter().copied().for_each(f),
            InstKind::Resume { value } => f(*value),
            InstKind::CondBr { cond, .. } => f(*cond),
            InstKind::Switch { value, .. } => f(*value),
            InstKind::Ret { value } => value.iter().copied().for_each(f),
        }
    }

    /// Every value operand, mutably: lets a pass rewrite operands through a map.
    pub fn operands_mut(&mut self) -> Vec<&mut Value> {
        match self {
            InstKind::Binary { args, .. } | InstKind::FCmp { args, .. } | InstKind::ICmp { args, .. } => {
                args.iter_mut().collect()
            }
            InstKind::Unary { arg, .. } | InstKind::Cast { arg, .. } => vec![arg],
            InstKind::Select { cond, then_value, else_value } => vec![cond, then_value, else_value],
            InstKind::Phi { incoming } => incoming.iter_mut().map(|(_, v)| v).collect(),
            InstKind::Call { callee, args, .. } => {
                let mut v: Vec<&mut Value> = Vec::new();
                if let Callee::Indirect(c) = callee {
                    v.push(c);
                }
                v.extend(args.iter_mut());
                v
            }
            InstKind::Alloca { .. } | InstKind::Br { .. } | InstKind::Unreachable => Vec::new(),
            InstKind::Load { ptr, .. } => vec![ptr],
            InstKind::Store { value, ptr } => vec![value, ptr],
            InstKind::AtomicFAdd { ptr, value, .. } | InstKind::AtomicRmw { ptr, value, .. } => vec![ptr, value],
            InstKind::CmpXchg { ptr, expected, new, .. } => vec![ptr, expected, new],
            InstKind::Gep { base, indices, .. } => {
                let mut v = vec![base];
                v.extend(indices.iter_mut());
                v
            }
            InstKind::ExtractValue { agg, .. } => vec![agg],
            InstKind::InsertValue { agg, value, .. } => vec![agg, value],
            InstKind::ExtractElement { vec, index } => vec![vec, index],
            InstKind::InsertElement { vec, value, index } => vec![vec, value, index],
            InstKind::ShuffleVector { a, b, .. } => vec![a, b],
            InstKind::CondBr { cond, .. } => vec![cond],
            InstKind::Switch { value, .. } => vec![value],
            InstKind::Ret { value } => value.iter_mut().collect(),
            InstKind::LandingPad { clauses, .. } => clauses.iter_mut().collect(),
            InstKind::Resume { value } => vec![value],
        }
    }

    /// The mnemonic used by the text form and in diagnostics.
    pub fn opcode_name(&self) -> &'static str {
        match self {
            InstKind::Binary { op, .. } => op.name(),
            InstKind::Unary { op: UnOp::FNeg, .. } => "fneg",
            InstKind::Unary { op: UnOp::Freeze, .. } => "freeze",
            InstKind::Cast { op, .. } => op.name(),
            InstKind::FCmp { .. } => "fcmp",
            InstKind::ICmp { .. } => "icmp",
            InstKind::Select { .. } => "select",
            InstKind::Phi { .. } => "phi",
            InstKind::Call { .. } => "call",
            InstKind::Alloca { .. } => "alloca",
            InstKind::Load { .. } => "load",
            InstKind::Store { .. } => "store",
            InstKind::AtomicFAdd { .. } | InstKind::AtomicRmw { .. } => "atomicrmw",
            InstKind::CmpXchg { .. } => "cmpxchg",
            InstKind::Gep { .. } => "getelementptr",
            InstKind::ExtractValue { .. } => "extractvalue",
            InstKind::InsertValue { .. } => "insertvalue",
            InstKind::ExtractElement { .. } => "extractelement",
            InstKind::InsertElement { .. } => "insertelement",
            InstKind::ShuffleVector { .. } => "shufflevector",
            InstKind::Br { .. } | InstKind::CondBr { .. } => "br",
            InstKind::Switch { .. } => "switch",
            InstKind::Ret { .. } => "ret",
            InstKind::LandingPad { .. } => "landingpad",
            InstKind::Resume { .. } => "resume",
            InstKind::Unreachable => "unreachable",
        }
    }
}

macro_rules! named_enum {
    ($ty:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        impl $ty {
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }
            pub fn from_name(name: &str) -> Option<$ty> {
                match name { $($name => Some($ty::$variant),)* _ => None }
            }
        }
    };
}

named_enum!(BinOp {
    FAdd = "fadd", FSub = "fsub", FMul = "fmul", FDiv = "fdiv", FRem = "frem",
    Add = "add", Sub = "sub", Mul = "mul", UDiv = "udiv", SDiv = "sdiv", URem = "urem", SRem = "srem",
    Shl = "shl", LShr = "lshr", AShr = "ashr", And = "and", Or = "or", Xor = "xor",
});

named_enum!(CastOp {
    FPExt = "fpext", FPTrunc = "fptrunc", SIToFP = "sitofp", UIToFP = "uitofp",
    FPToSI = "fptosi", FPToUI = "fptoui", ZExt = "zext", SExt = "sext", Trunc = "trunc",
    BitCast = "bitcast", PtrToInt = "ptrtoint", IntToPtr = "inttoptr", AddrSpaceCast = "addrspacecast",
});

named_enum!(FloatPred {
    False = "false", Oeq = "oeq", Ogt = "ogt", Oge = "oge", Olt = "olt", Ole = "ole", One = "one",
    Ord = "ord", Uno = "uno", Ueq = "ueq", Ugt = "ugt", Uge = "uge", Ult = "ult", Ule = "ule",
    Une = "une", True = "true",
});

named_enum!(IntPred {
    Eq = "eq", Ne = "ne", Ugt = "ugt", Uge = "uge", Ult = "ult", Ule = "ule",
    Sgt = "sgt", Sge = "sge", Slt = "slt", Sle = "sle",
});
