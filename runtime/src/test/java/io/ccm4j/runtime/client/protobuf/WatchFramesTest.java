package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WatchFramesTest {

  private static byte[] stream(String... payloads) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String payload : payloads) {
      byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
      out.writeBytes(ByteBuffer.allocate(4).putInt(bytes.length).array());
      out.writeBytes(bytes);
    }
    return out.toByteArray();
  }

  /**
   * However the stream is cut into chunks, even inside a length prefix, the frames come out whole.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 5, 7, 100_000})
  void framesComeOutWholeWhateverTheChunks(int chunkSize) {
    String big = "x".repeat(20_000);
    byte[] stream = stream("ADDED", "", big, "DELETED");
    WatchFrames frames = new WatchFrames();
    List<String> out = new ArrayList<>();
    for (int start = 0; start < stream.length; start += chunkSize) {
      int length = Math.min(chunkSize, stream.length - start);
      frames
          .accept(ByteBuffer.wrap(stream, start, length))
          .forEach(frame -> out.add(new String(frame, StandardCharsets.UTF_8)));
    }
    assertThat(out).containsExactly("ADDED", "", big, "DELETED");
    assertThat(frames.pending()).isZero();
  }

  @Test
  void anIncompleteFrameIsHeldBack() {
    byte[] stream = stream("MODIFIED");
    WatchFrames frames = new WatchFrames();
    assertThat(frames.accept(ByteBuffer.wrap(stream, 0, stream.length - 1))).isEmpty();
    assertThat(frames.pending()).isEqualTo(stream.length - 1);
  }

  @Test
  void aLengthOutOfRangeIsAnError() {
    WatchFrames frames = new WatchFrames();
    assertThatThrownBy(() -> frames.accept(ByteBuffer.wrap(new byte[] {(byte) 0xff, 0, 0, 0})))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("watch frame length out of range: 4278190080");
  }
}
