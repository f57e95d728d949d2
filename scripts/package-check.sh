#!/usr/bin/env bash
# Installs the Debian package that scripts/release.sh made (in DIST,
# default target/dist) on this machine and uses it as a new user would,
# with no cargo or rustc on the PATH:
#
#   apt-get install ./keep_*.deb; the files where Debian keeps them; the service user keep;
#   keep models install --from the release's wheels, keep doctor, keep put
#   and keep find as that user; the unit's own ExecStart started without
#   systemd, its /health and a find through it; docs/security.md's team
#   set-up as written (on a folder store), then its drop-in's keep serve
#   over HTTPS with tokens; the tarball's bin/keep on the same store; then
#   dpkg --purge, the
#   user and its home removed. Each step is timed.
#
# Needs root (CI runs as root) and a machine without a user keep, a
# package keep, /etc/keep or a drop-in of keep.service already: it
# refuses to touch them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dist=$(realpath "${1:-target/dist}")

say() { echo "package: $*"; }
die() { echo "package: $*" >&2; exit 1; }
step() { say "ok    $1 ($(( SECONDS - step_started )) s)"; step_started=$SECONDS; }

[ "$(id -u)" -eq 0 ] || die "needs root (apt-get install, a system user)"
deb=$(ls "$dist"/keep_*_amd64.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || die "$dist: no keep_*_amd64.deb (run scripts/release.sh first)"
models=$(ls -d "$dist"/keep-*-models 2>/dev/null | head -n1)
[ -n "$models" ] || die "$dist: no keep-*-models folder"
! getent passwd keep >/dev/null || die "a user keep exists already: not touching it"
for taken in /etc/keep /etc/systemd/system/keep.service.d; do
  [ ! -e "$taken" ] || die "$taken exists already: not touching it"
done
! dpkg-query -W -f='${Status}' keep 2>/dev/null | grep -q installed \
  || die "a package keep is installed already: not touching it"

home=/var/lib/keep
port_pid=""
work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
  [ -z "$port_pid" ] || kill "$port_pid" 2>/dev/null || true
  pkill -KILL -u keep 2>/dev/null || true
  dpkg --purge keep >/dev/null 2>&1 || true
  userdel keep >/dev/null 2>&1 || true
  groupdel keep >/dev/null 2>&1 || true
  rm -rf "$home" "$work" /etc/keep /etc/systemd/system/keep.service.d
}
trap cleanup EXIT

# What a user of the package has: the system's PATH, no Rust toolchain.
plain_path=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
keep_user=(setpriv --reuid=keep --regid=keep --init-groups
  env -i HOME="$home" PATH="$plain_path" LANG=C.UTF-8)
as_keep() { "${keep_user[@]}" "$@"; }
env -i PATH="$plain_path" sh -c 'command -v cargo || command -v rustc' >/dev/null \
  && die "cargo or rustc is on $plain_path: the check would not show the package stands alone"

step_started=$SECONDS
started=$SECONDS
# As the README says: apt installs a package file with what it depends on.
DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" >"$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log" >&2; die "apt-get install $deb failed"; }
step "apt-get install ./$(basename "$deb")"

for f in /usr/bin/keep /usr/share/man/man1/keep.1.gz /usr/share/man/man1/keep-find.1.gz \
    /usr/share/bash-completion/completions/keep /usr/share/zsh/vendor-completions/_keep \
    /usr/share/fish/vendor_completions.d/keep.fish /usr/lib/systemd/system/keep.service \
    /usr/share/doc/keep/copyright; do
  [ -s "$f" ] || die "the package did not install $f"
done
[ "$(getent passwd keep | cut -d: -f6)" = "$home" ] || die "the user keep's home is not $home"
[ "$(stat -c %U:%a "$home")" = "keep:750" ] || die "$home is $(stat -c %U:%a "$home"), not keep:750"
zcat /usr/share/man/man1/keep-find.1.gz | grep -q '^\.TH' || die "keep-find.1.gz is not a man page"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify --man=no /usr/lib/systemd/system/keep.service \
    || die "systemd-analyze verify: keep.service"
else
  say "no systemd-analyze here: keep.service not verified"
fi
step "files, the user keep and its home"

cp -r "$models" "$work/models"
chmod -R a+rX "$work/models"
as_keep keep models install --from "$work/models" >"$work/models.log" 2>&1 \
  || { cat "$work/models.log" >&2; die "keep models install --from failed as the user keep"; }
