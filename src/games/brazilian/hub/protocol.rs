//! The Hub protocol's line syntax (Scan 3.x, `protocol.txt`): `command arg=value arg …`,
//! values in double quotes when they hold spaces or `=`; reading lines of bounded length
//! from a stream; writing lines with the quoting the syntax needs.

use std::fmt;
use std::io::{self, BufRead};

/// Longest line read. A game's whole move list fits many times over (300 plies of
/// captures are about 6 KB); anything longer is refused before it is stored.
pub const MAX_LINE_LEN: usize = 64 * 1024;

/// Most arguments on one line.
const MAX_ARGS: usize = 64;

/// One line: the command and its arguments in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub command: String,
    pub args: Vec<Arg>,
}

/// `name=value`, or a flag (`name` alone, value `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    pub name: String,
    pub value: Option<String>,
}

impl Line {
    /// The value of argument `name` (the first if repeated); `Some("")` for a flag.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_deref().unwrap_or(""))
    }

    /// True if `name` is present, as a flag or with a value.
    pub fn has(&self, name: &str) -> bool {
        self.args.iter().any(|a| a.name == name)
    }
}

/// Why a line could not be split. Columns count characters from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    TooLong {
        len: usize,
    },
    NotUtf8,
    UnclosedQuote {
        column: usize,
    },
    /// An argument such as `=5` or `"x"` with no name.
    NoName {
        column: usize,
    },
    /// A quote inside a name or after a value's closing quote.
    StrayQuote {
        column: usize,
    },
    TooManyArgs,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::TooLong { len } => {
                write!(f, "line of {len}+ bytes; at most {MAX_LINE_LEN} are read")
            }
            LineError::NotUtf8 => write!(f, "line is not UTF-8 text"),
            LineError::UnclosedQuote { column } => {
                write!(f, "column {column}: quote opened here is never closed")
            }
            LineError::NoName { column } => {
                write!(f, "column {column}: argument without a name")
            }
            LineError::StrayQuote { column } => write!(f, "column {column}: unexpected quote"),
            LineError::TooManyArgs => write!(f, "more than {MAX_ARGS} arguments"),
        }
    }
}

impl std::error::Error for LineError {}

/// Splits a line. `Ok(None)` for a blank line.
pub fn parse_line(text: &str) -> Result<Option<Line>, LineError> {
    if text.len() > MAX_LINE_LEN {
        return Err(LineError::TooLong { len: text.len() });
    }
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut tokens: Vec<(usize, String, Option<String>)> = Vec::new();
    loop {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        if i == chars.len() {
            break;
        }
        let start = i;
        let mut name = String::new();
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' {
            if chars[i] == '"' {
                return Err(if name.is_empty() {
                    LineError::NoName { column: i + 1 }
                } else {
                    LineError::StrayQuote { column: i + 1 }
                });
            }
            name.push(chars[i]);
            i += 1;
        }
        if name.is_empty() {
            return Err(LineError::NoName { column: start + 1 });
        }
        let mut value = None;
        if i < chars.len() && chars[i] == '=' {
            i += 1;
            let mut v = String::new();
            if i < chars.len() && chars[i] == '"' {
                let open = i;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    v.push(chars[i]);
                    i += 1;
                }
                if i == chars.len() {
                    return Err(LineError::UnclosedQuote { column: open + 1 });
                }
                i += 1;
                if i < chars.len() && !chars[i].is_whitespace() {
                    return Err(LineError::StrayQuote { column: i + 1 });
                }
            } else {
                while i < chars.len() && !chars[i].is_whitespace() {
                    if chars[i] == '"' {
                        return Err(LineError::StrayQuote { column: i + 1 });
                    }
                    v.push(chars[i]);
                    i += 1;
                }
            }
            value = Some(v);
        }
        if tokens.len() > MAX_ARGS {
            return Err(LineError::TooManyArgs);
        }
        tokens.push((start, name, value));
    }
    let mut tokens = tokens.into_iter();
    let Some((column, command, value)) = tokens.next() else {
        return Ok(None);
    };
    if value.is_some() {
        // `pos=…` with no command before it.
        return Err(LineError::NoName { column: column + 1 });
    }
    Ok(Some(Line {
        command,
        args: tokens.map(|(_, name, value)| Arg { name, value }).collect(),
    }))
}

/// A value as the syntax wants it: bare, or in quotes when empty or holding a space or
/// `=`. The syntax has no escapes, so a quote inside a value becomes `'`.
pub fn quote(value: &str) -> String {
    let value = value.replace('"', "'").replace(['\n', '\r'], " ");
    if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '=') {
        format!("\"{value}\"")
    } else {
        value
    }
}

