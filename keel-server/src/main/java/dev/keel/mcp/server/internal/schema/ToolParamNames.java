package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.server.ToolParam;
import tools.jackson.databind.PropertyName;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.JacksonAnnotationIntrospector;

/**
 * Makes Jackson bind a record component under the name its {@link ToolParam} gives, so the
 * generated schema and the binding always agree on property names.
 */
final class ToolParamNames extends JacksonAnnotationIntrospector {

  private static final long serialVersionUID = 1L;

  @Override
  public PropertyName findNameForDeserialization(MapperConfig<?> config, Annotated a) {
    PropertyName renamed = renamed(a);
    return renamed != null ? renamed : super.findNameForDeserialization(config, a);
  }

  @Override
  public PropertyName findNameForSerialization(MapperConfig<?> config, Annotated a) {
    PropertyName renamed = renamed(a);
    return renamed != null ? renamed : super.findNameForSerialization(config, a);
  }

  private PropertyName renamed(Annotated a) {
    ToolParam param = _findAnnotation(a, ToolParam.class);
    return param == null || param.name().isEmpty() ? null : PropertyName.construct(param.name());
  }
}
