#!/usr/bin/env bash
# Builds a kind node image with no container registry: only Debian's
# packages and the Go module proxy. Steps (each cached in $KIND_CACHE):
#
#   1. node root file system: debootstrap Debian + systemd, containerd, runc,
#      CNI plugins, iptables (what kind's base image installs);
#   2. base root file system for the images that need a userland (kube-proxy,
#      cnid, the load balancer): debootstrap minbase + iptables, iproute2;
#   3. Go binaries (build-binaries.sh): Kubernetes, etcd, coredns, pause, and
#      the stand-ins for kindnetd (cnid) and kind's envoy load balancer;
#   4. container images of those binaries (hack/kind/cmd/mkimage, no Docker),
#      imported into the node's containerd store ahead of time;
#   5. the node image itself: kind's base-image files (from the kind Go
#      module) over the node root file system, loaded into Docker as
#      $NODE_IMAGE; the load balancer image is loaded under the name kind
#      hard-codes.
#
# Needs root and a running Docker engine (hack/kind/docker-up.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

NODE_IMAGE=${NODE_IMAGE:-admission-conformance/kind-node:$KUBE_VERSION}
BIN=$VERSION_CACHE/bin
IMAGES=$VERSION_CACHE/images
WORK=$VERSION_CACHE/work
started=$SECONDS

for tool in debootstrap docker containerd ctr go gcc; do
  command -v "$tool" >/dev/null || { log "missing $tool: run hack/kind/docker-up.sh, which installs it"; exit 1; }
done

debootstrap_into() { # target packages...
  local target=$1; shift
  rm -rf "$target.tmp"
  nice -n 10 debootstrap --variant=minbase --include="$(IFS=,; echo "$*")" \
    "$DEBIAN_SUITE" "$target.tmp" "$DEBIAN_MIRROR" >"$target.log" 2>&1 ||
    { tail -n 20 "$target.log" >&2; return 1; }
  rm -rf "$target" && mv "$target.tmp" "$target"
}

node_rootfs() {
  debootstrap_into "$KIND_CACHE/rootfs-node" systemd systemd-sysv dbus containerd runc \
    containernetworking-plugins iptables nftables iproute2 ethtool conntrack util-linux mount \
    kmod libseccomp2 pigz ca-certificates procps socat hostname
}

base_rootfs() {
  debootstrap_into "$KIND_CACHE/rootfs-base" iptables nftables conntrack ipset iproute2 kmod ca-certificates
}

# kind's module, downloaded first: go list names no directory for a module
# the module cache does not hold yet (a fresh machine's).
kind_dir() { (cd "$REPO_ROOT" && go mod download sigs.k8s.io/kind && go list -m -f '{{.Dir}}' sigs.k8s.io/kind); }
KIND_DIR=$(kind_dir)
LB_IMAGE=$(sed -n 's/^const Image = "\(.*\)"/\1/p' "$KIND_DIR/pkg/cluster/internal/loadbalancer/const.go")
[ -n "$LB_IMAGE" ] || { echo "build-node-image.sh: no load balancer image in $KIND_DIR/pkg/cluster/internal/loadbalancer/const.go: is sigs.k8s.io/kind in go.mod?" >&2; exit 2; }

PATHENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CNID_IMAGE=admission-conformance.local/cnid:$KUBE_VERSION

images() {
  rm -rf "$IMAGES" && mkdir -p "$IMAGES"
  local mk="$BIN/mkimage" v=$KUBE_VERSION
  # The base root file system under each: the Kubernetes binaries link the C
  # library (build-binaries.sh); one layer, stored once.
  for c in kube-apiserver kube-controller-manager kube-scheduler; do
    "$mk" -o "$IMAGES/$c.tar" --ref "registry.k8s.io/$c:$v" --env "$PATHENV" --dir-layer "$KIND_CACHE/rootfs-base" \
      --file "$BIN/$c:/usr/local/bin/$c:0755" --entrypoint "/usr/local/bin/$c"
  done
  "$mk" -o "$IMAGES/kube-proxy.tar" --ref "registry.k8s.io/kube-proxy:$v" --env "$PATHENV" \
    --dir-layer "$KIND_CACHE/rootfs-base" --file "$BIN/kube-proxy:/usr/local/bin/kube-proxy:0755" \
    --entrypoint /usr/local/bin/kube-proxy
  "$mk" -o "$IMAGES/etcd.tar" --ref "registry.k8s.io/etcd:$(kube_constant DefaultEtcdVersion)" --env "$PATHENV" \
    --file "$BIN/etcd:/usr/local/bin/etcd:0755"
  "$mk" -o "$IMAGES/coredns.tar" --ref "registry.k8s.io/coredns/coredns:$(kube_constant CoreDNSVersion)" \
    --file "$BIN/coredns:/coredns:0755" --entrypoint /coredns
  # 3.10 too: the fixtures and nodeadmit specs name pause:3.10.
  "$mk" -o "$IMAGES/pause.tar" --ref "registry.k8s.io/pause:$(kube_constant PauseVersion)" \
    --ref registry.k8s.io/pause:3.10 --file "$BIN/pause:/pause:0755" --entrypoint /pause
  "$mk" -o "$IMAGES/cnid.tar" --ref "$CNID_IMAGE" --env "$PATHENV" \
    --dir-layer "$KIND_CACHE/rootfs-base" --file "$BIN/cnid:/usr/local/bin/cnid:0755"
  # Not for containerd: the load balancer runs in Docker under kind's name.
  "$mk" -o "$VERSION_CACHE/lb.tar" --ref "$LB_IMAGE" --env "$PATHENV" \
    --dir-layer "$KIND_CACHE/rootfs-base" --file "$BIN/envoy:/usr/local/bin/envoy:0755"
}

