package dev.keel.mcp.core;

import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NumericNode;
import tools.jackson.databind.node.ValueNode;

/**
 * The node factory of Keel's mapper: a number a peer writes beyond a double's range (such as
 * {@code 1e400}) would otherwise become Infinity, which is no JSON value and is written back as
 * the string "Infinity", so a message would change type on its way through. It is refused as
 * the parser reads it, at the cost of one comparison per floating-point number, instead of
 * reading floats as BigDecimal, whose huge exponents are a cost of their own later.
 */
final class FiniteNumbers extends JsonNodeFactory {

  private static final long serialVersionUID = 1L;

  /** The message {@link dev.keel.mcp.core.jsonrpc.JsonRpcCodec} turns into its parse error. */
  static final String OUT_OF_RANGE = "Number value out of range";

  @Override
  public NumericNode numberNode(double v) {
    return super.numberNode(finite(v));
  }

  @Override
  public ValueNode numberNode(Double v) {
    return v == null ? nullNode() : super.numberNode(finite(v));
  }

  @Override
  public NumericNode numberNode(float v) {
    return super.numberNode((float) finite(v));
  }

  @Override
  public ValueNode numberNode(Float v) {
    return v == null ? nullNode() : super.numberNode((float) finite(v));
  }

  private static double finite(double v) {
    if (!Double.isFinite(v)) {
      throw new StreamConstraintsException(OUT_OF_RANGE);
    }
    return v;
  }
}
