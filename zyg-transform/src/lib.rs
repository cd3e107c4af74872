//! zyg-transform: reverse-mode AD of zyg-ir functions, after Innes 2018, "Don't Unroll
//! Adjoint: Differentiating SSA-Form Programs".
//!
//! For each function and choice of active parameters, zyg generates a *primal*
//! `f.zyg.primal.<mask>(args..., ptr tape)` that computes `f` and records what the adjoint
//! needs, and an *adjoint* `f.zyg.adjoint.<mask>(ptr tape[, dret])` that returns the gradients
//! of the active parameters. A *gradient* function `f.zyg.grad.<mask>(args...)` puts them
//! together with the tape on its stack, seeding the result's adjoint with 1.

pub mod activity;
mod alphas;
pub mod addresses;
pub mod adjoint;
pub mod builder;
pub mod conventions;
pub mod custom;
mod entries;
pub mod error;
pub mod floatbits;
pub mod gather;
pub mod gpu;
mod helpers;
mod exports;
mod requests;
pub mod memory;
pub mod memtypes;
pub mod primal;
pub mod rules;
pub mod shadows;
mod spec;
pub mod stack;
pub mod recompute;
pub mod specialize;
pub mod tape;
pub mod types;
pub mod wrap;

use activity::Activity;
pub use error::TransformError;
pub use helpers::{shadow_global, shadow_global_name};
use helpers::{inlining_policy, tape_size_function, verified};
pub use exports::{export_wrapper, kernel_export_wrapper, store_gradients_wrapper};
pub use requests::{globals_reached, normalize, request_target, GlobalInit, NewGlobal, Output};
pub use wrap::ResultSeed;
pub use spec::{ArgActivity, Entry, Generated, Gradient, Spec};
use spec::primal_signature;
use rules::E;
use std::collections::{BTreeMap, HashMap};
use std::collections::HashSet;
use tape::TapeLayout;
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{Block, Callee, Function, Inst, InstKind, Module, Signature, Type, Value};

/// How an active instruction's adjoint is computed.
pub enum Pullback {
    /// A table rule: one adjoint expression per operand (call arguments for calls).
    Rule(Vec<Option<E>>),
    /// A differentiated callee: its own adjoint, fed its tape.
    Callee(Box<Generated>),
    /// `shadow(ptr) += adjoint`.
    Load,
    /// `adjoint(value) += shadow(ptr); shadow(ptr) = 0`.
    Store,
    /// extractelement, insertelement, shufflevector: adjoints move between lanes.
    Lanes,
    /// extractvalue, insertvalue: adjoints move between a struct or array and its fields.
    Aggregate,
    /// `llvm.vector.reduce.fadd(start, v)`: the adjoint goes to `start` and every lane.
    ReduceFAdd,
    /// `llvm.vector.reduce.fmax/fmin/fmaximum/fminimum(v)`: the adjoint goes to the first
    /// lane that holds the result.
    ReduceMinMax,
    /// `llvm.masked.load(ptr, mask, passthru)` and `llvm.masked.store(value, ptr, mask)`
    /// (clang's vectorised conditionals with AVX): load and store, lane by lane under the
    /// mask; a masked-off lane of a load takes `passthru`.
    MaskedLoad,
    MaskedStore,
    /// `llvm.masked.gather(ptrs, mask, passthru)` and `llvm.masked.scatter(value, ptrs,
    /// mask)`: loads and stores through a vector of pointers, lane by lane (`gather`).
    Gather,
    Scatter,
    /// `llvm.vector.reduce.fmul(start, v)`: each factor gets the product of the others.
    ReduceFMul,
    /// `malloc` and friends: the adjoint frees the shadow allocated beside the memory.
    Allocation,
    /// A derivative the user registered for the callee.
    Custom(Box<custom::CustomRule>),
    /// A GPU barrier: the adjoint waits at the same point, in reverse order, so that one
    /// thread's shadow updates are seen by the others as the primal's stores were.
    Barrier,
    /// `memset`: the shadow of the bytes set is zeroed.
    MemSet,
    /// `memcpy`/`memmove`: the destination's adjoint goes back to the source through the
    /// float bytes (when the source is differentiated memory) and is zeroed; the primal
    /// copies the shadows of pointer bytes (`memory::CopyPlan`).
    MemCopy(memory::CopyPlan),
    /// `realloc` of memory holding this float type: the new shadow's adjoint goes back to
    /// the old shadow, and the new shadow is freed (`memory::is_realloc`).
    Realloc(zyg_ir::FloatTy),
    Phi,
}

