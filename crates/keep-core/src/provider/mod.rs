//! Model servers keep may ask for work, each optional and off unless
//! configured: a language model for summaries and for cutting documents
//! into parts, a speech model for transcripts, an embedding model instead
//! of the built-in one. All speak the OpenAI-compatible HTTP API
//! (llama.cpp's server, Ollama, vLLM, faster-whisper-server, hosted
//! APIs); nothing connects until work needs it.

pub mod analyze;
pub mod client;
pub mod embedder;
pub mod summary;
pub mod transcribe;

pub use analyze::AnalyzedPart;
pub use embedder::ProviderEmbedder;
