package org.d2l.multigpu.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class PngRendererTest {

    private static LinePlot plot() {
        return LinePlot.builder().title("Test accuracy").xLabel("epoch").yLabel("accuracy").size(500, 320)
                .series("1 device", new double[] {1, 2, 3, 4}, new double[] {0.40, 0.60, 0.70, 0.75})
                .series("2 devices", new double[] {1, 2, 3, 4}, new double[] {0.30, 0.55, Double.NaN, 0.80})
                .build();
    }

    private static BufferedImage decode(byte[] png) throws IOException {
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertNotNull(image, "ImageIO could not decode the PNG");
        return image;
    }

    private static PngRenderer.Frame frameOf(LinePlot plot) {
        BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = scratch.createGraphics();
        try {
            return PngRenderer.Frame.of(plot, g);
        } finally {
            g.dispose();
        }
    }

    private static int count(BufferedImage image, Rectangle r, int rgb) {
        int n = 0;
        for (int y = Math.max(0, r.y); y < Math.min(image.getHeight(), r.y + r.height); y++) {
            for (int x = Math.max(0, r.x); x < Math.min(image.getWidth(), r.x + r.width); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void pngStartsWithTheSignatureAndDecodesToTheRequestedSize() throws IOException {
        byte[] png = plot().png();
        assertEquals((byte) 0x89, png[0]);
        assertEquals("PNG", new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII));
        BufferedImage image = decode(png);
        assertEquals(500, image.getWidth());
        assertEquals(320, image.getHeight());
    }

    @Test
    void everyFiniteDataPointIsMarkedInItsSeriesColour() throws IOException {
        LinePlot plot = plot();
        BufferedImage image = decode(plot.png());
        PngRenderer.Frame f = frameOf(plot);
        for (int s = 0; s < plot.series().size(); s++) {
            Series series = plot.series().get(s);
            for (int i = 0; i < series.size(); i++) {
                if (!series.isFinite(i)) {
                    continue;
                }
                int cx = (int) Math.round(f.px(series.x(i)));
                int cy = (int) Math.round(f.py(series.y(i)));
                int hits = count(image, new Rectangle(cx - 2, cy - 2, 5, 5), Palette.rgb(s));
                assertTrue(hits >= 4, series.name() + " point " + i + " at (" + cx + "," + cy
                        + ") has only " + hits + " pixels of its colour");
            }
        }
    }

    @Test
    void aNaNValueLeavesAGapInTheLine() throws IOException {
        LinePlot plot = LinePlot.builder().size(400, 300)
                .series("gap", new double[] {1, 2, 3}, new double[] {0.0, Double.NaN, 0.0})
                .build();
        BufferedImage image = decode(plot.png());
        PngRenderer.Frame f = frameOf(plot);
        int y = (int) Math.round(f.py(0.0));
        int x1 = (int) Math.round(f.px(1.0));
        int x3 = (int) Math.round(f.px(3.0));
        int between = count(image, new Rectangle(x1 + 8, y - 2, x3 - x1 - 16, 5), Palette.rgb(0));
        assertEquals(0, between, "no line may be drawn across the NaN point");
        assertTrue(count(image, new Rectangle(x1 - 2, y - 2, 5, 5), Palette.rgb(0)) >= 4);
    }

    @Test
    void theImageIsNotBlankAndHasBothSeriesColours() throws IOException {
        BufferedImage image = decode(plot().png());
        Rectangle all = new Rectangle(0, 0, image.getWidth(), image.getHeight());
        assertTrue(count(image, all, Palette.rgb(0)) > 50, "too few pixels of series 1's colour");
        assertTrue(count(image, all, Palette.rgb(1)) > 50, "too few pixels of series 2's colour");
        assertTrue(count(image, all, 0xffffff) < image.getWidth() * image.getHeight(), "image is all white");
    }

    @Test
    void fontsRenderTheTitleAsDarkPixelsAboveThePlotArea() throws IOException {
        LinePlot titled = plot();
        LinePlot untitled = LinePlot.builder().size(500, 320)
                .series("1 device", new double[] {1, 2}, new double[] {0.4, 0.6}).build();
        Rectangle titleBand = new Rectangle(100, 0, 300, frameOf(titled).area().y - 2);
        assertTrue(dark(decode(titled.png()), titleBand) > 30,
                "the title drew (almost) nothing: check that fonts are available to headless Java");
        Rectangle emptyBand = new Rectangle(100, 0, 300, frameOf(untitled).area().y - 6);
        assertEquals(0, dark(decode(untitled.png()), emptyBand), "without a title the top band stays white");
    }

    @Test
    void rendererSwitchesAwtToHeadlessWhenNotConfigured() {
        plot().png();
        assertEquals("true", System.getProperty("java.awt.headless"));
    }

    @Test
    void longLegendNamesAreShortenedToFitTheImage() {
        BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = scratch.createGraphics();
        try {
            java.awt.FontMetrics fm = g.getFontMetrics(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.PLAIN, 13));
            String longName = "data parallel on 8 devices with gradient accumulation".repeat(2);
            String shortened = PngRenderer.fit(longName, fm, 120);
            assertTrue(fm.stringWidth(shortened) <= 120, shortened);
            assertTrue(shortened.endsWith("\u2026") && longName.startsWith(shortened.substring(0, shortened.length() - 1)));
            assertEquals("1 device", PngRenderer.fit("1 device", fm, 120));
        } finally {
            g.dispose();
        }
    }

    private static int dark(BufferedImage image, Rectangle r) {
        int n = 0;
        for (int y = r.y; y < r.y + r.height; y++) {
            for (int x = r.x; x < r.x + r.width; x++) {
                int rgb = image.getRGB(x, y);
                int lum = ((rgb >> 16) & 0xff) + ((rgb >> 8) & 0xff) + (rgb & 0xff);
                if (lum < 3 * 128) {
                    n++;
                }
            }
        }
        return n;
    }
}
