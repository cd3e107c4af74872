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

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::values::AsValueRef;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use zyg_transform::conventions::Conventions;
use zyg_transform::custom::CustomRule;

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
pub fn registered(custom: &[CustomRule], conventions: &Conventions, aliases: &[(String, String)]) -> BTreeMap<String, Registered> {
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

/// Takes `noinline` and `optnone`, which `ZYG_KEEP` added for zyg's sake, off the kept
/// functions, so that LLVM optimises and inlines them in zyg's output like any other.
pub fn release_kept(module: &Module, kept: &[String]) {
    for name in kept {
        let Some(f) = module.get_function(name) else { continue };
        for attr in ["noinline", "optnone"] {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
            f.remove_enum_attribute(inkwell::attributes::AttributeLoc::Function, kind);
        }
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
    let mut warned: HashSet<String> = HashSet::new();
    // SAFETY: every function, instruction and metadata node visited belongs to the live
    // module.
    unsafe {
        let mut subprograms: Vec<(LLVMMetadataRef, &str)> = Vec::new();
        for name in registered.keys() {
            if let Some(f) = module.get_function(name) {
                let sp = LLVMGetSubprogram(f.as_value_ref());
                if !sp.is_null() {
                    subprograms.push((sp, name.as_str()));
                }
            }
        }
        let ctx = LLVMGetModuleContext(module.as_mut_ptr());
        // Without debug information for a registered function there is nothing to look for.
        let callers = if subprograms.is_empty() { &[][..] } else { differentiated };
        for caller in callers {
            let Some(f) = module.get_function(caller) else { continue };
            for bb in f.get_basic_blocks() {
                for inst in bb.get_instructions() {
                    let Some((name, site)) = inlined_from(ctx, inst.as_value_ref(), &subprograms) else { continue };
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
    }
    for (name, r) in registered {
        if warned.contains(name) || requested.contains(name) {
            continue;
        }
        let Some(f) = module.get_function(name) else { continue };
        // SAFETY: `f` is a function of the live module.
        if let Some(c) = unsafe { constant_result(f.as_value_ref()) }.filter(|_| r.result_matters) {
            eprintln!(
                "zyg: warning: {}: `{name}` {}, but it returns `{c}` on every path, so the compiler replaces the \
                 results of its calls by that constant (even with `ZYG_KEEP`) and {} for them",
                path.display(),
                r.what,
                r.lost
            );
            continue;
        }
        // SAFETY: `f` is a function of the live module; its uses are live values.
        let called = unsafe {
            let raw = f.as_value_ref();
            LLVMIsDeclaration(raw) != 0 || {
                let mut u = LLVMGetFirstUse(raw);
                let mut called = false;
                while !u.is_null() && !called {
                    let user = LLVMGetUser(u);
                    called = !LLVMIsACallInst(user).is_null() && LLVMGetCalledValue(user) == raw;
                    u = LLVMGetNextUse(u);
                }
                called
            }
        };
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

/// The constant a defined function returns on every path, if it does (LLVM's
/// interprocedural constant propagation then replaces its calls' results by it).
unsafe fn constant_result(f: LLVMValueRef) -> Option<String> {
    if LLVMIsDeclaration(f) != 0 {
        return None;
    }
    let mut value = None;
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let t = LLVMGetBasicBlockTerminator(bb);
        bb = LLVMGetNextBasicBlock(bb);
        if t.is_null() || LLVMIsAReturnInst(t).is_null() {
            continue;
        }
        if LLVMGetNumOperands(t) == 0 {
            return None;
        }
        let v = LLVMGetOperand(t, 0);
        let constant = !LLVMIsAConstantFP(v).is_null() || !LLVMIsAConstantInt(v).is_null();
        if !constant || value.is_some_and(|w| w != v) {
            return None;
        }
        value = Some(v);
    }
    let v = value?;
    Some(if LLVMIsAConstantFP(v).is_null() {
        LLVMConstIntGetSExtValue(v).to_string()
    } else {
        let mut loses = 0;
        LLVMConstRealGetDouble(v, &mut loses).to_string()
    })
}

/// The registered function (of `subprograms`) whose code `inst` is, inlined, and where it
/// was inlined (" at file:line:col" of the call it came from, when known).
unsafe fn inlined_from<'a>(
    ctx: LLVMContextRef,
    inst: LLVMValueRef,
    subprograms: &[(LLVMMetadataRef, &'a str)],
) -> Option<(&'a str, String)> {
    let mut loc = LLVMInstructionGetDebugLoc(inst);
    while !loc.is_null() {
        let at = LLVMDILocationGetInlinedAt(loc);
        if at.is_null() {
            return None;
        }
        let sp = subprogram_of(ctx, LLVMDILocationGetScope(loc));
        if let Some((_, name)) = subprograms.iter().find(|(s, _)| Some(*s) == sp) {
            return Some((name, site(at)));
        }
        loc = at;
    }
    None
}

/// The subprogram a scope is in: the scope itself, or the one its lexical blocks nest in.
unsafe fn subprogram_of(ctx: LLVMContextRef, mut scope: LLVMMetadataRef) -> Option<LLVMMetadataRef> {
    for _ in 0..64 {
        if scope.is_null() {
            return None;
        }
        match LLVMGetMetadataKind(scope) {
            LLVMMetadataKind::LLVMDISubprogramMetadataKind => return Some(scope),
            // A lexical block's operands are its file, then its parent scope.
            LLVMMetadataKind::LLVMDILexicalBlockMetadataKind | LLVMMetadataKind::LLVMDILexicalBlockFileMetadataKind => {
                let node = LLVMMetadataAsValue(ctx, scope);
                let n = LLVMGetMDNodeNumOperands(node) as usize;
                if n < 2 {
                    return None;
                }
                let mut ops = vec![std::ptr::null_mut(); n];
                LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                scope = if ops[1].is_null() { std::ptr::null_mut() } else { LLVMValueAsMetadata(ops[1]) };
            }
            _ => return None,
        }
    }
    None
}

/// " at file:line:col" of a debug location.
unsafe fn site(loc: LLVMMetadataRef) -> String {
    let scope = LLVMDILocationGetScope(loc);
    let file = LLVMDIScopeGetFile(scope);
    let name = if file.is_null() {
        String::new()
    } else {
        let mut len = 0u32;
        let p = LLVMDIFileGetFilename(file, &mut len);
        if p.is_null() { String::new() } else { String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned() }
    };
    format!(" at {name}:{}:{}", LLVMDILocationGetLine(loc), LLVMDILocationGetColumn(loc))
}
