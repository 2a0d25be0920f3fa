"""Writes the first N Fashion-MNIST training images and labels as IDX files (not gzipped), their headers' counts set to N.

    python3 gpu-kit/fashion_subset.py SOURCE_DIR DEST_DIR N
"""
import gzip
import struct
import sys


def subset(src, dst, n, header, item):
    with gzip.open(src) as f:
        head = bytearray(f.read(header))
        total = struct.unpack(">I", head[4:8])[0]
        if n > total:
            sys.exit(f"{src} holds {total} items, fewer than {n}")
        head[4:8] = struct.pack(">I", n)
        body = f.read(n * item)
    with open(dst, "wb") as f:
        f.write(bytes(head) + body)


def main():
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    subset(f"{src}/train-images-idx3-ubyte.gz", f"{dst}/train-images-idx3-ubyte", n, 16, 28 * 28)
    subset(f"{src}/train-labels-idx1-ubyte.gz", f"{dst}/train-labels-idx1-ubyte", n, 8, 1)


if __name__ == "__main__":
    main()
