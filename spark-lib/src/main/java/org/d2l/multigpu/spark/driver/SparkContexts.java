package org.d2l.multigpu.spark.driver;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.spark.ShardedData;

/** Starts (or joins) the one Spark context of this JVM for a trainer, and says whether the trainer owns it. */
final class SparkContexts {

    private SparkContexts() {}

    /** A running context, and whether the trainer that asked started it (and so must stop it). */
    record Started(JavaSparkContext context, boolean owned) {}

    /**
     * The context for {@code master} (null: {@code spark.master} as {@code spark-submit} set it, else
     * {@code local[partitions]}, or {@code local[2]} when partitions is 0), named {@code appName}; shares
     * a running one, and refuses one whose master differs from an explicit {@code master}.
     */
    static Started start(String master, int partitions, String appName) {
        String local = master != null ? master : System.getProperty("spark.master", "local");
        if (local.startsWith("local")) {
            quiet("org.apache.spark.util.Utils"); // "your hostname resolves to a loopback address"
            // A failed task's stack trace, logged twice; the trainer's exception carries it as its cause.
            quiet("org.apache.spark.executor.Executor");
            quiet("org.apache.spark.scheduler.TaskSetManager");
        }
        // new SparkConf() reads the spark.* system properties that spark-submit sets (spark.master too).
        SparkConf conf = new SparkConf().setAppName(appName)
                .setIfMissing("spark.master", "local[" + (partitions > 0 ? partitions : 2) + "]")
                .setIfMissing("spark.ui.enabled", "false")
                .setIfMissing("spark.ui.showConsoleProgress", "false");
        if (master != null) {
            conf.setMaster(master);
        }
        if (conf.get("spark.master").startsWith("local")) {
            conf.setIfMissing("spark.driver.host", "127.0.0.1"); // no network needed in local mode
        }
        quiet("org.apache.hadoop.util.NativeCodeLoader"); // "unable to load native-hadoop library"
        quiet("org.apache.spark.rdd.ParallelCollectionRDD"); // ShardedData's unpersist after localCheckpoint
        // One Spark context per JVM: getOrCreate shares a running one, whose owner will stop it.
        String token = java.util.UUID.randomUUID().toString();
        SparkContext ctx = SparkContext.getOrCreate(conf.set("spark.d2l.trainer", token));
        boolean owned = token.equals(ctx.getConf().get("spark.d2l.trainer", ""));
        if (!owned && master != null && !master.equals(ctx.master())) {
            throw new IllegalStateException("A Spark context with master " + ctx.master() + " is already "
                    + "running in this JVM and there can be only one: close the trainer that started it "
                    + "(or call stop() on it) before asking for " + master + ".");
        }
        return new Started(JavaSparkContext.fromSparkContext(ctx), owned);
    }

    /** Silences an slf4j-simple logger (created after this call), unless the user configured it. */
    static void quiet(String logger) {
        String key = "org.slf4j.simpleLogger.log." + logger;
        if (System.getProperty(key) == null) {
            System.setProperty(key, "off");
        }
    }
}
