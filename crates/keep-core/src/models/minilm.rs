//! all-MiniLM-L6-v2 as an ONNX graph built from its float weights: a BERT
//! encoder (6 layers, 384 wide, 12 heads) whose linear layers run as
//! `DynamicQuantizeMatMul` with int8 weights quantised per output channel
//! (symmetric, scale = largest magnitude / 127) and the activations
//! quantised as the model runs; the word embeddings are int8 per row,
//! widened only for the rows a text uses. Inputs `input_ids`,
//! `attention_mask`, `token_type_ids` (int64, batch × sequence); output
//! `last_hidden_state` (float, batch × sequence × 384), as the published
//! model has.

use super::onnx::{Attribute, DataType, Dim, Graph, Model, Node, Tensor, ValueInfo, encode};
use super::safetensors::Tensors;
use crate::error::Result;

const HIDDEN: usize = 384;
const HEADS: i64 = 12;
const HEAD_WIDTH: i64 = 32;
const LAYERS: usize = 6;
const LAYER_NORM_EPSILON: f32 = 1e-12;
/// What a padded position adds to attention scores before the softmax.
const MASKED: f32 = -10_000.0;

/// The model file built from the bytes of `model.safetensors`.
pub fn build(safetensors: &[u8]) -> Result<Vec<u8>> {
    let weights = Tensors::parse(safetensors)?;
    let mut b = Builder::default();
    let hidden = b.embeddings(&weights)?;
    let mask = b.attention_mask();
    let mut x = hidden;
    for layer in 0..LAYERS {
        x = b.layer(&weights, layer, &x, &mask)?;
    }
    b.node("Identity", &[&x], &[], Some("last_hidden_state"));
    let ids = |name: &str| ValueInfo {
        name: name.into(),
        data_type: DataType::Int64,
        dims: vec![Dim::Named("batch".into()), Dim::Named("sequence".into())],
    };
    let graph = Graph {
        name: "all-MiniLM-L6-v2".into(),
        nodes: b.nodes,
        initializers: b.initializers,
        inputs: vec![
            ids("input_ids"),
            ids("attention_mask"),
            ids("token_type_ids"),
        ],
        outputs: vec![ValueInfo {
            name: "last_hidden_state".into(),
            data_type: DataType::Float,
            dims: vec![
                Dim::Named("batch".into()),
                Dim::Named("sequence".into()),
                Dim::Fixed(HIDDEN as i64),
            ],
        }],
    };
    Ok(encode(&Model {
        ir_version: 8,
        producer: "keep".into(),
        opsets: vec![(String::new(), 17), ("com.microsoft".into(), 1)],
        graph,
    }))
}

/// Nodes and constants, named in the order they are made.
#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    initializers: Vec<Tensor>,
    count: usize,
}

impl Builder {
    fn fresh(&mut self, prefix: &str) -> String {
        self.count += 1;
        format!("{prefix}_{}", self.count)
    }

    fn constant(&mut self, tensor: impl FnOnce(&str) -> Tensor) -> String {
        let name = self.fresh("c");
        self.initializers.push(tensor(&name));
        name
    }

    fn floats(&mut self, dims: &[i64], values: &[f32]) -> String {
        self.constant(|n| Tensor::floats(n, dims, values))
    }

    fn scalar(&mut self, value: f32) -> String {
        self.floats(&[], &[value])
    }

    fn int64s(&mut self, values: &[i64]) -> String {
        self.constant(|n| Tensor::int64s(n, &[values.len() as i64], values))
    }

    /// Adds a node with one output, named `output` or fresh.
    fn node(
        &mut self,
        op: &str,
        inputs: &[&str],
        attributes: &[(&str, Attribute)],
        output: Option<&str>,
    ) -> String {
        self.node_in("", op, inputs, attributes, output)
    }

    fn node_in(
        &mut self,
        domain: &str,
        op: &str,
        inputs: &[&str],
        attributes: &[(&str, Attribute)],
        output: Option<&str>,
    ) -> String {
        let out = output.map_or_else(|| self.fresh(op), str::to_string);
        self.nodes.push(Node {
            op_type: op.into(),
            domain: domain.into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: vec![out.clone()],
            attributes: attributes
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        });
        out
    }

