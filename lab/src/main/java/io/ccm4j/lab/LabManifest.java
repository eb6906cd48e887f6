package io.ccm4j.lab;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.ManifestDocument;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CCM manifest a user gives the lab: read and checked before any control plane starts (a file
 * or a directory of them, as the doctor reads them; it must hold a cloud-controller-manager the
 * doctor recognises, which is what the lab runs), and applied as {@code kubectl apply} would: an
 * object without a namespace goes to {@code default}; one the API server refuses is named with the
 * API server's reason. An object of a kind this cluster does not serve (a custom resource such as a
 * Prometheus ServiceMonitor, whose definition the manifest does not bring) is left out with a note:
 * it has no part in the bootstrap the lab plays.
 */
public final class LabManifest {

  /** Where {@code kubectl apply} puts a namespaced object that names no namespace. */
  static final String DEFAULT_NAMESPACE = "default";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * @param name the file's (or directory's) name without {@code .yaml}, for the report
   * @param text the manifest's objects, one YAML document each (anchors, merge keys and {@code
   *     kind: List} resolved as kubectl resolves them)
   */
  public record Read(String name, String text) {}

  /** A manifest's object the API server refused; the message names the object and the reason. */
  public static final class RefusedException extends RuntimeException {
    RefusedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private LabManifest() {}

  /** Reads {@code path}, a file or a directory of {@code .yaml}, {@code .yml} and {@code .json}. */
  public static Read read(Path path) throws ManifestException {
    // Strict: a file in a directory that cannot be read, or a kustomize patch (the lab would apply
    // the objects without it), ends the command, where the doctor goes on with a line.
    List<ManifestException> skipped = new ArrayList<>();
    List<ManifestDocument> documents = Manifests.read(List.of(path), skipped::add);
    if (!skipped.isEmpty()) {
      throw skipped.getFirst();
    }
    if (documents.isEmpty()) {
      throw new ManifestException(path, "no Kubernetes objects in it");
    }
    if (Doctor.workloads(documents).isEmpty()) {
      List<String> near = Doctor.notTakenForCcms(documents);
      throw new ManifestException(
          path,
          "no cloud-controller-manager in it, nothing for the lab to bootstrap with"
              + (near.isEmpty() ? "" : " (" + String.join("; ", near) + ")"));
    }
    List<String> texts = new ArrayList<>();
    for (ManifestDocument document : documents) {
      Optional<String> missing = missingField(document.object());
      if (missing.isPresent()) {
        throw new ManifestException(
            document.file(), document.line(), "an object without " + missing.get());
      }
      try {
        texts.add(YAML.writeValueAsString(document.object()));
      } catch (JsonProcessingException e) {
        throw new UncheckedIOException(e);
      }
    }
    String name =
        Optional.ofNullable(path.toAbsolutePath().normalize().getFileName())
            .map(Path::toString)
            .orElse("manifest")
            .replaceAll("\\.(ya?ml|json)$", "");
    return new Read(name, String.join("", texts));
  }

  /** What kubectl insists every object has. */
  private static Optional<String> missingField(Map<String, Object> object) {
    if (!(object.get("apiVersion") instanceof String apiVersion) || apiVersion.isBlank()) {
      return Optional.of("apiVersion");
    }
    if (!(object.get("kind") instanceof String kind) || kind.isBlank()) {
      return Optional.of("kind");
    }
    if (!(object.get("metadata") instanceof Map<?, ?> metadata)
        || !(metadata.get("name") instanceof String name)
        || name.isBlank()) {
      return Optional.of("metadata.name");
    }
    return Optional.empty();
  }

  /**
   * The objects of a manifest's text, each namespaced one without a namespace put in {@code
   * default}, those of kinds the cluster does not serve left out (a line on {@code out} each).
   */
  public static List<HasMetadata> objects(KubernetesClient admin, String text, PrintStream out) {
    List<HasMetadata> objects =
        admin.load(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8))).items();
    Map<String, Optional<APIResourceList>> discovery = new HashMap<>();
    List<HasMetadata> served = new ArrayList<>();
    for (HasMetadata object : objects) {
      Optional<APIResource> resource =
          discovery
              .computeIfAbsent(object.getApiVersion(), version -> resources(admin, version))
              .flatMap(
                  list ->
                      list.getResources().stream()
                          .filter(r -> object.getKind().equals(r.getKind()))
                          .filter(r -> !r.getName().contains("/")) // not a subresource
                          .findFirst());
      if (resource.isEmpty()) {
        out.printf(
            "lab: left out %s %s of the manifest: this cluster serves no such kind (%s)%n",
            object.getKind(), object.getMetadata().getName(), object.getApiVersion());
        continue;
      }
      if (Boolean.TRUE.equals(resource.get().getNamespaced())
          && object.getMetadata().getNamespace() == null) {
        object.getMetadata().setNamespace(DEFAULT_NAMESPACE);
      }
      served.add(object);
    }
    return served;
  }

  /** Creates each object, or updates it where it is there (the lab's own RBAC, say). */
  public static void apply(KubernetesClient admin, List<HasMetadata> objects) {
    for (HasMetadata object : objects) {
      try {
        admin.resource(object).createOr(existing -> existing.update());
      } catch (KubernetesClientException e) {
        String reason =
            e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : e.getMessage();
        throw new RefusedException(
            "the API server refused %s %s of the manifest: %s"
                .formatted(object.getKind(), qualifiedName(object), reason),
            e);
      }
    }
  }

  private static String qualifiedName(HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    return namespace == null
        ? object.getMetadata().getName()
        : namespace + "/" + object.getMetadata().getName();
  }

  private static Optional<APIResourceList> resources(KubernetesClient admin, String apiVersion) {
    try {
      return Optional.ofNullable(admin.getApiResources(apiVersion));
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
