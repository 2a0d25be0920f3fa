package org.d2l.multigpu.kernel;

import java.lang.reflect.Field;

/**
 * Reads and writes the private fields of rapaio 3.0.1 that the launcher needs; a missing field (another
 * rapaio version) fails with a message that names it.
 */
final class PrivateFields {

    private PrivateFields() {
    }

    /** The value of field {@code name}, declared by the class of {@code target} or one of its superclasses. */
    static Object get(Object target, String name) {
        try {
            return field(target.getClass(), name).get(target);
        } catch (IllegalAccessException ex) {
            throw new IllegalStateException(describe(target, name) + " cannot be read: " + ex.getMessage(), ex);
        }
    }

    /** Sets field {@code name} of {@code target} to {@code value}. */
    static void set(Object target, String name, Object value) {
        try {
            field(target.getClass(), name).set(target, value);
        } catch (IllegalAccessException ex) {
            throw new IllegalStateException(describe(target, name) + " cannot be set: " + ex.getMessage(), ex);
        }
    }

    private static Field field(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException ignored) {
                // look in the superclass
            }
        }
        throw new IllegalStateException("Field '" + name + "' not found in " + type.getName()
                + ": this launcher is written for rapaio-jupyter-kernel " + KernelLauncher.RAPAIO_VERSION
                + "; install that version (scripts/setup.sh does).");
    }

    private static String describe(Object target, String name) {
        return target.getClass().getName() + "." + name;
    }
}
