//! OCR on rten with the PP-OCRv6 small models: text detection (a
//! probability map, thresholded into connected regions, each region's box
//! grown as the DB post-processing does), recognition of each box (height
//! 48, CTC greedy decoding with the model's dictionary), and lines in
//! reading order (top to bottom, then left to right).

use std::path::Path;

use image::{DynamicImage, RgbImage, imageops::FilterType};
use rten::Model;
use rten_tensor::prelude::*;
use rten_tensor::{NdTensor, NdTensorView};

use crate::error::{Error, Result};

pub const DETECTOR_FILE: &str = "PP-OCRv6_det_small.rten";
pub const RECOGNIZER_FILE: &str = "PP-OCRv6_rec_small.rten";
pub const DICTIONARY_FILE: &str = "ppocrv6_dict.txt";

/// Longest side of the image given to the detector.
const DETECT_MAX_SIDE: u32 = 1600;
/// Pixels of the probability map above this are text.
const TEXT_THRESHOLD: f32 = 0.3;
/// Regions whose mean probability is under this are dropped.
const BOX_THRESHOLD: f32 = 0.6;
/// How much a region's box grows (area * ratio / perimeter on each side).
const UNCLIP_RATIO: f32 = 1.5;
const RECOGNIZE_HEIGHT: u32 = 48;
const RECOGNIZE_MAX_WIDTH: u32 = 2048;
/// Recognised text whose mean confidence is under this is dropped.
const MIN_CONFIDENCE: f32 = 0.5;

/// The loaded OCR models.
pub struct Ocr {
    detector: Model,
    recognizer: Model,
    /// Class 0 is the CTC blank; class i is `alphabet[i - 1]`.
    alphabet: Vec<String>,
}

/// A box of text in image coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TextBox {
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
}

/// The component of `keep models` that provides the OCR models.
pub const OCR_COMPONENT: &str = "ppocrv6";

fn missing(path: &Path) -> Error {
    Error::OcrUnavailable {
        reason: format!("the OCR model {} is missing", path.display()),
        component: OCR_COMPONENT,
    }
}

impl Ocr {
    /// Whether the model files are in `dir`; the reason when not.
    pub fn check(dir: &Path) -> Result<()> {
        for name in [DETECTOR_FILE, RECOGNIZER_FILE, DICTIONARY_FILE] {
            let path = dir.join(name);
            if !path.is_file() {
                return Err(missing(&path));
            }
        }
        Ok(())
    }

