//! Printing zyg-ir as text.

use crate::constant::Constant;
use crate::entities::{Block, Value};
use crate::function::{Function, Linkage, Module, ValueDef};
use crate::inst::{Callee, InstKind};
use crate::types::{FloatTy, Signature, Type};
use std::collections::HashSet;
use std::fmt::Write;

pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    for (name, sig) in &module.declarations {
        let _ = writeln!(out, "declare {} @{name}({})", sig.ret, param_types(sig));
    }
    for f in &module.functions {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&print_function(f));
    }
    out
}

fn param_types(sig: &Signature) -> String {
    let mut parts: Vec<String> = sig.params.iter().map(Type::to_string).collect();
    if sig.variadic {
        parts.push("...".into());
    }
    parts.join(", ")
}

pub fn print_function(f: &Function) -> String {
    let p = Printer::new(f);
    let mut out = String::new();
    let linkage = if f.linkage == Linkage::Internal { "internal " } else { "" };
    let params: Vec<String> = f.params.iter().map(|v| format!("{} {v}", f.ty(*v))).collect();
    let mut params = params.join(", ");
    if f.sig.variadic {
        params.push_str(if params.is_empty() { "..." } else { ", ..." });
    }
    let attrs: String = f.attributes.iter().map(|a| format!(" #{a}")).collect();
    let _ = writeln!(out, "define {linkage}{} @{}({params}){attrs} {{", f.sig.ret, f.name);
    for &b in &f.layout {
        let _ = writeln!(out, "{}:", p.label(b));
        for &inst in &f.blocks[b].insts {
            let _ = writeln!(out, "  {}", p.inst(inst));
        }
    }
    out.push_str("}\n");
    out
}

struct Printer<'f> {
    f: &'f Function,
    /// Blocks printed by their source name (unique names only).
    named: HashSet<Block>,
}

impl<'f> Printer<'f> {
    fn new(f: &'f Function) -> Self {
        let mut count = std::collections::HashMap::new();
        for b in &f.layout {
            if let Some(n) = &f.blocks[*b].name {
                *count.entry(n.as_str()).or_insert(0) += 1;
            }
        }
        let named = f
            .layout
            .iter()
            .copied()
            .filter(|b| {
                f.blocks[*b].name.as_deref().is_some_and(|n| count[n] == 1 && is_label(n) && !is_entity_label(n))
            })
            .collect();
        Printer { f, named }
    }

    fn label(&self, b: Block) -> String {
        if self.named.contains(&b) {
            self.f.blocks[b].name.clone().unwrap_or_default()
        } else {
            b.to_string()
        }
    }

    /// `double %3` or `i32 7`: every operand with its type.
    fn operand(&self, v: Value) -> String {
        format!("{} {}", self.f.ty(v), self.bare(v))
    }

    fn bare(&self, v: Value) -> String {
        match &self.f.values[v].def {
            ValueDef::Const(c) => constant(c),
            _ => v.to_string(),
        }
    }

