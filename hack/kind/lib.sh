# Shared settings for the offline kind scripts. Sourced, not run.
# Everything built lands in $KIND_CACHE (outside the repo) and is kept, so each
# step runs once; delete a step's stamp file (or the cache) to redo it.

KIND_CACHE=${KIND_CACHE:-/var/cache/admission-conformance-kind}
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The Kubernetes the node image carries: the one the harness embeds.
KUBE_VERSION=${KUBE_VERSION:-$(sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$REPO_ROOT/go.mod" | head -n1)}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

log() { echo "[$(date +%H:%M:%S)] $(basename "$0"): $*" >&2; }

# step NAME CMD...: runs CMD once; the stamp records how long it took.
step() {
  local name=$1; shift
  local stamp="$KIND_CACHE/stamps/$name"
  if [[ -f $stamp ]]; then
    log "$name: cached ($(cat "$stamp"))"
    return 0
  fi
  mkdir -p "$KIND_CACHE/stamps"
  local start=$SECONDS
  log "$name: building"
  "$@"
  echo "built in $((SECONDS - start))s on $(date -u +%FT%TZ)" >"$stamp"
  log "$name: done in $((SECONDS - start))s"
}