    /// Loads the models from `dir`.
    pub fn load(dir: &Path) -> Result<Ocr> {
        let file = |name: &str| {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(missing(&path))
            }
        };
        let load = |name: &str| {
            let path = file(name)?;
            Model::load_file(&path).map_err(|e| Error::OcrUnavailable {
                reason: format!("the OCR model {} cannot be loaded: {e}", path.display()),
                component: OCR_COMPONENT,
            })
        };
        let dict_path = file(DICTIONARY_FILE)?;
        let dict = std::fs::read_to_string(&dict_path).map_err(|e| Error::io(&dict_path, e))?;
        let mut alphabet: Vec<String> = dict.lines().map(str::to_string).collect();
        alphabet.push(" ".to_string());
        Ok(Ocr {
            detector: load(DETECTOR_FILE)?,
            recognizer: load(RECOGNIZER_FILE)?,
            alphabet,
        })
    }

    /// The text of an image, one line per text line, in reading order.
    pub fn recognize(&self, image: &DynamicImage) -> Result<String> {
        crate::spent::timed(crate::spent::Stage::Ocr, || self.read(image))
    }

    fn read(&self, image: &DynamicImage) -> Result<String> {
        let rgb = image.to_rgb8();
        if rgb.width() < 8 || rgb.height() < 8 {
            return Ok(String::new());
        }
        let boxes = self.detect(&rgb)?;
        let mut found: Vec<(TextBox, String)> = Vec::new();
        for b in boxes {
            let text = self.read_box(&rgb, b)?;
            if !text.trim().is_empty() {
                found.push((b, text.trim().to_string()));
            }
        }
        Ok(reading_order(found))
    }

    fn detect(&self, rgb: &RgbImage) -> Result<Vec<TextBox>> {
        let (w, h) = (rgb.width(), rgb.height());
        let scale = (DETECT_MAX_SIDE as f32 / w.max(h) as f32).min(1.0);
        let round32 = |v: f32| ((v / 32.0).round() as u32).max(1) * 32;
        let (dw, dh) = (round32(w as f32 * scale), round32(h as f32 * scale));
        let resized = image::imageops::resize(rgb, dw, dh, FilterType::Triangle);
        let input = to_tensor(&resized, &[0.485, 0.456, 0.406], &[0.229, 0.224, 0.225]);
        let output = self
            .detector
            .run_one(input.into(), None)
            .map_err(|e| ocr_error(format!("text detection failed: {e}")))?;
        let map: NdTensor<f32, 4> = output
            .try_into()
            .map_err(|e| ocr_error(format!("unexpected detector output: {e:?}")))?;
        let map = map.slice((0, 0));
        let (sx, sy) = (w as f32 / dw as f32, h as f32 / dh as f32);
        Ok(regions(map)
            .into_iter()
            .map(|b| TextBox {
                x0: (b.x0 * sx).max(0.0),
                y0: (b.y0 * sy).max(0.0),
                x1: (b.x1 * sx).min(w as f32),
                y1: (b.y1 * sy).min(h as f32),
            })
            .collect())
    }

    fn read_box(&self, rgb: &RgbImage, b: TextBox) -> Result<String> {
        let (x, y) = (b.x0 as u32, b.y0 as u32);
        let (w, h) = ((b.x1 - b.x0) as u32, (b.y1 - b.y0) as u32);
        if w < 2 || h < 2 {
            return Ok(String::new());
        }
        let crop = image::imageops::crop_imm(rgb, x, y, w, h).to_image();
        let width = ((RECOGNIZE_HEIGHT as f32 * w as f32 / h as f32).round() as u32)
            .clamp(16, RECOGNIZE_MAX_WIDTH);
        let line = image::imageops::resize(&crop, width, RECOGNIZE_HEIGHT, FilterType::Triangle);
        let input = to_tensor(&line, &[0.5; 3], &[0.5; 3]);
        let output = self
            .recognizer
            .run_one(input.into(), None)
            .map_err(|e| ocr_error(format!("text recognition failed: {e}")))?;
        let probs: NdTensor<f32, 3> = output
            .try_into()
            .map_err(|e| ocr_error(format!("unexpected recognizer output: {e:?}")))?;
        Ok(self.decode(probs.slice(0)))
    }

    /// CTC greedy decoding: the best class per step, repeats collapsed,
    /// blanks dropped.
    fn decode(&self, probs: NdTensorView<f32, 2>) -> String {
        let mut text = String::new();
        let mut last = 0usize;
        let mut confidence = Vec::new();
        for step in 0..probs.size(0) {
            let row = probs.slice(step);
            let (best, p) = row
                .iter()
                .copied()
                .enumerate()
                .fold(
                    (0, f32::MIN),
                    |acc, (i, p)| if p > acc.1 { (i, p) } else { acc },
                );
            if best != 0
                && best != last
                && let Some(ch) = self.alphabet.get(best - 1)
            {
                text.push_str(ch);
                confidence.push(p);
            }
            last = best;
        }
        let mean = confidence.iter().sum::<f32>() / confidence.len().max(1) as f32;
        if mean < MIN_CONFIDENCE {
            String::new()
        } else {
            text
        }
    }
}

fn ocr_error(reason: String) -> Error {
    crate::error::bad(reason)
}

