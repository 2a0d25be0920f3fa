package org.d2l.multigpu.spark.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.apache.spark.SparkContext$;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.spark.driver.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


class SparkMainTest {

    /** What one run of the job printed and returned. */
    private record Run(int code, String out, String err, List<EpochMetrics> history) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SparkMain job = new SparkMain();
        int code = SparkMain.commandLine(job, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), job.history());
    }

    private static void assumeData() {
        assumeTrue(Files.isDirectory(Path.of(FashionMnistData.DEBIAN_DIR))
                || System.getenv("FASHION_MNIST_DIR") != null, "no Fashion-MNIST files on this machine");
    }

    @Test
    void aBadCommandLineGetsItsErrorAndTheUsageBeforeSparkStarts() {
        String[][] cases = {
            {"--partition", "2"}, {"--model", "vgg"}, {"--epochs"}, {"--epochs", "0"}, {"--width", "8"},
            {"--model", "resnet18", "--width", "0"}, {"--trainer", "allreduce", "--frequency", "4"},
            {"--trainer", "allreduce", "--partitions", "4", "--batch-size", "2"}, {"--no-resume"}, {"--lr", "-1"},
            {"--compression", "onebit"}, {"--trainer", "allreduce", "--partitions", "1", "--compression", "powersgd"},
            {"--trainer", "allreduce", "--compression", "2bit"},
        };
        String[] says = {
            "Unknown options: '--partition'", "Invalid value for option '--model'", "Missing required parameter",
            "--epochs must be at least 1", "--width is ResNet-18's: add --model resnet18",
            "--width must be at least 1", "--frequency is parameter averaging's",
            "give at least one example to each", "--no-resume is a setting of --checkpoints", "--lr must be a positive",
            "--compression is ring allreduce's: add --trainer allreduce", "--compression compresses what the ranks send",
            "Invalid value for option '--compression'",
        };
        for (int i = 0; i < cases.length; i++) {
            Run r = run(cases[i]);
            assertEquals(2, r.code(), String.join(" ", cases[i]) + ": " + r.err());
            assertTrue(r.err().contains(says[i]), String.join(" ", cases[i]) + ": " + r.err());
            assertTrue(r.err().contains("Usage: d2l-spark"), r.err());
            assertTrue(SparkContext$.MODULE$.getActive().isEmpty(), "Spark started for " + String.join(" ", cases[i]));
        }
        Run help = run("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("--checkpoints=DIR") && help.out().contains("--model=lenet|resnet18"), help.out());
    }

    @Test
    void theJobTrainsLeNetByParameterAveragingAndPrintsEveryEpoch() {
        assumeData();
        Run r = run("--master", "local[1]", "--limit", "256", "--epochs", "2", "--batch-size", "32", "--frequency", "2");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("LeNet on master local[1]: 2 partitions, parameters averaged every 2"), r.out());
        assertEquals(2, r.history().size());
        assertEquals(2, r.history().get(0).syncs(), r.out()); // 8 minibatches, 4 per partition, averaged every 2
        for (EpochMetrics m : r.history()) {
            assertTrue(r.out().contains("epoch " + m.epoch() + ": train loss " + String.format(java.util.Locale.ROOT,
                    "%.4f", m.trainLoss())), r.out());
        }
    }

    @Test
    void theJobTrainsLeNetWithOneBitCompressedGradientsAndSendsUnderAThirtiethOfTheUncompressedRingsBytes() {
        assumeData();
        Run r = run("--master", "local[2]", "--trainer", "allreduce", "--compression", "onebit", "--limit", "256",
                "--epochs", "1", "--batch-size", "64");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("(compressed: 1-bit sign with a scale per array, error feedback)"), r.out());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("last epoch: (\\d+) bytes sent per step and rank "
                + "\\(uncompressed ring: 2\\(k-1\\)/k x gradient bytes = (\\d+)\\)").matcher(r.out());
        assertTrue(m.find(), r.out());
        // 1 bit instead of 32 per value, plus a scale and a length per gradient: under 1/30 of float32's ring
        assertTrue(30 * Long.parseLong(m.group(1)) < Long.parseLong(m.group(2)), r.out());
    }

    @Test
    void theJobTrainsResNetByRingAllreduceAndResumesFromItsCheckpoints(@TempDir Path dir) {
        assumeData();
        String[] common = {"--master", "local[2]", "--trainer", "allreduce", "--model", "resnet18", "--width", "4",
            "--limit", "256", "--batch-size", "64", "--checkpoints", dir.toString()};
        Run first = run(concat(common, "--epochs", "1"));
        assertEquals(0, first.code(), first.err());
        assertTrue(first.out().contains("ResNet-18 of width 4 on master local[2]: 2 partitions in one barrier stage"),
                first.out());
        assertEquals(4, first.history().get(0).syncs(), first.out()); // 256 examples in global batches of 64
        Run second = run(concat(common, "--epochs", "2"));
        assertEquals(0, second.code(), second.err());
        assertEquals(2, second.history().size(), second.out());
        assertEquals(first.history().get(0).trainLoss(), second.history().get(0).trainLoss(), second.out());
        assertTrue(second.out().contains("epoch 2: train loss"), second.out());
        Run fresh = run(concat(common, "--epochs", "1", "--no-resume"));
        assertEquals(0, fresh.code(), fresh.err());
        assertEquals(1, fresh.history().size(), fresh.out());
    }

    /**
     * The job as a cluster user submits it: Spark's own {@code SparkSubmit} in a JVM of its own, on
     * {@code local-cluster[2,1,1024]} (a standalone master and worker, two executor JVMs), with a jar of
     * this module's classes as the application.
     */
    @Test
    void sparkSubmitRunsTheJobOnALocalCluster(@TempDir Path dir) throws Exception {
        assumeData();
        Path home = Files.createDirectories(dir.resolve("spark-home"));
        List<String> folders = LocalCluster.sparkHome(home);
        Path app = appJar(dir.resolve("d2l-spark-app.jar"));
        Path checkpoints = dir.resolve("checkpoints");
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments()); // Spark's module options, as Surefire's
        cmd.addAll(List.of("-Dspark.testing=true", "-Dspark.test.home=" + home, "-cp", LocalCluster.classPath(),
                "org.apache.spark.deploy.SparkSubmit", "--master", "local-cluster[2,1,1024]",
                "--class", SparkMain.class.getName(),
                "--conf", "spark.executor.extraClassPath=" + String.join(File.pathSeparator, folders),
                "--conf", "spark.executor.extraJavaOptions=--enable-native-access=ALL-UNNAMED",
                "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
                app.toString(), "--trainer", "allreduce", "--limit", "256", "--batch-size", "64", "--epochs", "2",
                "--checkpoints", checkpoints.toString()));
        Path log = dir.resolve("submit.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(10, TimeUnit.MINUTES);
        if (!ended) {
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        assertTrue(ended, "spark-submit did not end in 10 minutes:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("LeNet on master local-cluster[2,1,1024]: 2 partitions in one barrier stage"), out);
        assertTrue(out.contains("epoch 1: train loss") && out.contains("epoch 2: train loss"), out);
        try (Stream<Path> files = Files.list(checkpoints)) {
            assertTrue(files.findAny().isPresent(), "no checkpoint in " + checkpoints);
        }
    }

    /** A jar of the folder this module's classes were loaded from (or that jar itself). */
    private static Path appJar(Path jar) throws IOException {
        Path classes;
        try {
            classes = Path.of(SparkMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException ex) {
            throw new IOException(ex);
        }
        if (!Files.isDirectory(classes)) {
            return classes;
        }
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> all = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) all.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, (OutputStream) out);
                out.closeEntry();
            }
        }
        return jar;
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
