//! Parsing one instruction of the text form: `%name = opcode operands[, !loc(...)]`.

use super::lex::Tok;
use super::parse::FunctionParser;
use super::ParseError;
use crate::entities::{Block, Value};
use crate::function::{InstData, SourceLoc, ValueData, ValueDef};
use crate::inst::{AtomicOrdering, BinOp, Callee, CastOp, FloatPred, InstKind, IntPred, RmwOp, UnOp};
use crate::types::{Signature, Type};

/// LLVM's flags on instructions, which zyg-ir does not keep: fast-math, wrapping, exactness.
const IGNORED_FLAGS: &[&str] = &[
    "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "nuw", "nsw", "nusw", "exact", "disjoint", "nneg",
    "samesign", "tail", "musttail", "notail",
];

type Parsed = Result<(InstKind, Type), ParseError>;

impl FunctionParser<'_> {
    /// Parses one instruction into `block`; true if it is the block's terminator.
    pub(super) fn inst(&mut self, block: Block) -> Result<bool, ParseError> {
        let start = self.cur.pos;
        let result_name = match (self.cur.peek().clone(), self.cur.peek_at(1)) {
            (Tok::Local(n), Tok::Punct('=')) => {
                self.cur.bump();
                self.cur.bump();
                Some(n)
            }
            _ => None,
        };
        self.skip_flags();
        let op_pos = self.cur.pos;
        let op = self.cur.word("an instruction")?;
        let (kind, ty) = self.inst_body(&op, op_pos)?;
        let loc = self.trailer()?;
        let terminates = kind.is_terminator();
        if ty.is_void() && result_name.is_some() {
            return self.cur.error_at(start, format!("`{op}` produces no value to name"));
        }
        let inst = self.func.insts.push(InstData { kind, result: None, loc, hint: None });
        if !ty.is_void() {
            let def = ValueDef::Inst(inst);
            let v = match result_name {
                Some(name) => self.define_result(&name, &ty, def, start)?,
                None => self.func.values.push(ValueData { ty, def }),
            };
            self.func.insts[inst].result = Some(v);
        }
        self.func.blocks[block].insts.push(inst);
        Ok(terminates)
    }

    /// What may follow any instruction: `, align N` (ignored) and `, !loc("file", line, col)`.
    fn trailer(&mut self) -> Result<Option<SourceLoc>, ParseError> {
        let mut loc = None;
        while self.cur.eat_punct(',') {
            if self.cur.eat_word("align") {
                self.cur.number::<u64>("alignment")?;
            } else if self.cur.eat_word("!loc") {
                self.cur.expect_punct('(')?;
                let Tok::Str(file) = self.cur.peek().clone() else { return self.cur.error("expected a file name") };
                self.cur.bump();
                self.cur.expect_punct(',')?;
                let line = self.cur.number("line")?;
                self.cur.expect_punct(',')?;
                let column = self.cur.number("column")?;
                self.cur.expect_punct(')')?;
                loc = Some(SourceLoc { file: file.into(), line, column });
            } else {
                return self.cur.error("expected `align` or `!loc` after `,`");
            }
        }
        Ok(loc)
    }

    fn skip_flags(&mut self) {
        while IGNORED_FLAGS.iter().any(|f| self.cur.eat_word(f)) {}
    }

    /// The operands of `op`, and the type of its result (`void` for none).
    fn inst_body(&mut self, op: &str, op_pos: usize) -> Parsed {
        self.skip_flags();
        if let Some(op) = BinOp::from_name(op) {
            let [a, b] = self.same_typed_pair(op.name())?;
            return Ok((InstKind::Binary { op, args: [a, b] }, self.func.ty(a).clone()));
        }
        if let Some(op) = CastOp::from_name(op) {
            let arg = self.typed_operand()?;
            self.cur.expect_word("to")?;
            return Ok((InstKind::Cast { op, arg }, self.cur.value_type()?));
        }
        match op {
            "fneg" | "freeze" => {
                let arg = self.typed_operand()?;
                let op = if op == "fneg" { UnOp::FNeg } else { UnOp::Freeze };
                Ok((InstKind::Unary { op, arg }, self.func.ty(arg).clone()))
            }
            "fcmp" | "icmp" => self.compare(op),
            "select" => self.select(),
            "phi" => self.phi(),
            "call" => self.call(),
            "alloca" => self.alloca(),
            "load" => {
                let ty = self.cur.value_type()?;
                self.cur.expect_punct(',')?;
                Ok((InstKind::Load { ty: ty.clone(), ptr: self.typed_operand()? }, ty))
            }
            "store" => {
                let value = self.typed_operand()?;
                self.cur.expect_punct(',')?;
                Ok((InstKind::Store { value, ptr: self.typed_operand()? }, Type::Void))
            }
            "cmpxchg" => {
                let weak = self.cur.eat_word("weak");
                let volatile = self.cur.eat_word("volatile");
                let ptr = self.typed_operand()?;
                self.cur.expect_punct(',')?;
                let expected = self.typed_operand()?;
                self.cur.expect_punct(',')?;
                let new = self.typed_operand()?;
                let success = self.ordering()?;
                let failure = self.ordering()?;
                let ty = Type::Struct(vec![self.func.ty(expected).clone(), Type::I1].into());
                Ok((InstKind::CmpXchg { ptr, expected, new, success, failure, weak, volatile }, ty))
            }
            "atomicrmw" => {
                let volatile = self.cur.eat_word("volatile");
                let op = if self.cur.eat_word("fadd") {
                    None
                } else {
                    let word = self.cur.word("an atomicrmw operation")?;
                    match RmwOp::ALL.into_iter().find(|o| o.name() == word) {
                        Some(op) => Some(op),
                        None => return self.cur.error(format!("unknown atomicrmw operation `{word}`")),
                    }
                };
                let ptr = self.typed_operand()?;
                self.cur.expect_punct(',')?;
                let value = self.typed_operand()?;
                let ty = self.func.ty(value).clone();
                match op {
                    None => {
                        let ordering = self.ordering()?;
                        Ok((InstKind::AtomicFAdd { ptr, value, ordering }, ty))
                    }
                    Some(op) => {
                        let ordering = self.ordering()?;
                        Ok((InstKind::AtomicRmw { op, ptr, value, ordering, volatile }, ty))
                    }
                }
            }
            "getelementptr" => self.gep(),
            "extractvalue" | "insertvalue" => self.aggregate(op),
            "extractelement" | "insertelement" | "shufflevector" => self.vector(op),
            "br" => self.br(),
            "switch" => self.switch(),
            "ret" if self.cur.eat_word("void") => Ok((InstKind::Ret { value: None }, Type::Void)),
            "ret" => Ok((InstKind::Ret { value: Some(self.typed_operand()?) }, Type::Void)),
            "unreachable" => Ok((InstKind::Unreachable, Type::Void)),
            _ => self.cur.error_at(op_pos, format!("unknown instruction `{op}`")),
        }
    }

    /// `T a, T b`, or LLVM's `T a, b`: two operands of one type.
    fn same_typed_pair(&mut self, op: &str) -> Result<[Value; 2], ParseError> {
        let a = self.typed_operand()?;
        self.cur.expect_punct(',')?;
        let ty = self.func.ty(a).clone();
        let pos = self.cur.pos;
        if !self.cur.at_type() {
            return Ok([a, self.operand(&ty)?]);
        }
        let b = self.typed_operand()?;
        if *self.func.ty(b) != ty {
            return self.cur.error_at(pos, format!("both operands of `{op}` must have type {ty}"));
        }
        Ok([a, b])
    }

    /// `fcmp PRED T a, T b` or `icmp PRED T a, T b`; vectors compare to vectors of `i1`.
    fn compare(&mut self, op: &str) -> Parsed {
        let pos = self.cur.pos;
        let pred = self.cur.word("a predicate")?;
        let bad = || format!("unknown {op} predicate `{pred}`");
        let args = self.same_typed_pair(op)?;
        let kind = if op == "fcmp" {
            let Some(pred) = FloatPred::from_name(&pred) else { return self.cur.error_at(pos, bad()) };
            InstKind::FCmp { pred, args }
        } else {
            let Some(pred) = IntPred::from_name(&pred) else { return self.cur.error_at(pos, bad()) };
            InstKind::ICmp { pred, args }
        };
        let ty = match self.func.ty(args[0]) {
            Type::Vector(n, _) => Type::Vector(*n, Type::I1.into()),
            _ => Type::I1,
        };
        Ok((kind, ty))
    }

    fn select(&mut self) -> Parsed {
        let cond = self.typed_operand()?;
        self.cur.expect_punct(',')?;
        let [then_value, else_value] = self.same_typed_pair("select")?;
        let ty = self.func.ty(then_value).clone();
        Ok((InstKind::Select { cond, then_value, else_value }, ty))
    }

    /// `phi T [ v, %pred ], [ v, %pred ]`.
    fn phi(&mut self) -> Parsed {
        let ty = self.cur.value_type()?;
        let mut incoming = Vec::new();
        loop {
            self.cur.expect_punct('[')?;
            let v = self.operand(&ty)?;
            self.cur.expect_punct(',')?;
            let b = self.block_name()?;
            self.cur.expect_punct(']')?;
            incoming.push((b, v));
            if !(*self.cur.peek() == Tok::Punct(',') && *self.cur.peek_at(1) == Tok::Punct('[')) {
                return Ok((InstKind::Phi { incoming }, ty));
            }
            self.cur.bump();
        }
    }

    /// `call RET [(PARAMS)] @f(T a, ...)`, or `%fnptr` as the callee. Without the parameter
    /// list, the signature is read from the arguments.
    fn call(&mut self) -> Parsed {
        self.skip_flags();
        let ret = self.cur.ty()?;
        let explicit = if self.cur.eat_punct('(') { Some(self.cur.param_types()?) } else { None };
        let callee_pos = self.cur.pos;
        let callee = match self.cur.bump() {
            Tok::Global(name) => Callee::Direct(name.into()),
            Tok::Local(name) => Callee::Indirect(self.local(&name, &Type::PTR, callee_pos)?),
            _ => return self.cur.error_at(callee_pos, "expected the callee, `@name` or `%pointer`"),
        };
        self.cur.expect_punct('(')?;
        let mut args = Vec::new();
        if !self.cur.eat_punct(')') {
            loop {
                args.push(self.typed_operand()?);
                if self.cur.eat_punct(')') {
                    break;
                }
                self.cur.expect_punct(',')?;
            }
        }
        let arg_types: Vec<Type> = args.iter().map(|a| self.func.ty(*a).clone()).collect();
        let (params, variadic) = explicit.unwrap_or_else(|| (arg_types.clone(), false));
        let fits = arg_types.len() >= params.len() && (variadic || arg_types.len() == params.len());
        if !fits || arg_types[..params.len().min(arg_types.len())] != params[..] {
            return self.cur.error_at(callee_pos, "the arguments do not match the callee's parameters");
        }
        Ok((InstKind::Call { callee, sig: Signature { params, ret: ret.clone(), variadic }, args, unwind: None }, ret))
    }

    /// `alloca T[, addrspace(N)]`: the result is a pointer in that address space.
    fn alloca(&mut self) -> Parsed {
        let ty = self.cur.value_type()?;
        let mut space = 0;
        if *self.cur.peek() == Tok::Punct(',') && matches!(self.cur.peek_at(1), Tok::Word(w) if w == "addrspace") {
            self.cur.bump();
            space = self.cur.addrspace()?;
        }
        Ok((InstKind::Alloca { ty }, Type::Ptr(space)))
    }

    /// `getelementptr [inbounds] SOURCE, ptr %base, T %index, ...`.
    fn gep(&mut self) -> Parsed {
        let inbounds = self.cur.eat_word("inbounds");
        self.skip_flags();
        let source_ty = self.cur.value_type()?;
        self.cur.expect_punct(',')?;
        let base = self.typed_operand()?;
        let mut indices = Vec::new();
        while *self.cur.peek() == Tok::Punct(',') && !matches!(self.cur.peek_at(1), Tok::Word(w) if w == "align" || w == "!loc") {
            self.cur.bump();
            indices.push(self.typed_operand()?);
        }
        let ty = self.func.ty(base).clone();
        Ok((InstKind::Gep { source_ty, base, indices, inbounds }, ty))
    }

    /// `extractvalue T %agg, I, ...` and `insertvalue T %agg, T %v, I, ...`.
    fn aggregate(&mut self, op: &str) -> Parsed {
        let agg = self.typed_operand()?;
        let value = if op == "insertvalue" {
            self.cur.expect_punct(',')?;
            Some((self.cur.pos, self.typed_operand()?))
        } else {
            None
        };
        let path_pos = self.cur.pos;
        let mut indices = Vec::new();
        while *self.cur.peek() == Tok::Punct(',') && matches!(self.cur.peek_at(1), Tok::Number(_)) {
            self.cur.bump();
            indices.push(self.cur.number::<u32>("index")?);
        }
        let agg_ty = self.func.ty(agg).clone();
        let mut field = Some(&agg_ty);
        for i in &indices {
            field = field.and_then(|t| t.field(*i));
        }
        let Some(field) = field.filter(|_| !indices.is_empty()).cloned() else {
            return self.cur.error_at(path_pos, format!("`{op}` needs indices that lead into {agg_ty}"));
        };
        match value {
            None => Ok((InstKind::ExtractValue { agg, indices }, field)),
            Some((pos, value)) if *self.func.ty(value) != field => {
                self.cur.error_at(pos, format!("the inserted value must have type {field}"))
            }
            Some((_, value)) => Ok((InstKind::InsertValue { agg, value, indices }, agg_ty)),
        }
    }

    /// `extractelement <N x T> %v, i64 %i`, `insertelement <N x T> %v, T %x, i64 %i`,
    /// `shufflevector <N x T> %a, <N x T> %b, [lane, ...]` (-1 for a poison lane).
    fn vector(&mut self, op: &str) -> Parsed {
        let pos = self.cur.pos;
        let vec = self.typed_operand()?;
        let vec_ty = self.func.ty(vec).clone();
        let Type::Vector(n, elem) = vec_ty.clone() else {
            return self.cur.error_at(pos, format!("`{op}` needs a vector, not {vec_ty}"));
        };
        self.cur.expect_punct(',')?;
        match op {
            "extractelement" => {
                let index = self.typed_operand()?;
                Ok((InstKind::ExtractElement { vec, index }, (*elem).clone()))
            }
            "insertelement" => {
                let value_pos = self.cur.pos;
                let value = self.typed_operand()?;
                if *self.func.ty(value) != *elem {
                    return self.cur.error_at(value_pos, format!("the inserted value must have type {elem}"));
                }
                self.cur.expect_punct(',')?;
                let index = self.typed_operand()?;
                Ok((InstKind::InsertElement { vec, value, index }, vec_ty))
            }
            _ => {
                let b_pos = self.cur.pos;
                let b = self.typed_operand()?;
                if *self.func.ty(b) != vec_ty {
                    return self.cur.error_at(b_pos, format!("both shufflevector operands must have type {vec_ty}"));
                }
                self.cur.expect_punct(',')?;
                self.cur.expect_punct('[')?;
                let mut mask = Vec::new();
                while !self.cur.eat_punct(']') {
                    if !mask.is_empty() {
                        self.cur.expect_punct(',')?;
                    }
                    let lane_pos = self.cur.pos;
                    let lane: i32 = self.cur.number("mask lane")?;
                    if lane < -1 || lane >= 2 * n as i32 {
                        return self.cur.error_at(lane_pos, format!("mask lane {lane} is out of range"));
                    }
                    mask.push(lane);
                }
                let ty = Type::Vector(mask.len() as u32, elem);
                Ok((InstKind::ShuffleVector { a: vec, b, mask }, ty))
            }
        }
    }

    /// `br label %dest` or `br i1 %cond, label %then, label %else`.
    fn br(&mut self) -> Parsed {
        if matches!(self.cur.peek(), Tok::Word(w) if w == "label") {
            return Ok((InstKind::Br { dest: self.label()? }, Type::Void));
        }
        let cond = self.typed_operand()?;
        self.cur.expect_punct(',')?;
        let then_dest = self.label()?;
        self.cur.expect_punct(',')?;
        let else_dest = self.label()?;
        Ok((InstKind::CondBr { cond, then_dest, else_dest }, Type::Void))
    }

    /// `switch T %v, label %default [ T C, label %dest ... ]`.
    fn switch(&mut self) -> Parsed {
        let value = self.typed_operand()?;
        let ty = self.func.ty(value).clone();
        self.cur.expect_punct(',')?;
        let default = self.label()?;
        self.cur.expect_punct('[')?;
        let mut cases = Vec::new();
        while !self.cur.eat_punct(']') {
            let pos = self.cur.pos;
            if self.cur.value_type()? != ty {
                return self.cur.error_at(pos, format!("a case of a switch on {ty} must have type {ty}"));
            }
            let c = self.constant(&ty)?;
            self.cur.expect_punct(',')?;
            cases.push((c, self.label()?));
        }
        Ok((InstKind::Switch { value, default, cases }, Type::Void))
    }
}

impl FunctionParser<'_> {
    /// An atomic ordering's name (`acq_rel`).
    fn ordering(&mut self) -> Result<AtomicOrdering, ParseError> {
        let word = self.cur.word("an atomic ordering")?;
        match AtomicOrdering::ALL.into_iter().find(|o| o.name() == word) {
            Some(o) => Ok(o),
            None => self.cur.error(format!("unknown atomic ordering `{word}`")),
        }
    }
}
