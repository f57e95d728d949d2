//! Counting tokens as the embedding model splits text, so answers can be
//! sized for a context window (`max_tokens`): the model's own tokenizer,
//! loaded alone (no model, no runtime), without truncation.

use std::path::Path;

use tokenizers::Tokenizer;

use super::ModelPaths;
use crate::error::{Error, Result};

/// The embedding model's tokenizer, counting every token of a text.
pub struct TokenCounter {
    tokenizer: Tokenizer,
}

impl TokenCounter {
    /// Loads `tokenizer.json` of the model the paths name.
    pub fn load(paths: &ModelPaths) -> Result<Self> {
        Self::from_dir(&paths.model_dir)
    }

    fn from_dir(dir: &Path) -> Result<Self> {
        let path = dir.join("tokenizer.json");
        let unreadable = |e: &dyn std::fmt::Display| {
            Error::model_unavailable(format!(
                "the embedding model's tokenizer could not be read ({}: {e})",
                path.display()
            ))
        };
        let mut tokenizer = Tokenizer::from_file(&path).map_err(|e| unreadable(&e))?;
        tokenizer
            .with_padding(None)
            .with_truncation(None)
            .map_err(|e| unreadable(&e))?;
        Ok(TokenCounter { tokenizer })
    }

    /// How many tokens `text` is, special tokens left out.
    pub fn count(&self, text: &str) -> Result<usize> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.len())
            .map_err(|e| Error::model_unavailable(format!("counting tokens failed: {e}")))
    }
}
