package dev.keel.mcp.test;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.server.McpServer;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Runs {@link McpTest} methods once per era and transport. Registered by {@link McpTest}
 * itself; a test never names it.
 *
 * <p>For each run it finds the class's {@link McpTestServer}, makes a {@link McpTestTarget} for
 * that era and transport, and resolves parameters of type {@link McpTestClient},
 * {@link McpTestTarget}, {@link McpServer}, {@link Era} and {@link TestTransport}. Nothing is
 * started until a parameter asks for it, and after the test (after its {@code @AfterEach}
 * methods) the clients, the HTTP server and a server the run made are closed.
 *
 * <pre>{@code
 * @McpTest(eras = Era.MODERN)
 * void listsTools(McpTestClient client) {
 *   assertThat(client.tools()).isNotEmpty();
 * }
 * }</pre>
 */
public final class KeelExtension implements TestTemplateInvocationContextProvider {

  /** Creates the extension; JUnit does, through {@link McpTest}. */
  public KeelExtension() {}

  @Override
  public boolean supportsTestTemplate(ExtensionContext context) {
    return context.getTestMethod()
        .flatMap(m -> AnnotationSupport.findAnnotation(m, McpTest.class)).isPresent();
  }

  @Override
  public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(
      ExtensionContext context) {
    McpTest test = AnnotationSupport.findAnnotation(context.getRequiredTestMethod(),
        McpTest.class).orElseThrow();
    List<TestTemplateInvocationContext> runs = new ArrayList<>();
    for (Era era : test.eras()) {
      if (era == Era.AUTO) {
        throw new ExtensionConfigurationException("@McpTest eras are LEGACY and MODERN; AUTO "
            + "is a client's choice, not an era (on " + context.getRequiredTestMethod() + ")");
      }
      for (TestTransport transport : test.transports()) {
        runs.add(new Run(era, transport));
      }
    }
    if (runs.isEmpty()) {
      throw new ExtensionConfigurationException("@McpTest on " + context.getRequiredTestMethod()
          + " names no era or no transport");
    }
    return runs.stream();
  }

  /** One era and transport: its display name and its per-run extension. */
  private static final class Run implements TestTemplateInvocationContext {
    private final Era era;
    private final TestTransport transport;

    Run(Era era, TestTransport transport) {
      this.era = era;
      this.transport = transport;
    }

    @Override
    public String getDisplayName(int invocationIndex) {
      return era.name().toLowerCase(java.util.Locale.ROOT) + ", " + transport.displayName();
    }

    @Override
    public List<Extension> getAdditionalExtensions() {
      return List.of(new RunResources(era, transport));
    }
  }

  /** What one run starts: made on the first parameter that needs it, closed after the test. */
  private static final class RunResources implements ParameterResolver, AfterEachCallback {
    private final Era era;
    private final TestTransport transport;
    private McpTestTarget target;

    RunResources(Era era, TestTransport transport) {
      this.era = era;
      this.transport = transport;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      Class<?> type = parameter.getParameter().getType();
      return type == McpTestClient.class || type == McpTestTarget.class
          || type == McpServer.class || type == Era.class || type == TestTransport.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      Class<?> type = parameter.getParameter().getType();
      if (type == Era.class) {
        return era;
      }
      if (type == TestTransport.class) {
        return transport;
      }
      McpTestTarget t = target(context);
      if (type == McpServer.class) {
        return t.server();
      }
      return type == McpTestTarget.class ? t : t.client();
    }

    private McpTestTarget target(ExtensionContext context) {
      if (target == null) {
        Object instance = context.getTestInstance().orElse(null);
        Class<?> testClass = context.getRequiredTestClass();
        target = serverOf(testClass, instance, era, transport);
      }
      return target;
    }

    @Override
    public void afterEach(ExtensionContext context) {
      if (target != null) {
        McpTestTarget t = target;
        target = null;
        t.close();
      }
    }
  }

  /** Finds the one {@link McpTestServer} of the class and makes this run's target from it. */
  static McpTestTarget serverOf(Class<?> testClass, Object instance, Era era,
      TestTransport transport) {
    List<Method> methods = AnnotationSupport.findAnnotatedMethods(testClass, McpTestServer.class,
        HierarchyTraversalMode.TOP_DOWN);
    List<Field> fields = AnnotationSupport.findAnnotatedFields(testClass, McpTestServer.class);
    if (methods.size() + fields.size() != 1) {
      throw new ExtensionConfigurationException(testClass.getName() + " must have exactly one "
          + "@McpTestServer method or field (a method returning a new McpServer, or a field "
          + "holding one) but has " + (methods.size() + fields.size()));
    }
    if (!methods.isEmpty()) {
      Method m = methods.get(0);
      if (m.getParameterCount() != 0 || !McpServer.class.isAssignableFrom(m.getReturnType())) {
        throw new ExtensionConfigurationException("@McpTestServer method " + m.getName()
            + " must take no parameters and return an McpServer");
      }
      Object made = ReflectionSupport.invokeMethod(m, receiver(m.getModifiers(), instance,
          "method " + m.getName()));
      if (made == null) {
        throw new ExtensionConfigurationException("@McpTestServer method " + m.getName()
            + " returned null");
      }
      return new McpTestTarget((McpServer) made, true, era, transport);
    }
    Field f = fields.get(0);
    if (!McpServer.class.isAssignableFrom(f.getType())) {
      throw new ExtensionConfigurationException("@McpTestServer field " + f.getName()
          + " must hold an McpServer");
    }
    Optional<Object> held = ReflectionSupport.tryToReadFieldValue(f,
        receiver(f.getModifiers(), instance, "field " + f.getName())).toOptional();
    if (held.isEmpty()) {
      throw new ExtensionConfigurationException("@McpTestServer field " + f.getName()
          + " holds no server when the test runs");
    }
    return new McpTestTarget((McpServer) held.get(), false, era, transport);
  }

  private static Object receiver(int modifiers, Object instance, String what) {
    if (Modifier.isStatic(modifiers)) {
      return null;
    }
    if (instance == null) {
      throw new ExtensionConfigurationException("@McpTestServer " + what + " is not static and "
          + "there is no test instance");
    }
    return instance;
  }
}
