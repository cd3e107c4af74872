//! What activity analysis needs to know about the whole module, computed once: the
//! functions that return memory of their own, the type analysis of memory (`memtypes`),
//! what functions do with float bits (`floatbits`); and the active globals a function
//! reaches.

use crate::conventions::Conventions;
use std::collections::{BTreeSet, HashMap, HashSet};
use zyg_ir::{Callee, Constant, InstKind, Module};

/// The globals that carry derivatives (`Module::active_global`) that `function` and the
/// functions it calls (directly, or through callbacks it passes) use by name.
pub fn active_globals_reached(module: &Module, function: &str) -> BTreeSet<String> {
    let (mut seen, mut todo, mut found) = (HashSet::new(), vec![function.to_string()], BTreeSet::new());
    while let Some(name) = todo.pop() {
        let Some(func) = module.function(&name).filter(|_| seen.insert(name.clone())) else { continue };
        for (_, inst) in func.inst_order() {
            let kind = &func.insts[inst].kind;
            // A direct callee is not an operand; a function passed as a callback is.
            if let InstKind::Call { callee: Callee::Direct(callee), .. } = kind {
                todo.push(callee.to_string());
            }
            for v in kind.operands() {
                let Some(Constant::Global(g, _)) = func.constant(v) else { continue };
                if module.function(g).is_some() {
                    todo.push(g.clone());
                } else if module.active_global(g).is_some() {
                    found.insert(g.clone());
                }
            }
        }
    }
    with_pointed_at(module, found)
}

/// `globals` and the active globals their initialisers point at, transitively
/// (`GlobalVar::points_to`): their shadows point at those ones' shadows.
pub fn with_pointed_at(module: &Module, globals: BTreeSet<String>) -> BTreeSet<String> {
    let mut todo: Vec<String> = globals.iter().cloned().collect();
    let mut out = globals;
    while let Some(g) = todo.pop() {
        for h in module.globals.get(&g).map(|g| g.points_to.as_slice()).unwrap_or_default() {
            if module.active_global(h).is_some() && out.insert(h.clone()) {
                todo.push(h.clone());
            }
        }
    }
    out
}

/// What activity analysis of one function needs to know about the rest of the module,
/// computed once per module.
pub struct ModuleFacts {
    /// Defined functions returning a pointer that may point to differentiated memory they
    /// make themselves, without being given any: they allocate (`posix_memalign` too), use a global that carries
    /// derivatives, or call such a function (a `cons` cell constructor, a wrapper around
    /// one). Their primal writes the returned pointer's shadow.
    returns_own_memory: HashSet<String>,
    /// Which bytes of memory hold floats, pointers and integers.
    pub memory: crate::memtypes::MemTypes,
    /// What functions do with float bits kept in integers.
    pub bits: crate::floatbits::BitSummaries,
}

impl ModuleFacts {
    pub fn compute(module: &Module, conventions: &Conventions) -> ModuleFacts {
        let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut returns_own_memory = HashSet::new();
        let mut work = Vec::new();
        for f in module.functions.iter().filter(|f| !f.is_declaration()) {
            let mut direct = false;
            for (_, i) in f.inst_order() {
                let kind = &f.insts[i].kind;
                if let InstKind::Call { callee: Callee::Direct(g), .. } = kind {
                    callers.entry(&**g).or_default().push(&f.name);
                    // `posix_memalign(&p, ..)`: memory of its own, returned through `p`.
                    direct |= super::OUT_PARAMETER_ALLOCATIONS.contains(&&**g);
                }
                direct |= conventions.is_allocation(kind)
                    || kind
                        .operands()
                        .iter()
                        .any(|v| matches!(f.constant(*v), Some(Constant::Global(g, _)) if module.active_global(g).is_some()));
            }
            if direct && f.sig.ret.is_ptr() && returns_own_memory.insert(f.name.clone()) {
                work.push(f.name.as_str());
            }
        }
        // Callers that return a pointer inherit it, transitively.
        while let Some(g) = work.pop() {
            for &caller in callers.get(g).map(Vec::as_slice).unwrap_or_default() {
                let returns_ptr = module.function(caller).is_some_and(|f| f.sig.ret.is_ptr());
                if returns_ptr && returns_own_memory.insert(caller.to_string()) {
                    work.push(caller);
                }
            }
        }
        let memory = crate::memtypes::MemTypes::compute(module);
        let bits = crate::floatbits::BitSummaries::compute(module, &memory);
        ModuleFacts { returns_own_memory, memory, bits }
    }

    /// Whether a call to `name` may return a pointer to differentiated memory: the callee is
    /// defined here, returns a pointer, and is given differentiated memory or makes its own.
    /// Its primal then writes the returned pointer's shadow (null when it returns other
    /// memory).
    pub fn returns_shadowed(&self, module: &Module, name: &str, given_shadowed: bool) -> bool {
        let defined = module.function(name).is_some_and(|f| f.sig.ret.is_ptr() && !f.is_declaration());
        defined && (given_shadowed || self.returns_own_memory.contains(name))
    }
}
