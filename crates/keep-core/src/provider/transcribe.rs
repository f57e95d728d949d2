//! Transcripts of audio files. A long WAV file is sent in pieces of a few
//! minutes (each a WAV file of its own, cut at a sample frame), so no
//! request holds the whole recording and progress can be told; other
//! formats go whole.

use super::client;
use crate::error::Result;
use keep_model::settings::Provider;

/// Length of one piece of a long recording.
const PIECE_SECONDS: u32 = 300;

/// What is said in `audio`; `progress` hears pieces done of all.
pub fn transcribe(
    provider: &Provider,
    audio: &[u8],
    file_name: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<String> {
    let pieces = match wav_pieces(audio, PIECE_SECONDS) {
        Some(pieces) if pieces.len() > 1 => pieces,
        _ => {
            progress(0, 1);
            let text = client::transcribe(provider, audio, file_name)?;
            progress(1, 1);
            return Ok(text);
        }
    };
    let mut text = Vec::with_capacity(pieces.len());
    for (n, piece) in pieces.iter().enumerate() {
        progress(n, pieces.len());
        text.push(client::transcribe(provider, piece, file_name)?);
    }
    progress(pieces.len(), pieces.len());
    Ok(text.join(" "))
}

/// A WAV file cut into WAV files of at most `seconds` each; None when
/// `bytes` is not a WAV file keep can cut.
fn wav_pieces(bytes: &[u8], seconds: u32) -> Option<Vec<Vec<u8>>> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return None;
    }
    let mut fmt: Option<&[u8]> = None;
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().ok()?) as usize;
        let body_start = at + 8;
        let body_end = body_start.checked_add(size)?.min(bytes.len());
        match id {
            b"fmt " => fmt = Some(&bytes[body_start..body_end]),
            b"data" => {
                let fmt = fmt?;
                if fmt.len() < 16 {
                    return None;
                }
                let byte_rate = u32::from_le_bytes(fmt[8..12].try_into().ok()?) as usize;
                let align = u16::from_le_bytes(fmt[12..14].try_into().ok()?).max(1) as usize;
                let piece = (byte_rate * seconds as usize) / align * align;
                if piece == 0 {
                    return None;
                }
                let data = &bytes[body_start..body_end];
                return Some(data.chunks(piece).map(|d| wav_file(fmt, d)).collect());
            }
            _ => {}
        }
        at = body_start + size + (size & 1);
    }
    None
}

fn wav_file(fmt: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + fmt.len() + 28);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&((4 + 8 + fmt.len() + 8 + data.len()) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVE");
    out.extend_from_slice(b"fmt ");
    out.extend_from_slice(&(fmt.len() as u32).to_le_bytes());
    out.extend_from_slice(fmt);
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mono 16-bit WAV of `frames` frames at 8 kHz.
    fn wav(frames: usize) -> Vec<u8> {
        let mut fmt = Vec::new();
        fmt.extend_from_slice(&1u16.to_le_bytes());
        fmt.extend_from_slice(&1u16.to_le_bytes());
        fmt.extend_from_slice(&8000u32.to_le_bytes());
        fmt.extend_from_slice(&16000u32.to_le_bytes());
        fmt.extend_from_slice(&2u16.to_le_bytes());
        fmt.extend_from_slice(&16u16.to_le_bytes());
        let data: Vec<u8> = (0..frames * 2).map(|i| i as u8).collect();
        wav_file(&fmt, &data)
    }

    #[test]
    fn a_long_wav_is_cut_at_frames_into_wav_files_that_hold_all_of_it() {
        let pieces = wav_pieces(&wav(8000 * 25), 10).unwrap();
        assert_eq!(pieces.len(), 3);
        let data: usize = pieces.iter().map(|p| p.len() - 44).sum();
        assert_eq!(data, 8000 * 25 * 2);
        assert!(pieces.iter().all(|p| wav_pieces(p, 10).unwrap().len() == 1));
        assert_eq!(wav_pieces(b"ID3 not a wav", 10), None);
    }
}
