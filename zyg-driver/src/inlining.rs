//! Registered functions the compiler hid from zyg. clang -O2 inlines a small function into
//! its callers before zyg sees the module, and replaces the calls of one it can see through
//! (it returns its argument, or a constant); a derivative registered for that function, an
//! inactivity or a function-like declaration, then silently applies to nothing: zyg
//! differentiates the inlined body instead. zyg.h's `ZYG_KEEP` (noinline, optnone and the
//! annotation `zyg_keep`) keeps such a function's calls intact; zyg gives it back to LLVM's
//! optimiser in its own output (`release_kept`), where inlining no longer hides anything.
//!
//! Where that was not done, zyg warns: with debug info, at each place a registered
//! function's code was inlined into a function zyg differentiates (a debug location inlined
//! from its `DISubprogram`); without, when no call of a registered function is left at all.

use inkwell::module::Module;
use inkwell::values::{FunctionValue, InstructionOpcode};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use zyg_ir::llvm::calls::{self, CallKind, FunctionUse};
use zyg_ir::llvm::inlined::InlinedFunctions;
use zyg_ir::llvm::values::{scalar_constant, ScalarConstant};
use zyg_transform::Conventions;
use zyg_transform::CustomRule;

/// What was registered for a function, for warnings: what it is, and what is lost.
#[derive(Clone, Debug)]
pub struct Registered {
    pub what: String,
    pub lost: String,
    /// Whether replacing its calls' results by a constant loses anything (not for an
    /// inactive function, whose results are constants to zyg anyway).
    pub result_matters: bool,
}

/// The functions whose calls zyg must see, by name.
pub fn registered(
    custom: &[CustomRule],
    conventions: &Conventions,
    aliases: &[(String, String)],
) -> BTreeMap<String, Registered> {
    let mut out = BTreeMap::new();
    let mut add = |name: &str, what: String, lost: &str| {
        let result_matters = !what.contains("inactive");
        out.entry(name.to_string()).or_insert(Registered { what, lost: lost.to_string(), result_matters });
    };
    for rule in custom {
        add(&rule.function, "has a registered derivative".into(), "its registered derivative is not used");
    }
    for f in conventions.inactive_functions.iter().filter(|f| !aliases.iter().any(|(a, _)| a == *f)) {
        add(f, "is declared inactive".into(), "its code is differentiated as if it were active");
    }
    for (f, like) in &conventions.function_like {
        add(f, format!("is declared like `{like}`"), "its body is differentiated instead of the rule");
    }
    for f in conventions.allocators.keys() {
        add(f, "is declared an allocator".into(), "its memory is not shadowed as an allocator's");
    }
    out
}

/// The string attribute the plugin puts on functions it keeps out of line in `-flto`'s
/// compile (`plugin::Stage::FullLtoPreLink`), read back as `ZYG_KEEP` is at the link.
pub const KEPT_ATTRIBUTE: &str = "zyg-kept";

/// Keeps `f` out of line as `ZYG_KEEP` does (`noinline`), marked so that zyg gives it back
/// to the optimiser once it has read the calls (`release_kept`).
pub fn mark_kept(f: FunctionValue<'_>) {
    crate::grad::add_function_attribute(f, "noinline");
    let kept = f.get_type().get_context().create_string_attribute(KEPT_ATTRIBUTE, "");
    f.add_attribute(inkwell::attributes::AttributeLoc::Function, kept);
}

/// Takes `noinline` and `optnone`, which `ZYG_KEEP` (or `mark_kept`) added for zyg's sake,
/// off the kept functions, so that LLVM optimises and inlines them in zyg's output like any
/// other.
pub fn release_kept(module: &Module, kept: &[String]) {
    for name in kept {
        let Some(f) = module.get_function(name) else { continue };
        for attr in ["noinline", "optnone"] {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
            f.remove_enum_attribute(inkwell::attributes::AttributeLoc::Function, kind);
        }
        f.remove_string_attribute(inkwell::attributes::AttributeLoc::Function, KEPT_ATTRIBUTE);
    }
}

