//! Phase "entries": the functions a request calls. `Entry::Gradient` runs the primal with
//! its tape on the stack and then the adjoint, seeding the result's adjoint with 1;
//! split mode's `Entry::Augmented` runs the primal with its tape on the heap and hands the
//! tape back, and `Entry::Reverse` runs the adjoint on such a tape and frees it.
//! `Entry::AugmentedInto` and `Entry::ReverseFrom` do the same with a tape in memory the
//! caller allocated, of the size `Entry::TapeSize` gives, which the reverse half leaves to
//! the caller. `Entry::Forward` calls forward mode's tangent function and returns the
//! result's tangent.

use crate::builder::Cursor;
use crate::helpers::tape_size_function;
use crate::spec::{ArgActivity, Entry, Generated, Gradient, Spec};
use crate::{activity, gpu, helpers, Differentiator, TransformError};
use zyg_ir::{BinOp, CastOp, Constant, Function, IntPred, Linkage, Signature, Type, Value};

impl Differentiator<'_> {
    /// An entry point for `spec` (see `Entry`), generated on first request.
    pub fn entry(&mut self, spec: &Spec, kind: Entry) -> Result<Gradient, TransformError> {
        if let Some(g) = self.gradients.get(&(spec.clone(), kind)) {
            return Ok(g.clone());
        }
        if kind == Entry::Forward {
            if self.gpu && spec.width > 1 {
                let func = self.function(&spec.function)?;
                return Err(TransformError::in_function(
                    func,
                    "vector mode (`enzyme_width`) in GPU code is not supported yet; make one request per direction",
                ));
            }
            return self.forward_entry(spec);
        }
        if spec.width > 1 && kind != Entry::Gradient {
            let func = self.function(&spec.function)?;
            return Err(TransformError::in_function(
                func,
                "vector mode (`enzyme_width`) in split mode (`__enzyme_augmentfwd`, `__enzyme_reverse`) is not \
                 supported yet; use `__enzyme_autodiff`, or make one request per direction",
            ));
        }
        let generated = self.ensure(spec)?;
        let func = self.function(&spec.function)?;
        let word = match kind {
            Entry::Gradient => "grad",
            Entry::Augmented => "augmented",
            Entry::Reverse => "reverse",
            Entry::AugmentedInto => "augmented_into",
            Entry::ReverseFrom => "reverse_from",
            Entry::TapeSize => "augmentsize",
            Entry::Forward => unreachable!("forward_entry"),
        };
        let name = format!("{}.{}.{word}.{}", spec.function, self.namespace, spec.suffix());
        if kind == Entry::TapeSize {
            let mut w = tape_size_function(&generated);
            w.name = name.clone();
            let sig = w.sig.clone();
            return self.finish_entry(spec, kind, w, name, sig);
        }
        let (sig, given) = entry_signature(func, spec, &generated, kind);
        let mut w = Function::new(name.clone(), sig.clone());
        w.linkage = Linkage::Internal;
        let block = w.create_block(Some("entry".into()));
        let all = w.params.clone();
        let mut c = Cursor::at_end(&mut w, block);
        self.check_dynamic_launch(&mut c, spec);
        let tape = match kind {
            Entry::Gradient => c.alloca(generated.tape_ty.clone()),
            Entry::Augmented => {
                let size = c.size_of(&generated.tape_ty);
                c.call("malloc", Signature::new(vec![Type::I64], Type::PTR), vec![size]).expect("malloc returns")
            }
            Entry::Reverse => *all.last().expect("the tape parameter"),
            Entry::AugmentedInto | Entry::ReverseFrom => {
                // The caller's memory and its size, the last two parameters.
                let (tape, size) = (all[all.len() - 2], all[all.len() - 1]);
                let checks = self.caller_tape_checks(func, kind, &name);
                check_caller_tape(&mut c, &generated.tape_ty, tape, size, &checks);
                tape
            }
            Entry::Forward | Entry::TapeSize => unreachable!("handled above"),
        };
        if !matches!(kind, Entry::Reverse | Entry::ReverseFrom) {
            self.zero_global_shadows(&mut c, spec);
            let result = call_primal(&mut c, func, spec, &generated, &all[..given], tape);
            if matches!(kind, Entry::Augmented | Entry::AugmentedInto) {
                // The tape is opaque to the caller, handed back to the reverse entry.
                let out = match result {
                    Some(r) => {
                        let pair = c.constant(Constant::Poison(sig.ret.clone()));
                        let pair = c.insert(pair, tape, 0);
                        c.insert(pair, r, 1)
                    }
                    None => tape,
                };
                c.ret(Some(out));
                return self.finish_entry(spec, kind, w, name, sig);
            }
        }
        let dret = matches!(kind, Entry::Reverse | Entry::ReverseFrom).then(|| all[given]);
        let grads = call_adjoint(&mut c, func, spec, &generated, tape, dret);
        // The adjoint has freed what the tape's stacks took beyond it; a tape on the heap
        // goes too, the caller's memory stays the caller's.
        if kind == Entry::Reverse {
            c.free(tape);
        }
        c.ret(grads);
        self.finish_entry(spec, kind, w, name, sig)
    }

    /// `Entry::Forward`: `(args, each dup or active one followed by its shadow or tangent)
    /// -> { tangent of the result }` (an empty struct when the result carries none). In
    /// vector mode, `width` shadows or tangents follow each argument, and the struct holds
    /// `width` tangents.
    fn forward_entry(&mut self, spec: &Spec) -> Result<Gradient, TransformError> {
        let tangents = self.ensure_forward(spec)?;
        let func = self.function(&spec.function)?;
        let lanes = spec.width as usize;
        let params = interleaved_params(func, spec, has_tangent);
        let floats = func.sig.ret.carries_derivative();
        let sig = Signature::new(params, Type::structure(if floats { vec![func.sig.ret.clone(); lanes] } else { vec![] }));
        let name = format!("{}.{}.fwddiff.{}", spec.function, self.namespace, spec.suffix());
        let mut w = Function::new(name.clone(), sig.clone());
        w.linkage = Linkage::Internal;
        let block = w.create_block(Some("entry".into()));
        let given = w.params.clone();
        let mut c = Cursor::at_end(&mut w, block);
        self.check_dynamic_launch(&mut c, spec);
        self.zero_global_shadows(&mut c, spec);
        // The tangent function takes the arguments first, then the shadows and tangents.
        let mut args = deinterleave(&given, spec, has_tangent);
        let slot_ty = if floats { func.sig.ret.clone() } else { Type::PTR };
        let slots: Vec<Value> =
            if tangents.result_slot { (0..lanes).map(|_| c.alloca(slot_ty.clone())).collect() } else { vec![] };
        args.extend(&slots);
        c.call(&tangents.name, tangents.sig.clone(), args);
        let mut out = c.constant(Constant::Poison(sig.ret.clone()));
        for (lane, slot) in slots.iter().enumerate().filter(|_| floats) {
            let t = c.load(func.sig.ret.clone(), *slot);
            out = c.insert(out, t, lane as u32);
        }
        c.ret(Some(out));
        self.finish_entry(spec, Entry::Forward, w, name, sig)
    }

    /// Zeroes the adjoints held by the shadows of the globals `spec` reaches, before the
    /// primal runs.
    fn zero_global_shadows(&self, c: &mut Cursor, spec: &Spec) {
        if !self.gpu {
            // The shadow of a global holds the gradient with respect to its value on entry to
            // this call: one left from an earlier call would be taken as the seed of what
            // this call stores there. Its pointers stay: they are the shadows of the
            // global's pointers (from its initialiser, or set by the program).
            for name in activity::active_globals_reached(self.module, &spec.function) {
                if let Some(g) = self.shadow_globals.get(&helpers::shadow_global_name(&name)) {
                    let shadow = c.constant(Constant::Global(helpers::shadow_global_name(&name), g.addrspace));
                    c.zero_keeping_pointers(&g.ty, shadow);
                }
            }
        } else {
            // Shared memory starts with whatever the block left there: the shadows of the
            // shared arrays this spec uses are zeroed before anything adds into them; the
            // dynamic region's shadow half once, whichever of its names the spec uses.
            let reached = gpu::shared_globals_reached(self.module, &spec.function);
            let dynamic = reached.iter().any(|name| self.module.globals[name].is_dynamic_shared());
            let shared: Vec<gpu::SharedShadow> = reached
                .iter()
                .filter_map(|name| self.shadow_globals.get_key_value(&helpers::shadow_global_name(name)))
                .map(|(name, g)| gpu::SharedShadow::Fixed(name.clone(), g.ty.clone()))
                .chain(dynamic.then_some(gpu::SharedShadow::Dynamic))
                .collect();
            gpu::zero_shared_shadows(self.module, c, &shared);
        }
    }

    /// On a GPU, where `spec` reaches differentiated dynamic shared memory: stops the kernel
    /// unless it was launched with dynamic bytes its shadow half can use
    /// (`gpu::check_dynamic_launch`). Every entry checks, the reverse one of split mode too
    /// (its kernel may be launched apart from the augmented one's).
    fn check_dynamic_launch(&self, c: &mut Cursor, spec: &Spec) {
        if self.gpu && gpu::dynamic_shared_reached(self.module, &spec.function) {
            gpu::check_dynamic_launch(c);
        }
    }

    /// The helpers that stop the program where the caller's tape memory is too small or
    /// misaligned, with what each says (one per message, `abort_helper_for`): on a GPU
    /// they trap.
    fn caller_tape_checks(&mut self, func: &Function, kind: Entry, entry_name: &str) -> CallerTapeChecks {
        let (entry, marker) = match kind {
            Entry::AugmentedInto => ("__enzyme_augmentfwd", "writes its tape to"),
            _ => ("__enzyme_reverse", "reads its tape from"),
        };
        // A `printf` format: the bytes given and needed fill in the two `%lld`.
        let small = format!(
            "zyg: runtime error: `{entry}` of `{}` {marker} memory (`enzyme_tape`) of %lld bytes (`enzyme_allocated`), \
             smaller than the tape, which takes %lld: allocate the bytes `__enzyme_augmentsize` gives for the same \
             function and activity markers, and pass that size.\n",
            func.name.replace('%', "%%")
        );
        let too_small = format!("{entry_name}.too_small");
        self.output.push(size_check_helper(too_small.clone(), &small, self.gpu));
        let misaligned = format!(
            "zyg: runtime error: `{entry}` of `{}` {marker} memory (`enzyme_tape`) that is not aligned for the tape: \
             give memory aligned as `malloc`'s or `cudaMalloc`'s is, or at an offset that is a multiple of the \
             size `__enzyme_augmentsize` gives (which is a multiple of the tape's alignment).\n",
            func.name
        );
        CallerTapeChecks { too_small, misaligned: self.abort_helper_for(misaligned) }
    }

    fn finish_entry(
        &mut self,
        spec: &Spec,
        kind: Entry,
        w: Function,
        name: String,
        sig: Signature,
    ) -> Result<Gradient, TransformError> {
        self.output.push(helpers::verified(w, "entry")?);
        let gradient = Gradient { name, sig };
        self.gradients.insert((spec.clone(), kind), gradient.clone());
        Ok(gradient)
    }
}

