package org.d2l.multigpu.plot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import tech.tablesaw.plotly.components.Figure;

/** An immutable line chart of per-epoch metrics with several named series, shown as plotly HTML and as a PNG. */
public final class LinePlot {

    /** Default width in pixels of the PNG and of the interactive figure. */
    public static final int DEFAULT_WIDTH = 640;
    /** Default height in pixels of the PNG and of the interactive figure. */
    public static final int DEFAULT_HEIGHT = 400;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final int width;
    private final int height;
    private final List<Series> series;

    private LinePlot(Builder b) {
        this.title = b.title;
        this.xLabel = b.xLabel;
        this.yLabel = b.yLabel;
        this.width = b.width;
        this.height = b.height;
        this.series = List.copyOf(b.series);
    }

    /** Starts a new plot description. */
    public static Builder builder() {
        return new Builder();
    }

    /** The chart title (empty for none). */
    public String title() {
        return title;
    }

    /** The x axis title (empty for none). */
    public String xLabel() {
        return xLabel;
    }

    /** The y axis title (empty for none). */
    public String yLabel() {
        return yLabel;
    }

    /** Width in pixels. */
    public int width() {
        return width;
    }

    /** Height in pixels. */
    public int height() {
        return height;
    }

    /** The series in legend order. */
    public List<Series> series() {
        return series;
    }

    /** Whether every finite x value is a whole number, as epochs are. */
    public boolean hasIntegerX() {
        for (Series s : series) {
            for (int i = 0; i < s.size(); i++) {
                if (s.isFinite(i) && s.x(i) != Math.rint(s.x(i))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The equivalent Tablesaw plotly {@link Figure}, e.g. for {@code tech.tablesaw.plotly.Plot.show(figure)}. */
    public Figure figure() {
        return TablesawFigures.of(this);
    }

    /** The chart drawn with Java2D as PNG bytes. */
    public byte[] png() {
        return PngRenderer.render(this);
    }

    /** A self-contained HTML fragment for notebooks (interactive plotly with the PNG as fallback). */
    public String htmlFragment() {
        return HtmlFragment.of(this);
    }

    /** A complete standalone HTML page showing the chart. */
    public String standaloneHtml() {
        return StandaloneHtml.of(this);
    }

    /** Writes {@link #standaloneHtml()} to a file, creating parent directories, and returns its absolute path. */
    public Path saveHtml(Path file) throws IOException {
        return OutputFiles.write(file, standaloneHtml().getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@link #png()} to a file, creating parent directories, and returns its absolute path. */
    public Path savePng(Path file) throws IOException {
        return OutputFiles.write(file, png());
    }

    /** The notebook display bundle (MIME type to data) of this chart. */
    public Map<String, String> mimeBundle() {
        return MimeBundle.of(this);
    }

    /** Displays the chart in the running Jupyter kernel, or prints a one-line note outside a notebook. */
    public void show() {
        Notebook.show(this);
    }

    @Override
    public String toString() {
        String names = series.stream().map(Series::name).collect(Collectors.joining(", "));
        return "LinePlot[" + (title.isEmpty() ? "untitled" : title) + ": " + names + "]";
    }

    /** Collects the title, axis labels, size and series of a {@link LinePlot}. */
    public static final class Builder {

        private String title = "";
        private String xLabel = "";
        private String yLabel = "";
        private int width = DEFAULT_WIDTH;
        private int height = DEFAULT_HEIGHT;
        private final List<Series> series = new ArrayList<>();

        private Builder() {}

        /** Sets the chart title (null means none). */
        public Builder title(String title) {
            this.title = clean(title);
            return this;
        }

        /** Sets the x axis title (null means none). */
        public Builder xLabel(String label) {
            this.xLabel = clean(label);
            return this;
        }

        /** Sets the y axis title (null means none). */
        public Builder yLabel(String label) {
            this.yLabel = clean(label);
            return this;
        }

        /** Sets the size in pixels (at least 200 by 150, at most 4000 by 4000). */
        public Builder size(int width, int height) {
            if (width < 200 || height < 150 || width > 4000 || height > 4000) {
                throw new IllegalArgumentException("plot size must be between 200x150 and 4000x4000 pixels, got "
                        + width + "x" + height);
            }
            this.width = width;
            this.height = height;
            return this;
        }

        /** Adds a series from arrays of equal length. */
        public Builder series(String name, double[] x, double[] y) {
            return series(Series.of(name, x, y));
        }

        /** Adds a series from lists of equal length. */
        public Builder series(String name, List<? extends Number> x, List<? extends Number> y) {
            return series(Series.of(name, x, y));
        }

        /** Adds a series whose x values are the epochs 1, 2, ..., y.length. */
        public Builder series(String name, double[] y) {
            return series(Series.ofEpochs(name, y));
        }

        /** Adds a series. */
        public Builder series(Series s) {
            if (s == null) {
                throw new IllegalArgumentException("series must not be null");
            }
            series.add(s);
            return this;
        }

        /** Checks that there is at least one series and that names are distinct, then creates the plot. */
        public LinePlot build() {
            if (series.isEmpty()) {
                throw new IllegalArgumentException("a line plot needs at least one series; call series(name, x, y)");
            }
            Set<String> names = new HashSet<>();
            for (Series s : series) {
                if (!names.add(s.name())) {
                    throw new IllegalArgumentException("series name '" + s.name()
                            + "' is used twice; legend names must be distinct");
                }
            }
            return new LinePlot(this);
        }

        private static String clean(String text) {
            return text == null ? "" : text.strip();
        }
    }
}
