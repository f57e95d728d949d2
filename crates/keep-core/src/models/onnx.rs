//! Writing an ONNX model: the protocol-buffer encoding of the part of
//! `onnx.proto` keep needs to write a graph (a model, its graph, nodes
//! with integer, float and integer-list attributes, tensors as raw bytes,
//! typed inputs and outputs). Field numbers are those of `onnx.proto`.
//! The output is deterministic: the same graph gives the same bytes.

/// Element types (`TensorProto.DataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Float = 1,
    Int8 = 3,
    Int64 = 7,
}

/// A constant tensor (an initializer).
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub name: String,
    pub dims: Vec<i64>,
    pub data_type: DataType,
    /// Little-endian values.
    pub raw: Vec<u8>,
}

impl Tensor {
    pub fn floats(name: &str, dims: &[i64], values: &[f32]) -> Self {
        Tensor {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: DataType::Float,
            raw: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    pub fn int8s(name: &str, dims: &[i64], values: &[i8]) -> Self {
        Tensor {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: DataType::Int8,
            raw: values.iter().map(|v| v.to_le_bytes()[0]).collect(),
        }
    }

    pub fn int64s(name: &str, dims: &[i64], values: &[i64]) -> Self {
        Tensor {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: DataType::Int64,
            raw: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }
}

/// A node attribute.
#[derive(Debug, Clone, PartialEq)]
pub enum Attribute {
    Int(i64),
    Float(f32),
    Ints(Vec<i64>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub op_type: String,
    pub domain: String,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub attributes: Vec<(String, Attribute)>,
}

/// A graph input or output: a tensor of `data_type` whose dimensions are
/// named (symbolic) or fixed.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueInfo {
    pub name: String,
    pub data_type: DataType,
    pub dims: Vec<Dim>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Dim {
    Fixed(i64),
    Named(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Graph {
    pub name: String,
    pub nodes: Vec<Node>,
    pub initializers: Vec<Tensor>,
    pub inputs: Vec<ValueInfo>,
    pub outputs: Vec<ValueInfo>,
}

/// A model: a graph, the IR version and the operator sets it uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub ir_version: i64,
    pub producer: String,
    pub opsets: Vec<(String, i64)>,
    pub graph: Graph,
}

/// Protocol-buffer wire encoding into a byte vector.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn varint(&mut self, mut v: u64) {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint((u64::from(field) << 3) | u64::from(wire));
    }

    fn int(&mut self, field: u32, v: i64) {
        self.key(field, 0);
        self.varint(v as u64);
    }

    fn float(&mut self, field: u32, v: f32) {
        self.key(field, 5);
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn bytes(&mut self, field: u32, v: &[u8]) {
        self.key(field, 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
    }

    fn string(&mut self, field: u32, v: &str) {
        self.bytes(field, v.as_bytes());
    }

    fn message(&mut self, field: u32, write: impl FnOnce(&mut Writer)) {
        let mut inner = Writer::default();
        write(&mut inner);
        self.bytes(field, &inner.0);
    }
}

fn write_tensor(w: &mut Writer, t: &Tensor) {
    for d in &t.dims {
        w.int(1, *d);
    }
    w.int(2, t.data_type as i64);
    w.string(8, &t.name);
    w.bytes(9, &t.raw);
}

/// AttributeProto.AttributeType values.
const ATTR_FLOAT: i64 = 1;
const ATTR_INT: i64 = 2;
const ATTR_INTS: i64 = 7;

fn write_attribute(w: &mut Writer, name: &str, a: &Attribute) {
    w.string(1, name);
    match a {
        Attribute::Float(f) => {
            w.float(2, *f);
            w.int(20, ATTR_FLOAT);
        }
        Attribute::Int(i) => {
            w.int(3, *i);
            w.int(20, ATTR_INT);
        }
        Attribute::Ints(list) => {
            for i in list {
                w.int(8, *i);
            }
            w.int(20, ATTR_INTS);
        }
    }
}

fn write_node(w: &mut Writer, n: &Node, index: usize) {
    for i in &n.inputs {
        w.string(1, i);
    }
    for o in &n.outputs {
        w.string(2, o);
    }
    w.string(3, &format!("{}_{index}", n.op_type));
    w.string(4, &n.op_type);
    for (name, a) in &n.attributes {
        w.message(5, |w| write_attribute(w, name, a));
    }
    if !n.domain.is_empty() {
        w.string(7, &n.domain);
    }
}

fn write_value_info(w: &mut Writer, v: &ValueInfo) {
    w.string(1, &v.name);
    // TypeProto { tensor_type = 1: Tensor { elem_type = 1, shape = 2 } }
    w.message(2, |w| {
        w.message(1, |w| {
            w.int(1, v.data_type as i64);
            w.message(2, |w| {
                for d in &v.dims {
                    w.message(1, |w| match d {
                        Dim::Fixed(n) => w.int(1, *n),
                        Dim::Named(s) => w.string(2, s),
                    });
                }
            });
        });
    });
}

fn write_graph(w: &mut Writer, g: &Graph) {
    for (i, n) in g.nodes.iter().enumerate() {
        w.message(1, |w| write_node(w, n, i));
    }
    w.string(2, &g.name);
    for t in &g.initializers {
        w.message(5, |w| write_tensor(w, t));
    }
    for v in &g.inputs {
        w.message(11, |w| write_value_info(w, v));
    }
    for v in &g.outputs {
        w.message(12, |w| write_value_info(w, v));
    }
}

/// The serialized model (`ModelProto`).
pub fn encode(model: &Model) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(1, model.ir_version);
    w.string(2, &model.producer);
    w.message(7, |w| write_graph(w, &model.graph));
    for (domain, version) in &model.opsets {
        w.message(8, |w| {
            w.string(1, domain);
            w.int(2, *version);
        });
    }
    w.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields_encode_as_protocol_buffers_do() {
        let mut w = Writer::default();
        w.int(1, 150);
        assert_eq!(w.0, [0x08, 0x96, 0x01]);
        let mut w = Writer::default();
        w.string(2, "testing");
        assert_eq!(w.0, [0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']);
        let mut w = Writer::default();
        w.int(3, -1);
        assert_eq!(w.0.len(), 11, "negative ints take ten bytes");
    }

    #[test]
    fn the_same_model_encodes_to_the_same_bytes() {
        let model = Model {
            ir_version: 8,
            producer: "keep".into(),
            opsets: vec![(String::new(), 17)],
            graph: Graph {
                name: "g".into(),
                nodes: vec![Node {
                    op_type: "Identity".into(),
                    domain: String::new(),
                    inputs: vec!["x".into()],
                    outputs: vec!["y".into()],
                    attributes: vec![("axis".into(), Attribute::Int(-1))],
                }],
                initializers: vec![Tensor::floats("c", &[2], &[1.0, 2.0])],
                inputs: vec![ValueInfo {
                    name: "x".into(),
                    data_type: DataType::Float,
                    dims: vec![Dim::Named("batch".into()), Dim::Fixed(2)],
                }],
                outputs: vec![],
            },
        };
        assert_eq!(encode(&model), encode(&model.clone()));
        assert!(!encode(&model).is_empty());
    }
}
