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
pub mod error;
pub mod floatbits;
pub mod gather;
pub mod gpu;
pub mod memory;
pub mod memtypes;
pub mod primal;
pub mod rules;
pub mod shadows;
pub mod stack;
pub mod recompute;
pub mod specialize;
pub mod tape;
pub mod types;
pub mod wrap;

use activity::Activity;
pub use error::TransformError;
pub use rules::Pullback;
use std::collections::{BTreeMap, HashMap};
use std::collections::HashSet;
use tape::TapeLayout;
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{Block, Constant, Function, Inst, Linkage, Module, Signature, Type, Value};

/// Generated primals and adjoints of at most this many instructions are marked
/// `alwaysinline` (see `Differentiator::generate`).
const INLINE_LIMIT: usize = 1000;

/// How a parameter takes part (Enzyme's markers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgActivity {
    /// No derivative.
    Const,
    /// A floating-point value whose gradient is returned (`out`).
    Active,
    /// A pointer with a shadow of the same shape that accumulates the gradient (`dup`).
    Dup,
}

impl ArgActivity {
    /// The word of the command line's `--args` and of MLIR's `zyg.args`: `out` (or `active`),
    /// `const`, `dup`, and `dupnoneed`, which is `dup` (zyg always computes the primal result).
    pub fn parse(word: &str) -> Option<ArgActivity> {
        Some(match word {
            "out" | "active" => ArgActivity::Active,
            "const" => ArgActivity::Const,
            "dup" | "dupnoneed" => ArgActivity::Dup,
            _ => return None,
        })
    }
}

/// A function to differentiate and how each of its parameters takes part.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    pub function: String,
    pub args: Vec<ArgActivity>,
    /// The shadows given for `dup` parameters may be null (memory that is not
    /// differentiated, `shadows`): a callee called with such a shadow. Requests give
    /// shadows the caller owns, which must not be null.
    pub shadows_may_be_null: bool,
}

impl Spec {
    /// A request's spec: `dup` shadows are the caller's own, never null.
    pub fn new(function: impl Into<String>, args: Vec<ArgActivity>) -> Spec {
        Spec { function: function.into(), args, shadows_may_be_null: false }
    }

    fn suffix(&self) -> String {
        let mut suffix: String = self
            .args
            .iter()
            .map(|a| match a {
                ArgActivity::Const => 'c',
                ArgActivity::Active => 'a',
                ArgActivity::Dup => 'd',
            })
            .collect();
        if self.shadows_may_be_null {
            suffix.push('n');
        }
        suffix
    }
}

/// The primal's signature: the function's parameters, a shadow pointer for each `dup`
/// one, then the tape.
fn primal_signature(sig: &Signature, args: &[ArgActivity]) -> Signature {
    let mut primal = sig.clone();
    // A shadow has its parameter's type (a pointer into shared memory has a shared shadow).
    primal.params.extend(sig.params.iter().zip(args).filter(|(_, a)| **a == ArgActivity::Dup).map(|(t, _)| t.clone()));
    if sig.ret.is_ptr() {
        primal.params.push(Type::PTR);
    }
    primal.params.push(Type::PTR);
    primal
}

/// The primal's parameters: the function's, then a shadow for each `dup` one, then (when it
/// returns a pointer) where to write the returned pointer's shadow, then the tape.
#[derive(Clone, Debug)]
pub struct Generated {
    pub primal: String,
    pub adjoint: String,
    pub adjoint_sig: Signature,
    pub tape_ty: Type,
    pub args: Vec<ArgActivity>,
    /// The primal's signature (see `primal_signature`).
    pub primal_sig: Signature,
    /// Calls into a function still being generated (recursion) keep its tape on the heap:
    /// `tape_ty` is then a pointer, allocated with `tape_size()` bytes before the call and
    /// freed after the adjoint's call, one tape per activation.
    pub boxed: bool,
    /// `() -> i64`: the size of the tape, for boxed calls.
    pub tape_size: String,
}

