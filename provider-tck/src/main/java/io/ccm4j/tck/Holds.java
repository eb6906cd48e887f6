package io.ccm4j.tck;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The contract a check holds: failures that escape the check (a provider's exception, a stub's
 * {@link UnsupportedOperationException}) are reported as failures of it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Holds {
  Contract value();
}
