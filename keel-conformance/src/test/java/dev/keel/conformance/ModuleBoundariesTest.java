package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolvedModule;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library modules' boundaries, checked on what the build produced: every library jar is a
 * named module (its {@code module-info}) that exports API packages only, internals at most to
 * other Keel modules; the modules resolve together with their dependencies; and no public
 * signature of an exported type names a type the module system keeps from a user (an
 * {@code internal} package, or a dependency the user was not given).
 */
class ModuleBoundariesTest {

  /** Library artifact to its module name. The agent and the CLI are applications (see docs). */
  static final Map<String, String> LIBRARIES = new LinkedHashMap<>();

  static {
    LIBRARIES.put("keel-core", "dev.keel.mcp.core");
    LIBRARIES.put("keel-server", "dev.keel.mcp.server");
    LIBRARIES.put("keel-http", "dev.keel.mcp.http");
    LIBRARIES.put("keel-client", "dev.keel.mcp.client");
    LIBRARIES.put("keel-test", "dev.keel.mcp.test");
    LIBRARIES.put("keel-micrometer", "dev.keel.mcp.micrometer");
    LIBRARIES.put("keel-opentelemetry", "dev.keel.mcp.opentelemetry");
  }

  /**
   * Packages of other libraries that the API may name because a library {@code requires
   * transitive} them: a user who requires the Keel module reads them too.
   */
  static final List<String> TRANSITIVE_API = List.of("java.", "javax.", "tools.jackson.",
      "jakarta.servlet.", "org.junit.jupiter.api.", "io.micrometer.core.", "io.opentelemetry.");

  static final Map<String, Path> LOCATIONS = new LinkedHashMap<>();

