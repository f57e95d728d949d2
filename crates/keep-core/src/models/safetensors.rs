//! Reading tensors from a `.safetensors` file: an 8-byte little-endian
//! header length, a JSON header naming each tensor's type, shape and byte
//! range, then the bytes.

use std::collections::HashMap;

use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Debug, Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// The tensors of one file, read from its bytes.
pub struct Tensors<'a> {
    entries: HashMap<String, Entry>,
    data: &'a [u8],
}

/// A float tensor: its shape and values, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

fn bad(what: impl std::fmt::Display) -> Error {
    Error::invalid(format!("safetensors: {what}"))
}

impl<'a> Tensors<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let len_bytes: [u8; 8] = bytes
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("shorter than its header length"))?;
        let len = usize::try_from(u64::from_le_bytes(len_bytes)).map_err(|_| bad("huge header"))?;
        let header = bytes
            .get(8..8 + len)
            .ok_or_else(|| bad("header runs past the end"))?;
        let raw: HashMap<String, serde_json::Value> =
            serde_json::from_slice(header).map_err(bad)?;
        let mut entries = HashMap::new();
        for (name, value) in raw {
            if name == "__metadata__" {
                continue;
            }
            let entry: Entry =
                serde_json::from_value(value).map_err(|e| bad(format!("{name}: {e}")))?;
            entries.insert(name, entry);
        }
        Ok(Tensors {
            entries,
            data: &bytes[8 + len..],
        })
    }

    /// The float tensor `name`.
    pub fn get(&self, name: &str) -> Result<Tensor> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| bad(format!("no tensor {name}")))?;
        if entry.dtype != "F32" {
            return Err(bad(format!("{name} is {}, not F32", entry.dtype)));
        }
        let [start, end] = entry.data_offsets;
        let count: usize = entry.shape.iter().product();
        let bytes = self
            .data
            .get(start..end)
            .filter(|b| b.len() == count * 4)
            .ok_or_else(|| bad(format!("{name}: byte range does not fit its shape")))?;
        let values = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Tensor {
            shape: entry.shape.clone(),
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn tensors_are_read_by_name_with_their_shape() {
        let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let bytes = file(
            r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}"#,
            &data,
        );
        let t = Tensors::parse(&bytes).unwrap();
        let w = t.get("w").unwrap();
        assert_eq!(w.shape, [2, 3]);
        assert_eq!(w.values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert!(t.get("missing").is_err());
    }

    #[test]
    fn damaged_files_are_errors_not_panics() {
        assert!(Tensors::parse(b"\x05").is_err());
        assert!(Tensors::parse(&file("{not json", b"")).is_err());
        let bytes = file(
            r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
            &[0; 8],
        );
        assert!(Tensors::parse(&bytes).unwrap().get("w").is_err());
        let bytes = file(
            r#"{"w":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}"#,
            &[0; 8],
        );
        assert!(Tensors::parse(&bytes).unwrap().get("w").is_err());
    }
}
