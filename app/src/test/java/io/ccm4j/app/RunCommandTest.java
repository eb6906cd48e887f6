package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.tls.SelfSignedCertificate;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RunCommandTest {

  static Stream<Arguments> invalidFlags() {
    return Stream.of(
        Arguments.of(
            "unknown controller",
            List.of("--cloud-provider=fake", "--controllers=*,-route,bogus"),
            "--controllers: \"bogus\" is not in the list of known controllers"),
        Arguments.of(
            "missing provider",
            List.of(),
            "--cloud-provider cannot be empty: name your cloud (known: fake, faulty, kubevirt,"),
        Arguments.of(
            "the simulation without a cloud config",
            List.of("--cloud-provider=sim"),
            "--cloud-config: the sim cloud is a simulation and needs one"),
        Arguments.of(
            "a cloud config value of the wrong kind",
            List.of(
                "--cloud-provider=sim", "--cloud-config=src/test/resources/sim-wrong-type.yaml"),
            "field \"instances\": expected a list, got a whole number (3)"),
        Arguments.of(
            "a cloud config that is no YAML: SnakeYAML's lines of quoted text left out",
            List.of("--cloud-provider=sim", "--cloud-config=src/test/resources/sim-not-yaml.yaml"),
            "--cloud-config: src/test/resources/sim-not-yaml.yaml: line 2: not valid YAML: found"
                + " character '\\t(TAB)' that cannot start any token"),
        Arguments.of(
            "an empty --cloud-config is none, as upstream's (\"Empty string for no configuration"
                + " file\"), not the working directory",
            List.of("--cloud-provider=sim", "--cloud-config="),
            "--cloud-config: the sim cloud is a simulation and needs one"),
        Arguments.of(
            "a bool flag's value after a space (pflag: an argument, which the manager refuses)",
            List.of("--cloud-provider=fake", "--leader-elect", "false"),
            "--leader-elect takes its value only after '=' (--leader-elect=false): 'false' stands"
                + " alone, an argument, which run takes none of"),
        Arguments.of(
            "a bool flag's value that Go does not read as a bool",
            List.of("--cloud-provider=fake", "--allocate-node-cidrs=yes"),
            "'--allocate-node-cidrs': 'yes' is not a bool (true, false, 1, 0, t, f)"),
        Arguments.of(
            "a quote inside an unquoted field of a list flag (Go's CSV refuses it)",
            List.of("--cloud-provider=fake", "--authorization-always-allow-paths=/a\"b"),
            "--authorization-always-allow-paths: cannot read '/a\"b' as a comma-separated list:"
                + " bare \" in non-quoted field (column 3)"),
        Arguments.of(
            "a TLS version upstream does not know",
            List.of("--cloud-provider=fake", "--tls-min-version=TLSv1.2"),
            "--tls-min-version: unknown tls version \"TLSv1.2\""),
        Arguments.of(
            "a cipher suite upstream does not know",
            List.of("--cloud-provider=fake", "--tls-cipher-suites=TLS_FOO"),
            "--tls-cipher-suites: Cipher suite TLS_FOO not supported or doesn't exist"),
        Arguments.of(
            "only cipher suites the Java runtime disables as insecure",
            List.of("--cloud-provider=fake", "--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA"),
            "--tls-cipher-suites: this Java runtime offers none of [TLS_RSA_WITH_RC4_128_SHA] for"
                + " TLS 1.2"),
        Arguments.of(
            "a curve ID Go does not know",
            List.of("--cloud-provider=fake", "--tls-curve-preferences=30"),
            "--tls-curve-preferences: curve preference 30 is not supported"),
        Arguments.of(
            "a client CA that is not there",
            List.of("--cloud-provider=fake", "--client-ca-file=/etc/kubernetes/pki/ca.crt"),
            "--client-ca-file: cannot read /etc/kubernetes/pki/ca.crt"),
        Arguments.of(
            "a client CA that is a directory",
            List.of("--cloud-provider=fake", "--client-ca-file=/"),
            "--client-ca-file: / is a directory, not a PEM file"),
        Arguments.of(
            "a front proxy's CA",
            List.of(
                "--cloud-provider=fake",
                "--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt"),
            "--requestheader-client-ca-file: ccm4j takes no user from an authenticating proxy's"),
        Arguments.of(
            "SNI certificates",
            List.of("--cloud-provider=fake", "--tls-sni-cert-key=a.crt,a.key:a.example"),
            "--tls-sni-cert-key: ccm4j serves one certificate"),
        Arguments.of(
            "leader migration",
            List.of("--cloud-provider=fake", "--enable-leader-migration"),
            "--enable-leader-migration: ccm4j does not take part in leader migration"),
        Arguments.of(
            "port sharing",
            List.of("--cloud-provider=fake", "--permit-port-sharing=true"),
            "--permit-port-sharing: ccm4j's listener (the JDK's HTTPS server) cannot share its"
                + " address or port"),
        Arguments.of(
            "another review cache TTL",
            List.of("--cloud-provider=fake", "--authorization-webhook-cache-authorized-ttl=5m"),
            "--authorization-webhook-cache-authorized-ttl: ccm4j caches token and access reviews"
                + " for 10s (upstream's default) only, got 5m"),
        Arguments.of(
            "another resync period",
            List.of("--cloud-provider=fake", "--min-resync-period=1h"),
            "--min-resync-period: ccm4j's informers resync every 12h (upstream's default) only,"
                + " got 1h"),
        Arguments.of(
            "a controller start interval",
            List.of("--cloud-provider=fake", "--controller-start-interval=2s"),
            "--controller-start-interval: ccm4j starts its controllers together"),
        Arguments.of(
            "JSON logs",
            List.of("--cloud-provider=fake", "--logging-format=json"),
            "--logging-format: ccm4j logs text only, got json"),
        Arguments.of(
            "split log streams (upstream: an alpha gate)",
            List.of("--cloud-provider=fake", "--log-text-split-stream"),
            "--log-text-split-stream: upstream allows it only with its LoggingAlphaOptions feature"
                + " gate"),
        Arguments.of(
            "a vmodule setting without a level",
            List.of("--cloud-provider=fake", "--vmodule=bad"),
            "--vmodule: \"bad\" does not have the pattern=N format"),
        Arguments.of(
            "no node lifecycle workers",
            List.of("--cloud-provider=fake", "--concurrent-node-lifecycle-syncs=0"),
            "--concurrent-node-lifecycle-syncs must be at least 1, but got 0"),
        Arguments.of(
            "empty provider", List.of("--cloud-provider="), "--cloud-provider cannot be empty"),
        Arguments.of(
            "the serving port on upstream's default webhook port",
            List.of("--cloud-provider=fake", "--secure-port=10260"),
            "--webhook-secure-port cannot be the same value as --secure-port (10260), as"
                + " upstream's"),
        Arguments.of(
            "the webhook port on the serving port",
            List.of("--cloud-provider=fake", "--secure-port=10301", "--webhook-secure-port=10301"),
            "--webhook-secure-port cannot be the same value as --secure-port (10301)"),
        Arguments.of(
            "unknown provider name",
            List.of("--cloud-provider=nimbus"),
            "--cloud-provider: unknown cloud provider \"nimbus\"; known providers: fake, faulty"),
        Arguments.of(
            "node concurrency 0",
            List.of("--cloud-provider=fake", "--concurrent-node-syncs=0"),
            "--concurrent-node-syncs must be greater than 0, got 0"),
        Arguments.of(
            "service concurrency 0",
            List.of("--cloud-provider=fake", "--concurrent-service-syncs=0"),
            "--concurrent-service-syncs must be greater than 0, got 0"),
        Arguments.of(
            "load balancer resync under a minute",
            List.of("--cloud-provider=fake", "--load-balancer-resync-period=30s"),
            "--load-balancer-resync-period must be 0 (off) or at least 1m, got 30s"),
        Arguments.of(
            "node status update workers negative",
            List.of("--cloud-provider=fake", "--concurrent-node-status-updates=-1"),
            "--concurrent-node-status-updates must not be negative, got -1"),
        Arguments.of(
            "address refresh period 0",
            List.of("--cloud-provider=fake", "--node-status-update-frequency=0s"),
            "--node-status-update-frequency must be greater than 0"),
        Arguments.of(
            "node monitor period 0",
            List.of("--cloud-provider=fake", "--node-monitor-period=0s"),
            "--node-monitor-period must be greater than 0"),
        Arguments.of(
            "node monitor grace period 0",
            List.of("--cloud-provider=fake", "--node-monitor-grace-period=0s"),
            "--node-monitor-grace-period and --node-startup-grace-period must be greater than 0"),
        Arguments.of(
            "node startup grace period 0",
            List.of("--cloud-provider=fake", "--node-startup-grace-period=0s"),
            "--node-monitor-grace-period and --node-startup-grace-period must be greater than 0"),
        Arguments.of(
            "eviction rate negative",
            List.of("--cloud-provider=fake", "--node-eviction-rate=-1"),
            "--node-eviction-rate and --secondary-node-eviction-rate must not be negative"),
        Arguments.of(
            "secondary eviction rate negative",
            List.of("--cloud-provider=fake", "--secondary-node-eviction-rate=-0.5"),
            "--node-eviction-rate and --secondary-node-eviction-rate must not be negative"),
        Arguments.of(
            "eviction rate not a number",
            List.of("--cloud-provider=fake", "--node-eviction-rate=NaN"),
            "--node-eviction-rate and --secondary-node-eviction-rate must be finite numbers"),
        Arguments.of(
            "secondary eviction rate infinite",
            List.of("--cloud-provider=fake", "--secondary-node-eviction-rate=Infinity"),
            "--node-eviction-rate and --secondary-node-eviction-rate must be finite numbers"),
        Arguments.of(
            "unhealthy zone threshold not a number",
            List.of("--cloud-provider=fake", "--unhealthy-zone-threshold=NaN"),
            "--unhealthy-zone-threshold must be in (0, 1], got NaN"),
        Arguments.of(
            "content type other than protobuf or JSON",
            List.of("--cloud-provider=fake", "--kube-api-content-type=application/yaml"),
            "--kube-api-content-type must be one of application/vnd.kubernetes.protobuf,"
                + " application/json, got application/yaml"),
        Arguments.of(
            "unhealthy zone threshold 0",
            List.of("--cloud-provider=fake", "--unhealthy-zone-threshold=0"),
            "--unhealthy-zone-threshold must be in (0, 1], got 0.0"),
        Arguments.of(
            "unhealthy zone threshold over 1",
            List.of("--cloud-provider=fake", "--unhealthy-zone-threshold=1.5"),
            "--unhealthy-zone-threshold must be in (0, 1], got 1.5"),
        Arguments.of(
            "large cluster threshold negative",
            List.of("--cloud-provider=fake", "--large-cluster-size-threshold=-1"),
            "--large-cluster-size-threshold must not be negative, got -1"),
        Arguments.of(
            "lock other than leases",
            List.of("--cloud-provider=fake", "--leader-elect-resource-lock=configmaps"),
            "--leader-elect-resource-lock: resourceLock value must be \"leases\""),
        Arguments.of(
            "renew deadline not below lease duration",
            List.of("--cloud-provider=fake", "--leader-elect-renew-deadline=20s"),
            "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline"),
        Arguments.of(
            "unparsable duration",
            List.of("--cloud-provider=fake", "--leader-elect-retry-period=soon"),
            "'soon' is not a duration"),
        Arguments.of(
            "non-numeric concurrency",
            List.of("--cloud-provider=fake", "--concurrent-node-syncs=many"),
            "--concurrent-node-syncs"),
        Arguments.of(
            "unreadable authentication kubeconfig",
            List.of("--cloud-provider=fake", "--authentication-kubeconfig=/nonexistent/kubeconfig"),
            "--authentication-kubeconfig: cannot read /nonexistent/kubeconfig"),
        Arguments.of(
            "a webhook named",
            List.of("--cloud-provider=fake", "--webhooks=nodes"),
            "--webhooks: ccm4j implements no webhooks, got [nodes]"),
        Arguments.of(
            "another CIDR allocator",
            List.of("--cloud-provider=fake", "--cidr-allocator-type=CloudAllocator"),
            "--cidr-allocator-type: only RangeAllocator is supported, got CloudAllocator"),
        Arguments.of(
            "negative verbosity",
            List.of("--cloud-provider=fake", "--v=-1"),
            "--v must not be negative, got -1"),
        Arguments.of(
            "port out of range",
            List.of("--cloud-provider=fake", "--secure-port=70000"),
            "--secure-port must be between 0 and 65535"),
        Arguments.of(
            "cluster CIDR garbage",
            List.of("--cloud-provider=fake", "--cluster-cidr=garbage"),
            "--cluster-cidr: invalid CIDR address: \"garbage\""),
        Arguments.of(
            "cluster CIDR without prefix",
            List.of("--cloud-provider=fake", "--cluster-cidr=10.244.0.0"),
            "--cluster-cidr: invalid CIDR address: \"10.244.0.0\""),
        Arguments.of(
            "three cluster CIDRs",
            List.of("--cloud-provider=fake", "--cluster-cidr=10.0.0.0/16,fd00::/48,10.1.0.0/16"),
            "--cluster-cidr: at most 2 CIDRs are allowed (one per IP family), got 3"),
        Arguments.of(
            "two IPv4 cluster CIDRs",
            List.of("--cloud-provider=fake", "--cluster-cidr=10.0.0.0/16,10.1.0.0/16"),
            "--cluster-cidr: two CIDRs must be dual-stack (one IPv4 and one IPv6)"),
        Arguments.of(
            "service range garbage",
            List.of("--cloud-provider=fake", "--service-cluster-ip-range=10.96.0.0/99"),
            "--service-cluster-ip-range: invalid CIDR address"),
        Arguments.of(
            "route period 0",
            List.of("--cloud-provider=fake", "--route-reconciliation-period=0"),
            "--route-reconciliation-period must be at least 1ms, got 0s"),
        Arguments.of(
            "route period under a millisecond",
            List.of("--cloud-provider=fake", "--route-reconciliation-period=0.5ms"),
            "--route-reconciliation-period must be at least 1ms, got 500µs"),
        Arguments.of(
            "IPv4 mask out of range",
            List.of("--cloud-provider=fake", "--node-cidr-mask-size-ipv4=33"),
            "--node-cidr-mask-size-ipv4 must be between 1 and 32 (0 for the default), got 33"),
        Arguments.of(
            "negative mask",
            List.of("--cloud-provider=fake", "--node-cidr-mask-size=-1"),
            "--node-cidr-mask-size must be between 1 and 128 (0 for the default), got -1"),
        Arguments.of(
            "mask shorter than the cluster CIDR",
            List.of(
                "--cloud-provider=fake",
                "--allocate-node-cidrs",
                "--cluster-cidr=10.0.0.0/16",
                "--node-cidr-mask-size=12"),
            "--node-cidr-mask-size must be between the prefix length of cluster CIDR 10.0.0.0/16"
                + " and 32, got 12"),
        Arguments.of(
            "default mask longer than a tiny cluster CIDR allows",
            List.of("--cloud-provider=fake", "--allocate-node-cidrs", "--cluster-cidr=10.0.0.0/28"),
            "--node-cidr-mask-size-ipv4 (default 24) must be between the prefix length"),
        Arguments.of(
            "more than 2^16 pod CIDRs",
            List.of(
                "--cloud-provider=fake",
                "--allocate-node-cidrs",
                "--cluster-cidr=fd00::/32",
                "--node-cidr-mask-size-ipv6=64"),
            "--node-cidr-mask-size-ipv6 is too big for cluster CIDR fd00::/32"),
        Arguments.of(
            "single-stack mask flag with dual-stack",
            List.of(
                "--cloud-provider=fake",
                "--allocate-node-cidrs=true",
                "--cluster-cidr=10.0.0.0/16,fd00::/48",
                "--node-cidr-mask-size=24"),
            "--node-cidr-mask-size is not allowed with a dual-stack --cluster-cidr"),
        Arguments.of(
            "IPv6 mask for an IPv4 cluster",
            List.of(
                "--cloud-provider=fake",
                "--allocate-node-cidrs",
                "--cluster-cidr=10.0.0.0/16",
                "--node-cidr-mask-size-ipv6=64"),
            "--node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 --cluster-cidr"),
        Arguments.of(
            "node IPAM without a cluster CIDR",
            List.of("--cloud-provider=fake", "--allocate-node-cidrs"),
            "--cluster-cidr must be set when --allocate-node-cidrs is true"),
        Arguments.of(
            "informer stall timeout under a second",
            List.of("--cloud-provider=fake", "--informer-stall-timeout=500ms"),
            "--informer-stall-timeout must be at least 1s, got 500ms"),
        Arguments.of(
            "informer stall timeout not a duration",
            List.of("--cloud-provider=fake", "--informer-stall-timeout=soon"),
            "--informer-stall-timeout"),
        Arguments.of(
            "unknown feature gate",
            List.of("--cloud-provider=fake", "--feature-gates=Bogus=true"),
            "--feature-gates: unrecognized feature gate: Bogus"),
        Arguments.of(
            "feature gate not a boolean",
            List.of(
                "--cloud-provider=fake",
                "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=yes"),
            "--feature-gates: invalid value of"),
        Arguments.of(
            "a feature gate in a spelling Go does not read as a bool",
            List.of(
                "--cloud-provider=fake",
                "--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=tRuE"),
            "--feature-gates: invalid value of"
                + " CloudControllerManagerWatchBasedRoutesReconciliation=tRuE: 'tRuE' is not a bool"),
        Arguments.of(
            "an upstream gate ccm4j does not implement, off its default",
            List.of("--cloud-provider=fake", "--feature-gates=CoordinatedLeaderElection=true"),
            "--feature-gates: CoordinatedLeaderElection=true: ccm4j does not implement"
                + " CoordinatedLeaderElection; leave it at its default, false"),
        Arguments.of(
            "a locked upstream gate off its default",
            List.of("--cloud-provider=fake", "--feature-gates=DeclarativeValidation=false"),
            "--feature-gates: cannot set feature gate DeclarativeValidation to false, feature is"
                + " locked to true"),
        Arguments.of(
            "unknown flag", List.of("--cloud-provider=fake", "--colud-config=x"), "--colud-config"),
        Arguments.of(
            "bind address that is a name",
            List.of("--cloud-provider=fake", "--secure-port=0", "--bind-address=localhost"),
            "--bind-address: \"localhost\" is not an IP address (0.0.0.0, 127.0.0.1, ::)"),
        Arguments.of(
            "bind address that is no address",
            List.of("--cloud-provider=fake", "--secure-port=0", "--bind-address=999.1.1.1"),
            "--bind-address: \"999.1.1.1\" is not an IP address"),
        Arguments.of(
            "empty Lease name",
            List.of("--cloud-provider=fake", "--leader-elect-resource-name="),
            "--leader-elect-resource-name: \"\" is not a valid Lease name"),
        Arguments.of(
            "Lease name the API server refuses",
            List.of("--cloud-provider=fake", "--leader-elect-resource-name=Bad_Name"),
            "--leader-elect-resource-name: \"Bad_Name\" is not a valid Lease name (lowercase"
                + " letters, digits, '-' and '.', starting and ending with a letter or digit, at"
                + " most 253)"),
        Arguments.of(
            "Lease namespace the API server refuses",
            List.of("--cloud-provider=fake", "--leader-elect-resource-namespace=kube.system"),
            "--leader-elect-resource-namespace: \"kube.system\" is not a valid namespace"));
  }

  /**
   * Outside a pod without a kubeconfig: said at once, as upstream says it, where fabric8 would try
   * https://kubernetes.default.svc for a minute of retries.
   */
  /** A kubeconfig user's token file is read at start; one that cannot be read is named. */
  @org.junit.jupiter.api.Test
  void aKubeconfigWhoseTokenFileCannotBeReadIsNamedAtStart(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path cloud = java.nio.file.Files.writeString(dir.resolve("sim.yaml"), "{}\n");
    java.nio.file.Path kubeconfig =
        java.nio.file.Files.writeString(
            dir.resolve("kubeconfig"),
            """
            apiVersion: v1
            kind: Config
            clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
            contexts: [{name: x, context: {cluster: c, user: u}}]
            current-context: x
            users: [{name: u, user: {tokenFile: token}}]
            """);
    StringWriter err = new StringWriter();

    int exitCode =
        Ccm4j.execute(
            new PrintWriter(err, true),
            "run",
            "--cloud-provider=sim",
            "--cloud-config=" + cloud,
            "--kubeconfig=" + kubeconfig,
            "--bind-address=127.0.0.1",
            "--secure-port=0",
            "--leader-elect=false");

    assertThat(exitCode).isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo(
            "ccm4j run: --kubeconfig: %s: user's tokenFile %s cannot be read: no such file%n"
                .formatted(kubeconfig, dir.resolve("token")));
  }

  @org.junit.jupiter.api.Test
  void withoutAKubeconfigOutsideAPodItSaysSoAtOnce(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getenv("KUBERNETES_SERVICE_HOST") == null
            && System.getenv("KUBECONFIG") == null
            && !java.nio.file.Files.exists(
                java.nio.file.Path.of(System.getProperty("user.home"), ".kube", "config")),
        "no pod's environment and no kubeconfig fabric8 would find");
    java.nio.file.Path cloud = java.nio.file.Files.writeString(dir.resolve("sim.yaml"), "{}\n");
    StringWriter err = new StringWriter();

    int exitCode =
        Ccm4j.execute(
            new PrintWriter(err, true),
            "run",
            "--cloud-provider=sim",
            "--cloud-config=" + cloud,
            "--bind-address=127.0.0.1",
            "--secure-port=0",
            "--leader-elect=false");

    assertThat(exitCode).isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo(
            "ccm4j run: neither --kubeconfig nor --master is given and this is no pod"
                + " (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)"
                + System.lineSeparator());

    // Empty values are none, as client-go's BuildConfigFromFlags("", "") takes them (a chart
    // renders an unset value so), not the working directory as a kubeconfig.
    StringWriter emptyErr = new StringWriter();
    int emptyExitCode =
        Ccm4j.execute(
            new PrintWriter(emptyErr, true),
            "run",
            "--cloud-provider=sim",
            "--cloud-config=" + cloud,
            "--kubeconfig=",
            "--master=",
            "--bind-address=127.0.0.1",
            "--secure-port=0",
            "--leader-elect=false");

    assertThat(emptyExitCode).isEqualTo(1);
    assertThat(emptyErr.toString()).isEqualTo(err.toString());
  }

  /**
   * A kubeconfig fabric8 would read as none (and try the in-cluster address for a minute) or whose
   * user it would take for anonymous: refused before anything starts, as client-go refuses it.
   */
  @org.junit.jupiter.api.Test
  void aKubeconfigWithoutAUsableContextOrCredentialsExits2NamingIt(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    String usable =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster: {server: "https://127.0.0.1:6443"}
        contexts:
        - name: admin@local
          context: {cluster: local, user: admin}
        current-context: admin@local
        users:
        - name: admin
          user: {token: abc}
        """;
    java.util.Map<String, String> broken = new java.util.LinkedHashMap<>();
    broken.put(
        usable.replace("current-context: admin@local", "current-context: \"\""),
        "names no current-context");
    broken.put(
        usable.replace("current-context: admin@local", "current-context: nope"),
        "its current-context \"nope\" is not among its contexts");
    broken.put(
        usable.replace("cluster: local, user", "cluster: elsewhere, user"),
        "the cluster \"elsewhere\" of context \"admin@local\" is not among its clusters");
    broken.put(
        usable.replace(
            "user: {token: abc}",
            "user: {exec: {apiVersion:"
                + " client.authentication.k8s.io/v1, command: /nonexistent/plugin}}"),
        "the exec credential plugin \"/nonexistent/plugin\" of user \"admin\" is not found");
    broken.put("\u0000\u0001 not yaml: [", "is not a kubeconfig");
    broken.put(
        "apiVersion: v1\nkind: Config\nclusters: [\n",
        "is not a kubeconfig: line 4: not valid YAML: expected the node content, but found"
            + " '<stream end>' (while parsing a flow node)");
    broken.put(
        "apiVersion: v1\nkind: Config\nclusters: oops\n",
        "is not a kubeconfig: field \"clusters\": expected a list");
    int n = 0;
    for (var entry : broken.entrySet()) {
      java.nio.file.Path file = dir.resolve("kubeconfig-" + n++);
      java.nio.file.Files.writeString(file, entry.getKey());
      StringWriter err = new StringWriter();

      int exitCode =
          Ccm4j.execute(
              new PrintWriter(err, true),
              "run",
              "--cloud-provider=fake",
              "--kubeconfig=" + file,
              "--bind-address=127.0.0.1",
              "--secure-port=0");

      assertThat(exitCode).as(entry.getValue()).isEqualTo(2);
      assertThat(err.toString()).contains("--kubeconfig: ").contains(entry.getValue());
      assertThat(err.toString().lines()).hasSize(1);
    }
    StringWriter err = new StringWriter();
    assertThat(
            Ccm4j.execute(
                new PrintWriter(err, true),
                "run",
                "--cloud-provider=fake",
                "--kubeconfig=" + dir,
                "--bind-address=127.0.0.1",
                "--secure-port=0"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--kubeconfig: " + dir + " is a directory");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidFlags")
  void invalidFlagsExit2WithOneLineNamingTheProblemAndStartNothing(
      String description, List<String> flags, String expectedMessage) throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    List<String> args = new ArrayList<>(List.of("run"));
    if (flags.stream().noneMatch(flag -> flag.startsWith("--secure-port"))) {
      args.addAll(List.of("--bind-address=127.0.0.1", "--secure-port=" + port));
    }
    args.addAll(flags);
    StringWriter err = new StringWriter();

    int exitCode = Ccm4j.execute(new PrintWriter(err, true), args.toArray(String[]::new));

    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString()).contains(expectedMessage).doesNotContain("\tat ");
    assertThat(err.toString().lines()).hasSize(1);
    assertThat(isListening(port)).as("nothing serves after a flag error").isFalse();
  }

  @org.junit.jupiter.api.Test
  void aServingKeyThatIsNotTheCertificatesExits2NamingTheFlags(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var certificate = SelfSignedCertificate.forLocalhost(java.time.Duration.ofDays(1));
    var other = SelfSignedCertificate.forLocalhost(java.time.Duration.ofDays(1));
    var cert =
        java.nio.file.Files.writeString(dir.resolve("tls.crt"), certificate.certificatePem());
    var key = java.nio.file.Files.writeString(dir.resolve("tls.key"), other.privateKeyPem());
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    StringWriter err = new StringWriter();

    int exitCode =
        Ccm4j.execute(
            new PrintWriter(err, true),
            "run",
            "--cloud-provider=fake",
            "--bind-address=127.0.0.1",
            "--secure-port=" + port,
            "--tls-cert-file=" + cert,
            "--tls-private-key-file=" + key);

    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "--tls-cert-file/--tls-private-key-file: the private key "
                + key
                + " does not match the certificate "
                + cert)
        .doesNotContain("\tat ");
    assertThat(err.toString().lines()).hasSize(1);
    assertThat(isListening(port)).isFalse();
  }

  @org.junit.jupiter.api.Test
  void useServiceAccountCredentialsParsesAsUpstreamManifestsSpellIt() {
    for (var args :
        List.of(
            List.of("--use-service-account-credentials=true", "true"),
            List.of("--use-service-account-credentials", "true"),
            List.of("--use-service-account-credentials=false", "false"),
            List.of("--cloud-provider=fake", "false"))) {
      RunCommand run = new RunCommand();
      new picocli.CommandLine(run).parseArgs(args.get(0));
      assertThat(run.kube.useServiceAccountCredentials())
          .as(args.get(0))
          .isEqualTo(Boolean.parseBoolean(args.get(1)));
    }
  }

  @org.junit.jupiter.api.Test
  void boolFlagsTakeGoSpellingsAfterEqualsAndStandAloneAsTrue() {
    for (var args :
        List.of(
            List.of("--leader-elect=0", "false"),
            List.of("--leader-elect=f", "false"),
            List.of("--leader-elect=FALSE", "false"),
            List.of("--leader-elect=1", "true"),
            List.of("--leader-elect=T", "true"),
            List.of("--leader-elect", "true"))) {
      RunCommand run = new RunCommand();
      new picocli.CommandLine(run).parseArgs(args.get(0), "--allocate-node-cidrs", "--v=2");
      assertThat(run.leaderElection.settings().isPresent())
          .as(args.get(0))
          .isEqualTo(Boolean.parseBoolean(args.get(1)));
      assertThat(run.network.settings().allocateNodeCidrs())
          .as("a bool flag followed by a flag")
          .isTrue();
    }
    RunCommand untagged = new RunCommand();
    new picocli.CommandLine(untagged).parseArgs("--allow-untagged-cloud=true");
    assertThat(untagged.cloud.allowUntaggedCloud()).isTrue();
  }

  /**
   * A list flag is one line of CSV to pflag: Linode's chart passes {@code
   * --authorization-always-allow-paths="/metrics"}, which upstream reads as the path /metrics.
   */
  @org.junit.jupiter.api.Test
  void listFlagsReadTheirValuesAsUpstreamsCsv() {
    for (var args :
        List.of(
            List.of("--authorization-always-allow-paths=\"/metrics\"", "[/metrics]"),
            List.of(
                "--authorization-always-allow-paths=/healthz,\"/metrics\"", "[/healthz, /metrics]"),
            List.of("--authorization-always-allow-paths=\"/a,b\",/c", "[/a,b, /c]"))) {
      RunCommand run = RunCommand.parse(List.of("--cloud-provider=fake", args.get(0)));
      assertThat(run.settings().servingAccess().alwaysAllowPaths())
          .as(args.get(0))
          .hasToString(args.get(1));
    }
    RunCommand repeated =
        RunCommand.parse(
            List.of(
                "--cloud-provider=fake", "--controllers=\"cloud-node\"", "--controllers=service"));
    assertThat(repeated.settings().selection().enabled())
        .containsExactly("cloud-node-controller", "service-lb-controller");
  }

  /**
   * {@code --feature-gates} as upstream's feature gate reads it: Go's bools, spaces trimmed, empty
   * pairs skipped, occurrences merged; the upstream manager's other gates at their defaults.
   */
  @org.junit.jupiter.api.Test
  void featureGatesReadAsUpstreamsFeatureGate() {
    String gate = "CloudControllerManagerWatchBasedRoutesReconciliation";
    for (var args :
        List.of(
            List.of("--feature-gates=" + gate + "=1", "true"),
            List.of("--feature-gates=" + gate + "=T", "true"),
            List.of("--feature-gates= " + gate + " = true ,", "true"),
            List.of(
                "--feature-gates=" + gate + "=true,AllAlpha=false,ContextualLogging=true", "true"),
            List.of("--feature-gates=LoggingBetaOptions=true,WatchList=true", "false"))) {
      RunCommand run = RunCommand.parse(List.of("--cloud-provider=fake", args.get(0)));
      assertThat(run.settings().controllers().network().watchBasedRoutes())
          .as(args.get(0))
          .isEqualTo(Boolean.parseBoolean(args.get(1)));
    }
    RunCommand repeated =
        RunCommand.parse(
            List.of(
                "--cloud-provider=fake",
                "--feature-gates=" + gate + "=true",
                "--feature-gates=" + gate + "=false"));
    assertThat(repeated.settings().controllers().network().watchBasedRoutes()).isFalse();
  }

  /**
   * The serving TLS flags take upstream's values (Go's version and suite names, legacy names too,
   * and curve IDs) and set the serving port's TLS; the TLS 1.3 suites stay on, as in Go.
   */
  @org.junit.jupiter.api.Test
  void servingTlsFlagsTakeUpstreamsNamesAndSetTheServingPortsTls() {
    RunCommand run =
        RunCommand.parse(
            List.of(
                "--cloud-provider=fake",
                "--tls-min-version=VersionTLS12",
                "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305,TLS_RSA_WITH_AES_128_GCM_SHA256",
                "--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                "--tls-curve-preferences=29,0x17"));

    assertThat(run.settings().servingKeys().tls())
        .isEqualTo(
            new io.ccm4j.runtime.serving.ServingTls(
                List.of("TLSv1.3", "TLSv1.2"),
                List.of(
                    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                    "TLS_AES_128_GCM_SHA256",
                    "TLS_AES_256_GCM_SHA384",
                    "TLS_CHACHA20_POLY1305_SHA256"),
                List.of("x25519", "secp256r1")));
  }

  /**
   * Every flag of upstream's cloud-controller-manager at Kubernetes 1.37 (k8s.io/cloud-provider
   * v0.37.2's command with its serving, authn/authz, logging and feature-gate flags), each with
   * upstream's default value, is accepted: those naming files are tested elsewhere, and --help and
   * --version stop the command.
   */
  @org.junit.jupiter.api.Test
  void everyUpstreamFlagAtItsDefaultIsAccepted() {
    List<String> upstreamDefaults =
        List.of(
            "--allocate-node-cidrs=false",
            "--allow-untagged-cloud=false",
            "--authentication-skip-lookup=false",
            "--authentication-token-webhook-cache-ttl=10s",
            "--authentication-tolerate-lookup-failure=false",
            "--authorization-always-allow-paths=/healthz,/readyz,/livez",
            "--authorization-webhook-cache-authorized-ttl=10s",
            "--authorization-webhook-cache-unauthorized-ttl=10s",
            "--bind-address=0.0.0.0",
            "--cert-dir=",
            "--cidr-allocator-type=RangeAllocator",
            "--cluster-cidr=",
            "--cluster-name=kubernetes",
            "--concurrent-node-lifecycle-syncs=1",
            "--concurrent-node-status-updates=0",
            "--concurrent-node-syncs=1",
            "--concurrent-service-syncs=1",
            "--configure-cloud-routes=true",
            "--contention-profiling=false",
            "--controller-start-interval=0s",
            "--controllers=*",
            "--disable-http2-serving=false",
            "--enable-leader-migration=false",
            "--external-cloud-volume-plugin=",
            "--feature-gates=",
            "--http2-max-streams-per-connection=0",
            "--kube-api-burst=30",
            "--kube-api-content-type=application/vnd.kubernetes.protobuf",
            "--kube-api-qps=20",
            "--leader-elect=true",
            "--leader-elect-lease-duration=15s",
            "--leader-elect-renew-deadline=10s",
            "--leader-elect-resource-lock=leases",
            "--leader-elect-resource-name=cloud-controller-manager",
            "--leader-elect-resource-namespace=kube-system",
            "--leader-elect-retry-period=2s",
            "--leader-migration-config=",
            "--log-flush-frequency=5s",
            "--log-text-info-buffer-size=0",
            "--log-text-split-stream=false",
            "--logging-format=text",
            "--min-resync-period=12h0m0s",
            "--node-monitor-period=5s",
            "--node-status-update-frequency=5m0s",
            "--node-sync-period=0s",
            "--permit-address-sharing=false",
            "--permit-port-sharing=false",
            "--profiling=true",
            "--requestheader-allowed-names=",
            "--requestheader-extra-headers-prefix=x-remote-extra-",
            "--requestheader-group-headers=x-remote-group",
            "--requestheader-uid-headers=",
            "--requestheader-username-headers=x-remote-user",
            "--route-reconciliation-period=10s",
            "--secure-port=10258",
            "--tls-cipher-suites=",
            "--tls-min-version=",
            "--use-service-account-credentials=false",
            "--v=0",
            "--vmodule=",
            "--webhook-bind-address=0.0.0.0",
            "--webhook-cert-dir=",
            "--webhook-disable-http2-serving=false",
            "--webhook-secure-port=10260",
            "--webhook-tls-cert-file=",
            "--webhook-tls-cipher-suites=",
            "--webhook-tls-min-version=",
            "--webhook-tls-private-key-file=",
            "--webhooks=");
    for (String flag : upstreamDefaults) {
      RunCommand run = RunCommand.parse(List.of("--cloud-provider=fake", flag));
      assertThat(run.settings()).as(flag).isNotNull(); // throws naming a refused flag
    }
    RunCommand all = RunCommand.parse(concat(List.of("--cloud-provider=fake"), upstreamDefaults));
    assertThat(all.settings()).isNotNull();
  }

  /** Values of upstream's flags that change nothing here either. */
  @org.junit.jupiter.api.Test
  void upstreamFlagsWithoutEffectHereTakeTheirValues() {
    RunCommand run =
        RunCommand.parse(
            List.of(
                "--cloud-provider=fake",
                "--profiling=false",
                "--contention-profiling",
                "--authentication-tolerate-lookup-failure",
                "--requestheader-allowed-names=front-proxy-client",
                "--requestheader-group-headers=X-Remote-Group",
                "--disable-http2-serving",
                "--http2-max-streams-per-connection=1000",
                "--external-cloud-volume-plugin=openstack",
                "--leader-migration-config=/etc/kubernetes/migration.yaml",
                "--concurrent-node-lifecycle-syncs=5",
                "--log-flush-frequency=1s",
                "--vmodule=controller*=4,node=2",
                "--webhook-tls-cert-file=/nonexistent.crt",
                "--webhook-tls-min-version=VersionTLS13"));
    assertThat(run.settings()).isNotNull();
  }

  /** Upstream's {@code --cert-dir} pair is served when it is there. */
  @org.junit.jupiter.api.Test
  void certDirServesUpstreamsPairWhenThere(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    var certificate = SelfSignedCertificate.forLocalhost(java.time.Duration.ofDays(1));
    java.nio.file.Files.writeString(
        dir.resolve("cloud-controller-manager.crt"), certificate.certificatePem());
    java.nio.file.Files.writeString(
        dir.resolve("cloud-controller-manager.key"), certificate.privateKeyPem());

    RunCommand run = RunCommand.parse(List.of("--cloud-provider=fake", "--cert-dir=" + dir));
    var keys = run.settings().servingKeys();
    var served =
        (java.security.cert.X509Certificate)
            keys.keyStore().getCertificate(keys.keyStore().aliases().nextElement());

    assertThat(served.getSerialNumber())
        .isEqualTo(
            ((java.security.cert.X509Certificate)
                    certificate
                        .toKeyStore("p".toCharArray())
                        .getCertificate(
                            certificate.toKeyStore("p".toCharArray()).aliases().nextElement()))
                .getSerialNumber());
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }

  /**
   * A flag given twice keeps its last value, as pflag's: a chart or overlay that appends {@code
   * --v=4} to a base's {@code --v=2} must not lose the flags of other groups given before it (they
   * were: picocli took the repeat for a second occurrence of the groups).
   */
  @org.junit.jupiter.api.Test
  void aRepeatedFlagKeepsItsLastValueAndLosesNoOtherFlag() {
    for (List<String> repeat :
        List.of(
            List.of("--v=1", "--v=4"),
            List.of("-v", "1", "-v2"),
            List.of("--secure-port", "0", "--secure-port=0"),
            List.of("--leader-elect=false", "--leader-elect"),
            List.of("--cluster-name=first", "--kube-api-qps=5", "--cluster-name=x"))) {
      List<String> args = new ArrayList<>(List.of("--cloud-provider=fake"));
      args.addAll(repeat);
      args.addAll(List.of("--cluster-name=x", "--route-reconciliation-period=30s"));
      RunCommand run = RunCommand.parse(args);

      var settings = run.settings();
      assertThat(run.cloudProviderName()).as("%s", args).isEqualTo("fake");
      assertThat(settings.clusterName()).as("%s", args).isEqualTo("x");
      assertThat(settings.controllers().network().routeReconciliationPeriod())
          .as("%s", args)
          .isEqualTo(java.time.Duration.ofSeconds(30));
    }
    RunCommand last =
        RunCommand.parse(
            List.of("--cloud-provider=fake", "--leader-elect", "--v=2", "--leader-elect=false"));
    assertThat(last.settings().leaderElection()).isEmpty();
  }

  /**
   * Published CCM manifests' arguments (after the binary, if they name it), with the Kubernetes
   * version each targets: they parse and check on the lab's terms, with ccm4j's cloud in place of
   * the one they name; {@code $(VAR)} as the kubelet expands it, chart templates at their defaults,
   * files made up.
   */
  static Stream<Arguments> upstreamManifests() {
    return Stream.of(
        // kubernetes/cloud-provider-aws examples/existing-cluster/base/
        // aws-cloud-controller-manager-daemonset.yaml (v1.22)
        manifest(
            "aws example",
            "--v=2",
            "--cloud-provider=aws",
            "--use-service-account-credentials=true",
            "--configure-cloud-routes=false"),
        // kubernetes/cloud-provider-aws charts/aws-cloud-controller-manager/values.yaml (v1.23)
        manifest("aws chart", "--v=2", "--cloud-provider=aws"),
        // kubernetes-sigs/cloud-provider-azure examples/out-of-tree/cloud-controller-manager.yaml
        // (v1.34)
        manifest(
            "azure example",
            "--allocate-node-cidrs=true",
            "--cloud-config=@CLOUD_CONFIG",
            "--cloud-provider=azure",
            "--cluster-cidr=10.244.0.0/16",
            "--cluster-name=k8s",
            "--controllers=*,-cloud-node",
            "--configure-cloud-routes=true",
            "--leader-elect=true",
            "--route-reconciliation-period=10s",
            "--v=4",
            "--secure-port=10267"),
        // kubernetes/cloud-provider-openstack charts/openstack-cloud-controller-manager/templates/
        // daemonset.yaml (v1.3x; enabledControllers and cluster name at their defaults)
        manifest(
            "openstack chart",
            "--v=2",
            "--cloud-config=@CLOUD_CONFIG",
            "--cluster-name=kubernetes",
            "--cloud-provider=openstack",
            "--use-service-account-credentials=false",
            "--controllers=cloud-node,cloud-node-lifecycle,route,service",
            "--bind-address=127.0.0.1"),
        // kubernetes/cloud-provider-gcp README's patch of deploy/packages/default (v1.35)
        manifest(
            "gcp",
            "--cloud-provider=gce",
            "--use-service-account-credentials",
            "--secure-port=10258",
            "--cloud-config=@CLOUD_CONFIG"),
        // kubernetes/cloud-provider-vsphere releases/v1.37/vsphere-cloud-controller-manager.yaml
        manifest("vsphere", "--cloud-provider=vsphere", "--v=2", "--cloud-config=@CLOUD_CONFIG"),
        // hetznercloud/hcloud-cloud-controller-manager deploy/ccm-networks.yaml (hccm v1.25)
        manifest(
            "hetzner networks",
            "--allow-untagged-cloud",
            "--cloud-provider=hcloud",
            "--route-reconciliation-period=30s",
            "--webhook-secure-port=0",
            "--allocate-node-cidrs=true",
            "--cluster-cidr=10.244.0.0/16",
            "--leader-elect=false"),
        // digitalocean/digitalocean-cloud-controller-manager
        // releases/digitalocean-cloud-controller-manager/v0.1.71.yml (command)
        manifest("digitalocean", "--leader-elect=false"),
        // linode/linode-cloud-controller-manager deploy/chart/templates/daemonset.yaml, with
        // allowUnauthorizedMetrics (its provider's own flags left out)
        manifest(
            "linode chart",
            "--leader-elect-resource-lock=leases",
            "--v=3",
            "--secure-port=10253",
            "--webhook-secure-port=0",
            "--authorization-always-allow-paths=\"/metrics\""),
        // kubevirt/cloud-provider-kubevirt config/manager/manager.yaml
        manifest(
            "kubevirt",
            "--cloud-provider=kubevirt",
            "--cloud-config=@CLOUD_CONFIG",
            "--kubeconfig=@KUBECONFIG",
            "--cluster-name=kvcluster"),
        // kubernetes-sigs/cloud-provider-equinix-metal deploy/template/deployment.yaml (command)
        manifest(
            "equinix metal",
            "--cloud-provider=equinixmetal",
            "--leader-elect=false",
            "--authentication-skip-lookup=true",
            "--cloud-config=@CLOUD_CONFIG"),
        // exoscale/exoscale-cloud-controller-manager docs/examples/cloud-controller-manager.yml
        manifest(
            "exoscale",
            "--cloud-provider=exoscale",
            "--leader-elect=true",
            "--allow-untagged-cloud"),
        // siderolabs/talos-cloud-controller-manager charts/talos-cloud-controller-manager/
        // templates/deployment.yaml (values at their defaults)
        manifest(
            "talos chart",
            "--v=2",
            "--cloud-provider=talos",
            "--cloud-config=@CLOUD_CONFIG",
            "--controllers=cloud-node",
            "--leader-elect-resource-name=cloud-controller-manager-talos",
            "--use-service-account-credentials",
            "--secure-port=50258",
            "--authorization-always-allow-paths=/healthz,/livez,/readyz,/metrics"),
        // sergelogvinov/proxmox-cloud-controller-manager charts/proxmox-cloud-controller-manager/
        // templates/deployment.yaml
        manifest(
            "proxmox chart",
            "--v=2",
            "--cloud-provider=proxmox",
            "--cloud-config=@CLOUD_CONFIG",
            "--controllers=cloud-node,cloud-node-lifecycle",
            "--leader-elect-resource-name=cloud-controller-manager-proxmox",
            "--use-service-account-credentials",
            "--secure-port=10258"),
        // cloudscale-ch/cloudscale-cloud-controller-manager deploy/kubernetes/releases/latest.yml
        manifest("cloudscale", "--allow-untagged-cloud", "--v=3"),
        // vultr/vultr-cloud-controller-manager docs/releases/latest.yml (command)
        manifest(
            "vultr",
            "--cloud-provider=vultr",
            "--allow-untagged-cloud=true",
            "--authentication-skip-lookup=true",
            "--v=3"),
        // civo/civo-cloud-controller-manager doc/yaml/ccm-install.yaml
        manifest("civo", "--cloud-provider=civo"),
        // TencentCloud/tencentcloud-cloud-controller-manager docs/example-manifests/out-of-tree/
        // cloud-controller-manager.yaml
        manifest(
            "tencent",
            "--cloud-provider=tencentcloud",
            "--allocate-node-cidrs=true",
            "--cluster-cidr=192.168.0.0/20",
            "--master=http://10.0.0.1:8080",
            "--configure-cloud-routes=true",
            "--allow-untagged-cloud=true",
            "--node-monitor-period=60s",
            "--route-reconciliation-period=60s"),
        // kubernetes-sigs/cloud-provider-huaweicloud manifests/huawei-cloud-controller-manager.yaml
        // (after the binary its args name first)
        manifest(
            "huawei",
            "--v=5",
            "--cloud-config=@CLOUD_CONFIG",
            "--cloud-provider=huaweicloud",
            "--use-service-account-credentials=true",
            "--node-status-update-frequency=5s",
            "--node-monitor-period=5s",
            "--leader-elect-lease-duration=30s",
            "--leader-elect-renew-deadline=20s",
            "--leader-elect-retry-period=2s"),
        // kubernetes/website content/en/examples/admin/cloud/ccm-example.yaml
        manifest(
            "kubernetes docs example",
            "--cloud-provider=external-example",
            "--leader-elect=true",
            "--use-service-account-credentials",
            "--allocate-node-cidrs=true",
            "--configure-cloud-routes=true",
            "--cluster-cidr=172.17.0.0/16"),
        // IBM-Cloud/cloud-provider-ibm docs/examples/ibm-cloud-controller-manager.yaml (v1.26), but
        // the flags refused below
        manifest(
            "ibm, without its removed and request-header flags",
            "--client-ca-file=@TLS_CERT",
            "--use-service-account-credentials=true",
            "--kubeconfig=@KUBECONFIG",
            "--authentication-kubeconfig=@KUBECONFIG",
            "--authorization-kubeconfig=@KUBECONFIG",
            "--tls-cert-file=@TLS_CERT",
            "--tls-private-key-file=@TLS_KEY",
            "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,"
                + "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,"
                + "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,"
                + "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,"
                + "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_AES_128_GCM_SHA256,"
                + "TLS_CHACHA20_POLY1305_SHA256,TLS_AES_256_GCM_SHA384",
            "--cloud-provider=ibm",
            "--cloud-config=@CLOUD_CONFIG",
            "--profiling=false",
            "--leader-elect=true",
            "--leader-elect-lease-duration=60s",
            "--leader-elect-renew-deadline=25s",
            "--leader-elect-retry-period=5s",
            "--v=2",
            "--kube-api-burst=125",
            "--kube-api-qps=100"));
  }

  /** Manifests whose flags cannot mean anything here: refused with one line naming the flag. */
  static Stream<Arguments> upstreamManifestsRefused() {
    return Stream.of(
        // IBM-Cloud/cloud-provider-ibm docs/examples/ibm-cloud-controller-manager.yaml (v1.26)
        Arguments.of(
            List.of("--port=0", "--cloud-provider=ibm", "--profiling=false"),
            "--port: upstream's manager no longer has it"),
        Arguments.of(
            List.of("--cloud-provider=ibm", "--requestheader-client-ca-file=@TLS_CERT"),
            "--requestheader-client-ca-file: ccm4j takes no user from an authenticating proxy's"),
        // kubernetes/cloud-provider-openstack manifests/controller-manager/
        // openstack-cloud-controller-manager-ds.yaml (v1.16) and
        // kubernetes/cloud-provider-alibaba-cloud docs/examples/cloud-controller-manager.yml (v1.9)
        Arguments.of(
            List.of(
                "--v=1",
                "--cloud-config=@CLOUD_CONFIG",
                "--cloud-provider=openstack",
                "--use-service-account-credentials=true",
                "--address=127.0.0.1"),
            "--address: upstream's manager no longer has it"),
        // kubernetes-sigs/cloud-provider-huaweicloud manifests/huawei-cloud-controller-manager.yaml
        // as written: its args name the binary first, for an image without an entrypoint
        Arguments.of(
            List.of(
                "/bin/huawei-cloud-controller-manager",
                "--v=5",
                "--cloud-config=@CLOUD_CONFIG",
                "--cloud-provider=huaweicloud"),
            "run takes no arguments, only flags: got '/bin/huawei-cloud-controller-manager'"),
        // oracle/oci-cloud-controller-manager manifests/cloud-controller-manager/
        // oci-cloud-controller-manager.yaml (v1.26): upstream dropped that lock type too
        Arguments.of(
            List.of(
                "--cloud-config=@CLOUD_CONFIG",
                "--cloud-provider=oci",
                "--leader-elect-resource-lock=configmapsleases",
                "--concurrent-service-syncs=3",
                "--v=2"),
            "--leader-elect-resource-lock: resourceLock value must be \"leases\""));
  }

  @org.junit.jupiter.api.Test
  void aClientCaFileWithoutACertificateIsRefusedNamingTheFlag(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path notPem =
        java.nio.file.Files.writeString(dir.resolve("ca.crt"), "[Global]\n");

    assertThatThrownBy(
            () ->
                RunCommand.parse(List.of("--cloud-provider=fake", "--client-ca-file=" + notPem))
                    .settings(new FakeCloudProvider()))
        .isInstanceOf(picocli.CommandLine.ParameterException.class)
        .hasMessageStartingWith("--client-ca-file: ")
        .hasMessageContaining(notPem.toString());
  }

  @org.junit.jupiter.api.Test
  void aClientCaFileGivesTheServingPortItsCertificates(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var first = SelfSignedCertificate.certificateAuthority("first", java.time.Duration.ofDays(1));
    var second = SelfSignedCertificate.certificateAuthority("second", java.time.Duration.ofDays(1));
    java.nio.file.Path bundle =
        java.nio.file.Files.writeString(
            dir.resolve("ca.crt"), first.certificatePem() + second.certificatePem());

    var settings =
        RunCommand.parse(List.of("--cloud-provider=fake", "--client-ca-file=" + bundle))
            .settings(new FakeCloudProvider());

    assertThat(settings.servingAccess().clientCas())
        .containsExactly(first.certificate(), second.certificate());
  }

  private static Arguments manifest(String name, String... args) {
    return Arguments.of(name, List.of(args));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("upstreamManifests")
  void upstreamManifestsFlagsAreAccepted(
      String name, List<String> args, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    RunCommand run = RunCommand.parse(withFiles(args, dir));

    assertThat(run.settings(new FakeCloudProvider())).as(name).isNotNull();
  }

  @ParameterizedTest
  @MethodSource("upstreamManifestsRefused")
  void upstreamManifestsFlagsThatCannotMeanAnythingHereAreRefusedNamingTheFlag(
      List<String> args, String expected, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    List<String> files = withFiles(args, dir);

    assertThatThrownBy(() -> RunCommand.parse(files).settings(new FakeCloudProvider()))
        .isInstanceOf(picocli.CommandLine.ParameterException.class)
        .hasMessageStartingWith(expected);
  }

  /** {@code args} with their @-placeholders made files in {@code dir}. */
  private static List<String> withFiles(List<String> args, java.nio.file.Path dir)
      throws Exception {
    var certificate = SelfSignedCertificate.forLocalhost(java.time.Duration.ofDays(1));
    var files =
        java.util.Map.of(
            "@CLOUD_CONFIG",
            java.nio.file.Files.writeString(dir.resolve("cloud.conf"), "[Global]\n"),
            "@KUBECONFIG",
            java.nio.file.Files.writeString(
                dir.resolve("kubeconfig"),
                """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: c, context: {cluster: c, user: u}}]
                current-context: c
                """),
            "@TLS_CERT",
            java.nio.file.Files.writeString(dir.resolve("tls.crt"), certificate.certificatePem()),
            "@TLS_KEY",
            java.nio.file.Files.writeString(dir.resolve("tls.key"), certificate.privateKeyPem()));
    List<String> made = new ArrayList<>();
    for (String arg : args) {
      for (var file : files.entrySet()) {
        arg = arg.replace(file.getKey(), file.getValue().toString());
      }
      made.add(arg);
    }
    return made;
  }

  /**
   * A flag's default is its controller's settings record's {@code defaults()}: written once, read
   * by both; each flag group builds its controller's record.
   */
  @org.junit.jupiter.api.Test
  void theFlagsDefaultToTheSettingsDefaults() {
    RunCommand run = new RunCommand();
    new picocli.CommandLine(run).parseArgs("--cloud-provider=fake");

    io.ccm4j.controllers.ControllerSettings controllers = run.settings().controllers();
    assertThat(controllers.cloudNode())
        .isEqualTo(io.ccm4j.controllers.node.CloudNodeSettings.defaults());
    assertThat(controllers.cloudNodeLifecycle())
        .isEqualTo(io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleSettings.defaults());
    assertThat(controllers.service())
        .isEqualTo(io.ccm4j.controllers.service.ServiceControllerSettings.defaults());
    assertThat(controllers.nodeHealth())
        .isEqualTo(io.ccm4j.controllers.nodelifecycle.NodeHealthSettings.defaults());
    assertThat(controllers.network())
        .isEqualTo(io.ccm4j.controllers.network.NetworkSettings.defaults());
    assertThat(run.settings().leaderElection().orElseThrow())
        .usingRecursiveComparison()
        .ignoringFields("identity")
        .isEqualTo(io.ccm4j.runtime.leaderelection.LeaderElection.Settings.defaults("any"));
    assertThat(run.settings().informerStallBound())
        .isEqualTo(io.ccm4j.runtime.client.InformerWatchdog.DEFAULT_BOUND);
    assertThat(run.kubeApiContentType())
        .isEqualTo(io.ccm4j.runtime.client.KubeApiContentType.DEFAULT)
        .isEqualTo(io.ccm4j.runtime.client.KubeApiContentType.PROTOBUF);
  }

  @org.junit.jupiter.api.Test
  void jsonKeepsTheJsonWire() {
    RunCommand run = new RunCommand();
    new picocli.CommandLine(run)
        .parseArgs("--cloud-provider=fake", "--kube-api-content-type=application/json");
    run.settings();
    assertThat(run.kubeApiContentType()).isEqualTo(io.ccm4j.runtime.client.KubeApiContentType.JSON);
  }

  /**
   * The defaults read from the settings records print in the help as they did when each flag
   * spelled its own.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "--concurrent-node-syncs, 10",
    "--concurrent-node-status-updates, 0",
    "--node-status-update-frequency, 5m",
    "--node-monitor-period, 5s",
    "--node-monitor-grace-period, 50s",
    "--node-startup-grace-period, 60s",
    "--node-eviction-rate, 0.1",
    "--secondary-node-eviction-rate, 0.01",
    "--unhealthy-zone-threshold, 0.55",
    "--large-cluster-size-threshold, 50",
    "--concurrent-service-syncs, 1",
    "--load-balancer-resync-period, 1h",
    "--configure-cloud-routes, true",
    "--route-reconciliation-period, 10s",
    "--allocate-node-cidrs, false",
    "--node-cidr-mask-size-ipv4, 0",
    "--node-cidr-mask-size-ipv6, 0",
    "--leader-elect-lease-duration, 15s",
    "--leader-elect-renew-deadline, 10s",
    "--leader-elect-retry-period, 2s",
    "--leader-elect-resource-name, cloud-controller-manager",
    "--leader-elect-resource-namespace, kube-system",
    "--informer-stall-timeout, 60s"
  })
  void helpPrintsEachDefaultAsBefore(String flag, String printed) {
    StringWriter out = new StringWriter();
    picocli.CommandLine line = new picocli.CommandLine(new Ccm4j());
    line.setOut(new PrintWriter(out, true));

    assertThat(line.execute("run", "--help")).isZero();

    // The option's entry: from its line to the next option's (continuations are indented more).
    java.util.regex.Matcher entry =
        java.util.regex.Pattern.compile(
                "(?ms)^ {1,8}" + java.util.regex.Pattern.quote(flag) + "\\b.*?(?=^ {1,8}-|\\z)")
            .matcher(out.toString());
    assertThat(entry.find()).as(flag).isTrue();
    assertThat(entry.group().replaceAll("\\s+", " "))
        .containsPattern("Default: " + java.util.regex.Pattern.quote(printed) + "[. ]");
  }

  /** Each controller's flags come under its own heading (cloud-provider's options groups). */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource({
    "cloud-node-controller:, --concurrent-node-syncs",
    "cloud-node-controller:, --node-status-update-frequency",
    "cloud-node-lifecycle-controller:, --node-monitor-period",
    "service-lb-controller:, --concurrent-service-syncs",
    "service-lb-controller:, --load-balancer-resync-period",
    "node-lifecycle-controller (off unless named in --controllers):, --node-eviction-rate",
    "node-lifecycle-controller (off unless named in --controllers):, --large-cluster-size-threshold"
  })
  void helpListsEachControllersFlagsUnderItsName(String heading, String flag) {
    StringWriter out = new StringWriter();
    picocli.CommandLine line = new picocli.CommandLine(new Ccm4j());
    line.setOut(new PrintWriter(out, true));

    assertThat(line.execute("run", "--help")).isZero();

    String help = out.toString();
    int at = help.indexOf("\n" + heading + "\n");
    assertThat(at).as(heading).isNotNegative();
    int end = help.indexOf("\n\n", at + heading.length() + 2);
    assertThat(help.substring(at, end < 0 ? help.length() : end)).contains(flag + "=");
  }

  /**
   * A Lease shorter than the default renew deadline, with a shorter deadline, is taken as given.
   */
  @org.junit.jupiter.api.Test
  void aShortLeaseWithAShorterRenewDeadlineIsAccepted() {
    RunCommand run = new RunCommand();
    new picocli.CommandLine(run)
        .parseArgs(
            "--cloud-provider=fake",
            "--leader-elect-lease-duration=4s",
            "--leader-elect-renew-deadline=3s",
            "--leader-elect-retry-period=1s");

    io.ccm4j.runtime.leaderelection.LeaderElection.Settings election =
        run.settings().leaderElection().orElseThrow();

    assertThat(election.leaseDuration()).isEqualTo(java.time.Duration.ofSeconds(4));
    assertThat(election.renewDeadline()).isEqualTo(java.time.Duration.ofSeconds(3));
    assertThat(election.retryPeriod()).isEqualTo(java.time.Duration.ofSeconds(1));
  }

  /** What a manager built in process leaves unset is what {@code ccm4j run} defaults to. */
  @org.junit.jupiter.api.Test
  void theBuilderDefaultsToTheFlagsDefaults() {
    RunCommand run = new RunCommand();
    new picocli.CommandLine(run).parseArgs("--cloud-provider=fake");
    io.ccm4j.app.manager.CloudControllerManager.Settings flags = run.settings();

    io.ccm4j.app.manager.CloudControllerManager.Settings built =
        io.ccm4j.app.manager.CloudControllerManager.settings().cloud(flags.cloud()).buildSettings();

    // In process there is no leader election and no serving port unless asked for.
    assertThat(built)
        .usingRecursiveComparison()
        .ignoringFields("leaderElection", "servingAddress", "servingKeys")
        .isEqualTo(flags);
    assertThat(built.leaderElection()).isEmpty();
    assertThat(built.servingAddress()).isEmpty();
  }

  @org.junit.jupiter.api.Test
  void helpDocumentsTheInformerStallTimeout() {
    StringWriter out = new StringWriter();
    picocli.CommandLine line = new picocli.CommandLine(new Ccm4j());
    line.setOut(new PrintWriter(out, true));

    assertThat(line.execute("run", "--help")).isZero();

    assertThat(out.toString().replaceAll("\\s+", " "))
        .contains("--informer-stall-timeout=<duration>")
        .contains("before the health checks of the controllers that use it fail")
        .contains("Default: 60s");
  }

  /** The help names every controller with its alias, and every controller's account. */
  @org.junit.jupiter.api.Test
  void helpListsEveryControllerFromItsDescriptor() {
    StringWriter out = new StringWriter();
    picocli.CommandLine line = new picocli.CommandLine(new Ccm4j());
    line.setOut(new PrintWriter(out, true));

    assertThat(line.execute("run", "--help")).isZero();

    String help = out.toString().replaceAll("\\s+", " ");
    for (io.ccm4j.controllers.ControllerDescriptor controller :
        io.ccm4j.controllers.Controllers.ALL) {
      assertThat(help)
          .contains(controller.name() + " (" + controller.alias())
          .contains(controller.clientName());
    }
  }

  @org.junit.jupiter.api.Test
  void helpDocumentsThePodNetworkFlags() {
    StringWriter out = new StringWriter();
    picocli.CommandLine line = new picocli.CommandLine(new Ccm4j());
    line.setOut(new PrintWriter(out, true));

    assertThat(line.execute("run", "--help")).isZero();

    assertThat(out.toString())
        .contains(
            "Pod network (node-route-controller, node-ipam-controller):",
            "--cluster-cidr",
            "--configure-cloud-routes",
            "--route-reconciliation-period",
            "--allocate-node-cidrs",
            "--node-cidr-mask-size",
            "--node-cidr-mask-size-ipv4",
            "--node-cidr-mask-size-ipv6",
            "--service-cluster-ip-range",
            "--feature-gates",
            "node-ipam-controller (nodeipam");
  }

  private static boolean isListening(int port) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** The kubevirt provider checks its infrastructure kubeconfig at start, before campaigning. */
  @org.junit.jupiter.api.Test
  void aKubevirtKubeconfigWithoutACurrentContextExits2NamingTheField(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    var kubeconfig =
        java.nio.file.Files.writeString(
            dir.resolve("infra.kubeconfig"), "apiVersion: v1\nkind: Config\nclusters: []\n");
    var cloudConfig =
        java.nio.file.Files.writeString(
            dir.resolve("cloud.yaml"),
            "kubeconfig: %s\nnamespace: tenant-a\n".formatted(kubeconfig));
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    StringWriter err = new StringWriter();

    int exitCode =
        Ccm4j.execute(
            new PrintWriter(err, true),
            "run",
            "--cloud-provider=kubevirt",
            "--cloud-config=" + cloudConfig,
            "--controllers=*,kubevirt_eps_controller",
            "--bind-address=127.0.0.1",
            "--secure-port=" + port);

    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString().lines())
        .singleElement()
        .asString()
        .contains("--cloud-config: " + cloudConfig + ": field \"kubeconfig\"")
        .contains("has no current-context");
    assertThat(isListening(port)).isFalse();
  }

  /**
   * An empty file flag (a chart's unset value rendered, {@code --client-ca-file=}) is the flag not
   * given, as upstream's string flags read it: no client CA, the manager's own connection for the
   * reviews, the self-signed certificate, no request-header CA.
   */
  @org.junit.jupiter.api.Test
  void emptyServingFileFlagsAreUnsetAsUpstreams() {
    var settings =
        RunCommand.parse(
                List.of(
                    "--cloud-provider=fake",
                    "--authentication-kubeconfig=",
                    "--authorization-kubeconfig=",
                    "--client-ca-file=",
                    "--tls-cert-file=",
                    "--tls-private-key-file=",
                    "--requestheader-client-ca-file="))
            .settings(new FakeCloudProvider());

    assertThat(settings.servingAccess().authentication()).isEmpty();
    assertThat(settings.servingAccess().authorization()).isEmpty();
    assertThat(settings.servingAccess().clientCas()).isEmpty();
    assertThat(settings.servingKeys()).isNotNull();
  }

  /**
   * Upstream's command refuses an argument that is not a flag but lets an empty one through ({@code
   * cloud-provider/app/controllermanager.go}'s {@code Args}): a template's unset optional argument
   * rendered as {@code ""}, or a {@code $(VAR)} of an empty variable, starts the manager.
   */
  @org.junit.jupiter.api.Test
  void emptyArgumentsAreLetThroughAsUpstreams() {
    for (List<String> args :
        List.of(
            List.of("--cloud-provider=fake", "", "--cluster-name=x"),
            List.of("--cloud-provider=fake", "--cluster-name=x", ""),
            List.of("--cloud-provider=fake", "--leader-elect", "", "--cluster-name=x"))) {
      RunCommand run = RunCommand.parse(args);

      assertThat(run.settings().clusterName()).as("%s", args).isEqualTo("x");
    }
    assertThat(
            RunCommand.parse(List.of("--cloud-provider=fake", "--leader-elect", ""))
                .settings()
                .leaderElection())
        .isPresent();
  }

  @org.junit.jupiter.api.Test
  void anArgumentThatIsNotAFlagExits2NamingIt() {
    StringWriter err = new StringWriter();

    int exitCode =
        Ccm4j.execute(
            new PrintWriter(err, true),
            "run",
            "--cloud-provider=fake",
            "--secure-port=0",
            "",
            "--v=2",
            "aws");

    assertThat(exitCode).isEqualTo(2);
    assertThat(err.toString().lines())
        .singleElement()
        .asString()
        .contains("run takes no arguments, only flags: got 'aws'");
  }

  /**
   * Upstream's command reads {@code _} in a flag's name as {@code -} (component-base's {@code
   * cli.Run} sets {@code WordSepNormalizeFunc}): {@code --leader_elect=false} is {@code
   * --leader-elect=false}, in every form a flag takes.
   */
  @org.junit.jupiter.api.Test
  void underscoresInFlagNamesReadAsDashesAsUpstreams() {
    RunCommand run =
        RunCommand.parse(
            List.of(
                "--cloud_provider=fake",
                "--leader_elect=false",
                "--cluster_name",
                "my_cluster",
                "--route_reconciliation_period=30s",
                "--use_service_account_credentials",
                "--node-monitor_period=7s"));

    var settings = run.settings();
    assertThat(run.cloudProviderName()).isEqualTo("fake");
    assertThat(settings.leaderElection()).isEmpty();
    assertThat(settings.clusterName()).isEqualTo("my_cluster");
    assertThat(settings.controllers().network().routeReconciliationPeriod())
        .isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(run.useServiceAccountCredentials()).isTrue();
    assertThat(settings.controllers().cloudNodeLifecycle().monitorPeriod())
        .isEqualTo(java.time.Duration.ofSeconds(7));
    RunCommand repeated =
        RunCommand.parse(
            List.of("--cloud-provider=fake", "--v=1", "--cluster_name=a", "--cluster-name=b"));
    assertThat(repeated.settings().clusterName()).as("the last of both spellings").isEqualTo("b");
  }

  @org.junit.jupiter.api.Test
  void theServingPortMayBeUpstreamsWebhookPortWhenTheWebhookPortIsOff() {
    var settings =
        RunCommand.parse(
                List.of(
                    "--cloud-provider=fake",
                    "--bind-address=127.0.0.1",
                    "--secure-port=10260",
                    "--webhook-secure-port=0"))
            .settings();

    assertThat(settings.servingAddress())
        .hasValueSatisfying(a -> assertThat(a.getPort()).isEqualTo(10260));
  }

  /**
   * Whole-number flags read as pflag's int and int32 flags (Go's {@code strconv.ParseInt} with base
   * 0): a leading 0 is octal, so {@code --kube-api-burst=010} is 8 upstream, not 10; klog's {@code
   * --v} is read in base 10.
   */
  @org.junit.jupiter.api.Test
  void wholeNumberFlagsReadAsPflagsInts() {
    RunCommand run =
        RunCommand.parse(
            List.of(
                "--cloud-provider=fake",
                "--kube-api-burst=010",
                "--concurrent-service-syncs=0x3",
                "--secure-port=10_258",
                "--v=08")); // klog's base 10: 8

    var settings = run.settings();
    assertThat(run.kube.burst()).isEqualTo(8);
    assertThat(settings.controllers().service().concurrentServiceSyncs()).isEqualTo(3);
    assertThat(settings.servingAddress())
        .hasValueSatisfying(address -> assertThat(address.getPort()).isEqualTo(10258));
    assertThatThrownBy(
            () -> RunCommand.parse(List.of("--cloud-provider=fake", "--concurrent-node-syncs=08")))
        .isInstanceOf(picocli.CommandLine.ParameterException.class)
        .hasMessageContaining("--concurrent-node-syncs")
        .hasMessageContaining("'08' is not a whole number as Go reads it");
  }
}
