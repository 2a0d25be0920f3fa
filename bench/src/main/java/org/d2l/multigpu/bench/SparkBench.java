package org.d2l.multigpu.bench;

import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.ParameterAveraging;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.RoundResult;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SparkTrainer;

/**
 * Parameter averaging on Spark {@code local[k]} against the in-process {@code DataParallelTrainer}
 * with {@code ParameterAveraging} on k virtual replicas, LeNet on Fashion-MNIST, at averaging
 * frequencies 1 and 10: examples per second over whole epochs (wall clock, after a warm-up epoch),
 * and for Spark the overhead per averaging round (round wall time minus the slowest partition's
 * local steps: job, broadcast, task start, parameters in and out, treeAggregate, the driver's mean).
 * Each measurement runs in its own JVM; configurations are interleaved round by round. Run it with
 * {@code bench/run.sh spark} (options through {@code BENCH_ARGS}: --workers --batch --limit --epochs --rounds).
 */
public final class SparkBench {

    static final List<String> CONFIGS = List.of("inproc-f1", "spark-f1", "inproc-f10", "spark-f10");

    private SparkBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: SparkBench [--workers K] [--batch N (per worker)] "
                        + "[--limit N] [--epochs N (timed)] [--rounds N]; got " + Arrays.toString(args));
            }
            o.put(args[i].substring(2), args[++i]);
        }
        if (o.containsKey("child")) {
            child(o);
        } else {
            parent(o);
        }
    }

    private static void parent(Map<String, String> o) throws Exception {
        int workers = Integer.parseInt(o.getOrDefault("workers", "2"));
        int batch = Integer.parseInt(o.getOrDefault("batch", "128"));
        int limit = Integer.parseInt(o.getOrDefault("limit", "12800"));
        int epochs = Integer.parseInt(o.getOrDefault("epochs", "2"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        CONFIGS.forEach(c -> runs.put(c, new ArrayList<>()));
        for (int r = 0; r < rounds; r++) {
            for (int j = 0; j < CONFIGS.size(); j++) {
                String c = CONFIGS.get((j + r) % CONFIGS.size());
                double[] res = runChild(c, workers, batch, limit, epochs);
                runs.get(c).add(res);
                System.err.printf(Locale.ROOT, "round %d %-10s %8.1f examples/s  overhead/round %6.1f ms  "
                        + "round %6.1f ms  peak RSS %5.0f MB%n", r + 1, c, res[0], res[1], res[2], res[3] / 1024);
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "### Spark local[%d] against the in-process trainer, %d workers, "
                + "LeNet, minibatch %d per worker, DATASET_LIMIT %d, %d timed epoch(s) after 1 warm-up, "
                + "%d interleaved rounds%n%n", workers, workers, batch, limit, epochs, rounds));
        sb.append(String.format(Locale.ROOT, "Machine: %s, %d cores, JDK %s, %s%n%n", Bench.cpuModel(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), LocalDate.now()));
        sb.append("| run | averaging every | examples/s (median) | ratio to in-process (median of per-round "
                + "ratios) | overhead per averaging, ms (median) | round, ms (median) | peak RSS MB (max) |\n"
                + "|---|---|---|---|---|---|---|\n");
        for (String c : CONFIGS) {
            List<double[]> v = runs.get(c);
            List<double[]> base = runs.get("inproc-" + c.substring(c.indexOf('-') + 1));
            double[] ratios = new double[v.size()];
            for (int i = 0; i < v.size(); i++) {
                ratios[i] = v.get(i)[0] / base.get(i)[0];
            }
            boolean spark = c.startsWith("spark");
            sb.append(String.format(Locale.ROOT, "| %s | %s step(s) | %.1f | %.3f | %s | %s | %.0f |%n",
                    spark ? "Spark local[" + workers + "], " + workers + " partitions"
                            : "DataParallelTrainer, " + workers + " virtual replicas",
                    c.substring(c.indexOf("-f") + 2), Bench.median(col(v, 0)), Bench.median(ratios),
                    spark ? String.format(Locale.ROOT, "%.1f", Bench.median(col(v, 1))) : "-",
                    spark ? String.format(Locale.ROOT, "%.1f", Bench.median(col(v, 2))) : "-",
                    Arrays.stream(col(v, 3)).max().orElse(0) / 1024));
        }
        System.out.println(sb);
    }

    private static double[] col(List<double[]> v, int i) {
        return v.stream().mapToDouble(a -> a[i]).toArray();
    }

    private static double[] runChild(String config, int workers, int batch, int limit, int epochs)
            throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED"));
        String sparkOpts = System.getProperty("spark.module.options", "");
        if (!sparkOpts.isBlank()) {
            cmd.addAll(Arrays.asList(sparkOpts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SparkBench.class.getName(),
                "--child", config, "--workers", String.valueOf(workers), "--batch", String.valueOf(batch),
                "--limit", String.valueOf(limit), "--epochs", String.valueOf(epochs)));
        return Bench.measure(cmd, config);
    }

    /** One configuration in this JVM: prints {@code RESULT config examples/s overheadMs roundMs peakRssKb}. */
    private static void child(Map<String, String> o) throws Exception {
        Djl.setup();
        String config = o.get("child");
        int workers = Integer.parseInt(o.get("workers"));
        int batch = Integer.parseInt(o.get("batch"));
        int limit = Integer.parseInt(o.get("limit"));
        int epochs = Integer.parseInt(o.get("epochs"));
        int frequency = Integer.parseInt(config.substring(config.indexOf("-f") + 2));
        FashionMnistData fashion = FashionMnistData.builder().batchSize(batch).shuffle(false).limit(limit).build();
        ArrayDataset train = fashion.train();
        OptimizerFactory opt = OptimizerFactory.sgd(0.05f);
        double examplesPerSecond;
        double overheadMs = 0;
        double roundMs = 0;
        if (config.startsWith("spark")) {
            try (SparkTrainer spark = SparkTrainer.builder(Models.LENET).optMaster("local[" + workers + "]")
                    .setPartitions(workers).optAveragingFrequency(frequency).optOptimizer(opt).build();
                    ShardedData data = spark.distribute(train)) {
                spark.trainEpoch(data, null); // warm-up: JIT, engine, executors' replicas
                int warmRounds = spark.getRounds().size();
                long t0 = System.nanoTime();
                for (int e = 0; e < epochs; e++) {
                    spark.trainEpoch(data, null);
                }
                examplesPerSecond = epochs * data.examples() / ((System.nanoTime() - t0) / 1e9);
                List<RoundResult> timed = spark.getRounds().subList(warmRounds, spark.getRounds().size());
                overheadMs = 1000 * Bench.median(timed.stream().mapToDouble(RoundResult::overheadSeconds).toArray());
                roundMs = 1000 * Bench.median(timed.stream().mapToDouble(RoundResult::seconds).toArray());
            }
        } else {
            Block net = Models.LENET.newBlock();
            try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(workers))
                    .optOptimizer(opt.newOptimizer()).optInputShape(Models.LENET.inputShape())
                    .optSync(ParameterAveraging.builder().averagingFrequency(frequency).averageUpdaters(true).build())
                    .optProgress(false).build()) {
                t.trainEpoch(train, null); // warm-up
                long t0 = System.nanoTime();
                for (int e = 0; e < epochs; e++) {
                    t.trainEpoch(train, null);
                }
                examplesPerSecond = epochs * train.size() / ((System.nanoTime() - t0) / 1e9);
            }
        }
        System.out.printf(Locale.ROOT, "RESULT %s %.3f %.3f %.3f %d%n", config, examplesPerSecond, overheadMs,
                roundMs, Bench.peakRssKb());
    }
}
