import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Takes the signatures out of the signed jars in a directory, in place: the files of {@code
 * META-INF} a jar signer writes ({@code *.SF} and its {@code *.RSA}, {@code *.DSA} or {@code *.EC}
 * block). Run by the build, as a source file: {@code java UnsignJars.java DIRECTORY}.
 *
 * <p>Why: the JVM verifies a signed jar on the class path as its classes load (a SHA-256 digest of
 * every entry read, the native crypto provider's 9 MiB library among them), and class-data sharing
 * and the AOT cache archive no class of a signed jar. Four of ccm4j's dependencies are signed (the
 * native crypto provider and Bouncy Castle's three jars): unsigned, their classes are archived like
 * the rest and nothing is digested at start. OpenJDK asks no signature of a security provider (only
 * Oracle's JDK asks one of a JCE provider, a Cipher's or a Mac's, and skips an unsigned one for the
 * next provider); the jars' contents are the ones Maven resolved and checked.
 */
public final class UnsignJars {

  private static final Pattern SIGNATURE =
      Pattern.compile("[^/]+\\.(SF|RSA|DSA|EC)", Pattern.CASE_INSENSITIVE);

  public static void main(String[] args) throws IOException {
    if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
      System.err.println("usage: java UnsignJars.java DIRECTORY (of jars)");
      System.exit(2);
    }
    List<Path> jars;
    try (Stream<Path> files = Files.list(Path.of(args[0]))) {
      jars = files.filter(file -> file.toString().endsWith(".jar")).sorted().toList();
    }
    for (Path jar : jars) {
      int removed = unsign(jar);
      if (removed > 0) {
        System.out.printf("unsign-jars: %s: %d signature files removed%n", jar.getFileName(), removed);
      }
    }
  }

  /** Removes the jar's signature files; returns how many (0: the jar is left untouched). */
  static int unsign(Path jar) throws IOException {
    URI uri = URI.create("jar:" + jar.toAbsolutePath().toUri());
    List<Path> signatures;
    try (FileSystem zip = FileSystems.newFileSystem(uri, Map.of())) {
      Path metaInf = zip.getPath("/META-INF");
      if (!Files.isDirectory(metaInf)) {
        return 0;
      }
      try (Stream<Path> entries = Files.list(metaInf)) {
        signatures =
            entries
                .filter(entry -> SIGNATURE.matcher(entry.getFileName().toString()).matches())
                .toList();
      }
      signatures.forEach(UnsignJars::delete);
    }
    return signatures.size();
  }

  private static void delete(Path entry) {
    try {
      Files.delete(entry);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
