//! The helpers `generate()` adds beside a spec's primal and adjoint, each once per module:
//! shadow globals, the copy and `realloc` helpers of the memory pullbacks, the helpers that
//! stop a program where a null shadow would lose a derivative; and the last phase, the
//! inlining policy, with the check every phase's output passes (`verified`).

use crate::activity::{self, Activity};
use crate::spec::Generated;
use crate::{builder, memory, rules, shadows, Differentiator, Pullback, TransformError};
use cranelift_entity::EntitySet;
use std::collections::HashMap;
use zyg_ir::{Constant, Function, Inst, Linkage, Module, Signature, Type, Value};

/// Generated primals and adjoints of at most this many instructions are marked
/// `alwaysinline` (see `inlining_policy`).
const INLINE_LIMIT: usize = 1000;

/// The `realloc` and aligned allocation helpers (`memory`), each added to the output once.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum MemoryHelper {
    /// The shadow of an aligned allocation, in either mode.
    AlignedShadow,
    /// A sort's permutation (`rules::sorts`), and the moves of elements by it and back.
    SortPermutation(rules::sorts::SortKind),
    Permute,
    Unpermute,
    /// Reverse mode's shadow realloc, which keeps the old shadow for the adjoint.
    Shadow,
    /// Forward mode's, which frees the old shadow.
    MovingShadow,
    /// The adjoint of a realloc of memory holding floats of this type.
    Adjoint(zyg_ir::FloatTy),
}