/// Warns about registered functions whose code was inlined into `differentiated` functions,
/// or (without debug info to tell) whose calls are all gone. `requested` are the functions
/// requests name, which are passed by address rather than called.
pub fn warn_lost(
    module: &Module,
    path: &Path,
    registered: &BTreeMap<String, Registered>,
    differentiated: &[String],
    requested: &HashSet<String>,
) {
    let warned = warn_inlined(module, path, registered, differentiated);
    for (name, r) in registered {
        if warned.contains(name) || requested.contains(name) {
            continue;
        }
        let Some(f) = module.get_function(name) else { continue };
        if let Some(c) = constant_result(f).filter(|_| r.result_matters) {
            eprintln!(
                "zyg: warning: {}: `{name}` {}, but it returns `{c}` on every path, so the compiler replaces the \
                 results of its calls by that constant (even with `ZYG_KEEP`) and {} for them",
                path.display(),
                r.what,
                r.lost
            );
            continue;
        }
        let called = f.as_global_value().is_declaration()
            || calls::uses(f).iter().any(|u| matches!(u, FunctionUse::Called(_, CallKind::Call)));
        if !called {
            eprintln!(
                "zyg: warning: {}: `{name}` {}, but no call to it is left in this module: if the compiler inlined \
                 it or replaced its calls' results in the code zyg differentiates, {} there; declare it with \
                 `ZYG_KEEP` from zyg.h (noinline and optnone) before its definition",
                path.display(),
                r.what,
                r.lost
            );
        }
    }
}

/// Warns, once for each, about registered functions whose code (by its debug info) was
/// inlined into `differentiated` functions; returns their names.
fn warn_inlined(
    module: &Module,
    path: &Path,
    registered: &BTreeMap<String, Registered>,
    differentiated: &[String],
) -> HashSet<String> {
    let mut warned: HashSet<String> = HashSet::new();
    let (names, functions): (Vec<&String>, Vec<_>) =
        registered.keys().filter_map(|name| Some((name, module.get_function(name)?))).unzip();
    let inlined = InlinedFunctions::new(&functions);
    // Without debug information for a registered function there is nothing to look for.
    let callers = if inlined.is_empty() { &[][..] } else { differentiated };
    for caller in callers {
        let Some(f) = module.get_function(caller) else { continue };
        for bb in f.get_basic_blocks() {
            for inst in bb.get_instructions() {
                let Some((i, site)) = inlined.inlined_from(inst) else { continue };
                let name = names[i];
                if !warned.insert(name.to_string()) {
                    continue;
                }
                let r = &registered[name];
                eprintln!(
                    "zyg: warning: {}: in function `{caller}`{site}: `{name}` {}, but the compiler inlined it \
                     here, so {} there; declare it with `ZYG_KEEP` from zyg.h (noinline and optnone) before its \
                     definition",
                    path.display(),
                    r.what,
                    r.lost
                );
            }
        }
    }
    warned
}

/// The constant a defined function returns on every path, if it does (LLVM's
/// interprocedural constant propagation then replaces its calls' results by it).
fn constant_result(f: FunctionValue<'_>) -> Option<String> {
    if f.as_global_value().is_declaration() {
        return None;
    }
    let mut value = None;
    for bb in f.get_basic_blocks() {
        let Some(t) = bb.get_terminator().filter(|t| t.get_opcode() == InstructionOpcode::Return) else { continue };
        let v = t.get_operand(0).and_then(|op| op.value())?;
        let constant = scalar_constant(v)?;
        if value.is_some_and(|(w, _)| w != v) {
            return None;
        }
        value = Some((v, constant));
    }
    Some(match value?.1 {
        ScalarConstant::Int(i) => i.to_string(),
        ScalarConstant::Float(x) => x.to_string(),
    })
}
