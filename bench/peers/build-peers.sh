#!/usr/bin/env bash
# Builds the node-init benchmark's Go peers (node-init-floor, sim-cloud-controller-manager) against
# the Kubernetes release the benchmark's control plane runs, and caches them in
# ~/.cache/ccm4j/peers-k8s-<version>-<hash of the sources>/. Prints that directory on its last line.
#   bench/peers/build-peers.sh 1.37.2
# go.mod pins the k8s.io modules of the project's pinned release; for another release the sources are
# copied to a temporary module whose k8s.io requirements are moved to that release's v0.<minor>.<patch>.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${1:?usage: build-peers.sh <Kubernetes version, such as 1.37.2>}"
version="${version#v}"
staging="v0.${version#*.}"
cache="${CCM4J_CACHE:-$HOME/.cache/ccm4j}"
hash=$(cd "$here" && cat go.mod go.sum $(find simcloud cmd -name '*.go' | sort) | sha256sum | cut -c1-12)
out="$cache/peers-k8s-$version-$hash"
if [ -x "$out/sim-cloud-controller-manager" ] && [ -x "$out/node-init-floor" ]; then
  echo "peers: Kubernetes v$version peers from the cache: $out" >&2
  echo "$out"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "peers: building the Go peers needs Go (1.26 or newer) and the Go module proxy" >&2
  exit 3
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ccm4j-peers.XXXXXX")
trap 'rm -rf "$work" "$out.partial"' EXIT
cp -r "$here/go.mod" "$here/go.sum" "$here/simcloud" "$here/cmd" "$work/"
cd "$work"
if ! grep -q "k8s.io/cloud-provider $staging\$" go.mod; then
  echo "peers: moving the k8s.io modules to $staging" >&2
  go get "k8s.io/api@$staging" "k8s.io/apimachinery@$staging" "k8s.io/client-go@$staging" \
    "k8s.io/cloud-provider@$staging" "k8s.io/component-base@$staging" >&2
  go mod tidy >&2
fi
started=$(date +%s)
echo "peers: building the upstream cloud-controller-manager v$version and the client-go floor" >&2
mkdir -p "$out.partial"
go build -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=v$version" \
  -o "$out.partial/" ./cmd/... >&2
rm -rf "$out"
mv "$out.partial" "$out"
echo "peers: built in $(( $(date +%s) - started )) s: $out" >&2
echo "$out"
