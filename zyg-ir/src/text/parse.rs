//! Parsing the text form back into zyg-ir. Errors carry line and column; no input panics.

use crate::constant::Constant;
use crate::entities::{Block, Value};
use crate::function::{BlockData, Function, Linkage, Module, ValueData, ValueDef};
use crate::inst::{BinOp, CastOp, Callee, FloatPred, InstKind, IntPred, UnOp};
use crate::types::{FloatTy, Signature, Type};
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Local(String),
    Global(String),
    Attr(String),
    Num(String),
    Punct(char),
    Ellipsis,
}

struct Lexer {
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
}

fn lex(text: &str) -> Result<Lexer, ParseError> {
    let mut toks = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.split(';').next().unwrap_or("");
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let start = i;
            let word = |i: &mut usize| {
                let s = *i;
                while *i < chars.len() && (chars[*i].is_ascii_alphanumeric() || "._-+$".contains(chars[*i])) {
                    *i += 1;
                }
                chars[s..*i].iter().collect::<String>()
            };
            let tok = if c.is_whitespace() {
                i += 1;
                continue;
            } else if c == '%' || c == '@' || c == '#' {
                i += 1;
                let w = word(&mut i);
                if w.is_empty() {
                    return Err(ParseError { line: ln + 1, column: start + 1, message: format!("a name must follow `{c}`") });
                }
                match c {
                    '%' => Tok::Local(w),
                    '@' => Tok::Global(w),
                    _ => Tok::Attr(w),
                }
            } else if c == '.' && line[start..].starts_with("...") {
                i += 3;
                Tok::Ellipsis
            } else if c.is_ascii_digit() || c == '-' || c == '+' {
                i += 1;
                Tok::Num(format!("{c}{}", word(&mut i)))
            } else if c.is_ascii_alphabetic() || c == '_' {
                Tok::Word(word(&mut i))
            } else if "(){}[]<>,=:*".contains(c) {
                i += 1;
                Tok::Punct(c)
            } else {
                return Err(ParseError { line: ln + 1, column: start + 1, message: format!("unexpected character `{c}`") });
            };
            toks.push((tok, ln + 1, start + 1));
        }
    }
    Ok(Lexer { toks, pos: 0 })
}

