#!/usr/bin/env bash
# Moves the embedded control plane to another Kubernetes release, newer or
# older, and leaves a module that builds:
#
#   hack/update-kubernetes.sh v1.37.2
#   hack/update-kubernetes.sh v1.38.0-beta.0    # pre-releases too (staging modules v0.38.0-beta.0)
#
# 0. Toolchain. A release may need a newer Go than the one running (the `go`
#    line of its go.mod: 1.38 needs 1.27). Then the script chooses a
#    toolchain for that release only and sets GOTOOLCHAIN for its own go
#    commands: $KUBE_GOTOOLCHAIN if set, else the target's `toolchain` line,
#    else the Go the release itself is built with (its .go-version), else its
#    `go` line. The module proxy serves toolchains (golang.org/toolchain).
#    The choice is written as go.mod's `toolchain` line, which the Makefile
#    and hack/versions pass as GOTOOLCHAIN to every later go command on the
#    moved checkout; a release the running Go can build gets no toolchain
#    line, so the default pin keeps building with the machine's Go.
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
#    upstream's test servers) is in package internal/kubecompat, which has
#    one template per supported minor, v1_MINOR.go.txt; the one for the
#    target's minor is installed as internal/kubecompat/kubecompat_generated.go.
#    A minor without a template is refused: supporting one means adding it.
# 4. go mod tidy; then the same block, toolchain and tidy for
#    examples/vendor-suite's go.mod (a module of its own that links the
#    control plane through this one).
# 5. With --decide (hack/update-kubernetes.sh --decide v1.38.0): the release
#    table of the new pin, derived where it is now linked (go generate
#    ./internal/contract/release, by hack/release-inventory -decide): every
#    gate, plugin and kubelet handler the table does not decide, every entry
#    it no longer has, and what changed from the previous pin with the
#    table's decision for each; exit 1 while anything is undecided. This
#    builds the release package against the new pin (minutes when cold).
#
# Running it twice with the same version changes nothing.
set -euo pipefail
decide=false
if [ "${1:-}" = --decide ]; then decide=true; shift; fi
[ $# -eq 1 ] || { echo "usage: hack/update-kubernetes.sh [--decide] vMAJOR.MINOR.PATCH[-alpha.N|-beta.N|-rc.N]" >&2; exit 2; }
version=$1
[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)(-(alpha|beta|rc)\.[0-9]+)?$ ]] || { echo "version must look like v1.36.3 or v1.38.0-beta.0, got $version" >&2; exit 2; }
minor=${BASH_REMATCH[1]}
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}${BASH_REMATCH[3]}"
unserved_list=""
cd "$(dirname "$0")/.."
# The Go the harness itself needs (README: Go >= 1.26): go.mod's go line never
# goes below it, whichever release it moves to.
harness_go=1.26.0

compat_dir=internal/kubecompat
compat_template="$compat_dir/v1_${minor}.go.txt"
compat_out="$compat_dir/kubecompat_generated.go"
if [ ! -f "$compat_template" ]; then
  supported=$(cd "$compat_dir" && ls v1_*.go.txt | sed 's/^v1_\([0-9]*\)\.go\.txt$/1.\1/' | sort -t. -k2 -n | paste -sd' ')
  echo "Kubernetes 1.$minor is not supported (templates for: $supported)." >&2
  echo "To support it, add $compat_template: copy the nearest minor's template and follow the compiler." >&2
  exit 2
fi

# The target's go.mod, and the Go version its own build uses (.go-version).
# Outside this module, so that our go.mod cannot get in the way. A Go older
# than the release needs fetches the module (go.mod and zip) but reports an
# error and does not extract it: the zip is read instead.
kube_json=$(cd / && go mod download -json "k8s.io/kubernetes@$version" 2>&1) || true
field() { sed -n "s/.*\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" <<<"$kube_json" | head -n1; }
gomod=$(field GoMod)
[ -n "$gomod" ] && [ -f "$gomod" ] || { echo "could not download k8s.io/kubernetes@$version: $kube_json" >&2; exit 1; }
kube_go_version=""
if [ -n "$(field Dir)" ] && [ -f "$(field Dir)/.go-version" ]; then
  kube_go_version=$(tr -d '[:space:]' <"$(field Dir)/.go-version")
elif [ -n "$(field Zip)" ] && [ -f "$(field Zip)" ] && command -v unzip >/dev/null; then
  kube_go_version=$(unzip -p "$(field Zip)" "k8s.io/kubernetes@$version/.go-version" 2>/dev/null | tr -d '[:space:]') || kube_go_version=""
fi
[[ $kube_go_version =~ ^1\.[0-9]+(\.[0-9]+)?$ ]] || kube_go_version=""

