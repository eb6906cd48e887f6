#!/usr/bin/env bash
# Installs what the lab's real nodes (`ccm4j lab --kubelets real`) run besides the kubelet: Debian's containerd,
# runc, containernetworking-plugins (bridge, host-local, loopback), busybox-static (the pods' HTTP server and the
# node images' shell) and socat (the nodes' way to the API server on this machine's loopback).
# Needs root and apt-get; says what it installs. Prints nothing and changes nothing
# when everything is there already. Nothing is started: the lab starts a containerd per node itself.
set -euo pipefail
PACKAGES=(containerd runc containernetworking-plugins busybox-static socat)
log() { echo "install-real-node-packages: $*" >&2; }

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

if [ "$(id -u)" -ne 0 ]; then
  log "real nodes need the Debian packages ${missing[*]}; run as root to install them, or: sudo apt-get install ${missing[*]}"
  exit 1
fi
command -v apt-get >/dev/null || { log "real nodes need ${missing[*]} and this machine has no apt-get"; exit 1; }

log "installing Debian's ${missing[*]} with apt-get (once)"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
  || { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; } \
  || { log "apt-get could not install ${missing[*]}"; exit 1; }
