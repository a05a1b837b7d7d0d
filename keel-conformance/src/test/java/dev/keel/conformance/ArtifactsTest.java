package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What a build that depends on Keel needs from its artifacts: a license, a version that is not
 * a snapshot, POMs with what Maven Central asks for (name, description, URL, license, SCM,
 * developers), {@code keel-bom} listing every published module, and sources and Javadoc jars
 * beside each published module's jar. It runs in {@code mvn verify} after the modules it looks
 * at were packaged (they come before {@code keel-conformance} in the reactor).
 */
class ArtifactsTest {

  static final Path ROOT = Path.of("..");

  @Test
  void everyPublishedModuleIsInTheBomWithItsSourcesAndJavadoc() throws Exception {
    assertThat(Files.readString(ROOT.resolve("LICENSE"))).contains("Apache License")
        .contains("Version 2.0, January 2004");
    Document parent = read(ROOT.resolve("pom.xml"));
    String version = text(parent.getDocumentElement(), "version");
    assertThat(version).as("the version").doesNotContain("SNAPSHOT");
    for (String key : List.of("name", "description", "url")) {
      assertThat(text(parent.getDocumentElement(), key)).as(key).isNotBlank();
    }
    assertThat(parent.getElementsByTagName("license").getLength()).isEqualTo(1);
    assertThat(parent.getElementsByTagName("developer").getLength()).isPositive();
    assertThat(text(child(parent.getDocumentElement(), "scm"), "connection"))
        .startsWith("scm:git:");

    Document bom = read(ROOT.resolve("keel-bom/pom.xml"));
    assertThat(text(bom.getDocumentElement(), "version")).isEqualTo(version);
    List<String> inBom = new ArrayList<>();
    NodeList managed = bom.getElementsByTagName("artifactId");
    for (int i = 0; i < managed.getLength(); i++) {
      inBom.add(managed.item(i).getTextContent().strip());
    }

    List<String> published = new ArrayList<>();
    NodeList modules = parent.getElementsByTagName("module");
    for (int i = 0; i < modules.getLength(); i++) {
      String module = modules.item(i).getTextContent().strip();
      Document pom = read(ROOT.resolve(module).resolve("pom.xml"));
      Element project = pom.getDocumentElement();
      String packaging = text(project, "packaging");
      if ("pom".equals(packaging) || "true".equals(property(project, "maven.deploy.skip"))) {
        continue;
      }
      published.add(module);
      assertThat(text(project, "name")).as(module + " name").isNotBlank();
      assertThat(text(project, "description")).as(module + " description").isNotBlank();
      Path target = ROOT.resolve(module).resolve("target");
      Element build = child(project, "build");
      String finalName = build == null ? null : text(build, "finalName");
      String base = finalName != null ? finalName : module + "-" + version;
      for (String kind : List.of("", "-sources", "-javadoc")) {
        Path jar = target.resolve(base + kind + ".jar");
        assertThat(jar).as("run mvn verify from the root first").exists();
      }
    }
    assertThat(published).as("published modules").contains("keel-core", "keel-server",
        "keel-http", "keel-client", "keel-test", "keel-agent");
    assertThat(inBom).as("keel-bom").containsAll(published).contains("keel-bom")
        .doesNotContain("keel-bench", "keel-conformance", "keel-authserver-fixture");
  }

  private static Document read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  /** The text of {@code parent}'s direct child {@code name}, or null. */
  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().strip();
  }

  private static Element child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }

  private static String property(Element project, String name) {
    Element properties = child(project, "properties");
    return properties == null ? null : text(properties, name);
  }
}
