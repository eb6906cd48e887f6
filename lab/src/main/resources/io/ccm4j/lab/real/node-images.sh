#!/bin/sh
# The nodes' two images, written without a registry as docker-archive tarballs of one layer each, from
# Debian's busybox-static: registry.k8s.io/pause:3.10 (the sandbox image containerd is configured with; a
# shell that sleeps until told to stop), ccm4j.local/busybox:lab (the pods' HTTP server) and
# ccm4j.local/cni:lab (the lab's CNI agent: busybox, the control plane's kubectl and cni-agent.sh from this
# directory, a second layer); and, for each
# further tag, a stand-in: a container that sleeps whatever its arguments (the lab runs the CCM of such a pod in
# its own process, with the pod's arguments).
# Arguments: <directory of the tarballs> [<stand-in tag>...]
set -eu
out=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rootfs/bin" "$work/rootfs/tmp" "$work/rootfs/etc" "$out"
cp /bin/busybox "$work/rootfs/bin/busybox"
for applet in sh sleep httpd wget cat echo hostname ls mkdir; do ln -s busybox "$work/rootfs/bin/$applet"; done
echo 'root:x:0:0:root:/:/bin/sh' > "$work/rootfs/etc/passwd"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/rootfs" -cf "$work/layer.tar" .
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
image() { # <tag> <file> <entrypoint JSON> [<second layer tarball>]
  mkdir -p "$work/$2"
  cp "$work/layer.tar" "$work/$2/layer.tar"
  layers='"layer.tar"' diff_ids="\"sha256:$diff_id\""
  if [ $# -ge 4 ]; then
    cp "$4" "$work/$2/layer2.tar"
    layers="$layers,\"layer2.tar\"" diff_ids="$diff_ids,\"sha256:$(sha256sum "$4" | cut -d' ' -f1)\""
  fi
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":[%s]}}' \
    "$3" "$diff_ids" > "$work/$2/config.json"
  printf '[{"Config":"config.json","RepoTags":["%s"],"Layers":[%s]}]' "$1" "$layers" > "$work/$2/manifest.json"
  (cd "$work/$2" && tar -cf "$out/$2.tar" manifest.json config.json layer.tar $([ $# -ge 4 ] && echo layer2.tar))
}
image registry.k8s.io/pause:3.10 pause '["/bin/sh","-c","trap \"exit 0\" TERM INT; while :; do sleep 3600 & wait $!; done"]'
image ccm4j.local/busybox:lab busybox '["/bin/sh"]'
mkdir -p "$work/cni/bin"
cp "$(command -v kubectl)" "$work/cni/bin/kubectl"
cp "$(dirname "$0")/cni-agent.sh" "$work/cni/bin/ccm4j-lab-cni"
chmod 755 "$work/cni/bin/kubectl" "$work/cni/bin/ccm4j-lab-cni"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/cni" -cf "$work/cni-layer.tar" .
image ccm4j.local/cni:lab cni '["/bin/ccm4j-lab-cni"]' "$work/cni-layer.tar"
n=0
for tag in "$@"; do
  n=$((n + 1))
  image "$tag" "stand-in-$n" '["/bin/sh","-c","trap \"exit 0\" TERM INT; while :; do sleep 3600 & wait $!; done","stand-in"]'
done
