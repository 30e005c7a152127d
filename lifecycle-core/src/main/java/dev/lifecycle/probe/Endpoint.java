package dev.lifecycle.probe;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a shared helper listens. The text form ({@code toString()}, {@link #parse(String)}) is
 * {@code unix:<absolute path>} or {@code tcp:<host>:<port>} (an IPv6 host in brackets); it is what
 * session records store. Its implementations are immutable and thread-safe.
 */
public sealed interface Endpoint {

  /**
   * A Unix domain socket at an absolute path.
   *
   * @param path the socket file, absolute
   * @return the endpoint
   * @throws IllegalArgumentException if {@code path} is not absolute
   */
  static Endpoint unix(Path path) {
    return new UnixSocket(path);
  }

  /**
   * A TCP address. Prefer an IP literal: host name resolution is not bounded by probe timeouts.
   *
   * @param host a host name or IP literal (IPv6 without brackets)
   * @param port 1 to 65535
   * @return the endpoint
   * @throws IllegalArgumentException if the host is blank or holds spaces or brackets, or the port
   *     is out of range
   */
  static Endpoint tcp(String host, int port) {
    return new Tcp(host, port);
  }

  /**
   * Parses the text form.
   *
   * @param text {@code unix:<absolute path>} or {@code tcp:<host>:<port>}
   * @return the endpoint
   * @throws IllegalArgumentException when {@code text} is not a valid endpoint
   */
  static Endpoint parse(String text) {
    if (text.startsWith("unix:")) {
      return new UnixSocket(Path.of(text.substring("unix:".length())));
    }
    if (text.startsWith("tcp:")) {
      String rest = text.substring("tcp:".length());
      int colon = rest.lastIndexOf(':');
      if (colon < 0) {
        throw new IllegalArgumentException("tcp endpoint without a port: " + text);
      }
      String host = rest.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      try {
        return new Tcp(host, Integer.parseInt(rest.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("tcp endpoint with a bad port: " + text, e);
      }
    }
    throw new IllegalArgumentException("endpoint must start with unix: or tcp: " + text);
  }

  /**
   * A Unix domain socket.
   *
   * @param path the socket file, absolute so that a record means the same in every process
   */
  record UnixSocket(Path path) implements Endpoint {
    /**
     * Checks the path.
     *
     * @param path the socket file, absolute so that a record means the same in every process
     * @throws IllegalArgumentException if {@code path} is not absolute
     */
    public UnixSocket {
      Objects.requireNonNull(path, "path");
      if (!path.isAbsolute()) {
        throw new IllegalArgumentException("socket path must be absolute: " + path);
      }
    }

    @Override
    public String toString() {
      return "unix:" + path;
    }
  }

  /**
   * A TCP address.
   *
   * @param host a host name or IP literal (IPv6 without brackets)
   * @param port 1 to 65535
   */
  record Tcp(String host, int port) implements Endpoint {
    /**
     * Checks host and port.
     *
     * @param host a host name or IP literal (IPv6 without brackets)
     * @param port 1 to 65535
     * @throws IllegalArgumentException if the host is blank or holds spaces or brackets, or the
     *     port is out of range
     */
    public Tcp {
      Objects.requireNonNull(host, "host");
      if (host.isBlank() || host.chars().anyMatch(c -> c <= ' ' || c == '[' || c == ']')) {
        throw new IllegalArgumentException("bad host: '" + host + "'");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port must be 1-65535: " + port);
      }
    }

    @Override
    public String toString() {
      return "tcp:" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }
}
