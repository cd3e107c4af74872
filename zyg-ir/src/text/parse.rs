//! Parsing the text form: modules, functions and their blocks, and constants. The token
//! stream and types are in `cursor.rs`, instructions in `parse_inst.rs`. Errors carry line
//! and column; no input panics.

use super::cursor::Cursor;
use super::lex::Tok;
use super::ParseError;
use crate::constant::{f64_to_x87, Constant};
use crate::entities::{Block, Value};
use crate::function::{BlockData, Function, Linkage, Module, ValueData, ValueDef};
use crate::types::{FloatTy, Signature, Type};
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;

/// Parses a module: `declare` and `define` lines.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut cur = Cursor::new(text)?;
    let mut module = Module::default();
    loop {
        let start = cur.pos;
        match cur.peek() {
            Tok::Eof => break,
            Tok::Word(w) if w == "declare" => {
                cur.bump();
                let (name, sig, pure) = declaration(&mut cur)?;
                if pure {
                    module.pure.insert(name.clone());
                }
                match module.declarations.get(&name) {
                    Some(old) if *old != sig => return cur.error_at(start, format!("`@{name}` is declared twice, differently")),
                    _ => module.declarations.insert(name, sig),
                };
            }
            Tok::Word(w) if w == "define" => {
                cur.bump();
                let func = FunctionParser::parse(&mut cur)?;
                if module.function(&func.name).is_some() {
                    return cur.error_at(start, format!("`@{}` is defined twice", func.name));
                }
                module.functions.push(func);
            }
            _ => return cur.error("expected `declare` or `define`"),
        }
    }
    // As the LLVM reader does: a defined function is not also a declaration.
    for func in &module.functions {
        if let Some(sig) = module.declarations.remove(&func.name) {
            if sig != func.sig {
                return cur.error(format!("`@{}` is declared and defined with different signatures", func.name));
            }
        }
    }
    Ok(module)
}

/// Parses a module that defines exactly one function, and returns that function.
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let mut module = parse_module(text)?;
    if module.functions.len() != 1 {
        let message = format!("expected one function definition, found {}", module.functions.len());
        return Err(ParseError { line: 1, column: 1, message });
    }
    Ok(module.functions.remove(0))
}

/// `RET @name(TYPES[, ...]) [attributes]` after `declare`; also whether the attributes say
/// the function touches no memory (`memory(none)` or `readnone`, `Module::pure`).
fn declaration(cur: &mut Cursor) -> Result<(String, Signature, bool), ParseError> {
    let ret = cur.ty()?;
    let name = cur.global_name()?;
    cur.expect_punct('(')?;
    let (params, variadic) = cur.param_types()?;
    // Other attributes of declarations have nowhere to go in zyg-ir; read past them.
    let mut pure = false;
    while matches!(cur.peek(), Tok::Word(w) if w != "declare" && w != "define")
        || matches!(cur.peek(), Tok::Str(_) | Tok::Label(_) | Tok::Punct('(' | ')'))
    {
        match cur.bump() {
            Tok::Word(w) if w == "readnone" => pure = true,
            Tok::Word(w) if w == "memory" && matches!(cur.peek_at(1), Tok::Word(n) if n == "none") => pure = true,
            _ => {}
        }
    }
    Ok((name, Signature { params, ret, variadic }, pure))
}

/// A function being parsed: its name tables, and what was used before it was defined.
pub(super) struct FunctionParser<'c> {
    pub(super) cur: &'c mut Cursor,
    pub(super) func: Function,
    values: HashMap<String, Value>,
    /// Values used before their definition, with the name and token of their first use.
    forward: Vec<(Value, String, usize)>,
    blocks: HashMap<String, Block>,
    block_uses: SecondaryMap<Block, Option<usize>>,
    defined: SecondaryMap<Block, bool>,
}