impl Pullback {
    /// Pullbacks whose only input is the result's adjoint: with an inactive result they do
    /// nothing.
    fn only_moves_the_result(&self) -> bool {
        matches!(
            self,
            Pullback::Rule(_)
                | Pullback::Aggregate
                | Pullback::Lanes
                | Pullback::ReduceFAdd
                | Pullback::ReduceMinMax
                | Pullback::ReduceFMul
                | Pullback::MaskedLoad
                | Pullback::Gather
        )
    }
}

/// Everything the primal and adjoint builders need to know about one function.
pub struct Plan<'a> {
    pub module: &'a Module,
    /// The program's own declarations: inactive calls, custom allocators...
    pub conventions: &'a conventions::Conventions,
    /// Prefix of generated names (`zyg`, or `zyg1`... when a module already has some).
    pub namespace: String,
    pub func: &'a Function,
    pub args: Vec<ArgActivity>,
    pub activity: Activity,
    pub cfg: ControlFlowGraph,
    pub loops: LoopAnalysis,
    /// What the adjoint rebuilds instead of reading from the tape.
    pub recompute: recompute::Recompute,
    /// On a GPU: the pointers only the running thread touches (`gpu`); shadow updates
    /// through any other pointer are atomic. None on a CPU.
    pub thread_private: Option<HashSet<Value>>,
    pub layout: TapeLayout,
    /// The pointers whose shadows may be null at run time (`shadows`).
    pub nullable: HashSet<Value>,
    /// The stores through nullable shadows that the primal checks (`shadows::lossy_stores`),
    /// with the helper that stops the program where the shadow is null.
    pub lossy_stores: Vec<(Inst, String)>,
    pub block_of: HashMap<Inst, Block>,
    pub pullbacks: HashMap<Inst, Pullback>,
    /// The helpers of copies of mixed fields (`memory::CopyPlan::Fields`), by instruction:
    /// the index in their names (`memory::field_adjoint_name`).
    pub copy_layouts: HashMap<Inst, usize>,
    pub callees: BTreeMap<Inst, Generated>,
    pub returns: Vec<Block>,
}

/// The operands a rule's `x(i)` refers to: call arguments for calls, operands otherwise.
pub fn rule_operands(kind: &InstKind) -> Vec<Value> {
    match kind {
        InstKind::Call { args, .. } => args.clone(),
        _ => kind.operands(),
    }
}

/// Generates gradients for a module, sharing primals and adjoints between requests.
pub struct Differentiator<'m> {
    module: &'m Module,
    generated: HashMap<Spec, Generated>,
    gradients: HashMap<(Spec, Entry), Gradient>,
    /// Global variables whose shadows the generated code uses: type and address space.
    shadow_globals: BTreeMap<String, zyg_ir::GlobalVar>,
    in_progress: Vec<Spec>,
    output: Vec<Function>,
    namespace: String,
    /// Float types whose memcpy adjoint helper is already in `output`.
    copy_helpers: HashSet<zyg_ir::FloatTy>,
    /// Layouts of copies of mixed fields whose helpers are in `output`, with their index.
    field_layouts: HashMap<std::sync::Arc<memtypes::CopyLayout>, usize>,
    /// The realloc helpers already in `output`: `None` for the shadow realloc, `Some` for
    /// an adjoint per float type.
    realloc_helpers: HashSet<Option<zyg_ir::FloatTy>>,
    /// The helpers that stop a program at a store a null shadow would lose
    /// (`shadows::abort_helper`), by message.
    abort_helpers: HashMap<String, String>,
    /// Specs some call reached recursively: they also get a `tapesize` function.
    boxed: HashSet<Spec>,
    /// Derivatives registered by the user, by function name.
    custom: HashMap<String, custom::CustomRule>,
    /// What the program declares about its functions and globals (`conventions`).
    conventions: conventions::Conventions,
    /// Generating GPU code: atomic shadow updates, tapes without thread-local caches.
    gpu: bool,
    /// What activity analysis needs to know about the whole module.
    facts: activity::ModuleFacts,
}

