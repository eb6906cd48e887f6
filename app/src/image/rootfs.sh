#!/usr/bin/env bash
# Builds the bottom layer of ccm4j's container image: a Java runtime cut by jlink to the modules ccm4j
# uses, the C libraries that runtime links (taken from this machine, found with ldd), and the few files
# a container expects (/etc/passwd, /tmp). Jib puts it under the application layers on an empty
# ("scratch") base, so the image needs no registry to build. Usage: rootfs.sh JAVA_HOME OUTPUT_DIR
# It also leaves OUTPUT_DIR/../image-aot empty: aot-cache.sh fills it once the image without it is built.
set -euo pipefail
java_home=$1
out=$2
# jdeps --print-module-deps --recursive over ccm4j's class path, plus what is loaded reflectively:
# TLS with EC keys (jdk.crypto.ec), DNS lookups through JNDI (jdk.naming.dns), zip file systems.
modules=java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml
modules=$modules,jdk.crypto.ec,jdk.httpserver,jdk.management,jdk.naming.dns,jdk.unsupported,jdk.zipfs

rm -rf "$out" "$out/../image-aot"
mkdir -p "$out/opt" "$out/etc" "$out/tmp" "$out/../image-aot"
if ! "$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --output "$out/opt/java" >&2; then
  # A JDK without jmods (Debian's openjdk packages ship them separately, in openjdk-NN-jmods) cannot
  # link: take the whole runtime instead, without what only builds need.
  echo "rootfs: jlink failed; copying the JDK's runtime from $java_home instead" >&2
  rm -rf "$out/opt/java"
  mkdir -p "$out/opt/java"
  cp -aL "$java_home/bin" "$java_home/lib" "$java_home/conf" "$out/opt/java/" 2>/dev/null ||
    cp -aL "$java_home/bin" "$java_home/lib" "$out/opt/java/"
  rm -rf "$out/opt/java/lib/src.zip" "$out/opt/java/lib/ct.sym"
fi

# Every shared library the runtime's binaries and libraries need, at the path the loader looks for it;
# not those of AWT, fonts and sound (java.desktop is there for java.beans; ccm4j runs headless).
find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) \
  -not -regex '.*/lib\(awt_xawt\|jawt\|jsound\|splashscreen\|fontmanager\|lcms\|javajpeg\|mlib_image\)\.so' -print0 |
  { xargs -0 ldd 2>/dev/null || true; } | # ldd fails on files that are not dynamic executables
  grep -oE '(/[^ ]+\.so[^ ]*)' |
  grep -v "^$out" | sort -u |
  while read -r lib; do
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
  done

cat > "$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat > "$out/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
echo "hosts: files dns" > "$out/etc/nsswitch.conf"
echo "rootfs: $(du -sh "$out" | cut -f1) in $out" >&2
