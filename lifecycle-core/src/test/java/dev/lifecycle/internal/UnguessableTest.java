package dev.lifecycle.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lifecycle.process.SpawnOptions;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The kernel-CSPRNG source behind cookies, tokens and cgroup names: every byte handed out once
 * (across the pool's refills) and values in the forms their users validate. That a CLI's path
 * starts no security provider is pinned by {@code LazyLoadingTest} in lifecycle-posix.
 */
class UnguessableTest {

  @Test
  void valuesAcrossManyRefillsAreAllDistinct() {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) { // 80,000 bytes: the pool is refilled ~150 times
      assertThat(seen.add(Unguessable.nextLong())).as("value %d is new", i).isTrue();
    }
  }

  @Test
  void aRequestLargerThanThePoolIsFilledCompletely() {
    byte[] big = Unguessable.bytes(2_000);
    assertThat(big).hasSize(2_000);
    // 2,000 random bytes with a run of 64 zeros (an unfilled tail) has probability ~2^-512.
    int zeros = 0;
    int longest = 0;
    for (byte b : big) {
      zeros = b == 0 ? zeros + 1 : 0;
      longest = Math.max(longest, zeros);
    }
    assertThat(longest).isLessThan(64);
    assertThat(Unguessable.bytes(0)).isEmpty();
  }

  @Test
  void uuidsAreVersion4InTheirTextFormAndValidCookies() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      String text = Unguessable.uuid();
      UUID parsed = UUID.fromString(text);
      assertThat(parsed.version()).isEqualTo(4);
      assertThat(parsed.variant()).isEqualTo(2);
      assertThat(parsed.toString()).isEqualTo(text).hasSize(36);
      assertThat(seen.add(text)).isTrue();
    }
    String cookie = SpawnOptions.newCookie();
    assertThat(new SpawnOptions(true, false, cookie).treeCookie()).isEqualTo(cookie);
  }
}
