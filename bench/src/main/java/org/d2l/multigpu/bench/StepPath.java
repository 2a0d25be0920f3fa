package org.d2l.multigpu.bench;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.runtime.Djl;
import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IClassCoverage;
import org.jacoco.core.data.ExecutionDataReader;
import org.jacoco.core.data.ExecutionDataStore;
import org.jacoco.core.data.SessionInfoStore;

/**
 * Which of the project's source files a step of {@code fit} runs code in, and how many of their lines (suite
 * {@code steppath}): JaCoCo's agent (in JMX mode) records the code that runs from the end of step 3 of an epoch to
 * the end of step 4, the lessons' configuration (LeNet on 2 virtual replicas, gradient averaging, float32).
 */
public final class StepPath {

    private static final ObjectName JACOCO = name("org.jacoco:type=Runtime");

    private StepPath() {}

    /** Prints the files, their packages and lines run, for the configuration {@code args[0]} (replicas, default 2). */
    public static void main(String[] args) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        if (!server.isRegistered(JACOCO)) {
            throw new IllegalStateException("JaCoCo's agent is not running with jmx=true: run this through "
                    + "bench/run.sh steppath, which starts it.");
        }
        Djl.setup();
        int replicas = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        byte[][] recorded = new byte[1][];
        EpochListener window = new EpochListener() {
            private int steps;

            @Override
            public void onStep(int epoch, long examplesSeen, double meanLoss) {
                steps++;
                try {
                    if (steps == 3) {
                        server.invoke(JACOCO, "reset", null, null);
                    } else if (steps == 4) {
                        recorded[0] = (byte[]) server.invoke(JACOCO, "getExecutionData",
                                new Object[] {false}, new String[] {"boolean"});
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("JaCoCo's agent did not answer: " + e.getMessage(), e);
                }
            }

            @Override
            public void onEpoch(EpochMetrics metrics) {}
        };
        try (NDManager manager = NDManager.newBaseManager();
                DataParallelTrainer t = DataParallelTrainer.builder(LeNet.block()).setDevices(Devices.virtual(replicas))
                        .optInputShape(new Shape(1, 1, 28, 28)).optLearningRate(0.1f).optSync(GradientAveraging.mean())
                        .optProgress(false).build()) {
            int n = 8 * 64;
            ArrayDataset data = new ArrayDataset.Builder()
                    .setData(manager.randomUniform(0, 1, new Shape(n, 1, 28, 28)))
                    .optLabels(manager.randomInteger(0, 10, new Shape(n), DataType.INT32).toType(DataType.FLOAT32, false))
                    .setSampling(64, false).build();
            t.fit(data, null, 1, window);
        }
        print(replicas, recorded[0]);
    }

    /** The table of source files the recorded step ran code in, with their lines run. */
    private static void print(int replicas, byte[] exec) throws IOException {
        ExecutionDataStore store = new ExecutionDataStore();
        ExecutionDataReader reader = new ExecutionDataReader(new ByteArrayInputStream(exec));
        reader.setExecutionDataVisitor(store);
        reader.setSessionInfoVisitor(new SessionInfoStore());
        reader.read();
        CoverageBuilder coverage = new CoverageBuilder();
        Analyzer analyzer = new Analyzer(store, coverage);
        for (var data : store.getContents()) {
            if (data.hasHits() && !data.getName().startsWith("org/d2l/multigpu/bench/")) {
                try (InputStream in = StepPath.class.getClassLoader().getResourceAsStream(data.getName() + ".class")) {
                    if (in != null) {
                        analyzer.analyzeClass(in, data.getName());
                    }
                }
            }
        }
        Map<String, Integer> lines = new TreeMap<>();
        for (IClassCoverage c : coverage.getClasses()) {
            int covered = c.getLineCounter().getCoveredCount();
            if (covered > 0) {
                String file = c.getPackageName().replace("org/d2l/multigpu/", "").replace('/', '.') + "."
                        + c.getSourceFileName();
                lines.merge(file, covered, Integer::sum);
            }
        }
        System.out.printf(Locale.ROOT, "### The files one step of fit runs code in: LeNet, %d virtual replica(s), gradient "
                + "averaging, float32 (step 4 of an epoch, JaCoCo)%n%n", replicas);
        System.out.println("| file | lines run |");
        System.out.println("|---|---|");
        lines.forEach((f, n) -> System.out.printf(Locale.ROOT, "| %s | %d |%n", f, n));
        System.out.printf(Locale.ROOT, "%n%d files, %d lines run.%n", lines.size(),
                lines.values().stream().mapToInt(Integer::intValue).sum());
    }

    private static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }
}
