//! Printing zyg-ir as text: values as `%<entity number>`, blocks by their unique name or
//! `bb<entity number>`, every operand with its type.

use super::{quote, sigil_name};
use crate::constant::Constant;
use crate::entities::{Block, Inst, Value};
use crate::function::{Function, Linkage, Module, ValueDef};
use crate::inst::{Callee, InstKind};
use crate::types::{FloatTy, Signature, Type};
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;
use std::fmt::Write;

/// The module: its declarations, then its functions, separated by blank lines.
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    for (name, sig) in &module.declarations {
        let pure = if module.is_pure(name) { " memory(none)" } else { "" };
        let _ = writeln!(out, "declare {} {}({}){pure}", sig.ret, sigil_name('@', name), param_types(sig));
    }
    for func in &module.functions {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&print_function(func));
    }
    out
}

/// One instruction as the text form writes it (without its source location): for messages.
pub fn print_inst(func: &Function, inst: Inst) -> String {
    let p = Printer::new(func);
    let data = &func.insts[inst];
    match data.result {
        Some(v) => format!("{v} = {}", p.body(&data.kind, func.ty(v))),
        None => p.body(&data.kind, &Type::Void),
    }
}

pub fn print_function(func: &Function) -> String {
    let p = Printer::new(func);
    let mut out = String::new();
    let linkage = if func.linkage == Linkage::Internal { "internal " } else { "" };
    let mut params: Vec<String> = func.params.iter().map(|v| format!("{} {v}", func.ty(*v))).collect();
    if func.sig.variadic {
        params.push("...".into());
    }
    let attrs: String = func.attributes.iter().map(|a| format!(" {}", attribute(a))).collect();
    let name = sigil_name('@', &func.name);
    let _ = writeln!(out, "define {linkage}{} {name}({}){attrs} {{", func.sig.ret, params.join(", "));
    // Handler blocks (reached only by unwinding) follow the normal ones, marked so; the
    // text form prints them for messages and dumps, and does not read them back.
    let handlers = func.handlers.iter().map(|b| (*b, "  ; handler"));
    for (b, mark) in func.layout.iter().map(|b| (*b, "")).chain(handlers) {
        let _ = writeln!(out, "{}:{mark}", p.labels[b]);
        for &inst in &func.blocks[b].insts {
            let _ = writeln!(out, "  {}", p.inst(inst));
        }
    }
    out.push_str("}\n");
    out
}

fn param_types(sig: &Signature) -> String {
    let mut parts: Vec<String> = sig.params.iter().map(Type::to_string).collect();
    if sig.variadic {
        parts.push("...".into());
    }
    parts.join(", ")
}

/// `#name` for a plain attribute, else the quoted text.
fn attribute(a: &str) -> String {
    let plain = sigil_name('#', a);
    if plain.starts_with("#\"") {
        quote(a)
    } else {
        plain
    }
}

struct Printer<'f> {
    func: &'f Function,
    labels: SecondaryMap<Block, String>,
}