impl<'m> Differentiator<'m> {
    /// `namespace` prefixes every generated name (`f.<namespace>.grad.<mask>`,
    /// `__<namespace>_stack_push`), so that zyg can run again on its own output.
    pub fn new(module: &'m Module, namespace: &str) -> Self {
        Differentiator {
            namespace: namespace.to_string(),
            copy_helpers: HashSet::new(),
            field_layouts: HashMap::new(),
            realloc_helpers: HashSet::new(),
            abort_helpers: HashMap::new(),
            boxed: HashSet::new(),
            custom: HashMap::new(),
            conventions: conventions::Conventions::default(),
            module,
            generated: HashMap::new(),
            gradients: HashMap::new(),
            shadow_globals: BTreeMap::new(),
            in_progress: Vec::new(),
            output: stack::helpers(namespace, false),
            gpu: false,
            facts: activity::ModuleFacts::compute(module, &conventions::Conventions::default()),
        }
    }

    /// For GPU modules (NVPTX): shadow updates that other threads may make too are atomic
    /// (`gpu`), and tape stacks take memory from `malloc` without a thread-local cache.
    pub fn for_gpu(mut self) -> Self {
        self.gpu = true;
        let helpers = stack::helpers(&self.namespace, true);
        let names: HashSet<String> = helpers.iter().map(|f| f.name.clone()).collect();
        self.output.retain(|f| !names.contains(&f.name));
        self.output.splice(0..0, helpers);
        self
    }

    /// Registers user derivatives: calls to their functions use them instead of
    /// differentiating the body.
    pub fn set_custom_rules(&mut self, rules: impl IntoIterator<Item = custom::CustomRule>) {
        self.custom.extend(rules.into_iter().map(|r| (r.function.clone(), r)));
    }

    /// Sets the program's conventions: inactive functions, function-like functions, custom
    /// allocators. (Inactive globals are marked in the module itself.)
    pub fn set_conventions(&mut self, conventions: conventions::Conventions) {
        // Custom allocators change which functions return memory of their own.
        self.facts = activity::ModuleFacts::compute(self.module, &conventions);
        self.conventions = conventions;
    }

    /// The generated functions, callees first, and the globals they use (`Output`).
    pub fn finish(self) -> Output {
        Output::new(self.output, &self.shadow_globals, &self.namespace, self.gpu)
    }

    /// The gradient function for `spec`, generating it on first request.
    pub fn gradient(&mut self, spec: &Spec) -> Result<Gradient, TransformError> {
        self.entry(spec, Entry::Gradient)
    }

