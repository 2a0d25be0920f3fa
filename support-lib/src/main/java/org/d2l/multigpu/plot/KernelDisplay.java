package org.d2l.multigpu.plot;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;

/**
 * Publishes one display_data message through a kernel object found by {@link KernelAccessor}: builds the kernel's
 * own DisplayData, puts every MIME entry into it and calls {@code kernel.display(displayData)}, all by reflection.
 */
final class KernelDisplay {

    private KernelDisplay() {}

    /** Sends the bundle to the kernel; throws if the kernel's classes do not have the expected shape. */
    static void publish(Object kernel, Map<String, String> bundle) throws ReflectiveOperationException {
        Method display = displayMethod(kernel.getClass());
        Class<?> dataType = display.getParameterTypes()[0];
        Object data = newDisplayData(dataType, bundle.getOrDefault(MimeBundle.TEXT, ""));
        Method put = putDataMethod(dataType);
        for (Map.Entry<String, String> e : bundle.entrySet()) {
            put.invoke(data, e.getKey(), e.getValue());
        }
        display.invoke(kernel, data);
    }

    /** The public method display(X) of the kernel where X is a class named DisplayData. */
    static Method displayMethod(Class<?> kernelType) throws NoSuchMethodException {
        for (Method m : kernelType.getMethods()) {
            if (m.getName().equals("display") && m.getParameterCount() == 1
                    && !Modifier.isStatic(m.getModifiers())
                    && m.getParameterTypes()[0].getSimpleName().equals("DisplayData")) {
                return m;
            }
        }
        throw new NoSuchMethodException(kernelType.getName() + ".display(DisplayData)");
    }

    private static Object newDisplayData(Class<?> type, String text) throws ReflectiveOperationException {
        try {
            Constructor<?> c = type.getConstructor();
            return c.newInstance();
        } catch (NoSuchMethodException e) {
            // rapaio: the constructor is protected, the factory fromText(String) is public
            Method factory = type.getMethod("fromText", String.class);
            return factory.invoke(null, text);
        }
    }

    private static Method putDataMethod(Class<?> type) throws NoSuchMethodException {
        for (Method m : type.getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals("putData") && p.length == 2 && p[0] == String.class
                    && p[1].isAssignableFrom(String.class)) {
                return m;
            }
        }
        throw new NoSuchMethodException(type.getName() + ".putData(String, Object)");
    }
}
