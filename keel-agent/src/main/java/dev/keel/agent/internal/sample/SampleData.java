package dev.keel.agent.internal.sample;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The sample dataset of the embedded database: a small shop (regions, customers, products,
 * orders and their lines, employees, an audit log), about 10,000 rows. Generated from a fixed
 * seed, so every run holds the same data on every engine; portable SQL, so the same loader
 * fills H2 and PostgreSQL.
 */
public final class SampleData {

  /** The tables in creation order. */
  public static final List<String> TABLES = List.of("regions", "customers", "products",
      "orders", "order_items", "employees", "audit_log");

  /** How many customers, products, orders, employees and audit entries are generated. */
  public static final int CUSTOMERS = 600;
  /** Products generated. */
  public static final int PRODUCTS = 150;
  /** Orders generated. */
  public static final int ORDERS = 2500;
  /** Employees generated. */
  public static final int EMPLOYEES = 40;
  /** Audit entries generated. */
  public static final int AUDIT_ENTRIES = 300;

  private static final long SEED = 20260728L;

  private static final String[] REGIONS = {"Europe", "North America", "South America",
      "Asia Pacific", "Middle East and Africa"};
  private static final String[][] COUNTRIES = {{"DE", "1"}, {"FR", "1"}, {"GB", "1"},
      {"ES", "1"}, {"IT", "1"}, {"NL", "1"}, {"SE", "1"}, {"US", "2"}, {"CA", "2"},
      {"MX", "2"}, {"BR", "3"}, {"AR", "3"}, {"JP", "4"}, {"IN", "4"}, {"AU", "4"},
      {"ZA", "5"}, {"AE", "5"}};
  private static final String[] FIRST = {"Ada", "Alan", "Grace", "Linus", "Barbara", "Ken",
      "Margaret", "Dennis", "Frances", "Edsger", "Radia", "Tim", "Sophie", "Hedy", "John",
      "Katherine", "Niklaus", "Anita", "Guido", "Shafi", "Leslie", "Donald", "Jean", "Yukihiro"};
  private static final String[] LAST = {"Lovelace", "Turing", "Hopper", "Torvalds", "Liskov",
      "Thompson", "Hamilton", "Ritchie", "Allen", "Dijkstra", "Perlman", "Berners-Lee",
      "Wilson", "Lamarr", "Backus", "Johnson", "Wirth", "Borg", "van Rossum", "Goldwasser",
      "Lamport", "Knuth", "Sammet", "Matsumoto"};
  private static final String[] SEGMENTS = {"consumer", "consumer", "consumer", "small business",
      "enterprise"};
  private static final String[] CATEGORIES = {"Books", "Electronics", "Garden", "Kitchen",
      "Toys", "Sports", "Office"};
  private static final String[] ADJECTIVES = {"Compact", "Deluxe", "Classic", "Smart",
      "Rugged", "Eco", "Mini", "Pro", "Quiet", "Bright"};
  private static final String[] NOUNS = {"Lamp", "Kettle", "Notebook", "Drone", "Shovel",
      "Puzzle", "Racket", "Stapler", "Speaker", "Backpack", "Blender", "Novel", "Planter",
      "Headphones", "Chess Set"};
  private static final String[] STATUSES = {"delivered", "delivered", "delivered",
      "delivered", "delivered", "delivered", "delivered", "shipped", "processing",
      "cancelled", "returned"};
  private static final String[] TITLES = {"Account Manager", "Support Engineer",
      "Sales Representative", "Regional Director", "Data Analyst"};
  private static final String[] ACTIONS = {"login", "export customers", "refund order",
      "change price", "view salaries", "reset password"};

  private SampleData() {}

