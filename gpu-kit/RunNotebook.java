import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;

/**
 * Executes a lesson where Jupyter cannot run (a GPU machine whose Python has no ZeroMQ): its code cells, in order,
 * by JShell in this JVM, as the Java kernel runs them, and writes the executed notebook with each cell's printed
 * output and errors (nbformat 4), for scripts/check_outputs.py to judge as it judges a Jupyter run.
 *
 * <pre>java -cp CLASSPATH gpu-kit/RunNotebook.java NOTEBOOK.ipynb EXECUTED.ipynb</pre>
 *
 * Every cell runs, also after an error (as nbconvert's allow_errors); the exit status is 1 when a cell failed.
 * Outside a kernel the support jar prints its figures' and tables' text to standard output, which is kept.
 */
public final class RunNotebook {

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java -cp CLASSPATH gpu-kit/RunNotebook.java NOTEBOOK.ipynb EXECUTED.ipynb");
            System.exit(2);
        }
        JsonObject nb = JsonParser.parseString(Files.readString(Path.of(args[0]))).getAsJsonObject();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        // one stream each for the whole run, written to the running cell's buffer (and the terminal): a thread or
        // an object that kept System.out from an earlier cell writes to the cell running now, as in a kernel
        Switch out = new Switch(stdout);
        Switch err = new Switch(stderr);
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        boolean failed = false;
        int count = 0;
        try (JShell shell = JShell.builder().executionEngine("local")
                .compilerOptions("--class-path", System.getProperty("java.class.path")).build()) {
            for (JsonElement c : nb.getAsJsonArray("cells")) {
                JsonObject cell = c.getAsJsonObject();
                if (!cell.get("cell_type").getAsString().equals("code")) {
                    continue;
                }
                String source = text(cell.get("source"));
                String firstLine = source.lines().findFirst().orElse("");
                stdout.printf("--- cell %d: %s%n", ++count, firstLine);
                long started = System.nanoTime();
                ByteArrayOutputStream printed = new ByteArrayOutputStream();
                ByteArrayOutputStream complained = new ByteArrayOutputStream();
                out.to(printed);
                err.to(complained);
                JsonArray outputs = new JsonArray();
                try {
                    String[] value = new String[1];
                    String error = run(shell, source, value);
                    System.out.flush();
                    System.err.flush();
                    if (printed.size() > 0) {
                        outputs.add(stream("stdout", printed.toString(StandardCharsets.UTF_8)));
                    }
                    if (complained.size() > 0) {
                        outputs.add(stream("stderr", complained.toString(StandardCharsets.UTF_8)));
                    }
                    if (error == null && value[0] != null) {
                        outputs.add(result(value[0], count));
                    }
                    if (error != null) {
                        failed = true;
                        outputs.add(error(error));
                        stdout.println(error);
                    }
                } finally {
                    out.to(null);
                    err.to(null);
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                // the wall time, as a line the kit's summary reads (the longest cells), and as nbclient records it
                stdout.printf(java.util.Locale.ROOT, "--- cell %d took %.1f s: %s%n", count, seconds, firstLine);
                JsonObject timing = new JsonObject();
                timing.addProperty("seconds", Math.round(seconds * 10) / 10.0);
                if (!cell.has("metadata")) {
                    cell.add("metadata", new JsonObject());
                }
                cell.getAsJsonObject("metadata").add("execution", timing);
                cell.addProperty("execution_count", count);
                cell.add("outputs", outputs);
            }
        }
        System.setOut(stdout);
        System.setErr(stderr);
        Gson gson = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();
        Files.writeString(Path.of(args[1]), gson.toJson(nb) + "\n");
        System.exit(failed ? 1 : 0);
    }

    /** Evaluates a cell snippet by snippet; returns the first error's text, or null; value[0]: a last expression's. */
    private static String run(JShell shell, String source, String[] value) {
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String rest = source;
        while (!rest.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
            if (info.completeness() == SourceCodeAnalysis.Completeness.EMPTY) {
                break;
            }
            if (!info.completeness().isComplete()) {
                return "CompilerException: incomplete code: " + rest.strip();
            }
            for (SnippetEvent e : shell.eval(info.source())) {
                if (e.causeSnippet() != null) {
                    continue; // an earlier snippet updated by this one: not what this cell evaluated
                }
                // rejected, or a declaration that refers to what does not exist (its initialiser never ran)
                if (e.status() == Snippet.Status.REJECTED || e.status() == Snippet.Status.RECOVERABLE_NOT_DEFINED) {
                    StringBuilder why = new StringBuilder("CompilerException: ");
                    shell.diagnostics(e.snippet()).forEach(d -> why.append(d.getMessage(null)).append('\n'));
                    return why.append(info.source().strip()).toString();
                }
                if (e.exception() != null) {
                    StringWriter trace = new StringWriter();
                    e.exception().printStackTrace(new PrintWriter(trace));
                    String type = e.exception() instanceof EvalException ee ? ee.getExceptionClassName()
                            : e.exception().getClass().getName();
                    return "EvalException: " + type + ": " + e.exception().getMessage() + "\n" + trace;
                }
                // the kernel shows the value of a cell that ends with an expression
                value[0] = e.snippet().kind() == Snippet.Kind.EXPRESSION
                        || e.snippet().subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND ? e.value() : null;
            }
            rest = info.remaining();
        }
        return null;
    }

    private static String text(JsonElement source) {
        if (source.isJsonPrimitive()) {
            return source.getAsString();
        }
        StringBuilder sb = new StringBuilder();
        source.getAsJsonArray().forEach(line -> sb.append(line.getAsString()));
        return sb.toString();
    }

    private static JsonObject stream(String name, String text) {
        JsonObject o = new JsonObject();
        o.addProperty("output_type", "stream");
        o.addProperty("name", name);
        o.add("text", lines(text));
        return o;
    }

    private static JsonObject result(String text, int count) {
        JsonObject o = new JsonObject();
        o.addProperty("output_type", "execute_result");
        o.addProperty("execution_count", count);
        JsonObject data = new JsonObject();
        data.add("text/plain", lines(text));
        o.add("data", data);
        o.add("metadata", new JsonObject());
        return o;
    }

    private static JsonObject error(String text) {
        JsonObject o = new JsonObject();
        o.addProperty("output_type", "error");
        String first = text.lines().findFirst().orElse("");
        o.addProperty("ename", first.substring(0, Math.max(0, first.indexOf(':'))));
        o.addProperty("evalue", first.substring(first.indexOf(':') + 1).strip());
        o.add("traceback", lines(text));
        return o;
    }

    private static JsonArray lines(String text) {
        JsonArray a = new JsonArray();
        List<String> parts = new ArrayList<>();
        int from = 0;
        for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', from)) {
            parts.add(text.substring(from, i + 1));
            from = i + 1;
        }
        if (from < text.length()) {
            parts.add(text.substring(from));
        }
        parts.forEach(a::add);
        return a;
    }

    /** Writes to the terminal and to the running cell's buffer, if a cell is running. */
    private static final class Switch extends java.io.OutputStream {
        private final java.io.OutputStream terminal;
        private java.io.OutputStream cell;

        Switch(java.io.OutputStream terminal) {
            this.terminal = terminal;
        }

        synchronized void to(java.io.OutputStream cell) {
            this.cell = cell;
        }

        @Override
        public synchronized void write(int x) throws java.io.IOException {
            terminal.write(x);
            if (cell != null) {
                cell.write(x);
            }
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
            terminal.write(buf, off, len);
            if (cell != null) {
                cell.write(buf, off, len);
            }
        }

        @Override
        public void flush() throws java.io.IOException {
            terminal.flush();
        }
    }
}
