//! zyg-transform: reverse-mode AD of zyg-ir functions, after Innes 2018, "Don't Unroll
//! Adjoint: Differentiating SSA-Form Programs".
//!
//! For each function and choice of active parameters, zyg generates a *primal*
//! `f.zyg.primal.<mask>(args..., ptr tape)` that computes `f` and records what the adjoint
//! needs, and an *adjoint* `f.zyg.adjoint.<mask>(ptr tape[, dret])` that returns the gradients
//! of the active parameters. A *gradient* function `f.zyg.grad.<mask>(args...)` puts them
//! together with the tape on its stack, seeding the result's adjoint with 1.

#![forbid(unsafe_code)]

mod activity;
mod addresses;
mod adjoint;
mod alphas;
mod builder;
mod checkpoint;
mod conventions;
mod custom;
mod entries;
mod error;
mod exports;
mod floatbits;
mod gather;
mod gpu;
mod helpers;
mod memory;
mod memtypes;
mod primal;
mod recompute;
mod reload;
mod requests;
mod reverse_cfg;
mod rules;
mod segment;
mod shadows;
mod spec;
mod specialize;
mod stack;
mod tangent;
mod tape;
#[cfg(test)]
mod tests;
mod types;
mod wrap;

use activity::Activity;
pub use conventions::{Allocator, Conventions, IndirectCalls};
use cranelift_entity::{EntitySet, SecondaryMap};
pub use custom::{CustomKind, CustomRule};
pub use error::TransformError;
pub use exports::{export_wrapper, kernel_export_wrapper, store_gradients_wrapper};
pub use gpu::{dynamic_shared_reached, DYNAMIC_LAUNCH_MULTIPLE};
use helpers::{inlining_policy, tape_size_function, verified};
pub use helpers::{shadow_global, shadow_global_name};
pub use reload::whole_entries;
pub use requests::{globals_reached, normalize, request_target, GlobalInit, NewGlobal, Output};
pub use rules::math::{math_rule_arity, math_rule_names};
pub use rules::Pullback;
pub use segment::{segment_loops, Segments};
use spec::primal_signature;
pub use spec::{ArgActivity, Entry, Generated, Gradient, Spec};
pub use stack::{release_cache_namespace, release_tape_cache_entry, RELEASE_TAPE_CACHE};
use std::collections::HashSet;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use tape::TapeLayout;
pub use wrap::ResultSeed;
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::{Block, Function, Inst, Module, Signature, Type, Value};

/// Everything the primal and adjoint builders need to know about one function.
pub struct Plan<'a> {
    pub module: &'a Module,
    /// The program's own declarations: inactive calls, custom allocators...
    pub conventions: Rc<conventions::Conventions>,
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
    pub thread_private: Option<EntitySet<Value>>,
    /// In an outlined OpenMP region, the loads whose adjoints add plainly inside the
    /// thread's chunk of a worksharing loop (`rules::openmp::owned_loads`).
    pub owned: HashMap<Value, rules::openmp::Owned>,
    pub layout: TapeLayout,
    /// The pointers whose shadows may be null at run time (`shadows`).
    pub nullable: EntitySet<Value>,
    /// The stores through nullable shadows that the primal checks (`shadows::lossy_stores`),
    /// with the helper that stops the program where the shadow is null.
    pub lossy_stores: Vec<(Inst, String)>,
    /// The calls before which the primal stops the program (`Pullback::UnknownCallee`),
    /// with the helper that says why and stops it.
    pub stops: Vec<(Inst, String)>,
    pub block_of: SecondaryMap<Inst, Block>,
    pub pullbacks: rules::Pullbacks,
    /// The helpers of copies of mixed fields (`memory::CopyPlan::Fields`), by instruction:
    /// the index in their names (`memory::field_adjoint_name`).
    pub copy_layouts: HashMap<Inst, usize>,
    pub callees: BTreeMap<Inst, Generated>,
    pub returns: Vec<Block>,
    /// Vector mode's lanes (`Spec::width`; 1 otherwise): each shadow, adjoint and tangent
    /// comes this many times.
    pub width: u32,
    /// The primal's math calls, which rules read instead of calling again
    /// (`rules::emit::PrimalCalls`).
    pub primal_calls: rules::emit::PrimalCalls,
    /// Forward mode's plan (the tangent function's), not reverse mode's.
    pub forward: bool,
}

