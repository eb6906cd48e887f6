import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Rewrites, in place, the class files of a directory's jars that are of a Java older than 6 (class
 * file version below 50) into Java 8's format (52), with the stack maps the JVM's type-checking
 * verifier reads. Run by the build on a JDK of 24 or later (its class-file API), as a source file:
 * {@code java ModernClassFiles.java DIRECTORY}.
 *
 * <p>Why: class-data sharing archives no class of such a version (the JVM verifies them by type
 * inference, which an archive does not record), so each start parses and verifies them from their
 * jar. picocli ships its classes so, for Java 5: some 190 of them at every start of every command,
 * about 60 ms of a 2-core machine's start. The instructions stay as they are; only the version and
 * the stack maps, computed by the JDK's class-file API from the code, are new. A class the JVM would
 * not verify in the new format fails its build-time check here rather than at a user's start
 * (LauncherLibrariesIT loads and initialises every rewritten class). Idempotent: a jar without such
 * classes is left untouched.
 */
public final class ModernClassFiles {

  private static final int JAVA_6 = ClassFile.JAVA_6_VERSION;

  public static void main(String[] args) throws IOException {
    if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
      System.err.println("usage: java ModernClassFiles.java DIRECTORY (of jars)");
      System.exit(2);
    }
    List<Path> jars;
    try (Stream<Path> files = Files.list(Path.of(args[0]))) {
      jars = files.filter(file -> file.toString().endsWith(".jar")).sorted().toList();
    }
    List<URL> urls = new ArrayList<>();
    for (Path jar : jars) {
      urls.add(jar.toUri().toURL());
    }
    try (URLClassLoader libraries = new URLClassLoader(urls.toArray(URL[]::new), null)) {
      ClassFile classFiles =
          ClassFile.of(
              ClassFile.ClassHierarchyResolverOption.of(
                  ClassHierarchyResolver.defaultResolver()
                      .orElse(ClassHierarchyResolver.ofResourceParsing(libraries))));
      for (Path jar : jars) {
        int rewritten = rewrite(jar, classFiles);
        if (rewritten > 0) {
          System.out.printf(
              "modern-class-files: %s: %d classes of Java 5 or older in Java 8's format%n",
              jar.getFileName(), rewritten);
        }
      }
    }
  }

  /** Rewrites the jar's old class files; returns how many (0: the jar is left untouched). */
  static int rewrite(Path jar, ClassFile classFiles) throws IOException {
    URI uri = URI.create("jar:" + jar.toAbsolutePath().toUri());
    int rewritten = 0;
    try (FileSystem zip = FileSystems.newFileSystem(uri, Map.of())) {
      List<Path> classes;
      try (Stream<Path> entries = Files.walk(zip.getPath("/"))) {
        classes = entries.filter(entry -> entry.toString().endsWith(".class")).toList();
      }
      for (Path entry : classes) {
        byte[] bytes = Files.readAllBytes(entry);
        ClassModel model = classFiles.parse(bytes);
        if (model.majorVersion() >= JAVA_6) {
          continue;
        }
        byte[] modern =
            classFiles.transformClass(
                model,
                // Every method's code through a code builder, which computes its stack maps.
                ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                    .andThen(
                        (builder, element) -> {
                          if (element instanceof ClassFileVersion) {
                            builder.withVersion(ClassFile.JAVA_8_VERSION, 0);
                          } else {
                            builder.with(element);
                          }
                        }));
        Files.write(entry, modern);
        rewritten++;
      }
    }
    return rewritten;
  }
}
