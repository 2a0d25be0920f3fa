package org.d2l.multigpu.parallel;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;

/**
 * A lesson's own code, run as the lesson writes it: the code cells of a notebook taken from the
 * file, evaluated by JShell in this JVM (so they share DJL's engine and managers with the test).
 */
final class LessonCode implements AutoCloseable {

    private final JShell shell;
    private final List<String> cells = new ArrayList<>();

    /** The code cells of {@code notebook} (magic cells such as {@code %jars} left out). */
    LessonCode(Path notebook) throws IOException {
        JsonObject nb = JsonParser.parseString(Files.readString(notebook)).getAsJsonObject();
        for (JsonElement c : nb.getAsJsonArray("cells")) {
            JsonObject cell = c.getAsJsonObject();
            if (cell.get("cell_type").getAsString().equals("code")) {
                StringBuilder src = new StringBuilder();
                cell.getAsJsonArray("source").forEach(line -> src.append(line.getAsString()));
                if (!src.toString().startsWith("%")) {
                    cells.add(src.toString());
                }
            }
        }
        shell = JShell.builder().executionEngine("local")
                .compilerOptions("--class-path", System.getProperty("java.class.path")).build();
    }

    /** Evaluates every code cell of the lesson that starts with an import. */
    void evalImports() {
        cells.stream().filter(c -> c.startsWith("import ")).forEach(this::eval);
    }

    /** The first code cell that contains {@code text}, failing when the lesson has none. */
    String cell(String text) {
        return cells.stream().filter(c -> c.contains(text)).findFirst().orElseThrow(
                () -> new AssertionError("the lesson has no code cell with \"" + text + "\" any more"));
    }

    /** Evaluates {@code code} (one or more statements or declarations), failing on any error. */
    void eval(String code) {
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String rest = code;
        while (!rest.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
            for (SnippetEvent e : shell.eval(info.source())) {
                if (e.status() == Snippet.Status.REJECTED) {
                    StringBuilder why = new StringBuilder();
                    shell.diagnostics(e.snippet()).forEach(d -> why.append(d.getMessage(null)).append("; "));
                    throw new AssertionError("JShell rejected: " + info.source() + "\n" + why);
                }
                if (e.exception() != null) {
                    throw new AssertionError("The lesson's code threw: " + e.exception().getMessage()
                            + " in " + info.source(), e.exception());
                }
            }
            rest = info.remaining();
        }
    }

    /**
     * The from-scratch lesson ({@code notebooks/multiple-gpus.ipynb}) with its own initialisation, {@code getParams},
     * {@code allreduce}, {@code splitBatch}, {@code sgd} and {@code trainBatch} cells evaluated (its network is the
     * jar's {@code LeNet.lenet}), its parameters copied to {@code devices} (a Java expression) and {@code step()}
     * defined: one {@code trainBatch} on {@code batchSize} random images on a manager of its own, inside an
     * {@code NDScope} as the lesson's {@code train} runs each step (failing when the lesson stops doing so).
     * Evaluate {@code manager.close();} when done.
     */
    static LessonCode fromScratchTraining(String devices, int batchSize) throws IOException {
        LessonCode lesson = new LessonCode(Path.of("../notebooks/multiple-gpus.ipynb"));
        lesson.evalImports();
        lesson.eval("NDManager manager = NDManager.newBaseManager();");
        lesson.eval(lesson.cell("List<NDArray> initParams("));
        lesson.eval(lesson.cell("List<NDArray> getParams("));
        lesson.eval(lesson.cell("void allreduce("));
        lesson.eval(lesson.cell("List<NDList> splitBatch("));
        lesson.eval(lesson.cell("void sgd("));
        lesson.eval(lesson.cell("void trainBatch("));
        lesson.cell("try (batch; NDScope step = new NDScope())"); // the lesson's train loop frees each step so
        lesson.eval("List<Device> devices = " + devices + ";");
        lesson.eval("List<List<NDArray>> deviceParams = new ArrayList<>();");
        lesson.eval("for (Device d : devices) { deviceParams.add(getParams(params, d)); }");
        lesson.eval("void step() {\n"
                + "    try (NDManager batch = manager.newSubManager(); NDScope scope = new NDScope()) {\n"
                + "        NDArray X = batch.randomUniform(0f, 1f, new Shape(" + batchSize + ", 1, 28, 28));\n"
                + "        NDArray y = batch.randomInteger(0, 10, new Shape(" + batchSize + "), DataType.INT32)"
                + ".toType(DataType.FLOAT32, false);\n"
                + "        trainBatch(X, y, deviceParams, devices, 0.1f);\n"
                + "    }\n"
                + "}");
        return lesson;
    }

    @Override
    public void close() {
        shell.close();
    }
}
