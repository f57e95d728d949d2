#!/usr/bin/env bash
# Installs the Debian package that scripts/release.sh made (in DIST,
# default target/dist) on this machine and uses it as a new user would,
# with no cargo or rustc on the PATH:
#
#   apt-get install ./keep_*.deb; the files where Debian keeps them; the service user keep;
#   keep models install --from the release's wheels, keep doctor, keep put
#   and keep find as that user; the unit's own ExecStart started without
#   systemd, its /health and a find through it; the tarball's bin/keep on
#   the same store; then dpkg --purge, the
#   user and its home removed. Each step is timed.
#
# Needs root (CI runs as root) and a machine without a user keep or a
# package keep already: it refuses to touch them.
set -euo pipefail
cd "$(dirname "$0")/.."
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
  rm -rf "$home" "$work"
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