impl<'c> FunctionParser<'c> {
    /// `define [internal] RET @name(T %a, ...) [attributes] { blocks }`, after `define`.
    fn parse(cur: &'c mut Cursor) -> Result<Function, ParseError> {
        let linkage = if cur.eat_word("internal") { Linkage::Internal } else { Linkage::External };
        cur.eat_word("external");
        let ret = cur.ty()?;
        let name = cur.global_name()?;
        cur.expect_punct('(')?;
        let (params, names, variadic) = params(cur)?;
        let mut func = Function::new(name, Signature { params, ret, variadic });
        func.linkage = linkage;
        func.attributes = attributes(cur);
        let mut p = FunctionParser {
            cur,
            func,
            values: HashMap::new(),
            forward: Vec::new(),
            blocks: HashMap::new(),
            block_uses: SecondaryMap::new(),
            defined: SecondaryMap::new(),
        };
        for ((name, pos), v) in names.into_iter().zip(p.func.params.clone()) {
            if let Some(name) = name {
                if p.values.insert(name.clone(), v).is_some() {
                    return p.cur.error_at(pos, format!("parameter `%{name}` is named twice"));
                }
            }
        }
        p.cur.expect_punct('{')?;
        p.body()?;
        p.finish()
    }

    /// Blocks up to the closing `}`. Each ends in its terminator; the entry may be unlabelled.
    fn body(&mut self) -> Result<(), ParseError> {
        let mut current: Option<(Block, bool)> = None;
        loop {
            let start = self.cur.pos;
            match self.cur.peek().clone() {
                Tok::Punct('}') | Tok::Label(_) | Tok::Eof => {
                    if let Some((b, false)) = current {
                        let label = self.func.block_label(b);
                        return self.cur.error(format!("block `{label}` does not end in a terminator"));
                    }
                    match self.cur.bump() {
                        Tok::Label(name) => current = Some((self.define_block(&name, start)?, false)),
                        Tok::Eof => return self.cur.error("expected `}` to close the function"),
                        _ => return Ok(()),
                    }
                }
                _ => {
                    let block = match current {
                        Some((b, false)) => b,
                        None if self.func.layout.is_empty() => self.define_block_unnamed(),
                        _ => return self.cur.error("an instruction after a terminator needs a new `label:`"),
                    };
                    let terminates = self.inst(block)?;
                    current = Some((block, terminates));
                }
            }
        }
    }

    /// Checks that everything used was defined, and returns the function.
    fn finish(self) -> Result<Function, ParseError> {
        // The closing `}` was just read; errors about the whole function point there.
        let end = self.cur.pos.saturating_sub(1);
        for (v, name, pos) in &self.forward {
            if self.func.values[*v].def == ValueDef::Pending {
                let (line, column) = self.cur.position(*pos);
                return self.cur.error_at(end, format!("value `%{name}` is used at {line}:{column} but never defined"));
            }
        }
        let mut undefined: Vec<(&String, &Block)> = self.blocks.iter().filter(|(_, b)| !self.defined[**b]).collect();
        undefined.sort_by_key(|(_, b)| **b);
        if let Some((name, b)) = undefined.first() {
            let (line, column) = self.cur.position(self.block_uses[**b].unwrap_or(end));
            return self.cur.error_at(end, format!("label `%{name}` is used at {line}:{column} but never defined"));
        }
        Ok(self.func)
    }

    fn block_ref(&mut self, name: &str, pos: usize) -> Block {
        if let Some(b) = self.blocks.get(name) {
            return *b;
        }
        // `bbN` is how unnamed blocks print, and LLVM numbers unnamed blocks: neither is a name.
        let numbered = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
        let unnamed = numbered(name) || name.strip_prefix("bb").is_some_and(numbered);
        let b = self.func.blocks.push(BlockData { name: (!unnamed).then(|| name.to_string()), insts: Vec::new() });
        self.blocks.insert(name.to_string(), b);
        self.block_uses[b] = Some(pos);
        b
    }

    fn define_block(&mut self, name: &str, pos: usize) -> Result<Block, ParseError> {
        let b = self.block_ref(name, pos);
        if self.defined[b] {
            return self.cur.error_at(pos, format!("label `{name}` is defined twice"));
        }
        self.defined[b] = true;
        self.func.layout.push(b);
        Ok(b)
    }

    fn define_block_unnamed(&mut self) -> Block {
        let b = self.func.blocks.push(BlockData::default());
        self.defined[b] = true;
        self.func.layout.push(b);
        b
    }

    /// `label %name`.
    pub(super) fn label(&mut self) -> Result<Block, ParseError> {
        self.cur.expect_word("label")?;
        self.block_name()
    }

    /// `%name` naming a block.
    pub(super) fn block_name(&mut self) -> Result<Block, ParseError> {
        let pos = self.cur.pos;
        match self.cur.peek() {
            Tok::Local(n) => {
                let n = n.clone();
                self.cur.bump();
                Ok(self.block_ref(&n, pos))
            }
            _ => self.cur.error("expected a block `%label`"),
        }
    }

