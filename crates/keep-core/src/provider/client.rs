//! Requests to an OpenAI-compatible server: chat completions (with an
//! optional JSON schema for the answer), embeddings and transcriptions.
//! Every failure becomes one `Error::Provider` naming the server and what
//! went wrong (refused, timed out, an HTTP status, an answer that is not
//! what the API promises).

use std::time::Duration;

use serde_json::{Value, json};

use crate::error::{Error, Result};
use keep_model::settings::Provider;

/// The largest answer read from a server.
const MAX_ANSWER_BYTES: u64 = 16 * 1024 * 1024;

/// One chat request: a system prompt, the user's message, and limits.
pub struct Chat<'a> {
    pub system: &'a str,
    pub user: &'a str,
    pub max_tokens: u32,
    /// When given, the answer must be JSON valid against this schema.
    pub schema: Option<Value>,
}

/// A model's answer.
pub struct Answer {
    pub text: String,
    /// The model stopped at `max_tokens`, mid-thought.
    pub cut: bool,
}

/// The model's answer to `chat`.
pub fn chat(provider: &Provider, chat: &Chat<'_>) -> Result<Answer> {
    let mut body = json!({
        "model": provider.model,
        "messages": [
            {"role": "system", "content": chat.system},
            {"role": "user", "content": chat.user},
        ],
        "max_tokens": chat.max_tokens,
        "temperature": 0.2,
        "stream": false,
    });
    if let Some(schema) = &chat.schema {
        body["response_format"] = json!({
            "type": "json_schema",
            "json_schema": {"name": "answer", "strict": true, "schema": schema},
        });
    }
    let answer = post_json(provider, "chat/completions", &body)?;
    let choice = &answer["choices"][0];
    let text = choice["message"]["content"]
        .as_str()
        .ok_or_else(|| failed(provider, "the answer holds no message".into()))?;
    let cut = choice["finish_reason"] == "length";
    if cut && chat.schema.is_some() {
        return Err(failed(
            provider,
            format!("the answer was cut at {} tokens", chat.max_tokens),
        ));
    }
    Ok(Answer {
        text: text.trim().to_string(),
        cut,
    })
}

/// Unit-length vectors for `texts`, in order.
pub fn embed(provider: &Provider, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
    let body = json!({"model": provider.model, "input": texts, "encoding_format": "float"});
    let answer = post_json(provider, "embeddings", &body)?;
    let data = answer["data"]
        .as_array()
        .ok_or_else(|| failed(provider, "the answer holds no embeddings".into()))?;
    if data.len() != texts.len() {
        return Err(failed(
            provider,
            format!(
                "{} embeddings came back for {} texts",
                data.len(),
                texts.len()
            ),
        ));
    }
    let mut vectors = vec![Vec::new(); texts.len()];
    for (n, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().map_or(n, |i| i as usize);
        let values = item["embedding"]
            .as_array()
            .filter(|v| !v.is_empty())
            .ok_or_else(|| failed(provider, format!("embedding {n} is not a list of numbers")))?;
        let mut vector: Vec<f32> = values
            .iter()
            .map(|v| v.as_f64().map(|x| x as f32))
            .collect::<Option<_>>()
            .ok_or_else(|| failed(provider, format!("embedding {n} is not a list of numbers")))?;
        normalise(&mut vector);
        let slot = vectors
            .get_mut(index)
            .ok_or_else(|| failed(provider, format!("embedding index {index} is out of range")))?;
        *slot = vector;
    }
    Ok(vectors)
}

