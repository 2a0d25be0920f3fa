package org.d2l.multigpu;

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
 * The support jar's packages depend on each other in one direction only, and the training engine knows
 * nothing of notebooks: the Jupyter side, figures and the lessons' own tools sit above it.
 */
class PackagesTest {

    /** The engine: what trains, with its data, devices, models and evaluation. */
    private static final Set<String> ENGINE =
            Set.of("checkpoint", "collective", "compression", "data", "devices", "earlystopping", "eval",
                    "loop", "modelparallel", "models", "optimizer", "parallel", "precision", "runtime", "step");
    /** What sits above the engine and may use it, never the other way round. */
    private static final Set<String> ABOVE = Set.of("notebook", "plot", "lesson");

    private static final Path SOURCES = Path.of("src/main/java/org/d2l/multigpu");
    private static final Pattern IMPORT = Pattern.compile("^import org\\.d2l\\.multigpu\\.([a-z]+)\\.", Pattern.MULTILINE);

    /** Each top-level package of the jar and the other top-level packages its sources import. */
    private static Map<String, Set<String>> dependencies() throws IOException {
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = SOURCES.relativize(f).getName(0).toString();
                Set<String> uses = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = IMPORT.matcher(Files.readString(f));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        uses.add(m.group(1));
                    }
                }
            }
        }
        return deps;
    }

    @Test
    void noTwoPackagesImportEachOtherEvenThroughOthers() throws IOException {
        Map<String, Set<String>> deps = dependencies();
        assertTrue(deps.containsKey("parallel") && deps.containsKey("eval"), "sources not found: " + deps);
        List<String> cycles = new ArrayList<>();
        for (String start : deps.keySet()) {
            // every package reachable from start; start among them is a cycle
            Set<String> seen = new TreeSet<>();
            List<String> todo = new ArrayList<>(deps.get(start));
            while (!todo.isEmpty()) {
                String p = todo.remove(todo.size() - 1);
                if (seen.add(p)) {
                    todo.addAll(deps.getOrDefault(p, Set.of()));
                }
            }
            if (seen.contains(start)) {
                cycles.add(start);
            }
        }
        assertTrue(cycles.isEmpty(), "packages on an import cycle: " + cycles + "; dependencies: " + deps);
    }

    @Test
    void noEnginePackageImportsTheNotebookSideFiguresOrTheLessonsTools() throws IOException {
        Map<String, Set<String>> deps = dependencies();
        assertTrue(deps.keySet().containsAll(ENGINE) && deps.keySet().containsAll(ABOVE),
                "packages not found: " + deps.keySet());
        List<String> wrong = new ArrayList<>();
        for (String engine : ENGINE) {
            for (String used : deps.get(engine)) {
                if (ABOVE.contains(used)) {
                    wrong.add(engine + " -> " + used);
                }
            }
        }
        assertTrue(wrong.isEmpty(), "the engine imports the notebook side: " + wrong);
    }

    @Test
    void everyPackageIsEitherPartOfTheEngineOrAboveIt() throws IOException {
        Set<String> unknown = new TreeSet<>(dependencies().keySet());
        unknown.removeAll(ENGINE);
        unknown.removeAll(ABOVE);
        assertTrue(unknown.isEmpty(), "say whether these packages belong to the engine or sit above it: " + unknown);
    }
}
