package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The hand-written character classes and hex agree with what the JDK writes and regexes mean. */
class AsciiTest {
  @Test
  void hex8IsTheUnsignedValueZeroPadded() {
    assertThat(Ascii.hex8(0)).isEqualTo("00000000");
    assertThat(Ascii.hex8(0xabc)).isEqualTo("00000abc");
    assertThat(Ascii.hex8(-1)).isEqualTo("ffffffff");
    assertThat(Ascii.hex8(Integer.MIN_VALUE)).isEqualTo("80000000");
    for (int value : new int[] {1, 0x0f0f0f0f, 0x7fffffff, 0xdeadbeef}) {
      assertThat(Ascii.hex8(value)).isEqualTo(String.format("%08x", value));
    }
  }

  @Test
  void wordsAllowLettersDigitsAndTheExtrasFromAnIndex() {
    assertThat(Ascii.isWord("Ab9._-", 0, "._-")).isTrue();
    assertThat(Ascii.isWord("a b", 0, "._-")).isFalse();
    assertThat(Ascii.isWord("é", 0, "")).isFalse();
    assertThat(Ascii.isWord("/ok", 1, "")).isTrue();
    assertThat(Ascii.isWord("", 0, "")).isTrue();
    assertThat(Ascii.isHexDigit('F')).isTrue();
    assertThat(Ascii.isHexDigit('g')).isFalse();
  }

  @Test
  void lowerHexAndDigitRunsFromAnIndex() {
    assertThat(Ascii.isLowerHex("x-09af", 2)).isTrue();
    assertThat(Ascii.isLowerHex("09aF", 0)).isFalse();
    assertThat(Ascii.isLowerHex("09ag", 0)).isFalse();
    assertThat(Ascii.isLowerHex("ab", 2)).isTrue();
    assertThat(Ascii.digitsEnd("ab123-4", 2)).isEqualTo(5);
    assertThat(Ascii.digitsEnd("ab123", 2)).isEqualTo(5);
    assertThat(Ascii.digitsEnd("ab-1", 2)).isEqualTo(2);
    assertThat(Ascii.digitsEnd("١٢", 0)).as("not ASCII digits").isZero();
    assertThat(Ascii.digitsEnd("12", 2)).isEqualTo(2);
  }
}