    /// Word, position and token-type embeddings, summed and normalised.
    fn embeddings(&mut self, w: &Tensors) -> Result<String> {
        let words = w.get("embeddings.word_embeddings.weight")?;
        let (rows, width) = (words.shape[0], words.shape[1]);
        let (codes, scales) = quantize_rows(&words.values, rows, width);
        let codes = self.constant(|n| Tensor::int8s(n, &[rows as i64, width as i64], &codes));
        let scales = self.floats(&[rows as i64, 1], &scales);
        let picked = self.node("Gather", &[&codes, "input_ids"], &[], None);
        let widened = self.node("Cast", &[&picked], &[("to", Attribute::Int(1))], None);
        let row_scales = self.node("Gather", &[&scales, "input_ids"], &[], None);
        let word = self.node("Mul", &[&widened, &row_scales], &[], None);
        let positions = w.get("embeddings.position_embeddings.weight")?;
        let positions = self.floats(
            &[positions.shape[0] as i64, positions.shape[1] as i64],
            &positions.values,
        );
        let shape = self.node("Shape", &["input_ids"], &[], None);
        let (one, two, zero) = (self.int64s(&[1]), self.int64s(&[2]), self.int64s(&[0]));
        let length = self.node("Slice", &[&shape, &one, &two], &[], None);
        let position = self.node("Slice", &[&positions, &zero, &length, &zero], &[], None);
        let types = w.get("embeddings.token_type_embeddings.weight")?;
        let types = self.floats(
            &[types.shape[0] as i64, types.shape[1] as i64],
            &types.values,
        );
        let token_type = self.node("Gather", &[&types, "token_type_ids"], &[], None);
        let sum = self.node("Add", &[&word, &position], &[], None);
        let sum = self.node("Add", &[&sum, &token_type], &[], None);
        self.layer_norm(w, "embeddings.LayerNorm", &sum)
    }

    /// `(1 - mask) * MASKED`, shaped batch × 1 × 1 × sequence.
    fn attention_mask(&mut self) -> String {
        let mask = self.node(
            "Cast",
            &["attention_mask"],
            &[("to", Attribute::Int(1))],
            None,
        );
        let one = self.scalar(1.0);
        let masked = self.scalar(MASKED);
        let off = self.node("Sub", &[&one, &mask], &[], None);
        let add = self.node("Mul", &[&off, &masked], &[], None);
        let axes = self.int64s(&[1, 2]);
        self.node("Unsqueeze", &[&add, &axes], &[], None)
    }

    fn layer_norm(&mut self, w: &Tensors, prefix: &str, x: &str) -> Result<String> {
        let gamma = w.get(&format!("{prefix}.weight"))?;
        let beta = w.get(&format!("{prefix}.bias"))?;
        let gamma = self.floats(&[gamma.values.len() as i64], &gamma.values);
        let beta = self.floats(&[beta.values.len() as i64], &beta.values);
        Ok(self.node(
            "LayerNormalization",
            &[x, &gamma, &beta],
            &[
                ("epsilon", Attribute::Float(LAYER_NORM_EPSILON)),
                ("axis", Attribute::Int(-1)),
            ],
            None,
        ))
    }

    /// `x W^T + b` with W quantised per output channel.
    fn linear(&mut self, w: &Tensors, prefix: &str, x: &str) -> Result<String> {
        let weight = w.get(&format!("{prefix}.weight"))?;
        let bias = w.get(&format!("{prefix}.bias"))?;
        let (outputs, inputs) = (weight.shape[0], weight.shape[1]);
        let (codes, scales) = quantize_columns(&weight.values, outputs, inputs);
        let codes = self.constant(|n| Tensor::int8s(n, &[inputs as i64, outputs as i64], &codes));
        let scales = self.floats(&[outputs as i64], &scales);
        let bias = self.floats(&[outputs as i64], &bias.values);
        Ok(self.node_in(
            "com.microsoft",
            "DynamicQuantizeMatMul",
            &[x, &codes, &scales, "", &bias],
            &[],
            None,
        ))
    }

    /// batch × sequence × 384 as batch × heads × sequence × 32 (or, for
    /// keys, × 32 × sequence).
    fn split_heads(&mut self, x: &str, keys: bool) -> String {
        let shape = self.int64s(&[0, 0, HEADS, HEAD_WIDTH]);
        let split = self.node("Reshape", &[x, &shape], &[], None);
        let perm = if keys {
            vec![0, 2, 3, 1]
        } else {
            vec![0, 2, 1, 3]
        };
        self.node(
            "Transpose",
            &[&split],
            &[("perm", Attribute::Ints(perm))],
            None,
        )
    }

