package org.d2l.multigpu.runtime;

import java.util.Locale;
import java.util.Optional;

/**
 * The one reader of settings: an environment variable, else a system property (by default of the same
 * lowercase dotted name, {@code DATASET_LIMIT} or {@code -Ddataset.limit=...}); a blank value counts as unset.
 */
public final class Env {

    private Env() {}

    /** The setting {@code variable}: the environment variable, else the property {@link #propertyName}. */
    public static Optional<String> get(String variable) {
        return get(variable, propertyName(variable));
    }

    /** The setting read from the environment variable {@code variable}, else from the system property {@code property}. */
    public static Optional<String> get(String variable, String property) {
        return first(System.getenv(variable), System.getProperty(property));
    }

    /** Whether the switch {@code variable} is on: {@code dflt} when unset, off for false or 0, on for anything else. */
    public static boolean isOn(String variable, boolean dflt) {
        return isOn(get(variable), dflt);
    }

    /** Returns the system property that backs up a variable: {@code MAX_EPOCH} becomes {@code max.epoch}. */
    public static String propertyName(String variable) {
        return variable.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /** The environment's value if it is set and not blank, else the property's (trimmed), else empty. */
    static Optional<String> first(String env, String property) {
        if (env != null && !env.isBlank()) {
            return Optional.of(env.strip());
        }
        return property == null || property.isBlank() ? Optional.empty() : Optional.of(property.strip());
    }

    /** Whether a switch with this value is on: {@code dflt} when empty, off for false or 0, on otherwise. */
    static boolean isOn(Optional<String> value, boolean dflt) {
        return value.map(v -> !(v.equalsIgnoreCase("false") || v.equals("0"))).orElse(dflt);
    }
}
