package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.d2l.multigpu.checkpoint.CheckpointPolicy;
import org.d2l.multigpu.checkpoint.CheckpointStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real kill: a child JVM trains with checkpoints and is killed with SIGKILL in the middle of an epoch,
 * started again (from other initial weights) and killed in the middle of writing a checkpoint, started
 * again, and ends with the parameters of a run that was never killed, bit for bit.
 */
class KilledRunTest {

    private static final int EPOCHS = 4;

    @TempDir
    Path tmp;

    /** A child training run in {@code dir} from weights {@code seed}; {@code pauseMillis} > 0 pauses every checkpoint write. */
    private Process start(Path dir, long seed, Path out, long pauseMillis) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xss4m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        String offline = System.getProperty("ai.djl.offline");
        if (offline != null) {
            cmd.add("-Dai.djl.offline=" + offline);
        }
        cmd.add("-D" + CheckpointStore.PAUSE_PROPERTY + "=" + pauseMillis);
        cmd.addAll(List.of(CheckpointedRun.class.getName(), dir.toString(), String.valueOf(EPOCHS),
                String.valueOf(seed), out.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Reads the child's output until a line passes {@code until} (then leaves it running) or it ends; returns the lines. */
    private static List<String> readUntil(Process p, Predicate<String> until) throws IOException {
        List<String> lines = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lines.add(line);
            if (until.test(line)) {
                break;
            }
        }
        return lines;
    }

    private static List<String> finish(Process p) throws Exception {
        List<String> lines = readUntil(p, l -> false);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the child did not end");
        assertEquals(0, p.exitValue(), String.join("\n", lines));
        return lines;
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly(); // SIGKILL on Linux and macOS
        assertTrue(p.waitFor(1, TimeUnit.MINUTES));
        assertEquals(137, p.exitValue(), "killed by SIGKILL");
    }

    private static boolean writing(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.anyMatch(f -> f.getFileName().toString().startsWith(".writing-") && nonEmpty(f));
        }
    }

    private static boolean nonEmpty(Path folder) {
        try (Stream<Path> s = Files.list(folder)) {
            return s.findAny().isPresent();
        } catch (IOException ex) {
            return false;
        }
    }

    @Test
    void aRunKilledMidEpochAndMidWriteEndsWithTheUnkilledRunsParameters() throws Exception {
        Path unkilled = tmp.resolve("unkilled.params");
        finish(start(tmp.resolve("a"), 7, unkilled, 0));

        Path dir = tmp.resolve("b");
        Path out = tmp.resolve("resumed.params");
        Process first = start(dir, 7, out, 0);
        readUntil(first, l -> l.equals("step 3 32")); // mid-epoch 3, after two checkpoints
        kill(first);
        CheckpointStore store = new CheckpointStore(CheckpointPolicy.in(dir));
        // checkpoint 2 is on disk, or still being written on the background thread (then 1 is the newest)
        int kept = store.newestValid(0, 0, n -> {}).epoch();
        assertTrue(kept == 1 || kept == 2, "checkpoints " + store.epochs());
        String resumed = "Resumed from " + store.path(kept);

        Process second = start(dir, 8, out, 600_000);
        List<String> lines = readUntil(second, l -> l.startsWith("epoch " + (kept + 1)));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(resumed)), lines.toString());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!writing(dir) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(writing(dir), "the child never started writing checkpoint " + (kept + 1));
        kill(second);
        assertEquals(kept, store.newestValid(0, 0, n -> {}).epoch(), "the half-written checkpoint is not taken");

        List<String> third = finish(start(dir, 9, out, 0));
        assertTrue(third.stream().anyMatch(l -> l.startsWith(resumed)), third.toString());
        assertTrue(third.contains("epoch " + EPOCHS) && third.stream().noneMatch(l -> l.startsWith("step " + kept + " ")),
                "the epochs of the checkpoint are not trained again: " + third);
        assertArrayEquals(Files.readAllBytes(unkilled), Files.readAllBytes(out),
                "the killed and resumed run must end with the unkilled run's parameters");
    }
}
