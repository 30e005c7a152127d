package dev.lifecycle.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LineReaderTest {
  @Test
  void splitsOnNewlinesDropsCarriageReturnsAndKeepsALastUnterminatedLine() throws IOException {
    LineReader reader = reader("{\"a\":1}\r\n\n{\"b\":\"\u00e9\"}\nlast", 100);
    assertThat(reader.next()).hasValue("{\"a\":1}");
    assertThat(reader.next()).hasValue("");
    assertThat(reader.next()).hasValue("{\"b\":\"\u00e9\"}");
    assertThat(reader.next()).hasValue("last");
    assertThat(reader.next()).isEmpty();
  }

  @Test
  void aLineOverTheBoundIsRefusedEvenWithoutANewline() {
    LineReader reader = reader("x".repeat(20_000), 10_000);
    assertThatThrownBy(reader::next).isInstanceOf(LineReader.LineTooLongException.class);
  }

  @Test
  void aLineOfExactlyTheBoundIsAccepted() throws IOException {
    LineReader reader = reader("y".repeat(10_000) + "\nz\n", 10_000);
    assertThat(reader.next()).hasValue("y".repeat(10_000));
    assertThat(reader.next()).hasValue("z");
  }

  @Test
  void linesSpanningManyReadsAreJoined() throws IOException {
    InputStream trickle = new InputStream() { // one byte per read, as a slow pipe may deliver
          private final byte[] data = "abc\ndef\n".getBytes(StandardCharsets.UTF_8);
          private int at;

          @Override
          public int read() {
            return at < data.length ? data[at++] : -1;
          }

          @Override
          public int read(byte[] b, int off, int len) {
            if (at >= data.length) {
              return -1;
            }
            b[off] = data[at++];
            return 1;
          }
        };
    LineReader reader = new LineReader(trickle, 100);
    assertThat(reader.next()).isEqualTo(Optional.of("abc"));
    assertThat(reader.next()).isEqualTo(Optional.of("def"));
    assertThat(reader.next()).isEmpty();
  }

  private static LineReader reader(String text, int max) {
    return new LineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), max);
  }
}
