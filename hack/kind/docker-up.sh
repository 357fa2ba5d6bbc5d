#!/usr/bin/env bash
# Installs Debian's Docker engine if absent and starts dockerd by hand (no
# systemd here) with a runc wrapper as the default runtime.
#
# Why the wrapper: on this machine type root lacks CAP_SYS_RESOURCE in its
# bounding set, so runc fails every --privileged container (kind nodes) with
# "unable to apply caps: operation not permitted". The wrapper removes
# CAP_SYS_RESOURCE from the OCI spec before runc sees it (create/run) and from
# the process spec of `runc exec`.
#
# Idempotent: a running engine is left alone. Logs: $DOCKER_LOG.
set -euo pipefail

DOCKER_LOG=${DOCKER_LOG:-/var/log/admission-conformance-dockerd.log}
WRAPPER=/usr/local/sbin/runc-drop-sys-resource

log() { echo "docker-up: $*" >&2; }

# The engine and what the node image build needs (debootstrap, gcc), from
# Debian, whether or not an engine already answers: a fresh machine has none
# of them, and `make kind-image` must work there.
declare -A package=([dockerd]=docker.io [containerd]=containerd [runc]=runc [iptables]=iptables [jq]=jq [debootstrap]=debootstrap [gcc]=gcc)
need=()
for bin in "${!package[@]}"; do
  command -v "$bin" >/dev/null 2>&1 || need+=("${package[$bin]}")
done
if ((${#need[@]})); then
  log "installing from Debian: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  log "engine already running: $(docker version --format '{{.Server.Version}}')"
  exit 0
fi

install -m 0755 /dev/stdin "$WRAPPER" <<'WRAP'
#!/bin/sh
# runc, minus CAP_SYS_RESOURCE (absent from this host's bounding set).
# create/run: rewrite <bundle>/config.json; exec: rewrite --process FILE.
strip() {
  [ -f "$1" ] || return 0
  jq 'def drop: map_values(if type == "array" then map(select(. != "CAP_SYS_RESOURCE")) else . end);
      if has("process") then (if .process.capabilities then .process.capabilities |= drop else . end)
      else (if .capabilities then .capabilities |= drop else . end) end' "$1" >"$1.tmp" &&
    mv "$1.tmp" "$1"
}
cmd="" bundle="." process=""
prev=""
for a in "$@"; do
  case "$prev" in
    --bundle|-b) bundle="$a" ;;
    --process|-p) process="$a" ;;
  esac
  case "$a" in
    --bundle=*) bundle="${a#--bundle=}" ;;
    --process=*) process="${a#--process=}" ;;
    create|run|exec) [ -z "$cmd" ] && cmd="$a" ;;
  esac
  prev="$a"
done
case "$cmd" in
  create|run) strip "$bundle/config.json" ;;
  exec) [ -n "$process" ] && strip "$process" ;;
esac
exec runc "$@"
WRAP

mkdir -p /etc/docker
cat >/etc/docker/daemon.json <<JSON
{
  "runtimes": {"runc-nosysres": {"path": "$WRAPPER"}},
  "default-runtime": "runc-nosysres",
  "storage-driver": "overlay2",
  "exec-opts": ["native.cgroupdriver=cgroupfs"]
}
JSON

log "starting dockerd (log: $DOCKER_LOG)"
# The engine outlives this script: it must not keep the descriptors this
# script inherited. A caller's lock (flock on a file, as the harness's timing
# lock is taken) would otherwise be held by dockerd and containerd until they
# stop, and every later holder of that lock would wait forever.
(
  for fd in /proc/$BASHPID/fd/*; do
    fd=${fd##*/}
    ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
  done
  exec nohup dockerd >>"$DOCKER_LOG" 2>&1 </dev/null
) &
for _ in $(seq 1 60); do
  if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
    log "engine $(docker version --format '{{.Server.Version}}') up"
    exit 0
  fi
  sleep 0.5
done
log "dockerd did not answer within 30s; last lines of $DOCKER_LOG:"
tail -n 20 "$DOCKER_LOG" >&2
exit 1