# 0. Toolchain. vercmp A B: true if Go version A >= B (1.27 == 1.27.0).
vercmp() {
  local IFS=.
  local -a a=($1) b=($2)
  local i
  for i in 0 1 2; do
    if ((${a[i]:-0} != ${b[i]:-0})); then ((${a[i]:-0} > ${b[i]:-0})); return; fi
  done
  return 0
}
target_go=$(awk '$1 == "go" {print $2; exit}' "$gomod")
target_toolchain=$(awk '$1 == "toolchain" {sub(/^go/, "", $2); print $2; exit}' "$gomod")
need_go=$target_go
[ -z "$target_toolchain" ] || ! vercmp "$target_toolchain" "$need_go" || need_go=$target_toolchain
running_go=$(GOTOOLCHAIN=local go env GOVERSION | sed 's/^go//; s/[^0-9.].*$//')
go_line=$harness_go
vercmp "$go_line" "$target_go" || go_line=$target_go
toolchain=""
if [ -n "${KUBE_GOTOOLCHAIN:-}" ]; then
  toolchain=$KUBE_GOTOOLCHAIN
elif ! vercmp "$running_go" "$need_go"; then
  if [ -n "$target_toolchain" ]; then
    toolchain=go$target_toolchain
  elif [ -n "$kube_go_version" ] && vercmp "$kube_go_version" "$need_go"; then
    toolchain=go$kube_go_version
  else
    toolchain=go$need_go
  fi
fi
if [ -n "$toolchain" ]; then
  [[ $toolchain =~ ^go1\.[0-9]+(\.[0-9]+)?$ ]] || { echo "KUBE_GOTOOLCHAIN must look like go1.27.4, got $toolchain" >&2; exit 2; }
  export GOTOOLCHAIN=$toolchain
  GOTOOLCHAIN=$toolchain go version >/dev/null || { echo "toolchain $toolchain (Kubernetes $version needs Go >= $need_go, this is Go $running_go) could not be fetched through the module proxy" >&2; exit 1; }
  echo "Kubernetes $version needs Go >= $need_go; this is Go $running_go: using $toolchain (GOTOOLCHAIN) for this release's go commands"
fi

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

# Staging modules the module proxy does not serve at the release's version:
# a new staging module of a pre-release can be required by every other one
# before it is published (1.38.0-beta.0: k8s.io/apiextensions-api and
# k8s.io/ktesting). Nothing that imports them can be built; with
# KUBE_UNSERVED=standin the move goes on with an empty module standing
# in for each (go.mod only, in $stub_dir), so that what does not import them
# (the release table: internal/contract/release) builds and tests, and a
# build that needs one fails naming it. Without it the script refuses.
stub_dir=_output/kube-stubs
# shellcheck disable=SC2046
(cd / && go mod download -json $(sed "s/\$/@$staging/" "$tmp/new-staging")) >"$tmp/staging.json" 2>/dev/null || true
awk -F'"' '/^\t"Path": / {path = $4} /^\t"Error": / {print path}' "$tmp/staging.json" | sort -u >"$tmp/unserved"
rm -rf "$stub_dir"
if [ -s "$tmp/unserved" ]; then
  unserved_list=$(sed "s/\$/ $staging/" "$tmp/unserved" | paste -sd, - | sed 's/,/, /g')
  if [ "${KUBE_UNSERVED:-}" != standin ]; then
    echo "Kubernetes $version cannot be built here: the module proxy does not serve its staging module(s) $unserved_list. KUBE_UNSERVED=standin moves anyway with empty stand-ins (the release table builds; the harness does not)." >&2
    exit 1
  fi
  while read -r mod; do
    mkdir -p "$stub_dir/$mod"
    printf '// An empty stand-in for %s %s, which the module proxy does not\n// serve (hack/update-kubernetes.sh, KUBE_UNSERVED=standin).\nmodule %s\n\ngo %s\n' "$mod" "$staging" "$mod" "$target_go" >"$stub_dir/$mod/go.mod"
  done <"$tmp/unserved"
  echo "warning: the module proxy does not serve $unserved_list: each is an empty module in $stub_dir, and nothing importing it builds" >&2
fi

