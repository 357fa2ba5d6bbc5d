#!/usr/bin/env bash
# Moves the embedded control plane to another Kubernetes release, newer or
# older, and leaves a module that builds:
#
#   hack/update-kubernetes.sh v1.37.2
#
# 1. Staging replaces. k8s.io/kubernetes' own go.mod points its staging
#    modules at ./staging/src/..., which a module importing it cannot use: the
#    block between the BEGIN/END markers gets one `k8s.io/X => k8s.io/X v0.Y.Z`
#    line per staging module of the target release (k8s.io/sample-* have no
#    releases and are left out). Which modules those are comes from the
#    target's go.mod, so modules only some releases have (k8s.io/cri-streaming
#    and k8s.io/streaming, from 1.36 on) come and go with the release.
# 2. Requirements. What the target's go.mod decides is reset, so that a move
#    to an older release really goes back; the rest is kept:
#    - every `// indirect` requirement is dropped: go mod tidy puts back what
#      the new module graph needs, at the versions that graph selects;
#    - requirements on staging modules the target does not have are dropped;
#      those it has are required at v0.Y.Z, like their replaces;
#    - every direct requirement the target's go.mod also lists is set to the
#      target's version (tidy raises it again where another requirement of
#      ours needs more); other direct requirements are kept as they are.
#    The require section is rebuilt (direct block, then tidy's indirect
#    block), so go.mod reads the same whichever release it came from.
# 3. Version-specific code. Everything that depends on the minor (the hollow
#    kubelet's use of kubelet internals, the embedded control plane's use of
#    upstream's test servers) is in package framework/kubecompat, which has
#    one template per supported minor, v1_MINOR.go.txt; the one for the
#    target's minor is installed as framework/kubecompat/kubecompat_generated.go.
#    A minor without a template is refused: supporting one means adding it.
# 4. go mod tidy.
#
# Running it twice with the same version changes nothing.
set -euo pipefail
version=${1:?usage: hack/update-kubernetes.sh vMAJOR.MINOR.PATCH}
[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "version must look like v1.36.3, got $version" >&2; exit 2; }
minor=${BASH_REMATCH[1]}
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
cd "$(dirname "$0")/.."

compat_dir=framework/kubecompat
compat_template="$compat_dir/v1_${minor}.go.txt"
compat_out="$compat_dir/kubecompat_generated.go"
if [ ! -f "$compat_template" ]; then
  supported=$(cd "$compat_dir" && ls v1_*.go.txt | sed 's/^v1_\([0-9]*\)\.go\.txt$/1.\1/' | sort -t. -k2 -n | paste -sd' ')
  echo "Kubernetes 1.$minor is not supported (templates for: $supported)." >&2
  echo "To support it, add $compat_template: copy the nearest minor's template and follow the compiler." >&2
  exit 2
fi

gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
[ -f "$gomod" ] || { echo "could not download k8s.io/kubernetes@$version" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# requirements FILE: "path version direct|indirect" for every requirement of a go.mod.
requirements() {
  awk '
    /^require[ \t]*\($/  { inblock = 1; next }
    inblock && /^\)/     { inblock = 0; next }
    inblock && NF >= 2   { print $1, $2, ($0 ~ /\/\/ indirect/ ? "indirect" : "direct"); next }
    /^require[ \t]+[^(]/ { print $2, $3, ($0 ~ /\/\/ indirect/ ? "indirect" : "direct") }
  ' "$1"
}

# The target's staging modules, and those of the block go.mod has now.
grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/' "$gomod" | awk '{print $1}' | grep -v '^k8s.io/sample-' | sort -u >"$tmp/new-staging"
awk '/^\/\/ BEGIN kubernetes staging replaces/{b=1; next} /^\/\/ END kubernetes staging replaces/{b=0} b && /=>/{print $1}' go.mod | sort -u >"$tmp/old-staging"

# 1. The replace block, in place (appended when go.mod has none yet).
{
  echo "// BEGIN kubernetes staging replaces (hack/update-kubernetes.sh $version)"
  echo "replace ("
  while read -r mod; do printf '\t%s => %s %s\n' "$mod" "$mod" "$staging"; done <"$tmp/new-staging"
  echo ")"
  echo ""
  echo "// END kubernetes staging replaces"
} >"$tmp/block"
if grep -q '^// BEGIN kubernetes staging replaces' go.mod; then
  awk -v block="$tmp/block" '
    /^\/\/ BEGIN kubernetes staging replaces/ { while ((getline line < block) > 0) print line; skip = 1; next }
    skip && /^\/\/ END kubernetes staging replaces/ { skip = 0; next }
    !skip { print }
  ' go.mod >"$tmp/go.mod"
else
  { cat go.mod; echo; cat "$tmp/block"; } >"$tmp/go.mod"
fi
cat "$tmp/go.mod" >go.mod

# 2. Requirements.
requirements go.mod >"$tmp/ours"
requirements "$gomod" | awk '$1 != "k8s.io/kubernetes" {print $1, $2}' >"$tmp/theirs"
drops=()
adds=("-require=k8s.io/kubernetes@$version")
while read -r path ver kind; do
  drops+=("-droprequire=$path")
  if [ "$path" = k8s.io/kubernetes ] || [ "$kind" = indirect ] || grep -qx "$path" "$tmp/new-staging" "$tmp/old-staging"; then
    continue # pinned above or below, left to tidy, or gone with the old release
  fi
  want=$(awk -v p="$path" '$1 == p {print $2; exit}' "$tmp/theirs")
  adds+=("-require=$path@${want:-$ver}")
done <"$tmp/ours"
# Staging modules at the release's version, like their replaces; tidy drops
# the ones no package of ours needs and marks the rest direct or indirect.
while read -r mod; do adds+=("-require=$mod@$staging"); done <"$tmp/new-staging"
[ ${#drops[@]} -eq 0 ] || go mod edit "${drops[@]}"
# Emptied require blocks go too, so that the kept requirements land in one.
awk '/^require[ \t]*\($/ {b = 1} !b {print} b && /^\)/ {b = 0}' go.mod | cat -s >"$tmp/go.mod"
cat "$tmp/go.mod" >go.mod
go mod edit "${adds[@]}"

# 3. Version-specific code.
{
  echo "// Code generated by hack/update-kubernetes.sh for v1.$minor from $compat_template. DO NOT EDIT."
  echo ""
  cat "$compat_template"
} >"$compat_out"

# 4. Tidy.
go mod tidy
echo "pinned k8s.io/kubernetes $version: $(wc -l <"$tmp/new-staging") staging replaces at $staging, $compat_out from $compat_template"
