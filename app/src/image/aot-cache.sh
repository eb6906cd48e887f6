#!/usr/bin/env bash
# Builds the container image's AOT cache (the JDK's class-data archive with classes loaded and linked,
# JDK 24 and newer): the image without it (IMAGE_TAR, built by Jib just before) is unpacked, its
# entrypoint runs ccm4j with the image's own Java runtime, JVM options and class path (moved under the
# unpacked root: the JVM accepts a class path moved as a whole) against an API server that does not
# answer, until its informers have started, and the cache it writes as it exits goes to
# OUTPUT_DIR/ccm4j.aot, which Jib puts at /app/ccm4j.aot. OUTPUT_DIR/ccm4j-aot.jvmoptions, the argument
# file the entrypoint names, holds -XX:AOTCache=/app/ccm4j.aot; with a runtime that makes no AOT cache
# (before JDK 24, which would not know the option either) it holds none, and the image starts without.
#   aot-cache.sh IMAGE_TAR OUTPUT_DIR [SKIP: true when Jib is skipped]
set -euo pipefail
image=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
if [ "${3:-false}" = true ] || [ ! -f "$image" ]; then
  echo "aot-cache: no image built (Jib skipped): no AOT cache" >&2
  exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ccm4j-aot.XXXXXX")
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"
tar -xf "$image" -C "$work" manifest.json config.json
for layer in $(grep -o '[0-9a-f]*\.tar\.gz' "$work/manifest.json"); do
  tar -xOf "$image" "$layer" | tar -xz --warning=no-unknown-keyword -C "$root"
done
java="$root/opt/java/bin/java"
echo "# The image's AOT cache (app/src/image/aot-cache.sh)." > "$out/ccm4j-aot.jvmoptions"
if ! "$java" -XX:AOTCacheOutput=/dev/null -version >/dev/null 2>&1; then
  echo "aot-cache: the image's Java runtime makes no AOT cache (JDK 24 or newer does): none" >&2
  exit 0
fi
# The entrypoint's JVM options (java … -cp @/app/jib-classpath-file <main class>), but the cache's.
options=$(sed -n 's/.*"Entrypoint":\[\([^]]*\)\].*/\1/p' "$work/config.json" | tr ',' '\n' | tr -d '"' |
  grep -e '^-XX:' | grep -v -e '^-XX:AOTCache=' || true)
classpath=$(sed "s#\(^\|:\)/app/#\1$root/app/#g" "$root/app/jib-classpath-file")
main=$(cat "$root/app/jib-main-class-file")
# The API server it is pointed at is its own serving port: it answers no Kubernetes request, but the client's
# TLS handshake, HTTP exchange and error handling run as against a real one, and their classes go into the
# cache (without them, some 1,700 classes of a start load from the jars). A free port of the ephemeral range.
port=
for candidate in $(seq 47000 47999 | shuf -n 50); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
    port=$candidate
    break
  fi
done
port=${port:-9}
cat > "$work/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: training, cluster: {server: "https://127.0.0.1:$port", insecure-skip-tls-verify: true}}]
users: [{name: training, user: {token: training}}]
contexts: [{name: training, context: {cluster: training, user: training}}]
current-context: training
KUBECONFIG
echo 'instances: []' > "$work/sim.yaml"
started=$(date +%s)
# shellcheck disable=SC2086 # the options are words
"$java" $options "@$root/app/resources/ccm4j-run.jvmoptions" -XX:AOTCacheOutput="$out/ccm4j.aot" \
  -Xlog:aot=warning -cp "$classpath" "$main" run --cloud-provider=sim --cloud-config="$work/sim.yaml" \
  --kubeconfig="$work/kubeconfig" --controllers=cloud-node --leader-elect=false \
  --bind-address=127.0.0.1 --secure-port="$port" >"$work/training.log" 2>&1 &
pid=$!
# Trained once the informers' lists have failed (the classes loaded beside the start have a second more);
# then it exits and writes.
for _ in $(seq 1 600); do
  grep -q 'listSyncAndWatch failed' "$work/training.log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
sleep 1
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" || true
pid=
if [ ! -s "$out/ccm4j.aot" ]; then
  echo "aot-cache: the training run wrote no AOT cache; its output:" >&2
  tail -20 "$work/training.log" >&2
  exit 1
fi
echo "-XX:AOTCache=/app/ccm4j.aot" >> "$out/ccm4j-aot.jvmoptions"
[ -z "${CCM4J_AOT_TRAINING_LOG:-}" ] || cp "$work/training.log" "$CCM4J_AOT_TRAINING_LOG"
echo "aot-cache: $(du -h "$out/ccm4j.aot" | cut -f1) in $out/ccm4j.aot, trained in $(( $(date +%s) - started )) s" >&2
