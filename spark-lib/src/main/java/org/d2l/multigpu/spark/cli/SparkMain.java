package org.d2l.multigpu.spark.cli;

import ai.djl.training.dataset.ArrayDataset;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.loop.EpochListener;
import org.d2l.multigpu.loop.EpochMetrics;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.spark.AllreduceEpoch;
import org.d2l.multigpu.spark.ModelFactory;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.driver.AllreduceTrainer;
import org.d2l.multigpu.spark.driver.SparkTrainer;
import org.d2l.multigpu.spark.driver.SparkTrainerBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * A cluster user's entry point: the lessons' LeNet or ResNet-18 on Fashion-MNIST on Spark, by parameter
 * averaging or by ring allreduce of the gradients in a barrier stage, one line per finished epoch, with
 * checkpoints to resume from; {@code spark-submit} supplies the master (see the module's README).
 *
 * <pre>
 * java -jar spark-lib/target/d2l-spark.jar --partitions 2 --frequency 10 --epochs 3
 * spark-submit --master spark://host:7077 --class org.d2l.multigpu.spark.cli.SparkMain ... d2l-spark.jar \
 *     --trainer allreduce --model resnet18 --partitions 8 --batch-size 1024 --checkpoints /shared/run1
 * </pre>
 */
@Command(name = "d2l-spark", sortOptions = false, usageHelpAutoWidth = true,
        description = "Trains the lessons' LeNet or ResNet-18 on Fashion-MNIST on Spark, by parameter averaging or by "
                + "ring allreduce of the gradients, and prints one line per epoch.")
public final class SparkMain implements Callable<Integer> {

    /** How the replicas agree: parameter averaging every few steps, or the gradients summed every step. */
    enum Trainer { averaging, allreduce }

    /** The lessons' networks. */
    enum Model { lenet, resnet18 }

    /** The gradient compressors of the lesson {@code gradient-compression}, each with error feedback. */
    enum Scheme {
        none, float16, onebit, threshold, powersgd;

        /** This scheme's compressor, at the lesson's settings (null for none). */
        Compressor compressor() {
            return switch (this) {
                case none -> null;
                case float16 -> Compressor.float16(true);
                case onebit -> Compressor.oneBit(true);
                case threshold -> Compressor.threshold(1e-3, true);
                case powersgd -> Compressor.powerSgd(2, 10, true);
            };
        }
    }

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "prints this help and exits")
    boolean help;

    @Option(names = "--trainer", paramLabel = "averaging|allreduce", description = "averaging: parameter averaging "
            + "(SparkTrainer); allreduce: ring allreduce of the gradients in a barrier stage (AllreduceTrainer) "
            + "(default: ${DEFAULT-VALUE})")
    Trainer trainer = Trainer.averaging;

    @Option(names = "--compression", paramLabel = "none|float16|onebit|threshold|powersgd", description = "allreduce: "
            + "each gradient the ranks send, compressed with error feedback: float16 (2x fewer bytes), onebit (sign "
            + "and a scale, 32x), threshold (DL4J's encoding from 1e-3), powersgd (rank 2 after 10 plain steps) "
            + "(default: ${DEFAULT-VALUE})")
    Scheme compression = Scheme.none;

    @Option(names = "--model", paramLabel = "lenet|resnet18", description = "the network (default: ${DEFAULT-VALUE})")
    Model model = Model.lenet;

    @Option(names = "--width", paramLabel = "W", description = "ResNet-18's channels in its first stage "
            + "(default: the book's " + ResNet.BOOK_WIDTH + "; resnet18 only)")
    Integer width;

    @Option(names = "--partitions", paramLabel = "K", description = "replicas, one Spark task each (default: ${DEFAULT-VALUE})")
    int partitions = 2;

    @Option(names = "--frequency", paramLabel = "N", description = "local steps between averagings "
            + "(default: 1; averaging only)")
    Integer frequency;

    @Option(names = "--epochs", paramLabel = "N", description = "epochs in all, resumed ones included (default: ${DEFAULT-VALUE})")
    int epochs = 3;

    @Option(names = "--batch-size", paramLabel = "B", description = "averaging: each replica's minibatch; allreduce: "
            + "the global batch, split over the partitions (default: ${DEFAULT-VALUE})")
    int batchSize = 128;

    @Option(names = "--lr", paramLabel = "LR", description = "SGD's learning rate (default: ${DEFAULT-VALUE})")
    float lr = 0.1f;

    @Option(names = "--momentum", paramLabel = "M", description = "SGD's momentum (default: ${DEFAULT-VALUE})")
    float momentum = 0f;

    @Option(names = "--limit", paramLabel = "N", description = "use the first N examples of each split "
            + "(default: DATASET_LIMIT, else all)")
    long limit;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Fashion-MNIST's IDX files "
            + "(default: FASHION_MNIST_DIR, else Debian's dataset-fashion-mnist)")
    Path dataDir;

    @Option(names = "--master", paramLabel = "URL", description = "Spark's master (default: what spark-submit "
            + "set, else local[K])")
    String master;

    @Option(names = "--checkpoints", paramLabel = "DIR", description = "keep the driver's state after every epoch "
            + "in DIR (a folder every run of this job can reach) and resume from the newest there")
    Path checkpoints;

    @Option(names = "--resume", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "--no-resume starts afresh even if --checkpoints holds checkpoints (default: resume)")
    boolean resume = true;

    private PrintStream out = System.out;
    private List<EpochMetrics> history = List.of();

    /** Runs the job with {@code args}; exits with 0 when it finished, 2 after a bad command line, 1 after a failure. */
    public static void main(String[] args) {
        System.exit(commandLine(new SparkMain(), System.out, System.err).execute(args));
    }

    /**
     * The job's command line printing to {@code out} and {@code err}: a bad command line gets its error and the
     * usage (before Spark starts), a failed run one line with its reason.
     */
    static CommandLine commandLine(SparkMain job, PrintStream out, PrintStream err) {
        job.out = out;
        CommandLine cl = new CommandLine(job).setCaseInsensitiveEnumValuesAllowed(true);
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler((ex, args) -> { // the error, picocli's suggestions, then always the usage
            PrintWriter w = ex.getCommandLine().getErr();
            w.println(ex.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, w);
            w.print(ex.getCommandLine().getUsageMessage());
            w.flush();
            return ex.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
        });
        cl.setExecutionExceptionHandler((ex, line, parsed) -> {
            err.println("d2l-spark failed: " + ex.getMessage());
            for (Throwable c = ex.getCause(); c != null; c = c.getCause()) {
                err.println("  caused by: " + c);
            }
            return 1;
        });
        return cl;
    }

    /** The metrics of every epoch of the last run (resumed ones included). */
    List<EpochMetrics> history() {
        return history;
    }

    @Override
    public Integer call() {
        check();
        FashionMnistData.Builder data = FashionMnistData.builder().setSampling(batchSize, false);
        if (limit > 0) {
            data.optLimit(limit);
        }
        if (dataDir != null) {
            data.optDataDir(dataDir);
        }
        FashionMnistData fashion = data.build();
        ArrayDataset train = fashion.train(); // a missing data set fails here, before Spark starts
        ArrayDataset test = fashion.test();
        ModelFactory net = model == Model.lenet ? Models.LENET : Models.resnet18(resnetWidth());
        OptimizerFactory opt = OptimizerFactory.sgd(lr, momentum);
        history = trainer == Trainer.allreduce ? allreduce(net, opt, train, test) : averaging(net, opt, train, test);
        return 0;
    }

    private List<EpochMetrics> averaging(ModelFactory net, OptimizerFactory opt, ArrayDataset train, ArrayDataset test) {
        int every = frequency == null ? 1 : frequency;
        try (SparkTrainer spark = configure(SparkTrainer.builder(net).optAveragingFrequency(every), opt).build();
                ShardedData shards = spark.distribute(train)) {
            out.printf(Locale.ROOT, "%s on master %s: %d partitions, parameters averaged every %d local step(s), "
                    + "%d training examples in minibatches of %d per partition, SGD lr %s momentum %s%n", describe(),
                    spark.getContext().master(), spark.getPartitions(), every, train.size(), batchSize, lr, momentum);
            return spark.fit(shards, test, epochs, printer());
        }
    }

    private List<EpochMetrics> allreduce(ModelFactory net, OptimizerFactory opt, ArrayDataset train, ArrayDataset test) {
        Compressor compressor = compression.compressor();
        try (AllreduceTrainer spark = configure(AllreduceTrainer.builder(net).optCompression(compressor), opt).build();
                SplitData data = spark.distribute(train)) {
            out.printf(Locale.ROOT, "%s on master %s: %d partitions in one barrier stage, gradients ring-allreduced "
                    + "every step%s, %d training examples in global batches of %d, SGD lr %s momentum %s%n", describe(),
                    spark.getContext().master(), spark.getPartitions(),
                    compressor == null ? "" : " (compressed: " + compressor.describe() + ")", train.size(), batchSize,
                    lr, momentum);
            List<EpochMetrics> run = spark.fit(data, test, epochs, printer());
            AllreduceEpoch last = spark.lastEpoch();
            if (last != null) {
                out.printf(Locale.ROOT, "last epoch: %.0f bytes sent per step and rank (uncompressed ring: 2(k-1)/k x "
                        + "gradient bytes = %.0f); per step %.1f ms forward and backward, %.1f ms allreduce, %.1f ms update%n",
                        last.bytesSentPerStep(0), last.ringBytesPerStep(), 1000 * last.computeSecondsPerStep(),
                        1000 * last.allreduceSecondsPerStep(), 1000 * last.updateSecondsPerStep());
            }
            return run;
        }
    }

    private <B extends SparkTrainerBuilder<B>> B configure(B b, OptimizerFactory opt) {
        b.setPartitions(partitions).optOptimizer(opt);
        if (master != null) {
            b.optMaster(master);
        }
        if (checkpoints != null) {
            b.optCheckpoints(checkpoints).optResume(resume);
        }
        return b;
    }

    private String describe() {
        return model == Model.lenet ? "LeNet" : "ResNet-18 of width " + resnetWidth();
    }

    private int resnetWidth() {
        return width == null ? ResNet.BOOK_WIDTH : width;
    }

    /** Prints every finished epoch (resumed ones too) and the checkpoints' notes as they come. */
    private EpochListener printer() {
        return new EpochListener() {
            @Override
            public void onEpoch(EpochMetrics m) {
                out.printf(Locale.ROOT, "epoch %d: train loss %.4f, train acc %.3f, test acc %.3f, %.1f s, "
                        + "%.0f examples/s%n", m.epoch(), m.trainLoss(), m.trainAccuracy(), m.testAccuracy(),
                        m.seconds(), m.examplesPerSecond());
            }

            @Override
            public void onCheckpointNote(String message) {
                out.println(message);
            }
        };
    }

    /** Refuses, before any data is read or Spark starts, values that cannot run, naming the option and what to use. */
    private void check() {
        List<String> wrong = new ArrayList<>();
        if (partitions < 1) {
            wrong.add("--partitions must be at least 1, got " + partitions);
        }
        if (epochs < 1) {
            wrong.add("--epochs must be at least 1, got " + epochs);
        }
        if (batchSize < 1) {
            wrong.add("--batch-size must be at least 1, got " + batchSize);
        } else if (trainer == Trainer.allreduce && batchSize < partitions) {
            wrong.add("--batch-size " + batchSize + " is the global batch of --trainer allreduce, split over the "
                    + partitions + " partitions: give at least one example to each");
        }
        if (!(lr > 0) || !Float.isFinite(lr)) {
            wrong.add("--lr must be a positive number, got " + lr);
        }
        if (!(momentum >= 0 && momentum < 1)) {
            wrong.add("--momentum must be in [0, 1), got " + momentum);
        }
        if (limit < 0) {
            wrong.add("--limit must be positive (or 0 for all examples), got " + limit);
        }
        if (width != null && model != Model.resnet18) {
            wrong.add("--width is ResNet-18's: add --model resnet18, or drop --width");
        } else if (width != null && width < 1) {
            wrong.add("--width must be at least 1, got " + width);
        }
        if (compression != Scheme.none && trainer != Trainer.allreduce) {
            wrong.add("--compression is ring allreduce's: add --trainer allreduce (parameter averaging sends parameters, "
                    + "not gradients)");
        } else if (compression != Scheme.none && partitions < 2) {
            wrong.add("--compression compresses what the ranks send each other: use --partitions 2 or more");
        }
        if (frequency != null && trainer != Trainer.averaging) {
            wrong.add("--frequency is parameter averaging's: --trainer allreduce sums the gradients every step");
        } else if (frequency != null && frequency < 1) {
            wrong.add("--frequency must be at least 1, got " + frequency);
        }
        if (dataDir != null && !Files.isDirectory(dataDir)) {
            wrong.add("--data-dir " + dataDir + " is not a folder; give the folder of Fashion-MNIST's IDX files");
        }
        if (!resume && checkpoints == null) {
            wrong.add("--no-resume is a setting of --checkpoints DIR: give both, or neither");
        }
        if (checkpoints != null && Files.exists(checkpoints) && !Files.isDirectory(checkpoints)) {
            wrong.add("--checkpoints " + checkpoints + " is a file; give a folder");
        }
        if (!wrong.isEmpty()) {
            throw new ParameterException(spec.commandLine(), String.join(System.lineSeparator(), wrong) + ".");
        }
    }
}
