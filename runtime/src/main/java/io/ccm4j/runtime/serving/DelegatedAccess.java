package io.ccm4j.runtime.serving;

import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delegated authentication and authorization for the serving port, as upstream's {@code
 * DelegatingAuthenticationOptions} and {@code DelegatingAuthorizationOptions}: a bearer token is
 * checked with a {@code TokenReview}, a request without one is {@code system:anonymous}, and the
 * user may read the path when a {@code SubjectAccessReview} for the non-resource URL allows it
 * ({@code system:masters} always may). The always-allowed paths (by default the health endpoints,
 * for the kubelet's probes) skip both. Answers are cached for 10 s, as upstream's.
 *
 * <p>The reviews have a budget of {@link ManagerClients#REVIEW_QPS} a second (bursts of {@link
 * ManagerClients#REVIEW_BURST}): a request that would need a review beyond it is refused with 429
 * at once rather than queued, so a flood of unknown tokens costs the API server no more than the
 * budget, and no thread waits. Counted as upstream's {@code
 * apiserver_delegated_authn_request_total} and {@code apiserver_delegated_authz_request_total} by
 * status code.
 *
 * <p>Unlike upstream, client certificates are not accepted: scrapers authenticate with a token.
 */
public final class DelegatedAccess implements AccessControl {

  private static final Logger log = LoggerFactory.getLogger(DelegatedAccess.class);
  private static final Duration TTL = Duration.ofSeconds(10);
  private static final int MAX_CACHED = 1024;
  private static final ResourceDefinitionContext TOKEN_REVIEWS =
      new ResourceDefinitionContext.Builder()
          .withGroup("authentication.k8s.io")
          .withVersion("v1")
          .withKind("TokenReview")
          .withPlural("tokenreviews")
          .withNamespaced(false)
          .build();
  private static final ResourceDefinitionContext SUBJECT_ACCESS_REVIEWS =
      new ResourceDefinitionContext.Builder()
          .withGroup("authorization.k8s.io")
          .withVersion("v1")
          .withKind("SubjectAccessReview")
          .withPlural("subjectaccessreviews")
          .withNamespaced(false)
          .build();

  private record User(String name, String uid, List<String> groups, Map<String, Object> extra) {
    static final User ANONYMOUS =
        new User("system:anonymous", "", List.of("system:unauthenticated"), Map.of());

    /**
     * The user a client certificate names, as upstream's x509 authenticator reads it: none without
     * a common name (the request then counts as without a certificate).
     */
    static Optional<User> of(X509Certificate certificate) {
      String name = "";
      List<String> groups = new ArrayList<>();
      try {
        for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
          if (rdn.getType().equalsIgnoreCase("CN")) {
            name = String.valueOf(rdn.getValue());
          } else if (rdn.getType().equalsIgnoreCase("O")) {
            groups.add(String.valueOf(rdn.getValue()));
          }
        }
      } catch (InvalidNameException e) {
        throw new IllegalArgumentException("unreadable subject of a client certificate", e);
      }
      if (name.isEmpty()) {
        return Optional.empty();
      }
      groups.add("system:authenticated");
      return Optional.of(new User(name, "", List.copyOf(groups), Map.of()));
    }
  }

  private record Cached<T>(T value, long expiresNanos) {}

  private record Question(User user, String verb, String path) {}

  private final KubernetesClient authentication;
  private final KubernetesClient authorization;
  private final List<String> alwaysAllowPaths;
  private final LongSupplier nanoTime;
  private final Map<String, Cached<Optional<User>>> tokens = new ConcurrentHashMap<>();
  private final Map<Question, Cached<Boolean>> decisions = new ConcurrentHashMap<>();
  private final TokenBucketRateLimiter<Object> budget;
  private final MeterRegistry metrics;

  /**
   * @param alwaysAllowPaths paths served to anyone; one ending in {@code *} is a prefix (upstream's
   *     {@code --authorization-always-allow-paths})
   */
  public DelegatedAccess(KubernetesClient client, List<String> alwaysAllowPaths) {
    this(client, client, alwaysAllowPaths);
  }

  /**
   * @param authentication where TokenReviews go ({@code --authentication-kubeconfig})
   * @param authorization where SubjectAccessReviews go ({@code --authorization-kubeconfig})
   */
  public DelegatedAccess(
      KubernetesClient authentication,
      KubernetesClient authorization,
      List<String> alwaysAllowPaths) {
    this(authentication, authorization, alwaysAllowPaths, new SimpleMeterRegistry());
  }

  /**
   * @param metrics where the reviews are counted
   */
  public DelegatedAccess(
      KubernetesClient authentication,
      KubernetesClient authorization,
      List<String> alwaysAllowPaths,
      MeterRegistry metrics) {
    this(
        authentication,
        authorization,
        alwaysAllowPaths,
        metrics,
        new TokenBucketRateLimiter<>(ManagerClients.REVIEW_QPS, ManagerClients.REVIEW_BURST),
        System::nanoTime);
  }

  DelegatedAccess(
      KubernetesClient authentication,
      KubernetesClient authorization,
      List<String> alwaysAllowPaths,
      MeterRegistry metrics,
      TokenBucketRateLimiter<Object> budget,
      LongSupplier nanoTime) {
    this.authentication = authentication;
    this.authorization = authorization;
    this.alwaysAllowPaths = List.copyOf(alwaysAllowPaths);
    this.metrics = metrics;
    this.budget = budget;
    this.nanoTime = nanoTime;
  }

  @Override
  public Optional<Denial> check(String method, String path, Optional<String> authorization) {
    return check(method, path, authorization, Optional.empty());
  }

  /**
   * As upstream's delegated authentication, a client certificate the serving port's client CA
   * issued comes before a bearer token: its common name is the user, its organizations are the
   * user's groups, with {@code system:authenticated}; no token review is spent on it.
   */
  @Override
  public Optional<Denial> check(
      String method,
      String path,
      Optional<String> authorization,
      Optional<X509Certificate> clientCertificate) {
    if (alwaysAllowed(path)) {
      return Optional.empty();
    }
    User user = User.ANONYMOUS;
    Optional<User> certified = clientCertificate.flatMap(User::of);
    if (certified.isPresent()) {
      user = certified.get();
    } else if (authorization.isPresent()) {
      String header = authorization.get().trim();
      if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
        return Optional.of(new Denial(401, "Unauthorized", "Unauthorized"));
      }
      Optional<User> reviewed;
      try {
        reviewed = authenticate(header.substring(7).trim());
      } catch (OverBudget e) {
        return Optional.of(TOO_MANY);
      } catch (KubernetesClientException e) {
        log.warn("serving: token review failed: {}", e.getMessage());
        return Optional.of(new Denial(401, "Unauthorized", "Unauthorized"));
      }
      if (reviewed.isEmpty()) {
        return Optional.of(new Denial(401, "Unauthorized", "Unauthorized"));
      }
      user = reviewed.get();
    }
    if (user.groups().contains("system:masters")) {
      return Optional.empty();
    }
    String verb = method.toLowerCase(Locale.ROOT);
    boolean allowed;
    try {
      allowed = authorize(new Question(user, verb, path));
    } catch (OverBudget e) {
      return Optional.of(TOO_MANY);
    } catch (KubernetesClientException e) {
      log.warn("serving: subject access review failed: {}", e.getMessage());
      return Optional.of(
          new Denial(
              500, "InternalError", "authorization check failed: " + KubernetesErrors.reason(e)));
    }
    if (allowed) {
      return Optional.empty();
    }
    return Optional.of(
        new Denial(
            403,
            "Forbidden",
            "forbidden: User \"%s\" cannot %s path \"%s\"".formatted(user.name(), verb, path)));
  }

  private boolean alwaysAllowed(String path) {
    for (String allowed : alwaysAllowPaths) {
      if (allowed.endsWith("*")
          ? path.startsWith(allowed.substring(0, allowed.length() - 1))
          : path.equals(allowed)) {
        return true;
      }
    }
    return false;
  }

  private Optional<User> authenticate(String token) {
    Cached<Optional<User>> cached = fresh(tokens, token);
    if (cached != null) {
      return cached.value();
    }
    spend();
    GenericKubernetesResource review = review("authentication.k8s.io/v1", "TokenReview");
    review.setAdditionalProperty("spec", Map.of("token", token));
    Map<String, Object> status =
        statusOf(
            counted(
                "apiserver_delegated_authn_request_total",
                () ->
                    authentication
                        .genericKubernetesResources(TOKEN_REVIEWS)
                        .resource(review)
                        .create()));
    Optional<User> user = Optional.empty();
    if (Boolean.TRUE.equals(status.get("authenticated"))
        && status.get("user") instanceof Map<?, ?> info) {
      user =
          Optional.of(
              new User(
                  String.valueOf(info.get("username")),
                  info.get("uid") == null ? "" : String.valueOf(info.get("uid")),
                  strings(info.get("groups")),
                  info.get("extra") instanceof Map<?, ?> extra ? copy(extra) : Map.of()));
    }
    remember(tokens, token, user);
    return user;
  }

  private boolean authorize(Question question) {
    Cached<Boolean> cached = fresh(decisions, question);
    if (cached != null) {
      return cached.value();
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("user", question.user().name());
    if (!question.user().uid().isEmpty()) {
      spec.put("uid", question.user().uid());
    }
    spec.put("groups", question.user().groups());
    if (!question.user().extra().isEmpty()) {
      spec.put("extra", question.user().extra());
    }
    spec.put("nonResourceAttributes", Map.of("path", question.path(), "verb", question.verb()));
    spend();
    GenericKubernetesResource review = review("authorization.k8s.io/v1", "SubjectAccessReview");
    review.setAdditionalProperty("spec", spec);
    Map<String, Object> status =
        statusOf(
            counted(
                "apiserver_delegated_authz_request_total",
                () ->
                    authorization
                        .genericKubernetesResources(SUBJECT_ACCESS_REVIEWS)
                        .resource(review)
                        .create()));
    boolean allowed = Boolean.TRUE.equals(status.get("allowed"));
    remember(decisions, question, allowed);
    return allowed;
  }

  /** A review would go beyond the budget: the request is refused, nothing is sent. */
  private static final class OverBudget extends RuntimeException {
    OverBudget() {
      super(null, null, false, false);
    }
  }

  private static final Denial TOO_MANY =
      new Denial(
          429,
          "TooManyRequests",
          "too many requests: the serving port's token and access reviews are limited to %s/s"
              .formatted(ManagerClients.REVIEW_QPS));

  private void spend() {
    if (!budget.tryAcquire()) {
      throw new OverBudget();
    }
  }

  /** Sends a review and counts it by the HTTP status code of its answer. */
  private GenericKubernetesResource counted(
      String counter, Supplier<GenericKubernetesResource> review) {
    String code = "201";
    try {
      return review.get();
    } catch (KubernetesClientException e) {
      code = e.getCode() == 0 ? "<error>" : String.valueOf(e.getCode());
      throw e;
    } finally {
      Counter.builder(counter)
          .description("[ALPHA] Number of HTTP requests partitioned by status code.")
          .tag("code", code)
          .register(metrics)
          .increment();
    }
  }

  private static GenericKubernetesResource review(String apiVersion, String kind) {
    GenericKubernetesResource review = new GenericKubernetesResource();
    review.setApiVersion(apiVersion);
    review.setKind(kind);
    review.setMetadata(new ObjectMeta());
    return review;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> statusOf(GenericKubernetesResource answer) {
    Object status = answer == null ? null : answer.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  private static List<String> strings(Object value) {
    List<String> result = new ArrayList<>();
    if (value instanceof List<?> list) {
      list.forEach(item -> result.add(String.valueOf(item)));
    }
    return List.copyOf(result);
  }

  private static Map<String, Object> copy(Map<?, ?> map) {
    Map<String, Object> result = new LinkedHashMap<>();
    map.forEach((key, value) -> result.put(String.valueOf(key), value));
    return Map.copyOf(result);
  }

  private <K, V> Cached<V> fresh(Map<K, Cached<V>> cache, K key) {
    Cached<V> cached = cache.get(key);
    return cached != null && nanoTime.getAsLong() - cached.expiresNanos() < 0 ? cached : null;
  }

  private <K, V> void remember(Map<K, Cached<V>> cache, K key, V value) {
    if (cache.size() >= MAX_CACHED) {
      cache.clear(); // bounded: a flood of distinct tokens must not grow the heap
    }
    cache.put(key, new Cached<>(value, nanoTime.getAsLong() + TTL.toNanos()));
  }
}
