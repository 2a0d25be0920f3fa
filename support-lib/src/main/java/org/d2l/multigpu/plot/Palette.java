package org.d2l.multigpu.plot;

/** Series colours shared by the PNG and the interactive figure: plotly's default colourway. */
final class Palette {

    private static final String[] COLOURS = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"
    };

    private Palette() {}

    /** The colour, as "#rrggbb", of the series at this index (the palette repeats). */
    static String hex(int index) {
        return COLOURS[Math.floorMod(index, COLOURS.length)];
    }

    /** The colour of the series at this index as a packed 0xRRGGBB integer. */
    static int rgb(int index) {
        return Integer.parseInt(hex(index).substring(1), 16);
    }
}
