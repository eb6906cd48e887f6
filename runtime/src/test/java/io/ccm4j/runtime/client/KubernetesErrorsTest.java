package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
