package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.source.doctree.DocCommentTree;
import com.sun.source.doctree.DocTree;
import com.sun.source.doctree.ParamTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every public type and member of the library modules' API (every package but
 * {@code internal} ones) has a Javadoc comment, and every public record documents each of its
 * components with {@code @param}. The Javadoc build runs doclint with every group but
 * {@code missing}, which would also demand {@code @param} and {@code @return} tags on every
 * method: the house style (OkHttp's) writes a first sentence that says what a method returns
 * and adds tags where they add something. This test keeps the part of {@code missing} that
 * matters, a comment on everything a user can call, and the components of protocol records.
 */
class ApiJavadocTest {

  /** Modules whose main sources are not library API. */
  static final Set<String> NOT_API = Set.of("keel-cli", "keel-bench", "keel-conformance",
      "keel-authserver-fixture");

  @Test
  void everyPublicTypeAndMemberOfTheApiHasAComment() throws Exception {
    List<Path> sources = new ArrayList<>();
    try (Stream<Path> modules = Files.list(Path.of(".."))) {
      for (Path module : modules.filter(m -> m.getFileName().toString().startsWith("keel-"))
          .filter(m -> !NOT_API.contains(m.getFileName().toString())).toList()) {
        Path main = module.resolve("src/main/java");
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(main)) {
          files.filter(f -> f.toString().endsWith(".java"))
              .filter(f -> !f.getFileName().toString().equals("module-info.java"))
              .filter(f -> !f.toString().contains("/internal/"))
              .forEach(sources::add);
        }
      }
    }
    assertThat(sources).as("API sources found").hasSizeGreaterThan(100);
    List<String> missing = new ArrayList<>();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, null,
        StandardCharsets.UTF_8)) {
      JavacTask task = (JavacTask) javac.getTask(null, files, d -> { }, List.of("-proc:none"),
          null, files.getJavaFileObjectsFromPaths(sources));
      DocTrees docs = DocTrees.instance(task);
      for (CompilationUnitTree unit : task.parse()) {
        new Checker(docs, unit, missing).scan(unit, null);
      }
    }
    assertThat(missing).as("public API without a comment (%d)", missing.size()).isEmpty();
  }

  /** Walks one file, recording what lacks a comment. */
  private static final class Checker extends TreePathScanner<Void, Void> {
    private final DocTrees docs;
    private final CompilationUnitTree unit;
    private final List<String> missing;

    Checker(DocTrees docs, CompilationUnitTree unit, List<String> missing) {
      this.docs = docs;
      this.unit = unit;
      this.missing = missing;
    }

    @Override
    public Void visitClass(ClassTree type, Void unused) {
      if (!visible(getCurrentPath())) {
        return null;
      }
      DocCommentTree doc = docs.getDocCommentTree(getCurrentPath());
      if (doc == null) {
        report(type, "type " + type.getSimpleName());
      } else if (type.getKind() == Tree.Kind.RECORD) {
        List<String> documented = new ArrayList<>();
        for (DocTree tag : doc.getBlockTags()) {
          if (tag instanceof ParamTree param && !param.isTypeParameter()) {
            documented.add(param.getName().getName().toString());
          }
        }
        for (Tree member : type.getMembers()) {
          // a record's components are the private final fields javac keeps in the tree
          if (member instanceof VariableTree field
              && !field.getModifiers().getFlags().contains(Modifier.STATIC)
              && !documented.contains(field.getName().toString())) {
            report(type, "record component " + type.getSimpleName() + "." + field.getName());
          }
        }
      }
      return super.visitClass(type, unused);
    }

    @Override
    public Void visitMethod(MethodTree method, Void unused) {
      if (visible(getCurrentPath()) && !overrides(method.getModifiers())
          && docs.getDocCommentTree(getCurrentPath()) == null
          && !implicitRecordMember(method)) {
        report(method, "method " + enclosing().getSimpleName() + "." + method.getName());
      }
      return null;
    }

    @Override
    public Void visitVariable(VariableTree field, Void unused) {
      Tree parent = getCurrentPath().getParentPath().getLeaf();
      if (parent instanceof ClassTree owner && visible(getCurrentPath())
          && !(owner.getKind() == Tree.Kind.RECORD
              && !field.getModifiers().getFlags().contains(Modifier.STATIC))
          && docs.getDocCommentTree(getCurrentPath()) == null) {
        report(field, "field " + owner.getSimpleName() + "." + field.getName());
      }
      return null;
    }

    private boolean implicitRecordMember(MethodTree method) {
      // the compact canonical constructor of a record may go without a comment only when it
      // is not public API of its own (javac gives it the record's modifiers)
      return enclosing().getKind() == Tree.Kind.RECORD && method.getName().contentEquals("<init>")
          && method.getParameters().isEmpty() && method.getReturnType() == null
          && !method.getModifiers().getFlags().contains(Modifier.PUBLIC);
    }

    private ClassTree enclosing() {
      for (TreePath p = getCurrentPath().getParentPath(); p != null; p = p.getParentPath()) {
        if (p.getLeaf() instanceof ClassTree c) {
          return c;
        }
      }
      throw new IllegalStateException("no enclosing type");
    }

    /** Public or protected, in a chain of public types (interface members are public). */
    private static boolean visible(TreePath path) {
      for (TreePath p = path; p != null; p = p.getParentPath()) {
        Tree leaf = p.getLeaf();
        if (leaf.getKind() == Tree.Kind.COMPILATION_UNIT) {
          return true;
        }
        ModifiersTree modifiers;
        if (leaf instanceof ClassTree c) {
          modifiers = c.getModifiers();
        } else if (leaf instanceof MethodTree m) {
          modifiers = m.getModifiers();
        } else if (leaf instanceof VariableTree v) {
          modifiers = v.getModifiers();
        } else {
          // inside a body, a lambda or an anonymous class: not API
          return false;
        }
        Set<Modifier> flags = modifiers.getFlags();
        Tree parent = p.getParentPath().getLeaf();
        boolean inInterface = parent instanceof ClassTree owner
            && (owner.getKind() == Tree.Kind.INTERFACE
                || owner.getKind() == Tree.Kind.ANNOTATION_TYPE);
        if (!(flags.contains(Modifier.PUBLIC) || flags.contains(Modifier.PROTECTED)
            || (inInterface && !flags.contains(Modifier.PRIVATE)))) {
          return false;
        }
      }
      return true;
    }

    private static boolean overrides(ModifiersTree modifiers) {
      return modifiers.getAnnotations().stream()
          .anyMatch(a -> a.getAnnotationType().toString().endsWith("Override"));
    }

    private void report(Tree tree, String what) {
      long line = unit.getLineMap().getLineNumber(docs.getSourcePositions()
          .getStartPosition(unit, tree));
      missing.add(Path.of(unit.getSourceFile().toUri()).toString().replaceFirst(".*/keel-",
          "keel-") + ":" + line + ": " + what);
    }
  }
}
