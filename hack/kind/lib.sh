# Shared settings for the offline kind scripts. Sourced, not run.
# Everything built lands in $KIND_CACHE (outside the repo) and is kept, so each
# step runs once; delete a step's stamp file (or the cache) to redo it.

KIND_CACHE=${KIND_CACHE:-/var/cache/admission-conformance-kind}
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The Kubernetes the node image carries: by default the one the harness
# embeds; any release the module proxy serves otherwise (KUBE_VERSION=v1.35.4).
KUBE_VERSION=${KUBE_VERSION:-$(sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$REPO_ROOT/go.mod" | head -n1)}
[[ $KUBE_VERSION =~ ^v1\.[0-9]+\.[0-9]+$ ]] || { echo "KUBE_VERSION must look like v1.36.3, got '$KUBE_VERSION'" >&2; exit 2; }
# What depends on the version (binaries, their build modules, images, the
# node's work dir, their stamps) lives under $VERSION_CACHE; the Debian root
# file systems are shared by every version.
VERSION_CACHE=$KIND_CACHE/$KUBE_VERSION
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

log() { echo "[$(date +%H:%M:%S)] $(basename "$0"): $*" >&2; }

# step NAME CMD...: runs CMD once; the stamp records how long it took.
# STAMPS says where (the version's stamps unless a step is shared).
step() {
  local name=$1; shift
  local stamps=${STAMPS:-$VERSION_CACHE/stamps}
  local stamp="$stamps/$name"
  if [[ -f $stamp ]]; then
    log "$name: cached ($(cat "$stamp"))"
    return 0
  fi
  mkdir -p "$stamps"
  local start=$SECONDS
  log "$name: building"
  "$@"
  echo "built in $((SECONDS - start))s on $(date -u +%FT%TZ)" >"$stamp"
  log "$name: done in $((SECONDS - start))s"
}

# kube_module_dir: k8s.io/kubernetes at $KUBE_VERSION in the module cache
# (downloaded if needed), whatever version the harness itself pins.
kube_module_dir() {
  go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'
}

kube_constant() { # NAME -> value, from kubeadm's constants at $KUBE_VERSION
  sed -n "s/^\t$1 *= *\"\(.*\)\"/\1/p" "$(kube_module_dir)/cmd/kubeadm/app/constants/constants.go" | head -n1
}
