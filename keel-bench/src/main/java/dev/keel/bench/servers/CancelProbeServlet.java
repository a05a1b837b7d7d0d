package dev.keel.bench.servers;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Stamps the arrival of a request that names a probe key in {@value #HEADER}, then hands it to
 * Keel's servlet unchanged. The stamp is taken at the first line of servlet code, so the
 * measured cancellation latency includes Keel's gates, body parsing and dispatch. Keel ignores
 * the header. Living in the benchmark, it adds no hook to Keel's API.
 */
final class CancelProbeServlet extends HttpServlet {

  static final String HEADER = "X-Bench-Cancel";
  private static final long serialVersionUID = 1L;

  private final HttpServlet delegate;
  private final transient CancelProbe probe;

  CancelProbeServlet(HttpServlet delegate, CancelProbe probe) {
    this.delegate = delegate;
    this.probe = probe;
  }

  @Override
  public void init(ServletConfig config) throws ServletException {
    super.init(config);
    delegate.init(config);
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp)
      throws ServletException, IOException {
    String key = req.getHeader(HEADER);
    if (key != null) {
      probe.arrived(key, System.nanoTime());
    }
    delegate.service((jakarta.servlet.ServletRequest) req, resp);
  }

  @Override
  public void destroy() {
    delegate.destroy();
  }
}
