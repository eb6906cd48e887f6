#!/bin/sh
# ccm4j-lab-cni: the lab's CNI agent, one per node (a DaemonSet on the host network that tolerates every taint, as
# CNIs are). It writes the node's CNI configuration (Debian's containernetworking-plugins: bridge with host-local
# addresses, portmap; containerd adds loopback; no masquerade: the node masquerades what leaves the cluster CIDR,
# so that pods reach each other across nodes by their own addresses) only once the CCM has initialised its Node, as real CNIs wait:
# a provider ID, no node.cloudprovider.kubernetes.io/uninitialized taint, an InternalIP address, and with
# POD_CIDR=node (the CCM allocates node CIDRs) a spec.podCIDR. Until then the kubelet reports "cni plugin not
# initialized" and the node stays NotReady, so a CCM pod without the host network never starts: the
# chicken-and-egg a CCM on the host network breaks.
# With POD_CIDR=from-node-ip (nobody allocates node CIDRs) the node's range is 10.244.<last octet of its
# InternalIP>.0/24.
# Environment: NODE_NAME (the pod's spec.nodeName), POD_CIDR (node | from-node-ip), CNI_CONF_DIR (default
# /host/etc/cni/net.d, the node's /etc/cni/net.d), CNI_AGENT_INTERVAL (seconds between checks, default 2),
# CNI_AGENT_ONCE=1 (check once: exit 0 when the configuration is written, 3 while waiting; for tests).
set -u
conf_dir=${CNI_CONF_DIR:-/host/etc/cni/net.d}
file=$conf_dir/10-ccm4j-lab.conflist
interval=${CNI_AGENT_INTERVAL:-2}
mode=${POD_CIDR:-node}
: "${NODE_NAME:?NODE_NAME is not set (the DaemonSet passes spec.nodeName)}"
case $mode in
  node | from-node-ip) ;;
  *) echo "POD_CIDR must be node or from-node-ip, not \"$mode\"" >&2; exit 2 ;;
esac
why_file=${TMPDIR:-/tmp}/ccm4j-lab-cni.$$
trap 'rm -f "$why_file"; exit 0' TERM INT

# The node's pod subnet on standard output once its network may start; else why not, on standard error.
subnet() {
  state=$(kubectl get node "$NODE_NAME" -o jsonpath='{.spec.providerID}{"|"}{.spec.podCIDR}{"|"}{.spec.taints[*].key}{"|"}{.status.addresses[?(@.type=="InternalIP")].address}' 2>&1) || {
    echo "cannot read Node $NODE_NAME: $state" >&2; return 1; }
  IFS='|' read -r provider cidr taints ips <<EOF
$state
EOF
  case " $taints " in
    *" node.cloudprovider.kubernetes.io/uninitialized "*)
      echo "waiting for the CCM: Node $NODE_NAME has the node.cloudprovider.kubernetes.io/uninitialized taint" >&2
      return 1 ;;
  esac
  [ -n "$provider" ] || { echo "waiting for the CCM: Node $NODE_NAME has no spec.providerID" >&2; return 1; }
  ip=${ips%% *}
  [ -n "$ip" ] || { echo "waiting for the CCM: Node $NODE_NAME has no InternalIP address" >&2; return 1; }
  if [ "$mode" = node ]; then
    [ -n "$cidr" ] || { echo "waiting for the CCM: Node $NODE_NAME has no spec.podCIDR (--allocate-node-cidrs)" >&2; return 1; }
    echo "$cidr"
  else
    echo "10.244.${ip##*.}.0/24"
  fi
}

conflist() {
  cat <<EOF
{
  "cniVersion": "1.0.0",
  "name": "ccm4j-lab",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "$1"}]], "routes": [{"dst": "0.0.0.0/0"}]}
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
}

written="" said=""
while :; do
  if now=$(subnet 2>"$why_file"); then
    if [ "$now" != "$written" ]; then
      mkdir -p "$conf_dir"
      conflist "$now" >"$file.tmp" && mv "$file.tmp" "$file"
      written=$now
      echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) wrote $file: pod subnet $now"
    fi
    [ "${CNI_AGENT_ONCE:-}" = 1 ] && { rm -f "$why_file"; exit 0; }
  else
    why=$(cat "$why_file")
    if [ "$why" != "$said" ]; then
      echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $why"
      said=$why
    fi
    [ "${CNI_AGENT_ONCE:-}" = 1 ] && { rm -f "$why_file"; exit 3; }
  fi
  sleep "$interval" &
  wait $!
done