    fn layer(&mut self, w: &Tensors, layer: usize, x: &str, mask: &str) -> Result<String> {
        let p = format!("encoder.layer.{layer}");
        let q = self.linear(w, &format!("{p}.attention.self.query"), x)?;
        let k = self.linear(w, &format!("{p}.attention.self.key"), x)?;
        let v = self.linear(w, &format!("{p}.attention.self.value"), x)?;
        let (q, k, v) = (
            self.split_heads(&q, false),
            self.split_heads(&k, true),
            self.split_heads(&v, false),
        );
        let scores = self.node("MatMul", &[&q, &k], &[], None);
        let scale = self.scalar(1.0 / (HEAD_WIDTH as f32).sqrt());
        let scores = self.node("Mul", &[&scores, &scale], &[], None);
        let scores = self.node("Add", &[&scores, mask], &[], None);
        let weights = self.node("Softmax", &[&scores], &[("axis", Attribute::Int(-1))], None);
        let context = self.node("MatMul", &[&weights, &v], &[], None);
        let context = self.node(
            "Transpose",
            &[&context],
            &[("perm", Attribute::Ints(vec![0, 2, 1, 3]))],
            None,
        );
        let flat = self.int64s(&[0, 0, HIDDEN as i64]);
        let context = self.node("Reshape", &[&context, &flat], &[], None);
        let attended = self.linear(w, &format!("{p}.attention.output.dense"), &context)?;
        let attended = self.node("Add", &[&attended, x], &[], None);
        let x = self.layer_norm(w, &format!("{p}.attention.output.LayerNorm"), &attended)?;
        let inner = self.linear(w, &format!("{p}.intermediate.dense"), &x)?;
        let inner = self.gelu(&inner);
        let out = self.linear(w, &format!("{p}.output.dense"), &inner)?;
        let out = self.node("Add", &[&out, &x], &[], None);
        self.layer_norm(w, &format!("{p}.output.LayerNorm"), &out)
    }

    /// `0.5 x (1 + erf(x / sqrt 2))`.
    fn gelu(&mut self, x: &str) -> String {
        let root2 = self.scalar(std::f32::consts::SQRT_2);
        let one = self.scalar(1.0);
        let half = self.scalar(0.5);
        let scaled = self.node("Div", &[x, &root2], &[], None);
        let erf = self.node("Erf", &[&scaled], &[], None);
        let plus = self.node("Add", &[&erf, &one], &[], None);
        let times = self.node("Mul", &[x, &plus], &[], None);
        self.node("Mul", &[&times, &half], &[], None)
    }
}

/// Symmetric int8 codes of a value and its scale.
fn code(value: f32, scale: f32) -> i8 {
    (value / scale).round().clamp(-127.0, 127.0) as i8
}

fn scale_of(largest: f32) -> f32 {
    if largest > 0.0 { largest / 127.0 } else { 1.0 }
}

/// A `rows` × `width` matrix as int8 codes with one scale per row.
fn quantize_rows(values: &[f32], rows: usize, width: usize) -> (Vec<i8>, Vec<f32>) {
    let mut codes = Vec::with_capacity(values.len());
    let mut scales = Vec::with_capacity(rows);
    for row in values.chunks_exact(width).take(rows) {
        let scale = scale_of(row.iter().fold(0.0f32, |m, v| m.max(v.abs())));
        codes.extend(row.iter().map(|v| code(*v, scale)));
        scales.push(scale);
    }
    (codes, scales)
}

/// A weight W (`outputs` × `inputs`, as stored) as the int8 codes of W^T
/// (`inputs` × `outputs`, what the matrix product takes) with one scale
/// per output column.
fn quantize_columns(values: &[f32], outputs: usize, inputs: usize) -> (Vec<i8>, Vec<f32>) {
    let scales: Vec<f32> = values
        .chunks_exact(inputs)
        .map(|row| scale_of(row.iter().fold(0.0f32, |m, v| m.max(v.abs()))))
        .collect();
    let mut codes = vec![0i8; outputs * inputs];
    for (o, row) in values.chunks_exact(inputs).enumerate() {
        for (i, v) in row.iter().enumerate() {
            codes[i * outputs + o] = code(*v, scales[o]);
        }
    }
    (codes, scales)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_quantised_each_by_its_own_largest_value() {
        // W is 2 outputs × 3 inputs; W^T is 3 × 2.
        let w = [0.8, -2.0, 0.5, 0.01, 0.03, -0.04];
        let (codes, scales) = quantize_columns(&w, 2, 3);
        assert_eq!(scales, [2.0 / 127.0, 0.04 / 127.0]);
        assert_eq!(codes, [51, 32, -127, 95, 32, -127]);
        let (codes, scales) = quantize_rows(&[0.0, 0.0, 3.0, -1.5], 2, 2);
        assert_eq!(scales, [1.0, 3.0 / 127.0]);
        assert_eq!(codes, [0, 0, 127, -64]);
    }
}
