//! Audio (MP3, FLAC, Ogg, WAV, M4A, AIFF, ...): tags and duration from the
//! file's metadata (lofty); the summary is a line made of them.

use std::io::Cursor;

use lofty::prelude::{Accessor, AudioFile, TaggedFileExt};
use lofty::probe::Probe;

use super::ocr::Ocr;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct Audio;

impl Extractor for Audio {
    fn extract(&self, bytes: &[u8], _: Option<&Ocr>) -> Result<Document> {
        let file = Probe::new(Cursor::new(bytes))
            .guess_file_type()
            .map_err(|e| bad(format!("is not readable audio ({e})")))?
            .read()
            .map_err(|e| bad(format!("is not readable audio ({e})")))?;
        let mut doc = Document::default();
        if let Some(tag) = file.primary_tag().or_else(|| file.first_tag()) {
            let mut put = |key: &str, value: Option<String>| {
                if let Some(v) = value
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty())
                {
                    doc.tags.insert(key, v);
                }
            };
            put("title", tag.title().map(|s| s.into_owned()));
            put("artist", tag.artist().map(|s| s.into_owned()));
            put("album", tag.album().map(|s| s.into_owned()));
            put("genre", tag.genre().map(|s| s.into_owned()));
            put("year", tag.date().map(|d| d.year.to_string()));
        }
        let seconds = file.properties().duration().as_secs();
        doc.tags
            .insert("duration", format!("{}:{:02}", seconds / 60, seconds % 60));
        doc.description = Some(describe(&doc.tags, seconds));
        Ok(doc)
    }
}

/// "Title by Artist, from Album (Year), Genre, 3:25 of audio".
fn describe(tags: &keep_model::Tags, seconds: u64) -> String {
    let mut line = tags.first("title").unwrap_or("Untitled audio").to_string();
    if let Some(artist) = tags.first("artist") {
        line.push_str(&format!(" by {artist}"));
    }
    if let Some(album) = tags.first("album") {
        line.push_str(&format!(", from {album}"));
        if let Some(year) = tags.first("year") {
            line.push_str(&format!(" ({year})"));
        }
    }
    if let Some(genre) = tags.first("genre") {
        line.push_str(&format!(", {genre}"));
    }
    line.push_str(&format!(", {}:{:02} of audio", seconds / 60, seconds % 60));
    line
}
