package org.d2l.multigpu.spark.driver;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.runtime.Djl;

/**
 * Spark's {@code local-cluster[n,1,1024]} for the tests: a standalone master and worker inside this JVM that
 * start n executors as separate JVMs, as on a real cluster (each loads its own DJL engine and rebuilds the
 * network from the factory; parameters travel by name between JVMs).
 */
public final class LocalCluster {

    private LocalCluster() {}

    /** Starts a cluster of {@code executors} executor JVMs named {@code app}, with {@code sparkHome} as its Spark home. */
    static JavaSparkContext start(String app, int executors, Path sparkHome) throws IOException {
        Djl.setup();
        List<String> folders = sparkHome(sparkHome);
        System.setProperty("spark.testing", "true"); // lets the worker run without a built Spark tree
        System.setProperty("spark.test.home", sparkHome.toString());
        SparkConf conf = LocalSpark.conf("local-cluster[" + executors + ",1,1024]", app)
                .set("spark.executor.extraClassPath", String.join(File.pathSeparator, folders))
                .set("spark.executor.extraJavaOptions", "--enable-native-access=ALL-UNNAMED");
        return new JavaSparkContext(conf);
    }

    /**
     * Lays out {@code sparkHome} as a Spark distribution's for the worker, which builds the executors' command
     * line from SPARK_HOME/jars: links this JVM's jars there and returns its class folders, for
     * {@code spark.executor.extraClassPath}.
     */
    public static List<String> sparkHome(Path sparkHome) throws IOException {
        Path jars = Files.createDirectories(sparkHome.resolve("jars"));
        List<String> folders = new ArrayList<>();
        for (String entry : classPath().split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                folders.add(p.toAbsolutePath().toString());
            } else if (entry.endsWith(".jar") && Files.exists(p) && !Files.exists(jars.resolve(p.getFileName()))) {
                Files.createSymbolicLink(jars.resolve(p.getFileName()), p.toAbsolutePath());
            }
        }
        return folders;
    }

    /** This JVM's class path (under Surefire, the tests' own, not its booter jar's). */
    public static String classPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /** Stops {@code sc} (may be null) and clears what {@link #start} set. */
    static void stop(JavaSparkContext sc) {
        if (sc != null) {
            sc.stop();
        }
        System.clearProperty("spark.testing");
        System.clearProperty("spark.test.home");
    }
}
