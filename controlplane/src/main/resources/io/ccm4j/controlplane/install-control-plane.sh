#!/usr/bin/env bash
# Installs the control-plane binaries ccm4j's tests, lab and benchmarks run on: etcd, kube-apiserver,
# kube-scheduler, kube-controller-manager and kubectl. Prints the directory that holds them on its last line,
# and one line on standard error saying which Kubernetes that is and where it comes from.
#
# The version is pinned in control-plane.versions beside this script; CCM4J_KUBERNETES_VERSION selects
# another (for example 1.36.3, or 1.20.2 for Debian's source build). Order of preference:
#   1. $KUBEBUILDER_ASSETS, when it holds kube-apiserver and etcd (the envtest convention), whatever version;
#   2. the cache ($CCM4J_CACHE, default ~/.cache/ccm4j), k8s-<version>/bin, when an earlier run built it;
#   3. a build from Go modules: a throwaway module in the cache requires k8s.io/kubernetes v<version> and
#      replaces each staging module it lists at v0.0.0 with the published v0.<minor>.<patch>; etcd is built from
#      go.etcd.io/etcd/server/v3 at the version that Kubernetes release is tested with. Needs the Go that the
#      release's go.mod names (or newer) and the Go module proxy. Only what the cache lacks is built;
#   4. the last resort, on machines without such a Go: Kubernetes 1.20.2 built from Debian's `kubernetes` source
#      package, with a warning. (Why the json-iterator/reflect2 swap there: the vendored copies in the 1.20 tree,
#      built with Go 1.19, give an apiserver that panics on any JSON request carrying a map.)
#
# CCM4J_NODE_BINARIES=1 (the lab on real kubelets) also wants the node binaries of the same release, kubelet
# and kube-proxy, built the same way into the same directory; without it nothing is built for nodes, so the
# control plane's first build takes no longer. Debian's 1.20.2 fallback has no node binaries.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=control-plane.versions
. "$here/control-plane.versions"
PINNED_VERSION=$KUBERNETES_VERSION
K8S_VERSION=${CCM4J_KUBERNETES_VERSION:-$PINNED_VERSION}
K8S_VERSION=${K8S_VERSION#v}
CACHE="${CCM4J_CACHE:-$HOME/.cache/ccm4j}"
NEEDED=(etcd kube-apiserver kube-scheduler kube-controller-manager kubectl)
NODE_BINARIES=${CCM4J_NODE_BINARIES:-}
[ "$NODE_BINARIES" != 1 ] || NEEDED+=(kubelet kube-proxy)

log() { echo "install-control-plane: $*" >&2; }
die() { log "$*"; exit 1; }

case "$K8S_VERSION" in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) die "CCM4J_KUBERNETES_VERSION=$K8S_VERSION is not a release version such as $PINNED_VERSION" ;;
esac

have_all() {
  local dir=$1
  for b in "${NEEDED[@]}"; do [ -x "$dir/$b" ] || return 1; done
}

# "Kubernetes v1.37.2" -> v1.37.2
binary_version() { "$1/kube-apiserver" --version 2>/dev/null | awk '{print $2}'; }

# The one line that says what runs: printed whichever way the binaries were found.
announce() {
  local dir=$1 source=$2 version
  version=$(binary_version "$dir")
  log "Kubernetes ${version:-(unknown version)} from $source: $dir"
  case "$version" in
    v1.1[0-9].*|v1.2[0-9].*)
      log "WARNING: Kubernetes $version is old (users run 1.31 and newer); ccm4j is tested on v$PINNED_VERSION" ;;
  esac
  echo "$dir"
}

if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] && [ -x "$KUBEBUILDER_ASSETS/etcd" ] \
  && { [ "$NODE_BINARIES" != 1 ] || [ -x "$KUBEBUILDER_ASSETS/kubelet" ]; }; then
  announce "$KUBEBUILDER_ASSETS" "KUBEBUILDER_ASSETS"
  exit 0
fi

BIN="$CACHE/k8s-$K8S_VERSION/bin"
if have_all "$BIN"; then
  announce "$BIN" "the cache"
  exit 0
fi

# ---- 3. a build from Go modules -------------------------------------------------------------------------

# Prints why Go cannot build this version, or nothing when it can. Needs the module's go.mod first.
go_unusable() {
  local have need
  have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed 's/^go//')
  [ -n "$have" ] || { echo "go does not report its version"; return; }
  need=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$1" | head -n 1)
  if [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" != "$need" ]; then
    echo "Kubernetes $K8S_VERSION needs Go $need, this machine has Go $have"
  fi
}

