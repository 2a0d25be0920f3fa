package org.d2l.multigpu.notebook;

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

    /** MIME type of the interactive fragment. */
    public static final String HTML = "text/html";
    /** MIME type of the static image, whose data is base64 without line breaks. */
    public static final String PNG = "image/png";
    /** MIME type of the plain-text description every display carries. */
    public static final String TEXT = "text/plain";

    private static List<KernelAccessor> accessors = KernelAccessor.KNOWN;
    private static PrintStream out; // null: System.out at the time of the call (kernels replace it per cell)
    private static PrintStream err;

    private Notebook() {}

    /** Publishes a bundle (MIME type to data) as one new output; returns false, after a note, without a kernel. */
    public static boolean display(Map<String, String> bundle) {
        return send(bundle, null, false);
    }

    /** Publishes a bundle as a new output that {@link #update} can later replace; false without a kernel. */
    public static boolean display(Map<String, String> bundle, String displayId) {
        return send(bundle, requireId(displayId), false);
    }

    /** Replaces the output shown with this display id (update_display_data); false, silently, without a kernel. */
    public static boolean update(Map<String, String> bundle, String displayId) {
        return send(bundle, requireId(displayId), true);
    }

    /** The name of the Jupyter kernel this code runs in ("rapaio", "JJava", "IJava"), if any. */
    public static Optional<String> kernelName() {
        return kernel().map(k -> k.accessor().kernelName());
    }

    /** Uses these kernel accessors and streams instead of the real ones (tests; a null stream: System.out or err at each call). */
    static void use(List<KernelAccessor> known, PrintStream stdout, PrintStream stderr) {
        accessors = known;
        out = stdout;
        err = stderr;
    }

    /** A running kernel and the table entry that found it. */
    record Found(KernelAccessor accessor, Object kernel) {}

    /** The kernel this code runs in, looked up through the table of known kernels. */
    static Optional<Found> kernel() {
        List<ClassLoader> loaders = new ArrayList<>(3);
        for (ClassLoader l : new ClassLoader[] {Notebook.class.getClassLoader(),
                Thread.currentThread().getContextClassLoader(), ClassLoader.getSystemClassLoader()}) {
            if (l != null && !loaders.contains(l)) {
                loaders.add(l);
            }
        }
        for (KernelAccessor a : accessors) {
            Optional<Object> k = a.find(loaders);
            if (k.isPresent()) {
                return Optional.of(new Found(a, k.get()));
            }
        }
        return Optional.empty();
    }

    private static boolean send(Map<String, String> bundle, String displayId, boolean update) {
        if (bundle == null || bundle.isEmpty()) {
            throw new IllegalArgumentException("display bundle must contain at least one MIME type");
        }
        Optional<Found> found = kernel();
        if (found.isEmpty()) {
            if (!update) {
                (out != null ? out : System.out).println(bundle.getOrDefault(TEXT, "output")
                        + " (no Jupyter kernel detected: nothing displayed; use saveHtml(path) or png())");
            }
            return false;
        }
        // Sent from the output thread: a send from the training thread would swallow its Kernel > Interrupt.
        Throwable failure = KernelIo.call(() -> {
            try {
                if (update) {
                    KernelDisplay.update(found.get().kernel(), bundle, displayId);
                } else {
                    KernelDisplay.publish(found.get().kernel(), bundle, displayId);
                }
                return null;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return e;
            }
        });
        if (failure != null) {
            Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
            (err != null ? err : System.err).println("Notebook: the " + found.get().accessor().kernelName() + " kernel did not accept the "
                    + (update ? "update" : "output") + " (" + cause + "); try saveHtml(path) or png()");
            return false;
        }
        return true;
    }

    private static String requireId(String displayId) {
        if (displayId == null || displayId.isBlank()) {
            throw new IllegalArgumentException("a display id must be a non-empty string");
        }
        return displayId;
    }
}
