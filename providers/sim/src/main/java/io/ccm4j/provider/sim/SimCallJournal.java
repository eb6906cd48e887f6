package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.net.Hostname;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file every write call of the sim cloud is appended to, by whoever calls: several {@code ccm4j
 * run} processes given the same cloud config share it, as they would share a real cloud, so a test
 * can tell whether two of them ever wrote to the same load balancer at once. One line when a call
 * starts and one when it returns, tab-separated:
 *
 * <pre>
 * begin  &lt;caller&gt;  &lt;call&gt;  &lt;epoch µs&gt;  &lt;method&gt;  &lt;object&gt;
 * end    &lt;caller&gt;  &lt;call&gt;  &lt;epoch µs&gt;  &lt;method&gt;  &lt;object&gt;  &lt;ok|error&gt;
 * </pre>
 *
 * The caller is the process ({@code pid@host}); a call begun and never ended was cut off by its
 * process's end (and a real cloud might still be carrying it out). Each line is one append to a
 * file opened with {@code O_APPEND}, so lines of several processes do not mix.
 */
final class SimCallJournal {

  /** A call that began; {@link #end} it when it returns. */
  record Call(long id, String method, String object) {}

  private final FileChannel file;
  private final String caller;
  private final AtomicLong ids = new AtomicLong();

  SimCallJournal(Path path) throws IOException {
    this.file =
        FileChannel.open(
            path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    this.caller = ProcessHandle.current().pid() + "@" + Hostname.get();
  }

  Call begin(String method, String object) {
    Call call = new Call(ids.incrementAndGet(), method, object);
    append("begin", call, null);
    return call;
  }

  void end(Call call, boolean ok) {
    append("end", call, ok ? "ok" : "error");
  }

  private void append(String event, Call call, String outcome) {
    Instant now = Instant.now();
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, now);
    String line =
        String.join(
                "\t",
                event,
                caller,
                Long.toString(call.id()),
                Long.toString(micros),
                call.method(),
                call.object())
            + (outcome == null ? "" : "\t" + outcome)
            + "\n";
    try {
      file.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException("sim: cannot append to the call journal", e);
    }
  }
}
