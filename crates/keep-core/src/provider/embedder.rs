//! Embeddings from a provider's `/embeddings`, as an `Embedder`: the
//! store records its vectors as the provider's model (`provider:NAME`)
//! with the dimensions the first answer had.

use super::client;
use crate::embed::{Embedder, KeepGoing, Made};
use crate::error::{Error, Result};
use keep_model::settings::Provider;

/// Texts sent in one request.
const REQUEST_TEXTS: usize = 32;
/// Each text is cut to this many characters at first: servers refuse
/// input longer than their context, and a note's meaning is in its
/// opening. A server that refuses a batch gets it again cut to half, down
/// to `MIN_TEXT_CHARS`, and the shorter cut stays (llama.cpp's server
/// refuses more than 512 tokens unless told otherwise: 2,000 characters
/// of Debian's developers-reference were 711 of SmolLM2's tokens).
const TEXT_CHARS: usize = 2000;
const MIN_TEXT_CHARS: usize = 250;

pub struct ProviderEmbedder {
    provider: Provider,
    id: String,
    dims: usize,
    text_chars: usize,
}

impl ProviderEmbedder {
    /// Connects: one request learns the dimensions.
    pub fn connect(provider: Provider) -> Result<Self> {
        let probe = client::embed(&provider, &["dimensions"]).map_err(unavailable)?;
        let dims = probe.first().map_or(0, Vec::len);
        Ok(ProviderEmbedder {
            id: model_id(&provider),
            provider,
            dims,
            text_chars: TEXT_CHARS,
        })
    }
}

impl ProviderEmbedder {
    /// The vectors of `batch`, each text cut short enough for the server.
    fn embed_batch(&mut self, batch: &[&str]) -> Result<Vec<Vec<f32>>> {
        loop {
            let cut: Vec<String> = batch
                .iter()
                .map(|t| super::summary::cut(t, self.text_chars))
                .collect();
            let refs: Vec<&str> = cut.iter().map(String::as_str).collect();
            match client::embed(&self.provider, &refs) {
                Ok(vectors) => return Ok(vectors),
                Err(Error::Provider { .. })
                    if self.text_chars > MIN_TEXT_CHARS
                        && batch
                            .iter()
                            .any(|t| t.chars().count() > self.text_chars / 2) =>
                {
                    self.text_chars /= 2;
                }
                Err(e) => return Err(unavailable(e)),
            }
        }
    }
}

/// A server that fails makes the model unavailable: notes wait for their
/// vectors and recall uses keywords, as without a model.
fn unavailable(e: Error) -> Error {
    Error::model_unavailable(e.to_string())
}

/// What a provider's vectors are recorded as.
pub fn model_id(provider: &Provider) -> String {
    format!("provider:{}", provider.model)
}

impl Embedder for ProviderEmbedder {
    fn model(&self) -> (&str, usize) {
        (&self.id, self.dims)
    }

    fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made> {
        let mut out = Vec::with_capacity(texts.len());
        for (n, batch) in texts.chunks(REQUEST_TEXTS).enumerate() {
            let vectors = self.embed_batch(batch)?;
            if let Some(bad) = vectors.iter().find(|v| v.len() != self.dims) {
                return Err(client::failed(
                    &self.provider,
                    format!(
                        "an embedding has {} dimensions, not {} like the others",
                        bad.len(),
                        self.dims
                    ),
                ));
            }
            let start = n * REQUEST_TEXTS;
            out.extend(vectors.into_iter().enumerate().map(|(i, v)| (start + i, v)));
            if !keep_going(batch.len()) {
                break;
            }
        }
        Ok(out)
    }
}