step "keep models install --from $(basename "$models")"

as_keep keep doctor >"$work/doctor.log" 2>&1 || { cat "$work/doctor.log" >&2; die "keep doctor failed"; }
grep -q "^ok *model .* loads and embeds" "$work/doctor.log" || { cat "$work/doctor.log" >&2; die "keep doctor does not report the model working"; }
step "keep doctor"

id=$(as_keep keep put --ids "The lighthouse keeper winds the clock every evening at six.")
[ -n "$id" ] || die "keep put printed no id"
as_keep keep put "Tomatoes want full sun and regular watering." >/dev/null
found=$(as_keep keep find --ids "what does the lighthouse keeper do each evening")
[ "$(echo "$found" | head -n1)" = "$id" ] \
  || die "keep find did not put $id first: $(echo "$found" | tr '\n' ' ')"
step "keep put, then keep find"

# The unit's command, as systemd would start it (User=keep, its home).
exec_start=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/system/keep.service)
[ -n "$exec_start" ] || die "keep.service has no ExecStart"
address=$(echo "$exec_start" | sed -n 's/.*--listen \([^ ]*\).*/\1/p')
[ -n "$address" ] || die "keep.service's ExecStart has no --listen: $exec_start"
# shellcheck disable=SC2086
"${keep_user[@]}" $exec_start >"$work/serve.log" 2>&1 &
port_pid=$!
for _ in $(seq 100); do
  if as_keep keep serve --status >/dev/null 2>&1; then break; fi
  kill -0 "$port_pid" 2>/dev/null || { cat "$work/serve.log" >&2; die "the unit's command exited: $exec_start"; }
  sleep 0.2
done
# As the user keep: a loopback server answers its own user without a token.
# The number of commands the server answered over its socket, from /health.
served_commands() {
  as_keep python3 -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen("http://" + sys.argv[1] + "/health", timeout=5))["commands"])' "$address"
}
before=$(served_commands) || { cat "$work/serve.log" >&2; die "http://$address/health did not answer"; }
served=$(as_keep keep find --ids "what does the lighthouse keeper do each evening" | head -n1)
[ "$served" = "$id" ] || die "keep find with the server up did not put $id first"
[ "$(served_commands)" -gt "$before" ] || die "keep find did not go through the running server"
kill -TERM "$port_pid"
stopped=0
wait "$port_pid" || stopped=$?
[ "$stopped" = 0 ] && grep -q "^keep: stopped serving" "$work/serve.log" \
  || die "keep serve did not stop cleanly on SIGTERM (exit $stopped): $(tail -n3 "$work/serve.log")"
port_pid=""
step "the unit's command ($exec_start): /health 200, a find through it, SIGTERM"

# docs/security.md's team set-up, the blocks marked "team-setup: checked",
# run as written but for the store: KEEP_STORE names a folder of the user
# keep instead of the team's database. sudo runs the command as root or,
# with -u, as that user with its home; systemctl is only recorded (the
# unit's command is started below as systemd would start it).
team=$work/team
mkdir -p "$team"
cp "$deb" "$team/"
(
  cd "$team"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout ca.key -out ca.crt -days 2 -subj '/CN=team CA' >/dev/null 2>&1
) || die "could not make a CA with openssl"
python3 - "$root/docs/security.md" "$team/setup.sh" <<'PY' || die "docs/security.md: no team-setup blocks"
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- team-setup: checked -->\n```sh\n(.*?)```\n<!-- end: team-setup -->", text, re.S)
if len(blocks) < 3:
    sys.exit(1)
script = "".join(blocks)
store = re.compile(r"^export KEEP_STORE=.*$", re.M)
if len(store.findall(script)) != 1:
    sys.exit(1)
open(sys.argv[2], "w").write(store.sub("export KEEP_STORE=/var/lib/keep/team-store", script))
PY
cat > "$team/run.sh" <<SH
set -euo pipefail
sudo() {
  if [ "\$1" = -u ]; then
    local user=\$2; shift 2
    [ "\$1" != -H ] || shift
    setpriv --reuid="\$user" --regid="\$user" --init-groups \\
      env -i HOME="\$(getent passwd "\$user" | cut -d: -f6)" PATH="$plain_path" LANG=C.UTF-8 "\$@"
  else
    "\$@"
  fi
}
systemctl() { echo "systemctl \$*" >> "$team/systemctl.log"; }
source "$team/setup.sh"
SH
(cd "$team" && env -i HOME=/root PATH="$plain_path" LANG=C.UTF-8 bash "$team/run.sh") >"$team/out.log" 2>&1 \
  || { cat "$team/out.log" >&2; die "docs/security.md's team set-up failed as written"; }
