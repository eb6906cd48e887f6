package io.ccm4j.tck;

import io.ccm4j.cloudprovider.NotImplementedException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Turns what escapes a check into a failure that names its contract: an {@link
 * UnsupportedOperationException} (a stub not filled in yet) or {@link NotImplementedException} is
 * "not implemented", naming the facet; any other exception is the contract broken by it.
 */
final class ContractFailures implements TestExecutionExceptionHandler {

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    if (thrown instanceof AssertionError || thrown instanceof TestAbortedException) {
      throw thrown;
    }
    Holds holds = context.getRequiredTestMethod().getAnnotation(Holds.class);
    if (holds == null) {
      throw thrown;
    }
    Contract contract = holds.value();
    if (thrown instanceof UnsupportedOperationException
        || thrown instanceof NotImplementedException) {
      throw new AssertionFailedError(
          "%s not checked: %s is not implemented: %s%s"
              .formatted(
                  contract.title(), contract.facet().spiName(), thrown.getMessage(), where(thrown)),
          thrown);
    }
    AssertionFailedError broken = contract.broken(thrown + where(thrown));
    broken.initCause(thrown);
    throw broken;
  }

  /** " (at Class.method)": the frame that threw, so a stub's location is in the message. */
  private static String where(Throwable thrown) {
    StackTraceElement[] trace = thrown.getStackTrace();
    if (trace.length == 0) {
      return "";
    }
    String className = trace[0].getClassName();
    return " (at %s.%s)"
        .formatted(className.substring(className.lastIndexOf('.') + 1), trace[0].getMethodName());
  }
}
