package org.d2l.multigpu.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Spark jar's packages in layers: what driver and tasks share, the ring, the tasks, the driver, the
 * command line, each using only those before it, so that the code run on executors knows nothing of the driver.
 */
class SparkPackagesTest {

    /** The layers, lowest first ("" is the package {@code spark} itself). */
    private static final List<String> LAYERS = List.of("", "ring", "task", "driver", "cli");

    private static final Path SOURCES = Path.of("src/main/java/org/d2l/multigpu/spark");
    private static final Pattern IMPORT =
            Pattern.compile("^import org\\.d2l\\.multigpu\\.spark\\.(?:([a-z]+)\\.)?[A-Z]\\w*;", Pattern.MULTILINE);

    /** Each package of the jar ("" for spark itself) and the packages of the jar its sources import. */
    private static Map<String, Set<String>> dependencies() throws IOException {
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Path rel = SOURCES.relativize(f);
                String pkg = rel.getNameCount() == 1 ? "" : rel.getName(0).toString();
                Set<String> uses = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    String used = m.group(1) == null ? "" : m.group(1);
                    if (!used.equals(pkg)) {
                        uses.add(used);
                    }
                }
            }
        }
        return deps;
    }

    private static String label(String pkg) {
        return pkg.isEmpty() ? "spark" : "spark." + pkg;
    }

    @Test
    void everyPackageIsALayer() throws IOException {
        assertEquals(new TreeSet<>(LAYERS), dependencies().keySet());
    }

    @Test
    void aPackageImportsOnlyTheLayersBeforeIt() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : dependencies().entrySet()) {
            for (String used : e.getValue()) {
                if (LAYERS.indexOf(used) >= LAYERS.indexOf(e.getKey())) {
                    wrong.add(label(e.getKey()) + " -> " + label(used));
                }
            }
        }
        assertTrue(wrong.isEmpty(), "imports against the layers: " + wrong);
    }
}
