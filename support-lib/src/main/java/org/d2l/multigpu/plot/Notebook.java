package org.d2l.multigpu.plot;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Rich output in Jupyter through one call that works on rapaio, JJava and IJava: the kernel is found at run time
 * by reflection (no compile-time dependency) and receives one display_data bundle with several MIME types.
 */
public final class Notebook {

    private Notebook() {}

    /** Shows a plot as one output carrying text/html (interactive) and image/png (static); a note outside Jupyter. */
    public static void show(LinePlot plot) {
        display(MimeBundle.of(plot));
    }

    /** Publishes a MIME bundle (type to data) as one display_data output; returns false, after a note, without a kernel. */
    public static boolean display(Map<String, String> bundle) {
        return display(bundle, KernelAccessor.KNOWN, System.out, System.err);
    }

    /** The name of the Jupyter kernel this code runs in ("rapaio", "JJava", "IJava"), if any. */
    public static Optional<String> kernelName() {
        for (KernelAccessor a : KernelAccessor.KNOWN) {
            if (a.find(loaders()).isPresent()) {
                return Optional.of(a.kernelName());
            }
        }
        return Optional.empty();
    }

    static boolean display(Map<String, String> bundle, List<KernelAccessor> accessors, PrintStream out,
                           PrintStream err) {
        if (bundle == null || bundle.isEmpty()) {
            throw new IllegalArgumentException("display bundle must contain at least one MIME type");
        }
        for (KernelAccessor a : accessors) {
            Optional<Object> kernel = a.find(loaders());
            if (kernel.isEmpty()) {
                continue;
            }
            try {
                KernelDisplay.publish(kernel.get(), bundle);
                return true;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                err.println("Notebook.display: the " + a.kernelName() + " kernel did not accept the output ("
                        + cause + "); try saveHtml(path) or png()");
                return false;
            }
        }
        String what = bundle.getOrDefault(MimeBundle.TEXT, "output");
        out.println(what + " (no Jupyter kernel detected: nothing displayed; use saveHtml(path) or png())");
        return false;
    }

    private static List<ClassLoader> loaders() {
        List<ClassLoader> loaders = new ArrayList<>(3);
        addIfNew(loaders, Notebook.class.getClassLoader());
        addIfNew(loaders, Thread.currentThread().getContextClassLoader());
        addIfNew(loaders, ClassLoader.getSystemClassLoader());
        return loaders;
    }

    private static void addIfNew(List<ClassLoader> loaders, ClassLoader loader) {
        if (loader != null && !loaders.contains(loader)) {
            loaders.add(loader);
        }
    }
}
