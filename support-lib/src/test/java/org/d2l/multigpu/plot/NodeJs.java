package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs Node.js from tests to parse and execute generated JavaScript; tests are skipped when node is absent. */
final class NodeJs {

    /** Exit code and combined output of one node run. */
    record Result(int exitCode, String output) {}

    private static Boolean available;

    private NodeJs() {}

    /** Skips the calling test, with a clear message, when no node executable is on the PATH. */
    static void assumeAvailable() {
        if (available == null) {
            try {
                available = run(List.of("node", "--version")).exitCode() == 0;
            } catch (IOException e) {
                available = false;
            }
        }
        assumeTrue(available, "node (Node.js) not found on PATH: JavaScript parse/behaviour checks skipped");
    }

    /** Runs node with the given arguments and waits at most 30 seconds. */
    static Result node(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add("node");
        command.addAll(List.of(args));
        return run(command);
    }

    private static Result run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("node timed out: " + command);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while running " + command, e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.exitValue(), out);
    }
}