impl<'f> Printer<'f> {
    /// A block prints by its name when no other block has that name and it reads as a bare
    /// label that cannot be mistaken for another block's number; else as `bb<number>`.
    fn new(func: &'f Function) -> Self {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for (_, data) in func.blocks.iter() {
            if let Some(n) = &data.name {
                *count.entry(n.as_str()).or_default() += 1;
            }
        }
        let mut labels = SecondaryMap::new();
        for (b, data) in func.blocks.iter() {
            labels[b] = match &data.name {
                Some(n) if count[n.as_str()] == 1 && is_plain_label(n) => n.clone(),
                _ => b.to_string(),
            };
        }
        Printer { func, labels }
    }

    fn label(&self, b: Block) -> String {
        format!("%{}", self.labels[b])
    }

    /// `double %3` or `i32 7`.
    fn operand(&self, v: Value) -> String {
        format!("{} {}", self.func.ty(v), self.bare(v))
    }

    fn operands(&self, vs: &[Value]) -> String {
        vs.iter().map(|v| self.operand(*v)).collect::<Vec<_>>().join(", ")
    }

    /// `%3` or a constant's literal.
    fn bare(&self, v: Value) -> String {
        match &self.func.values[v].def {
            ValueDef::Const(c) => constant(c),
            _ => v.to_string(),
        }
    }

    fn inst(&self, inst: Inst) -> String {
        let data = &self.func.insts[inst];
        let mut text = match data.result {
            Some(v) => format!("{v} = {}", self.body(&data.kind, self.func.ty(v))),
            None => self.body(&data.kind, &Type::Void),
        };
        if let Some(loc) = &data.loc {
            let _ = write!(text, ", !loc({}, {}, {})", quote(&loc.file), loc.line, loc.column);
        }
        text
    }

    /// The instruction after `%v = `; `ty` is its result's type.
    fn body(&self, kind: &InstKind, ty: &Type) -> String {
        let name = kind.opcode_name();
        match kind {
            InstKind::Binary { args, .. } | InstKind::FCmp { args, .. } | InstKind::ICmp { args, .. } => {
                let pred = match kind {
                    InstKind::FCmp { pred, .. } => format!(" {}", pred.name()),
                    InstKind::ICmp { pred, .. } => format!(" {}", pred.name()),
                    _ => String::new(),
                };
                format!("{name}{pred} {}", self.operands(args))
            }
            InstKind::Unary { arg, .. } => format!("{name} {}", self.operand(*arg)),
            InstKind::Cast { arg, .. } => format!("{name} {} to {ty}", self.operand(*arg)),
            InstKind::Select { cond, then_value, else_value } => {
                format!("select {}", self.operands(&[*cond, *then_value, *else_value]))
            }
            InstKind::Phi { incoming } => {
                let arms: Vec<String> =
                    incoming.iter().map(|(b, v)| format!("[ {}, {} ]", self.bare(*v), self.label(*b))).collect();
                format!("phi {ty} {}", arms.join(", "))
            }
            InstKind::Call { callee, sig, args, unwind: None } => self.call(callee, sig, args),
            InstKind::Call { callee, sig, args, unwind: Some(pad) } => {
                format!("{} unwind label {}", self.call(callee, sig, args), self.label(*pad))
            }
            InstKind::LandingPad { cleanup, clauses } => {
                let mut parts = vec![format!("landingpad {ty}")];
                if *cleanup {
                    parts.push("cleanup".into());
                }
                parts.extend(clauses.iter().map(|c| format!("catch {}", self.operand(*c))));
                parts.join(" ")
            }
            InstKind::Alloca { ty: allocated } => match ty {
                Type::Ptr(space) if *space != 0 => format!("alloca {allocated}, addrspace({space})"),
                _ => format!("alloca {allocated}"),
            },
            InstKind::Load { ty, ptr } => format!("load {ty}, {}", self.operand(*ptr)),
            InstKind::Store { value, ptr } => format!("store {}", self.operands(&[*value, *ptr])),
            InstKind::AtomicFAdd { ptr, value, ordering } => {
                format!("atomicrmw fadd {} {}", self.operands(&[*ptr, *value]), ordering.name())
            }
            InstKind::CmpXchg { ptr, expected, new, success, failure, weak, volatile } => {
                let weak = if *weak { "weak " } else { "" };
                let volatile = if *volatile { "volatile " } else { "" };
                let operands = self.operands(&[*ptr, *expected, *new]);
                format!("cmpxchg {weak}{volatile}{operands} {} {}", success.name(), failure.name())
            }
            InstKind::AtomicRmw { op, ptr, value, ordering, volatile } => {
                let volatile = if *volatile { "volatile " } else { "" };
                format!("atomicrmw {volatile}{} {} {}", op.name(), self.operands(&[*ptr, *value]), ordering.name())
            }
            InstKind::Gep { source_ty, base, indices, inbounds } => {
                let inbounds = if *inbounds { "inbounds " } else { "" };
                let mut all = vec![*base];
                all.extend(indices);
                format!("getelementptr {inbounds}{source_ty}, {}", self.operands(&all))
            }
            InstKind::ExtractValue { agg, indices } => format!("extractvalue {}, {}", self.operand(*agg), list(indices)),
            InstKind::InsertValue { agg, value, indices } => {
                format!("insertvalue {}, {}", self.operands(&[*agg, *value]), list(indices))
            }
            InstKind::ExtractElement { vec, index } => format!("extractelement {}", self.operands(&[*vec, *index])),
            InstKind::InsertElement { vec, value, index } => {
                format!("insertelement {}", self.operands(&[*vec, *value, *index]))
            }
            InstKind::ShuffleVector { a, b, mask } => {
                let lanes: Vec<String> = mask.iter().map(i32::to_string).collect();
                format!("shufflevector {}, [{}]", self.operands(&[*a, *b]), lanes.join(", "))
            }
            _ => self.terminator(kind),
        }
    }

    /// `call RET @f(args)`; the callee's parameter list is printed only when the arguments do
    /// not spell it (a variadic callee, or arguments of other types).
    fn call(&self, callee: &Callee, sig: &Signature, args: &[Value]) -> String {
        let target = match callee {
            Callee::Direct(name) => sigil_name('@', name),
            Callee::Indirect(v) => self.bare(*v),
        };
        let arg_types: Vec<Type> = args.iter().map(|a| self.func.ty(*a).clone()).collect();
        let explicit = if sig.variadic || sig.params != arg_types { format!(" ({})", param_types(sig)) } else { String::new() };
        format!("call {}{explicit} {target}({})", sig.ret, self.operands(args))
    }

    fn terminator(&self, kind: &InstKind) -> String {
        match kind {
            InstKind::Br { dest } => format!("br label {}", self.label(*dest)),
            InstKind::CondBr { cond, then_dest, else_dest } => {
                format!("br {}, label {}, label {}", self.operand(*cond), self.label(*then_dest), self.label(*else_dest))
            }
            InstKind::Switch { value, default, cases } => {
                let arms: Vec<String> =
                    cases.iter().map(|(c, b)| format!("{} {}, label {}", c.ty(), constant(c), self.label(*b))).collect();
                format!("switch {}, label {} [ {} ]", self.operand(*value), self.label(*default), arms.join("  "))
            }
            InstKind::Ret { value: Some(v) } => format!("ret {}", self.operand(*v)),
            InstKind::Ret { value: None } => "ret void".into(),
            InstKind::Unreachable => "unreachable".into(),
            InstKind::Resume { value } => format!("resume {}", self.operand(*value)),
            other => format!("; not a terminator: {other:?}"),
        }
    }
}

