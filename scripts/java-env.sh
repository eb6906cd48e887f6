# Sourced by ./ccm4j, scripts/test and .ci/run: selects a JDK of at least version 21 as JAVA_HOME.
# ccm4j targets Java 21; any newer JDK builds and runs it (compiled with --release 21).
# The JDK's specification version (21, 25, ... or 1.8): from its release file, as every JDK since 9 has
# one (JAVA_VERSION="25.0.3"), which is read in a millisecond where starting java to ask takes a fifth
# of a second of every ./ccm4j command; asked of java only when there is none.
ccm4j_java_version() {
  local version
  if [ -f "$1/release" ]; then
    version=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9.]*\).*/\1/p' "$1/release")
    case "$version" in
      1.*) version=$(printf '%s' "$version" | cut -d. -f1,2) ;;
      *) version=${version%%.*} ;;
    esac
  fi
  if [ -z "$version" ]; then
    version=$("$1/bin/java" -XshowSettings:properties -version 2>&1 |
      sed -n 's/^ *java.specification.version = //p')
  fi
  printf '%s\n' "$version"
}

ccm4j_select_jdk() {
  local candidate version
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/javac" ] || continue
    version=$(ccm4j_java_version "$candidate")
    if [ -n "$version" ] && [ "${version%%.*}" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$candidate"
      export CCM4J_JAVA_FEATURE="${version%%.*}" # its feature release: 21, 25, ...
      return 0
    fi
  done
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null && [ -z "${CCM4J_NO_JDK_INSTALL:-}" ]; then
    # Debian 13 and Ubuntu 24.04 package JDK 21; Debian 12 does not (use Temurin there).
    if apt-get install -y -qq openjdk-21-jdk-headless >&2 2>/dev/null \
      || { apt-get update -qq >&2 && apt-get install -y -qq openjdk-21-jdk-headless >&2; }; then
      CCM4J_NO_JDK_INSTALL=1 ccm4j_select_jdk
      return
    fi
  fi
  echo "ccm4j needs a JDK 21 or newer; none found in \$JAVA_HOME or /usr/lib/jvm." >&2
  echo "Install one (for example the package openjdk-21-jdk, or Temurin) and run this again." >&2
  return 1
}

ccm4j_select_jdk