/// What is said in `audio` (a whole file's bytes, named `file_name`).
pub fn transcribe(provider: &Provider, audio: &[u8], file_name: &str) -> Result<String> {
    let boundary = format!("keep-{:016x}", rand_u64());
    let mut body = Vec::with_capacity(audio.len() + 512);
    for (name, value) in [
        ("model", provider.model.as_str()),
        // faster-whisper-server reads this name for the model.
        ("model_name", provider.model.as_str()),
        ("response_format", "json"),
    ] {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    let safe_name: String = file_name
        .chars()
        .map(|c| if c == '"' || c.is_control() { '_' } else { c })
        .collect();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{safe_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(audio);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let answer = post(
        provider,
        "audio/transcriptions",
        &format!("multipart/form-data; boundary={boundary}"),
        &body,
    )?;
    let text = answer["text"]
        .as_str()
        .ok_or_else(|| failed(provider, "the answer holds no text".into()))?;
    Ok(text.trim().to_string())
}

fn post_json(provider: &Provider, path: &str, body: &Value) -> Result<Value> {
    post(
        provider,
        path,
        "application/json",
        body.to_string().as_bytes(),
    )
}

fn post(provider: &Provider, path: &str, content_type: &str, body: &[u8]) -> Result<Value> {
    let url = endpoint(provider, path);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(provider.timeout))
        .http_status_as_error(false)
        .user_agent(concat!("keep/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut request = agent.post(&url).header("content-type", content_type);
    if let Some(key) = &provider.api_key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let mut response = request.send(body).map_err(|e| match unreachable(&e) {
        true => Error::ProviderUnreachable {
            server: server_name(provider),
            reason: transport(e, provider.timeout),
        },
        false => failed(provider, transport(e, provider.timeout)),
    })?;
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER_BYTES)
        .read_to_string()
        .map_err(|e| failed(provider, transport(e, provider.timeout)))?;
    if !(200..300).contains(&status) {
        return Err(failed(
            provider,
            format!("answered HTTP {status}{}", said(&text)),
        ));
    }
    serde_json::from_str(&text).map_err(|e| {
        failed(
            provider,
            format!("answered with something that is not JSON ({e})"),
        )
    })
}

/// The URL of `path` under the provider's base.
fn endpoint(provider: &Provider, path: &str) -> String {
    format!("{}/{path}", provider.base_url.trim_end_matches('/'))
}

/// What a transport error means, in words.
fn transport(e: ureq::Error, limit: Duration) -> String {
    match e {
        ureq::Error::Timeout(_) => format!("no answer within {} s", limit.as_secs_f64()),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "refused the connection (is the server running?)".into()
        }
        ureq::Error::Io(io) => format!("the connection failed ({io})"),
        ureq::Error::BodyExceedsLimit(_) => {
            format!("the answer is larger than {MAX_ANSWER_BYTES} bytes")
        }
        other => other.to_string(),
    }
}

/// Whether the server could not be reached at all (so the work waits),
/// rather than failing while it answered.
fn unreachable(e: &ureq::Error) -> bool {
    match e {
        ureq::Error::Io(io) => io.kind() == std::io::ErrorKind::ConnectionRefused,
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => true,
        _ => false,
    }
}

/// The start of an error body, when the server said something.
fn said(body: &str) -> String {
    let line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return String::new();
    }
    let cut: String = line.chars().take(160).collect();
    format!(": {cut}")
}

pub(crate) fn failed(provider: &Provider, reason: String) -> Error {
    Error::Provider {
        server: server_name(provider),
        reason,
    }
}

/// How a provider is named in messages: its model and base URL (the URL
/// has no credentials: they are refused when configured).
pub fn server_name(provider: &Provider) -> String {
    format!("{} at {}", provider.model, provider.base_url)
}

fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(std::process::id() as u64);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(url: &str) -> Provider {
        Provider {
            base_url: url.into(),
            model: "m".into(),
            api_key: Some("secret".into()),
            timeout: Duration::from_secs(2),
        }
    }

    #[test]
    fn endpoints_join_the_base_without_doubling_slashes() {
        assert_eq!(
            endpoint(&provider("http://h:1/v1/"), "embeddings"),
            "http://h:1/v1/embeddings"
        );
    }

    #[test]
    fn a_refused_connection_names_the_server_and_never_the_key() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let p = provider(&format!("http://127.0.0.1:{port}/v1"));
        let e = embed(&p, &["x"]).unwrap_err().to_string();
        assert!(
            e.contains(&format!("m at http://127.0.0.1:{port}/v1")),
            "{e}"
        );
        assert!(e.contains("refused"), "{e}");
        assert!(!e.contains("secret"), "{e}");
        assert!(!format!("{p:?}").contains("secret"));
    }
}
