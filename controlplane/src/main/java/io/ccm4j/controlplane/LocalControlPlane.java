package io.ccm4j.controlplane;

import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane on loopback: etcd, kube-apiserver with TLS, token authentication
 * and RBAC, and optionally kube-scheduler. Every port is chosen free at start; one taken by another
 * process before etcd or kube-apiserver binds it makes them start again on fresh ports. Everything
 * started is stopped by {@link #close()} (and by a shutdown hook, should the JVM exit first).
 *
 * <pre>{@code
 * try (LocalControlPlane controlPlane = LocalControlPlane.builder().withScheduler(true).start()) {
 *   KubernetesClient client = controlPlane.newClient();
 * }
 * }</pre>
 */
public final class LocalControlPlane implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LocalControlPlane.class);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final String ADMIN_USER = "ccm4j-admin";
  private static final String SCHEDULER_USER = "system:kube-scheduler";
  private static final String CONTROLLER_MANAGER_USER = "system:kube-controller-manager";

  /**
   * The kube-controller-manager controllers a workload needs (Deployments, DaemonSets, each
   * namespace's default ServiceAccount and {@code kube-root-ca.crt}, which every projected token
   * volume reads since 1.22; tokens of legacy token Secrets); node lifecycle and cloud work are
   * left to ccm4j.
   */
  private static final String WORKLOAD_CONTROLLERS =
      "deployment,replicaset,daemonset,serviceaccount,serviceaccount-token,root-ca-cert-publisher";

  /**
   * The controllers kube-proxy needs besides: Services' EndpointSlices (and those mirrored from
   * Endpoints).
   */
  private static final String ENDPOINT_SLICE_CONTROLLERS = "endpointslice,endpointslicemirroring";

  private static final String SERVICE_CIDR = "10.96.0.0/16";

  /**
   * How often etcd and kube-apiserver are started on fresh ports after one found its port taken: a
   * free port is released before the component binds it, and another process (a parallel test's
   * control plane, a manager's server) may take it in between.
   */
  static final int START_ATTEMPTS = 5;

  /** What a Go program's listener says when its port is taken (EADDRINUSE). */
  private static final String ADDRESS_IN_USE = "address already in use";

  private static final Pattern LISTEN_ERROR =
      Pattern.compile("listen tcp \\S+: bind: " + ADDRESS_IN_USE);

  private final Path directory;
  private final boolean deleteDirectory;
  private final ControlPlaneBinaries binaries;
  private final PortSource ports;
  private final List<ManagedProcess> processes = new ArrayList<>();
  private final Thread shutdownHook = new Thread(this::stopProcesses, "local-control-plane-stop");
  private String serverUrl;
  private String etcdUrl;
  private String caPem;
  private SelfSignedCertificate ca;

  /** The CA that issued the API server's serving certificate: the cluster's, unless replaced. */
  private String servingCaPem;

  private String adminToken;
  private Duration startTime;

  /** Configures a control plane; {@link Builder#start()} starts it. */
  public static final class Builder {
    private Path directory;
    private boolean scheduler;
    private boolean controllerManager;
    private boolean endpointSlices;
    private ControlPlaneBinaries binaries;
    private PortSource ports = LocalControlPlane::freePort;

    private Builder() {}

    /**
     * Where to keep data, certificates, kubeconfigs and logs; default a new temporary directory,
     * deleted at close.
     */
    public Builder directory(Path directory) {
      this.directory = directory;
      return this;
    }

    /** Also run kube-scheduler, so pods get bound to nodes. */
    public Builder withScheduler(boolean scheduler) {
      this.scheduler = scheduler;
      return this;
    }

    /**
     * Also run kube-controller-manager with the workload controllers only (Deployments become pods,
     * namespaces get their default ServiceAccount and root CA ConfigMap), as a cluster whose node
     * controllers are ccm4j's has.
     */
    public Builder withControllerManager(boolean controllerManager) {
      this.controllerManager = controllerManager;
      return this;
    }

    /**
     * With {@link #withControllerManager}: also the EndpointSlice controllers, for a real
     * kube-proxy.
     */
    public Builder withEndpointSlices(boolean endpointSlices) {
      this.endpointSlices = endpointSlices;
      return this;
    }

    public Builder binaries(ControlPlaneBinaries binaries) {
      this.binaries = binaries;
      return this;
    }

    /** Where the components' ports come from; for tests that hand out a taken one. */
    Builder ports(PortSource ports) {
      this.ports = ports;
      return this;
    }

    public LocalControlPlane start() {
      try {
        Path dir = directory != null ? directory : Files.createTempDirectory("ccm4j-control-plane");
        LocalControlPlane controlPlane =
            new LocalControlPlane(
                dir,
                directory == null,
                binaries != null ? binaries : ControlPlaneBinaries.resolve(),
                ports);
        try {
          controlPlane.start(scheduler, controllerManager, endpointSlices);
        } catch (RuntimeException | Error e) {
          controlPlane.close();
          throw e;
        }
        return controlPlane;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot prepare the control-plane directory", e);
      }
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  private LocalControlPlane(
      Path directory, boolean deleteDirectory, ControlPlaneBinaries binaries, PortSource ports) {
    this.directory = directory;
    this.deleteDirectory = deleteDirectory;
    this.binaries = binaries;
    this.ports = ports;
  }

  private void start(
      boolean withScheduler, boolean withControllerManager, boolean withEndpointSlices) {
    long started = System.nanoTime();
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    try {
      Files.createDirectories(directory);
      Path pki = Files.createDirectories(directory.resolve("pki"));
      ca = SelfSignedCertificate.certificateAuthority("ccm4j-local-ca", Duration.ofDays(365));
      SelfSignedCertificate serviceAccountKey =
          SelfSignedCertificate.certificateAuthority("service-accounts", Duration.ofDays(365));
      caPem = ca.certificatePem();
      write(pki.resolve("ca.crt"), caPem);
      writeServingCertificate(ca);
      write(pki.resolve("sa.key"), serviceAccountKey.privateKeyPem());
      write(pki.resolve("sa.pub"), serviceAccountKey.publicKeyPem());
      adminToken = randomToken();
      String schedulerToken = randomToken();
      String controllerManagerToken = randomToken();
      write(
          pki.resolve("tokens.csv"),
          "%s,%s,%s,\"system:masters\"\n%s,%s,%s\n%s,%s,%s\n"
              .formatted(
                  adminToken,
                  ADMIN_USER,
                  ADMIN_USER,
                  schedulerToken,
                  SCHEDULER_USER,
                  SCHEDULER_USER,
                  controllerManagerToken,
                  CONTROLLER_MANAGER_USER,
                  CONTROLLER_MANAGER_USER));

      KubernetesVersion version = binaries.version();
      startEtcdAndApiServer(pki, version);
      write(directory.resolve("kubeconfig"), kubeconfig(ADMIN_USER, adminToken));
      if (withScheduler) {
        Path schedulerKubeconfig = directory.resolve("kube-scheduler.kubeconfig");
        write(schedulerKubeconfig, kubeconfig(SCHEDULER_USER, schedulerToken));
        start(
            "kube-scheduler",
            List.of(
                binaries.kubeScheduler().toString(),
                "--kubeconfig=" + schedulerKubeconfig,
                "--authentication-kubeconfig=" + schedulerKubeconfig,
                "--authorization-kubeconfig=" + schedulerKubeconfig,
                "--leader-elect=false",
                "--bind-address=127.0.0.1",
                // Nothing here reads its endpoints: no port, so none another process can take
                // first (before 1.24, when it also served plain HTTP, one chosen free as before).
                "--secure-port=" + (version.atLeast(24) ? 0 : ports.next()),
                "--v=1"),
            insecurePortOff(version));
      }
      if (withControllerManager) {
        Path kubeconfig = directory.resolve("kube-controller-manager.kubeconfig");
        write(kubeconfig, kubeconfig(CONTROLLER_MANAGER_USER, controllerManagerToken));
        start(
            "kube-controller-manager",
            List.of(
                binaries.kubeControllerManager().toString(),
                "--kubeconfig=" + kubeconfig,
                "--authentication-kubeconfig=" + kubeconfig,
                "--authorization-kubeconfig=" + kubeconfig,
                "--controllers="
                    + WORKLOAD_CONTROLLERS
                    + (withEndpointSlices ? "," + ENDPOINT_SLICE_CONTROLLERS : ""),
                "--service-account-private-key-file=" + pki.resolve("sa.key"),
                "--root-ca-file=" + pki.resolve("ca.crt"),
                "--use-service-account-credentials=true",
                "--leader-elect=false",
                "--secure-port=0",
                "--v=1"),
            insecurePortOff(version));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the local control plane in " + directory, e);
    }
    startTime = Duration.ofNanos(System.nanoTime() - started);
    log.info(
        "local control plane (Kubernetes {}) ready at {} after {} ms",
        binaries.version(),
        serverUrl,
        startTime.toMillis());
  }

  /**
   * etcd, then kube-apiserver, until it is ready; on fresh ports again when one of them could not
   * listen because its port was taken meanwhile (with a fresh etcd, unless its data was there
   * before: a directory given again keeps its cluster).
   */
  private void startEtcdAndApiServer(Path pki, KubernetesVersion version) throws IOException {
    Path etcdData = directory.resolve("etcd-data");
    boolean etcdDataOfThisStart = !Files.exists(etcdData);
    for (int attempt = 1; ; attempt++) {
      try {
        int etcdClientPort = ports.next();
        int etcdPeerPort = ports.next();
        int apiserverPort = ports.next();
        etcdUrl = "http://127.0.0.1:" + etcdClientPort;
        String peerUrl = "http://127.0.0.1:" + etcdPeerPort;
        start(
            "etcd",
            List.of(
                binaries.etcd().toString(),
                "--name=default",
                "--data-dir=" + etcdData,
                "--listen-client-urls=" + etcdUrl,
                "--advertise-client-urls=" + etcdUrl,
                "--listen-peer-urls=" + peerUrl,
                "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=default=" + peerUrl,
                "--log-level=warn"));

        serverUrl = "https://127.0.0.1:" + apiserverPort;
        List<String> apiserver =
            new ArrayList<>(
                List.of(
                    binaries.kubeApiserver().toString(),
                    "--etcd-servers=" + etcdUrl,
                    "--bind-address=127.0.0.1",
                    "--advertise-address=127.0.0.1",
                    "--secure-port=" + apiserverPort,
                    "--cert-dir=" + pki,
                    "--tls-cert-file=" + pki.resolve("apiserver.crt"),
                    "--tls-private-key-file=" + pki.resolve("apiserver.key"),
                    "--client-ca-file=" + pki.resolve("ca.crt"),
                    "--token-auth-file=" + pki.resolve("tokens.csv"),
                    "--authorization-mode=RBAC",
                    "--service-account-key-file=" + pki.resolve("sa.pub"),
                    "--service-account-signing-key-file=" + pki.resolve("sa.key"),
                    "--service-account-issuer=https://kubernetes.default.svc",
                    "--service-cluster-ip-range=" + SERVICE_CIDR,
                    "--endpoint-reconciler-type=none",
                    "--allow-privileged=true",
                    "--v=1"));
        if (!version.atLeast(24)) {
          // The insecure port is gone in 1.24; before, it was on unless switched off.
          apiserver.add("--insecure-port=0");
        }
        if (!version.atLeast(23)) {
          // Keeps both of a dual-stack node's podCIDRs (always on since 1.23, the gate gone in
          // 1.25).
          apiserver.add("--feature-gates=IPv6DualStack=true");
        }
        start("kube-apiserver", apiserver);
        awaitReady();
        return;
      } catch (PortTakenException e) {
        if (attempt == START_ATTEMPTS) {
          throw e;
        }
        log.info(
            "{}; starting etcd and kube-apiserver again on other ports (attempt {} of {})",
            e.getMessage(),
            attempt + 1,
            START_ATTEMPTS);
        stopProcesses();
        if (etcdDataOfThisStart) {
          deleteRecursively(etcdData);
        }
      }
    }
  }

  private void start(String name, List<String> command) throws IOException {
    processes.add(ManagedProcess.start(name, command, directory.resolve(name + ".log")));
  }

  /**
   * Fault injection: kills a component ({@code etcd}, {@code kube-apiserver}, ...) with SIGKILL, as
   * a crash or an out-of-memory kill would, and starts it again after {@code down} with the same
   * flags, ports and data. Returns once the API server answers {@code /readyz} again.
   *
   * @return how long the API server was not ready, from the kill
   */
  public Duration crashAndRestart(String component, Duration down) {
    return crashAndRestart(
        component,
        () -> {
          try {
            Thread.sleep(down);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + component + " is down", e);
          }
        });
  }

  /**
   * Fault injection: as {@link #crashAndRestart(String, Duration)}, running {@code whileDown} (say,
   * {@link #compactEtcd()} while the API server is gone) before the component starts again.
   */
  public synchronized Duration crashAndRestart(String component, Runnable whileDown) {
    int index = indexOf(component);
    ManagedProcess crashed = processes.get(index);
    long killed = System.nanoTime();
    crashed.kill();
    whileDown.run();
    try {
      processes.set(index, crashed.restart());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + component + " again", e);
    }
    awaitReady();
    Duration outage = Duration.ofNanos(System.nanoTime() - killed);
    log.info(
        "{} crashed and restarted; the API server was back after {} ms",
        component,
        outage.toMillis());
    return outage;
  }

  /**
   * Fault injection: stops a component with SIGSTOP for {@code stopped}, then lets it go on with
   * SIGCONT, as a node's freeze or a long garbage collection would: its connections stay open and
   * nothing on them is answered meanwhile.
   */
  public synchronized void freeze(String component, Duration stopped) {
    long pid = processes.get(indexOf(component)).process().pid();
    signal("STOP", pid);
    try {
      Thread.sleep(stopped);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      signal("CONT", pid);
    }
    log.info("{} was stopped for {} ms", component, stopped.toMillis());
  }

  private static void signal(String signal, long pid) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot send SIG" + signal + " to " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal, e);
    }
  }

  /**
   * Fault injection: the API server's serving certificate replaced by one {@code issuer} issued
   * (say, a CA its clients do not trust), and the API server restarted on it, as after a botched
   * rotation: every connection to it is new. Returns once it is ready, as seen by a client trusting
   * {@code issuer}.
   */
  public synchronized void replaceServingCertificate(SelfSignedCertificate issuer) {
    try {
      writeServingCertificate(issuer);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the serving certificate", e);
    }
    crashAndRestart("kube-apiserver", Duration.ZERO);
  }

  /** Undoes {@link #replaceServingCertificate}: a certificate of the cluster's CA again. */
  public void restoreServingCertificate() {
    replaceServingCertificate(ca);
  }

  private void writeServingCertificate(SelfSignedCertificate issuer) throws IOException {
    SelfSignedCertificate serving =
        SelfSignedCertificate.serving(
            "kube-apiserver",
            List.of("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"),
            List.of("127.0.0.1", "10.96.0.1"),
            Duration.ofDays(365),
            issuer);
    Path pki = directory.resolve("pki");
    write(pki.resolve("apiserver.crt"), serving.certificatePem());
    write(pki.resolve("apiserver.key"), serving.privateKeyPem());
    servingCaPem = issuer.certificatePem();
  }

  /**
   * Fault injection: compacts etcd's history up to its current revision (after one write of a key
   * outside the API server's, so the revision has moved past every resourceVersion handed out so
   * far), as the API server does every five minutes: a watch from an older resourceVersion is then
   * answered 410 Gone ("too old resource version"). Works while the API server is down.
   *
   * @return the revision compacted to
   */
  public long compactEtcd() {
    HttpClient http = HttpClient.newHttpClient();
    String key =
        Base64.getEncoder().encodeToString("/ccm4j-compaction".getBytes(StandardCharsets.UTF_8));
    String put = etcd(http, "/v3/kv/put", "{\"key\":\"%s\",\"value\":\"\"}".formatted(key));
    Matcher revision = Pattern.compile("\"revision\":\"(\\d+)\"").matcher(put);
    if (!revision.find()) {
      throw new IllegalStateException("etcd's answer to a put names no revision: " + put);
    }
    long compacted = Long.parseLong(revision.group(1));
    etcd(http, "/v3/kv/compaction", "{\"revision\":\"%d\",\"physical\":true}".formatted(compacted));
    log.info("etcd compacted to revision {}", compacted);
    return compacted;
  }

  /** A call of etcd's JSON gateway; its answer. */
  private String etcd(HttpClient http, String path, String json) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(etcdUrl + path))
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "etcd answered %s with HTTP %d: %s"
                .formatted(path, response.statusCode(), response.body()));
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reach etcd at " + etcdUrl, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while calling etcd", e);
    }
  }

  private int indexOf(String component) {
    int index = -1;
    for (int i = 0; i < processes.size(); i++) {
      if (processes.get(i).name().equals(component)) {
        index = i;
      }
    }
    if (index < 0) {
      throw new IllegalArgumentException("no component " + component + " runs here");
    }
    return index;
  }

  private void start(String name, List<String> command, List<String> more) throws IOException {
    List<String> all = new ArrayList<>(command);
    all.addAll(more);
    start(name, all);
  }

  /** kube-scheduler and kube-controller-manager served plain HTTP on --port until 1.24. */
  private static List<String> insecurePortOff(KubernetesVersion version) {
    return version.atLeast(24) ? List.of() : List.of("--port=0");
  }

  private void awaitReady() {
    HttpClient http = HttpClient.newBuilder().sslContext(trustingCa()).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(serverUrl + "/readyz"))
            .header("Authorization", "Bearer " + adminToken)
            .timeout(Duration.ofSeconds(5))
            .build();
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    String lastAnswer = "no answer";
    while (System.nanoTime() < deadline) {
      for (ManagedProcess process : processes) {
        process.checkAlive();
      }
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        lastAnswer = "HTTP " + response.statusCode();
      } catch (IOException e) {
        lastAnswer = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for kube-apiserver", e);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for kube-apiserver", e);
      }
    }
    throw new IllegalStateException(
        "kube-apiserver at %s was not ready after %ds (last answer: %s); its log: %s"
            .formatted(
                serverUrl,
                READY_TIMEOUT.toSeconds(),
                lastAnswer,
                directory.resolve("kube-apiserver.log")));
  }

  private SSLContext trustingCa() {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      var factory = java.security.cert.CertificateFactory.getInstance("X.509");
      trust.setCertificateEntry(
          "ca",
          factory.generateCertificate(
              new ByteArrayInputStream(servingCaPem.getBytes(StandardCharsets.US_ASCII))));
      TrustManagerFactory managers =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      managers.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, managers.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot trust the local CA", e);
    }
  }

  /**
   * A kubeconfig that authenticates with a bearer token; for the admin, another user or a service
   * account.
   */
  public String kubeconfig(String user, String token) {
    String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: %s
          user:
            token: %s
        contexts:
        - name: local
          context:
            cluster: local
            user: %s
        current-context: local
        """
        .formatted(serverUrl, ca, user, token, user);
  }

  /** The admin kubeconfig file (user {@value #ADMIN_USER}, group {@code system:masters}). */
  public Path kubeconfigPath() {
    return directory.resolve("kubeconfig");
  }

  /** The admin client configuration. */
  public Config adminConfig() {
    return Config.fromKubeconfig(kubeconfig(ADMIN_USER, adminToken));
  }

  /** A new admin client; the caller closes it. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(adminConfig()).build();
  }

  public String serverUrl() {
    return serverUrl;
  }

  public Path directory() {
    return directory;
  }

  public ControlPlaneBinaries binaries() {
    return binaries;
  }

  /**
   * The process id of a running component ({@code etcd}, {@code kube-apiserver}, ...), for reading
   * what it costs from {@code /proc}; empty if no such component runs here.
   */
  public synchronized OptionalLong pid(String component) {
    return processes.stream()
        .filter(process -> process.name().equals(component) && process.process().isAlive())
        .mapToLong(process -> process.process().pid())
        .findFirst();
  }

  /** How long {@link Builder#start()} took, from creating certificates to a ready API server. */
  public Duration startTime() {
    return startTime;
  }

  @Override
  public void close() {
    stopProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // Already shutting down: the hook is running or has run.
    }
    if (deleteDirectory) {
      deleteRecursively(directory);
    }
  }

  private synchronized void stopProcesses() {
    // Reverse order: the scheduler and the API server go before the etcd they depend on.
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).stop(Duration.ofSeconds(10));
    }
    processes.clear();
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      log.warn("could not delete {}: {}", root, e.getMessage());
    }
  }

  private static void write(Path path, String content) throws IOException {
    Files.writeString(path, content, StandardCharsets.UTF_8);
  }

  private static String randomToken() {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Hands out the components' ports. */
  @FunctionalInterface
  interface PortSource {
    int next() throws IOException;
  }

  /** A component could not listen: its port was taken after it was chosen free. */
  static final class PortTakenException extends IllegalStateException {
    PortTakenException(String message) {
      super(message);
    }
  }

  /** A port that was free a moment ago on 127.0.0.1. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /**
   * A child process whose output goes to a log file, from {@code logStart} on (the file keeps the
   * output of earlier runs).
   */
  private record ManagedProcess(
      String name, List<String> command, Process process, Path logFile, long logStart) {

    static ManagedProcess start(String name, List<String> command, Path logFile)
        throws IOException {
      long logStart = Files.exists(logFile) ? Files.size(logFile) : 0;
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
              .start();
      process.getOutputStream().close();
      return new ManagedProcess(name, List.copyOf(command), process, logFile, logStart);
    }

    ManagedProcess restart() throws IOException {
      return start(name, command, logFile);
    }

    void kill() {
      try {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /**
     * @throws PortTakenException when it exited because a port of its was taken
     * @throws IllegalStateException when it exited otherwise
     */
    void checkAlive() {
      if (!process.isAlive()) {
        List<String> output = output();
        Optional<String> portTaken =
            output.stream().filter(line -> line.contains(ADDRESS_IN_USE)).findFirst();
        if (portTaken.isPresent()) {
          // Go's error ("listen tcp 127.0.0.1:2379: bind: address already in use"), not the
          // whole log line around it (etcd's is JSON with a stack trace).
          Matcher listen = LISTEN_ERROR.matcher(portTaken.get());
          throw new PortTakenException(
              "%s could not listen: %s"
                  .formatted(name, listen.find() ? listen.group() : portTaken.get().strip()));
        }
        throw new IllegalStateException(
            "%s exited with code %d; last lines of %s:%n%s"
                .formatted(
                    name,
                    process.exitValue(),
                    logFile,
                    String.join(
                        "\n", output.subList(Math.max(0, output.size() - 20), output.size()))));
      }
    }

    void stop(Duration grace) {
      if (!process.isAlive()) {
        return;
      }
      process.destroy();
      try {
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }

    /** Its output, this run's only. */
    private List<String> output() {
      try (var channel = Files.newByteChannel(logFile)) {
        channel.position(logStart);
        byte[] bytes = java.nio.channels.Channels.newInputStream(channel).readAllBytes();
        return new String(bytes, StandardCharsets.UTF_8).lines().toList();
      } catch (IOException e) {
        return List.of("(unreadable: " + e.getMessage() + ")");
      }
    }
  }
}
