package dev.keel.mcp.http.internal;

import java.net.URI;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * DNS-rebinding defence: which {@code Origin} and {@code Host} values may reach the server.
 *
 * <p>A missing {@code Origin} always passes (non-browser clients send none). With an allowlist,
 * only listed values pass. Without one, a loopback bind admits only loopback origins and hosts,
 * and any other bind admits an origin only when it names the host the request was sent to.
 */
public final class OriginPolicy {

  private final Set<String> allowedOrigins;
  private final Set<String> allowedHosts;
  private final boolean loopbackOnly;
  /** The last Host value admitted (a benign race: any admitted value may be kept). */
  private volatile String lastAdmittedHost;

  /**
   * Creates a policy.
   *
   * @param allowedOrigins exact origins such as {@code https://app.example.com}
   * @param allowedHosts host names, with or without a port
   * @param loopbackOnly whether the server is bound to loopback
   */
  public OriginPolicy(Set<String> allowedOrigins, Set<String> allowedHosts,
      boolean loopbackOnly) {
    this.allowedOrigins = allowedOrigins.stream().map(OriginPolicy::lower)
        .collect(Collectors.toUnmodifiableSet());
    this.allowedHosts = allowedHosts.stream().map(OriginPolicy::lower)
        .collect(Collectors.toUnmodifiableSet());
    this.loopbackOnly = loopbackOnly;
  }

  /** Returns true when a request with these headers may proceed. */
  public boolean admits(String origin, String host) {
    return hostAllowed(host) && originAllowed(origin, host);
  }

  private boolean hostAllowed(String host) {
    // A client sends the same Host on every request: the last one admitted is remembered, so
    // parsing it (lower case, port, loopback form) is not paid per request. The decision is a
    // function of the value alone, so a remembered value is admitted exactly as before.
    String last = lastAdmittedHost;
    if (host != null && host.equals(last)) {
      return true;
    }
    boolean allowed = decideHost(host);
    if (allowed && host != null) {
      lastAdmittedHost = host;
    }
    return allowed;
  }

  private boolean decideHost(String host) {
    if (!allowedHosts.isEmpty()) {
      return host != null
          && (allowedHosts.contains(lower(host)) || allowedHosts.contains(hostName(host)));
    }
    if (loopbackOnly) {
      return host == null || isLoopback(hostName(host));
    }
    return true;
  }

  private boolean originAllowed(String origin, String host) {
    if (origin == null) {
      return true;
    }
    if (!allowedOrigins.isEmpty()) {
      return allowedOrigins.contains(lower(origin.trim()));
    }
    String originHost;
    try {
      URI uri = URI.create(origin.trim());
      if (uri.getScheme() == null || uri.getHost() == null) {
        return false;
      }
      originHost = lower(uri.getHost());
      if (originHost.startsWith("[") && originHost.endsWith("]")) {
        originHost = originHost.substring(1, originHost.length() - 1);
      }
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (loopbackOnly) {
      return isLoopback(originHost);
    }
    return host != null && originHost.equals(stripBrackets(hostName(host)));
  }

  private static String hostName(String hostHeader) {
    String h = lower(hostHeader.trim());
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(0, end + 1);
    }
    int colon = h.lastIndexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  private static String stripBrackets(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1)
        : host;
  }

  private static boolean isLoopback(String host) {
    String h = stripBrackets(host);
    return h.equals("localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")
        || h.startsWith("127.") && dotsAndDigits(h);
  }

  // A loop rather than chars().allMatch(): this runs on every request.
  private static boolean dotsAndDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '.' && (c < '0' || c > '9')) {
        return false;
      }
    }
    return true;
  }

  private static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
