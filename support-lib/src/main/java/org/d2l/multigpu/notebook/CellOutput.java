package org.d2l.multigpu.notebook;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The output of the notebook cell that trains, kept for the message a training loop prints after the kernel
 * has ended that cell. JJava and IJava end an interrupted cell at once, while its thread finishes the step
 * it is in, and print what comes later to the server's terminal; this sends it to the cell instead (the
 * classic Notebook shows it there). On other kernels, or outside Jupyter, it prints to {@code System.out}.
 */
public final class CellOutput {

    private static volatile Object remembered; // the reply environment of the cell seen last
    private static volatile Access access;     // null until looked up for the running kernel's class

    /** How to reach a JJava/IJava kernel's current cell output: kernel.getIO().display.env.writeToStdOut. */
    private record Access(Class<?> kernelType, Method getIO, Field display, Field env, Method write) {}

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
        if (env != null && a != null && a.write() != null && env != currentEnv()) {
            try {
                KernelIo.call(() -> a.write().invoke(env, line + "\n"));
                return;
            } catch (RuntimeException ex) {
                // the kernel refused: print as usual
            }
        }
        KernelIo.print(line + System.lineSeparator());
    }

    /** The output environment of the cell running now, or null outside JJava and IJava. */
    private static Object currentEnv() {
        Object kernel = Notebook.kernel().map(Notebook.Found::kernel).orElse(null);
        if (kernel == null) {
            return null;
        }
        Access a = access;
        if (a == null || a.kernelType() != kernel.getClass()) {
            a = lookUp(kernel.getClass());
            access = a;
        }
        if (a.write() == null) {
            return null; // a kernel without such a stream (rapaio)
        }
        try {
            return a.env().get(a.display().get(a.getIO().invoke(kernel)));
        } catch (ReflectiveOperationException | RuntimeException ex) {
            return null; // no cell running now
        }
    }

    /** The reflective path to the cell's output for this kernel class; all null where it has none. */
    private static Access lookUp(Class<?> kernelType) {
        try {
            Method getIO = kernelType.getMethod("getIO");
            Field display = getIO.getReturnType().getField("display");
            Field env = display.getType().getDeclaredField("env");
            env.setAccessible(true);
            Method write = env.getType().getMethod("writeToStdOut", String.class);
            return new Access(kernelType, getIO, display, env, write);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
            return new Access(kernelType, null, null, null, null);
        }
    }
}