/// `void NAME(i64 given, i64 needed)`: where `given < needed` (signed), prints `format` with both
/// (`dprintf` to standard error) and aborts; on a GPU, traps. Internal and small: inlined,
/// it folds away where both are constants and `given` is enough.
fn size_check_helper(name: String, format: &str, gpu: bool) -> Function {
    let mut f = Function::new(name, Signature::new(vec![Type::I64, Type::I64], Type::Void));
    f.linkage = Linkage::Internal;
    let (given, needed) = (f.params[0], f.params[1]);
    let entry = f.create_block(Some("entry".into()));
    let fail = f.create_block(Some("too_small".into()));
    let ok = f.create_block(Some("ok".into()));
    let mut c = Cursor::at_end(&mut f, entry);
    // Signed: a size passed as a negative `int` (sign-extended) is too small, not huge.
    let small = c.icmp(IntPred::Slt, given, needed);
    c.cond_br(small, fail, ok);
    c.switch_to(ok);
    c.ret(None);
    c.switch_to(fail);
    crate::shadows::stop_with_message(&mut c, format, &[given, needed], gpu);
    f
}

/// The names of the helpers `caller_tape_checks` gives.
struct CallerTapeChecks {
    too_small: String,
    misaligned: String,
}

/// Stops the program (through `checks`' helpers) where the caller's memory `tape` of
/// `size` bytes cannot hold a tape of type `tape_ty`: fewer bytes than its allocation size
/// (what `Entry::TapeSize` returns: the same expression, so the two agree however LLVM lays
/// the type out), or an address that is not a multiple of its ABI alignment (the primal's
/// stores assume it, and a GPU faults on a misaligned access). Both fold away where `size`
/// is a constant large enough and `tape` is known to be aligned.
fn check_caller_tape(c: &mut Cursor, tape_ty: &Type, tape: Value, size: Value, checks: &CallerTapeChecks) {
    let needed = c.size_of(tape_ty);
    c.call(&checks.too_small, Signature::new(vec![Type::I64, Type::I64], Type::Void), vec![size, needed]);
    let align = c.align_of(tape_ty);
    let one = c.i64(1);
    let mask = c.binary(BinOp::Sub, align, one);
    let address = c.cast(CastOp::PtrToInt, tape, Type::I64);
    let low = c.binary(BinOp::And, address, mask);
    let zero = c.i64(0);
    let misaligned = c.icmp(IntPred::Ne, low, zero);
    c.call(&checks.misaligned, Signature::new(vec![Type::I1], Type::Void), vec![misaligned]);
}

