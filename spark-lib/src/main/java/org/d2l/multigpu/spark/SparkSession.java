package org.d2l.multigpu.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;

/** The Spark context a {@link SparkTrainer} runs on, and whether the trainer started it (and so stops it). */
record SparkSession(JavaSparkContext context, boolean owned) {

    /**
     * The given {@code context}, else the running one or a new one for {@code master} (null: {@code local[k]}
     * with k = {@code partitions}, or what {@code spark-submit} set), quiet in local mode.
     */
    static SparkSession open(JavaSparkContext context, String master, int partitions) {
        if (context != null) {
            return new SparkSession(context, false);
        }
        String url = master != null ? master : System.getProperty("spark.master", "local");
        if (url.startsWith("local")) {
            quiet("org.apache.spark.util.Utils"); // "your hostname resolves to a loopback address"
            // A failed task's stack trace, logged twice; the RoundFailedException carries it as its cause.
            quiet("org.apache.spark.executor.Executor");
            quiet("org.apache.spark.scheduler.TaskSetManager");
        }
        // new SparkConf() reads the spark.* system properties that spark-submit sets (spark.master too).
        SparkConf conf = new SparkConf().setAppName("d2l-parameter-averaging")
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
        return new SparkSession(JavaSparkContext.fromSparkContext(ctx), owned);
    }

    /** Silences an slf4j-simple logger (created after this call), unless the user configured it. */
    private static void quiet(String logger) {
        String key = "org.slf4j.simpleLogger.log." + logger;
        if (System.getProperty(key) == null) {
            System.setProperty(key, "off");
        }
    }
}
