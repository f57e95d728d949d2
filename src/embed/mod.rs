//! Embeddings: the `Embedder` trait, the ONNX Runtime provider for
//! fastembed-compatible model directories, and locating the runtime
//! library, the model directory and the cache of optimised graphs.

mod locate;
mod onnx;

use std::path::PathBuf;

use crate::error::Result;

pub use locate::{Config, ModelPaths};
pub use onnx::{LoadFor, OnnxEmbedder};

/// Texts embedded per model call.
pub const BATCH_SIZE: usize = 64;

/// Turns text into unit-length vectors.
pub trait Embedder: Send {
    /// Identifies the model; vectors of different models never mix.
    fn model_id(&self) -> &str;
    fn dimensions(&self) -> usize;
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// The default model directory name under `<data dir>/models/`.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// `<data dir>/keep`, where set-up puts the runtime and the models.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KEEP_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    dirs::data_dir().map(|d| d.join("keep"))
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
                    let h = crate::note::content_hash(w.to_lowercase().as_bytes());
                    let i = usize::from_str_radix(&h[..2], 16).unwrap() % 16;
                    v[i] += 1.0;
                }
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / norm).collect()
            })
            .collect())
    }
}
