#!/usr/bin/env bash
# Pins k8s.io/kubernetes at the version given and rewrites the block of staging
# `replace` lines go.mod needs to import it (k8s.io/kubernetes' own go.mod points
# its staging modules at ./staging/src/..., which a module importing it cannot use).
#
#   hack/update-kubernetes.sh v1.36.3
#
# Modules without a release at the matching v0.X.Y (k8s.io/sample-*) are dropped.
set -euo pipefail
version=${1:?usage: hack/update-kubernetes.sh vMAJOR.MINOR.PATCH}
[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "version must look like v1.36.3, got $version" >&2; exit 2; }
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
cd "$(dirname "$0")/.."

gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
[ -f "$gomod" ] || { echo "could not download k8s.io/kubernetes@$version" >&2; exit 1; }

block=$(mktemp)
trap 'rm -f "$block"' EXIT
{
  echo "// BEGIN kubernetes staging replaces (hack/update-kubernetes.sh $version)"
  echo "replace ("
  grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/src/' "$gomod" | awk '{print $1}' | grep -v '^k8s.io/sample-' |
    while read -r mod; do printf '\t%s => %s %s\n' "$mod" "$mod" "$staging"; done
  echo ")"
  echo "// END kubernetes staging replaces"
} >"$block"

# Drop the old block, append the new one, then pin kubernetes itself.
awk '/^\/\/ BEGIN kubernetes staging replaces/{skip=1} !skip{print} /^\/\/ END kubernetes staging replaces/{skip=0}' go.mod >go.mod.new
cat "$block" >>go.mod.new
mv go.mod.new go.mod
go mod edit -require="k8s.io/kubernetes@$version"
echo "pinned k8s.io/kubernetes $version with $(grep -c '=>' "$block") staging replaces at $staging"