  /** Creates the tables and fills them; commits when the connection is not in auto-commit. */
  public static void load(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE TABLE regions (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)");
      s.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL, "
          + "email VARCHAR(120) NOT NULL, country CHAR(2) NOT NULL, "
          + "region_id INTEGER NOT NULL REFERENCES regions(id), segment VARCHAR(20) NOT NULL, "
          + "signup_date DATE NOT NULL)");
      s.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, sku VARCHAR(20) NOT NULL "
          + "UNIQUE, name VARCHAR(80) NOT NULL, category VARCHAR(30) NOT NULL, "
          + "unit_price DECIMAL(10,2) NOT NULL, in_stock BOOLEAN NOT NULL)");
      s.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, "
          + "customer_id INTEGER NOT NULL REFERENCES customers(id), "
          + "ordered_at TIMESTAMP NOT NULL, status VARCHAR(20) NOT NULL, "
          + "total DECIMAL(12,2) NOT NULL)");
      s.execute("CREATE TABLE order_items (order_id INTEGER NOT NULL REFERENCES orders(id), "
          + "line_no INTEGER NOT NULL, product_id INTEGER NOT NULL REFERENCES products(id), "
          + "quantity INTEGER NOT NULL, unit_price DECIMAL(10,2) NOT NULL, "
          + "PRIMARY KEY (order_id, line_no))");
      s.execute("CREATE TABLE employees (id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL, "
          + "title VARCHAR(40) NOT NULL, region_id INTEGER NOT NULL REFERENCES regions(id), "
          + "hired_on DATE NOT NULL, salary DECIMAL(10,2) NOT NULL)");
      s.execute("CREATE TABLE audit_log (id INTEGER PRIMARY KEY, "
          + "employee_id INTEGER NOT NULL REFERENCES employees(id), "
          + "action VARCHAR(40) NOT NULL, detail VARCHAR(200), at TIMESTAMP NOT NULL)");
      s.execute("CREATE INDEX customers_country_idx ON customers (country)");
      s.execute("CREATE INDEX orders_customer_idx ON orders (customer_id)");
      s.execute("CREATE INDEX orders_status_idx ON orders (status, ordered_at)");
      s.execute("CREATE INDEX order_items_product_idx ON order_items (product_id)");
    }
    // SQLite has no COMMENT ON: its tables go without descriptions; MySQL and MariaDB have none
    // either, but a table's comment is one of its options there
    String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    boolean mysql = product.contains("mysql") || product.contains("mariadb");
    try (Statement s = c.createStatement()) {
      if (!product.equals("sqlite")) {
        comment(s, mysql);
      }
    }
    fill(c, new Random(SEED));
    if (!c.getAutoCommit()) {
      c.commit();
    }
  }

  private static void comment(Statement s, boolean mysql) throws SQLException {
    String[][] comments = {
        {"regions", "Sales regions"},
        {"customers", "People and companies who buy from the shop"},
        {"products", "What the shop sells"},
        {"orders", "One row per order; total is the sum of its lines"},
        {"order_items", "The lines of each order"},
        {"employees", "Staff, by region"},
        {"audit_log", "Who did what, and when"},
    };
    for (String[] comment : comments) {
      s.execute(mysql ? "ALTER TABLE " + comment[0] + " COMMENT = '" + comment[1] + "'"
          : "COMMENT ON TABLE " + comment[0] + " IS '" + comment[1] + "'");
    }
  }

  private static void fill(Connection c, Random random) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("INSERT INTO regions VALUES (?, ?)")) {
      for (int i = 0; i < REGIONS.length; i++) {
        p.setInt(1, i + 1);
        p.setString(2, REGIONS[i]);
        p.addBatch();
      }
      p.executeBatch();
    }
    try (PreparedStatement p = c.prepareStatement(
        "INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      for (int id = 1; id <= CUSTOMERS; id++) {
        String first = FIRST[random.nextInt(FIRST.length)];
        String last = LAST[random.nextInt(LAST.length)];
        String[] country = COUNTRIES[random.nextInt(COUNTRIES.length)];
        p.setInt(1, id);
        p.setString(2, first + " " + last);
        p.setString(3, (first + "." + last).toLowerCase(java.util.Locale.ROOT)
            .replace(' ', '-') + id + "@example.com");
        p.setString(4, country[0]);
        p.setInt(5, Integer.parseInt(country[1]));
        p.setString(6, SEGMENTS[random.nextInt(SEGMENTS.length)]);
        p.setObject(7, LocalDate.of(2022, 1, 1).plusDays(random.nextInt(1000)));
        p.addBatch();
      }
      p.executeBatch();
    }
    BigDecimal[] prices = new BigDecimal[PRODUCTS + 1];
    try (PreparedStatement p = c.prepareStatement(
        "INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)")) {
      for (int id = 1; id <= PRODUCTS; id++) {
        prices[id] = BigDecimal.valueOf(199 + random.nextInt(49_800), 2);
        p.setInt(1, id);
        p.setString(2, String.format("SKU-%05d", id * 7));
        p.setString(3, ADJECTIVES[random.nextInt(ADJECTIVES.length)] + " "
            + NOUNS[random.nextInt(NOUNS.length)]);
        p.setString(4, CATEGORIES[random.nextInt(CATEGORIES.length)]);
        p.setBigDecimal(5, prices[id]);
        p.setBoolean(6, random.nextInt(10) > 0);
        p.addBatch();
      }
      p.executeBatch();
    }
    try (PreparedStatement order = c.prepareStatement(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?)");
        PreparedStatement line = c.prepareStatement(
            "INSERT INTO order_items VALUES (?, ?, ?, ?, ?)")) {
      LocalDateTime start = LocalDateTime.of(2024, 1, 1, 8, 0);
      for (int id = 1; id <= ORDERS; id++) {
        // A few customers order far more than others, as in any shop.
        int customer = random.nextInt(4) == 0 ? 1 + random.nextInt(40)
            : 1 + random.nextInt(CUSTOMERS);
        int lines = 1 + random.nextInt(4);
        BigDecimal total = BigDecimal.ZERO;
        for (int n = 1; n <= lines; n++) {
          int product = 1 + random.nextInt(PRODUCTS);
          int quantity = 1 + random.nextInt(5);
          line.setInt(1, id);
          line.setInt(2, n);
          line.setInt(3, product);
          line.setInt(4, quantity);
          line.setBigDecimal(5, prices[product]);
          line.addBatch();
          total = total.add(prices[product].multiply(BigDecimal.valueOf(quantity)));
        }
        order.setInt(1, id);
        order.setInt(2, customer);
        order.setObject(3, start.plusMinutes(id * 417L + random.nextInt(300)));
        order.setString(4, STATUSES[random.nextInt(STATUSES.length)]);
        order.setBigDecimal(5, total.setScale(2, RoundingMode.UNNECESSARY));
        order.addBatch();
        if (id % 500 == 0) {
          // orders first: the lines refer to them
          order.executeBatch();
          line.executeBatch();
        }
      }
      order.executeBatch();
      line.executeBatch();
    }
    try (PreparedStatement p = c.prepareStatement(
        "INSERT INTO employees VALUES (?, ?, ?, ?, ?, ?)")) {
      for (int id = 1; id <= EMPLOYEES; id++) {
        p.setInt(1, id);
        p.setString(2, FIRST[random.nextInt(FIRST.length)] + " "
            + LAST[random.nextInt(LAST.length)]);
        p.setString(3, TITLES[random.nextInt(TITLES.length)]);
        p.setInt(4, 1 + random.nextInt(REGIONS.length));
        p.setObject(5, LocalDate.of(2015, 3, 1).plusDays(random.nextInt(3500)));
        p.setBigDecimal(6, BigDecimal.valueOf(40_000 + random.nextInt(120) * 1_000L));
        p.addBatch();
      }
      p.executeBatch();
    }
    try (PreparedStatement p = c.prepareStatement(
        "INSERT INTO audit_log VALUES (?, ?, ?, ?, ?)")) {
      LocalDateTime start = LocalDateTime.of(2025, 1, 1, 9, 0);
      for (int id = 1; id <= AUDIT_ENTRIES; id++) {
        String action = ACTIONS[random.nextInt(ACTIONS.length)];
        p.setInt(1, id);
        p.setInt(2, 1 + random.nextInt(EMPLOYEES));
        p.setString(3, action);
        p.setString(4, action.equals("refund order")
            ? "order " + (1 + random.nextInt(ORDERS)) : null);
        p.setObject(5, start.plusMinutes(id * 1_409L));
        p.addBatch();
      }
      p.executeBatch();
    }
  }
}
