//! Images (JPEG, PNG, TIFF, WebP): dimensions, camera, date taken and GPS
//! position from EXIF as tags, and the text in the image by OCR (queued
//! when the OCR models are not installed).

use std::io::Cursor;

use exif::{In, Tag, Value};

use super::ocr::Ocr;
use crate::document::{Document, Extractor};
use crate::error::Result;
use crate::error::bad;

pub struct Image;

/// Largest image decoded, in pixels per side, pixels in all, and bytes.
/// A larger one is kept with its size and EXIF tags, its text unread.
const MAX_SIDE: u32 = 20_000;
const MAX_PIXELS: u64 = 40_000_000;
const MAX_DECODED_BYTES: u64 = 256 * 1024 * 1024;

impl Extractor for Image {
    fn extract(&self, bytes: &[u8], ocr: Option<&Ocr>) -> Result<Document> {
        let reader = || {
            image::ImageReader::new(Cursor::new(bytes))
                .with_guessed_format()
                .map_err(|e| bad(format!("is not a readable image ({e})")))
        };
        let (width, height) = reader()?
            .into_dimensions()
            .map_err(|e| bad(format!("is not a readable image ({e})")))?;
        let mut doc = Document::default();
        doc.tags.insert("dimensions", format!("{width}x{height}"));
        exif_tags(bytes, &mut doc.tags);
        let pixels = u64::from(width) * u64::from(height);
        if pixels > MAX_PIXELS || width > MAX_SIDE || height > MAX_SIDE {
            doc.description = Some(format!(
                "{}; its text was not read (images over {} megapixels or {MAX_SIDE} pixels a side are not decoded)",
                describe(&doc.tags),
                MAX_PIXELS / 1_000_000
            ));
            return Ok(doc);
        }
        let mut reader = reader()?;
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(MAX_SIDE);
        limits.max_image_height = Some(MAX_SIDE);
        limits.max_alloc = Some(MAX_DECODED_BYTES);
        reader.limits(limits);
        let picture = reader
            .decode()
            .map_err(|e| bad(format!("is not a readable image ({e})")))?;
        match ocr {
            Some(ocr) => doc.text = ocr.recognize(&picture)?,
            None => doc.ocr_pending = true,
        }
        doc.description = Some(describe(&doc.tags));
        Ok(doc)
    }
}

fn exif_tags(bytes: &[u8], tags: &mut keep_model::Tags) {
    let Ok(exif) = exif::Reader::new().read_from_container(&mut Cursor::new(bytes)) else {
        return;
    };
    let text = |tag: Tag| {
        exif.get_field(tag, In::PRIMARY)
            .and_then(|f| match &f.value {
                Value::Ascii(parts) => parts
                    .first()
                    .map(|p| String::from_utf8_lossy(p).trim().to_string())
                    .filter(|s| !s.is_empty()),
                _ => None,
            })
    };
    let camera = match (text(Tag::Make), text(Tag::Model)) {
        (Some(make), Some(model)) if model.starts_with(&make) => Some(model),
        (Some(make), Some(model)) => Some(format!("{make} {model}")),
        (make, model) => make.or(model),
    };
    if let Some(camera) = camera {
        tags.insert("camera", camera);
    }
    if let Some(taken) = text(Tag::DateTimeOriginal).or_else(|| text(Tag::DateTime)) {
        tags.insert("taken", exif_date(&taken));
    }
    if let (Some(lat), Some(lon)) = (
        coordinate(&exif, Tag::GPSLatitude, Tag::GPSLatitudeRef),
        coordinate(&exif, Tag::GPSLongitude, Tag::GPSLongitudeRef),
    ) {
        tags.insert("gps", format!("{lat:.6},{lon:.6}"));
    }
}

/// "2024:05:01 12:30:00" as "2024-05-01T12:30:00".
fn exif_date(text: &str) -> String {
    match text.split_once(' ') {
        Some((date, time)) => format!("{}T{time}", date.replace(':', "-")),
        None => text.replace(':', "-"),
    }
}

/// Degrees from EXIF degrees/minutes/seconds and a N/S or E/W reference.
fn coordinate(exif: &exif::Exif, value: Tag, reference: Tag) -> Option<f64> {
    let field = exif.get_field(value, In::PRIMARY)?;
    let Value::Rational(parts) = &field.value else {
        return None;
    };
    let dms: Vec<f64> = parts.iter().map(|r| r.to_f64()).collect();
    let degrees =
        dms.first()? + dms.get(1).unwrap_or(&0.0) / 60.0 + dms.get(2).unwrap_or(&0.0) / 3600.0;
    let sign = match exif.get_field(reference, In::PRIMARY).map(|f| &f.value) {
        Some(Value::Ascii(r))
            if r.first()
                .is_some_and(|r| r.starts_with(b"S") || r.starts_with(b"W")) =>
        {
            -1.0
        }
        _ => 1.0,
    };
    Some(sign * degrees)
}

fn describe(tags: &keep_model::Tags) -> String {
    let mut line = format!(
        "Image, {}",
        tags.first("dimensions").unwrap_or("unknown size")
    );
    if let Some(camera) = tags.first("camera") {
        line.push_str(&format!(", taken with {camera}"));
    }
    if let Some(taken) = tags.first("taken") {
        line.push_str(&format!(" on {taken}"));
    }
    if let Some(gps) = tags.first("gps") {
        line.push_str(&format!(" at {gps}"));
    }
    line
}

#[cfg(test)]
mod tests {
    #[test]
    fn exif_dates_become_iso() {
        assert_eq!(
            super::exif_date("2024:05:01 12:30:00"),
            "2024-05-01T12:30:00"
        );
    }
}
