package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class KubernetesErrorsTest {

  @Test
  void theApiServersAnswerIsTheReasonWhereverItIsWrapped() {
    KubernetesClientException forbidden =
        new KubernetesClientException(
            new StatusBuilder()
                .withCode(403)
                .withMessage(
                    "leases.coordination.k8s.io \"cloud-controller-manager\" is forbidden: User"
                        + " \"system:serviceaccount:kube-system:weak\" cannot get resource"
                        + " \"leases\"")
                .build());

    assertThat(KubernetesErrors.reason(new CompletionException(forbidden)))
        .isEqualTo(
            "leases.coordination.k8s.io \"cloud-controller-manager\" is forbidden: User"
                + " \"system:serviceaccount:kube-system:weak\" cannot get resource \"leases\""
                + " (403)");
  }

  /** fabric8 says "An error has occurred." of a transport failure; its cause says which. */
  @Test
  void aTransportFailureIsNamedByItsCause() {
    assertThat(
            KubernetesErrors.reason(
                new KubernetesClientException(
                    KubernetesErrors.GENERIC, new ConnectException("Connection refused"))))
        .isEqualTo("ConnectException: Connection refused");
    assertThat(
            KubernetesErrors.reason(
                new CompletionException(
                    new KubernetesClientException(
                        KubernetesErrors.GENERIC,
                        new SSLHandshakeException("PKIX path building failed")))))
        .isEqualTo("SSLHandshakeException: PKIX path building failed");
    assertThat(KubernetesErrors.reason(new KubernetesClientException(KubernetesErrors.GENERIC)))
        .isEqualTo("KubernetesClientException");
  }

  /**
   * fabric8 names the request that failed ("Operation: [get] ... failed.") and leaves why to its
   * causes: both are said, as client-go's {@code Get "https://…": tls: failed to verify
   * certificate: x509: certificate signed by unknown authority} is.
   */
  @Test
  void aFailedOperationIsNamedWithTheCauseThatMadeItFail() {
    KubernetesClientException failed =
        new KubernetesClientException(
            "Operation: [get]  for kind: [Lease]  with name: [ccm]  in namespace: [kube-system] "
                + " failed.",
            new IOException(
                "(certificate_unknown) PKIX path building failed",
                new SSLHandshakeException("(certificate_unknown) PKIX path building failed")));

    assertThat(KubernetesErrors.reason(new CompletionException(failed)))
        .isEqualTo(
            "Operation: [get]  for kind: [Lease]  with name: [ccm]  in namespace: [kube-system] "
                + " failed: (certificate_unknown) PKIX path building failed");
    assertThat(
            KubernetesErrors.reason(
                new KubernetesClientException(
                    "Operation: [list]  for kind: [Node]  with name: [null]  in namespace: [null] "
                        + " failed.",
                    new ConnectException("Connection refused"))))
        .isEqualTo(
            "Operation: [list]  for kind: [Node]  with name: [null]  in namespace: [null] "
                + " failed: Connection refused");
  }

  /**
   * As client-go's error reads in upstream's events: the API server's message alone, where
   * fabric8's message adds the request's URL and the whole Status object.
   */
  @Test
  void theMessageOfAnAnswerIsTheApiServersAloneAsClientGoSaysIt() {
    KubernetesClientException invalid =
        new KubernetesClientException(
            new StatusBuilder()
                .withCode(422)
                .withMessage(
                    "Service \"r3\" is invalid: status.loadBalancer.ingress: Forbidden: may only be"
                        + " used when `spec.type` is 'LoadBalancer'")
                .build());

    assertThat(KubernetesErrors.message(invalid))
        .isEqualTo(
            "Service \"r3\" is invalid: status.loadBalancer.ingress: Forbidden: may only be used"
                + " when `spec.type` is 'LoadBalancer'");
    assertThat(
            KubernetesErrors.message(
                new KubernetesClientException(
                    KubernetesErrors.GENERIC, new ConnectException("Connection refused"))))
        .isEqualTo("ConnectException: Connection refused");
  }
}
