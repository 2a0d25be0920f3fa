/** Gradient compression as a decorator of the collective seam: what each scheme sends, and its residuals. */
package org.d2l.multigpu.compression;
