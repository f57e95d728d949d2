//! Ingestion: turning the bytes of a file or a web page into a document
//! (text, provider tags, media type), one `Extractor` per format chosen by
//! content sniffing; chunking long text into parts; walking folders;
//! fetching URLs; running extraction on a pool of worker threads with
//! panics isolated and time bounded; and the extractive summaries of
//! documents and parts. The only crate with the document formats' crates.

mod archive;
mod audio;
pub mod chat;
pub mod chunk;
mod decode;
pub mod document;
mod docx;
pub mod error;
pub mod extract;
pub mod fetch;
mod html;
mod image;
pub mod isolate;
pub mod links;
mod man;
pub mod ocr;
mod odf;
mod pages;
mod pdf;
mod pdf_title;
pub mod pool;
mod postscript;
mod pptx;
pub mod read;
mod slides;
pub mod sniff;
pub mod spent;
pub mod summarize;
mod text;
mod threads;
pub mod walk;

pub use document::{Document, Extractor, tidy, without_private_use};
pub use error::{Error, Result, format_error};
pub use extract::{MAX_FILE_BYTES, extract, may_need_ocr, needs_isolation};
pub use sniff::Format;

/// The child side of isolated extraction: a binary runs this for its
/// hidden extraction command; returns the exit code.
pub fn serve_extraction_worker(memory_limit: Option<u64>) -> i32 {
    isolate::serve(memory_limit)
}
