//! The `bootstrap` of the `provided.al2023` function that examples/lambda_bench.rs measures: a
//! Lambda custom runtime in the standard library only, answering each event with itself. It
//! talks to the Runtime API (2018-06-01) named by `AWS_LAMBDA_RUNTIME_API` over one kept-alive
//! HTTP/1.1 connection, as AWS's runtime clients do, and opens a new one when the server closes
//! it. The benchmark compiles it with `rustc -O` (no cargo, no crates) into a scratch folder.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

/// The Runtime API's address and the connection to it, if one is open.
struct Api {
    host: String,
    conn: Option<BufReader<TcpStream>>,
}

/// An answer: its headers (names in lower case) and body.
struct Answer {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        let found = self.headers.iter().find(|(n, _)| n == name);
        found.map(|(_, v)| v.as_str())
    }
}

impl Api {
    /// One request; on a connection the server had closed (nothing came back), once more on a
    /// new one.
    fn request(&mut self, method: &str, path: &str, body: &[u8]) -> std::io::Result<Answer> {
        let reused = self.conn.is_some();
        match self.exchange(method, path, body) {
            Err(e) if reused && e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.conn = None;
                self.exchange(method, path, body)
            }
            other => other,
        }
    }

    fn exchange(&mut self, method: &str, path: &str, body: &[u8]) -> std::io::Result<Answer> {
        if self.conn.is_none() {
            let stream = TcpStream::connect(&self.host)?;
            stream.set_nodelay(true)?;
            self.conn = Some(BufReader::new(stream));
        }
        let conn = self.conn.as_mut().expect("opened above");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n\r\n",
            self.host,
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        conn.get_mut().write_all(&request)?;
        let answer = read_answer(conn);
        let closing = match &answer {
            Ok(a) => a.header("connection") == Some("close"),
            Err(_) => true,
        };
        if closing {
            self.conn = None;
        }
        answer
    }
}

fn eof() -> std::io::Error {
    std::io::ErrorKind::UnexpectedEof.into()
}

fn read_line(conn: &mut BufReader<TcpStream>) -> std::io::Result<String> {
    let mut line = String::new();
    if conn.read_line(&mut line)? == 0 {
        return Err(eof());
    }
    Ok(line.trim_end().to_string())
}

/// The status line, headers and body (by Content-Length, or chunked) of one answer.
fn read_answer(conn: &mut BufReader<TcpStream>) -> std::io::Result<Answer> {
    let status = read_line(conn)?;
    let code = status.split(' ').nth(1).unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let line = read_line(conn)?;
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let mut answer = Answer {
        headers,
        body: Vec::new(),
    };
    if let Some(length) = answer.header("content-length") {
        let length: usize = length.parse().map_err(|_| eof())?;
        answer.body.resize(length, 0);
        conn.read_exact(&mut answer.body)?;
    } else if answer.header("transfer-encoding") == Some("chunked") {
        loop {
            let size = read_line(conn)?;
            let size = usize::from_str_radix(size.split(';').next().unwrap_or_default(), 16);
            let size = size.map_err(|_| eof())?;
            let start = answer.body.len();
            answer.body.resize(start + size, 0);
            conn.read_exact(&mut answer.body[start..])?;
            read_line(conn)?;
            if size == 0 {
                break;
            }
        }
    } else if code != "204" && code != "304" {
        conn.read_to_end(&mut answer.body)?;
        answer.headers.push(("connection".into(), "close".into()));
    }
    Ok(answer)
}

fn main() {
    let host = std::env::var("AWS_LAMBDA_RUNTIME_API").expect("AWS_LAMBDA_RUNTIME_API");
    let mut api = Api { host, conn: None };
    loop {
        let next = match api.request("GET", "/2018-06-01/runtime/invocation/next", b"") {
            Ok(next) => next,
            // The Runtime API is gone: the environment is being stopped.
            Err(_) => return,
        };
        let Some(id) = next.header("lambda-runtime-aws-request-id") else {
            continue;
        };
        let path = format!("/2018-06-01/runtime/invocation/{id}/response");
        if api.request("POST", &path, &next.body).is_err() {
            return;
        }
    }
}
