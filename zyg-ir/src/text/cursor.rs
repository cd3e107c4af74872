//! The parser's token stream (`Cursor`): looking ahead, consuming, one-token errors with
//! line and column, and the types of the text form.

use super::lex::{tokenize, Tok, Token};
use super::ParseError;
use crate::types::{FloatTy, Type};
use std::str::FromStr;

/// Aggregates nested deeper than this are refused, so that no input can overflow the stack.
const MAX_TYPE_DEPTH: usize = 64;
/// LLVM's limit on integer widths.
const MAX_INT_BITS: u32 = 1 << 23;

static EOF: Tok = Tok::Eof;

/// The token stream, with one-token errors. It never moves past the final `Eof`.
pub(super) struct Cursor {
    tokens: Vec<Token>,
    pub(super) pos: usize,
}

impl Cursor {
    /// The tokens of `text`.
    pub(super) fn new(text: &str) -> Result<Cursor, ParseError> {
        Ok(Cursor { tokens: tokenize(text)?, pos: 0 })
    }

    pub(super) fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    pub(super) fn peek_at(&self, k: usize) -> &Tok {
        self.tokens.get(self.pos + k).or(self.tokens.last()).map_or(&EOF, |t| &t.tok)
    }

    pub(super) fn bump(&mut self) -> Tok {
        let tok = self.peek().clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        tok
    }

    /// Line and column of the token at `pos`.
    pub(super) fn position(&self, pos: usize) -> (usize, usize) {
        self.tokens.get(pos).or(self.tokens.last()).map_or((1, 1), |t| (t.line, t.column))
    }

    pub(super) fn error_at<T>(&self, pos: usize, message: impl Into<String>) -> Result<T, ParseError> {
        let (line, column) = self.position(pos);
        Err(ParseError { line, column, message: message.into() })
    }

    /// An error at the next token, which is named in the message when it is the end.
    pub(super) fn error<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        let mut message = message.into();
        if *self.peek() == Tok::Eof {
            message.push_str(", found the end of the input");
        }
        self.error_at(self.pos, message)
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        let found = *self.peek() == Tok::Punct(c);
        if found {
            self.bump();
        }
        found
    }

    pub(super) fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.error(format!("expected `{c}`"))
        }
    }

    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        let found = matches!(self.peek(), Tok::Word(x) if x == w);
        if found {
            self.bump();
        }
        found
    }

    pub(super) fn expect_word(&mut self, w: &str) -> Result<(), ParseError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.error(format!("expected `{w}`"))
        }
    }

    pub(super) fn word(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Tok::Word(w) => {
                let w = w.clone();
                self.bump();
                Ok(w)
            }
            _ => self.error(format!("expected {what}")),
        }
    }

    pub(super) fn number<T: FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        match self.peek() {
            Tok::Number(n) => match n.parse() {
                Ok(v) => {
                    self.bump();
                    Ok(v)
                }
                Err(_) => self.error(format!("`{n}` is not a valid {what}")),
            },
            _ => self.error(format!("expected {what}")),
        }
    }

    pub(super) fn global_name(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Tok::Global(n) => {
                let n = n.clone();
                self.bump();
                Ok(n)
            }
            _ => self.error("expected a function name `@name`"),
        }
    }

    /// True if the next token begins a type.
    pub(super) fn at_type(&self) -> bool {
        match self.peek() {
            Tok::Punct(c) => matches!(c, '<' | '[' | '{'),
            Tok::Word(w) => scalar_type(w).is_some() || w == "ptr",
            _ => false,
        }
    }

    pub(super) fn ty(&mut self) -> Result<Type, ParseError> {
        self.ty_nested(0)
    }

    fn ty_nested(&mut self, depth: usize) -> Result<Type, ParseError> {
        if depth > MAX_TYPE_DEPTH {
            return self.error(format!("types nest more than {MAX_TYPE_DEPTH} deep"));
        }
        let start = self.pos;
        let ty = match self.bump() {
            Tok::Word(w) if w == "ptr" => Type::Ptr(self.addrspace()?),
            Tok::Word(w) => match scalar_type(&w) {
                Some(ty) => ty,
                None => return self.error_at(start, format!("expected a type, found `{w}`")),
            },
            Tok::Punct(open @ ('<' | '[')) => {
                let close = if open == '<' { '>' } else { ']' };
                let n: u64 = self.number("length")?;
                self.expect_word("x")?;
                let elem = self.ty_nested(depth + 1)?;
                self.expect_punct(close)?;
                if elem.is_void() {
                    return self.error_at(start, "an aggregate of `void`");
                }
                if open == '[' {
                    Type::Array(n, elem.into())
                } else {
                    match u32::try_from(n) {
                        Ok(n) if n > 0 => Type::Vector(n, elem.into()),
                        _ => return self.error_at(start, format!("bad vector length {n}")),
                    }
                }
            }
            Tok::Punct('{') => Type::structure(self.struct_fields(depth)?),
            _ => return self.error_at(start, "expected a type"),
        };
        Ok(ty)
    }

    /// The fields of `{ T, T }`, after the `{`.
    fn struct_fields(&mut self, depth: usize) -> Result<Vec<Type>, ParseError> {
        let mut fields = Vec::new();
        if self.eat_punct('}') {
            return Ok(fields);
        }
        loop {
            let start = self.pos;
            let field = self.ty_nested(depth + 1)?;
            if field.is_void() {
                return self.error_at(start, "a struct field of type `void`");
            }
            fields.push(field);
            if self.eat_punct('}') {
                return Ok(fields);
            }
            self.expect_punct(',')?;
        }
    }

    /// An optional `addrspace(N)`; 0 when absent.
    pub(super) fn addrspace(&mut self) -> Result<u32, ParseError> {
        if !self.eat_word("addrspace") {
            return Ok(0);
        }
        self.expect_punct('(')?;
        let space = self.number("address space")?;
        self.expect_punct(')')?;
        Ok(space)
    }

    /// `T, T, ...)` of a signature, after the `(`.
    pub(super) fn param_types(&mut self) -> Result<(Vec<Type>, bool), ParseError> {
        let mut params = Vec::new();
        if self.eat_punct(')') {
            return Ok((params, false));
        }
        loop {
            if self.eat_word("...") {
                self.expect_punct(')')?;
                return Ok((params, true));
            }
            params.push(self.value_type()?);
            if self.eat_punct(')') {
                return Ok((params, false));
            }
            self.expect_punct(',')?;
        }
    }

    /// A type that values can have (not `void`).
    pub(super) fn value_type(&mut self) -> Result<Type, ParseError> {
        let start = self.pos;
        let ty = self.ty()?;
        if ty.is_void() {
            return self.error_at(start, "`void` is not the type of a value");
        }
        Ok(ty)
    }
}

fn scalar_type(w: &str) -> Option<Type> {
    match w {
        "void" => Some(Type::Void),
        "float" => Some(Type::F32),
        "double" => Some(Type::F64),
        "x86_fp80" => Some(Type::Float(FloatTy::X86Fp80)),
        _ => {
            let bits: u32 = w.strip_prefix('i')?.parse().ok()?;
            (1..=MAX_INT_BITS).contains(&bits).then_some(Type::Int(bits))
        }
    }
}
