package org.d2l.multigpu.spark.driver;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.runtime.Djl;

/** Spark inside this JVM for the tests: {@code local[n]} contexts, and the settings every test context shares. */
final class LocalSpark {

    private LocalSpark() {}

    /** Spark's {@code local[2]} named {@code app}, each task with one thread, the DJL engine started first. */
    static JavaSparkContext start(String app) {
        return start(app, 2, 1);
    }

    /** Spark's {@code local[threads]} named {@code app}, each task with {@code taskCpus} threads, the DJL engine started first. */
    static JavaSparkContext start(String app, int threads, int taskCpus) {
        Djl.engine(); // started: some tests ask PyTorch for its thread count first
        return new JavaSparkContext(conf("local[" + threads + "]", app).set("spark.task.cpus", Integer.toString(taskCpus)));
    }

    /** The settings of a test context on {@code master} named {@code app}: no web UI, the driver on the loopback address. */
    static SparkConf conf(String master, String app) {
        return new SparkConf().setMaster(master).setAppName(app).set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1");
    }
}
