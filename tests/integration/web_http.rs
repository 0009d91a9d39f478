//! A small blocking HTTP/1.1 client over loopback for the tests of `evalearn serve` and
//! its load check (benches/web_load.rs includes this file): requests on a kept-alive
//! connection, raw bytes for fuzzing, and server-sent event streams.
#![allow(dead_code)]

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Longest a test waits for any one answer: a failure bound, never a measurement.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// A response: status, headers (names lower-cased) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON (panics with the body when it is not).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("status {}: not JSON ({e}): {}", self.status, self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `error` message of a refused request.
    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or("").to_string()
    }
}

/// A kept-alive connection to the server.
pub struct Client {
    addr: SocketAddr,
    reader: Option<BufReader<TcpStream>>,
}

impl Client {
    pub fn new(addr: SocketAddr) -> Client {
        Client { addr, reader: None }
    }

    fn connect(&mut self) -> io::Result<&mut BufReader<TcpStream>> {
        if self.reader.is_none() {
            let stream = TcpStream::connect(self.addr)?;
            stream.set_read_timeout(Some(PATIENCE))?;
            stream.set_nodelay(true)?;
            self.reader = Some(BufReader::new(stream));
        }
        Ok(self.reader.as_mut().expect("just connected"))
    }

    /// Sends a request (a body is sent as JSON) and reads the whole response; a closed
    /// kept-alive connection is opened again once.
    pub fn send(&mut self, method: &str, path: &str, body: Option<&str>) -> io::Result<Reply> {
        match self.try_send(method, path, body) {
            Ok(reply) => Ok(reply),
            Err(_) => {
                self.reader = None;
                self.try_send(method, path, body)
            }
        }
    }

    fn try_send(&mut self, method: &str, path: &str, body: Option<&str>) -> io::Result<Reply> {
        let host = self.addr;
        let reader = self.connect()?;
        let body = body.unwrap_or("");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body.as_bytes())?;
        let reply = read_response(reader)?;
        if reply
            .header("connection")
            .is_some_and(|c| c.eq_ignore_ascii_case("close"))
        {
            self.reader = None;
        }
        Ok(reply)
    }

    pub fn get(&mut self, path: &str) -> Reply {
        self.send("GET", path, None)
            .unwrap_or_else(|e| panic!("GET {path}: {e}"))
    }

    pub fn post(&mut self, path: &str, body: &str) -> Reply {
        self.send("POST", path, Some(body))
            .unwrap_or_else(|e| panic!("POST {path}: {e}"))
    }

    pub fn delete(&mut self, path: &str) -> Reply {
        self.send("DELETE", path, None)
            .unwrap_or_else(|e| panic!("DELETE {path}: {e}"))
    }
}

fn read_line(reader: &mut impl BufRead) -> io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

fn read_head(reader: &mut impl BufRead) -> io::Result<(u16, Vec<(String, String)>)> {
    let status_line = read_line(reader)?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader)?;
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    Ok((status, headers))
}

fn read_response(reader: &mut impl BufRead) -> io::Result<Reply> {
    let (status, headers) = read_head(reader)?;
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let body = if let Some(len) = find("content-length") {
        let len: usize = len.parse().map_err(io::Error::other)?;
        let mut body = vec![0; len];
        reader.read_exact(&mut body)?;
        body
    } else if find("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        let mut body = Vec::new();
        while let Some(chunk) = read_chunk(reader)? {
            body.extend(chunk);
        }
        body
    } else {
        Vec::new()
    };
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// One chunk of a chunked body; `None` at its end.
fn read_chunk(reader: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let size_line = read_line(reader)?;
    let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
        .map_err(|_| io::Error::other(format!("bad chunk size {size_line:?}")))?;
    let mut chunk = vec![0; size];
    reader.read_exact(&mut chunk)?;
    read_line(reader)?;
    Ok((size > 0).then_some(chunk))
}

/// Sends raw bytes and returns the response's status, if one came before the server
/// closed the connection (for requests too malformed to answer).
pub fn raw(addr: SocketAddr, bytes: &[u8]) -> io::Result<Option<u16>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(PATIENCE))?;
    stream.write_all(bytes)?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let mut reader = BufReader::new(stream);
    match read_head(&mut reader) {
        Ok((status, _)) => Ok(Some(status)),
        Err(_) => Ok(None),
    }
}

/// A server-sent event stream.
pub struct Events {
    reader: BufReader<TcpStream>,
    buffer: String,
}

/// One event: its name and data.
#[derive(Debug)]
pub struct Event {
    pub name: String,
    pub data: String,
}

impl Events {
    /// Opens `path` as an event stream (the status must be 200).
    pub fn open(addr: SocketAddr, path: &str) -> Events {
        let mut stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
        )
        .unwrap();
        let mut reader = BufReader::new(stream);
        let (status, headers) = read_head(&mut reader).expect("event stream head");
        assert_eq!(status, 200, "GET {path}");
        assert!(
            headers
                .iter()
                .any(|(n, v)| n == "content-type" && v.starts_with("text/event-stream")),
            "{headers:?}"
        );
        Events {
            reader,
            buffer: String::new(),
        }
    }

    /// The next event (keep-alive comments skipped).
    pub fn next(&mut self) -> Event {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Event {
                    name: "message".to_string(),
                    data: String::new(),
                };
                let mut any = false;
                for line in block.lines() {
                    if let Some(name) = line.strip_prefix("event:") {
                        event.name = name.trim().to_string();
                        any = true;
                    } else if let Some(data) = line.strip_prefix("data:") {
                        if !event.data.is_empty() {
                            event.data.push('\n');
                        }
                        event.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                        any = true;
                    }
                }
                if any {
                    return event;
                }
                continue;
            }
            let chunk = read_chunk(&mut self.reader)
                .expect("event stream chunk (none within the patience)")
                .expect("the event stream ended");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The first event named `name` for which `accept` holds (others skipped).
    pub fn wait_for(&mut self, name: &str, accept: impl Fn(&str) -> bool) -> Event {
        let deadline = Instant::now() + PATIENCE;
        loop {
            // A hang guard far above any load, not a timing check.
            if Instant::now() >= deadline {
                panic!("no {name} event came in {PATIENCE:?}");
            }
            let event = self.next();
            if event.name == name && accept(&event.data) {
                return event;
            }
        }
    }
}