impl Differentiator<'_> {
    /// The shadow globals of the globals `func` uses (and of those their initialisers point at).
    pub(crate) fn add_shadow_globals(&mut self, func: &Function, activity: &Activity) {
        let shadowed = activity.shadowed_globals(func).map(|(_, name)| name.to_string()).collect();
        for name in activity::with_pointed_at(self.module, shadowed) {
            let global = self.module.active_global(&name).expect("only active globals are shadowed");
            if global.is_dynamic_shared() {
                continue; // its shadow is the dynamic region's second half (`gpu::dynamic_shadow`)
            }
            self.shadow_globals.insert(shadow_global_name(&name), zyg_ir::GlobalVar { constant: false, ..global.clone() });
        }
    }

    /// The helpers the memory pullbacks call (copies, `realloc`, sorts), each added once;
    /// returns the index of each mixed-field copy's helpers (`memory::field_adjoint_name`).
    pub(crate) fn add_memory_helpers(&mut self, pullbacks: &rules::Pullbacks) -> HashMap<Inst, usize> {
        use rules::memcalls::MemCall;
        self.add_sort_helpers(pullbacks, true);
        let mut copy_layouts = HashMap::new();
        for (inst, pullback) in rules::chosen(pullbacks) {
            let Pullback::Memory(call) = pullback else { continue };
            if let MemCall::Copy(memory::CopyPlan::Fields(layout)) = call {
                copy_layouts.insert(inst, self.field_helpers(layout));
            }
            if let MemCall::Copy(memory::CopyPlan::Floats(elem)) | MemCall::Realloc(elem) = call {
                if self.copy_helpers.insert(*elem) {
                    self.output.push(memory::copy_adjoint(&self.namespace, *elem));
                }
            }
            if let MemCall::AlignedAllocation = call {
                self.add_shadow_aligned();
            }
            if let MemCall::Realloc(elem) = call {
                if self.memory_helpers.insert(MemoryHelper::Adjoint(*elem)) {
                    self.output.push(memory::realloc_adjoint(&self.namespace, *elem));
                }
                if self.memory_helpers.insert(MemoryHelper::Shadow) {
                    self.output.push(memory::shadow_realloc(&self.namespace));
                }
            }
        }
        copy_layouts
    }

    /// The helpers of the BLAS and LAPACK calls (`rules::blas`): each routine's `save`,
    /// `adjoint` and `tangent`, and the matrix loops they share, each added once. Only the
    /// routines called are added, so that a program calling only CBLAS does not need
    /// LAPACKE to link.
    /// The functions an OpenMP fork of `spec`'s outlined function calls instead of it, once
    /// per spec (`rules::openmp::wrappers`).
    pub(crate) fn add_fork_wrappers(&mut self, spec: &crate::Spec, g: &Generated) -> Result<(), TransformError> {
        if !self.fork_wrappers.insert(rules::openmp::primal_wrapper_name(g)) {
            return Ok(());
        }
        let outlined = self.function(&spec.function)?;
        self.output.extend(rules::openmp::wrappers(self.module, outlined, g, &spec.private));
        Ok(())
    }

    /// The helpers of the loads `rules::openmp::owned_loads` finds, once per namespace.
    pub(crate) fn add_owned_helpers(&mut self) {
        for ty in [Type::F64, Type::F32] {
            let name = rules::openmp::add_owned_name(&self.namespace, &ty);
            if self.fork_wrappers.insert(name.clone()) {
                self.output.push(rules::openmp::add_owned_helper(name, &ty));
            }
        }
    }

    pub(crate) fn add_blas_helpers(&mut self, pullbacks: &rules::Pullbacks) {
        let calls: Vec<rules::blas::BlasCall> = rules::chosen(pullbacks)
            .filter_map(|(_, p)| match p {
                Pullback::Blas(call) => Some(call.clone()),
                _ => None,
            })
            .collect();
        for call in calls {
            if self.blas_helpers.contains(&call.helper(&self.namespace, "adjoint")) {
                continue;
            }
            for f in rules::blas::helpers(&self.namespace, call.elem) {
                let wanted = match rules::blas::helper_routine(&self.namespace, &f.name) {
                    Some(routine) => routine == call.name,
                    None => true,
                };
                if wanted && self.blas_helpers.insert(f.name.clone()) {
                    self.output.push(f);
                }
            }
        }
    }

    /// The helpers of the MPI calls (`rules::mpi`): every template function for each float
    /// type the calls move (the untyped ones once), and the stops they call. Unused ones
    /// are internal, and LLVM drops them.
    pub(crate) fn add_mpi_helpers(&mut self, pullbacks: &rules::Pullbacks) {
        use rules::mpi::Routine;
        let mut elems = Vec::new();
        for (_, p) in rules::chosen(pullbacks) {
            let Pullback::Mpi(call) = p else { continue };
            let elem = match (call.routine, call.elem) {
                (Routine::Inert | Routine::Barrier, _) => continue,
                (_, Some(elem)) => elem,
                // Waits and integer requests call only untyped helpers.
                (_, None) => zyg_ir::FloatTy::F64,
            };
            if !elems.contains(&elem) {
                elems.push(elem);
            }
        }
        for elem in elems {
            for f in rules::mpi::helpers(&self.namespace, elem) {
                if self.mpi_helpers.insert(f.name.clone()) {
                    self.output.push(f);
                }
            }
            for (name, message) in rules::mpi::stops(&self.namespace) {
                if self.mpi_helpers.insert(name.clone()) {
                    self.output.push(shadows::abort_helper(name, message, false));
                }
            }
        }
    }

    /// The math functions the rules of `func`'s pullbacks call that the C library lacks
    /// (`rules::digamma`), one per float type, each added once. Reverse and forward mode
    /// alike: both emit the rules.
    pub(crate) fn add_math_helpers(&mut self, func: &Function, pullbacks: &rules::Pullbacks) {
        for (inst, pullback) in rules::chosen(pullbacks) {
            let Pullback::Math(adjoints) = pullback else { continue };
            let elem = func.result(inst).and_then(|v| func.ty(v).float_elem());
            if let Some(elem) = elem.filter(|_| rules::digamma::is_called(adjoints)) {
                if self.digamma_helpers.insert(elem) {
                    self.output.push(rules::digamma::helper(&self.namespace, elem));
                }
            }
        }
    }

    /// The helper forward mode's `realloc` calls (`memory::shadow_realloc_moving`), added once.
    pub(crate) fn add_tangent_memory_helpers(&mut self, pullbacks: &rules::Pullbacks) {
        use rules::memcalls::MemCall;
        let reallocs = rules::chosen(pullbacks).any(|(_, p)| matches!(p, Pullback::Memory(MemCall::Realloc(_))));
        if reallocs && self.memory_helpers.insert(MemoryHelper::MovingShadow) {
            self.output.push(memory::shadow_realloc_moving(&self.namespace));
        }
        if rules::chosen(pullbacks).any(|(_, p)| matches!(p, Pullback::Memory(MemCall::AlignedAllocation))) {
            self.add_shadow_aligned();
        }
        self.add_sort_helpers(pullbacks, false);
    }

    /// The helpers of the sorts among `pullbacks`: the permutation of each kind of sort, the
    /// move by it, and (`reverse`) the move back.
    fn add_sort_helpers(&mut self, pullbacks: &rules::Pullbacks, reverse: bool) {
        for (_, pullback) in rules::chosen(pullbacks) {
            let Pullback::Sort(kind) = pullback else { continue };
            if self.memory_helpers.insert(MemoryHelper::SortPermutation(*kind)) {
                self.output.push(rules::sorts::sort_permutation(&self.namespace, *kind));
            }
            if self.memory_helpers.insert(MemoryHelper::Permute) {
                self.output.push(rules::sorts::permute(&self.namespace));
            }
            if reverse && self.memory_helpers.insert(MemoryHelper::Unpermute) {
                self.output.push(rules::sorts::unpermute(&self.namespace));
            }
        }
    }

    /// The helper the primal calls for an aligned allocation's shadow, added once.
    fn add_shadow_aligned(&mut self) {
        if self.memory_helpers.insert(MemoryHelper::AlignedShadow) {
            self.output.push(memory::shadow_aligned(&self.namespace));
        }
    }

    /// The calls through pointers to functions no dispatcher knows (`Pullback::UnknownCallee`),
    /// each with the helper that stops the program there and says why.
    pub(crate) fn add_unknown_callee_stops(&mut self, func: &Function, pullbacks: &rules::Pullbacks) -> Vec<(Inst, String)> {
        let calls: Vec<Inst> =
            rules::chosen(pullbacks).filter(|(_, p)| matches!(p, Pullback::UnknownCallee)).map(|(i, _)| i).collect();
        calls
            .into_iter()
            .map(|inst| {
                let site = self.conventions.indirect.sites.get(&func.name).cloned().unwrap_or_else(|| func.name.clone());
                let message = format!(
                    "zyg: runtime error: {site}: a call through a function pointer reached a function zyg did not differentiate. \
                     zyg differentiates such a call when the pointer is one of the module's functions of its type \
                     whose address the program takes; this one came from elsewhere (another file or a library). \
                     Link the IR of the function it points to into the module (llvm-link), or make the call \
                     inactive.\n"
                );
                (inst, self.abort_helper_for(message))
            })
            .collect()
    }

    /// The helper that prints `message` and stops the program, added once per message.
    pub(crate) fn abort_helper_for(&mut self, message: String) -> String {
        if let Some(name) = self.abort_helpers.get(&message) {
            return name.clone();
        }
        let name = format!("__{}_lost_derivative{}", self.namespace, self.abort_helpers.len());
        self.output.push(shadows::abort_helper(name.clone(), &message, self.gpu));
        self.abort_helpers.insert(message, name.clone());
        name
    }

    /// The stores through nullable shadows the primal checks (`shadows::lossy_stores`), with
    /// the helper that stops the program at each (one per message).
    pub(crate) fn add_lossy_store_checks(
        &mut self,
        func: &Function,
        activity: &Activity,
        nullable: &EntitySet<Value>,
    ) -> Vec<(Inst, String)> {
        let mut out = Vec::new();
        for inst in shadows::lossy_stores(func, activity, nullable) {
            let message = shadows::lossy_store_message(func, inst);
            out.push((inst, self.abort_helper_for(message)));
        }
        out
    }
}

