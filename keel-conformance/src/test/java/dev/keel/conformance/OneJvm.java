package dev.keel.conformance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class whose subject is the same on every JVM, so running it on a second JDK
 * tells nothing the first did not: what the {@code keel} command prints and asks in a
 * terminal, the console page in a browser, an external suite scoring the wire bytes of a CLI
 * subprocess, the Spring Boot starter's wiring. What does change with the JVM (handlers on
 * virtual threads, the JDK HttpClient's internals, thread and memory accounting) is tested in
 * the modules' own suites and in this module's untagged tests, which run on both.
 *
 * <p>{@code .ci/run} runs the whole test command on the default JDK and then again on JDK 25
 * without these ({@code -Dkeel.excludedGroups=jazzer,one-jvm}): the budget of 40 minutes for
 * both runs cannot hold the command twice.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("one-jvm")
@interface OneJvm {}