# containerd_store imports the images into a containerd root that becomes
# the node's /var/lib/containerd. A private containerd on this host does it;
# --no-unpack: the node's containerd unpacks on first use (as kind's images).
containerd_store() {
  local root=$WORK/containerd-root state=$WORK/containerd-state
  rm -rf "$root" "$state" && mkdir -p "$root" "$state"
  local sock=$state/containerd.sock
  cat >"$state/config.toml" <<TOML
version = 2
root = "$root"
state = "$state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$sock"
[ttrpc]
  address = "$sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
TOML
  containerd --config "$state/config.toml" >"$state/containerd.log" 2>&1 &
  CONTAINERD_PID=$!
  for _ in $(seq 1 50); do [[ -S $sock ]] && break; sleep 0.2; done
  local archive
  for archive in "$IMAGES"/*.tar; do
    ctr --address "$sock" --namespace k8s.io images import --no-unpack "$archive" >/dev/null
  done
  ctr --address "$sock" --namespace k8s.io images ls -q | sort >"$WORK/images.txt"
  kill "$CONTAINERD_PID" && wait "$CONTAINERD_PID" 2>/dev/null || true
  CONTAINERD_PID=
  log "node images: $(tr '\n' ' ' <"$WORK/images.txt")"
}

node_root() {
  local root=$WORK/node-root kind; kind=$KIND_DIR
  rm -rf "$root" && cp -a "$KIND_CACHE/rootfs-node" "$root"
  local files=$kind/images/base/files
  install -m 0755 "$files"/usr/local/bin/* "$root/usr/local/bin/"
  mkdir -p "$root/kind/bin" "$root/kind/manifests" "$root/etc/systemd/system/kubelet.service.d" "$root/etc/kubernetes/manifests"
  install -m 0755 "$files"/kind/bin/* "$root/kind/bin/"
  install -m 0644 "$files"/etc/sysctl.d/* "$root/etc/sysctl.d/"
  install -m 0644 "$files"/etc/default/kubelet "$root/etc/default/"
  install -m 0644 "$files"/etc/systemd/system/{kubelet.service,kubelet.slice,undo-mount-hacks.service} "$root/etc/systemd/system/"
  install -m 0644 "$files"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"
  for b in kubeadm kubelet kubectl; do install -m 0755 "$BIN/$b" "$root/usr/bin/$b"; done
  echo "$KUBE_VERSION" >"$root/kind/version"
  sed "s|PAUSE_VERSION|$(kube_constant PauseVersion)|" "$REPO_ROOT/hack/kind/node/containerd-config.toml" >"$root/etc/containerd/config.toml"
  sed "s|CNID_IMAGE|$CNID_IMAGE|" "$REPO_ROOT/hack/kind/node/default-cni.yaml" >"$root/kind/manifests/default-cni.yaml"
  mkdir -p "$root/opt/cni" && ln -sfn /usr/lib/cni "$root/opt/cni/bin"
  # What kind's base Dockerfile does to systemd.
  find "$root/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
  rm -f "$root"/lib/systemd/system/multi-user.target.wants/* "$root"/etc/systemd/system/*.wants/* \
    "$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
    "$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/basic.target.wants/*
  echo "ReadKMsg=no" >>"$root/etc/systemd/journald.conf"
  chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service >/dev/null 2>&1
  chroot "$root" systemctl mask systemd-binfmt.service >/dev/null 2>&1
  rm -rf "$root/var/lib/containerd" && cp -a "$WORK/containerd-root" "$root/var/lib/containerd"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
}

node_image() {
  "$BIN/mkimage" -o "$WORK/node.tar" --ref "$NODE_IMAGE" --dir-layer "$WORK/node-root" \
    --env container=docker --stop-signal SIGRTMIN+3 --entrypoint "/usr/local/bin/entrypoint /sbin/init"
  load "$WORK/node.tar" "$NODE_IMAGE"
  load "$VERSION_CACHE/lb.tar" "$LB_IMAGE"
  rm -f "$WORK/node.tar"
}

# load ARCHIVE REF: docker load, then drop the image REF named before (a
# rebuild would otherwise leave ~1 GB dangling each time; one a container
# still uses stays).
load() {
  local old new
  old=$(docker image inspect --format '{{.Id}}' "$2" 2>/dev/null || true)
  docker load -i "$1" >&2
  new=$(docker image inspect --format '{{.Id}}' "$2")
  if [[ -n $old && $old != "$new" ]]; then
    docker rmi "$old" >/dev/null 2>&1 || true
  fi
}

CONTAINERD_PID=
trap '[[ -n $CONTAINERD_PID ]] && kill "$CONTAINERD_PID" 2>/dev/null; true' EXIT
mkdir -p "$WORK"
STAMPS=$KIND_CACHE/stamps step node-rootfs node_rootfs   # Debian: shared by every version
STAMPS=$KIND_CACHE/stamps step base-rootfs base_rootfs
"$REPO_ROOT/hack/kind/build-binaries.sh"
# The rest is cheap next to the builds above and always redone, so a changed
# stand-in or config reaches the image.
t=$SECONDS; images; log "images: $((SECONDS - t))s"
t=$SECONDS; containerd_store; log "containerd store: $((SECONDS - t))s"
t=$SECONDS; node_root; log "node root: $((SECONDS - t))s"
t=$SECONDS; node_image; log "node image: $((SECONDS - t))s"
log "$NODE_IMAGE ready in $((SECONDS - started))s (load balancer: $LB_IMAGE)"