    fn function(&self, name: &str) -> Result<&'m Function, TransformError> {
        self.module.function(name).ok_or_else(|| TransformError {
            diagnostic: zyg_ir::Diagnostic {
                function: name.to_string(),
                instruction: None,
                loc: None,
                message: "zyg needs the body of this function to differentiate it".into(),
            },
            callee: Some(name.to_string()),
        })
    }

    /// The primal and adjoint for `spec` (and, first, for every callee they need).
    fn ensure(&mut self, spec: &Spec) -> Result<Generated, TransformError> {
        if let Some(g) = self.generated.get(spec) {
            return Ok(g.clone());
        }
        let func = self.function(&spec.function)?;
        if self.in_progress.contains(spec) {
            // Recursion: the tape's type is not known yet, so this call boxes it.
            self.boxed.insert(spec.clone());
            return Ok(self.declared(func, spec, Type::PTR, true));
        }
        if func.sig.variadic {
            return Err(TransformError::in_function(
                func,
                "zyg cannot differentiate a variadic function (`...`, read with va_arg) yet; give it a fixed \
                 parameter list, or pass the values in an array",
            ));
        }
        if func.params.len() != spec.args.len() {
            return Err(TransformError::in_function(func, "the request's argument count does not match the function"));
        }
        for (p, arg) in func.params.iter().zip(&spec.args) {
            let ty = func.ty(*p);
            let fits = match arg {
                ArgActivity::Active => ty.is_float(),
                ArgActivity::Dup => ty.is_ptr(),
                ArgActivity::Const => true,
            };
            if !fits {
                return Err(TransformError::in_function(
                    func,
                    format!("parameter {p} of type {ty} cannot be a `{arg:?}` argument"),
                ));
            }
        }
        self.in_progress.push(spec.clone());
        let result = self.generate(func, spec);
        self.in_progress.pop();
        let generated = result?;
        if self.boxed.contains(spec) || generated.boxed {
            self.output.push(tape_size_function(&generated));
        }
        self.generated.insert(spec.clone(), generated.clone());
        Ok(generated)
    }

    /// Names and signatures of `spec`'s primal and adjoint, which do not depend on its body.
    fn declared(&self, func: &Function, spec: &Spec, tape_ty: Type, boxed: bool) -> Generated {
        let suffix = spec.suffix();
        let name = |part: &str| format!("{}.{}.{part}.{suffix}", func.name, self.namespace);
        let grads: Vec<Type> = func
            .params
            .iter()
            .zip(&spec.args)
            .filter(|(_, a)| **a == ArgActivity::Active)
            .map(|(p, _)| func.ty(*p).clone())
            .collect();
        let mut adjoint_params = vec![Type::PTR];
        if func.sig.ret.carries_derivative() {
            adjoint_params.push(func.sig.ret.clone());
        }
        Generated {
            primal: name("primal"),
            adjoint: name("adjoint"),
            adjoint_sig: Signature::new(adjoint_params, Type::structure(grads)),
            tape_ty,
            args: spec.args.clone(),
            primal_sig: primal_signature(&func.sig, &spec.args),
            boxed,
            tape_size: name("tapesize"),
        }
    }

    /// Differentiates `func` for `spec`: the transform as a script of phases, each a function
    /// of its own (docs/ARCHITECTURE.md lists where each lives).
    fn generate(&mut self, func: &'m Function, spec: &Spec) -> Result<Generated, TransformError> {
        tracing::debug!(function = %func.name, mask = %spec.suffix(), "differentiating");
        // Analyses: activity (which values carry derivatives, which pointers have shadows),
        // the shadows that may be null, and the control flow.
        let activity = Activity::analyze_with(&self.facts, &self.conventions, self.module, func, &spec.args)?;
        self.add_shadow_globals(func, &activity);
        let nullable = shadows::nullable(func, &activity, &spec.args, spec.shadows_may_be_null);
        let cfg = ControlFlowGraph::compute(func);
        let loops = LoopAnalysis::compute(func, &cfg, &DominatorTree::compute(func, &cfg));
        // Pullback choice, then the alphas each pullback reads from the primal.
        let (order, pullbacks) = self.choose_pullbacks(func, &cfg, &activity, &nullable)?;
        let mut needs = alphas::tape_needs(func, &activity, &order, &pullbacks);
        // Recompute plan and tape layout: what the adjoint rebuilds, and where the rest goes.
        let returns = tape::return_blocks(func, &cfg);
        let block_of = tape::inst_blocks(func);
        let recompute = recompute::plan(func, &cfg, &loops, &returns, &block_of, &activity, &mut needs);
        needs.inline_chunks = self.gpu;
        let layout = TapeLayout::build(func, &cfg, &loops, &needs, &returns);
        let copy_layouts = self.add_memory_helpers(&pullbacks);
        let lossy_stores = self.add_lossy_store_checks(func, &activity, &nullable);
        let callees = pullbacks
            .iter()
            .filter_map(|(inst, pb)| match pb {
                Pullback::Callee(g) => Some((*inst, (**g).clone())),
                _ => None,
            })
            .collect();
        let plan = Plan {
            module: self.module,
            conventions: &self.conventions,
            namespace: self.namespace.clone(),
            func,
            args: spec.args.clone(),
            activity,
            cfg,
            loops,
            block_of,
            layout,
            nullable,
            lossy_stores,
            recompute,
            thread_private: self.gpu.then(|| gpu::thread_private_pointers(func)),
            pullbacks,
            copy_layouts,
            callees,
            returns,
        };
        // A tape holding shadow memory (of stack arrays), or stacks whose first chunk is
        // inside it (GPU), also holds pointers into itself, so it must not move: callers
        // box it on the heap instead of copying it into their own tape.
        let pinned = !plan.layout.shadow_memory.is_empty() || (plan.layout.inline_chunks && !plan.layout.stacks().is_empty());
        let generated = self.declared(func, spec, plan.layout.tape_ty.clone(), pinned);
        // The primal, then the adjoint over the reversed CFG, then the inlining policy.
        let mut primal = primal::build(&plan, &generated.primal);
        let mut adjoint = adjoint::build(&plan, &generated.adjoint, generated.adjoint_sig.clone())?;
        let leaf = !pinned && !self.boxed.contains(spec) && plan.callees.is_empty();
        inlining_policy(leaf, &mut primal, &mut adjoint);
        self.output.push(verified(primal, "primal")?);
        self.output.push(verified(adjoint, "adjoint")?);
        Ok(generated)
    }

    /// Phase "pullback choice": a pullback for every active instruction, in reverse
    /// postorder of the blocks (the order the alphas and the tape follow).
    fn choose_pullbacks(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        activity: &Activity,
        nullable: &HashSet<Value>,
    ) -> Result<(Vec<Inst>, HashMap<Inst, Pullback>), TransformError> {
        let (mut order, mut pullbacks) = (Vec::new(), HashMap::new());
        for &b in cfg.reverse_postorder() {
            for &inst in &func.blocks[b].insts {
                if !activity.is_active_inst(func, inst) {
                    continue;
                }
                let pullback = self.pullback(func, inst, activity, nullable)?;
                if pullback.only_moves_the_result() && !func.result(inst).is_some_and(|v| activity.is_active(v)) {
                    // Active arguments (a call is active when one is), but the result is not
                    // useful: no adjoint comes back through it.
                    continue;
                }
                order.push(inst);
                pullbacks.insert(inst, pullback);
            }
        }
        Ok((order, pullbacks))
    }

    /// The index of a mixed-field copy layout's helpers, adding them on first use.
    fn field_helpers(&mut self, layout: &std::sync::Arc<memtypes::CopyLayout>) -> usize {
        if let Some(k) = self.field_layouts.get(layout) {
            return *k;
        }
        let k = self.field_layouts.len();
        self.field_layouts.insert(layout.clone(), k);
        self.output.push(memory::field_adjoint(memory::field_adjoint_name(&self.namespace, k), layout));
        self.output.push(memory::field_shadows(memory::field_shadows_name(&self.namespace, k), layout));
        k
    }

    /// Rules before decomposition: a known rule for a call wins; otherwise differentiate
    /// through the callee; otherwise a clear error naming the construct.
    fn pullback(
        &mut self,
        func: &Function,
        inst: Inst,
        activity: &Activity,
        nullable: &HashSet<Value>,
    ) -> Result<Pullback, TransformError> {
        let kind = &func.insts[inst].kind;
        match kind {
            InstKind::Phi { .. } => Ok(Pullback::Phi),
            InstKind::Call { callee: Callee::Direct(name), sig, .. } if self.custom.contains_key(&**name) => {
                let rule = self.custom[&**name].clone();
                let (reverse, reverse_sig) = rule.reverse();
                let expected = rule.expected_reverse_params(&sig.params, &sig.ret);
                if reverse_sig.params.len() != expected {
                    return Err(TransformError::at(
                        func,
                        inst,
                        format!(
                            "the registered derivative `{reverse}` of `{name}` takes {} parameters, but zyg passes {expected} \
                             (the arguments, a shadow after each pointer, the result's adjoint when it returns a float{})",
                            reverse_sig.params.len(),
                            if rule.has_tape() { ", the tape" } else { "" }
                        ),
                    ));
                }
                Ok(Pullback::Custom(Box::new(rule)))
            }
            InstKind::Load { .. } => Ok(Pullback::Load),
            InstKind::Store { .. } => Ok(Pullback::Store),
            InstKind::ExtractElement { .. } | InstKind::InsertElement { .. } | InstKind::ShuffleVector { .. } => {
                Ok(Pullback::Lanes)
            }
            InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => Ok(Pullback::Aggregate),
            kind if memory::is_realloc(kind) => {
                Ok(Pullback::Realloc(memory::element_type(func, inst, &|v| activity.has_shadow(v))?))
            }
            kind if self.conventions.is_allocation(kind) => Ok(Pullback::Allocation),
            kind if memory::mem_op(kind).is_some() => {
                let Some((op, dst, src, _)) = memory::mem_op(kind) else { unreachable!("checked") };
                if !activity.has_shadow(dst) {
                    return Err(TransformError::at(
                        func,
                        inst,
                        "differentiated memory is copied into memory zyg cannot trace; that is not supported yet",
                    ));
                }
                match op {
                    memory::MemOp::Set => Ok(Pullback::MemSet),
                    memory::MemOp::Copy if activity.has_shadow(src) => {
                        Ok(Pullback::MemCopy(memory::copy_plan(&self.facts.memory, func, inst)?))
                    }
                    // A copy of constant memory only overwrites: its adjoint is a memset; the
                    // pointers it copies point to memory that is not differentiated, so their
                    // shadows (in the primal) are null.
                    memory::MemOp::Copy => match memory::copy_plan(&self.facts.memory, func, inst) {
                        Ok(plan) if plan.copies_shadows() => Ok(Pullback::MemCopy(plan)),
                        _ => Ok(Pullback::MemSet),
                    },
                }
            }
            InstKind::Call { callee: Callee::Direct(name), .. } if activity::is_barrier(name) => Ok(Pullback::Barrier),
            InstKind::Call { callee: Callee::Direct(name), args, .. } if intrinsic_pullback(name, args.len()).is_some() => {
                Ok(intrinsic_pullback(name, args.len()).expect("checked"))
            }
            InstKind::Call { callee: Callee::Direct(name), args, .. } => {
                if let Some(rule) = self.conventions.math_rule(name) {
                    if rule.arity == args.len() {
                        return Ok(Pullback::Rule((rule.adjoints)()));
                    }
                }
                if self.module.function(name).is_some() {
                    let shadows_may_be_null = args.iter().any(|a| activity.has_shadow(*a) && nullable.contains(a));
                    let spec = Spec {
                        shadows_may_be_null,
                        function: name.to_string(),
                        args: args
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
                            .collect(),
                    };
                    return Ok(Pullback::Callee(Box::new(self.ensure(&spec)?)));
                }
                Err(TransformError::at(func, inst, unknown_callee_message(func, inst, name, activity)))
            }
            InstKind::Call { .. } => Err(TransformError::at(
                func,
                inst,
                format!(
                    "indirect calls on active values are not differentiated yet ({}); call the function directly, \
                     or pass it to the gradient request as a `const` argument so zyg can specialise to it",
                    active_call_parts(func, inst, activity)
                ),
            )),
            _ => rules::instructions::adjoints(kind).map(Pullback::Rule).ok_or_else(|| {
                TransformError::at(func, inst, format!("zyg cannot differentiate `{}` yet", kind.opcode_name()))
            }),
        }
    }
}

