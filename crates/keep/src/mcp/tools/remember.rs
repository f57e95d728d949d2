//! `remember`: store text as a note.

use keep_commands::Command;
use keep_commands::put::Put;
use keep_core::Keeper;
use keep_core::keeper::{OnDuplicate, PutOptions, WriteOutcome};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{CallError, Context, Hints, MAX_TEXT_BYTES, ToolDef};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The text to remember. Short text is kept whole; long text is summarised and its full text indexed for search.
    pub text: Option<String>,
    /// Several facts instead of text: each its own note, with the same tags and options, each outcome in "results".
    #[serde(default)]
    pub facts: Vec<String>,
    /// A name for the note, such as "decision/storage-engine" (default: '%' and a hash of the text).
    pub id: Option<String>,
    /// Tags as "key=value" strings, e.g. ["project=keep", "type=decision"]. Keys starting with '_' are reserved.
    #[serde(default)]
    pub tags: Vec<String>,
    /// A summary to store instead of one made from the text.
    pub summary: Option<String>,
    /// When what it records happened or began to hold (default now): a timestamp, a date, "P2D" back, or "yesterday".
    pub at: Option<String>,
    /// When the note stops being true ("P30D" from now, a date or a timestamp); then it leaves recall and list.
    pub expires: Option<String>,
    /// How much the note matters, 1 to 5 (3 is usual): recall ranks it up to a fifth higher or lower.
    pub importance: Option<u8>,
    /// Ids of notes this one replaces (they must exist); recall then hides them.
    #[serde(default)]
    pub supersedes: Vec<String>,
    /// For a text that restates or probably updates a stored note: true makes it that note's next version; false (default) stores nothing for a restatement and a new note for an update.
    #[serde(default)]
    pub update: bool,
    /// Store the text even when it restates a note already stored.
    #[serde(default)]
    pub allow_duplicate: bool,
}

/// What `remember` did: one outcome for text, or one per fact.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    #[serde(flatten)]
    pub outcome: Option<WriteOutcome>,
    /// For facts: each one's outcome, in the order given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<FactResult>,
    /// Set when the client was asked (elicitation) whether a probable
    /// update replaces the older note and the answer was yes: that note,
    /// now superseded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
}

/// One fact's outcome, or why it was not stored.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FactResult {
    #[serde(flatten)]
    pub outcome: Option<WriteOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub struct Remember;

impl ToolDef for Remember {
    const NAME: &'static str = "remember";
    const TITLE: &'static str = "Remember";
    const DESCRIPTION: &'static str = "Store a note in long-term memory. Use it whenever a fact, decision, preference or observation is worth having in a later session. Returns the id and a status: created, updated, unchanged, duplicate (it restates a stored note, named by \"duplicate_of\": nothing stored; set update to make it that note's next version) or possible_update (same subject, another detail: stored; \"possible_update_of\" and \"differences\" name the older note; call supersede to hide it). Give an id to keep one named note up to date, tags (\"key=value\") to filter later, or facts to store several at once. Secrets are replaced by a marker such as [secret: aws-access-key 3f2a] and listed in \"redacted\".";
    const HINTS: Hints = Hints::IDEMPOTENT_WRITE;
    const EXAMPLE: &'static str =
        r#"{"text": "The backup runs at 02:00 on the vault host.", "tags": ["topic=ops"]}"#;
    type Args = Args;
    type Output = Output;

    fn texts_to_embed(args: &Args) -> Vec<String> {
        let opts = PutOptions {
            id: args.id.clone(),
            summary: args.summary.clone(),
            on_duplicate: OnDuplicate::asked(args.update, args.allow_duplicate),
            ..PutOptions::default()
        };
        args.text
            .iter()
            .chain(&args.facts)
            .filter(|t| t.len() <= MAX_TEXT_BYTES)
            .filter_map(|t| keep_core::keeper::text_to_probe(t, &opts))
            .collect()
    }

    fn call(keeper: &mut Keeper, _ctx: &Context, args: Args) -> Result<Output, CallError> {
        match (&args.text, args.facts.is_empty()) {
            (Some(_), false) => Err(CallError::Failed("give text or facts, not both".into())),
            (None, true) => Err(CallError::Failed(
                "give the text (or facts) to remember".into(),
            )),
            (Some(text), true) => {
                let text = text.clone();
                Ok(Output {
                    outcome: Some(remember_one(keeper, &text, &args)?),
                    results: Vec::new(),
                    replaced: None,
                })
            }
            (None, false) => {
                if args.id.is_some() || args.summary.is_some() {
                    return Err(CallError::Failed(
                        "an id or a summary names one note; give them with text, not facts".into(),
                    ));
                }
                let results = args
                    .facts
                    .iter()
                    .map(|fact| match remember_one(keeper, fact, &args) {
                        Ok(outcome) => FactResult {
                            outcome: Some(outcome),
                            error: None,
                        },
                        Err(e) => FactResult {
                            outcome: None,
                            error: Some(e.to_string()),
                        },
                    })
                    .collect();
                Ok(Output {
                    outcome: None,
                    results,
                    replaced: None,
                })
            }
        }
    }
}

/// Stores one text with the options of `args`.
fn remember_one(keeper: &mut Keeper, text: &str, args: &Args) -> Result<WriteOutcome, CallError> {
    if text.trim().is_empty() {
        return Err(CallError::Failed("the text is empty".into()));
    }
    if text.len() > MAX_TEXT_BYTES {
        return Err(CallError::Failed(format!(
            "the text is {} bytes; the limit is {MAX_TEXT_BYTES} (store big documents with put_file)",
            text.len()
        )));
    }
    Ok(Put {
        allow_secrets: false,
        text: text.to_string(),
        id: args.id.clone(),
        tags: args.tags.clone().into(),
        summary: args.summary.clone(),
        at: args.at.clone(),
        expires: args.expires.clone(),
        importance: args.importance,
        supersedes: args.supersedes.clone(),
        update: args.update,
        allow_duplicate: args.allow_duplicate,
    }
    .run(keeper)?)
}
