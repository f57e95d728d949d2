"""Write a copy of a GGUF model whose quantized weights are stored as F16.

Some CPU builds of llama.cpp's server are compiled for instructions (AVX-VNNI)
that their quantized kernels use and an older CPU lacks; F16 weights take the
plain FMA path. Usage: widen_gguf.py IN.gguf OUT.gguf
"""

import sys

import numpy as np
import gguf
from gguf import quants


def widen(src: str, dst: str) -> None:
    reader = gguf.GGUFReader(src)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(dst, arch=arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), kind, sub_type=sub)
    for tensor in reader.tensors:
        kind = tensor.tensor_type
        if kind in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            data = np.array(tensor.data)
        else:
            data = quants.dequantize(tensor.data, kind).astype(np.float16)
        writer.add_tensor(tensor.name, data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    widen(sys.argv[1], sys.argv[2])
