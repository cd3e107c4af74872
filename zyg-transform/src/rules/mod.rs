//! Derivative rules, as data: one module per family of operations, each saying in one place
//! which instructions it matches (`classify`), what its pullback reads from the primal
//! (`alphas`), how the adjoint is emitted (`reverse`), and, for forward mode, how the
//! result's tangent is emitted (`tangent`). `FAMILIES` is the table the pullback choice walks in order: the
//! first family that answers for an instruction owns it ("rules before decomposition": a
//! registered or known rule for a call comes before differentiating through the callee).
//!
//! The expression language the table rules are written in is `expr`; `emit` turns its
//! expressions into adjoint code. `library` holds the C library functions zyg gives bodies
//! (they are then differentiated as callees, by `calls`).

pub mod access;
pub mod aggregates;
pub mod blas;
pub mod calls;
pub mod custom;
pub mod digamma;
pub mod emit;
pub mod expr;
pub mod gpu;
pub mod instructions;
pub mod library;
pub mod math;
pub mod memcalls;
pub mod mpi;
pub mod openmp;
pub mod phis;
pub mod sorts;
pub mod stacks;
pub mod vectors;
pub mod warp;

pub use expr::E;
pub use math::{family, MathRule};

use crate::activity::Activity;
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use crate::{Generated, Spec};
use cranelift_entity::{EntitySet, SecondaryMap};
use std::collections::HashMap;
use zyg_ir::{Function, Inst, Module, Value};

/// How an active instruction's adjoint is computed: the decision of the family that matched
/// it (`Pullback::family`), with what that family needs to remember.
#[derive(Clone)]
pub enum Pullback {
    /// A phi: the reversed CFG walk routes its adjoint to the value each predecessor gave
    /// (`phis`).
    Phi,
    /// A derivative the user registered for the callee (`custom`).
    Custom(Box<crate::custom::CustomRule>),
    /// A load or a store (`access`).
    Access(access::Access),
    /// extractvalue, insertvalue: adjoints move between an aggregate and its fields
    /// (`aggregates`).
    Aggregate,
    /// `malloc` and friends, `realloc`, `memset`, `memcpy`/`memmove` (`memcalls`).
    Memory(memcalls::MemCall),
    /// A GPU barrier, replayed in the adjoint (`gpu`).
    Barrier,
    /// A warp shuffle of a float, shuffled back in the adjoint (`warp`).
    Shuffle(warp::Shuffle),
    /// Lanes of vectors, vector reductions, masked and gathered memory accesses (`vectors`).
    Vector(vectors::VectorOp),
    /// A math function's table rule (`math`): one adjoint expression per call argument.
    Math(Vec<Option<E>>),
    /// `llvm.modf.*`, whose result is a pair, `{fraction, integer part}` (`math`).
    Modf,
    /// A floating-point instruction's table rule (`instructions`): one adjoint expression
    /// per operand.
    Arithmetic(Vec<Option<E>>),
    /// A BLAS or LAPACK call (`blas`): its adjoint and tangent call BLAS again.
    Blas(blas::BlasCall),
    /// An MPI call (`mpi`): its adjoint communicates again, in reverse.
    Mpi(mpi::MpiCall),
    /// A differentiated callee: its own adjoint, fed its tape (`calls`).
    Callee(Box<Generated>),
    /// An OpenMP parallel region (`__kmpc_fork_call`): the outlined function's primal and
    /// adjoint, forked on a team with a tape per thread (`openmp`).
    Fork(Box<Generated>),
    /// Forward mode's OpenMP parallel region: the outlined function's tangent function,
    /// forked (`openmp`).
    ForkTangent(Box<crate::tangent::Tangents>),
    /// A recursive call checkpointed (`crate::checkpoint`): the primal stores its arguments,
    /// the adjoint reruns the callee's primal, then its adjoint (`calls`).
    Checkpoint(Box<crate::checkpoint::Checkpoint>),
    /// Forward mode's differentiated callee: its tangent function (`calls`).
    Forward(Box<crate::tangent::Tangents>),
    /// A call through a pointer to none of the functions a dispatcher compares it with
    /// (`zyg_ir::llvm::dispatch`): the primal stops the program there with a message
    /// (`Plan::stops`), so the adjoint and tangent have nothing to do (`calls`).
    UnknownCallee,
    /// An operation on a generated gradient's tape stack, mirrored on its shadow stack
    /// (`stacks`).
    Stack(crate::stack::Op),
    /// `qsort` and `qsort_r` of differentiated memory: the shadow follows the permutation
    /// (`sorts`).
    Sort(sorts::SortKind),
}

