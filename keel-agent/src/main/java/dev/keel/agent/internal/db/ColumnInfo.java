package dev.keel.agent.internal.db;

/**
 * A column as the database describes it.
 *
 * @param name its name as stored
 * @param type the database's type name, with size where it has one
 * @param nullable whether it may hold NULL
 * @param defaultValue its default expression, or null
 * @param description its comment, or null
 */
public record ColumnInfo(String name, String type, boolean nullable, String defaultValue,
    String description) {}
