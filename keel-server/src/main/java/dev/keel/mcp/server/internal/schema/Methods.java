package dev.keel.mcp.server.internal.schema;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * What every kind of annotated method shares: finding the methods, naming them in error
 * messages, naming their parameters, converting text arguments and calling them.
 */
final class Methods {

  private Methods() {}

  /**
   * Returns the methods of the class and its superclasses, in name order; a method a subclass
   * overrides appears once (called virtually, it runs the override anyway).
   */
  static List<Method> of(Class<?> type) {
    List<Method> all = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        String signature = m.getName() + Arrays.toString(m.getParameterTypes());
        if (!m.isSynthetic() && !m.isBridge() && !seen.contains(signature)) {
          seen.add(signature);
          all.add(m);
        }
      }
    }
    all.sort(Comparator.comparing(Method::getName));
    return all;
  }

  /** Names a method for a registration error: its class and name. */
  static String where(Method method) {
    return method.getDeclaringClass().getName() + "." + method.getName();
  }

  /** Returns an IllegalArgumentException whose message starts with the method. */
  static IllegalArgumentException problem(Method method, String what) {
    return new IllegalArgumentException(where(method) + ": " + what);
  }

  /** Returns an IllegalArgumentException about a method, keeping the cause. */
  static IllegalArgumentException problem(Method method, String what, Throwable cause) {
    return new IllegalArgumentException(where(method) + ": " + what, cause);
  }

  /** Makes a method callable, or says what the application must do about it. */
  static void open(Method method) {
    try {
      method.setAccessible(true);
    } catch (RuntimeException e) {
      // InaccessibleObjectException (JDK 9+) or SecurityException: a module did not open it
      throw problem(method, "Keel cannot call it; open the package "
          + method.getDeclaringClass().getPackageName() + " to dev.keel.mcp.server", e);
    }
    if (Modifier.isAbstract(method.getModifiers())) {
      throw problem(method, "an abstract method cannot be a feature");
    }
  }

  /**
   * Returns a parameter's name: the one given, or the source name when compiled with
   * {@code -parameters}.
   *
   * @param how how to name the parameter otherwise, for the message
   * @throws IllegalArgumentException when neither is there
   */
  static String nameOf(Method method, Parameter p, String given, String how) {
    if (given != null && !given.isEmpty()) {
      return given;
    }
    if (!p.isNamePresent()) {
      throw problem(method, "parameter " + p.getName() + " has no name; compile with "
          + "-parameters or name it with " + how);
    }
    return p.getName();
  }

  /** Calls the method, rethrowing what it threw unwrapped. */
  static Object invoke(Object instance, Method method, Object[] values) throws Exception {
    try {
      return method.invoke(Modifier.isStatic(method.getModifiers()) ? null : instance, values);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** Returns true for the types a text argument converts to: strings, primitives, enums. */
  static boolean isScalar(Class<?> type) {
    return type == String.class || type.isPrimitive() && type != void.class || type.isEnum()
        || type == Integer.class || type == Long.class || type == Double.class
        || type == Float.class || type == Short.class || type == Byte.class
        || type == Boolean.class || type == Character.class;
  }

  /**
   * Converts a text argument (a prompt argument, a URI variable) to a parameter's type.
   *
   * @throws IllegalArgumentException when the text is no such value
   */
  static Object fromText(String text, Class<?> type) {
    if (type == String.class) {
      return text;
    }
    if (type.isEnum()) {
      for (Object constant : type.getEnumConstants()) {
        if (TypeSchemas.enumName((Enum<?>) constant).equals(text)) {
          return constant;
        }
      }
      throw new IllegalArgumentException("not a " + type.getSimpleName());
    }
    if (type == boolean.class || type == Boolean.class) {
      if (!text.equals("true") && !text.equals("false")) {
        throw new IllegalArgumentException("not a boolean");
      }
      return Boolean.valueOf(text);
    }
    if (type == char.class || type == Character.class) {
      if (text.length() != 1) {
        throw new IllegalArgumentException("not one character");
      }
      return text.charAt(0);
    }
    String t = text.strip();
    if (type == int.class || type == Integer.class) {
      return Integer.valueOf(t);
    }
    if (type == long.class || type == Long.class) {
      return Long.valueOf(t);
    }
    if (type == short.class || type == Short.class) {
      return Short.valueOf(t);
    }
    if (type == byte.class || type == Byte.class) {
      return Byte.valueOf(t);
    }
    if (type == double.class || type == Double.class) {
      return Double.valueOf(t);
    }
    if (type == float.class || type == Float.class) {
      return Float.valueOf(t);
    }
    throw new IllegalArgumentException("no conversion from text to " + type.getName());
  }
}