    /// The value named `%name` used as a `ty`; a forward reference creates it pending.
    pub(super) fn local(&mut self, name: &str, ty: &Type, pos: usize) -> Result<Value, ParseError> {
        if let Some(v) = self.values.get(name) {
            if self.func.ty(*v) != ty {
                return self.cur.error_at(pos, format!("`%{name}` has type {}, not {ty}", self.func.ty(*v)));
            }
            return Ok(*v);
        }
        let v = self.func.values.push(ValueData { ty: ty.clone(), def: ValueDef::Pending });
        self.values.insert(name.to_string(), v);
        self.forward.push((v, name.to_string(), pos));
        Ok(v)
    }

    /// Binds `%name` to the result of `inst`: a new value, or the pending one of a forward use.
    pub(super) fn define_result(&mut self, name: &str, ty: &Type, def: ValueDef, pos: usize) -> Result<Value, ParseError> {
        let v = self.local(name, ty, pos)?;
        if self.func.values[v].def != ValueDef::Pending {
            return self.cur.error_at(pos, format!("`%{name}` is defined twice"));
        }
        self.func.values[v].def = def;
        Ok(v)
    }

    /// `TYPE VALUE`.
    pub(super) fn typed_operand(&mut self) -> Result<Value, ParseError> {
        let ty = self.cur.value_type()?;
        self.operand(&ty)
    }

    /// A value whose type is known from context: `%name`, `@global` or a literal.
    pub(super) fn operand(&mut self, ty: &Type) -> Result<Value, ParseError> {
        let pos = self.cur.pos;
        match self.cur.peek().clone() {
            Tok::Local(name) => {
                self.cur.bump();
                self.local(&name, ty, pos)
            }
            _ => {
                let c = self.constant(ty)?;
                Ok(self.func.constant_value(c))
            }
        }
    }

    /// A constant of type `ty`.
    pub(super) fn constant(&mut self, ty: &Type) -> Result<Constant, ParseError> {
        let pos = self.cur.pos;
        let c = match (self.cur.peek().clone(), ty) {
            (Tok::Word(w), _) if w == "undef" => Constant::Undef(ty.clone()),
            (Tok::Word(w), _) if w == "poison" => Constant::Poison(ty.clone()),
            (Tok::Word(w), _) if w == "zeroinitializer" => Constant::Zero(ty.clone()),
            (Tok::Word(w), Type::Int(1)) if w == "true" || w == "false" => Constant::bool(w == "true"),
            (Tok::Word(w), Type::Ptr(space)) if w == "null" => Constant::Null(*space),
            (Tok::Word(w), Type::Float(fty)) if w == "inf" || w == "nan" => {
                Constant::float(*fty, if w == "inf" { f64::INFINITY } else { f64::NAN })
            }
            (Tok::Global(name), Type::Ptr(space)) => Constant::Global(name, *space),
            (Tok::Punct('<'), Type::Vector(n, elem)) => {
                // `<double 1.0, double 2.0>`: one typed literal per lane.
                self.cur.bump();
                let mut lanes = Vec::new();
                loop {
                    let lane_pos = self.cur.pos;
                    let lane_ty = self.cur.value_type()?;
                    if lane_ty != **elem {
                        return self.cur.error_at(lane_pos, format!("a lane of {ty} must have type {elem}"));
                    }
                    lanes.push(self.constant(&lane_ty)?);
                    if !self.cur.eat_punct(',') {
                        break;
                    }
                }
                if !self.cur.eat_punct('>') {
                    return self.cur.error("expected `>` after the vector's lanes");
                }
                if lanes.len() != *n as usize {
                    return self.cur.error_at(pos, format!("{ty} needs {n} lanes, not {}", lanes.len()));
                }
                return Ok(Constant::Vector(lanes));
            }
            (Tok::Number(n), Type::Int(bits)) => match int_constant(&n, *bits) {
                Some(c) => c,
                None => return self.cur.error_at(pos, format!("`{n}` is not a constant of type {ty}")),
            },
            (Tok::Number(n), Type::Float(fty)) => match float_constant(&n, *fty) {
                Some(c) => c,
                None => return self.cur.error_at(pos, format!("`{n}` is not a constant of type {ty}")),
            },
            (Tok::Word(_) | Tok::Global(_) | Tok::Number(_), _) => {
                return self.cur.error(format!("this is not a constant of type {ty}"));
            }
            _ => return self.cur.error(format!("expected a value of type {ty}")),
        };
        self.cur.bump();
        Ok(c)
    }
}

