package dev.keel.mcp.spring;

import dev.keel.mcp.server.McpServer;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the beans whose classes declare Keel-annotated methods, to hand each to
 * {@link McpServer.Builder#toolsFrom}. Which annotations count is decided by their package, not
 * by a list: every method annotation of {@code dev.keel.mcp.server} ({@code @McpTool} and the
 * ones that join it) marks a bean, so this class never changes when keel-server adds one, and
 * what each annotation means stays keel-server's business.
 */
final class AnnotatedBeans {

  private static final String KEEL_ANNOTATIONS = McpServer.class.getPackageName();

  private AnnotatedBeans() {}

  /**
   * Returns the annotated singleton beans of {@code factory}, in registration order. Bean types
   * are read from their definitions first, so only the beans that qualify are created.
   *
   * @throws IllegalStateException for an annotated bean whose object Keel cannot read its
   *     annotations from (a class-based proxy without a target)
   */
  static List<Object> in(ConfigurableListableBeanFactory factory) {
    List<Object> found = new ArrayList<>();
    for (String name : factory.getBeanDefinitionNames()) {
      BeanDefinition definition = factory.getBeanDefinition(name);
      if (definition.isAbstract() || !definition.isSingleton()
          || definition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
        continue;
      }
      Class<?> type = factory.getType(name, false);
      if (type == null || !isAnnotated(ClassUtils.getUserClass(type))) {
        continue;
      }
      found.add(target(name, factory.getBean(name)));
    }
    return found;
  }

  /** Whether a method declared by {@code type} carries an annotation of keel-server. */
  static boolean isAnnotated(Class<?> type) {
    Method[] methods;
    try {
      methods = type.getDeclaredMethods();
    } catch (LinkageError e) {
      // A bean class whose methods name a type missing from the class path is not Keel's.
      return false;
    }
    for (Method method : methods) {
      for (Annotation a : method.getDeclaredAnnotations()) {
        if (a.annotationType().getPackageName().equals(KEEL_ANNOTATIONS)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * keel-server reads the annotations from the object's own class. A Spring AOP proxy (for
   * {@code @Transactional}, say) is a subclass or an interface proxy without them, so the
   * object behind it is registered: the method runs without the proxy's advice, which the
   * documentation says.
   */
  private static Object target(String name, Object bean) {
    if (!AopUtils.isAopProxy(bean)) {
      if (!isAnnotated(bean.getClass())) {
        throw new IllegalStateException("bean '" + name + "' is a " + bean.getClass().getName()
            + ", a generated subclass that hides its Keel annotations; declare the annotated "
            + "methods on a plain @Component");
      }
      return bean;
    }
    Object target = AopProxyUtils.getSingletonTarget(bean);
    if (target == null || !isAnnotated(target.getClass())) {
      throw new IllegalStateException("bean '" + name + "' is a proxy without a fixed target;"
          + " Keel cannot reach its annotated methods");
    }
    return target;
  }
}
