//! Asking the person behind a client: when `remember` stores a probable
//! update of an older note and the client declared elicitation, it is
//! asked whether the new note replaces the older one; yes supersedes it.
//! A client without elicitation gets the plain answer (`possible_update`,
//! to accept later with `supersede`).

use rmcp::service::ElicitationError;
use rmcp::{Peer, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The answer asked for.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Replaces {
    /// True when the new note replaces the older one.
    pub replaces: bool,
}

rmcp::elicit_safe!(Replaces);

/// How long a person has to answer.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(120);

/// Whether the client can be asked.
pub fn can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_some())
}

/// The new and older note of a `remember` answer that is a probable
/// update, with what differs.
pub fn probable_update(answer: &Value) -> Option<(String, String, String)> {
    if answer.get("status")?.as_str()? != "possible_update" {
        return None;
    }
    let new = answer.get("id")?.as_str()?.to_string();
    let old = answer.get("possible_update_of")?.as_str()?.to_string();
    let differences = answer
        .get("differences")
        .and_then(Value::as_array)
        .map(|d| {
            d.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default();
    Some((new, old, differences))
}

/// Asks whether `new` replaces `old`; None when the person did not say
/// (declined, dismissed, no answer in time).
pub async fn ask_replaces(
    peer: &Peer<RoleServer>,
    new: &str,
    old: &str,
    differences: &str,
) -> Option<bool> {
    let message = format!(
        "The note just stored ({new}) says what {old} says, with another detail ({differences}). Does it replace {old}? If so, recall will show only the new one."
    );
    match peer
        .elicit_with_timeout::<Replaces>(message, Some(ANSWER_WITHIN))
        .await
    {
        Ok(Some(answer)) => Some(answer.replaces),
        Ok(None) | Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => None,
        Err(_) => None,
    }
}