/// Generates gradients for a module, sharing primals and adjoints between requests.
pub struct Differentiator<'m> {
    module: &'m Module,
    generated: HashMap<Spec, Generated>,
    /// Forward mode's tangent functions, by spec.
    tangents: HashMap<Spec, tangent::Tangents>,
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
    /// The BLAS helpers already in `output` (`rules::blas`), by name.
    blas_helpers: HashSet<String>,
    /// The OpenMP fork wrappers and helpers added, by name (`rules::openmp`).
    fork_wrappers: HashSet<String>,
    /// The outlined OpenMP regions forked (`rules::openmp::owned_loads` looks at those only).
    regions: HashSet<String>,
    /// The MPI helpers already in `output` (`rules::mpi`), by name.
    mpi_helpers: HashSet<String>,
    /// The memory helpers (realloc, aligned shadows, sorts) already in `output`.
    memory_helpers: HashSet<helpers::MemoryHelper>,
    /// The float types whose digamma helper (`rules::digamma`) is already in `output`.
    digamma_helpers: HashSet<zyg_ir::FloatTy>,
    /// The helpers that stop a program at a store a null shadow would lose
    /// (`shadows::abort_helper`), by message.
    abort_helpers: HashMap<String, String>,
    /// Specs some call reached recursively: they also get a `tapesize` function.
    boxed: HashSet<Spec>,
    /// Derivatives registered by the user, by function name: for reverse mode, and forward
    /// mode's (`custom`).
    custom: HashMap<String, custom::CustomRule>,
    tangent_rules: HashMap<String, custom::CustomRule>,
    /// What the program declares about its functions and globals (`conventions`).
    conventions: Rc<conventions::Conventions>,
    /// Generating GPU code: atomic shadow updates, tapes without thread-local caches.
    gpu: bool,
    /// Recursive calls may be checkpointed (`checkpoint`); off when the generated code
    /// will be differentiated again (a nested round), whose analyses cannot yet tell that
    /// the integers a rerun reads back were never float bits.
    checkpoints: bool,
    /// The segment functions of segmented loops (`segment`), whose calls are checkpointed.
    segments: segment::Segments,
    /// The functions whose gradient calls run primal and adjoint back to back
    /// (`reload::whole_entries`): their loops may reload their parameters' memory.
    whole_entries: HashSet<String>,
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
            blas_helpers: HashSet::new(),
            fork_wrappers: HashSet::new(),
            regions: HashSet::new(),
            mpi_helpers: HashSet::new(),
            memory_helpers: HashSet::new(),
            digamma_helpers: HashSet::new(),
            abort_helpers: HashMap::new(),
            boxed: HashSet::new(),
            custom: HashMap::new(),
            tangent_rules: HashMap::new(),
            conventions: Rc::default(),
            module,
            generated: HashMap::new(),
            tangents: HashMap::new(),
            gradients: HashMap::new(),
            shadow_globals: BTreeMap::new(),
            in_progress: Vec::new(),
            output: stack::helpers(namespace, false),
            gpu: false,
            checkpoints: true,
            segments: segment::Segments::default(),
            whole_entries: HashSet::new(),
            facts: activity::ModuleFacts::compute(module, &conventions::Conventions::default()),
        }
    }

    /// For GPU modules (NVPTX): shadow updates that other threads may make too are atomic
    /// (`gpu`), and tape stacks take memory from `malloc` without a thread-local cache.
    pub fn for_gpu(mut self) -> Self {
        self.gpu = true;
        // Every CPU stack helper goes: those of the cache use a thread-local global.
        let cpu: HashSet<String> = stack::helpers(&self.namespace, false).into_iter().map(|f| f.name).collect();
        self.output.retain(|f| !cpu.contains(&f.name));
        self.output.splice(0..0, stack::helpers(&self.namespace, true));
        self
    }

    /// Keeps every recursive call's tape (no checkpointed calls): for code that a later
    /// round differentiates again.
    pub fn without_checkpoints(mut self) -> Self {
        self.checkpoints = false;
        self
    }

    /// The segment functions `segment_loops` made: their calls are checkpointed.
    pub fn set_segments(&mut self, segments: Segments) {
        self.segments = segments;
    }

    /// The functions whose gradient calls run their primal and adjoint back to back
    /// (`whole_entries`): the adjoints of their loops reload what those read from their
    /// parameters' memory when nothing writes it later (`reload`).
    pub fn set_whole_entries(&mut self, entries: HashSet<String>) {
        self.whole_entries = entries;
    }

    /// Registers user derivatives: calls to their functions use them instead of
    /// differentiating the body.
    pub fn set_custom_rules(&mut self, rules: impl IntoIterator<Item = custom::CustomRule>) {
        for r in rules {
            let map = if r.is_tangent() { &mut self.tangent_rules } else { &mut self.custom };
            map.insert(r.function.clone(), r);
        }
    }

    /// Sets the program's conventions: inactive functions, function-like functions, custom
    /// allocators. (Inactive globals are marked in the module itself.)
    pub fn set_conventions(&mut self, conventions: conventions::Conventions) {
        // Custom allocators change which functions return memory of their own.
        self.facts = activity::ModuleFacts::compute(self.module, &conventions);
        self.conventions = Rc::new(conventions);
    }

    /// The generated functions, callees first, and the globals they use (`Output`).
    pub fn finish(self) -> Output {
        Output::new(self.output, &self.shadow_globals, &self.namespace, self.gpu)
    }

    /// The gradient function for `spec`, generating it on first request.
    pub fn gradient(&mut self, spec: &Spec) -> Result<Gradient, TransformError> {
        self.entry(spec, Entry::Gradient)
    }

    /// The type of the tape `spec`'s primal writes (generating it on first request): split
    /// mode's tape in memory the caller allocated holds one (`Entry::AugmentedInto`).
    pub fn tape_type(&mut self, spec: &Spec) -> Result<Type, TransformError> {
        Ok(self.ensure(spec)?.tape_ty)
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
        check_spec(func, spec)?;
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

    /// Forward mode: the tangent function for `spec` (and, first, for every callee it
    /// needs). Its name and signature do not depend on its body, so a recursive call
    /// needs nothing more than them.
    fn ensure_forward(&mut self, spec: &Spec) -> Result<tangent::Tangents, TransformError> {
        if let Some(t) = self.tangents.get(spec) {
            return Ok(t.clone());
        }
        let func = self.function(&spec.function)?;
        check_spec(func, spec)?;
        let name = format!("{}.{}.fwd.{}", func.name, self.namespace, spec.suffix());
        let tangents = tangent::Tangents::new(name, func, &spec.args, spec.width);
        self.tangents.insert(spec.clone(), tangents.clone());
        tracing::debug!(function = %func.name, mask = %spec.suffix(), "differentiating in forward mode");
        let plan = self.plan(func, spec, Mode::Forward)?;
        let built = tangent::build(&plan, &tangents)?;
        self.output.push(verified(built, "tangent")?);
        Ok(tangents)
    }

    /// Names and signatures of `spec`'s primal and adjoint, which do not depend on its body.
    fn declared(&self, func: &Function, spec: &Spec, tape_ty: Type, boxed: bool) -> Generated {
        let suffix = spec.suffix();
        let name = |part: &str| format!("{}.{}.{part}.{suffix}", func.name, self.namespace);
        // In vector mode, each active parameter's gradient once per lane, and the result's
        // adjoint once per lane.
        let lanes = spec.width as usize;
        let grads: Vec<Type> = func
            .params
            .iter()
            .zip(&spec.args)
            .filter(|(_, a)| **a == ArgActivity::Active)
            .flat_map(|(p, _)| std::iter::repeat_n(func.ty(*p).clone(), lanes))
            .collect();
        let mut adjoint_params = vec![Type::PTR];
        if func.sig.ret.carries_derivative() {
            adjoint_params.extend(std::iter::repeat_n(func.sig.ret.clone(), lanes));
        }
        Generated {
            primal: name("primal"),
            adjoint: name("adjoint"),
            adjoint_sig: Signature::new(adjoint_params, Type::structure(grads)),
            tape_ty,
            args: spec.args.clone(),
            primal_sig: primal_signature(&func.sig, &spec.args, spec.width),
            boxed,
            tape_size: name("tapesize"),
        }
    }

    /// Differentiates `func` for `spec`: the transform as a script of phases, each a function
    /// of its own (docs/ARCHITECTURE.md lists where each lives).
    fn generate(&mut self, func: &'m Function, spec: &Spec) -> Result<Generated, TransformError> {
        tracing::debug!(function = %func.name, mask = %spec.suffix(), "differentiating");
        let plan = self.plan(func, spec, Mode::Reverse)?;
        if spec.width > 1 {
            self.check_reverse_lanes(&plan)?;
        }
        // A tape holding shadow memory (of stack arrays), or stacks whose first chunk is
        // inside it (GPU), also holds pointers into itself, so it must not move: callers
        // box it on the heap instead of copying it into their own tape.
        let pinned = !plan.layout.shadow_memory.is_empty() || (plan.layout.inline_chunks && !plan.layout.stacks().is_empty());
        let generated = self.declared(func, spec, plan.layout.tape_ty.clone(), pinned);
        // The primal, the reversed CFG, the adjoint over it, then the inlining policy.
        let mut primal = primal::build(&plan, &generated.primal);
        let reversed = reverse_cfg::plan(&plan);
        let mut adjoint = adjoint::build(&plan, &reversed, &generated.adjoint, generated.adjoint_sig.clone())?;
        let leaf = !pinned && !self.boxed.contains(spec) && plan.callees.is_empty();
        inlining_policy(leaf, &mut primal, &mut adjoint);
        self.output.push(verified(primal, "primal")?);
        self.output.push(verified(adjoint, "adjoint")?);
        Ok(generated)
    }

    /// What reverse mode's vector mode (`Spec::width` > 1) does not handle yet, refused
    /// before any code is written: GPU code, differentiated globals (one shadow global
    /// serves one lane), and registered derivatives (they take one shadow per argument).
    fn check_reverse_lanes(&self, plan: &Plan) -> Result<(), TransformError> {
        let func = plan.func;
        let per_direction = "make one request per direction (without `enzyme_width`)";
        let refuse = |what: &str, advice: &str| {
            Err(TransformError::in_function(
                func,
                format!("vector mode (`enzyme_width`) in reverse mode over {what} is not supported yet; {advice}"),
            ))
        };
        if self.gpu {
            return refuse("GPU code", per_direction);
        }
        if plan.activity.shadowed_globals(func).next().is_some() {
            return refuse(
                "a function that uses differentiated global variables",
                "pass the global's memory as a `dup` argument, or make one request per direction",
            );
        }
        let refused = rules::chosen(&plan.pullbacks).find_map(|(inst, p)| match p {
            Pullback::Custom(_) => Some((inst, "a registered derivative")),
            Pullback::Blas(_) => Some((inst, "a BLAS or LAPACK call")),
            Pullback::Fork(_) => Some((inst, "an OpenMP parallel region")),
            Pullback::Mpi(_) => Some((inst, "an MPI call")),
            _ => None,
        });
        if let Some((inst, what)) = refused {
            return Err(TransformError::at(
                func,
                inst,
                format!("vector mode (`enzyme_width`) in reverse mode through {what} is not supported yet; {per_direction}"),
            ));
        }
        Ok(())
    }

    /// The phases before any code is written, activity to tape layout: what `generate`
    /// builds the primal and the adjoint from. Callees differentiated through are generated
    /// here (pullback choice), and the memory helpers the pullbacks call are added. Forward
    /// mode's plan has the analyses and the rules, and nothing on a tape.
    fn plan(&mut self, func: &'m Function, spec: &Spec, mode: Mode) -> Result<Plan<'m>, TransformError> {
        // Analyses: activity (which values carry derivatives, which pointers have shadows),
        // the shadows that may be null, and the control flow.
        if spec.parallel {
            rules::openmp::check_region(func)?;
        }
        let activity = Activity::analyze_with(&self.facts, &self.conventions, self.module, func, &spec.args)?;
        self.add_shadow_globals(func, &activity);
        let nullable = shadows::nullable(func, &activity, &spec.args, spec.shadows_may_be_null);
        let cfg = ControlFlowGraph::compute(func);
        let loops = LoopAnalysis::compute(func, &cfg, &DominatorTree::compute(func, &cfg));
        // Pullback choice, then the alphas each pullback reads from the primal.
        let (order, mut pullbacks) =
            self.choose_pullbacks(func, &cfg, &activity, &nullable, mode, (spec.width, spec.parallel))?;
        let block_of = tape::inst_blocks(func);
        // Checkpoint choice: recursive calls whose tapes would grow with their call trees
        // store their arguments instead (vector mode and GPU code keep their tapes).
        if mode == Mode::Reverse && spec.width == 1 && !self.gpu && self.checkpoints {
            for line in
                checkpoint::choose(self.module, &self.conventions, &self.segments, func, &loops, &block_of, &mut pullbacks)
            {
                tracing::info!("{line}");
            }
        }
        let primal_calls = rules::emit::PrimalCalls::index(func);
        let mut needs = match mode {
            Mode::Reverse => alphas::tape_needs(func, &activity, &order, &pullbacks, &primal_calls),
            Mode::Forward => tape::TapeNeeds::default(),
        };
        // Recompute plan and tape layout: what the adjoint rebuilds, and where the rest goes.
        let returns = tape::return_blocks(func, &cfg);
        // Forward mode stores nothing, so there is nothing to rebuild instead.
        // (GPU threads may write each other's memory: nothing is reloaded there.)
        let recompute = match mode {
            Mode::Reverse => {
                let whole = self.whole_entries.contains(&func.name) && !self.gpu;
                let stable = reload::stable_loads(self.module, &self.conventions, func, &cfg, &loops, whole);
                recompute::plan(func, &cfg, &loops, &block_of, &activity, &stable, &mut needs)
            }
            Mode::Forward => recompute::Recompute::default(),
        };
        let thread_private = if self.gpu {
            Some(gpu::thread_private_pointers(self.module, func))
        } else {
            spec.parallel.then(|| rules::openmp::thread_private_pointers(func, &spec.private))
        };
        let owned = match &thread_private {
            Some(private) if mode == Mode::Reverse && !self.gpu && self.regions.contains(&func.name) => {
                rules::openmp::owned_loads(func, &recompute.inductions, private)
            }
            _ => HashMap::new(),
        };
        // The chunks' bounds, read where the loads' adjoints test their indices.
        for o in owned.values() {
            for v in [o.lb, o.ub] {
                if !needs.values.contains(&v) {
                    needs.values.push(v);
                }
            }
        }
        if !owned.is_empty() {
            self.add_owned_helpers();
        }
        needs.inline_chunks = self.gpu;
        needs.lanes = spec.width;
        let layout = TapeLayout::build(func, &cfg, &loops, &needs, &returns);
        // The report is built only when `-v` would show it.
        if mode == Mode::Reverse && tracing::enabled!(tracing::Level::INFO) {
            // (Induction variables are among the rebuilt values.)
            let floats = recompute.values.iter().filter(|v| func.ty(**v).float_elem().is_some()).count();
            for line in layout.report(func, &loops, recompute.values.len(), floats, recompute.reloads(func)) {
                tracing::info!("{line}");
            }
        }
        let copy_layouts = match mode {
            Mode::Reverse => self.add_memory_helpers(&pullbacks),
            Mode::Forward => {
                self.add_tangent_memory_helpers(&pullbacks);
                HashMap::new()
            }
        };
        self.add_blas_helpers(&pullbacks);
        self.add_mpi_helpers(&pullbacks);
        self.add_math_helpers(func, &pullbacks);
        let lossy_stores = self.add_lossy_store_checks(func, &activity, &nullable);
        let stops = self.add_unknown_callee_stops(func, &pullbacks);
        let callees = rules::chosen(&pullbacks)
            .filter_map(|(inst, pb)| match pb {
                Pullback::Callee(g) => Some((inst, (**g).clone())),
                _ => None,
            })
            .collect();
        Ok(Plan {
            module: self.module,
            conventions: Rc::clone(&self.conventions),
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
            stops,
            recompute,
            thread_private,
            owned,
            pullbacks,
            copy_layouts,
            callees,
            returns,
            width: spec.width,
            primal_calls,
            forward: mode == Mode::Forward,
        })
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
        nullable: &EntitySet<Value>,
        mode: Mode,
        (width, parallel): (u32, bool),
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
                    // Forward mode asks the forward registrations, reverse mode the others.
                    custom: if mode == Mode::Forward { &self.tangent_rules } else { &self.custom },
                    memory: &self.facts.memory,
                    forward: mode == Mode::Forward,
                };
                let (family, choice) = rules::classify(&cx, inst)?;
                let pullback = match choice {
                    rules::Choice::Pullback(pullback) => pullback,
                    // A callee's tangents have the caller's width; a callee of code that
                    // threads run at once is run by them at once too.
                    rules::Choice::Callee(spec) if mode == Mode::Forward => {
                        Pullback::Forward(Box::new(self.ensure_forward(&Spec {
                            width,
                            parallel: parallel || spec.parallel,
                            ..spec
                        })?))
                    }
                    rules::Choice::Callee(spec) => {
                        Pullback::Callee(Box::new(self.ensure(&Spec { width, parallel: parallel || spec.parallel, ..spec })?))
                    }
                    rules::Choice::Fork(spec) if mode == Mode::Forward => {
                        Pullback::ForkTangent(Box::new(self.ensure_forward(&Spec { width, ..spec })?))
                    }
                    rules::Choice::Fork(spec) => {
                        self.regions.insert(spec.function.clone());
                        let g = self.ensure(&spec)?;
                        self.add_fork_wrappers(&spec, &g)?;
                        Pullback::Fork(Box::new(g))
                    }
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

/// What every request's spec must be: a function of fixed parameters, one activity per
/// parameter, each fitting its parameter's type.
fn check_spec(func: &Function, spec: &Spec) -> Result<(), TransformError> {
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
            return Err(TransformError::in_function(func, format!("parameter {p} of type {ty} cannot be a `{arg:?}` argument")));
        }
    }
    Ok(())
}

/// Which sweep a plan is for: reverse mode's primal and adjoint, or forward mode's tangent
/// function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Reverse,
    Forward,
}
