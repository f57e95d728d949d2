//! Line framing between the real stdio and the protocol SDK. Each incoming
//! line is checked before the SDK sees it: a line that is not JSON gets the
//! JSON-RPC parse error (-32700) and a line over the size limit gets an
//! invalid-request error (-32600), where the SDK would drop them silently.
//! Outgoing messages from the SDK and these errors share one writer, so
//! lines never interleave.

use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Largest request line accepted.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// The pumps between stdio and the SDK's end of an in-process pipe.
pub struct Framing {
    pub inbound: JoinHandle<()>,
    pub outbound: JoinHandle<()>,
}

/// Starts pumping `input` into `ours` (checked line by line) and what the
/// SDK writes on the other end of `ours` out to `output`.
pub fn start<R, W>(input: R, output: W, ours: DuplexStream) -> Framing
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (from_sdk, to_sdk) = tokio::io::split(ours);
    let (errors_tx, errors_rx) = mpsc::unbounded_channel();
    Framing {
        inbound: tokio::spawn(pump_in(BufReader::new(input), to_sdk, errors_tx)),
        outbound: tokio::spawn(pump_out(BufReader::new(from_sdk), output, errors_rx)),
    }
}

/// What became of one incoming line.
#[derive(Debug, PartialEq)]
enum Line {
    Message(Vec<u8>),
    Blank,
    Rejected(String),
}

fn check_line(line: &[u8], oversized: bool) -> Line {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if oversized {
        return Line::Rejected(error_response(
            -32600,
            &format!("Invalid Request: the message is larger than {MAX_REQUEST_BYTES} bytes"),
        ));
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(message) => match shape_error(&message) {
            None => Line::Message(line.to_vec()),
            Some((code, why)) => Line::Rejected(error_reply(request_id(&message), code, &why)),
        },
        Err(e) => Line::Rejected(error_response(-32700, &format!("Parse error: {e}"))),
    }
}

/// Methods whose params carry what the call is about.
const NEEDS_PARAMS: &[&str] = &[
    "initialize",
    "tools/call",
    "resources/read",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// What is wrong with the shape of a JSON-RPC message, if anything: the
/// SDK drops some malformed requests without an answer, which leaves a
/// client waiting.
fn shape_error(message: &Value) -> Option<(i64, String)> {
    let Some(obj) = message.as_object() else {
        return Some((-32600, "Invalid Request: expected a JSON object".into()));
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some((
            -32600,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"".into(),
        ));
    }
    if let Some(id) = obj.get("id")
        && !usable_id(id)
        && obj.contains_key("method")
    {
        return Some((
            -32600,
            "Invalid Request: the id must be a string or an integer of at most 64 bits".into(),
        ));
    }
    match obj.get("method") {
        Some(Value::String(method)) => match obj.get("params") {
            None if NEEDS_PARAMS.contains(&method.as_str()) => {
                Some((-32602, format!("Invalid params: {method} needs params")))
            }
            None => None,
            Some(Value::Object(params)) if method == "tools/call" => tool_call_error(params),
            Some(Value::Object(_)) => None,
            Some(_) => Some((-32602, "Invalid params: params must be an object".into())),
        },
        Some(_) => Some((
            -32600,
            "Invalid Request: the method must be a string".into(),
        )),
        None if obj.contains_key("id")
            && (obj.contains_key("result") || obj.contains_key("error")) =>
        {
            None
        }
        None => Some((-32600, "Invalid Request: no method".into())),
    }
}

/// What is wrong with the params of `tools/call`, if anything.
fn tool_call_error(params: &serde_json::Map<String, Value>) -> Option<(i64, String)> {
    if !params.get("name").is_some_and(Value::is_string) {
        return Some((
            -32602,
            "Invalid params: tools/call needs the tool's name as a string".into(),
        ));
    }
    match params.get("arguments") {
        None | Some(Value::Object(_)) | Some(Value::Null) => None,
        Some(_) => Some((
            -32602,
            "Invalid params: the arguments of tools/call must be an object".into(),
        )),
    }
}

/// A request id the protocol allows and the server can echo: a string or
/// an integer that fits in 64 bits (not null, not a fraction).
fn usable_id(id: &Value) -> bool {
    id.is_string() || id.is_i64()
}

/// The id to answer with: the request's, when it has a usable one, else
/// null as JSON-RPC requires.
fn request_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id) if usable_id(id) => id.clone(),
        _ => Value::Null,
    }
}

fn error_response(code: i64, message: &str) -> String {
    error_reply(Value::Null, code, message)
}

fn error_reply(id: Value, code: i64, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    })
    .to_string()
}

async fn pump_in<R, W>(mut input: R, mut to_sdk: W, errors: mpsc::UnboundedSender<String>)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let oversized = match read_capped_line(&mut input, &mut buf, MAX_REQUEST_BYTES).await {
            Ok(Some(oversized)) => oversized,
            Ok(None) | Err(_) => break,
        };
        match check_line(&buf, oversized) {
            Line::Blank => {}
            Line::Rejected(reply) => {
                if errors.send(reply).is_err() {
                    break;
                }
            }
            Line::Message(mut message) => {
                message.push(b'\n');
                if to_sdk.write_all(&message).await.is_err() {
                    break;
                }
            }
        }
    }
    // The SDK's side is gone already when this fails.
    let _ = to_sdk.shutdown().await;
}