build_from_go_modules() {
  local minor work kmod info commit etcd_version ldflags staging out started go_line missing=()
  for b in "${NEEDED[@]}"; do [ -x "$BIN/$b" ] || missing+=("$b"); done
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  work="$CACHE/build-k8s-$K8S_VERSION"
  out="$CACHE/k8s-$K8S_VERSION/bin.partial"
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
  started=$(date +%s)
  command -v go >/dev/null || { log "there is no go command on the PATH"; return 2; }

  info=$(cd /tmp && go mod download -json "k8s.io/kubernetes@v$K8S_VERSION") \
    || { log "the Go module proxy has no k8s.io/kubernetes v$K8S_VERSION"; return 2; }
  kmod=$(echo "$info" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p' | head -n 1)
  local ksrc
  ksrc=$(echo "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' | head -n 1)
  [ -f "$kmod" ] && [ -d "$ksrc" ] || { log "go mod download gave no go.mod for k8s.io/kubernetes"; return 2; }
  local why
  why=$(go_unusable "$kmod")
  if [ -n "$why" ]; then log "$why"; return 2; fi
  commit=$(echo "$info" | sed -n 's/^[[:space:]]*"Hash": "\([0-9a-f]*\)",*$/\1/p' | head -n 1)
  etcd_version=${CCM4J_ETCD_VERSION:-$(sed -n 's/^ETCD_VERSION=\${ETCD_VERSION:-\([0-9.]*\)}.*/\1/p' "$ksrc/hack/lib/etcd.sh")}
  [ -n "$etcd_version" ] || die "cannot read the etcd version from $ksrc/hack/lib/etcd.sh; set CCM4J_ETCD_VERSION"

  if [ -x "$BIN/kube-apiserver" ]; then
    log "building ${missing[*]} of Kubernetes v$K8S_VERSION from Go modules in $work (once; about a minute per binary on 2 cores)"
  else
    log "building Kubernetes v$K8S_VERSION and etcd v$etcd_version from Go modules in $work (once; about 8 minutes on 2 cores)"
  fi
  rm -rf "$work" "$out"
  mkdir -p "$work/kubernetes" "$work/etcd" "$out" || return 1

  # The throwaway module: k8s.io/kubernetes lists its staging modules at v0.0.0; each is published as v0.<minor>.<patch>.
  go_line=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$kmod" | head -n 1)
  {
    echo "module ccm4j.local/build/kubernetes"
    echo
    echo "go $go_line"
    echo
    echo "require k8s.io/kubernetes v$K8S_VERSION"
    echo
    for staging in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9.-]*\) v0\.0\.0$/\1/p' "$kmod" | sort -u); do
      echo "replace $staging => $staging v0.${K8S_VERSION#*.}"
    done
  } > "$work/kubernetes/go.mod"
  staging=$(grep -c '^replace ' "$work/kubernetes/go.mod")
  log "k8s.io/kubernetes v$K8S_VERSION: $staging staging modules replaced with v0.${K8S_VERSION#*.}"

  ldflags="-s -w"
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    ldflags+=" -X $pkg.gitVersion=v$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    [ -z "$commit" ] || ldflags+=" -X $pkg.gitCommit=$commit"
  done
  (
    cd "$work/kubernetes"
    for cmd in "${missing[@]}"; do
      [ "$cmd" != etcd ] || continue
      log "go build k8s.io/kubernetes/cmd/$cmd"
      go build -trimpath -ldflags "$ldflags" -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd" >&2 || exit 1
    done
  ) || return 1

  [ ! -x "$BIN/etcd" ] && (
    cd "$work/etcd"
    printf 'module ccm4j.local/build/etcd\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' \
      "$go_line" "$etcd_version" > go.mod || exit 1
    log "go build go.etcd.io/etcd/server/v3 (etcd v$etcd_version)"
    go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3 >&2 || exit 1
  ) || [ -x "$BIN/etcd" ] || return 1

  # What was built joins what the cache had: binaries appear whole (a rename) or not at all.
  mkdir -p "$BIN" || return 1
  for b in "$out"/*; do mv "$b" "$BIN/" || return 1; done
  rm -rf "$out"
  rm -rf "$work"
  log "built in $(( $(date +%s) - started )) s"
}

if [ "$K8S_VERSION" != "$FALLBACK_KUBERNETES_VERSION" ]; then
  status=0
  build_from_go_modules || status=$?
  if [ "$status" -eq 0 ]; then
    have_all "$BIN" || die "the build finished but binaries are missing in $BIN"
    announce "$BIN" "a build from Go modules"
    exit 0
  fi
  [ "$status" -eq 2 ] || die "building Kubernetes v$K8S_VERSION from Go modules failed; see the output above"
  [ "$NODE_BINARIES" != 1 ] || die "cannot build kubelet v$K8S_VERSION (CCM4J_NODE_BINARIES=1) from Go modules (see above)"
  if [ -n "${CCM4J_KUBERNETES_VERSION:-}" ]; then
    die "cannot build the Kubernetes v$K8S_VERSION that CCM4J_KUBERNETES_VERSION selects (see above)"
  fi
  log "WARNING: cannot build Kubernetes v$K8S_VERSION from Go modules (see above); falling back to Kubernetes" \
    "v$FALLBACK_KUBERNETES_VERSION from Debian's source package, which is old: loadBalancerClass, ipMode and" \
    "today's scheduler messages are missing there"
  K8S_VERSION=$FALLBACK_KUBERNETES_VERSION
  BIN="$CACHE/k8s-$K8S_VERSION/bin"
  if have_all "$BIN"; then
    announce "$BIN" "the cache"
    exit 0
  fi
fi

# ---- 4. the last resort: Kubernetes 1.20.2 from Debian's source package ----------------------------------

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
[ -n "$SRC" ] || die "apt-get source kubernetes produced no source tree"

for pkg in github.com/modern-go/reflect2 github.com/json-iterator/go; do
  rm -rf "$SRC/vendor/$pkg"
  mkdir -p "$SRC/vendor/$pkg"
  cp -a "/usr/share/gocode/src/$pkg/." "$SRC/vendor/$pkg/"
done

ln -s "$SRC" "$WORK/gopath/src/k8s.io/kubernetes"
(
  cd "$WORK/gopath/src/k8s.io/kubernetes"
  # Debian's Go 1.19 (/usr/lib/go) builds this tree; a newer Go on the PATH may not.
  export PATH="/usr/lib/go/bin:$PATH"
  export GO111MODULE=off GOPATH="$WORK/gopath" GOFLAGS="" GOCACHE="$WORK/gocache" GOTOOLCHAIN=local
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
have_all "$BIN" || die "build finished but binaries are missing in $BIN"
announce "$BIN" "Debian's source package"
