package org.d2l.multigpu.spark.driver;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.training.initializer.Initializer;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.spark.ModelFactory;

/**
 * What both Spark trainers start with on the driver: the Spark context (the one given, or one joined or
 * started for them), the number of partitions, and the network initialised on the driver's CPU.
 */
record Driver(JavaSparkContext context, boolean ownsContext, int partitions, NDManager manager, Block net)
        implements AutoCloseable {

    /**
     * Uses {@code given} when not null (the caller keeps it), else {@link SparkContexts#start}; partitions
     * 0 means the context's default parallelism; the network {@code model} builds, initialised with {@code init}.
     */
    static Driver open(JavaSparkContext given, String master, int partitions, String appName, ModelFactory model,
            Initializer init) {
        SparkContexts.Started started = given != null ? new SparkContexts.Started(given, false)
                : SparkContexts.start(master, partitions, appName);
        JavaSparkContext sc = started.context();
        NDManager manager = NDManager.newBaseManager(Device.cpu());
        Block net = Init.weights(model.newBlock(), init);
        net.initialize(manager, DataType.FLOAT32, model.inputShape());
        return new Driver(sc, started.owned(), partitions > 0 ? partitions : sc.defaultParallelism(), manager, net);
    }

    /** Frees the driver's network and stops the context if this driver started it. */
    @Override
    public void close() {
        manager.close();
        if (ownsContext) {
            context.stop();
        }
    }
}
