#!/usr/bin/env bash
# Installs the control-plane binaries ccm4j's tests and lab need: etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager and kubectl. Prints the directory that holds them on its last line.
#
# Order of preference (the envtest convention first):
#   1. $KUBEBUILDER_ASSETS, when it holds kube-apiserver and etcd;
#   2. the cache ($CCM4J_CACHE, default ~/.cache/ccm4j), when an earlier run built them;
#   3. a build from Debian's packages: etcd-server, golang-go and the `kubernetes` source package (v1.20.2).
#
# Why the json-iterator/reflect2 swap: the vendored copies in the 1.20 tree, built with Go 1.19, give an
# apiserver that panics on any JSON request carrying a map (a Node with labels). Debian's newer copies don't.
set -euo pipefail

K8S_VERSION=1.20.2
CACHE="${CCM4J_CACHE:-$HOME/.cache/ccm4j}"
BIN="$CACHE/k8s-$K8S_VERSION/bin"
NEEDED=(etcd kube-apiserver kube-scheduler kube-controller-manager kubectl)

log() { echo "install-control-plane: $*" >&2; }

have_all() {
  local dir=$1
  for b in "${NEEDED[@]}"; do [ -x "$dir/$b" ] || return 1; done
}

if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] && [ -x "$KUBEBUILDER_ASSETS/etcd" ]; then
  log "using KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi
if have_all "$BIN"; then
  log "using cached binaries in $BIN"
  echo "$BIN"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

log "building Kubernetes $K8S_VERSION control-plane binaries from Debian's source package (about 10 minutes)"
src_list=/etc/apt/sources.list.d/ccm4j-deb-src.sources
if ! apt-get source --print-uris kubernetes >/dev/null 2>&1; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    # A deb-src twin of every deb entry, so `apt-get source` finds the kubernetes source package.
    sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $SUDO tee "$src_list" >/dev/null
  else
    grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee /etc/apt/sources.list.d/ccm4j-deb-src.list >/dev/null
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends \
  etcd-server golang-go make gcc libc6-dev rsync dpkg-dev ca-certificates \
  golang-github-modern-go-reflect2-dev golang-github-json-iterator-go-dev >&2

WORK="$CACHE/build-$K8S_VERSION"
rm -rf "$WORK"
mkdir -p "$WORK/src" "$WORK/gopath/src/k8s.io"
(cd "$WORK/src" && apt-get source -qq kubernetes >&2)
SRC=$(find "$WORK/src" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n 1)
[ -n "$SRC" ] || { log "apt-get source kubernetes produced no source tree"; exit 1; }

for pkg in github.com/modern-go/reflect2 github.com/json-iterator/go; do
  rm -rf "$SRC/vendor/$pkg"
  mkdir -p "$SRC/vendor/$pkg"
  cp -a "/usr/share/gocode/src/$pkg/." "$SRC/vendor/$pkg/"
done

ln -s "$SRC" "$WORK/gopath/src/k8s.io/kubernetes"
(
  cd "$WORK/gopath/src/k8s.io/kubernetes"
  export GO111MODULE=off GOPATH="$WORK/gopath" GOFLAGS="" GOCACHE="$WORK/gocache"
  # KUBE_GIT_VERSION keeps the build from asking git for a version (the source package has no .git).
  export KUBE_GIT_VERSION="v$K8S_VERSION" KUBE_GIT_TREE_STATE=clean
  for what in cmd/kube-apiserver cmd/kube-scheduler cmd/kube-controller-manager cmd/kubectl; do
    log "make WHAT=$what"
    make WHAT="$what" >&2
  done
)
mkdir -p "$BIN"
OUT="$SRC/_output/local/bin/linux/amd64"
[ -d "$OUT" ] || OUT=$(dirname "$(find "$SRC/_output" -type f -name kube-apiserver | head -n 1)")
for b in kube-apiserver kube-scheduler kube-controller-manager kubectl; do
  install -m 0755 "$OUT/$b" "$BIN/$b"
done
ETCD=$(command -v etcd || true)
[ -n "$ETCD" ] || ETCD=/usr/bin/etcd
ln -sf "$ETCD" "$BIN/etcd"
rm -rf "$WORK"
have_all "$BIN" || { log "build finished but binaries are missing in $BIN"; exit 1; }
log "installed into $BIN"
echo "$BIN"
