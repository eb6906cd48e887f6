#!/bin/sh
# One real node of the lab: run by `unshare --net --mount --pid --fork --propagation private` as the first
# process of the node's own network, mount and PID namespaces. It waits for its eth0 (the lab creates a veth
# pair from the cluster network's bridge to this namespace: an `ip link ... netns <PID>` needs this process's PID
# as this machine sees it, which only the lab knows), takes its address, hides /run, /var/lib and /var/log behind tmpfs mounts of its own (the kubelet and containerd 1.6 use
# fixed paths there) and /etc behind an overlay (the CNI configuration), mounts its own /proc, creates the node's cgroup root, starts containerd, imports the
# images and starts the kubelet and kube-proxy. It lives until standard input closes (the lab ends, or dies): then the kernel
# kills every process of the PID namespace (kubelet, containerd, shims, containers) and the namespaces, with
# their mounts and links, go. Left on the machine: the empty cgroups, which the lab removes.
# Arguments: <node name> <node IP> <node directory> <lab directory>
set -eu
name=$1 ip=$2 dir=$3 lab=$4
echo started
i=0
until ip link show eth0 >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -lt 300 ] || { echo "no eth0 after 30 s"; exit 1; }
  sleep 0.1
done
ip link set lo up
ip addr add "$ip/24" dev eth0
ip link set eth0 up
ip route add default via 10.77.0.1
# Pods keep their addresses inside the cluster CIDR (pod to pod across nodes, through the cloud's routes) and
# leave it under the node's address, as ip-masq-agent does; the CNI's bridge masquerades nothing.
iptables -t nat -A POSTROUTING -s 10.244.0.0/16 ! -d 10.244.0.0/16 -m comment --comment "ccm4j-lab: pods leave the cluster CIDR as the node" -j MASQUERADE
# The API server on the node's own loopback too, for host-network pods (the serving certificate names
# 127.0.0.1; the `kubernetes` Service's ClusterIP would need kube-proxy).
socat TCP-LISTEN:6443,bind=127.0.0.1,fork,reuseaddr TCP:10.77.0.1:6443 2>>"$dir/relay.log" &
# Before /proc is this namespace's own: the cgroup root of the node's pods, in every hierarchy.
for hierarchy in /sys/fs/cgroup/*/; do
  [ -d "$hierarchy" ] || continue
  mkdir -p "$hierarchy/ccm4j-lab-$name"
  if [ -f "$hierarchy/cpuset.cpus" ]; then
    cat "$hierarchy/cpuset.cpus" > "$hierarchy/ccm4j-lab-$name/cpuset.cpus"
    cat "$hierarchy/cpuset.mems" > "$hierarchy/ccm4j-lab-$name/cpuset.mems"
  fi
done
mount -t proc proc /proc
hostname "$name"
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=755 tmpfs /var/lib
mount -t tmpfs -o mode=755 tmpfs /var/log
# The node's own /etc: an overlay whose changes (the CNI agent's /etc/cni/net.d) stay in the node's directory,
# where the lab reads them; this machine's /etc is never written.
mkdir -p "$dir/etc" "$dir/etc-work"
mount -t overlay overlay -o lowerdir=/etc,upperdir="$dir/etc",workdir="$dir/etc-work" /etc
mkdir -p /etc/cni/net.d
mkdir -p /run/containerd /var/lib/kubelet /var/log/pods /var/log/containers "$dir/pods"
# The pods' logs stay in the node's directory for reading (a bind mount in the node's own mount namespace).
mount --bind "$dir/pods" /var/log/pods
containerd --config "$dir/containerd.toml" >"$dir/containerd.log" 2>&1 &
i=0
until ctr --address /run/containerd/containerd.sock version >/dev/null 2>&1; do
  i=$((i + 1)); [ "$i" -lt 300 ] || { echo "containerd did not start; see $dir/containerd.log"; exit 1; }
  sleep 0.1
done
for image in "$lab"/images/*.tar; do
  ctr --address /run/containerd/containerd.sock -n k8s.io images import --no-unpack "$image" >>"$dir/containerd.log" 2>&1
done
kubelet --config="$dir/kubelet.yaml" --kubeconfig="$dir/kubeconfig" --cloud-provider=external \
  --hostname-override="$name" --node-ip="$ip" --root-dir=/var/lib/kubelet ${KUBELET_EXTRA_ARGS:-} \
  --v=1 >"$dir/kubelet.log" 2>&1 &
# kube-proxy of the same release, iptables mode, in this network namespace only; it leaves the conntrack
# table's size (host-wide) as it is and its own OOM score as it is (root here may lack CAP_SYS_RESOURCE).
kube-proxy --kubeconfig="$dir/kubeconfig" --hostname-override="$name" --proxy-mode=iptables \
  --cluster-cidr=10.244.0.0/16 --nodeport-addresses=primary --conntrack-max-per-core=0 --oom-score-adj=0 \
  --v=1 >"$dir/kube-proxy.log" 2>&1 &
echo ready
cat >/dev/null
