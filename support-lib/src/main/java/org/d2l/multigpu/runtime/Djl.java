package org.d2l.multigpu.runtime;

import ai.djl.engine.Engine;

/** Starts DJL quietly and, when the PyTorch CPU natives are bundled, offline. */
public final class Djl {

    private static volatile boolean done;

    private Djl() {}

    /**
     * Configures DJL before its engine starts: no telemetry, offline when the natives are on the
     * classpath, quiet logging, freed tensor memory kept in the process and huge pages for large
     * arrays ({@link NativeMemory}), PyTorch's threads capped at a container's CPU quota ({@link CpuQuota}),
     * oneDNN's instruction sets capped where this CPU computes wrong with them, or at AVX-512 without its float16
     * kernels where those are slow ({@link CpuCheck}); safe to call any number of times.
     */
    public static void setup() {
        if (done) {
            return;
        }
        synchronized (Djl.class) {
            if (done) {
                return;
            }
            setIfAbsent("OPT_OUT_TRACKING", "true");
            if (nativesBundled()) {
                // A GPU build (mvn -Dgpu) has no natives: DJL must stay online to fetch CUDA ones.
                setIfAbsent("ai.djl.offline", "true");
            }
            NativeMemory.keepFreedMemory();
            NativeMemory.hugePages(); // before the engine's first allocation, which reads it
            CpuQuota.capTorchThreads(); // before the engine starts, which reads it (Binder: 1 CPU)
            CpuCheck.beforeEngineStarts(); // before oneDNN first runs, which reads its instruction-set cap
            done = true;
        }
    }

    /** Whether the PyTorch native libraries are on the classpath (the default CPU build). */
    public static boolean nativesBundled() {
        return Djl.class.getClassLoader().getResource("native/lib/pytorch.properties") != null;
    }

    /** The version of the bundled PyTorch natives (say 2.7.1-20250812), or "none bundled". */
    public static String nativesVersion() {
        java.net.URL url = Djl.class.getClassLoader().getResource("native/lib/pytorch.properties");
        if (url == null) {
            return "none bundled";
        }
        java.util.Properties p = new java.util.Properties();
        try (java.io.InputStream in = url.openStream()) {
            p.load(in);
        } catch (java.io.IOException e) {
            return "unreadable";
        }
        return p.getProperty("version", "?") + " " + p.getProperty("flavor", "");
    }

    /** Whether DJL is in offline mode (environment variable DJL_OFFLINE or property ai.djl.offline). */
    public static boolean offline() {
        return Env.get("DJL_OFFLINE", "ai.djl.offline").map(Boolean::parseBoolean).orElse(false);
    }

    /** Sets up DJL and returns its engine, started. */
    public static Engine engine() {
        setup();
        return Engine.getInstance();
    }

    private static void setIfAbsent(String key, String value) {
        if (Env.get(key, key).isEmpty()) {
            System.setProperty(key, value);
        }
    }
}
