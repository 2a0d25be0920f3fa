package org.d2l.multigpu.notebook;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Optional;

/** Where a Jupyter Java kernel keeps its running instance: a public static no-argument method or field. */
record KernelAccessor(String kernelName, String className, String member) {

    /** The kernels known to run user code in their own JVM, most specific first. */
    static final List<KernelAccessor> KNOWN = List.of(
            // rapaio-jupyter-kernel 3.x: public static final RapaioKernel kernel
            new KernelAccessor("rapaio", "org.rapaio.jupyter.kernel.MainApp", "kernel"),
            // JJava 1.0-a6: BaseKernel.notebookKernel() (throws when no kernel runs)
            new KernelAccessor("JJava", "org.dflib.jjava.jupyter.kernel.BaseKernel", "notebookKernel"),
            // JJava after 1.0-a6: JavaNotebookStatics.kernel()
            new KernelAccessor("JJava", "org.dflib.jjava.kernel.JavaNotebookStatics", "kernel"),
            // JJava 1.0-M2 to 1.0-a5
            new KernelAccessor("JJava", "org.dflib.jjava.JJava", "getKernelInstance"),
            // IJava 1.3
            new KernelAccessor("IJava", "io.github.spencerpark.ijava.IJava", "getKernelInstance"));

    /** The running kernel object, if the class is visible from one of the loaders and yields a non-null value. */
    Optional<Object> find(List<ClassLoader> loaders) {
        for (ClassLoader loader : loaders) {
            Class<?> type;
            try {
                type = Class.forName(className, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                continue;
            }
            try {
                return Optional.ofNullable(read(type));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private Object read(Class<?> type) throws ReflectiveOperationException {
        try {
            Method m = type.getMethod(member);
            if (Modifier.isStatic(m.getModifiers())) {
                try {
                    return m.invoke(null);
                } catch (InvocationTargetException e) {
                    return null; // e.g. "No kernel running"
                }
            }
        } catch (NoSuchMethodException e) {
            // fall through to a field
        }
        Field f = type.getField(member);
        return Modifier.isStatic(f.getModifiers()) ? f.get(null) : null;
    }
}