fn list(indices: &[u32]) -> String {
    indices.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// A label that prints bare: a name that is not a number, nor `bb` and a number (how
/// unnamed blocks print).
fn is_plain_label(n: &str) -> bool {
    let numbered = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    !n.starts_with(|c: char| c.is_ascii_digit() || c == '-')
        && !n.strip_prefix("bb").is_some_and(numbered)
        && sigil_name('%', n).len() == n.len() + 1
}

/// A constant's literal. Floats print as the shortest decimal that reads back to the same
/// bits, else as their bits in hex (`0x`, LLVM's form; `0xK` and 20 digits for x86_fp80).
pub(crate) fn constant(c: &Constant) -> String {
    match c {
        Constant::Int { bits: 1, value } => (if *value & 1 == 1 { "true" } else { "false" }).into(),
        Constant::Int { bits, value } if *bits > 128 => value.to_string(),
        Constant::Int { .. } => c.as_i128().unwrap_or_default().to_string(),
        Constant::Float { ty, bits } => float_literal(*ty, *bits),
        Constant::Null(_) => "null".into(),
        Constant::Global(name, _) => sigil_name('@', name),
        Constant::Undef(_) => "undef".into(),
        Constant::Poison(_) => "poison".into(),
        Constant::Zero(_) => "zeroinitializer".into(),
        Constant::Vector(lanes) => {
            let lanes: Vec<String> = lanes.iter().map(|l| format!("{} {}", l.ty(), constant(l))).collect();
            format!("<{}>", lanes.join(", "))
        }
    }
}

fn float_literal(ty: FloatTy, bits: u128) -> String {
    match ty {
        FloatTy::F32 => {
            let x = f32::from_bits(bits as u32);
            let text = format!("{x:?}");
            if x.is_finite() && text.parse::<f32>().map(f32::to_bits) == Ok(bits as u32) && bits >> 32 == 0 {
                text
            } else {
                format!("0x{:08X}", bits as u32)
            }
        }
        FloatTy::F64 => {
            let x = f64::from_bits(bits as u64);
            let text = format!("{x:?}");
            if x.is_finite() && text.parse::<f64>().map(f64::to_bits) == Ok(bits as u64) && bits >> 64 == 0 {
                text
            } else {
                format!("0x{:016X}", bits as u64)
            }
        }
        FloatTy::X86Fp80 => format!("0xK{:020X}", bits & ((1u128 << 80) - 1)),
    }
}
