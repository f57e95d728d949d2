//! Embeddings: the `Embedder` trait, the ONNX Runtime provider for
//! fastembed-compatible model directories, the paths it loads from, and
//! one model shared by the threads of a server.

mod onnx;
mod paths;
mod shared;
mod tokens;

use crate::error::Result;

pub use onnx::{LoadFor, OnnxEmbedder};
pub use paths::ModelPaths;
pub use shared::SharedModel;
pub use tokens::TokenCounter;

/// Texts handed to the embedder at a time by bulk work (it splits them
/// into model calls by tokens).
pub const BATCH_SIZE: usize = 64;

/// Turns text into unit-length vectors.
/// Told after each model call how many texts it embedded; says whether
/// to go on.
pub type KeepGoing<'a> = &'a mut dyn FnMut(usize) -> bool;

/// Vectors by the index of their text, in the order they were made.
pub type Made = Vec<(usize, Vec<f32>)>;

pub trait Embedder: Send {
    /// The model's id (vectors of different models never mix) and the
    /// dimensions of its vectors.
    fn model(&self) -> (&str, usize);

    /// Vectors for some of `texts`, by index, in the order they were made:
    /// after each model call `keep_going` is told how many texts it
    /// embedded, and the work stops when it says no.
    fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made>;

    /// Identifies the model; vectors of different models never mix.
    fn model_id(&self) -> &str {
        self.model().0
    }

    fn dimensions(&self) -> usize {
        self.model().1
    }

    /// A vector for each of `texts`, in order.
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut found = self.embed_some(texts, &mut |_| true)?;
        found.sort_by_key(|(i, _)| *i);
        Ok(found.into_iter().map(|(_, v)| v).collect())
    }
}

/// A deterministic stand-in for unit tests of the plumbing: hashed word
/// counts, L2-normalised. Not a language model.
#[cfg(test)]
pub struct TestEmbedder;

#[cfg(test)]
impl Embedder for TestEmbedder {
    fn model(&self) -> (&str, usize) {
        ("test-embedder", 16)
    }

    fn embed_some(&mut self, texts: &[&str], keep_going: KeepGoing<'_>) -> Result<Made> {
        let vectors = texts
            .iter()
            .map(|t| {
                let mut v = [0f32; 16];
                for w in t.split_whitespace() {
                    let h = keep_model::content_hash(w.to_lowercase().as_bytes());
                    let i = usize::from_str_radix(&h[..2], 16).unwrap() % 16;
                    v[i] += 1.0;
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / norm).collect()
            })
            .enumerate()
            .collect();
        keep_going(texts.len());
        Ok(vectors)
    }
}
