package io.ccm4j.runtime.client.protobuf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Cuts a protobuf watch stream into its frames: each a four-byte big-endian length, then that many
 * bytes (apimachinery's length-delimited framer). The stream arrives in chunks that split frames
 * anywhere, the length prefix included. Not thread-safe: one per watch request.
 */
public final class WatchFrames {

  /** Larger than any object the API server stores (etcd's limit is 1.5 MiB by default). */
  static final int MAX_FRAME = 64 * 1024 * 1024;

  private byte[] buffer = new byte[8192];
  private int filled;

  /**
   * The frames completed by {@code chunk}, in order; the rest is kept for the next chunk.
   *
   * @throws IllegalStateException when a length prefix is negative or larger than {@link
   *     #MAX_FRAME}
   */
  public List<byte[]> accept(ByteBuffer chunk) {
    ensure(chunk.remaining());
    int length = chunk.remaining();
    chunk.get(buffer, filled, length);
    filled += length;
    List<byte[]> frames = new ArrayList<>(1);
    int start = 0;
    while (filled - start >= 4) {
      int size =
          (buffer[start] & 0xff) << 24
              | (buffer[start + 1] & 0xff) << 16
              | (buffer[start + 2] & 0xff) << 8
              | buffer[start + 3] & 0xff;
      if (size < 0 || size > MAX_FRAME) {
        throw new IllegalStateException("watch frame length out of range: " + (size & 0xffffffffL));
      }
      if (filled - start - 4 < size) {
        break;
      }
      frames.add(Arrays.copyOfRange(buffer, start + 4, start + 4 + size));
      start += 4 + size;
    }
    if (start > 0) {
      System.arraycopy(buffer, start, buffer, 0, filled - start);
      filled -= start;
    }
    return frames;
  }

  /** Bytes of an incomplete frame held back. */
  public int pending() {
    return filled;
  }

  private void ensure(int more) {
    if (filled + more > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, filled + more));
    }
  }
}