/// An argument's value as a whole number in `min..=max`; the error names the argument
/// (`what`, e.g. `level depth`), the value and the unit.
pub fn whole_number(what: &str, text: &str, min: u64, max: u64, unit: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| format!("{what}={text}: expected {unit} from {min} to {max}"))
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Input {
    Line(String),
    /// A line longer than [`MAX_LINE_LEN`]; the rest of it was skipped.
    TooLong(usize),
    NotUtf8,
    /// The stream ended.
    End,
}

/// Reads one line (without its `\n` or `\r\n`), never storing more than
/// [`MAX_LINE_LEN`] bytes of it.
pub fn read_line(reader: &mut impl BufRead) -> io::Result<Input> {
    let mut bytes = Vec::new();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !any {
                return Ok(Input::End);
            }
            break;
        }
        any = true;
        let (chunk, found_end) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], true),
            None => (buf, false),
        };
        if len + chunk.len() <= MAX_LINE_LEN {
            bytes.extend_from_slice(chunk);
        }
        len += chunk.len();
        let used = chunk.len() + usize::from(found_end);
        reader.consume(used);
        if found_end {
            break;
        }
    }
    if len > MAX_LINE_LEN {
        return Ok(Input::TooLong(len));
    }
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Input::Line(text)),
        Err(_) => Ok(Input::NotUtf8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &Line) -> Vec<(&str, Option<&str>)> {
        line.args
            .iter()
            .map(|a| (a.name.as_str(), a.value.as_deref()))
            .collect()
    }

    #[test]
    fn splits_scan_examples() {
        let line = parse_line(r#"pos pos=Wbbbbeeee moves="38-15 5-41 48-26""#)
            .unwrap()
            .unwrap();
        assert_eq!(line.command, "pos");
        assert_eq!(
            args(&line),
            vec![
                ("pos", Some("Wbbbbeeee")),
                ("moves", Some("38-15 5-41 48-26"))
            ]
        );
        let line = parse_line("  go   think ").unwrap().unwrap();
        assert_eq!(line.command, "go");
        assert_eq!(args(&line), vec![("think", None)]);
        assert!(line.has("think"));
        assert_eq!(line.value("think"), Some(""));
        let line = parse_line(r#"id name=Scan author="Fabien Letouzey" empty="""#)
            .unwrap()
            .unwrap();
        assert_eq!(line.value("author"), Some("Fabien Letouzey"));
        assert_eq!(line.value("empty"), Some(""));
        assert_eq!(parse_line("   ").unwrap(), None);
    }

    #[test]
    fn rejects_broken_lines_with_a_column() {
        assert_eq!(
            parse_line(r#"pos moves="1-5"#),
            Err(LineError::UnclosedQuote { column: 11 })
        );
        assert_eq!(parse_line("level =5"), Err(LineError::NoName { column: 7 }));
        assert_eq!(
            parse_line(r#"x a="b"c"#),
            Err(LineError::StrayQuote { column: 8 })
        );
        assert_eq!(parse_line("pos=W"), Err(LineError::NoName { column: 1 }));
        let long = "x".repeat(MAX_LINE_LEN + 1);
        assert!(matches!(parse_line(&long), Err(LineError::TooLong { .. })));
    }

    #[test]
    fn quoting_round_trips() {
        for value in ["plain", "two words", "", "a=b", "say \"hi\""] {
            let line = parse_line(&format!("info pv={}", quote(value)))
                .unwrap()
                .unwrap();
            assert_eq!(line.value("pv"), Some(value.replace('"', "'").as_str()));
        }
    }

    proptest::proptest! {
        /// Any text is split or refused, never a panic; a split line written back with
        /// [`quote`] reads the same.
        #[test]
        fn any_text_splits_or_is_refused(text in "[^\r\n]{0,200}") {
            if let Ok(Some(line)) = parse_line(&text) {
                let mut again = line.command.clone();
                for arg in &line.args {
                    again.push(' ');
                    again.push_str(&arg.name);
                    if let Some(value) = &arg.value {
                        again.push('=');
                        again.push_str(&quote(value));
                    }
                }
                proptest::prop_assert_eq!(parse_line(&again), Ok(Some(line)));
            }
        }
    }

    #[test]
    fn reads_bounded_lines() {
        let long = "y".repeat(MAX_LINE_LEN + 10);
        let text = format!("ping\r\n{long}\nquit\n\u{0}\u{ff}");
        let mut bytes = text.into_bytes();
        bytes.push(0xff);
        let mut reader = io::BufReader::with_capacity(16, &bytes[..]);
        assert_eq!(read_line(&mut reader).unwrap(), Input::Line("ping".into()));
        assert_eq!(
            read_line(&mut reader).unwrap(),
            Input::TooLong(MAX_LINE_LEN + 10)
        );
        assert_eq!(read_line(&mut reader).unwrap(), Input::Line("quit".into()));
        assert_eq!(read_line(&mut reader).unwrap(), Input::NotUtf8);
        assert_eq!(read_line(&mut reader).unwrap(), Input::End);
    }
}
