package org.d2l.multigpu.runtime;

import ai.djl.engine.Engine;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The private fields of DJL's classes that the support jar reads or writes, all through here (with the JNI calls
 * of {@link Autograd}, {@link NoGrad} and {@link IntraOpThreads}, the place a DJL upgrade must check).
 */
public final class DjlFields {

    /** The DJL release whose fields these are (0.35.1's are the same); the jar's tests read every one of them. */
    public static final String BUILT_FOR = "0.36.0";

    private DjlFields() {}

    /** Field {@code name} of DJL's class {@code owner} in {@code of}; {@code neededFor} says what reads it, for the error. */
    @SuppressWarnings("unchecked")
    public static <T> T get(Class<?> owner, String name, Object of, String neededFor) {
        try {
            return (T) field(owner, name).get(of);
        } catch (ReflectiveOperationException | RuntimeException ex) {
            throw missing(owner, name, neededFor, ex);
        }
    }

    /** Sets field {@code name} of DJL's class {@code owner} in {@code of} to {@code value}. */
    public static void set(Class<?> owner, String name, Object of, Object value, String neededFor) {
        try {
            field(owner, name).set(of, value);
        } catch (ReflectiveOperationException | RuntimeException ex) {
            throw missing(owner, name, neededFor, ex);
        }
    }

    /**
     * The non-null values of {@code of}'s instance fields, declared in its class or a superclass, whose generic
     * type {@code type} accepts; an empty list when there are none.
     */
    public static List<Object> valuesOfType(Object of, Predicate<Type> type, String neededFor) {
        List<Object> values = new ArrayList<>();
        for (Class<?> c = of.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || !type.test(f.getGenericType())) {
                    continue;
                }
                Object value = get(c, f.getName(), of, neededFor);
                if (value != null) {
                    values.add(value);
                }
            }
        }
        return values;
    }

    private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
        Field f = owner.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    private static IllegalStateException missing(Class<?> owner, String name, String neededFor, Exception ex) {
        return new IllegalStateException("Cannot reach " + owner.getName() + "." + name + " in DJL "
                + Engine.getDjlVersion() + ", which " + neededFor + " needs; this jar reads the fields of DJL "
                + BUILT_FOR + " (" + ex + ").", ex);
    }
}
