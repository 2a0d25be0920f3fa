package org.d2l.multigpu.runtime;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The class path a child JVM needs to run a class of the support jar with DJL's PyTorch engine, found
 * from where this JVM loaded those classes (a notebook kernel adds the jars to its own class loader, so
 * {@code java.class.path} alone would not hold it), followed by this JVM's own class path.
 */
final class ChildClassPath {

    /** Classes (by name, some are optional) whose jars or class folders the child needs. */
    private static final List<String> ANCHORS = List.of("ai.djl.engine.Engine", "ai.djl.pytorch.engine.PtEngine",
            "ai.djl.pytorch.jni.JniUtils", "com.sun.jna.Native", "com.google.gson.Gson", "org.slf4j.LoggerFactory",
            "org.slf4j.simple.SimpleServiceProvider");

    private ChildClassPath() {}

    /** The class path for a child JVM that runs {@code main}. */
    static String of(Class<?> main) {
        Set<String> entries = new LinkedHashSet<>();
        add(entries, main.getProtectionDomain().getCodeSource());
        ClassLoader loader = main.getClassLoader();
        for (String name : ANCHORS) {
            try {
                add(entries, Class.forName(name, false, loader).getProtectionDomain().getCodeSource());
            } catch (ClassNotFoundException | LinkageError e) {
                // optional: the child finds it through the class path below, or runs without it
            }
        }
        URL natives = loader == null ? null : loader.getResource("native/lib/pytorch.properties");
        if (natives != null && natives.getProtocol().equals("jar")) {
            String s = natives.getPath(); // file:/.../pytorch-native-cpu.jar!/native/lib/pytorch.properties
            addUrl(entries, s.substring(0, s.indexOf("!/")));
        }
        for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!e.isBlank()) {
                entries.add(e);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void add(Set<String> entries, CodeSource source) {
        if (source != null && source.getLocation() != null) {
            addUrl(entries, source.getLocation().toString());
        }
    }

    private static void addUrl(Set<String> entries, String url) {
        try {
            if (url.startsWith("file:")) {
                entries.add(Path.of(new java.net.URI(url)).toString());
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            // not a local file: nothing a child JVM could load
        }
    }
}
