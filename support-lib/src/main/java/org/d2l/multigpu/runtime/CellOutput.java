package org.d2l.multigpu.runtime;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The output of the notebook cell that trains, kept for the message a training loop prints after the kernel
 * has ended that cell. JJava and IJava end an interrupted cell at once, while its thread finishes the step
 * it is in, and print what comes later to the server's terminal; this sends it to the cell instead (the
 * classic Notebook shows it there). On other kernels, or outside Jupyter, it prints to {@code System.out}.
 */
public final class CellOutput {

    /** Where JJava and IJava keep their running kernel: a public static no-argument method. */
    private static final String[][] KERNELS = {
            {"org.dflib.jjava.jupyter.kernel.BaseKernel", "notebookKernel"},
            {"io.github.spencerpark.ijava.IJava", "getKernelInstance"}};

    private static volatile Object remembered; // the reply environment of the cell seen last
    private static volatile Access access;     // null until looked up; NONE where there is no such kernel

    private record Access(Method kernel, Method getIO, Field display, Field env, Method write) {}

    private static final Access NONE = new Access(null, null, null, null, null);

    private CellOutput() {}

    /**
     * Remembers the output of the cell that runs now; cheap enough to call before every training step. Does
     * nothing while this thread has an interrupt pending: the kernel may have ended its cell already.
     */
    public static void remember() {
        if (!Thread.currentThread().isInterrupted()) {
            remembered = currentEnv();
        }
    }

    /**
     * Prints {@code line} into the output of the cell that ran at the last {@link #remember()}, also when
     * the kernel has ended that cell since; to {@code System.out} otherwise.
     */
    public static void println(String line) {
        Object env = remembered;
        Access a = access;
        if (env != null && a != null && a != NONE && env != currentEnv()) {
            try {
                KernelIo.call(() -> a.write().invoke(env, line + "\n"));
                return;
            } catch (RuntimeException ex) {
                // the kernel refused: print as usual
            }
        }
        KernelIo.print(line + System.lineSeparator());
    }

    private static Object currentEnv() {
        Access a = access;
        if (a == null) {
            a = lookUp();
            access = a;
        }
        if (a == NONE) {
            return null;
        }
        try {
            Object kernel = a.kernel().invoke(null);
            return kernel == null ? null : a.env().get(a.display().get(a.getIO().invoke(kernel)));
        } catch (ReflectiveOperationException | RuntimeException ex) {
            return null; // no kernel running now
        }
    }

    private static Access lookUp() {
        for (String[] k : KERNELS) {
            for (ClassLoader loader : new ClassLoader[] {CellOutput.class.getClassLoader(),
                    Thread.currentThread().getContextClassLoader(), ClassLoader.getSystemClassLoader()}) {
                try {
                    Method kernel = Class.forName(k[0], false, loader).getMethod(k[1]);
                    Method getIO = kernel.getReturnType().getMethod("getIO");
                    Field display = getIO.getReturnType().getField("display");
                    Field env = display.getType().getDeclaredField("env");
                    env.setAccessible(true);
                    Method write = env.getType().getMethod("writeToStdOut", String.class);
                    return new Access(kernel, getIO, display, env, write);
                } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
                    // not this kernel, or not from this loader
                }
            }
        }
        return NONE;
    }
}