grep -qx "systemctl enable --now keep" "$team/systemctl.log" || die "the team set-up does not start keep.service"
[ "$(stat -c %U:%a /etc/keep/serve.key)" = "keep:600" ] || die "/etc/keep/serve.key is not keep's alone"
dropin=/etc/systemd/system/keep.service.d/team.conf
[ -s "$dropin" ] || die "the team set-up wrote no $dropin"
reviewer=$(grep -o 'keep_[0-9a-f]\{64\}' "$team/out.log" | head -n1)
[ -n "$reviewer" ] || die "keep token add printed no secret"
step "docs/security.md's team set-up, as written (store: a folder)"

# The drop-in's command, with its environment, as systemd would run it.
serve_line=$(sed -n 's/^ExecStart=\(..*\)$/\1/p' "$dropin" | tail -n1)
mapfile -t serve_env < <(sed -n 's/^Environment="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$dropin")
# shellcheck disable=SC2086
setpriv --reuid=keep --regid=keep --init-groups env -i HOME="$home" PATH="$plain_path" LANG=C.UTF-8 \
  "${serve_env[@]}" $serve_line >"$team/serve.log" 2>&1 &
port_pid=$!
answer() {
  python3 - "$team/ca.crt" "$@" <<'PY'
import http.client, socket, ssl, sys
ca, path, token = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
context = ssl.create_default_context(cafile=ca)
raw = socket.create_connection(("127.0.0.1", 7377), timeout=5)
conn = http.client.HTTPSConnection("keep.example.org", 7377, context=context)
conn.sock = context.wrap_socket(raw, server_hostname="keep.example.org")
method, _, body = ("POST", None, '{"text": "a write"}') if path.startswith("POST ") else ("GET", None, None)
path = path.removeprefix("POST ")
headers = {"Content-Type": "application/json"}
if token:
    headers["Authorization"] = "Bearer " + token
conn.request(method, path, body=body, headers=headers)
print(conn.getresponse().status)
PY
}
for _ in $(seq 100); do
  answer /health >/dev/null 2>&1 && break
  kill -0 "$port_pid" 2>/dev/null || { cat "$team/serve.log" >&2; die "the drop-in's keep serve exited"; }
  sleep 0.2
done
[ "$(answer /health)" = 401 ] || die "keep serve with --require-token answered /health without a token"
[ "$(answer /health "$reviewer")" = 200 ] || die "the reviewer's token was refused over HTTPS"
[ "$(answer "POST /v1/notes" "$reviewer")" = 403 ] || die "a read-only token could write"
kill -TERM "$port_pid"
wait "$port_pid" || true
port_pid=""
step "the drop-in's keep serve: HTTPS with the team's CA, no token 401, read-only token reads (200) and may not write (403)"

tarball=$(ls "$dist"/keep-*-x86_64-linux-gnu.tar.gz 2>/dev/null | head -n1)
[ -n "$tarball" ] || die "$dist: no keep-*-x86_64-linux-gnu.tar.gz"
tar -C "$work" -xzf "$tarball"
unpacked=$(ls -d "$work"/keep-*-x86_64-linux-gnu)
chmod -R a+rX "$unpacked"
[ "$(as_keep "$unpacked/bin/keep" --version)" = "$(as_keep keep --version)" ] \
  || die "the tarball's keep is not the package's"
as_keep "$unpacked/bin/keep" find --ids "what does the lighthouse keeper do each evening" | head -n1 | grep -qx "$id" \
  || die "the tarball's keep did not find $id in the same store"
step "the tarball's bin/keep: the same version, the same store"

dpkg --purge keep >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; die "dpkg --purge keep failed"; }
[ ! -e /usr/bin/keep ] || die "dpkg --purge left /usr/bin/keep"
[ -d "$home" ] || die "dpkg --purge removed $home (the store must stay)"
step "dpkg --purge (the store in $home stays)"

say "the package installs and works without cargo or rustc in $(( SECONDS - started )) s"
