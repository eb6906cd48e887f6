package io.ccm4j.runtime.events;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** Records Kubernetes Events about objects, as {@code kubectl describe} shows them. */
public interface EventRecorder {

  void normal(HasMetadata object, String reason, String message);

  void warning(HasMetadata object, String reason, String message);
}
