package dev.lifecycle.process;

/**
 * Providers that {@link PlatformLoaderTest} lists in a service file of its own (never on the test
 * class path's): unsupported, so that nothing ever creates their platform.
 */
public final class ServiceListedProviders {
  private ServiceListedProviders() {}

  /** Priority 5. */
  public static final class Low extends Listed {
    public Low() {
      super(5);
    }
  }

  /** Priority 50. */
  public static final class High extends Listed {
    public High() {
      super(50);
    }
  }

  abstract static class Listed implements ProcessPlatformProvider {
    private final int priority;

    Listed(int priority) {
      this.priority = priority;
    }

    @Override
    public int priority() {
      return priority;
    }

    @Override
    public boolean isSupported() {
      return false;
    }

    @Override
    public ProcessPlatform create() {
      throw new UnsupportedOperationException("a listed test provider is never created");
    }

    @Override
    public String unsupportedReason() {
      return getClass().getSimpleName() + " is a test provider";
    }
  }
}