  @BeforeAll
  static void locate() {
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      for (String artifact : LIBRARIES.keySet()) {
        if (entry.contains(File.separator + artifact + File.separator + "target")
            || Path.of(entry).getFileName().toString().startsWith(artifact + "-")) {
          LOCATIONS.putIfAbsent(artifact, Path.of(entry));
        }
      }
    }
    assertThat(LOCATIONS).as("every library on the test class path").containsOnlyKeys(
        LIBRARIES.keySet());
  }

  @Test
  void everyLibraryIsANamedModuleThatExportsOnlyItsApi() {
    for (Map.Entry<String, String> library : LIBRARIES.entrySet()) {
      ModuleDescriptor descriptor = descriptorOf(LOCATIONS.get(library.getKey()));
      assertThat(descriptor.isAutomatic()).as("%s has a module-info", library.getKey())
          .isFalse();
      assertThat(descriptor.name()).isEqualTo(library.getValue());
      for (ModuleDescriptor.Exports export : descriptor.exports()) {
        if (export.isQualified()) {
          assertThat(export.targets()).as("%s: %s is shared only with Keel's modules",
              descriptor.name(), export.source()).allMatch(t -> t.startsWith("dev.keel."));
        } else {
          assertThat(export.source()).as("%s exports an internal package", descriptor.name())
              .doesNotContain(".internal");
        }
      }
      assertThat(descriptor.opens()).as("%s opens nothing to everyone", descriptor.name())
          .allMatch(ModuleDescriptor.Opens::isQualified);
    }
  }

  /** What the Done-when names literally: {@code jar --describe-module} of each built jar. */
  @Test
  void jarDescribeModuleListsOnlyApiPackagesAsExported() {
    ToolProvider jar = ToolProvider.findFirst("jar").orElseThrow();
    int jars = 0;
    for (Path location : LOCATIONS.values()) {
      if (!location.toString().endsWith(".jar")) {
        continue; // a `mvn test` run sees target/classes; the descriptor test covers it
      }
      jars++;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int status = jar.run(new PrintStream(out, true, StandardCharsets.UTF_8), System.err,
          "--describe-module", "--file", location.toString());
      String text = out.toString(StandardCharsets.UTF_8);
      assertThat(status).as(text).isZero();
      List<String> lines = text.lines().map(String::strip).toList();
      assertThat(lines.get(0)).as("%s is a named module", location).contains("dev.keel.mcp.")
          .doesNotContain("automatic");
      for (String line : lines) {
        if (line.startsWith("exports ")) {
          assertThat(line).as(location.toString()).doesNotContain(".internal");
        }
        if (line.startsWith("qualified exports ")) {
          assertThat(line.substring(line.indexOf(" to ") + 4).split(" "))
              .allMatch(t -> t.startsWith("dev.keel."));
        }
      }
    }
    if (System.getProperty("java.class.path").contains("keel-core-")) {
      assertThat(jars).as("jars of a `mvn verify` run").isEqualTo(LIBRARIES.size());
    }
  }

  /**
   * Nothing below the integrations reads Spring, and the Spring Boot starter, which has no
   * descriptor (docs/spring-boot.md#modules), is the automatic module {@code dev.keel.mcp.spring}
   * with its one API package and no {@code internal} one an automatic module would export.
   */
  @Test
  void onlyTheStarterReadsSpringAndItIsTheAutomaticModuleDevKeelMcpSpring() throws Exception {
    for (Map.Entry<String, Path> location : LOCATIONS.entrySet()) {
      assertThat(descriptorOf(location.getValue()).requires())
          .as("%s reads no Spring module", location.getKey())
          .noneMatch(r -> r.name().startsWith("spring"));
    }
    Path starter = null;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.contains(File.separator + "keel-spring-boot-starter" + File.separator)
          || Path.of(entry).getFileName().toString().startsWith("keel-spring-boot-starter-")) {
        starter = Path.of(entry);
      }
    }
    assertThat(starter).as("keel-spring-boot-starter on the test class path").isNotNull();
    Set<String> packages = new TreeSet<>();
    for (String name : PublicApiTest.classNames(starter)) {
      packages.add(name.substring(0, name.lastIndexOf('.')));
    }
    assertThat(packages).containsExactly("dev.keel.mcp.spring");
    if (starter.toString().endsWith(".jar")) {
      ModuleDescriptor descriptor = descriptorOf(starter);
      assertThat(descriptor.isAutomatic()).isTrue();
      assertThat(descriptor.name()).isEqualTo("dev.keel.mcp.spring");
    } else {
      // a `mvn test` run sees target/classes; the manifest entry is in the jar plugin's config
      assertThat(Files.readString(starter.resolve("../../pom.xml")))
          .contains("<Automatic-Module-Name>dev.keel.mcp.spring</Automatic-Module-Name>");
    }
  }

  @Test
  void theLibrariesResolveAsModulesWithTheirDependencies() {
    Set<String> names = resolve(LIBRARIES.values()).modules().stream().map(ResolvedModule::name)
        .collect(Collectors.toSet());
    assertThat(names).containsAll(LIBRARIES.values());
  }

  /**
   * Resolves the library modules but the test kit (which needs JUnit) against the test class
   * path, as a module-path user's launcher would.
   */
  static Configuration resolveLibraries() {
    return resolve(LIBRARIES.values().stream().filter(n -> !n.equals("dev.keel.mcp.test"))
        .toList());
  }

  private static Configuration resolve(java.util.Collection<String> roots) {
    List<ModuleFinder> finders = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry);
      if (!Files.exists(path) || !(Files.isDirectory(path) || entry.endsWith(".jar"))) {
        continue;
      }
      ModuleFinder one = ModuleFinder.of(path);
      try {
        one.findAll();
        finders.add(one);
      } catch (FindException e) {
        // a test-only jar that cannot be an automatic module; nothing a library requires
      }
    }
    return ModuleLayer.boot().configuration().resolve(
        // system modules outside the boot layer (jdk.crypto.ec, which nimbus requires, is no
        // longer bound into it from JDK 22 on) come from the runtime image, as for a launcher
        ModuleFinder.compose(finders.toArray(ModuleFinder[]::new)), ModuleFinder.ofSystem(),
        roots);
  }

  @Test
  void noPublicSignatureReachesATypeAUserCannotRead() throws Exception {
    Set<String> api = new TreeSet<>();
    Map<String, Set<String>> packagesByLibrary = new LinkedHashMap<>();
    for (Map.Entry<String, Path> location : LOCATIONS.entrySet()) {
      ModuleDescriptor descriptor = descriptorOf(location.getValue());
      packagesByLibrary.put(location.getKey(), descriptor.packages());
      descriptor.exports().stream().filter(e -> !e.isQualified())
          .forEach(e -> api.add(e.source()));
    }
    List<String> violations = new ArrayList<>();
    int checked = 0;
    for (Path location : LOCATIONS.values()) {
      for (String className : PublicApiTest.classNames(location)) {
        String pkg = className.contains(".")
            ? className.substring(0, className.lastIndexOf('.')) : "";
        if (!api.contains(pkg) || className.endsWith("module-info")) {
          continue;
        }
        Class<?> type = Class.forName(className, false, getClass().getClassLoader());
        if (!visible(type)) {
          continue;
        }
        checked++;
        for (Map.Entry<String, Type> use : signatureOf(type).entrySet()) {
          collect(use.getValue(), new ArrayList<>()).stream()
              .filter(c -> !readable(c, api))
              .forEach(c -> violations.add(use.getKey() + " names " + c.getName()));
        }
      }
    }
    assertThat(checked).as("exported types checked").isGreaterThan(100);
    assertThat(violations).as("public signatures that reach what a user cannot read")
        .isEmpty();
  }

  private static boolean visible(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (!Modifier.isPublic(c.getModifiers()) && !Modifier.isProtected(c.getModifiers())
          || c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()) {
        return false;
      }
    }
    return true;
  }

  private static boolean readable(Class<?> c, Set<String> api) {
    while (c.isArray()) {
      c = c.getComponentType();
    }
    if (c.isPrimitive()) {
      return true;
    }
    String pkg = c.getPackageName();
    if (pkg.startsWith("dev.keel.")) {
      return api.contains(pkg);
    }
    return TRANSITIVE_API.stream().anyMatch(p -> (pkg + ".").startsWith(p));
  }

  /** Every type the public and protected signature of {@code type} names, by where. */
  private static Map<String, Type> signatureOf(Class<?> type) {
    Map<String, Type> uses = new LinkedHashMap<>();
    String name = type.getName();
    int n = 0;
    if (type.getGenericSuperclass() != null) {
      uses.put(name + " extends", type.getGenericSuperclass());
    }
    for (Type t : type.getGenericInterfaces()) {
      uses.put(name + " implements #" + n++, t);
    }
    for (TypeVariable<?> v : type.getTypeParameters()) {
      for (Type bound : v.getBounds()) {
        uses.put(name + "<" + v.getName() + " bound #" + n++ + ">", bound);
      }
    }
    for (Field f : type.getDeclaredFields()) {
      if (exposed(f.getModifiers(), type) && !f.isSynthetic()) {
        uses.put(name + "." + f.getName(), f.getGenericType());
      }
    }
    List<Executable> executables = new ArrayList<>();
    executables.addAll(List.of(type.getDeclaredMethods()));
    executables.addAll(List.of(type.getDeclaredConstructors()));
    for (Executable e : executables) {
      if (!exposed(e.getModifiers(), type) || e.isSynthetic()
          || e instanceof Method m && m.isBridge()) {
        continue;
      }
      String where = name + "." + e.getName() + "(#" + n++ + ")";
      if (e instanceof Method m) {
        uses.put(where + " returns", m.getGenericReturnType());
      }
      Type[] parameters = e instanceof Constructor<?> c && type.isEnum()
          ? new Type[0] : e.getGenericParameterTypes();
      for (int i = 0; i < parameters.length; i++) {
        uses.put(where + " parameter " + i, parameters[i]);
      }
      for (Type thrown : e.getGenericExceptionTypes()) {
        uses.put(where + " throws " + thrown.getTypeName(), thrown);
      }
    }
    return uses;
  }

  private static boolean exposed(int modifiers, Class<?> owner) {
    return Modifier.isPublic(modifiers)
        || Modifier.isProtected(modifiers) && !Modifier.isFinal(owner.getModifiers());
  }

  private static List<Class<?>> collect(Type type, List<Class<?>> into) {
    if (type instanceof Class<?> c) {
      into.add(c);
    } else if (type instanceof ParameterizedType p) {
      collect(p.getRawType(), into);
      for (Type a : p.getActualTypeArguments()) {
        collect(a, into);
      }
    } else if (type instanceof WildcardType w) {
      Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
          .forEach(b -> collect(b, into));
    } else if (type instanceof GenericArrayType g) {
      collect(g.getGenericComponentType(), into);
    }
    // a type variable's bounds are checked where the variable is declared
    return into;
  }

  private static ModuleDescriptor descriptorOf(Path location) {
    Set<ModuleReference> found = ModuleFinder.of(location).findAll();
    assertThat(found).as("one module at %s", location).hasSize(1);
    return found.iterator().next().descriptor();
  }
}