/// An intrinsic with a pullback of its own: name prefix, argument count, pullback.
type IntrinsicPullback = (&'static str, usize, fn() -> Pullback);

const INTRINSIC_PULLBACKS: &[IntrinsicPullback] = &[
    ("llvm.vector.reduce.fadd.", 2, || Pullback::ReduceFAdd),
    ("llvm.vector.reduce.fmul.", 2, || Pullback::ReduceFMul),
    ("llvm.vector.reduce.fmax.", 1, || Pullback::ReduceMinMax),
    ("llvm.vector.reduce.fmin.", 1, || Pullback::ReduceMinMax),
    ("llvm.vector.reduce.fmaximum.", 1, || Pullback::ReduceMinMax),
    ("llvm.vector.reduce.fminimum.", 1, || Pullback::ReduceMinMax),
    ("llvm.masked.load.", 3, || Pullback::MaskedLoad),
    ("llvm.masked.store.", 3, || Pullback::MaskedStore),
    ("llvm.masked.gather.", 3, || Pullback::Gather),
    ("llvm.masked.scatter.", 3, || Pullback::Scatter),
];

/// The pullback of intrinsic `name` called with `arity` arguments, if it has its own.
fn intrinsic_pullback(name: &str, arity: usize) -> Option<Pullback> {
    INTRINSIC_PULLBACKS.iter().find(|(prefix, n, _)| name.starts_with(prefix) && *n == arity).map(|(_, _, make)| make())
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
fn unknown_callee_message(func: &Function, inst: Inst, name: &str, activity: &Activity) -> String {
    let parts = active_call_parts(func, inst, activity);
    if name.contains("__enzyme_") || name.contains("__zyg_") {
        return format!(
            "a gradient request inside a function being differentiated (a nested derivative: `{name}`, and {parts}) \
             is not supported yet"
        );
    }
    if is_c_math_function(name) {
        return format!(
            "no derivative is known for `{name}`: zyg has no rule for this C library function yet, and {parts}. \
             Register a derivative for it (`__zyg_pullback_{name}`, see README)"
        );
    }
    format!(
        "no derivative is known for `{name}`: it has no body in this module and no rule, and {parts}. \
         Compile its definition into this module, or register a derivative for it (`__zyg_pullback_{name}`, see \
         README); only if it truly cannot change the result (a logging function), declare it inactive \
         (`void *__enzyme_inactivefn[] = {{(void *){name}}};`)"
    )
}

/// C library math functions zyg has no rule for (declaring one inactive would silently
/// give a wrong derivative, so the message does not suggest it).
fn is_c_math_function(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "lgamma", "tgamma", "gamma", "asinh", "acosh", "atanh", "j0", "j1", "jn", "y0", "y1", "yn", "erfinv", "frexp",
        "ldexp", "scalbn", "scalbln", "modf", "remquo", "remainder", "nextafter", "nexttoward", "fdim", "logb", "sincos",
        "exp10", "pow10", "lgamma_r", "significand", "cexpf", "cexpl", "clogf", "clogl", "csqrt", "cpow", "csin", "ccos",
        "ctan", "csinh", "ccosh", "ctanh", "casin", "cacos", "catan", "cproj", "cimag", "creal", "conj",
    ];
    let base = name.strip_suffix('f').filter(|b| NAMES.contains(b)).or_else(|| name.strip_suffix('l').filter(|b| NAMES.contains(b)));
    NAMES.contains(&name) || base.is_some()
}