/// Reads one line into `buf`, keeping at most `cap` bytes of it. Returns
/// None at end of input, else whether the line was longer than `cap`.
async fn read_capped_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Option<bool>> {
    let mut seen = 0usize;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(if seen == 0 { None } else { Some(seen > cap) });
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if seen + take <= cap + 1 {
            buf.extend_from_slice(&chunk[..take]);
        }
        seen += take;
        input.consume(take);
        if done {
            return Ok(Some(seen > cap + 1));
        }
    }
}

async fn pump_out<R, W>(mut from_sdk: R, mut output: W, mut errors: mpsc::UnboundedReceiver<String>)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    // A read cut short by an error reply keeps what it read in `line`
    // and goes on from there: it is cleared only once written whole.
    let mut line = Vec::new();
    let mut errors_open = true;
    loop {
        tokio::select! {
            read = from_sdk.read_until(b'\n', &mut line) => {
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if !line.ends_with(b"\n") {
                            line.push(b'\n');
                        }
                        if write_line(&mut output, &line).await.is_err() {
                            return;
                        }
                        line.clear();
                    }
                }
            }
            reply = errors.recv(), if errors_open => {
                match reply {
                    Some(reply) => {
                        let reply = format!("{reply}\n");
                        if write_line(&mut output, reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                    None => errors_open = false,
                }
            }
        }
    }
    while let Ok(reply) = errors.try_recv() {
        // The client closed its output: these errors have nobody to go to.
        let _ = write_line(&mut output, format!("{reply}\n").as_bytes()).await;
    }
}

async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, line: &[u8]) -> std::io::Result<()> {
    output.write_all(line).await?;
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_pass_and_garbage_gets_a_parse_error() {
        assert_eq!(
            check_line(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\r\n", false),
            Line::Message(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}".to_vec())
        );
        assert_eq!(check_line(b"  \n", false), Line::Blank);
        let Line::Rejected(reply) = check_line(b"{not json\n", false) else {
            panic!("garbage accepted");
        };
        let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["error"]["code"], -32700);
        assert!(reply["id"].is_null());
    }

    #[test]
    fn malformed_requests_are_answered_with_their_id() {
        let reply = |line: &str| match check_line(line.as_bytes(), false) {
            Line::Rejected(reply) => serde_json::from_str::<Value>(&reply).unwrap(),
            other => panic!("{line} passed: {other:?}"),
        };
        let r = reply(r#"{"jsonrpc":"2.0","id":2}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (2.into(), (-32600).into())
        );
        let r = reply(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#);
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            ("a".into(), (-32602).into())
        );
        let r = reply(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"x"}"#);
        assert_eq!(r["error"]["code"], -32602);
        let r = reply(r#"[1,2]"#);
        assert!(r["id"].is_null());
        for odd in ["null", "1.5", "123456789012345678901234567890", "-1e3"] {
            let r = reply(&format!(
                r#"{{"jsonrpc":"2.0","id":{odd},"method":"tools/list"}}"#
            ));
            assert_eq!(r["error"]["code"], -32600, "{odd}");
            assert!(
                r.as_object().unwrap().contains_key("id") && r["id"].is_null(),
                "{odd}"
            );
        }
        let r = reply(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get","arguments":[1]}}"#,
        );
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (7.into(), (-32602).into())
        );
        assert!(matches!(
            check_line(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, false),
            Line::Message(_)
        ));
    }

    #[test]
    fn oversized_lines_are_rejected() {
        let Line::Rejected(reply) = check_line(b"{}", true) else {
            panic!("oversized accepted");
        };
        assert!(reply.contains("-32600"));
    }

    #[tokio::test]
    async fn an_error_reply_sent_while_a_long_line_is_read_never_cuts_it() {
        let (mut sdk, from_sdk) = tokio::io::duplex(64);
        let (output, mut shown) = tokio::io::duplex(1 << 20);
        let (errors, errors_rx) = mpsc::unbounded_channel();
        let pump = tokio::spawn(pump_out(BufReader::new(from_sdk), output, errors_rx));
        let long = format!("{{\"result\":\"{}\"}}\n", "x".repeat(10_000));
        let (first, rest) = long.split_at(5_000);
        sdk.write_all(first.as_bytes()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        errors.send("{\"error\":1}".to_string()).unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        sdk.write_all(rest.as_bytes()).await.unwrap();
        drop(sdk);
        drop(errors);
        pump.await.unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut shown, &mut text)
            .await
            .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{}", &text[..200.min(text.len())]);
        assert_eq!(lines[0], "{\"error\":1}");
        assert_eq!(
            format!("{}\n", lines[1]),
            long,
            "the long line arrives whole"
        );
    }

    #[tokio::test]
    async fn capped_reads_keep_the_line_boundaries() {
        let data = b"abc\nxxxxxxxxxx\nde".to_vec();
        let mut input = BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_capped_line(&mut input, &mut buf, 5).await.unwrap(),
            Some(false)
        );
        assert_eq!(buf, b"abc\n");
        buf.clear();
        assert_eq!(
            read_capped_line(&mut input, &mut buf, 5).await.unwrap(),
            Some(true)
        );
        buf.clear();
        assert_eq!(
            read_capped_line(&mut input, &mut buf, 5).await.unwrap(),
            Some(false)
        );
        assert_eq!(buf, b"de");
        buf.clear();
        assert_eq!(
            read_capped_line(&mut input, &mut buf, 5).await.unwrap(),
            None
        );
    }
}
