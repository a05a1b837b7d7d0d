package dev.keel.agent.internal.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.h2.store.fs.FileUtils;
import org.junit.jupiter.api.Test;

/** The image the build writes is the sample, and opening it leaves nothing of the build open. */
class SampleImageTest {

  /** Table comments, columns with their types and nullability, and indexes, in a fixed order. */
  static List<String> shape(Connection c) throws SQLException {
    List<String> shape = new ArrayList<>();
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT table_name, remarks FROM "
          + "information_schema.tables WHERE table_schema = 'public' ORDER BY 1")) {
        while (rs.next()) {
          shape.add("table " + rs.getString(1) + ": " + rs.getString(2));
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT table_name, column_name, data_type, "
          + "numeric_precision, numeric_scale, character_maximum_length, is_nullable FROM "
          + "information_schema.columns WHERE table_schema = 'public' ORDER BY 1, "
          + "ordinal_position")) {
        while (rs.next()) {
          StringBuilder b = new StringBuilder("column");
          for (int i = 1; i <= 7; i++) {
            b.append(' ').append(rs.getString(i));
          }
          shape.add(b.toString());
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT table_name, index_name, index_type_name FROM "
          + "information_schema.indexes WHERE table_schema = 'public' ORDER BY 1, 2")) {
        while (rs.next()) {
          shape.add("index " + rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
        }
      }
    }
    return shape;
  }

  @Test
  void theImageHoldsExactlyWhatTheLoaderWrites() throws SQLException {
    Connection image = SampleImage.open("image_test_same", "p");
    assertThat(image).as("the build put the image next to SampleImage").isNotNull();
    try (image; Connection loaded = DriverManager.getConnection(
        "jdbc:h2:mem:image_test_loaded;DATABASE_TO_LOWER=TRUE", "sa", "")) {
      SampleData.load(loaded);
      assertThat(SampleDataTest.fingerprint(image))
          .isEqualTo(SampleDataTest.fingerprint(loaded));
      List<String> shape = shape(image);
      assertThat(shape).isEqualTo(shape(loaded));
      assertThat(shape).contains("table orders: One row per order; total is the sum of its lines")
          .anyMatch(line -> line.contains("orders_status_idx"));
    } finally {
      SampleImage.delete("image_test_same");
    }
  }

  @Test
  void openingReplacesThePasswordTheJarCarries() throws SQLException {
    try (Connection admin = SampleImage.open("image_test_password", "chosen-at-start")) {
      assertThat(admin).isNotNull();
      String url = SampleImage.url("image_test_password");
      assertThatThrownBy(() -> DriverManager.getConnection(url, "sa",
          SampleImage.BUILD_PASSWORD).close())
          .isInstanceOf(SQLException.class).hasMessageContaining("Wrong user name or password");
      try (Connection again = DriverManager.getConnection(url, "sa", "chosen-at-start")) {
        assertThat(again.isValid(1)).isTrue();
      }
    } finally {
      SampleImage.delete("image_test_password");
    }
  }

  @Test
  void eachOpenIsItsOwnCopyAndDeleteFreesIt() throws SQLException {
    try (Connection a = SampleImage.open("image_test_a", "a");
        Connection b = SampleImage.open("image_test_b", "b");
        Statement s = a.createStatement()) {
      s.executeUpdate("DELETE FROM audit_log");
      try (Statement t = b.createStatement();
          ResultSet rs = t.executeQuery("SELECT count(*) FROM audit_log")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(SampleData.AUDIT_ENTRIES);
      }
    }
    assertThat(FileUtils.exists("memFS:/image_test_a.mv.db")).isTrue();
    SampleImage.delete("image_test_a");
    SampleImage.delete("image_test_b");
    assertThat(FileUtils.exists("memFS:/image_test_a.mv.db")).isFalse();
    assertThat(FileUtils.exists("memFS:/image_test_b.mv.db")).isFalse();
  }

  @Test
  void anOpenImageRunsNoWriterThread() throws SQLException {
    try (Connection c = SampleImage.open("image_test_threads", "t")) {
      assertThat(c).isNotNull();
      assertThat(Thread.getAllStackTraces().keySet()).map(Thread::getName)
          .noneMatch(name -> name.contains("image_test_threads"));
    } finally {
      SampleImage.delete("image_test_threads");
    }
  }

  @Test
  void aNameIsNeverAPath() {
    assertThatThrownBy(() -> SampleImage.url("../x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("../x");
  }
}
