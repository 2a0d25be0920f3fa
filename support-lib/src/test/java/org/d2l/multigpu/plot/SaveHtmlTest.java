package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SaveHtmlTest {

    @TempDir
    Path tmp;

    @Test
    void saveHtmlWritesAPageWithPlotlyInTheHeadAndTheDataInTheBody() throws IOException {
        Path file = tmp.resolve("a/b/accuracy.html");
        Path written = HtmlFragmentTest.plot("1 device").saveHtml(file);
        assertEquals(file.toAbsolutePath().normalize(), written);
        String page = Files.readString(written);
        int headEnd = page.indexOf("</head>");
        assertTrue(page.startsWith("<!DOCTYPE html>"));
        assertTrue(page.indexOf("<script src=\"" + HtmlFragment.PLOTLY_URL + "\"") < headEnd);
        assertTrue(page.contains("<title>Test accuracy</title>"));
        assertTrue(page.indexOf("name: '1 device'") > headEnd, "series name missing from the body");
        assertTrue(page.contains("y: [\"0.4\",\"0.6\",\"0.8\"]"), "series values missing");
        assertTrue(page.contains("src=\"data:image/png;base64,iVBORw0KGgo"), "PNG fallback missing");
    }

    @Test
    void saveHtmlReplacesAnExistingFile() throws IOException {
        Path file = tmp.resolve("plot.html");
        Files.writeString(file, "old");
        HtmlFragmentTest.plot("1 device").saveHtml(file);
        assertTrue(Files.readString(file).contains("1 device"));
    }

    @Test
    void saveHtmlRefusesADirectoryWithAClearMessage() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("plot.html"));
        IOException e = assertThrows(IOException.class, () -> HtmlFragmentTest.plot("1 device").saveHtml(dir));
        assertTrue(e.getMessage().contains("is a directory, not a file"), e.getMessage());
    }
}
