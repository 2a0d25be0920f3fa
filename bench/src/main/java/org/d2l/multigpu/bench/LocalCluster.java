package org.d2l.multigpu.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Spark's {@code local-cluster[k,1,1024]} from this JVM's class path (a standalone master and worker in
 * this JVM that start k executor JVMs, as on a cluster), or {@code local[k]}; as spark-lib's
 * SparkLocalClusterTest starts it.
 */
final class LocalCluster {

    private LocalCluster() {}

    /** The master URL for {@code master} ("local-cluster" or "local") and k workers. */
    static String master(String master, int workers) {
        return switch (master) {
            case "local-cluster" -> "local-cluster[" + workers + ",1,1024]";
            case "local" -> "local[" + workers + "]";
            default -> throw new IllegalArgumentException("--master is local-cluster or local, not " + master + ".");
        };
    }

    /** A context on {@link #master}; stop it (close) when done. */
    static JavaSparkContext start(String master, int workers) throws IOException {
        String url = master(master, workers);
        SparkConf conf = new SparkConf().setMaster(url).setAppName("SparkBench").set("spark.ui.enabled", "false")
                .set("spark.ui.showConsoleProgress", "false").set("spark.driver.host", "127.0.0.1");
        if (url.startsWith("local-cluster")) {
            // The worker builds the executor's command line from SPARK_HOME/jars: link this JVM's jars there;
            // class folders go to spark.executor.extraClassPath.
            Path home = Files.createTempDirectory("spark-home");
            Path jars = Files.createDirectories(home.resolve("jars"));
            // Spark's launcher reads the Scala version off a build folder (or SPARK_SCALA_VERSION, as the tests set it).
            String version = scala.util.Properties.versionNumberString();
            Files.createDirectories(home.resolve("launcher/target/scala-" + version.substring(0, version.lastIndexOf('.'))));
            List<String> folders = new ArrayList<>();
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path p = Path.of(entry);
                if (Files.isDirectory(p)) {
                    folders.add(p.toAbsolutePath().toString());
                } else if (entry.endsWith(".jar") && Files.exists(p) && !Files.exists(jars.resolve(p.getFileName()))) {
                    Files.createSymbolicLink(jars.resolve(p.getFileName()), p.toAbsolutePath());
                }
            }
            System.setProperty("spark.testing", "true"); // lets the worker run without a built Spark tree
            System.setProperty("spark.test.home", home.toString());
            conf.set("spark.executor.extraClassPath", String.join(File.pathSeparator, folders))
                    .set("spark.executor.extraJavaOptions", "--enable-native-access=ALL-UNNAMED "
                            + System.getProperty("spark.module.options", "")); // executors need them as this JVM
        }
        return new JavaSparkContext(conf);
    }
}
