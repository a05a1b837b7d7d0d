package dev.keel.agent;

/** The third engine of {@link MultiSourceTest}. */
final class MultiSourceSupport {

  static final String THIRD = "files";

  private MultiSourceSupport() {}

  static DatabaseSource third() {
    return DatabaseSource.sample(THIRD);
  }
}
