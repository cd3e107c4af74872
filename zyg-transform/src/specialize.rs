//! Specialisation on callbacks. Numerical C passes functions around (`integrate(f, a, b)`,
//! an ODE solver's right-hand side); a request that passes one as a `const` argument fixes
//! it, so zyg differentiates a copy of the function in which the parameter is that
//! function, and calls through it are direct calls zyg can differentiate (indirect calls on
//! active values are not supported). Calls inside the copy that pass the parameter on are
//! specialised the same way, so callbacks handed down through helpers resolve too.

use zyg_ir::{Callee, Constant, Function, InstKind, Module};

/// Adds (once) the copy of `function` with each `(parameter index, callee)` fixed and
/// returns its name, or None if the module does not define `function`.
pub fn with_callbacks(module: &mut Module, namespace: &str, function: &str, callbacks: &[(usize, String)]) -> Option<String> {
    let names: Vec<&str> = callbacks.iter().map(|(_, f)| f.as_str()).collect();
    let name = format!("{function}.{namespace}.with.{}", names.join("."));
    if module.function(&name).is_some() {
        return Some(name);
    }
    let mut copy = module.function(function)?.clone();
    copy.name = name.clone();
    for (index, callee) in callbacks {
        // Only a pointer parameter can be fixed to a function.
        let Some(&param) = copy.params.get(*index).filter(|p| copy.ty(**p).is_ptr()) else { continue };
        let target = copy.constant_value(Constant::Global(callee.clone(), 0));
        for inst in copy.inst_order().map(|(_, i)| i).collect::<Vec<_>>() {
            for operand in copy.insts[inst].kind.operands_mut() {
                if *operand == param {
                    *operand = target;
                }
            }
        }
    }
    direct_calls(module, &mut copy);
    let nested = nested_callbacks(module, &copy);
    module.functions.push(copy);
    for (inst, callee, fixed) in nested {
        if let Some(special) = with_callbacks(module, namespace, &callee, &fixed) {
            let copy = module.functions.iter_mut().find(|f| f.name == name).expect("just added");
            if let InstKind::Call { callee, .. } = &mut copy.insts[inst].kind {
                *callee = Callee::Direct(special.into());
            }
        }
    }
    Some(name)
}

/// Calls through a value that is now a known function become direct calls, where the call
/// has the function's own signature (a call through another type stays indirect: it is
/// undefined behaviour, and a direct call would not verify).
fn direct_calls(module: &Module, func: &mut Function) {
    let insts: Vec<_> = func.inst_order().map(|(_, i)| i).collect();
    for inst in insts {
        let InstKind::Call { callee: Callee::Indirect(v), sig, .. } = &func.insts[inst].kind else { continue };
        if let Some(Constant::Global(name, _)) = func.constant(*v).cloned() {
            let own = module.function(&name).map(|f| &f.sig).or_else(|| module.declarations.get(&name));
            if own != Some(sig) {
                continue;
            }
            if let InstKind::Call { callee, .. } = &mut func.insts[inst].kind {
                *callee = Callee::Direct(name.into());
            }
        }
    }
}

/// A call that passes known functions on: the call, its callee, and `(index, function)`.
type NestedCallback = (zyg_ir::Inst, String, Vec<(usize, String)>);

/// Calls in `func` to defined functions that pass known functions as arguments.
fn nested_callbacks(module: &Module, func: &Function) -> Vec<NestedCallback> {
    let mut out = Vec::new();
    for (_, inst) in func.inst_order() {
        let InstKind::Call { callee: Callee::Direct(name), args, .. } = &func.insts[inst].kind else { continue };
        if module.function(name).is_none() {
            continue;
        }
        let fixed: Vec<(usize, String)> = args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| match func.constant(*a) {
                Some(Constant::Global(g, _)) if module.function(g).is_some() || module.declarations.contains_key(g) => {
                    Some((i, g.clone()))
                }
                _ => None,
            })
            .collect();
        if !fixed.is_empty() {
            out.push((inst, name.to_string(), fixed));
        }
    }
    out
}
