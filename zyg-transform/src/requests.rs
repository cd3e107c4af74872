//! What the driver asks of the transform before and after differentiating: the module
//! brought to the shape the transform expects (`normalize`), each request's function
//! (`request_target`), and what the generated code needs the driver to define (`Output`).

use crate::wrap::ResultSeed;
use crate::{helpers, rules, specialize, stack, types, wrap};
use std::collections::BTreeMap;
use zyg_ir::{Function, GlobalVar, Module, Type};

/// Brings a module just read to the shape the transform expects: integer copies of float or
/// pointer bytes retyped (`types`), and the bodies zyg models library functions with
/// (`rules::library`) added for those the module calls.
pub fn normalize(module: &mut Module) {
    crate::gpu::one_dynamic_region(module);
    types::retype_integer_copies(module);
    rules::library::add_models(module);
}

/// The function a request differentiates: `function` itself, or a copy specialised to the
/// callbacks it passes (`specialize`); a request that seeds the result otherwise than with 1
/// differentiates a wrapper of that (`wrap`; `sret`: the type of the memory the function
/// returns its result in, if it does). Err names the function the module does not define.
pub fn request_target(
    module: &mut Module,
    namespace: &str,
    function: &str,
    callbacks: &[(usize, String)],
    seed: Option<(ResultSeed, Option<Type>)>,
) -> Result<String, String> {
    let mut target = function.to_string();
    if !callbacks.is_empty() {
        target = specialize::with_callbacks(module, namespace, function, callbacks).ok_or_else(|| function.to_string())?;
    }
    if let Some((seed, sret)) = seed {
        target = wrap::with_result(module, namespace, &target, seed, sret.as_ref()).ok_or(target)?;
    }
    Ok(target)
}

/// The globals carrying derivatives (`Module::active_global`) that `function` and its
/// callees use by name.
pub fn globals_reached(module: &Module, function: &str) -> std::collections::BTreeSet<String> {
    crate::activity::active_globals_reached(module, function)
}

/// What the transform generated for a module's requests.
pub struct Output {
    /// The generated functions, callees first.
    pub functions: Vec<Function>,
    /// The globals they use that the driver defines (unless the module already does).
    pub globals: Vec<NewGlobal>,
}

/// A global the generated code uses.
pub struct NewGlobal {
    pub name: String,
    pub ty: Type,
    pub init: GlobalInit,
}

/// How a `NewGlobal` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobalInit {
    /// Zero-initialised.
    Zero,
    /// Zero-initialised, one per thread (the tape stacks' cache of chunks, `stack`).
    ThreadLocalZero,
    /// A GPU's shared memory: uninitialised (the gradient zeroes it).
    Shared,
    /// Zero, then the initialiser of global `of` with each address of a global replaced by
    /// its shadow's (`Output::shadow_of`): the shadow of a global holding pointers.
    Mirror { of: String },
}

impl Output {
    pub(crate) fn new(
        functions: Vec<Function>,
        shadow_globals: &BTreeMap<String, GlobalVar>,
        namespace: &str,
        gpu: bool,
    ) -> Output {
        let mut globals: Vec<NewGlobal> = shadow_globals
            .iter()
            .map(|(name, g)| {
                let of = name.strip_prefix(&helpers::shadow_global_name("")).expect("shadow globals are named after theirs");
                let init = if g.is_shared() {
                    GlobalInit::Shared
                } else if g.ty.holds_pointers() {
                    GlobalInit::Mirror { of: of.to_string() }
                } else {
                    GlobalInit::Zero
                };
                NewGlobal { name: name.clone(), ty: g.ty.clone(), init }
            })
            .collect();
        if functions.iter().any(|f| crate::rules::mpi::is_helper(namespace, &f.name)) {
            let (name, ty) = crate::rules::mpi::order_global(namespace);
            globals.push(NewGlobal { name, ty, init: GlobalInit::Zero });
        }
        if !gpu {
            let (name, ty) = stack::cache_global(namespace);
            globals.push(NewGlobal { name, ty, init: GlobalInit::ThreadLocalZero });
        }
        Output { functions, globals }
    }

    /// The name of the shadow of global `global`, if the generated code uses one.
    pub fn shadow_of(&self, global: &str) -> Option<String> {
        let name = helpers::shadow_global_name(global);
        self.globals.iter().any(|g| g.name == name).then_some(name)
    }
}
