//! The text form's lexer: splits source text into tokens that carry their line and column.

use super::ParseError;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// A keyword, type name, opcode or attribute: `define`, `double`, `fadd`, `#alwaysinline`.
    Word(String),
    /// `%name`: a value, or a block after `label`.
    Local(String),
    /// `@name`: a function or global.
    Global(String),
    /// `name:` at the head of a block.
    Label(String),
    /// A numeric literal, kept as written: `-3`, `2.5`, `1e-7`, `0x3FF0000000000000`.
    Number(String),
    /// A quoted string, with `\XX` escapes decoded.
    Str(String),
    Punct(char),
    Eof,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub tok: Tok,
    pub line: usize,
    pub column: usize,
}

/// Characters of bare names and literals (LLVM's `[-a-zA-Z$._0-9]`, plus `+` for exponents).
pub(super) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '$' | '+')
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn error(&self, line: usize, column: usize, message: String) -> ParseError {
        ParseError { line, column, message }
    }

    fn run(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|c| is_name_char(*c)) {
            s.push(c);
            self.bump();
        }
        s
    }

    /// A quoted string; the opening quote is next. `\XX` is a hex byte, `\\` a backslash.
    fn string(&mut self, line: usize, column: usize) -> Result<String, ParseError> {
        self.bump();
        let mut bytes = Vec::new();
        loop {
            match self.bump() {
                None | Some('\n') => return Err(self.error(line, column, "unterminated string".into())),
                Some('"') => break,
                Some('\\') => {
                    if self.peek() == Some('\\') {
                        self.bump();
                        bytes.push(b'\\');
                        continue;
                    }
                    let hex: String = [self.bump(), self.bump()].iter().flatten().collect();
                    let byte = u8::from_str_radix(&hex, 16).ok().filter(|_| hex.chars().all(|c| c.is_ascii_hexdigit()));
                    let Some(byte) = byte else {
                        return Err(self.error(self.line, self.column, format!("bad escape `\\{hex}` in string")));
                    };
                    bytes.push(byte);
                }
                Some(c) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        String::from_utf8(bytes).map_err(|_| self.error(line, column, "string is not valid UTF-8".into()))
    }

    /// The name after `%` or `@`: bare or quoted.
    fn sigil_name(&mut self, sigil: char, line: usize, column: usize) -> Result<String, ParseError> {
        self.bump();
        if self.peek() == Some('"') {
            return self.string(line, column);
        }
        let name = self.run();
        if name.is_empty() {
            return Err(self.error(line, column, format!("expected a name after `{sigil}`")));
        }
        Ok(name)
    }

    fn token(&mut self) -> Result<Option<Tok>, ParseError> {
        let (line, column) = (self.line, self.column);
        let Some(c) = self.peek() else { return Ok(None) };
        let tok = match c {
            '%' => Tok::Local(self.sigil_name('%', line, column)?),
            '@' => Tok::Global(self.sigil_name('@', line, column)?),
            '"' => Tok::Str(self.string(line, column)?),
            '=' | ',' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '*' => {
                self.bump();
                Tok::Punct(c)
            }
            '#' | '!' => {
                self.bump();
                Tok::Word(format!("{c}{}", self.run()))
            }
            c if is_name_char(c) => {
                let run = self.run();
                if self.peek() == Some(':') {
                    self.bump();
                    Tok::Label(run)
                } else if run.starts_with(|c: char| c.is_ascii_digit())
                    || ((run.starts_with('-') || run.starts_with('+')) && run[1..].starts_with(|c: char| c.is_ascii_digit()))
                {
                    Tok::Number(run)
                } else {
                    Tok::Word(run)
                }
            }
            c => return Err(self.error(line, column, format!("unexpected character `{}`", c.escape_debug()))),
        };
        Ok(Some(tok))
    }

    fn skip_blanks(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else if c == ';' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else {
                break;
            }
        }
    }
}

/// Splits `src` into tokens, ending with `Tok::Eof`.
pub(super) fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lexer = Lexer { chars: src.chars().peekable(), line: 1, column: 1 };
    let mut tokens = Vec::new();
    loop {
        lexer.skip_blanks();
        let (line, column) = (lexer.line, lexer.column);
        match lexer.token()? {
            Some(tok) => tokens.push(Token { tok, line, column }),
            None => {
                tokens.push(Token { tok: Tok::Eof, line, column });
                return Ok(tokens);
            }
        }
    }
}