/// An entry's signature, and how many of its parameters are the request's arguments (each
/// `dup` one followed by its shadow, as at Enzyme's call sites); `Entry::Reverse` takes the
/// result's adjoint (if the result carries one) and the tape after them, the entries with
/// the caller's memory (`AugmentedInto`, `ReverseFrom`) take its pointer and size last.
fn entry_signature(func: &Function, spec: &Spec, generated: &Generated, kind: Entry) -> (Signature, usize) {
    let mut params = interleaved_params(func, spec, has_shadow);
    let given = params.len();
    let ret = match kind {
        Entry::Gradient | Entry::Reverse | Entry::ReverseFrom => generated.adjoint_sig.ret.clone(),
        Entry::Augmented | Entry::AugmentedInto if func.sig.ret.is_void() => Type::PTR,
        Entry::Augmented | Entry::AugmentedInto => Type::structure(vec![Type::PTR, func.sig.ret.clone()]),
        Entry::Forward | Entry::TapeSize => unreachable!("no request arguments"),
    };
    if matches!(kind, Entry::Reverse | Entry::ReverseFrom) {
        params.extend(generated.adjoint_sig.params.get(1).cloned());
        params.push(Type::PTR);
    }
    match kind {
        Entry::AugmentedInto => params.extend([Type::PTR, Type::I64]),
        Entry::ReverseFrom => params.push(Type::I64),
        _ => {}
    }
    (Signature::new(params, ret), given)
}