/// Phase "inlining policy". Inlined into their caller (the gradient, or the caller's primal and adjoint, which
/// end up in one function in turn), a primal and its adjoint pass the tape record in
/// registers: SROA dissolves it. LLVM's inliner judges each call alone and leaves the
/// pair out once it is past its threshold (the BA benchmark's camera projection:
/// 10.4x the primal's time, 7.4x inlined); small ones are marked alwaysinline. Not
/// recursive ones (their tape is boxed), nor tapes that hold shadow memory, and only
/// leaves (no differentiated callees of their own): forced inlining through a chain
/// of callees could multiply the code by the calls at each level.
pub(crate) fn inlining_policy(leaf: bool, primal: &mut Function, adjoint: &mut Function) {
    if !leaf {
        return;
    }
    for f in [primal, adjoint] {
        if f.inst_order().count() <= INLINE_LIMIT {
            f.attributes.push("alwaysinline".into());
        }
    }
}

/// A phase's output, checked by `zyg_ir::verify` (always: it costs little beside LLVM's own
/// passes). A phase that breaks SSA or types is reported here, naming the phase and the
/// instruction, instead of as an LLVM verifier error (or a crash in the writer) later.
pub(crate) fn verified(f: Function, phase: &str) -> Result<Function, TransformError> {
    match zyg_ir::verify(&f) {
        Ok(()) => Ok(f),
        Err(e) => Err(TransformError::in_function(&f, format!("internal error: the {phase} phase wrote invalid IR: {e}"))),
    }
}

/// The shadow of global variable `name`: it accumulates the gradient with respect to the
/// global's value, as a `dup` argument's shadow does. A C program can read it by declaring
/// `extern double __zyg_shadow_NAME[...]` with the global's type.
pub fn shadow_global_name(name: &str) -> String {
    format!("__zyg_shadow_{name}")
}

/// The address of the shadow of global variable `global`, in the global's address space
/// (a shared-memory array's shadow is shared memory too).
pub fn shadow_global(global: &Constant) -> Option<Constant> {
    match global {
        Constant::Global(name, space) => Some(Constant::Global(shadow_global_name(name), *space)),
        _ => None,
    }
}

/// The shadow of global variable `global`, a pointer operand of a function being
/// differentiated: its shadow global, or for dynamic shared memory, which has none, the
/// address computed at `c` (`gpu::dynamic_shadow`).
pub(crate) fn global_shadow(module: &Module, c: &mut builder::Cursor, global: &Constant) -> Option<Value> {
    match global {
        Constant::Global(name, _) if module.globals.get(name).is_some_and(|g| g.is_dynamic_shared()) => {
            Some(crate::gpu::dynamic_shadow(module, c))
        }
        _ => shadow_global(global).map(|shadow| c.constant(shadow)),
    }
}

/// `() -> i64`, the byte size of a generated tape (for calls that allocate it).
pub(crate) fn tape_size_function(g: &Generated) -> Function {
    let mut f = Function::new(g.tape_size.clone(), Signature::new(vec![], Type::I64));
    f.linkage = Linkage::Internal;
    f.attributes = vec!["alwaysinline".into()];
    let entry = f.create_block(Some("entry".into()));
    let mut c = builder::Cursor::at_end(&mut f, entry);
    let size = c.size_of(&g.tape_ty);
    c.ret(Some(size));
    f
}