/// `T %a, T %b, ...)` of a definition, after the `(`: types, names with their tokens, `...`.
type Params = (Vec<Type>, Vec<(Option<String>, usize)>, bool);

fn params(cur: &mut Cursor) -> Result<Params, ParseError> {
    let (mut types, mut names) = (Vec::new(), Vec::new());
    if cur.eat_punct(')') {
        return Ok((types, names, false));
    }
    loop {
        if cur.eat_word("...") {
            cur.expect_punct(')')?;
            return Ok((types, names, true));
        }
        types.push(cur.value_type()?);
        let pos = cur.pos;
        match cur.peek().clone() {
            Tok::Local(n) => {
                cur.bump();
                names.push((Some(n), pos));
            }
            _ => names.push((None, pos)),
        }
        if cur.eat_punct(')') {
            return Ok((types, names, false));
        }
        cur.expect_punct(',')?;
    }
}

/// Function attributes before the body: `#alwaysinline`, `alwaysinline` or `"any text"`.
fn attributes(cur: &mut Cursor) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        match cur.peek().clone() {
            Tok::Word(w) => out.push(w.strip_prefix('#').unwrap_or(&w).to_string()),
            Tok::Str(s) => out.push(s),
            _ => return out,
        }
        cur.bump();
    }
}

/// A decimal integer that fits `bits` as a signed or an unsigned number.
fn int_constant(text: &str, bits: u32) -> Option<Constant> {
    let value: i128 = match text.parse::<i128>() {
        Ok(v) => v,
        // Above i128::MAX: only 128-bit and wider integers hold it.
        Err(_) => return text.parse::<u128>().ok().filter(|_| bits >= 128).map(|value| Constant::Int { bits, value }),
    };
    let fits = match bits {
        128 => true,
        b if b > 128 => value >= 0,
        b => value >= -(1i128 << (b - 1)) && value < (1i128 << b),
    };
    fits.then(|| Constant::int(bits, value))
}

/// A float literal: decimal, `0x` hex bits, or `0xK` x87 bits.
///
/// `0x` with up to 8 digits is a `float`'s own bits; with 9 to 16 digits it is a `double`'s,
/// as LLVM writes every `float` and `double` constant (a `float` must be exact).
fn float_constant(text: &str, ty: FloatTy) -> Option<Constant> {
    let hex = |digits: &str, max: usize| {
        (!digits.is_empty() && digits.len() <= max && digits.bytes().all(|c| c.is_ascii_hexdigit()))
            .then(|| u128::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let bits = if let Some(digits) = text.strip_prefix("0xK") {
        (ty == FloatTy::X86Fp80).then_some(hex(digits, 20)?)?
    } else if let Some(digits) = text.strip_prefix("0x") {
        let value = hex(digits, 16)?;
        match ty {
            FloatTy::F32 if digits.len() <= 8 => value,
            FloatTy::F32 => u128::from(f64_bits_to_f32_exact(value as u64)?),
            FloatTy::F64 => value,
            FloatTy::X86Fp80 => f64_to_x87(f64::from_bits(value as u64)),
        }
    } else {
        match ty {
            FloatTy::F32 => u128::from(text.parse::<f32>().ok()?.to_bits()),
            FloatTy::F64 => u128::from(text.parse::<f64>().ok()?.to_bits()),
            FloatTy::X86Fp80 => f64_to_x87(text.parse::<f64>().ok()?),
        }
    };
    Some(Constant::Float { ty, bits })
}

/// The `float` with the same value as the `double` with bits `d`, if there is one (NaNs
/// keep their payload, as LLVM's hex form of a `float` NaN does).
fn f64_bits_to_f32_exact(d: u64) -> Option<u32> {
    let sign = ((d >> 63) as u32) << 31;
    if (d >> 52) & 0x7ff == 0x7ff {
        let frac = d & ((1 << 52) - 1);
        return (frac & ((1 << 29) - 1) == 0).then_some(sign | (0xff << 23) | (frac >> 29) as u32);
    }
    let x = f64::from_bits(d);
    let f = x as f32;
    (f64::from(f).to_bits() == d).then_some(f.to_bits())
}
