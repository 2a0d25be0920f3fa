package org.d2l.multigpu.bench.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One measurement in its own process (so that its JIT, memory and peak RSS are its own): the child
 * prints a line {@code RESULT config n1 n2 ...}, whose numbers are the run's figures.
 */
public final class ChildProcess {

    /** The first word of the line that carries a child's figures. */
    public static final String RESULT = "RESULT";

    private ChildProcess() {}

    /**
     * The command that starts {@code main} in a new JVM of this one's Java and class path, with
     * native access enabled and {@code jvmOptions} before the class.
     */
    public static List<String> java(List<String> jvmOptions, Class<?> main) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        return cmd;
    }

    /**
     * Runs {@code cmd} and returns the numbers of its {@code RESULT config n1 n2 ...} line; fails with
     * the child's output when it exits non-zero or prints no result.
     */
    public static double[] measure(List<String> cmd, String config) throws IOException, InterruptedException {
        return measure(cmd, config, Map.of());
    }

    /** {@link #measure(List, String)} with {@code env} added to the child's environment (an empty value removes a variable). */
    public static double[] measure(List<String> cmd, String config, Map<String, String> env)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        env.forEach((k, v) -> {
            if (v.isEmpty()) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        String result = null;
        StringBuilder log = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(RESULT + " ")) {
                    result = line;
                } else {
                    log.append(line).append('\n');
                }
            }
        }
        int code = p.waitFor();
        if (code != 0 || result == null) {
            throw new IllegalStateException("benchmark run " + config + " failed (exit " + code + "):\n" + log);
        }
        return figures(result);
    }

    /** The numbers of a {@code RESULT config n1 n2 ...} line. */
    static double[] figures(String result) {
        String[] f = result.split(" ");
        double[] v = new double[f.length - 2];
        for (int i = 2; i < f.length; i++) {
            v[i - 2] = Double.parseDouble(f[i]);
        }
        return v;
    }
}