# 1. The replace block, in place (appended when go.mod has none yet).
{
  echo "// BEGIN kubernetes staging replaces (hack/update-kubernetes.sh $version)"
  echo "replace ("
  while read -r mod; do
    if grep -qx "$mod" "$tmp/unserved"; then
      printf '\t%s => ./%s/%s\n' "$mod" "$stub_dir" "$mod"
    else
      printf '\t%s => %s %s\n' "$mod" "$mod" "$staging"
    fi
  done <"$tmp/new-staging"
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
# The go line is the harness's own minimum or the target's, whichever is
# higher (tidy raises it further only where a requirement needs it); the
# toolchain line is the one chosen above, or none.
go mod edit -go="$go_line" -toolchain=none

# 3. Version-specific code.
{
  echo "// Code generated by hack/update-kubernetes.sh for v1.$minor from $compat_template. DO NOT EDIT."
  echo ""
  cat "$compat_template"
} >"$compat_out"

# 4. Tidy, then the toolchain line (tidy leaves one above the go line alone).
# With stand-ins, the packages importing them cannot be found: tidy -e keeps
# going. A module our packages need that the proxy does not serve at the
# version the graph selects (1.38.0-beta.0: sigs.k8s.io/structured-merge-diff/v7
# v7.0.1) is then replaced by the newest version the proxy serves below it,
# in the same block.
if [ -s "$tmp/unserved" ]; then
  go mod tidy -e 2>"$tmp/tidy.log" || true
  # The modules (not replaced) providing the packages that cannot be loaded.
  go list -e -deps -f '{{if .Error}}{{.ImportPath}}{{end}}' ./... 2>/dev/null | sort -u >"$tmp/broken" || true
  go list -e -m -f '{{if not .Replace}}{{.Path}} {{.Version}}{{end}}' all 2>/dev/null >"$tmp/modules" || true
  awk 'NR == FNR { if (NF == 2) ver[$1] = $2; next }
    { best = ""; for (m in ver) if (($0 == m || index($0, m "/") == 1) && length(m) > length(best)) best = m
      if (best != "") print best "@" ver[best] }' "$tmp/modules" "$tmp/broken" | sort -u >"$tmp/needed"
  # shellcheck disable=SC2046
  [ ! -s "$tmp/needed" ] || (cd / && go mod download -json $(cat "$tmp/needed")) >"$tmp/needed.json" 2>/dev/null || true
  touch "$tmp/needed.json"
  : >"$tmp/older"
  older_list=""
  while read -r mod ver; do
    latest=$( (cd / && go mod download -json "$mod@latest" 2>/dev/null || true) | awk -F'"' '/^\t"Version": / {v = $4} /^\t"Error": / {v = ""} END {print v}')
    if [ -z "$latest" ] || [ "$latest" = "$ver" ] || [ "$(printf '%s\n%s\n' "$latest" "$ver" | sort -V | tail -n1)" != "$ver" ]; then
      echo "warning: the module proxy does not serve $mod $ver, nor an older version of it: nothing importing it builds" >&2
      unserved_list+=", $mod $ver"
      continue
    fi
    printf '\t%s => %s %s\n' "$mod" "$mod" "$latest" >>"$tmp/older"
    older_list+="${older_list:+, }$mod $ver (as $latest)"
    unserved_list+=", $mod $ver (as $latest)"
  done < <(awk -F'"' '/^\t"Path": / {path = $4} /^\t"Version": / {ver = $4} /^\t"Error": / {print path, ver}' "$tmp/needed.json" | sort -u)
  if [ -s "$tmp/older" ]; then
    awk -v older="$tmp/older" '
      /^\/\/ BEGIN kubernetes staging replaces/ { inblock = 1 }
      inblock && /^\)$/ { while ((getline line < older) > 0) print line; inblock = 0 }
      { print }
    ' go.mod >"$tmp/go.mod"
    cat "$tmp/go.mod" >go.mod
    echo "warning: the module proxy does not serve $older_list: replaced by those older versions" >&2
    go mod tidy -e 2>"$tmp/tidy.log" || true
  fi
  echo "warning: go mod tidy -e: $(grep -c 'finding module for package\|does not contain package' "$tmp/tidy.log") package(s) of the stand-ins cannot be found" >&2
else
  go mod tidy
fi
if [ -n "$toolchain" ]; then
  go mod edit -toolchain="$toolchain"
fi
# 4b. The vendor suite example (examples/vendor-suite: a module of its own
#    that replaces this one with ../..) links the control plane too, and
#    replaces apply only in the main module: it gets go.mod's block as it is
#    now (stand-in paths made relative to it) and the toolchain line; its
#    requirements are rebuilt from its one direct requirement, on this
#    module, so tidy takes every other version from this module's graph.
example=examples/vendor-suite
if [ -f "$example/go.mod" ]; then
  sed -n '/^\/\/ BEGIN kubernetes staging replaces/,/^\/\/ END kubernetes staging replaces/p' go.mod |
    sed "s#=> ./$stub_dir/#=> ../../$stub_dir/#" >"$tmp/example-block"
  awk -v block="$tmp/example-block" '
    /^\/\/ BEGIN kubernetes staging replaces/ { while ((getline line < block) > 0) print line; skip = 1; next }
    skip && /^\/\/ END kubernetes staging replaces/ { skip = 0; next }
    /^require[ \t]*\($/ { req = 1; next }
    req { if (/^\)/) req = 0; next }
    /^require / || /^toolchain / { next }
    !skip { print }
  ' "$example/go.mod" | cat -s >"$tmp/example.mod"
  cat "$tmp/example.mod" >"$example/go.mod"
  (
    cd "$example"
    go mod edit -require=github.com/admission-conformance/admission-conformance@v0.0.0-00010101000000-000000000000
    if [ -n "$toolchain" ]; then go mod edit -toolchain="$toolchain"; fi
    if [ -s "$tmp/unserved" ]; then go mod tidy -e 2>/dev/null || true; else go mod tidy; fi
  )
fi
echo "pinned k8s.io/kubernetes $version: $(wc -l <"$tmp/new-staging") staging replaces at $staging${unserved_list:+ (stand-ins: $unserved_list)}, $compat_out from $compat_template${toolchain:+, toolchain $toolchain}"

# 5. What the release table must decide.
if $decide; then
  echo "deriving the release table of $version (go run ./hack/release-inventory -decide)"
  go run ./hack/release-inventory -decide
fi
