//! The stdio transport with a gate in front of the protocol library: every line the client
//! sends is checked first, so input that is not JSON-RPC gets the error JSON-RPC prescribes
//! (`-32700` for text that is not JSON, not UTF-8 or holds a lone surrogate; `-32600` for JSON
//! that is no request, notification or response) instead of a silence that leaves the client
//! waiting. Valid lines pass through unchanged; the library's answers and the gate's errors
//! share stdout a whole line at a time.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::Mutex;

/// Bytes buffered between the gate and the protocol library, each way.
const PIPE: usize = 1 << 20;

/// Shared stdout: whole lines only.
type Out = Arc<Mutex<Box<dyn AsyncWrite + Send + Unpin>>>;

/// Serves `server` over the process's stdin and stdout until the client disconnects.
pub(super) async fn serve(server: super::Server) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let out: Out = Arc::new(Mutex::new(Box::new(tokio::io::stdout())));
    let (to_server, server_in) = tokio::io::duplex(PIPE);
    let (server_out, from_server) = tokio::io::duplex(PIPE);
    let gate = tokio::spawn(gate(tokio::io::stdin(), to_server, out.clone()));
    let forward = tokio::spawn(forward(from_server, out));
    let running = server.serve((server_in, server_out)).await?;
    let _ = running.waiting().await;
    gate.abort();
    // The library dropped its end: what it wrote is forwarded, then the task ends.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), forward).await;
    Ok(())
}

/// Checks each line of `input`, passing valid messages to the library and answering the rest.
async fn gate(input: impl AsyncRead + Unpin, mut to_server: DuplexStream, out: Out) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    while next_line(&mut reader, &mut line).await {
        let message = line.trim_ascii();
        if message.is_empty() {
            continue;
        }
        match check(message) {
            Ok(()) => {
                if to_server.write_all(message).await.is_err() || to_server.write_all(b"\n").await.is_err() {
                    break;
                }
            }
            Err(reply) => {
                let mut out = out.lock().await;
                let _ = out.write_all(format!("{reply}\n").as_bytes()).await;
                let _ = out.flush().await;
            }
        }
    }
    let _ = to_server.shutdown().await;
}

/// Copies the library's output to stdout, a line at a time.
async fn forward(from_server: DuplexStream, out: Out) {
    let mut reader = BufReader::new(from_server);
    let mut line = Vec::new();
    while next_line(&mut reader, &mut line).await {
        let mut out = out.lock().await;
        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
            break;
        }
    }
}

/// Reads the next line into `line` (replacing it); `false` at the end or on an error.
async fn next_line(reader: &mut (impl AsyncBufReadExt + Unpin), line: &mut Vec<u8>) -> bool {
    line.clear();
    matches!(reader.read_until(b'\n', line).await, Ok(n) if n > 0)
}

/// `Ok` for a JSON-RPC 2.0 message, else the error response it deserves (the HTTP transport
/// checks its bodies with it too).
pub(super) fn check(message: &[u8]) -> Result<(), Value> {
    let Ok(text) = std::str::from_utf8(message) else {
        return Err(error(Value::Null, -32700, "Parse error: the message is not valid UTF-8".to_owned()));
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Err(error(Value::Null, -32700, format!("Parse error: {e}"))),
    };
    let Some(object) = value.as_object() else {
        return Err(error(Value::Null, -32600, "Invalid Request: a message is one JSON-RPC 2.0 object".to_owned()));
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    let versioned = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let request = object.get("method").is_some_and(Value::is_string);
    let response = object.contains_key("result") || object.contains_key("error");
    if !versioned || !(request || response) {
        return Err(error(
            id,
            -32600,
            "Invalid Request: expected \"jsonrpc\": \"2.0\" and a \"method\" (or a result or error)".to_owned(),
        ));
    }
    Ok(())
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_malformed_message_gets_its_json_rpc_error() {
        let code = |m: &[u8]| check(m).err().map(|e| (e["error"]["code"].as_i64().unwrap(), e["id"].clone()));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(code(b"this is not json"), Some((-32700, Value::Null)));
        assert_eq!(code(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}"), Some((-32700, Value::Null)));
        assert_eq!(
            code(br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\ud800"}}"#),
            Some((-32700, Value::Null))
        );
        assert_eq!(code(b"42"), Some((-32600, Value::Null)));
        assert_eq!(code(br#"{"id":5,"method":"ping"}"#), Some((-32600, json!(5))));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":6}"#), Some((-32600, json!(6))));
    }
}
