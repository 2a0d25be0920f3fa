/** Gradient compression as a hook over the collective seam: what each scheme sends, and its residuals. */
package org.d2l.multigpu.compression;
