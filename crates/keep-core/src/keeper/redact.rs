//! Secrets kept out of the store: each way text comes in (put, files and
//! URLs, chat imports, transcripts, tag values, summaries) passes it
//! through a `Screen` before anything is stored, embedded or compared, so
//! each secret is replaced by its marker (`keep_model::secrets`) and the
//! write says what it replaced. The store's `redact_secrets = false`, or
//! the owner's `--allow-secrets` for one command, keeps text as written.

use keep_ingest::Document;
use keep_ingest::chat::Session;
use keep_model::secrets::{self, Redaction};
use keep_model::{Tags, keys};

use super::Keeper;

/// The secrets redacted from one note of a batch (files, a folder, a chat
/// export).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Redacted {
    pub id: String,
    pub secrets: Vec<Redaction>,
}

/// Collects what it redacts from each text handed to it.
pub(super) struct Screen {
    on: bool,
    found: Vec<Redaction>,
}

impl Screen {
    /// `text` with its secrets replaced (unchanged when the screen is off).
    pub(super) fn text(&mut self, text: &str, place: &str) -> String {
        if !self.on {
            return text.to_string();
        }
        let (clean, found) = secrets::redact(text, place);
        self.found.extend(found);
        clean
    }

    pub(super) fn in_place(&mut self, text: &mut String, place: &str) {
        if self.on && secrets::holds_secret(text) {
            *text = self.text(text, place);
        }
    }

    fn optional(&mut self, text: &mut Option<String>, place: &str) {
        if let Some(text) = text {
            self.in_place(text, place);
        }
    }

    /// Tags with each value screened (`tag 'KEY'`).
    pub(super) fn tags(&mut self, tags: &mut Tags) {
        if !self.on || !tags.pairs().any(|(_, v)| secrets::holds_secret(v)) {
            return;
        }
        let mut clean = Tags::new();
        for (key, value) in tags.pairs() {
            clean.insert(key, self.text(value, &format!("tag '{key}'")));
        }
        *tags = clean;
    }

    /// What the caller gives beside the content: its summary and tags.
    pub(super) fn given(&mut self, summary: &mut Option<String>, tags: &mut Tags) {
        self.optional(summary, "summary");
        self.tags(tags);
    }

    /// An extracted document, before its parts are cut (a secret cut in
    /// two by a part's edge would be found in neither half).
    pub(super) fn document(&mut self, doc: &mut Document) {
        self.in_place(&mut doc.text, "text");
        self.optional(&mut doc.description, "description");
        self.optional(&mut doc.lead, "text");
        for (i, page) in doc.pages.iter_mut().enumerate() {
            self.in_place(page, &format!("page {}", i + 1));
        }
        for (i, slide) in doc.slides.iter_mut().enumerate() {
            self.in_place(slide, &format!("slide {}", i + 1));
        }
        for link in &mut doc.links {
            self.in_place(link, "a link");
        }
        self.tags(&mut doc.tags);
    }

    /// A conversation, turn by turn, and its title.
    pub(super) fn session(&mut self, session: &mut Session) {
        self.optional(&mut session.title, "title");
        for (i, turn) in session.turns.iter_mut().enumerate() {
            self.in_place(&mut turn.text, &format!("turn {}", i + 1));
            self.in_place(&mut turn.speaker, &format!("turn {}", i + 1));
        }
    }

    /// What was redacted so far, in the order found, leaving the screen
    /// empty for the next note.
    pub(super) fn take(&mut self) -> Vec<Redaction> {
        std::mem::take(&mut self.found)
    }
}

impl Keeper {
    /// A screen for one write: on unless the store keeps secrets or the
    /// owner asked to keep them for this command (`keep_secrets`).
    pub(super) fn screen(&self, keep_secrets: bool) -> Screen {
        Screen {
            on: self.settings.redact_secrets && !keep_secrets,
            found: Vec::new(),
        }
    }
}

/// Marks `tags` with the kinds redacted from the state they describe
/// (`_redacted`), or clears the mark when this state had none.
pub(super) fn mark_redacted(tags: &mut Tags, found: &[Redaction]) {
    tags.remove_key(keys::REDACTED);
    add_redacted(tags, found);
}

/// Adds to `tags` the kinds redacted by an edit that keeps the rest of
/// the state (a tag or summary change).
pub(super) fn add_redacted(tags: &mut Tags, found: &[Redaction]) {
    for r in found {
        if !tags.contains(keys::REDACTED, r.kind) {
            tags.insert(keys::REDACTED, r.kind);
        }
    }
}
