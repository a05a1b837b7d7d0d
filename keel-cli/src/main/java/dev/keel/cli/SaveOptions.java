package dev.keel.cli;

import dev.keel.cli.output.MediaFiles;
import dev.keel.cli.output.ResultPrinter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --save-dir}, for the commands whose results may hold images, audio or blobs
 * ({@code call}, {@code read}, {@code prompt}): such content is saved to new files, there or in
 * the current directory, and the path printed.
 */
final class SaveOptions {

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--save-dir", paramLabel = "DIR",
      description = "Save images, audio and binary resources of the result here, in new "
          + "files named keel-RANDOM.EXT (default: the current directory; --json saves "
          + "nothing).")
  Path saveDir;

  /** Returns the printer of results for people that saves binary content. */
  ResultPrinter printer() {
    if (saveDir != null && !Files.isDirectory(saveDir)) {
      throw new ParameterException(spec.commandLine(), "--save-dir is not a directory: "
          + saveDir);
    }
    return new ResultPrinter(System.out, new MediaFiles(saveDir), ClientOptions.tableWidth());
  }
}
