package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class MimeBundleTest {

    @Test
    void bundleCarriesInteractiveHtmlPngAndPlainText() throws IOException {
        LinePlot plot = HtmlFragmentTest.plot("1 device");
        Map<String, String> bundle = plot.mimeBundle();
        assertEquals(List.of("text/html", "image/png", "text/plain"), List.copyOf(bundle.keySet()));
        assertTrue(bundle.get("text/html").contains("Plotly.newPlot"));
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(bundle.get("image/png"))));
        assertNotNull(image, "image/png is not a base64 PNG");
        assertEquals(plot.width(), image.getWidth());
        assertEquals(plot.height(), image.getHeight());
        assertEquals(plot.toString(), bundle.get("text/plain"));
    }

    @Test
    void pngDataIsPlainBase64WithoutLineBreaksAndMatchesTheHtmlFallback() {
        Map<String, String> bundle = HtmlFragmentTest.plot("1 device").mimeBundle();
        String png = bundle.get("image/png");
        assertTrue(png.matches("[A-Za-z0-9+/]+=*"), "not single-line base64");
        assertTrue(bundle.get("text/html").contains("base64," + png + "\""));
    }
}
