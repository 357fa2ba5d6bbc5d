#!/usr/bin/env bash
# Builds every Go program the offline node image needs, from the Go module
# proxy only: the Kubernetes binaries (at $KUBE_VERSION: by default the one
# the harness embeds, any other the module proxy serves),
# etcd and coredns at the versions kubeadm expects, pause from Kubernetes'
# own pause.c, and the harness's stand-ins (hack/kind/cmd/...).
# Output: $KIND_CACHE/$KUBE_VERSION/bin/. Heavy (~20 min cold on 2 cores): runs niced.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BIN=$VERSION_CACHE/bin
mkdir -p "$BIN"
export CGO_ENABLED=0

# Wrapper modules, one per upstream program, so their dependency graphs never
# meet. Each pins exactly what kubeadm $KUBE_VERSION asks for.
module() { # dir modulepath
  mkdir -p "$1"
  [[ -f $1/go.mod ]] || printf 'module %s\n\ngo 1.26.0\n' "$2" >"$1/go.mod"
}


kubernetes() {
  local mod=$VERSION_CACHE/gobuild/kubernetes
  module "$mod" offline-kind/kubernetes
  # The staging replaces of $KUBE_VERSION, from its own go.mod (its
  # ./staging/src paths become the staging modules' releases, v0.MINOR.PATCH),
  # so the image does not depend on the version the harness pins.
  (cd "$mod" && go mod edit -require="k8s.io/kubernetes@$KUBE_VERSION")
  local staging="v0.${KUBE_VERSION#v1.}"
  sed -n 's/^\t\(k8s\.io\/[a-z0-9-]*\) => \.\/staging\/src\/k8s\.io\/[a-z0-9-]*$/\1/p' "$(kube_module_dir)/go.mod" |
    grep -v '^k8s.io/sample-' | while read -r m; do
      (cd "$mod" && go mod edit -replace="$m=$m@$staging")
    done
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  local ldflags="-s -w"
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  done
  local cmds=(kubeadm kubelet kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
  # cgo on, as in the harness's own build: the same packages at the same
  # versions then share one Go build cache, so on a fresh machine whichever
  # of the two builds first compiles Kubernetes for both. The binaries link
  # the C library: the node has it, and the control-plane images get the
  # base root file system as a layer (build-node-image.sh).
  (cd "$mod" && CGO_ENABLED=1 GOFLAGS=-mod=mod nice -n 10 go build -ldflags "$ldflags" -o "$BIN/" \
    "${cmds[@]/#/k8s.io/kubernetes/cmd/}")
}

etcd() {
  local mod=$VERSION_CACHE/gobuild/etcd
  local version; version=$(kube_constant DefaultEtcdVersion); version=${version%-*}
  module "$mod" offline-kind/etcd
  printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >"$mod/main.go"
  (cd "$mod" && go mod edit -require="go.etcd.io/etcd/server/v3@v$version" &&
    GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true)
  (cd "$mod" && GOFLAGS=-mod=mod nice -n 10 go build -ldflags "-s -w" -o "$BIN/etcd" .)
}

coredns() {
  local mod=$VERSION_CACHE/gobuild/coredns
  local version; version=$(kube_constant CoreDNSVersion)
  module "$mod" offline-kind/coredns
  printf 'package main\n\nimport (\n\t_ "github.com/coredns/coredns/core/plugin"\n\t"github.com/coredns/coredns/coremain"\n)\n\nfunc main() { coremain.Run() }\n' >"$mod/main.go"
  (cd "$mod" && go mod edit -require="github.com/coredns/coredns@$version" &&
    GOFLAGS=-mod=mod go mod tidy >/dev/null)
  (cd "$mod" && GOFLAGS=-mod=mod nice -n 10 go build -ldflags "-s -w" -o "$BIN/coredns" .)
}

pause() {
  local dir
  dir=$(kube_module_dir)
  gcc -Os -static -Wall -Werror -DVERSION="$(kube_constant PauseVersion)-offline" \
    -o "$BIN/pause" "$dir/build/pause/linux/pause.c"
}

# kubelet_with_host replaces the kubelet with the pinned release's kubelet
# hosting the project's reference KEP-2823 plugin host
# (hack/kind/cmd/kubelet). That command is built in this module, with
# k8s.io/kubernetes replaced by a copy (hard links, but for the file patched)
# whose cmd/kubelet/app gains one seam, WrapContainerManager: upstream has no
# way to add an admit handler. In this module because the host is; hence
# only at the version the harness pins (other releases keep upstream's
# kubelet, and the provider then declares no plugin host). Rebuilt every
# time: with the harness's build cache warm it takes seconds, and a changed
# host reaches the image.
kubelet_with_host() {
  local pinned
  pinned=$(sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*\)$/\1/p' "$REPO_ROOT/go.mod" | head -n1)
  if [[ $KUBE_VERSION != "$pinned" ]]; then
    log "kubelet: upstream's $KUBE_VERSION (the plugin host is built for $pinned only)"
    return 0
  fi
  local src=$VERSION_CACHE/gobuild/kubernetes-seam mod=$VERSION_CACHE/gobuild/kubelet
  local app=$src/cmd/kubelet/app anchor=$'\tif kubeDeps.PodStartupLatencyTracker == nil {'
  rm -rf "$src" "$mod" && mkdir -p "$mod"
  cp -al "$(kube_module_dir)" "$src" 2>/dev/null || cp -a "$(kube_module_dir)" "$src"
  find "$src" -type d -exec chmod u+w {} + # new dirs; the files stay shared and read-only
  [[ $(grep -cxF "$anchor" "$app/server.go") == 1 ]] ||
    { log "kubelet: $app/server.go of $KUBE_VERSION has no single line '$anchor' to put the seam before"; return 1; }
  local patched=$mod/server.go
  awk -v anchor="$anchor" '$0 == anchor {
      print "\tif WrapContainerManager != nil { // admission-conformance: the plugin host"
      print "\t\tkubeDeps.ContainerManager = WrapContainerManager(kubeDeps.ContainerManager)"
      print "\t}"
    } { print }' "$app/server.go" >"$patched"
  rm -f "$app/server.go" && mv "$patched" "$app/server.go"
  cat >"$app/admission_conformance_seam.go" <<'GO'
package app

import "k8s.io/kubernetes/pkg/kubelet/cm"

// WrapContainerManager, when set, wraps the container manager run() makes:
// admission-conformance's seam for its reference node admission plugin host.
var WrapContainerManager func(cm.ContainerManager) cm.ContainerManager
GO
  cp "$REPO_ROOT/go.mod" "$mod/go.mod" && cp "$REPO_ROOT/go.sum" "$mod/go.sum"
  (cd "$REPO_ROOT" && go mod edit -modfile="$mod/go.mod" -replace="k8s.io/kubernetes=$src")
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*} ldflags="-s -w"
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  done
  # cgo as the harness's own build, so its build cache serves the staging
  # modules; the node's root file system has the C library.
  (cd "$REPO_ROOT" && CGO_ENABLED=1 nice -n 10 go build -modfile="$mod/go.mod" -tags admissionconformance_kubelet \
    -ldflags "$ldflags" -o "$BIN/kubelet" ./hack/kind/cmd/kubelet)
  log "kubelet: $KUBE_VERSION with the reference node admission plugin host"
}

standins() {
  # Our own programs: the CNI daemon standing in for kindnetd and the TCP
  # load balancer standing in for envoy. Rebuilt every time (cheap).
  (cd "$REPO_ROOT" && go build -ldflags "-s -w" -o "$BIN/" ./hack/kind/cmd/cnid ./hack/kind/cmd/envoy ./hack/kind/cmd/mkimage)
}

step kubernetes-binaries-cgo kubernetes
step etcd-binary etcd
step coredns-binary coredns
step pause-binary pause
[[ -d $REPO_ROOT/hack/kind/cmd ]] && standins
t=$SECONDS; kubelet_with_host; log "kubelet with host: $((SECONDS - t))s"
ls -la "$BIN" >&2
