//! Embeddings: the `Embedder` trait, the fastembed/ONNX Runtime provider,
//! and locating the runtime library and the model directory.

mod locate;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::{Error, Result};

pub use locate::{Config, ModelPaths};

/// Texts embedded per model call.
pub const BATCH_SIZE: usize = 64;

/// Turns text into unit-length vectors.
pub trait Embedder: Send {
    /// Identifies the model; vectors of different models never mix.
    fn model_id(&self) -> &str;
    fn dimensions(&self) -> usize;
    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// A fastembed user-defined model on ONNX Runtime, loaded from a directory
/// holding `model.onnx`, `tokenizer.json`, `config.json`,
/// `special_tokens_map.json` and `tokenizer_config.json`; mean pooling,
/// L2-normalised.
pub struct FastEmbedder {
    model: fastembed::TextEmbedding,
    id: String,
    dims: usize,
}

const MODEL_FILES: [&str; 5] = [
    "model.onnx",
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];

fn read_model_file(dir: &Path, name: &str) -> Result<Vec<u8>> {
    std::fs::read(dir.join(name)).map_err(|e| {
        Error::ModelUnavailable(format!(
            "embedding model file {} cannot be read ({e}); install it with ./scripts/setup.sh or set KEEP_MODEL_DIR",
            dir.join(name).display()
        ))
    })
}

/// Loads ONNX Runtime from `lib` once per process; the environment lives as
/// long as the process.
fn runtime(lib: &Path) -> Result<ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    let outcome = ENV.get_or_init(|| {
        if !lib.is_file() {
            return Err(format!(
                "ONNX Runtime not found: looked for {}; install it with ./scripts/setup.sh or set KEEP_ORT_LIB",
                lib.display()
            ));
        }
        let builder = ort::init_from(lib)
            .map_err(|e| format!("ONNX Runtime at {} cannot be loaded: {e}", lib.display()))?;
        builder
            .with_name("keep")
            .with_telemetry(false)
            .build()
            .map_err(|e| format!("ONNX Runtime at {} cannot start: {e}", lib.display()))
    });
    outcome.clone().map_err(Error::ModelUnavailable)
}

impl FastEmbedder {
    pub fn load(paths: &ModelPaths) -> Result<Self> {
        for name in MODEL_FILES {
            if !paths.model_dir.join(name).is_file() {
                return Err(Error::ModelUnavailable(format!(
                    "embedding model not found: looked for {}; install it with ./scripts/setup.sh or set KEEP_MODEL_DIR",
                    paths.model_dir.join(name).display()
                )));
            }
        }
        let environment = runtime(&paths.ort_lib)?;
        let dir = &paths.model_dir;
        let tokenizer_files = fastembed::TokenizerFiles {
            tokenizer_file: read_model_file(dir, "tokenizer.json")?,
            config_file: read_model_file(dir, "config.json")?,
            special_tokens_map_file: read_model_file(dir, "special_tokens_map.json")?,
            tokenizer_config_file: read_model_file(dir, "tokenizer_config.json")?,
        };
        let onnx = read_model_file(dir, "model.onnx")?;
        let model = fastembed::UserDefinedEmbeddingModel::new(onnx, tokenizer_files)
            .with_pooling(fastembed::Pooling::Mean);
        let options = fastembed::InitOptionsUserDefined::new()
            .with_environment(environment)
            .with_max_length(256);
        let mut model = fastembed::TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|e| {
                Error::ModelUnavailable(format!(
                    "embedding model in {} cannot be loaded: {e}",
                    dir.display()
                ))
            })?;
        let probe = model
            .embed(["dimension probe"], None)
            .map_err(|e| Error::ModelUnavailable(format!("embedding model failed: {e}")))?;
        let dims = probe.first().map_or(0, Vec::len);
        if dims == 0 {
            return Err(Error::ModelUnavailable(format!(
                "embedding model in {} produced empty vectors",
                dir.display()
            )));
        }
        Ok(FastEmbedder {
            model,
            id: paths.model_id()?,
            dims,
        })
    }
}

impl Embedder for FastEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dimensions(&self) -> usize {
        self.dims
    }

    fn embed(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.model
            .embed(texts, Some(BATCH_SIZE))
            .map_err(|e| Error::ModelUnavailable(format!("embedding failed: {e}")))
    }
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