impl Pullback {
    /// The family whose pullback this is: the one that emits it and reads its alphas.
    pub fn family(&self) -> &'static dyn RuleFamily {
        match self {
            Pullback::Phi => &phis::Phis,
            Pullback::Custom(_) => &custom::Custom,
            Pullback::Access(_) => &access::Accesses,
            Pullback::Aggregate => &aggregates::Aggregates,
            Pullback::Memory(_) => &memcalls::MemCalls,
            Pullback::Barrier => &gpu::Barriers,
            Pullback::Shuffle(_) => &warp::Warp,
            Pullback::Stack(_) => &stacks::Stacks,
            Pullback::Sort(_) => &sorts::Sorts,
            Pullback::Vector(_) => &vectors::Vectors,
            Pullback::Math(_) | Pullback::Modf => &math::MathCalls,
            Pullback::Blas(_) => &blas::Blas,
            Pullback::Fork(_) | Pullback::ForkTangent(_) => &openmp::OpenMp,
            Pullback::Mpi(_) => &mpi::Mpi,
            Pullback::Arithmetic(_) => &instructions::Arithmetic,
            Pullback::Callee(_) | Pullback::Checkpoint(_) | Pullback::Forward(_) | Pullback::UnknownCallee => &calls::Calls,
        }
    }
}

/// The pullbacks chosen for a function, by instruction (None: the instruction has no
/// adjoint).
pub type Pullbacks = SecondaryMap<Inst, Option<Pullback>>;

/// The chosen pullbacks, in instruction order.
pub fn chosen(pullbacks: &Pullbacks) -> impl Iterator<Item = (Inst, &Pullback)> {
    pullbacks.iter().filter_map(|(inst, p)| p.as_ref().map(|p| (inst, p)))
}

/// A family's answer for an instruction it matches.
pub enum Choice {
    Pullback(Pullback),
    /// Differentiate through the callee, for this spec (the differentiator generates it,
    /// and the pullback becomes `Pullback::Callee`).
    Callee(Spec),
    /// Fork this parallel spec of an outlined OpenMP region (the differentiator generates
    /// it, and the pullback becomes `Pullback::Fork`).
    Fork(Spec),
}

/// What classification may look at.
pub struct Classify<'a> {
    pub module: &'a Module,
    pub func: &'a Function,
    pub activity: &'a Activity,
    /// The pointers whose shadows may be null (`shadows`).
    pub nullable: &'a EntitySet<Value>,
    pub conventions: &'a crate::conventions::Conventions,
    /// Derivatives registered by the user, by function name.
    pub custom: &'a HashMap<String, crate::custom::CustomRule>,
    /// The type analysis of memory (which bytes a copy moves are floats, pointers).
    pub memory: &'a crate::memtypes::MemTypes,
    /// Forward mode is asking (`custom` then holds forward registrations).
    pub forward: bool,
}

/// One family of operations and its rules. A mode of differentiation is one method here,
/// implemented by every family; see docs/ARCHITECTURE.md, "How to add a rule family".
pub trait RuleFamily: Sync {
    /// The family's name, for messages.
    fn name(&self) -> &'static str;

    /// The pullback of active instruction `inst`, if this family handles it (`None`: ask the
    /// next family), or the error that names what zyg cannot differentiate.
    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError>;

    /// Whether `pullback`'s only input is the result's adjoint, so that with an inactive
    /// result it does nothing and is left out.
    fn only_moves_the_result(&self, _pullback: &Pullback) -> bool {
        false
    }

    /// The alphas of `pullback`: the primal values, shadows and tapes its `reverse` reads.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback);

    /// Emits the adjoint of the instruction `cx` is at: reads alphas and shadows through
    /// `cx`, and adds contributions to the operands' adjoints.
    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError>;

    /// Forward mode: emits the tangent of the instruction `cx` is at from its operands'
    /// tangents and shadows (`cx.set`). A family without one refuses forward mode, naming
    /// itself.
    fn tangent(&self, cx: &mut Tangent, _pullback: &Pullback) -> Result<(), TransformError> {
        Err(TransformError::at(
            cx.func(),
            cx.inst,
            format!("forward mode does not handle this instruction yet (rule family `{}`); use reverse mode", self.name()),
        ))
    }

    /// Vector mode: whether `tangent` and `reverse` handle every lane in one call
    /// (switching with `Tangent::set_lane`, `Reverse::set_lane`) rather than being called
    /// once per lane.
    fn all_lanes(&self, _pullback: &Pullback) -> bool {
        false
    }
}

/// The families, in the order they are asked: an instruction belongs to the first that
/// answers. Calls to registered derivatives come first; `calls` takes every call that is
/// left, and `instructions` (arithmetic) every instruction that is left.
pub static FAMILIES: &[&dyn RuleFamily] = &[
    &phis::Phis,
    &custom::Custom,
    &access::Accesses,
    &aggregates::Aggregates,
    &memcalls::MemCalls,
    &gpu::Barriers,
    &warp::Warp,
    &stacks::Stacks,
    &vectors::Vectors,
    &math::MathCalls,
    &blas::Blas,
    &mpi::Mpi,
    &sorts::Sorts,
    &openmp::OpenMp,
    &calls::Calls,
    &instructions::Arithmetic,
];

/// The family that owns `inst` and its answer (`FAMILIES`, in order).
pub fn classify(cx: &Classify, inst: Inst) -> Result<(&'static dyn RuleFamily, Choice), TransformError> {
    for family in FAMILIES {
        if let Some(choice) = family.classify(cx, inst)? {
            return Ok((*family, choice));
        }
    }
    Err(TransformError::at(cx.func, inst, "internal error: no rule family answered for this instruction"))
}