/// An image as a [1, 3, H, W] tensor in BGR order (as the models were
/// trained), normalised per channel.
fn to_tensor(img: &RgbImage, mean: &[f32; 3], std: &[f32; 3]) -> NdTensor<f32, 4> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut t = NdTensor::zeros([1, 3, h, w]);
    for (x, y, px) in img.enumerate_pixels() {
        for (c, &value) in [px[2], px[1], px[0]].iter().enumerate() {
            t[[0, c, y as usize, x as usize]] = (value as f32 / 255.0 - mean[c]) / std[c];
        }
    }
    t
}

/// Connected regions of the thresholded map (8-connected), scored by
/// their mean probability and grown by the unclip distance.
fn regions(map: NdTensorView<f32, 2>) -> Vec<TextBox> {
    let (h, w) = (map.size(0), map.size(1));
    let mut seen = vec![false; w * h];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if seen[start] || map[[start / w, start % w]] <= TEXT_THRESHOLD {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
        let (mut count, mut sum) = (0usize, 0f32);
        while let Some(i) = stack.pop() {
            let (y, x) = (i / w, i % w);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
            count += 1;
            sum += map[[y, x]];
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (ny, nx) = (y as i64 + dy, x as i64 + dx);
                    if ny < 0 || nx < 0 || ny >= h as i64 || nx >= w as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if !seen[j] && map[[ny as usize, nx as usize]] > TEXT_THRESHOLD {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
        if bw.min(bh) < 3.0 || sum / (count as f32) < BOX_THRESHOLD {
            continue;
        }
        let grow = bw * bh * UNCLIP_RATIO / (2.0 * (bw + bh));
        out.push(TextBox {
            x0: x0 as f32 - grow,
            y0: y0 as f32 - grow,
            x1: x1 as f32 + 1.0 + grow,
            y1: y1 as f32 + 1.0 + grow,
        });
    }
    out
}

/// Joins boxes into lines: a box belongs to a line when its vertical
/// centre lies within the line's first box; lines top to bottom, boxes
/// left to right.
fn reading_order(mut found: Vec<(TextBox, String)>) -> String {
    found.sort_by(|a, b| (a.0.y0 + a.0.y1).total_cmp(&(b.0.y0 + b.0.y1)));
    let mut lines: Vec<(TextBox, Vec<(TextBox, String)>)> = Vec::new();
    for (b, text) in found {
        let centre = (b.y0 + b.y1) / 2.0;
        match lines
            .iter_mut()
            .find(|(first, _)| centre >= first.y0 && centre <= first.y1)
        {
            Some((_, items)) => items.push((b, text)),
            None => lines.push((b, vec![(b, text)])),
        }
    }
    lines
        .into_iter()
        .map(|(_, mut items)| {
            items.sort_by(|a, b| a.0.x0.total_cmp(&b.0.x0));
            items
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tb(x0: f32, y0: f32, x1: f32, y1: f32) -> TextBox {
        TextBox { x0, y0, x1, y1 }
    }

    #[test]
    fn boxes_are_read_in_lines_left_to_right() {
        let found = vec![
            (tb(100.0, 52.0, 150.0, 70.0), "world".to_string()),
            (tb(0.0, 0.0, 50.0, 20.0), "first".to_string()),
            (tb(0.0, 50.0, 80.0, 72.0), "hello".to_string()),
            (tb(60.0, 2.0, 120.0, 19.0), "line".to_string()),
        ];
        assert_eq!(reading_order(found), "first line\nhello world");
    }

    #[test]
    fn regions_of_high_probability_become_grown_boxes() {
        let mut map = NdTensor::zeros([20, 40]);
        for y in 5..10 {
            for x in 4..30 {
                map[[y, x]] = 0.9;
            }
        }
        map[[15, 35]] = 0.9;
        let boxes = regions(map.view());
        assert_eq!(boxes.len(), 1, "{boxes:?}");
        let b = boxes[0];
        assert!(
            b.x0 < 4.0 && b.x1 > 30.0 && b.y0 < 5.0 && b.y1 > 10.0,
            "{b:?}"
        );
    }
}
