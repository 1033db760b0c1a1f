package dev.leasehold.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidLeaseholdPropertiesException} as Spring Boot's "APPLICATION FAILED TO
 * START" description and action, instead of a stack trace to dig the property out of.
 *
 * <p>This class is stateless and threadsafe.
 */
public final class InvalidLeaseholdPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLeaseholdPropertiesException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidLeaseholdPropertiesException cause) {
    return new FailureAnalysis("Leasehold could not be configured: " + cause.getMessage(),
        "Fix " + cause.property() + " (your IDE completes the leasehold.* properties), or set leasehold.enabled=false"
            + " to configure Leasehold yourself.", cause);
  }
}
