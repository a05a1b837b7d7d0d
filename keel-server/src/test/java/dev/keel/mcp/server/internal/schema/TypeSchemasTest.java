package dev.keel.mcp.server.internal.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.ToolParam;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class TypeSchemasTest {

  enum Color { RED, GREEN }

  record Point(int x, int y) {}

  record Described(@ToolParam(name = "full_name", description = "the name") String name,
      @ToolParam(required = false) String nickname, Optional<Integer> age,
      @ToolParam(required = false) int count) {}

  record Outer(Point at, List<Color> colors) {}

  record Node(String value, Node next) {}

  /** A bean: Jackson's annotations decide its properties. */
  static final class Bean {
    @com.fasterxml.jackson.annotation.JsonProperty(value = "full_name", required = true)
    @com.fasterxml.jackson.annotation.JsonPropertyDescription("the whole name")
    public String name;
    @com.fasterxml.jackson.annotation.JsonIgnore
    public String password;
    public int age;
    private String nickname;

    public String getNickname() {
      return nickname;
    }
  }

  @SuppressWarnings("unused")
  private List<String> listOfStrings;
  @SuppressWarnings("unused")
  private Map<String, Integer> mapOfInts;
  @SuppressWarnings("unused")
  private Map<Integer, String> intKeyedMap;
  @SuppressWarnings("unused")
  private Optional<Color> optionalColor;
  @SuppressWarnings("unused")
  private Set<Point> setOfPoints;
  @SuppressWarnings("unused")
  private List<String>[] arrayOfLists;
  @SuppressWarnings("rawtypes")
  private List rawList;

  private static Type field(String name) throws NoSuchFieldException {
    return TypeSchemasTest.class.getDeclaredField(name).getGenericType();
  }

  private static JsonNode parse(String json) {
    return McpJson.standard().parse(json);
  }

  @Test
  void scalarTypesMapToTheirJsonTypes() {
    assertThat(TypeSchemas.of(String.class)).isEqualTo(parse("{\"type\":\"string\"}"));
    assertThat(TypeSchemas.of(char.class)).isEqualTo(parse("{\"type\":\"string\"}"));
    assertThat(TypeSchemas.of(int.class)).isEqualTo(parse("{\"type\":\"integer\"}"));
    assertThat(TypeSchemas.of(Long.class)).isEqualTo(parse("{\"type\":\"integer\"}"));
    assertThat(TypeSchemas.of(double.class)).isEqualTo(parse("{\"type\":\"number\"}"));
    assertThat(TypeSchemas.of(BigDecimal.class)).isEqualTo(parse("{\"type\":\"number\"}"));
    assertThat(TypeSchemas.of(Boolean.class)).isEqualTo(parse("{\"type\":\"boolean\"}"));
  }

  @Test
  void enumMapsToAStringWithItsConstantNames() {
    assertThat(TypeSchemas.of(Color.class))
        .isEqualTo(parse("{\"type\":\"string\",\"enum\":[\"RED\",\"GREEN\"]}"));
  }

  @Test
  void listAndSetMapToArraysOfTheirElementSchema() throws Exception {
    assertThat(TypeSchemas.of(field("listOfStrings")))
        .isEqualTo(parse("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"));
    assertThat(TypeSchemas.of(field("setOfPoints")).get("items").get("required"))
        .isEqualTo(parse("[\"x\",\"y\"]"));
  }

  @Test
  void javaArraysMapToArrays() throws Exception {
    assertThat(TypeSchemas.of(int[].class))
        .isEqualTo(parse("{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}"));
    assertThat(TypeSchemas.of(field("arrayOfLists"))).isEqualTo(parse(
        "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}"));
  }

  @Test
  void stringKeyedMapMapsToAnObjectWithAdditionalProperties() throws Exception {
    assertThat(TypeSchemas.of(field("mapOfInts"))).isEqualTo(
        parse("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}"));
  }

  @Test
  void mapWithNonStringKeysIsRejected() {
    assertThatThrownBy(() -> TypeSchemas.of(field("intKeyedMap")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("map keys");
  }

  @Test
  void optionalHasTheSchemaOfItsContentAndIsReportedOptional() throws Exception {
    assertThat(TypeSchemas.of(field("optionalColor"))).isEqualTo(TypeSchemas.of(Color.class));
    assertThat(TypeSchemas.isOptional(field("optionalColor"))).isTrue();
    assertThat(TypeSchemas.isOptional(String.class)).isFalse();
  }

  @Test
  void recordMapsToAClosedObjectWithEveryComponentRequired() {
    ObjectNode schema = TypeSchemas.of(Point.class);

    assertThat(schema).isEqualTo(parse("{\"type\":\"object\",\"properties\":"
        + "{\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"}},"
        + "\"required\":[\"x\",\"y\"],\"additionalProperties\":false}"));
  }

  @Test
  void recordComponentsHonourToolParamAndOptional() {
    ObjectNode schema = TypeSchemas.of(Described.class);

    assertThat(schema.get("properties").propertyNames())
        .containsExactly("full_name", "nickname", "age", "count");
    assertThat(schema.at("/properties/full_name/description").stringValue())
        .isEqualTo("the name");
    assertThat(schema.at("/properties/age/type").stringValue()).isEqualTo("integer");
    // a primitive is always required, whatever @ToolParam says
    assertThat(schema.get("required")).isEqualTo(parse("[\"full_name\",\"count\"]"));
  }

  @Test
  void nestedRecordsNestTheirSchemas() {
    ObjectNode schema = TypeSchemas.of(Outer.class);

    assertThat(schema.at("/properties/at")).isEqualTo(TypeSchemas.of(Point.class));
    assertThat(schema.at("/properties/colors/items/enum")).isEqualTo(parse("[\"RED\",\"GREEN\"]"));
  }

  @Test
  void recursiveRecordIsRejectedInsteadOfLoopingForever() {
    assertThatThrownBy(() -> TypeSchemas.of(Node.class))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nests too deeply");
  }

  @Test
  void beanSchemasFollowJacksonAnnotationsInEachDirection() {
    TypeSchemas schemas = new TypeSchemas(McpJson.standard().mapper());

    ObjectNode in = schemas.schema(Bean.class, TypeSchemas.Direction.IN);
    assertThat(in.get("properties").propertyNames()).containsExactlyInAnyOrder("full_name", "age");
    assertThat(in.at("/properties/full_name/description").stringValue())
        .isEqualTo("the whole name");
    // a primitive is always required; Jackson orders a bean's properties by name
    assertThat(in.get("required")).isEqualTo(parse("[\"age\",\"full_name\"]"));

    // a getter without a setter is written, not read
    ObjectNode out = schemas.schema(Bean.class, TypeSchemas.Direction.OUT);
    assertThat(out.get("properties").propertyNames())
        .containsExactlyInAnyOrder("full_name", "age", "nickname");
  }

  @Test
  void optionalRecordComponentsMayBeNullInOutput() {
    TypeSchemas schemas = new TypeSchemas(McpJson.standard().mapper());

    ObjectNode out = schemas.schema(Described.class, TypeSchemas.Direction.OUT);

    assertThat(out.at("/properties/age/type")).isEqualTo(parse("[\"integer\",\"null\"]"));
    assertThat(out.get("required")).isEqualTo(parse("[\"count\"]"));
  }

  @Test
  void typesWithoutAJsonFormAreRejected() {
    assertThatThrownBy(() -> TypeSchemas.of(Object.class))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no JSON Schema");
    assertThatThrownBy(() -> TypeSchemas.of(Thread.class))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rawGenericTypesAreRejected() {
    assertThatThrownBy(() -> TypeSchemas.of(field("rawList")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("raw generic type");
  }

  @Test
  void jsonNodeTypesMapToOpenSchemas() {
    assertThat(TypeSchemas.of(JsonNode.class)).isEqualTo(parse("{}"));
    assertThat(TypeSchemas.of(ObjectNode.class)).isEqualTo(parse("{\"type\":\"object\"}"));
  }
}
