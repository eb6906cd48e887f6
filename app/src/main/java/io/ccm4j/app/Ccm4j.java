package io.ccm4j.app;

import io.ccm4j.runtime.client.KubernetesErrors;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ccm4j} command: {@code run} and {@code doctor}, and the tools' subcommands found on
 * the class path ({@link ToolCommands}).
 */
@Command(
    name = "ccm4j",
    description = "A Kubernetes cloud-controller-manager in Java.",
    mixinStandardHelpOptions = true,
    versionProvider = Ccm4j.Version.class,
    subcommands = {RunCommand.class, DoctorCommand.class})
public final class Ccm4j implements Runnable {

  /** Exit code for bad command-line input. */
  public static final int USAGE_ERROR = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    NativeCrypto.installInBackground();
    System.exit(execute(args));
  }

  /** Runs the command line and returns its exit code. */
  public static int execute(String... args) {
    return execute(new PrintWriter(System.err, true), args);
  }

  /** Runs the command line with its errors written to {@code err}. */
  public static int execute(PrintWriter err, String... args) {
    CommandLine commandLine = commandLine(args);
    commandLine.setErr(err);
    commandLine.setParameterExceptionHandler(Ccm4j::reportBadInput);
    commandLine.setExecutionExceptionHandler(
        (error, line, parseResult) -> {
          line.getErr().println("ccm4j " + line.getCommandName() + ": " + describe(error));
          return 1;
        });
    return commandLine.execute(args);
  }

  /**
   * The command line: {@code run} and {@code doctor}, then the tools' subcommands in name order.
   * Settings made on it afterwards (output, handlers) reach them all.
   */
  public static CommandLine commandLine() {
    return withTools(new CommandLine(new Ccm4j()));
  }

  /**
   * The command line to run {@code args} with: for {@code run} and {@code doctor} without the
   * tools, whose command models picocli would build by reflection first (a tenth of a second of the
   * manager's start: picocli's classes are of a Java too old for class-data sharing to archive).
   */
  public static CommandLine commandLine(String... args) {
    CommandLine product = new CommandLine(new Ccm4j());
    boolean productCommand = args.length > 0 && product.getSubcommands().containsKey(args[0]);
    return productCommand ? product : withTools(product);
  }

  private static CommandLine withTools(CommandLine commandLine) {
    ServiceLoader.load(ToolCommands.class, Ccm4j.class.getClassLoader()).stream()
        .flatMap(tools -> tools.get().commands().stream())
        .map(CommandLine::new)
        .sorted(Comparator.comparing(CommandLine::getCommandName))
        .forEach(commandLine::addSubcommand);
    return commandLine;
  }

  /** One line naming the problem (and the flag); no stack trace and no usage dump. */
  private static int reportBadInput(CommandLine.ParameterException error, String[] args) {
    CommandLine line = error.getCommandLine();
    PrintWriter err = line.getErr();
    String command = line.getCommandSpec().qualifiedName();
    err.printf("%s: %s (see '%s --help')%n", command, error.getMessage(), command);
    err.flush();
    return USAGE_ERROR;
  }

  private static String describe(Throwable error) {
    return KubernetesErrors.reason(error);
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Ccm4j.class.getPackage().getImplementationVersion();
      return new String[] {"ccm4j " + (version == null ? "(development build)" : version)};
    }
  }
}
