//! The files an embedder is loaded from, taken from the settings.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use keep_model::settings::ModelSettings;

/// The files an embedder is loaded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelPaths {
    pub model_dir: PathBuf,
    pub ort_lib: PathBuf,
    /// Where the optimised graph is cached; None: optimise at every load.
    pub cache_dir: Option<PathBuf>,
}

impl ModelPaths {
    /// The configured paths; an error when either is not configured.
    pub fn from_settings(settings: &ModelSettings) -> Result<Self> {
        let (Some(model_dir), Some(ort_lib)) = (&settings.model_dir, &settings.ort_lib) else {
            return Err(Error::model_unavailable(
                "no embedding model is configured (no data directory on this system)",
            ));
        };
        Ok(ModelPaths {
            model_dir: model_dir.clone(),
            ort_lib: ort_lib.clone(),
            cache_dir: settings.cache_dir.clone(),
        })
    }

    /// A cheap fingerprint of the model: the vector space its folder
    /// declares (a build of a model whose vectors agree with another's),
    /// else the folder's name and the model's size.
    pub fn model_id(&self) -> Result<String> {
        if let Some(space) = crate::models::model_notes(&self.model_dir).space {
            return Ok(space);
        }
        let onnx = self.model_dir.join("model.onnx");
        let size = std::fs::metadata(&onnx)
            .map_err(|e| Error::io(&onnx, e))?
            .len();
        Ok(format!("{}:{size}", dir_name(&self.model_dir)))
    }
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}
