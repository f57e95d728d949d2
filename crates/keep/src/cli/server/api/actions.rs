//! The writes of one note beside its tags: `rate`, `supersede` (which
//! also resolves a conflict), and trash and restore, each as the command
//! line runs it.

use serde::Deserialize;

use super::{Reply, Serving, body, run};

/// The actions of `POST /v1/notes/ID/ACTION`.
pub const ACTIONS: [&str; 5] = ["tags", "rate", "supersede", "trash", "restore"];

/// Runs `action` on note `id` with the request's body.
pub fn act(warm: &Serving<'_>, action: &str, id: &str, bytes: &[u8]) -> Reply {
    let args = match action {
        "rate" => rate(id, bytes),
        "supersede" => supersede(id, bytes),
        "trash" => trash(id, bytes),
        "restore" => restore(bytes, id),
        _ => return Reply::error(404, "no such path: see /openapi.json"),
    };
    match args {
        Ok(args) => run(warm, args).reply(200).only_one(),
        Err(reply) => reply,
    }
}

/// A body that may be left out: `{}` when empty.
fn optional<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, Reply> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        body(b"{}")
    } else {
        body(bytes)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Rating {
    rating: Verdict,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Verdict {
    Useful,
    Wrong,
}

fn rate(id: &str, bytes: &[u8]) -> Result<Vec<String>, Reply> {
    let Rating { rating } = body(bytes)?;
    let rating = match rating {
        Verdict::Useful => "useful",
        Verdict::Wrong => "wrong",
    };
    Ok(vec!["rate".into(), "--".into(), id.into(), rating.into()])
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Successor {
    #[serde(default)]
    olds: Vec<String>,
}

fn supersede(id: &str, bytes: &[u8]) -> Result<Vec<String>, Reply> {
    let Successor { olds } = optional(bytes)?;
    let mut args = vec!["supersede".into(), "--".into(), id.into()];
    args.extend(olds);
    Ok(args)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Trashing {
    reason: Option<String>,
}

fn trash(id: &str, bytes: &[u8]) -> Result<Vec<String>, Reply> {
    let Trashing { reason } = optional(bytes)?;
    if id.ends_with('}') && (id.contains("@V{") || id.contains("@P{")) {
        // `keep del ID@V{N}` deletes a version for good: not a trashing.
        return Err(Reply::error(
            400,
            &format!("'{id}': the trash takes a whole note; give the plain id"),
        ));
    }
    let mut args = vec!["del".to_string()];
    if let Some(reason) = reason.filter(|r| !r.trim().is_empty()) {
        args.push(format!("--reason={reason}"));
    }
    args.extend(["--".into(), id.into()]);
    Ok(args)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

fn restore(bytes: &[u8], id: &str) -> Result<Vec<String>, Reply> {
    let Nothing {} = optional(bytes)?;
    Ok(vec!["restore".into(), "--".into(), id.into()])
}