    fn inst(&self, inst: crate::entities::Inst) -> String {
        let data = &self.f.insts[inst];
        let lhs = data.result.map(|v| format!("{v} = ")).unwrap_or_default();
        let ty = data.result.map(|v| self.f.ty(v).to_string()).unwrap_or_else(|| "void".into());
        let ops = |vs: &[Value]| vs.iter().map(|v| self.operand(*v)).collect::<Vec<_>>().join(", ");
        let body = match &data.kind {
            InstKind::Binary { op, args } => format!("{} {}", op.name(), ops(args)),
            InstKind::Unary { arg, .. } => format!("{} {}", data.kind.opcode_name(), self.operand(*arg)),
            InstKind::Cast { op, arg } => format!("{} {} to {ty}", op.name(), self.operand(*arg)),
            InstKind::FCmp { pred, args } => format!("fcmp {} {}", pred.name(), ops(args)),
            InstKind::ICmp { pred, args } => format!("icmp {} {}", pred.name(), ops(args)),
            InstKind::Select { cond, then_value, else_value } => {
                format!("select {}", ops(&[*cond, *then_value, *else_value]))
            }
            InstKind::Phi { incoming } => {
                let arms: Vec<String> =
                    incoming.iter().map(|(b, v)| format!("[ {}, %{} ]", self.bare(*v), self.label(*b))).collect();
                format!("phi {ty} {}", arms.join(", "))
            }
            InstKind::Call { callee, sig, args } => {
                let target = match callee {
                    Callee::Direct(n) => format!("@{n}"),
                    Callee::Indirect(v) => self.bare(*v),
                };
                format!("call {} ({}) {target}({})", sig.ret, param_types(sig), ops(args))
            }
            InstKind::Alloca { ty } => format!("alloca {ty}"),
            InstKind::Load { ty, ptr } => format!("load {ty}, {}", self.operand(*ptr)),
            InstKind::Store { value, ptr } => format!("store {}", ops(&[*value, *ptr])),
            InstKind::Gep { source_ty, base, indices, inbounds } => {
                let mut all = vec![*base];
                all.extend(indices);
                let ib = if *inbounds { "inbounds " } else { "" };
                format!("getelementptr {ib}{source_ty}, {}", ops(&all))
            }
            InstKind::ExtractValue { agg, indices } => format!("extractvalue {}, {}", self.operand(*agg), list(indices)),
            InstKind::InsertValue { agg, value, indices } => {
                format!("insertvalue {}, {}", ops(&[*agg, *value]), list(indices))
            }
            InstKind::Br { dest } => format!("br label %{}", self.label(*dest)),
            InstKind::CondBr { cond, then_dest, else_dest } => format!(
                "br {}, label %{}, label %{}",
                self.operand(*cond),
                self.label(*then_dest),
                self.label(*else_dest)
            ),
            InstKind::Switch { value, default, cases } => {
                let arms: Vec<String> = cases
                    .iter()
                    .map(|(c, b)| format!("{} {}, label %{}", c.ty(), constant(c), self.label(*b)))
                    .collect();
                format!("switch {}, label %{} [ {} ]", self.operand(*value), self.label(*default), arms.join("  "))
            }
            InstKind::Ret { value: Some(v) } => format!("ret {}", self.operand(*v)),
            InstKind::Ret { value: None } => "ret void".into(),
            InstKind::Unreachable => "unreachable".into(),
        };
        format!("{lhs}{body}")
    }
}

fn list(indices: &[u32]) -> String {
    indices.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// Labels print bare when they are plain identifiers.
fn is_label(n: &str) -> bool {
    !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !n.starts_with(|c: char| c.is_ascii_digit())
}

/// `bb3` is how unnamed blocks print; a source block named so would be ambiguous.
fn is_entity_label(n: &str) -> bool {
    n.strip_prefix("bb").is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
}

/// A constant's literal. Floats print as decimals when that round-trips exactly, else as
/// their bits (`0x...`, LLVM's convention; `0xK...` for x86_fp80).
pub(crate) fn constant(c: &Constant) -> String {
    match c {
        Constant::Int { bits: 1, value } => (if *value == 1 { "true" } else { "false" }).into(),
        Constant::Int { .. } => c.as_i128().unwrap_or_default().to_string(),
        Constant::Float { ty: FloatTy::X86Fp80, bits } => format!("0xK{bits:020X}"),
        Constant::Float { ty, bits } => {
            let x = c.as_f64().unwrap_or_default();
            let text = format!("{x:?}");
            let exact = match ty {
                FloatTy::F32 => text.parse::<f32>().ok().map(|y| u128::from(y.to_bits())) == Some(*bits),
                _ => text.parse::<f64>().ok().map(|y| u128::from(y.to_bits())) == Some(*bits),
            };
            if exact && x.is_finite() {
                text
            } else {
                format!("0x{bits:X}")
            }
        }
        Constant::Null(_) => "null".into(),
        Constant::Global(name) => format!("@{name}"),
        Constant::Undef(_) => "undef".into(),
        Constant::Poison(_) => "poison".into(),
        Constant::Zero(_) => "zeroinitializer".into(),
    }
}