/// The entry points a request can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// `(args) -> gradients`: primal and adjoint in one call, the result's adjoint seeded 1.
    Gradient,
    /// Split mode, forward: `(args) -> tape` or `{ tape, result }`; the tape is on the heap.
    Augmented,
    /// Split mode, reverse: `(args, [result's adjoint], tape) -> gradients`; frees the tape.
    Reverse,
}

/// A generated gradient function: `name(args...) -> { gradients of the active params }`,
/// where each `dup` parameter is followed by its shadow.
#[derive(Clone, Debug)]
pub struct Gradient {
    pub name: String,
    pub sig: Signature,
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
    pub pullbacks: rules::Pullbacks,
    /// The helpers of copies of mixed fields (`memory::CopyPlan::Fields`), by instruction:
    /// the index in their names (`memory::field_adjoint_name`).
    pub copy_layouts: HashMap<Inst, usize>,
    pub callees: BTreeMap<Inst, Generated>,
    pub returns: Vec<Block>,
}

/// Phase "inlining policy". Inlined into their caller (the gradient, or the caller's primal and adjoint, which
/// end up in one function in turn), a primal and its adjoint pass the tape record in
/// registers: SROA dissolves it. LLVM's inliner judges each call alone and leaves the
/// pair out once it is past its threshold (the BA benchmark's camera projection:
/// 10.4x the primal's time, 7.4x inlined); small ones are marked alwaysinline. Not
/// recursive ones (their tape is boxed), nor tapes that hold shadow memory, and only
/// leaves (no differentiated callees of their own): forced inlining through a chain
/// of callees could multiply the code by the calls at each level.
fn inlining_policy(leaf: bool, primal: &mut Function, adjoint: &mut Function) {
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
fn verified(f: Function, phase: &str) -> Result<Function, TransformError> {
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

    /// The shadow globals the generated code refers to (`shadow_global_name`), with their
    /// types and address spaces: the caller defines each, zero-initialised (shared memory:
    /// uninitialised, the gradient zeroes it), unless the module already does.
    pub fn shadow_globals(&self) -> &BTreeMap<String, zyg_ir::GlobalVar> {
        &self.shadow_globals
    }

    /// The generated functions, callees first.
    pub fn finish(self) -> Vec<Function> {
        self.output
    }

    /// The gradient function for `spec`, generating it on first request.
    pub fn gradient(&mut self, spec: &Spec) -> Result<Gradient, TransformError> {
        self.entry(spec, Entry::Gradient)
    }

    /// An entry point for `spec` (see `Entry`), generated on first request.
    pub fn entry(&mut self, spec: &Spec, kind: Entry) -> Result<Gradient, TransformError> {
        if let Some(g) = self.gradients.get(&(spec.clone(), kind)) {
            return Ok(g.clone());
        }
        let generated = self.ensure(spec)?;
        let func = self.function(&spec.function)?;
        let word = match kind {
            Entry::Gradient => "grad",
            Entry::Augmented => "augmented",
            Entry::Reverse => "reverse",
        };
        let name = format!("{}.{}.{word}.{}", spec.function, self.namespace, spec.suffix());
        // Each `dup` parameter is followed by its shadow, as at Enzyme's call sites.
        let mut params = Vec::new();
        for (ty, arg) in func.sig.params.iter().zip(&spec.args) {
            params.push(ty.clone());
            if *arg == ArgActivity::Dup {
                params.push(ty.clone());
            }
        }
        let given = params.len();
        let ret = match kind {
            Entry::Gradient | Entry::Reverse => generated.adjoint_sig.ret.clone(),
            Entry::Augmented if func.sig.ret.is_void() => Type::PTR,
            Entry::Augmented => Type::structure(vec![Type::PTR, func.sig.ret.clone()]),
        };
        if kind == Entry::Reverse {
            params.extend(generated.adjoint_sig.params.get(1).cloned());
            params.push(Type::PTR);
        }
        let sig = Signature::new(params, ret.clone());
        let mut w = Function::new(name.clone(), sig.clone());
        w.linkage = Linkage::Internal;
        let entry = w.create_block(Some("entry".into()));
        let all = w.params.clone();
        let mut c = builder::Cursor::at_end(&mut w, entry);
        let tape = match kind {
            Entry::Gradient => c.alloca(generated.tape_ty.clone()),
            Entry::Augmented => {
                let size = c.size_of(&generated.tape_ty);
                c.call("malloc", Signature::new(vec![Type::I64], Type::PTR), vec![size]).expect("malloc returns")
            }
            Entry::Reverse => *all.last().expect("the tape parameter"),
        };
        if !self.gpu && kind != Entry::Reverse {
            // The shadow of a global holds the gradient with respect to its value on entry to
            // this call: one left from an earlier call would be taken as the seed of what
            // this call stores there. Its pointers stay: they are the shadows of the
            // global's pointers (from its initialiser, or set by the program).
            for name in activity::active_globals_reached(self.module, &spec.function) {
                if let Some(g) = self.shadow_globals.get(&shadow_global_name(&name)) {
                    let shadow = c.constant(Constant::Global(shadow_global_name(&name), g.addrspace));
                    c.zero_keeping_pointers(&g.ty, shadow);
                }
            }
        }
        if self.gpu && kind != Entry::Reverse {
            // Shared memory starts with whatever the block left there: the shadows of the
            // shared arrays this spec uses are zeroed before anything adds into them.
            let shared: Vec<(String, Type)> = gpu::shared_globals_reached(self.module, &spec.function)
                .into_iter()
                .filter_map(|name| self.shadow_globals.get_key_value(&shadow_global_name(&name)))
                .map(|(name, g)| (name.clone(), g.ty.clone()))
                .collect();
            gpu::zero_shared_shadows(&mut c, &shared);
        }
        if kind != Entry::Reverse {
            let (mut args, mut shadows) = (Vec::new(), Vec::new());
            let mut given = all[..given].iter().copied();
            for arg in &spec.args {
                args.extend(given.next());
                if *arg == ArgActivity::Dup {
                    shadows.extend(given.next());
                }
            }
            args.extend(shadows);
            if func.sig.ret.is_ptr() {
                // The returned pointer's shadow: nobody asked for it.
                let slot = c.alloca(Type::PTR);
                args.push(slot);
            }
            args.push(tape);
            let result = c.call(&generated.primal, generated.primal_sig.clone(), args);
            if kind == Entry::Augmented {
                // The tape is opaque to the caller, handed back to the reverse entry.
                let out = match result {
                    Some(r) => {
                        let pair = c.constant(Constant::Poison(ret));
                        let pair = c.insert(pair, tape, 0);
                        c.insert(pair, r, 1)
                    }
                    None => tape,
                };
                c.ret(Some(out));
                return self.finish_entry(spec, kind, w, name, sig);
            }
        }
        let mut adjoint_args = vec![tape];
        match (kind, func.sig.ret.float_ty()) {
            (Entry::Reverse, _) if func.sig.ret.carries_derivative() => adjoint_args.push(all[given]),
            (_, Some(fty)) => adjoint_args.push(c.constant(Constant::float(fty, 1.0))),
            // A struct of floats: no single seed; its outputs count through memory only.
            _ if func.sig.ret.carries_derivative() => {
                adjoint_args.push(c.constant(Constant::Zero(func.sig.ret.clone())))
            }
            _ => {}
        }
        let grads = c.call(&generated.adjoint, generated.adjoint_sig.clone(), adjoint_args);
        if kind == Entry::Reverse {
            c.call("free", Signature::new(vec![Type::PTR], Type::Void), vec![tape]);
        }
        c.ret(grads);
        self.finish_entry(spec, kind, w, name, sig)
    }

    fn finish_entry(&mut self, spec: &Spec, kind: Entry, w: Function, name: String, sig: Signature) -> Result<Gradient, TransformError> {
        self.output.push(verified(w, "entry")?);
        let gradient = Gradient { name, sig };
        self.gradients.insert((spec.clone(), kind), gradient.clone());
        Ok(gradient)
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
        let callees = rules::chosen(&pullbacks)
            .filter_map(|(inst, pb)| match pb {
                Pullback::Callee(g) => Some((inst, (**g).clone())),
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

    /// The shadow globals of the globals `func` uses (and of those their initialisers point at).
    fn add_shadow_globals(&mut self, func: &Function, activity: &Activity) {
        let shadowed = activity.shadowed_globals(func).map(|(_, name)| name.to_string()).collect();
        for name in activity::with_pointed_at(self.module, shadowed) {
            let global = self.module.active_global(&name).expect("only active globals are shadowed");
            self.shadow_globals.insert(shadow_global_name(&name), zyg_ir::GlobalVar { constant: false, ..global.clone() });
        }
    }

    /// The helpers the memory pullbacks call (copies, `realloc`), each added once; returns the
    /// index of each mixed-field copy's helpers (`memory::field_adjoint_name`).
    fn add_memory_helpers(&mut self, pullbacks: &rules::Pullbacks) -> HashMap<Inst, usize> {
        use rules::memcalls::MemCall;
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
            if let MemCall::Realloc(elem) = call {
                if self.realloc_helpers.insert(Some(*elem)) {
                    self.output.push(memory::realloc_adjoint(&self.namespace, *elem));
                }
                if self.realloc_helpers.insert(None) {
                    self.output.push(memory::shadow_realloc(&self.namespace));
                }
            }
        }
        copy_layouts
    }

    /// The stores through nullable shadows the primal checks (`shadows::lossy_stores`), with
    /// the helper that stops the program at each (one per message).
    fn add_lossy_store_checks(&mut self, func: &Function, activity: &Activity, nullable: &HashSet<Value>) -> Vec<(Inst, String)> {
        let mut out = Vec::new();
        for inst in shadows::lossy_stores(func, activity, nullable) {
            let message = shadows::lossy_store_message(func, inst);
            let name = match self.abort_helpers.get(&message) {
                Some(name) => name.clone(),
                None => {
                    let name = format!("__{}_lost_derivative{}", self.namespace, self.abort_helpers.len());
                    self.output.push(shadows::abort_helper(name.clone(), &message, self.gpu));
                    self.abort_helpers.insert(message, name.clone());
                    name
                }
            };
            out.push((inst, name));
        }
        out
    }

    /// Phase "pullback choice": a pullback for every active instruction, in reverse
    /// postorder of the blocks (the order the alphas and the tape follow). The first rule
    /// family that answers owns an instruction (`rules::classify`); calls differentiated
    /// through are generated here, first.
    fn choose_pullbacks(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        activity: &Activity,
        nullable: &HashSet<Value>,
    ) -> Result<(Vec<Inst>, rules::Pullbacks), TransformError> {
        let (mut order, mut pullbacks) = (Vec::new(), rules::Pullbacks::new());
        for &b in cfg.reverse_postorder() {
            for &inst in &func.blocks[b].insts {
                if !activity.is_active_inst(func, inst) {
                    continue;
                }
                let cx = rules::Classify {
                    module: self.module,
                    func,
                    activity,
                    nullable,
                    conventions: &self.conventions,
                    custom: &self.custom,
                    memory: &self.facts.memory,
                };
                let (family, choice) = rules::classify(&cx, inst)?;
                let pullback = match choice {
                    rules::Choice::Pullback(pullback) => pullback,
                    rules::Choice::Callee(spec) => Pullback::Callee(Box::new(self.ensure(&spec)?)),
                };
                if family.only_moves_the_result(&pullback) && !func.result(inst).is_some_and(|v| activity.is_active(v)) {
                    // Active arguments (a call is active when one is), but the result is not
                    // useful: no adjoint comes back through it.
                    continue;
                }
                order.push(inst);
                pullbacks[inst] = Some(pullback);
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

}

/// `() -> i64`, the byte size of a generated tape (for calls that allocate it).
fn tape_size_function(g: &Generated) -> Function {
    let mut f = Function::new(g.tape_size.clone(), Signature::new(vec![], Type::I64));
    f.linkage = Linkage::Internal;
    f.attributes = vec!["alwaysinline".into()];
    let entry = f.create_block(Some("entry".into()));
    let mut c = builder::Cursor::at_end(&mut f, entry);
    let size = c.size_of(&g.tape_ty);
    c.ret(Some(size));
    f
}

