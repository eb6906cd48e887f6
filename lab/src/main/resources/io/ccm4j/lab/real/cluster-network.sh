#!/bin/sh
# The lab's cluster network: run by `unshare --net --pid --fork` as the first process of a network and a PID
# namespace of the lab's own. A bridge (10.77.0.1/24) joins the nodes' veths; the API server, which listens on
# this machine's loopback, is reached at 10.77.0.1:6443 through two socat relays joined by a Unix socket in the
# lab's directory (one relay listens here, the other runs in the lab's own network namespace and connects to the
# loopback). Everything lives until standard input closes (the lab ends, or dies): then this process exits, and
# the kernel kills the rest of the PID namespace and removes the network namespace with its bridge and veths.
# Arguments: <lab directory> <API server port on the loopback> <a PID in the lab's network namespace>
set -eu
dir=$1 port=$2 lab_pid=$3
ip link set lo up
ip link add br0 type bridge
ip addr add 10.77.0.1/24 dev br0
ip link set br0 up
# The cloud's router: the routes of the nodes' pod CIDRs (the lab programs them from the cloud's route table)
# lead packets from one node to another through this namespace. This namespace's own flag, not the machine's.
sysctl -qw net.ipv4.ip_forward=1
nsenter --net="/proc/$lab_pid/ns/net" \
  socat UNIX-LISTEN:"$dir/apiserver.sock",fork,unlink-early TCP:127.0.0.1:"$port" 2>>"$dir/relay.log" &
socat TCP-LISTEN:6443,bind=10.77.0.1,fork,reuseaddr UNIX-CONNECT:"$dir/apiserver.sock" 2>>"$dir/relay.log" &
echo ready
cat >/dev/null