impl Lexer {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        let (line, column) = self
            .toks
            .get(self.pos)
            .or(self.toks.last())
            .map(|t| (t.1, t.2))
            .unwrap_or((1, 1));
        Err(ParseError { line, column, message: message.into() })
    }

    fn next(&mut self) -> Result<Tok, ParseError> {
        match self.toks.get(self.pos) {
            Some(t) => {
                self.pos += 1;
                Ok(t.0.clone())
            }
            None => self.err("unexpected end of input"),
        }
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(&Tok::Punct(c)) {
            Ok(())
        } else {
            self.err(format!("expected `{c}`"))
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        self.eat(&Tok::Word(w.into()))
    }

    fn word(&mut self) -> Result<String, ParseError> {
        match self.next()? {
            Tok::Word(w) => Ok(w),
            _ => {
                self.pos -= 1;
                self.err("expected a keyword")
            }
        }
    }

    fn number<T: std::str::FromStr>(&mut self) -> Result<T, ParseError> {
        match self.next()? {
            Tok::Num(n) => match n.parse() {
                Ok(v) => Ok(v),
                Err(_) => {
                    self.pos -= 1;
                    self.err(format!("bad number `{n}`"))
                }
            },
            _ => {
                self.pos -= 1;
                self.err("expected a number")
            }
        }
    }

    fn ty(&mut self) -> Result<Type, ParseError> {
        let t = self.next()?;
        let ty = match &t {
            Tok::Word(w) if w == "void" => Type::Void,
            Tok::Word(w) if w == "float" => Type::Float(FloatTy::F32),
            Tok::Word(w) if w == "double" => Type::Float(FloatTy::F64),
            Tok::Word(w) if w == "x86_fp80" => Type::Float(FloatTy::X86Fp80),
            Tok::Word(w) if w == "ptr" => {
                if self.eat_word("addrspace") {
                    self.expect('(')?;
                    let space = self.number()?;
                    self.expect(')')?;
                    Type::Ptr(space)
                } else {
                    Type::Ptr(0)
                }
            }
            Tok::Word(w) if w.starts_with('i') && w[1..].parse::<u32>().is_ok_and(|b| (1..=128).contains(&b)) => {
                Type::Int(w[1..].parse().unwrap_or(32))
            }
            Tok::Punct('<') | Tok::Punct('[') => {
                let close = if t == Tok::Punct('<') { '>' } else { ']' };
                let n: u64 = self.number()?;
                if !self.eat_word("x") {
                    return self.err("expected `x` in a vector or array type");
                }
                let elem = self.ty()?;
                self.expect(close)?;
                if close == '>' {
                    Type::Vector(u32::try_from(n).unwrap_or(u32::MAX), elem.into())
                } else {
                    Type::Array(n, elem.into())
                }
            }
            Tok::Punct('{') => {
                let mut fields = Vec::new();
                if !self.eat(&Tok::Punct('}')) {
                    loop {
                        fields.push(self.ty()?);
                        if self.eat(&Tok::Punct('}')) {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                Type::structure(fields)
            }
            _ => {
                self.pos -= 1;
                return self.err("expected a type");
            }
        };
        Ok(ty)
    }

    /// `(T, T, ...)` of a signature.
    fn param_types(&mut self) -> Result<(Vec<Type>, bool), ParseError> {
        self.expect('(')?;
        let mut params = Vec::new();
        let mut variadic = false;
        if !self.eat(&Tok::Punct(')')) {
            loop {
                if self.eat(&Tok::Ellipsis) {
                    variadic = true;
                } else {
                    params.push(self.ty()?);
                }
                if self.eat(&Tok::Punct(')')) {
                    break;
                }
                self.expect(',')?;
            }
        }
        Ok((params, variadic))
    }
}

/// Parses a module in the text form.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut lx = lex(text)?;
    let mut module = Module::default();
    while lx.peek().is_some() {
        if lx.eat_word("declare") {
            let ret = lx.ty()?;
            let name = match lx.next()? {
                Tok::Global(n) => n,
                _ => return lx.err("expected `@name`"),
            };
            let (params, variadic) = lx.param_types()?;
            module.declarations.insert(name, Signature { params, ret, variadic });
        } else if lx.eat_word("define") {
            module.functions.push(FunctionParser::parse(&mut lx)?);
        } else {
            return lx.err("expected `declare` or `define`");
        }
    }
    Ok(module)
}

struct FunctionParser<'l> {
    lx: &'l mut Lexer,
    f: Function,
    values: HashMap<String, Value>,
    blocks: HashMap<String, Block>,
    defined_blocks: Vec<Block>,
}

impl<'l> FunctionParser<'l> {
    fn parse(lx: &'l mut Lexer) -> Result<Function, ParseError> {
        let internal = lx.eat_word("internal");
        let ret = lx.ty()?;
        let name = match lx.next()? {
            Tok::Global(n) => n,
            _ => return lx.err("expected `@name`"),
        };
        lx.expect('(')?;
        let (mut params, mut names, mut variadic) = (Vec::new(), Vec::new(), false);
        if !lx.eat(&Tok::Punct(')')) {
            loop {
                if lx.eat(&Tok::Ellipsis) {
                    variadic = true;
                } else {
                    params.push(lx.ty()?);
                    match lx.next()? {
                        Tok::Local(n) => names.push(n),
                        _ => return lx.err("expected a parameter name"),
                    }
                }
                if lx.eat(&Tok::Punct(')')) {
                    break;
                }
                lx.expect(',')?;
            }
        }
        let mut f = Function::new(name, Signature { params, ret, variadic });
        f.linkage = if internal { Linkage::Internal } else { Linkage::External };
        while let Some(Tok::Attr(a)) = lx.peek() {
            f.attributes.push(a.clone());
            lx.pos += 1;
        }
        let mut values = HashMap::new();
        for (n, v) in names.into_iter().zip(f.params.clone()) {
            if values.insert(n.clone(), v).is_some() {
                return lx.err(format!("parameter `%{n}` is named twice"));
            }
        }
        lx.expect('{')?;
        let mut p = FunctionParser { lx, f, values, blocks: HashMap::new(), defined_blocks: Vec::new() };
        p.body()?;
        p.finish()
    }

    fn body(&mut self) -> Result<(), ParseError> {
        let mut current: Option<Block> = None;
        loop {
            match self.lx.peek() {
                Some(Tok::Punct('}')) => {
                    self.lx.pos += 1;
                    return Ok(());
                }
                Some(Tok::Word(w)) if self.lx.peek_at(1) == Some(&Tok::Punct(':')) => {
                    let w = w.clone();
                    self.lx.pos += 2;
                    current = Some(self.define_block(&w)?);
                }
                Some(Tok::Num(w)) if self.lx.peek_at(1) == Some(&Tok::Punct(':')) => {
                    let w = w.clone();
                    self.lx.pos += 2;
                    current = Some(self.define_block(&w)?);
                }
                None => return self.lx.err("unexpected end of input in a function body"),
                _ => {
                    let Some(b) = current else { return self.lx.err("an instruction before the first label") };
                    self.inst(b)?;
                }
            }
        }
    }

    fn finish(mut self) -> Result<Function, ParseError> {
        for (name, b) in &self.blocks {
            if !self.defined_blocks.contains(b) {
                return self.lx.err(format!("label `%{name}` is used but never defined"));
            }
        }
        for (name, v) in &self.values {
            if self.f.values[*v].def == ValueDef::Pending {
                return self.lx.err(format!("value `%{name}` is used but never defined"));
            }
        }
        self.f.layout = self.defined_blocks;
        Ok(self.f)
    }

    fn block_ref(&mut self, name: &str) -> Block {
        if let Some(b) = self.blocks.get(name) {
            return *b;
        }
        // `bbN` is how unnamed blocks print; they stay unnamed.
        let label = (!name.strip_prefix("bb").is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())))
            .then(|| name.to_string());
        let b = self.f.blocks.push(BlockData { name: label, insts: Vec::new() });
        self.blocks.insert(name.to_string(), b);
        b
    }

    fn define_block(&mut self, name: &str) -> Result<Block, ParseError> {
        let b = self.block_ref(name);
        if self.defined_blocks.contains(&b) {
            return self.lx.err(format!("label `{name}` is defined twice"));
        }
        self.defined_blocks.push(b);
        Ok(b)
    }

    fn label(&mut self) -> Result<Block, ParseError> {
        if !self.lx.eat_word("label") {
            return self.lx.err("expected `label`");
        }
        match self.lx.next()? {
            Tok::Local(n) => Ok(self.block_ref(&n)),
            _ => self.lx.err("expected `%label`"),
        }
    }

    /// A local value by name, created pending (with its type) when used before defined.
    fn local(&mut self, name: &str, ty: &Type) -> Result<Value, ParseError> {
        if let Some(v) = self.values.get(name) {
            if self.f.ty(*v) != ty {
                // Point at the name just read.
                self.lx.pos = self.lx.pos.saturating_sub(1);
                return self.lx.err(format!("`%{name}` has type {}, not {ty}", self.f.ty(*v)));
            }
            return Ok(*v);
        }
        let v = self.f.values.push(ValueData { ty: ty.clone(), def: ValueDef::Pending });
        self.values.insert(name.to_string(), v);
        Ok(v)
    }

    /// An untyped operand whose type is known from context: `%5` or a literal.
    fn bare(&mut self, ty: &Type) -> Result<Value, ParseError> {
        match self.lx.next()? {
            Tok::Local(n) => self.local(&n, ty),
            Tok::Global(n) => Ok(self.f.constant_value(Constant::Global(n))),
            tok => {
                self.lx.pos -= 1;
                let c = self.literal(tok, ty)?;
                Ok(self.f.constant_value(c))
            }
        }
    }

    fn literal(&mut self, tok: Tok, ty: &Type) -> Result<Constant, ParseError> {
        self.lx.pos += 1;
        let bad = |lx: &Lexer, what: &str| lx.err(format!("`{what}` is not a constant of type {ty}"));
        Ok(match (&tok, ty) {
            (Tok::Word(w), Type::Int(1)) if w == "true" || w == "false" => Constant::bool(w == "true"),
            (Tok::Word(w), _) if w == "undef" => Constant::Undef(ty.clone()),
            (Tok::Word(w), _) if w == "poison" => Constant::Poison(ty.clone()),
            (Tok::Word(w), _) if w == "zeroinitializer" => Constant::Zero(ty.clone()),
            (Tok::Word(w), Type::Ptr(space)) if w == "null" => Constant::Null(*space),
            (Tok::Num(n), Type::Int(bits)) => match n.parse::<i128>() {
                Ok(v) => Constant::int(*bits, v),
                Err(_) => return bad(self.lx, n),
            },
            (Tok::Num(n), Type::Float(fty)) => {
                if let Some(hex) = n.strip_prefix("0xK") {
                    match u128::from_str_radix(hex, 16) {
                        Ok(bits) if *fty == FloatTy::X86Fp80 => Constant::Float { ty: *fty, bits },
                        _ => return bad(self.lx, n),
                    }
                } else if let Some(hex) = n.strip_prefix("0x") {
                    match u128::from_str_radix(hex, 16) {
                        Ok(bits) => Constant::Float { ty: *fty, bits },
                        Err(_) => return bad(self.lx, n),
                    }
                } else {
                    match n.parse::<f64>() {
                        Ok(x) => Constant::float(*fty, x),
                        Err(_) => return bad(self.lx, n),
                    }
                }
            }
            (Tok::Word(w), Type::Float(fty)) if w == "inf" || w == "nan" => {
                Constant::float(*fty, if w == "inf" { f64::INFINITY } else { f64::NAN })
            }
            _ => {
                self.lx.pos -= 1;
                return self.lx.err(format!("expected a value of type {ty}"));
            }
        })
    }

    /// `T v`: a typed operand.
    fn operand(&mut self) -> Result<Value, ParseError> {
        let ty = self.lx.ty()?;
        self.bare(&ty)
    }

    fn operands<const N: usize>(&mut self) -> Result<[Value; N], ParseError> {
        let mut out = [Value::from_u32(0); N];
        for (i, slot) in out.iter_mut().enumerate() {
            if i > 0 {
                self.lx.expect(',')?;
            }
            *slot = self.operand()?;
        }
        Ok(out)
    }

    fn indices(&mut self) -> Result<Vec<u32>, ParseError> {
        let mut out = Vec::new();
        while self.lx.eat(&Tok::Punct(',')) {
            out.push(self.lx.number()?);
        }
        Ok(out)
    }

    fn inst(&mut self, block: Block) -> Result<(), ParseError> {
        // Errors found after the whole instruction is read point at its start.
        let start = self.lx.pos;
        let result_name = match (self.lx.peek(), self.lx.peek_at(1)) {
            (Some(Tok::Local(n)), Some(Tok::Punct('='))) => {
                let n = n.clone();
                self.lx.pos += 2;
                Some(n)
            }
            _ => None,
        };
        let op = self.lx.word()?;
        let (kind, ty) = self.inst_body(&op)?;
        if result_name.is_some() == ty.is_void() {
            self.lx.pos = start;
            return self.lx.err(if ty.is_void() {
                format!("`{op}` produces no value to name")
            } else {
                format!("the result of `{op}` needs a name")
            });
        }
        let inst = self.f.make_inst(kind, Type::Void);
        self.f.blocks[block].insts.push(inst);
        if let Some(name) = result_name {
            let v = self.local(&name, &ty)?;
            if self.f.values[v].def != ValueDef::Pending {
                self.lx.pos = start;
                return self.lx.err(format!("`%{name}` is defined twice"));
            }
            self.f.values[v].def = ValueDef::Inst(inst);
            self.f.insts[inst].result = Some(v);
        }
        Ok(())
    }

    fn inst_body(&mut self, op: &str) -> Result<(InstKind, Type), ParseError> {
        if let Some(bin) = BinOp::from_name(op) {
            let [a, b] = self.operands()?;
            return Ok((InstKind::Binary { op: bin, args: [a, b] }, self.f.ty(a).clone()));
        }
        if let Some(cast) = CastOp::from_name(op) {
            let arg = self.operand()?;
            if !self.lx.eat_word("to") {
                return self.lx.err("expected `to`");
            }
            return Ok((InstKind::Cast { op: cast, arg }, self.lx.ty()?));
        }
        Ok(match op {
            "fneg" | "freeze" => {
                let arg = self.operand()?;
                let un = if op == "fneg" { UnOp::FNeg } else { UnOp::Freeze };
                (InstKind::Unary { op: un, arg }, self.f.ty(arg).clone())
            }
            "fcmp" | "icmp" => {
                let pred = self.lx.word()?;
                let args = self.operands()?;
                let kind = if op == "fcmp" {
                    let Some(pred) = FloatPred::from_name(&pred) else { return self.lx.err("unknown fcmp predicate") };
                    InstKind::FCmp { pred, args }
                } else {
                    let Some(pred) = IntPred::from_name(&pred) else { return self.lx.err("unknown icmp predicate") };
                    InstKind::ICmp { pred, args }
                };
                (kind, Type::I1)
            }
            "select" => {
                let [cond, then_value, else_value] = self.operands()?;
                (InstKind::Select { cond, then_value, else_value }, self.f.ty(then_value).clone())
            }
            "phi" => {
                let ty = self.lx.ty()?;
                let mut incoming = Vec::new();
                loop {
                    self.lx.expect('[')?;
                    let v = self.bare(&ty)?;
                    self.lx.expect(',')?;
                    let b = match self.lx.next()? {
                        Tok::Local(n) => self.block_ref(&n),
                        _ => return self.lx.err("expected `%label`"),
                    };
                    self.lx.expect(']')?;
                    incoming.push((b, v));
                    if !self.lx.eat(&Tok::Punct(',')) {
                        break;
                    }
                }
                (InstKind::Phi { incoming }, ty)
            }
            "call" => self.call()?,
            "alloca" => (InstKind::Alloca { ty: self.lx.ty()? }, Type::PTR),
            "load" => {
                let ty = self.lx.ty()?;
                self.lx.expect(',')?;
                (InstKind::Load { ty: ty.clone(), ptr: self.operand()? }, ty)
            }
            "store" => {
                let [value, ptr] = self.operands()?;
                (InstKind::Store { value, ptr }, Type::Void)
            }
            "getelementptr" => {
                let inbounds = self.lx.eat_word("inbounds");
                let source_ty = self.lx.ty()?;
                self.lx.expect(',')?;
                let base = self.operand()?;
                let mut indices = Vec::new();
                while self.lx.eat(&Tok::Punct(',')) {
                    indices.push(self.operand()?);
                }
                let ty = self.f.ty(base).clone();
                (InstKind::Gep { source_ty, base, indices, inbounds }, ty)
            }
            "extractvalue" => {
                let agg = self.operand()?;
                let indices = self.indices()?;
                let mut ty = self.f.ty(agg).clone();
                for i in &indices {
                    let Some(t) = ty.field(*i).cloned() else { return self.lx.err("extractvalue index out of range") };
                    ty = t;
                }
                (InstKind::ExtractValue { agg, indices }, ty)
            }
            "insertvalue" => {
                let [agg, value] = self.operands()?;
                let indices = self.indices()?;
                (InstKind::InsertValue { agg, value, indices }, self.f.ty(agg).clone())
            }
            "br" => {
                if matches!(self.lx.peek(), Some(Tok::Word(w)) if w == "label") {
                    (InstKind::Br { dest: self.label()? }, Type::Void)
                } else {
                    let cond = self.operand()?;
                    self.lx.expect(',')?;
                    let then_dest = self.label()?;
                    self.lx.expect(',')?;
                    let else_dest = self.label()?;
                    (InstKind::CondBr { cond, then_dest, else_dest }, Type::Void)
                }
            }
            "switch" => {
                let value = self.operand()?;
                self.lx.expect(',')?;
                let default = self.label()?;
                self.lx.expect('[')?;
                let mut cases = Vec::new();
                while !self.lx.eat(&Tok::Punct(']')) {
                    let ty = self.lx.ty()?;
                    let tok = self.lx.peek().cloned().ok_or(ParseError { line: 0, column: 0, message: "eof".into() })?;
                    let c = self.literal(tok, &ty)?;
                    self.lx.expect(',')?;
                    cases.push((c, self.label()?));
                }
                (InstKind::Switch { value, default, cases }, Type::Void)
            }
            "ret" => {
                if self.lx.eat_word("void") {
                    (InstKind::Ret { value: None }, Type::Void)
                } else {
                    (InstKind::Ret { value: Some(self.operand()?) }, Type::Void)
                }
            }
            "unreachable" => (InstKind::Unreachable, Type::Void),
            _ => return self.lx.err(format!("unknown instruction `{op}`")),
        })
    }

    /// `call RET (PARAMS) @callee(T a, ...)` or with `%fnptr` as the callee.
    fn call(&mut self) -> Result<(InstKind, Type), ParseError> {
        let ret = self.lx.ty()?;
        let (params, variadic) = self.lx.param_types()?;
        let callee = match self.lx.next()? {
            Tok::Global(n) => Callee::Direct(n.into()),
            Tok::Local(n) => Callee::Indirect(self.local(&n, &Type::PTR)?),
            _ => return self.lx.err("expected the callee"),
        };
        self.lx.expect('(')?;
        let mut args = Vec::new();
        if !self.lx.eat(&Tok::Punct(')')) {
            loop {
                args.push(self.operand()?);
                if self.lx.eat(&Tok::Punct(')')) {
                    break;
                }
                self.lx.expect(',')?;
            }
        }
        let sig = Signature { params, ret: ret.clone(), variadic };
        Ok((InstKind::Call { callee, sig, args }, ret))
    }
}
