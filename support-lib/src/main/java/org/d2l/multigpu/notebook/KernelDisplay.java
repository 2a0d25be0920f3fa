package org.d2l.multigpu.notebook;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;

/**
 * Publishes display_data and update_display_data through a kernel object found by {@link KernelAccessor}: builds
 * the kernel's own DisplayData (every MIME entry, the display id) and hands it over, all by reflection.
 */
final class KernelDisplay {

    private KernelDisplay() {}

    /** Sends the bundle as a new output, with a display id unless it is null. */
    static void publish(Object kernel, Map<String, String> bundle, String displayId) throws ReflectiveOperationException {
        Method display = method(kernel.getClass(), "display");
        display.invoke(kernel, data(display.getParameterTypes()[0], bundle, displayId));
    }

    /** Replaces the output shown with this display id: rapaio's kernel.updateDisplay, or JJava/IJava's getIO().display. */
    static void update(Object kernel, Map<String, String> bundle, String displayId) throws ReflectiveOperationException {
        Object target = kernel;
        Method update;
        try {
            update = method(kernel.getClass(), "updateDisplay");
        } catch (NoSuchMethodException e) {
            Object io = kernel.getClass().getMethod("getIO").invoke(kernel);
            target = io.getClass().getField("display").get(io);
            update = method(target.getClass(), "updateDisplay");
        }
        update.invoke(target, data(update.getParameterTypes()[0], bundle, displayId));
    }

    /** The public instance method {@code name(X)} where X is a class named DisplayData. */
    private static Method method(Class<?> type, String name) throws NoSuchMethodException {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1 && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterTypes()[0].getSimpleName().equals("DisplayData")) {
                return m;
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + name + "(DisplayData)");
    }

    private static Object data(Class<?> type, Map<String, String> bundle, String displayId)
            throws ReflectiveOperationException {
        Object data;
        try {
            data = type.getConstructor().newInstance();
        } catch (NoSuchMethodException e) { // rapaio: protected constructor, public fromText(String)
            data = type.getMethod("fromText", String.class).invoke(null, bundle.getOrDefault(Notebook.TEXT, ""));
        }
        Method put = type.getMethod("putData", String.class, Object.class);
        for (Map.Entry<String, String> e : bundle.entrySet()) {
            put.invoke(data, e.getKey(), e.getValue());
        }
        if (displayId != null) {
            type.getMethod("setDisplayId", String.class).invoke(data, displayId);
        }
        return data;
    }
}
