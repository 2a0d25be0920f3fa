package org.d2l.multigpu.spark;

import ai.djl.training.dataset.ArrayDataset;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.parallel.EpochMetrics;

/**
 * LeNet on Fashion-MNIST on Spark, by parameter averaging ({@code --trainer averaging}, default) or
 * by ring allreduce of the gradients in a barrier stage ({@code --trainer allreduce}: each batch of
 * {@code --batch-size} is split over the partitions), from the command line or {@code spark-submit}
 * (which supplies the master); prints one line per epoch.
 *
 * <pre>
 * java -jar spark-lib/target/d2l-spark.jar --partitions 2 --frequency 10 --epochs 3
 * spark-submit --master spark://host:7077 --class org.d2l.multigpu.spark.SparkMain ... d2l-spark.jar --partitions 8
 * spark-submit ... d2l-spark.jar --trainer allreduce --partitions 8 --batch-size 1024
 * </pre>
 */
public final class SparkMain {

    private static final Map<String, String> DEFAULTS = Map.of(
            "--partitions", "2", "--frequency", "1", "--epochs", "3", "--batch-size", "128",
            "--lr", "0.1", "--momentum", "0", "--limit", "0", "--data-dir", "", "--trainer", "averaging");

    private SparkMain() {}

    /**
     * Runs the training with options {@code --master --trainer --partitions --frequency --epochs --batch-size
     * --lr --momentum --limit --data-dir}.
     */
    public static void main(String[] args) {
        run(parse(args), System.out);
    }

    /** Trains as {@code options} say (names as on the command line), printing to {@code out}; returns the epochs' metrics. */
    public static List<EpochMetrics> run(Map<String, String> options, PrintStream out) {
        String trainer = options.get("--trainer");
        if (!trainer.equals("averaging") && !trainer.equals("allreduce")) {
            throw new IllegalArgumentException("--trainer is averaging (parameter averaging) or allreduce (ring "
                    + "allreduce of the gradients in a barrier stage), not " + trainer + ".");
        }
        int partitions = Integer.parseInt(options.get("--partitions"));
        int frequency = Integer.parseInt(options.get("--frequency"));
        int epochs = Integer.parseInt(options.get("--epochs"));
        int batchSize = Integer.parseInt(options.get("--batch-size"));
        float lr = Float.parseFloat(options.get("--lr"));
        float momentum = Float.parseFloat(options.get("--momentum"));
        long limit = Long.parseLong(options.get("--limit"));
        FashionMnistData.Builder data = FashionMnistData.builder().batchSize(batchSize).shuffle(false);
        if (limit > 0) {
            data.limit(limit);
        }
        if (!options.get("--data-dir").isEmpty()) {
            data.dataDir(java.nio.file.Path.of(options.get("--data-dir")));
        }
        FashionMnistData fashion = data.build();
        if (trainer.equals("allreduce")) {
            return allreduce(options, fashion, partitions, epochs, batchSize, OptimizerFactory.sgd(lr, momentum), out);
        }
        SparkTrainer.Builder b = SparkTrainer.builder(Models.LENET).setPartitions(partitions)
                .optAveragingFrequency(frequency).optOptimizer(OptimizerFactory.sgd(lr, momentum));
        if (options.containsKey("--master")) {
            b.optMaster(options.get("--master"));
        }
        try (SparkTrainer spark = b.build()) {
            ArrayDataset train = fashion.train();
            ArrayDataset test = fashion.test();
            out.printf(Locale.ROOT, "master %s, %d partitions, averaging every %d local step(s), %d training "
                    + "examples in minibatches of %d, SGD lr %s momentum %s%n", spark.getContext().master(),
                    partitions, frequency, train.size(), batchSize, lr, momentum);
            try (ShardedData shards = spark.distribute(train)) {
                List<EpochMetrics> history = spark.fit(shards, test, epochs);
                out.print(EpochMetrics.table(history));
                return history;
            }
        }
    }

    private static List<EpochMetrics> allreduce(Map<String, String> options, FashionMnistData fashion, int partitions,
            int epochs, int batchSize, OptimizerFactory opt, PrintStream out) {
        AllreduceTrainer.Builder b = AllreduceTrainer.builder(Models.LENET).setPartitions(partitions).optOptimizer(opt);
        if (options.containsKey("--master")) {
            b.optMaster(options.get("--master"));
        }
        try (AllreduceTrainer spark = b.build()) {
            ArrayDataset train = fashion.train();
            out.printf(Locale.ROOT, "master %s, %d partitions in a barrier stage, gradients ring-allreduced every "
                    + "step, %d training examples in global batches of %d, %s%n", spark.getContext().master(),
                    partitions, train.size(), batchSize, opt);
            try (SplitData data = spark.distribute(train)) {
                List<EpochMetrics> history = spark.fit(data, fashion.test(), epochs);
                out.print(EpochMetrics.table(history));
                AllreduceEpoch last = spark.getEpochLog().get(spark.getEpochLog().size() - 1);
                out.printf(Locale.ROOT, "bytes sent per step and rank %.0f (ring: 2(k-1)/k x gradient bytes = %.0f); "
                        + "per step %.1f ms compute, %.1f ms allreduce, %.1f ms update%n", last.bytesSentPerStep(0),
                        last.ringBytesPerStep(), 1000 * last.computeSecondsPerStep(),
                        1000 * last.allreduceSecondsPerStep(), 1000 * last.updateSecondsPerStep());
                return history;
            }
        }
    }

    /** The options of {@code args} over the defaults; refuses unknown names and missing values. */
    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>(DEFAULTS);
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (!DEFAULTS.containsKey(name) && !name.equals("--master")) {
                throw new IllegalArgumentException("Unknown option " + name + "; the options are --master "
                        + String.join(" ", new java.util.TreeSet<>(DEFAULTS.keySet())) + ".");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Option " + name + " needs a value.");
            }
            options.put(name, args[i + 1]);
        }
        return options;
    }
}
