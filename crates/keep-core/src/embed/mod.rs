//! Embeddings: the `Embedder` trait, the ONNX Runtime provider for
//! fastembed-compatible model directories, and the paths it loads from.

mod onnx;
mod paths;

use crate::error::Result;

pub use onnx::{LoadFor, OnnxEmbedder};
pub use paths::ModelPaths;

/// Texts embedded per model call.
pub const BATCH_SIZE: usize = 64;

/// Turns text into unit-length vectors.
pub trait Embedder: Send {
    /// Identifies the model; vectors of different models never mix.
    fn model_id(&self) -> &str;
    fn dimensions(&self) -> usize;
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// A deterministic stand-in for unit tests of the plumbing: hashed word
/// counts, L2-normalised. Not a language model.
#[cfg(test)]
pub struct TestEmbedder;

#[cfg(test)]
impl Embedder for TestEmbedder {
    fn model_id(&self) -> &str {
        "test-embedder"
    }

    fn dimensions(&self) -> usize {
        16
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = [0f32; 16];
                for w in t.split_whitespace() {
                    let h = crate::model::content_hash(w.to_lowercase().as_bytes());
                    let i = usize::from_str_radix(&h[..2], 16).unwrap() % 16;
                    v[i] += 1.0;
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / norm).collect()
            })
            .collect())
    }
}
