//! JSON-RPC messages over stdio with `Content-Length` headers, as LSP frames them.

use super::*;

/// `FILEKIT_LSP_TRACE=1` prints every message to and from servers on stderr.
static TRACE: LazyLock<bool> =
    LazyLock::new(|| std::env::var_os("FILEKIT_LSP_TRACE").is_some_and(|v| v == "1"));

pub(crate) fn trace(dir: &str, v: &Value) {
    if *TRACE {
        let s = v.to_string();
        let cut: String = s.chars().take(2000).collect();
        eprintln!("lsp {dir} {cut}");
    }
}

pub(crate) fn write_message(w: &mut impl Write, v: &Value) -> std::io::Result<()> {
    trace("->", v);
    let body = serde_json::to_vec(v).expect("JSON values serialize");
    write!(w, "Content-Length: {}\r\n\r\n", body.len())?;
    w.write_all(&body)?;
    w.flush()
}

pub(crate) fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    let v = serde_json::from_slice(&body).ok()?;
    trace("<-", &v);
    Some(v)
}