/// Reverse mode's entries take a shadow after each `dup` argument.
fn has_shadow(arg: ArgActivity) -> bool {
    arg == ArgActivity::Dup
}

/// Forward mode's entry takes a shadow after each `dup` argument and a tangent after each
/// `active` one.
fn has_tangent(arg: ArgActivity) -> bool {
    arg != ArgActivity::Const
}

/// An entry's parameters for the request's arguments, as at Enzyme's call sites: each
/// parameter, followed by `spec.width` more of its type where `extra` says it has them.
fn interleaved_params(func: &Function, spec: &Spec, extra: fn(ArgActivity) -> bool) -> Vec<Type> {
    let mut params = Vec::new();
    for (ty, arg) in func.sig.params.iter().zip(&spec.args) {
        params.push(ty.clone());
        if extra(*arg) {
            params.extend((0..spec.width).map(|_| ty.clone()));
        }
    }
    params
}

/// The entry's arguments `given` (see `interleaved_params`) in the order the generated
/// functions take them: the function's arguments first, then the extras.
fn deinterleave(given: &[Value], spec: &Spec, extra: fn(ArgActivity) -> bool) -> Vec<Value> {
    let (mut args, mut extras) = (Vec::new(), Vec::new());
    let mut given = given.iter().copied();
    for arg in &spec.args {
        args.extend(given.next());
        if extra(*arg) {
            extras.extend(given.by_ref().take(spec.width as usize));
        }
    }
    args.extend(extras);
    args
}

/// Calls the primal with the request's arguments `given` (shadows interleaved) and `tape`;
/// returns its result.
fn call_primal(
    c: &mut Cursor,
    func: &Function,
    spec: &Spec,
    generated: &Generated,
    given: &[Value],
    tape: Value,
) -> Option<Value> {
    // The primal takes the arguments first, then the shadows.
    let mut args = deinterleave(given, spec, has_shadow);
    if func.sig.ret.is_ptr() {
        // The returned pointer's shadow (each lane's): nobody asked for it.
        let slot = c.alloca(Type::PTR);
        args.extend(std::iter::repeat_n(slot, spec.width as usize));
    }
    args.push(tape);
    c.call(&generated.primal, generated.primal_sig.clone(), args)
}

/// Calls the adjoint on `tape` with the result's adjoint `dret` (the reverse entry's), or
/// 1 for a float result; returns the gradients. In vector mode every lane's seed is 1, as
/// if each lane were a request of its own (its memory's seeds are its shadows').
fn call_adjoint(
    c: &mut Cursor,
    func: &Function,
    spec: &Spec,
    generated: &Generated,
    tape: Value,
    dret: Option<Value>,
) -> Option<Value> {
    let seed = match (dret, func.sig.ret.float_ty()) {
        (Some(d), _) if func.sig.ret.carries_derivative() => Some(d),
        (_, Some(fty)) => Some(c.constant(Constant::float(fty, 1.0))),
        // A struct of floats: no single seed; its outputs count through memory only.
        _ if func.sig.ret.carries_derivative() => Some(c.constant(Constant::Zero(func.sig.ret.clone()))),
        _ => None,
    };
    let mut adjoint_args = vec![tape];
    adjoint_args.extend(seed.into_iter().flat_map(|s| std::iter::repeat_n(s, spec.width as usize)));
    c.call(&generated.adjoint, generated.adjoint_sig.clone(), adjoint_args)
}
